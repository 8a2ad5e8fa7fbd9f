// Runs a program with an argument vector and waits for it: posix_spawn, never a shell, so no
// character of an argument (quotes, `;`, `$()`, spaces) is interpreted.
#pragma once

#include <string>
#include <vector>

namespace scgpu::cli {

// argv[0] is the program's path (not looked up in PATH). stdout and stderr of the child go to
// /dev/null when `silence` is set. Returns the child's exit status, 128 + N when signal N ended
// it, or -1 when it could not be started.
int spawnAndWait(const std::vector<std::string>& argv, bool silence);

// The path of the running executable (/proc/self/exe).
std::string selfExecutable();

}  // namespace scgpu::cli
