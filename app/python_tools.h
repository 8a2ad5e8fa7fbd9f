// `scgpu sweep`, `scgpu plot` and `scgpu report`: the design-exploration tools are a Python
// package in the repository (python/scgpu_tools, Debian's python3 with pandas, matplotlib and
// Dask). The CLI runs it with the arguments unchanged, never through a shell.
#pragma once

#include <string>
#include <vector>

namespace scgpu::cli {

// Runs `/usr/bin/python3 -m scgpu_tools TOOL ARGS...` with PYTHONPATH pointing at the package,
// SCGPU at this executable (unless set) and SCGPU_TOOLS_PROG=scgpu; returns its exit status.
int runPythonTool(const std::string& tool, const std::vector<std::string>& args);

}  // namespace scgpu::cli
