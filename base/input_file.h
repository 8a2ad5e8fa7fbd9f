// Reading an input file with bounds: only regular files (a link to /dev/urandom, a FIFO or a
// directory is refused rather than read forever), at most inputLimits().input_file_bytes, and
// every filesystem error (a path too long, a loop of links) as an InputError naming the file.
#pragma once

#include <string>

#include "base/errors.h"
#include "base/input_limits.h"

namespace scgpu {

// The whole file. `what` names it in messages ("PTX file", "launch file").
std::string readInputFile(const std::string& path, const std::string& what);

// Throws InputError unless `path` names a regular file no larger than `max_bytes` (0: the input
// limit); returns its size.
std::uint64_t checkInputFile(const std::string& path, const std::string& what, std::uint64_t max_bytes = 0);

}  // namespace scgpu
