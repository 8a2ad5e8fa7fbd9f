// The CUDA occupancy rules: what one thread block of a kernel costs an SM (warps, registers with
// their allocation granularity, shared memory with its allocation unit and per-block reserve),
// whether it fits next to the blocks already resident, and the theoretical occupancy. The
// GigaThread engine and the SM use the same rules.
#pragma once

#include <cstdint>
#include <string>

#include "sm/sm_params.h"

namespace scgpu::sm {

struct KernelResources {
  std::uint32_t threads_per_block = 0;
  std::uint32_t registers_per_thread = 0;
  std::uint32_t static_shared_bytes = 0;
  std::uint32_t dynamic_shared_bytes = 0;
};

// What one block takes from an SM, after allocation granularity.
struct BlockCost {
  std::uint32_t threads = 0, warps = 0;
  std::uint32_t registers = 0;      // allocated registers (per-warp allocation units)
  std::uint32_t shared_bytes = 0;   // allocated shared memory (units, plus the per-block reserve)
};

// Resources in use on one SM.
struct SmUsage {
  std::uint32_t blocks = 0, threads = 0, warps = 0, registers = 0, shared_bytes = 0;
  void add(const BlockCost& c) { blocks++; threads += c.threads; warps += c.warps; registers += c.registers; shared_bytes += c.shared_bytes; }
  void remove(const BlockCost& c) { blocks--; threads -= c.threads; warps -= c.warps; registers -= c.registers; shared_bytes -= c.shared_bytes; }
};

BlockCost blockCost(const SmParams& sm, const KernelResources& k);
bool fits(const SmParams& sm, const SmUsage& used, const BlockCost& cost);

struct Occupancy {
  std::uint32_t blocks_per_sm = 0;   // 0: the block can never fit (launch error)
  std::uint32_t active_warps_per_sm = 0;
  double occupancy = 0;              // active warps / max warps per SM
  std::string limiter;               // "warps", "blocks", "registers", "shared memory", "threads"
};
// The occupancy calculator: blocks per SM and the resource that limits them.
Occupancy theoreticalOccupancy(const SmParams& sm, const KernelResources& k);

}  // namespace scgpu::sm
