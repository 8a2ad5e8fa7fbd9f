// Launch files: a YAML description of one kernel launch (PTX file, entry, grid, block, buffers with
// their initial contents, arguments, outputs and expected results), so that a user's PTX kernel runs
// on the model without writing host code. docs/launch-files.md is the reference.
//
// Parsing is separate from running: parseLaunchFile() checks everything it can without a device
// (keys, types, ranges, files, buffer names) and throws ConfigError("file:line:col: error: ...");
// runLaunch() then materialises the buffers, launches and checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <stdexcept>  // before runtime.h, which uses std::runtime_error without it

#include "driver/runtime.h"
#include "sm/tensor_map.h"
#include "sm/texture_desc.h"
#include "tlm/gpu_config.h"

namespace scgpu::cli {

enum class ElemType { U8, S8, U16, S16, U32, S32, U64, S64, F16, F32, F64 };

std::size_t elemSize(ElemType t);
const char* elemName(ElemType t);          // "u32"
std::string npyDescr(ElemType t);          // "<u4", "|u1"
bool isFloat(ElemType t);
bool isSigned(ElemType t);                 // signed integers only
std::optional<ElemType> parseElemType(const std::string& name);

// IEEE binary16 from a double, rounding to nearest even (one rounding, no detour through float),
// and back (exact).
std::uint16_t doubleToHalf(double value);
double halfToDouble(std::uint16_t bits);

// A position in the launch file, 1-based, for messages about things found after parsing.
struct SourceLoc {
  std::string file;
  int line = 0, col = 0;
  std::string str() const;  // "file:line:col", or "file" when unknown
};

struct InitSpec {
  enum class Kind { Zeros, Iota, Fill, Random, File, Values };
  Kind kind = Kind::Zeros;
  std::vector<std::uint8_t> bytes;  // Fill: one element; Values: all elements
  // Random: integers use min/max as 64-bit patterns (sign-extended for signed types), floats fmin/fmax.
  std::uint64_t seed = 1;
  std::uint64_t imin = 0, imax = 0;
  double fmin = 0.0, fmax = 1.0;
  // File: resolved path; .npy files are read past their header, whose dtype was checked.
  std::string path;
  bool npy = false;
  std::uint64_t data_offset = 0;
  SourceLoc loc;
};

struct Tolerance {
  double rel = 0.0, abs = 0.0;
};

struct BufferSpec {
  std::string name;
  ElemType type = ElemType::U32;
  std::uint64_t count = 0;
  InitSpec init;
  std::string output;       // resolved path, empty when none; .npy or raw by extension
  std::string expect;       // resolved path, empty when none
  bool expect_npy = false;
  std::uint64_t expect_offset = 0;
  std::optional<Tolerance> tolerance;  // floats only; absent means bit-exact
  SourceLoc loc, output_loc, expect_loc;
  std::uint64_t bytes() const { return count * elemSize(type); }
};

struct ArgSpec {
  enum class Kind { Buffer, Scalar, TensorMap, Texture };  // Texture: a texture or surface object over a buffer
  Kind kind = Kind::Buffer;
  std::size_t buffer = 0;           // index into LaunchSpec::buffers (Buffer, TensorMap, Texture)
  // TensorMap: a tensor map over the buffer (its 128 bytes, by value, for a __grid_constant__
  // CUtensorMap parameter); global_address is filled in with the buffer's address at run time.
  sm::TensorMap tensor_map;
  sm::TextureDesc texture;          // Texture: the descriptor, its base filled in at the launch
  ElemType type = ElemType::U32;    // Scalar
  std::vector<std::uint8_t> bytes;  // Scalar: its value, little-endian
  SourceLoc loc;
};

struct LaunchSpec {
  std::string path;         // the launch file
  std::string ptx;          // resolved path of the PTX module
  std::string kernel;
  driver::Dim3 grid, block;
  // Thread-block cluster dimensions (`cluster:`; 0x0x0 when absent: the kernel's .reqnctapercluster
  // or clusters of one block).
  driver::Dim3 cluster{0, 0, 0};
  std::uint64_t dynamic_shared_bytes = 0;
  // Launches: `warmup` then `repeat`, back to back on the same buffers (caches, TLBs and DRAM rows
  // stay as the last launch left them); checks and outputs look at the buffers after the last.
  std::uint32_t warmup = 0, repeat = 1;
  std::vector<BufferSpec> buffers;  // in file order
  std::vector<ArgSpec> args;
  SourceLoc ptx_loc, kernel_loc, grid_loc, block_loc, args_loc;

  const BufferSpec* findBuffer(const std::string& name) const;
};

// Parses and checks a launch file. Paths inside are relative to the file's directory.
// Throws ConfigError with "file:line:col: error: ..." for every problem.
LaunchSpec parseLaunchFile(const std::string& path);
// Same, from text; `path` names the file in messages and anchors relative paths.
LaunchSpec parseLaunchString(const std::string& yaml, const std::string& path);

// The host contents of a buffer before the launch (init applied).
std::vector<std::uint8_t> initialContents(const BufferSpec& buffer);

struct BufferCheck {
  std::string buffer;
  bool passed = true;
  std::uint64_t mismatches = 0;
  std::string message;  // "out: 16 elements match" or the first mismatch
};

struct LaunchOutcome {
  driver::Error error = driver::Error::Success;  // of the launch
  bool passed = true;                            // every expect matched
  std::vector<BufferCheck> checks;               // one per buffer with `expect:`
  std::vector<std::string> outputs_written;      // paths
  std::string printf_output;
};

// Runs a parsed launch on a runtime: allocates and fills the buffers, loads the module, launches,
// and (when the launch succeeded) writes outputs and compares expectations. PTX errors propagate as
// ptx::ParseError; an unknown kernel or an argument mismatch as ConfigError at the launch file's
// `kernel:` or `args:` key. A kernel fault is reported in `error` (Runtime::lastFault() has details).
LaunchOutcome runLaunch(const LaunchSpec& spec, driver::Runtime& runtime);

}  // namespace scgpu::cli
