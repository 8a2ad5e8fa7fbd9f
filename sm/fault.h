// A kernel fault as the GPU raises it: what happened and exactly where (kernel, block, warp,
// thread, PC, PTX line and CUDA source line).
#pragma once

#include <cstdint>
#include <string>

namespace scgpu::sm {

struct FaultReport {
  std::string kind;             // "illegal address", "misaligned address", "trap", "assert", ...
  std::string kernel;
  std::string message;          // details: the address, the assert text, the barrier state
  std::string ptx_location;     // "saxpy.ptx:42"
  std::string source_location;  // "saxpy.cu:12" when the PTX has line info
  std::string instruction;      // the PTX text of the faulting instruction
  std::uint32_t block[3] = {0, 0, 0};
  std::uint32_t thread[3] = {0, 0, 0};
  std::uint32_t warp = 0;       // warp index within the block
  std::uint32_t lane = 0;
  std::uint32_t pc = 0;         // instruction index in the kernel's program
  std::uint64_t cycle = 0;      // timing mode: the core cycle the fault was seen (0 in functional mode)
  std::uint64_t address = 0;    // the faulting address, for memory faults (0 otherwise)
  // Page faults: where the walk failed, as ERR_MMU_FAULT encodes it (level | reason << 4 | write << 8).
  std::uint32_t mmu_fault = 0;

  std::string toString() const;
};

// Thrown inside the engine when an instruction faults; the engine turns it into a report.
struct FaultSignal {
  std::string kind;
  std::string message;
  std::uint32_t lane;
  std::uint64_t address = 0;  // memory faults: the address accessed
  std::uint32_t mmu_fault = 0;  // page faults (FaultReport::mmu_fault)
};

}  // namespace scgpu::sm
