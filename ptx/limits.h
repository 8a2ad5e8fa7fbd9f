// Limits on what one PTX text may make the front end do: how long an identifier, how many
// statements, how many registers one function declares, how large a `.file` index. The defaults
// are those of scgpu::InputLimits (base/input_limits.h, documented in docs/robustness.md); ptx/
// may not include base/, so the driver copies the limits in force into a ptx::Limits.
//
// Also the ceilings of the device's storage that the decoder checks sizes against (per-thread
// local frame, kernel parameters, static shared memory): a declaration beyond them is refused at
// load time, naming the variable, rather than cut to 32 bits or allocated on the host.
#pragma once

#include <cstdint>
#include <string>

namespace scgpu::ptx {

struct Limits {
  std::uint64_t identifier_chars = 1024;   // ptx_identifier_chars
  std::uint64_t statements = 10000000;     // ptx_statements: directives and instructions in one module
  std::uint64_t registers = 1000000;       // ptx_registers: registers declared by one function
  std::uint64_t file_index = 1000000;      // ptx_file_index: the largest `.file` index
};

// The message of an exceeded limit, in the one format every limit of scgpu uses
// (scgpu::inputLimitMessage, which ptx/ cannot call):
//   "<what> is <value>, above the limit <name> = <limit> (raise it with --limit <name>=N)"
// ParseError prefixes "file:line:col: error: ".
inline std::string limitText(const std::string& what, std::uint64_t value, const std::string& name,
                             std::uint64_t limit) {
  return what + " is " + std::to_string(value) + ", above the limit " + name + " = " + std::to_string(limit) +
         " (raise it with --limit " + name + "=N)";
}

// Device storage ceilings. Per-thread local memory is 512 KiB on every architecture since sm_20
// (CUDA Programming Guide, "Technical Specifications per Compute Capability"); kernel parameters
// are 32764 bytes since CUDA 12.1 on Volta and later. Static shared memory is bounded by the
// device's shared memory per block, which the driver passes in (DecodeEnv::max_shared_bytes).
inline constexpr std::uint64_t kMaxLocalBytesPerThread = 512 * 1024;
inline constexpr std::uint64_t kMaxKernelParamBytes = 32764;

}  // namespace scgpu::ptx
