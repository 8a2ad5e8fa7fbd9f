// Registers per thread of a kernel, as the occupancy rules need them: what ptxas allocated when
// the kernel is one of the suite's (kernels/ptx/regs.json, recorded by scripts/gen_ptx.sh from
// `ptxas -v`), else an estimate from the decoded PTX (see estimateRegistersPerThread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ptx/decoded.h"

namespace scgpu::driver {

// One kernel's entry in regs.json.
struct RecordedResources {
  std::uint32_t registers = 0;
  std::uint32_t shared_bytes = 0;  // static shared memory
  std::uint32_t local_bytes = 0;   // the kernel's stack frame
  std::string arch;                // the arch ptxas compiled for ("sm_90")
};

// The regs.json in use: $SCGPU_KERNELS_DIR/regs.json when that variable is set and not empty
// (the directory that holds the sm_XX/ PTX folders), else SCGPU_SOURCE_DIR/kernels/ptx/regs.json.
std::string regsJsonPath();

// The entry of `kernel` in regs.json; nullopt when the file is missing or does not list it. Each
// file is read once (cached by path). A file that exists but is not valid regs.json throws
// std::runtime_error naming the file.
std::optional<RecordedResources> recordedResources(const std::string& kernel);

// Registers per thread for `p`:
// - the regs.json value when regs.json lists p.kernel_name and its recorded static shared memory
//   equals p.static_shared_bytes (a guard against an unrelated kernel of the same name). regs.json
//   is recorded for sm_90 only; its count is used for the other archs as well (ptxas allocates
//   within a few registers of it there, far closer than the estimate);
// - else estimateRegistersPerThread(p).
// Either is clamped to p.maxnreg when the kernel sets .maxnreg, and to max_registers_per_thread
// (the SM's limit: SmParams::max_registers_per_thread).
std::uint32_t registersPerThread(const ptx::Program& p, std::uint32_t max_registers_per_thread = 255);
// The same for `arch` ("sm_75", "sm_80", "sm_90") with their SM limit, 255; `arch` does not change the
// answer (see above) and is there for a table recorded per arch.
std::uint32_t registersPerThread(const ptx::Program& p, const std::string& arch);

// The estimate from the PTX. The decoder's register slots (functions[i].num_regs) are 64-bit
// slots for every virtual register nvcc wrote, plus constants and special registers, so they
// overcount ptxas several-fold. Instead:
//   pressure = the most 32-bit registers live at once in any function of the program (backward
//              liveness over each function's control-flow graph; a 64-bit value counts 2, a
//              128-bit one 4; constants, special registers and predicates count 0), maximised
//              over the kernel and every function it calls;
//   estimate = min(max_registers_per_thread, max(8, pressure + 3, 24 if the program calls a
//              function))
// The constants are fitted to ptxas 13.0 on the suite's 40 sm_90 kernels (8 is the least ptxas
// reports there; every kernel with an ABI call - a .func, printf, assert - gets 24): mean
// absolute error 3.5 registers (with the wgmma kernels added later), worst 16 (kernels that ptxas lets grow to 32 for unrolled
// independent work, which pressure does not see). testbench/occupancy_test.cpp checks the bounds.
// Not clamped to .maxnreg (registersPerThread does that).
std::uint32_t estimateRegistersPerThread(const ptx::Program& p, std::uint32_t max_registers_per_thread = 255);

// The largest number of 32-bit registers live at once (the `pressure` above), or `cap` when it is
// larger. Time and memory are near-linear in the program's size (no live set per instruction), and
// the work stops once some point reaches `cap`.
std::uint32_t registerPressure(const ptx::Program& p, std::uint32_t cap = ~std::uint32_t{0});

}  // namespace scgpu::driver
