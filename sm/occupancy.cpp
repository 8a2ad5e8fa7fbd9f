// The CUDA occupancy rules, as NVIDIA's occupancy calculator computes them (cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor, and the Occupancy Calculator spreadsheet):
//
//   warps per block      = ceil(threads / 32)
//   registers per warp   = ceil(registers_per_thread * 32 / register_allocation_unit_size) * unit
//   registers per block  = registers per warp * warps per block
//   warps by registers   = sub_cores * floor((registers_per_sm / sub_cores) / registers per warp)
//                          (registers are split evenly over the sub-partitions, and a warp's
//                          registers live in one sub-partition: the calculator rounds down per
//                          sub-partition, so 33 registers on 64 K registers give 4 * 12 = 48
//                          warps, not 51)
//   shared per block     = ceil((static + dynamic + reserved_shared_memory_per_block_bytes) /
//                          shared_memory_allocation_unit_bytes) * unit
//   blocks per SM        = min(max_blocks_per_sm,
//                              min(max_warps_per_sm, max_threads_per_sm / 32) / warps per block,
//                              max_threads_per_sm / threads per block,
//                              warps by registers / warps per block,
//                              shared_memory_per_sm_bytes / shared per block)
//
// A block cannot launch at all (0 blocks) when its threads exceed max_threads_per_block, its
// registers per thread exceed max_registers_per_thread, its registers exceed
// max_registers_per_block (checked twice, as the calculator does: for the warps it has, and for
// its warps rounded up to a multiple of the sub-partitions, which is what the hardware checks), or
// its allocated shared memory exceeds shared_memory_per_block_optin_bytes plus the reserve.
//
// The shared-memory carve-out: the calculator's default preference takes the whole
// shared_memory_per_sm_bytes (the driver picks the carve-out that fits the launch), and so do we.
// Per-block shared memory is checked against the opt-in limit: the model has no
// cudaFuncSetAttribute, so every kernel is treated as opted in.
#include "sm/occupancy.h"

#include <algorithm>
#include <limits>

namespace scgpu::sm {
namespace {

constexpr std::uint64_t kWarpSize = 32;
constexpr std::uint32_t kUnlimited = std::numeric_limits<std::uint32_t>::max();

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }
std::uint64_t roundUp(std::uint64_t a, std::uint64_t b) { return ceilDiv(a, b) * (b == 0 ? 1 : b); }
std::uint32_t saturate(std::uint64_t v) { return v > kUnlimited ? kUnlimited : std::uint32_t(v); }

std::uint64_t subPartitions(const SmParams& sm) { return std::max<std::uint32_t>(sm.sub_cores, 1); }

// Warp slots of an SM: the calculator derives them from the thread limit; a config may also
// state fewer warps than threads / 32.
std::uint64_t warpSlots(const SmParams& sm) {
  return std::min<std::uint64_t>(sm.max_warps_per_sm, sm.max_threads_per_sm / kWarpSize);
}

// Registers allocated to one warp of a kernel using `regs_per_thread` registers per thread.
std::uint64_t registersPerWarp(const SmParams& sm, std::uint64_t regs_per_thread) {
  return roundUp(regs_per_thread * kWarpSize, sm.register_allocation_unit_size);
}

// Registers of the SM that warps of `regs_per_warp` registers each can use: each sub-partition
// holds a whole number of such warps.
std::uint64_t usableRegisters(const SmParams& sm, std::uint64_t regs_per_warp) {
  if (regs_per_warp == 0) return std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t parts = subPartitions(sm);
  return parts * ((sm.registers_per_sm / parts) / regs_per_warp) * regs_per_warp;
}

// The per-block register checks (software: the warps it has; hardware: rounded up to a multiple
// of the sub-partitions).
bool registersFitBlock(const SmParams& sm, std::uint64_t regs_per_warp, std::uint64_t warps) {
  const std::uint64_t assumed = regs_per_warp * roundUp(warps, subPartitions(sm));
  return regs_per_warp * warps <= sm.max_registers_per_block && assumed <= sm.max_registers_per_block;
}

std::uint64_t sharedLimitPerBlock(const SmParams& sm) {
  return sm.shared_memory_per_block_optin_bytes + sm.reserved_shared_memory_per_block_bytes;
}

}  // namespace

BlockCost blockCost(const SmParams& sm, const KernelResources& k) {
  BlockCost c;
  c.threads = k.threads_per_block;
  c.warps = saturate(ceilDiv(k.threads_per_block, kWarpSize));
  c.registers = saturate(registersPerWarp(sm, k.registers_per_thread) * c.warps);
  c.shared_bytes = saturate(roundUp(std::uint64_t(k.static_shared_bytes) + k.dynamic_shared_bytes +
                                        sm.reserved_shared_memory_per_block_bytes,
                                    sm.shared_memory_allocation_unit_bytes));
  return c;
}

// A BlockCost holds allocations, not the kernel's own counts: registers per thread above the
// limit are caught only where they allocate more per warp than the limit does (256 allocates what
// 255 does). Launches are validated with theoreticalOccupancy() first.
bool fits(const SmParams& sm, const SmUsage& used, const BlockCost& cost) {
  // The block on its own.
  if (cost.threads == 0 || cost.warps == 0 || cost.threads > sm.max_threads_per_block) return false;
  if (cost.shared_bytes > sharedLimitPerBlock(sm)) return false;
  // Next to what is resident.
  if (std::uint64_t(used.blocks) + 1 > sm.max_blocks_per_sm) return false;
  if (std::uint64_t(used.warps) + cost.warps > warpSlots(sm)) return false;
  if (std::uint64_t(used.threads) + cost.threads > sm.max_threads_per_sm) return false;
  if (std::uint64_t(used.shared_bytes) + cost.shared_bytes > sm.shared_memory_per_sm_bytes) return false;
  if (cost.registers > 0) {
    // Costs come from blockCost(): registers are a whole number of per-warp allocations.
    const std::uint64_t per_warp = cost.registers / cost.warps;
    if (per_warp > registersPerWarp(sm, sm.max_registers_per_thread)) return false;
    if (!registersFitBlock(sm, per_warp, cost.warps)) return false;
    // Exact for blocks of one kernel (the calculator's rule); blocks of kernels with other
    // per-warp allocations share the file as if they had this one.
    if (std::uint64_t(used.registers) + cost.registers > usableRegisters(sm, per_warp)) return false;
  }
  return true;
}

Occupancy theoreticalOccupancy(const SmParams& sm, const KernelResources& k) {
  Occupancy o;
  const BlockCost cost = blockCost(sm, k);

  // Launches that can never run.
  if (cost.threads == 0 || cost.threads > sm.max_threads_per_block) {
    o.limiter = "threads";
    return o;
  }
  const std::uint64_t regs_per_warp = registersPerWarp(sm, k.registers_per_thread);
  if (k.registers_per_thread > sm.max_registers_per_thread || !registersFitBlock(sm, regs_per_warp, cost.warps)) {
    o.limiter = "registers";
    return o;
  }
  if (cost.shared_bytes > sharedLimitPerBlock(sm)) {
    o.limiter = "shared memory";
    return o;
  }

  // Blocks per SM under each limit. Ties name the first in this order, which is the order of the
  // calculator's cudaOccLimitingFactor bits (warps, registers, shared memory, blocks), then threads.
  struct Limit {
    const char* name;
    std::uint64_t blocks;
  };
  const std::uint64_t warps_by_regs = regs_per_warp == 0 ? std::numeric_limits<std::uint64_t>::max()
                                                         : usableRegisters(sm, regs_per_warp) / regs_per_warp;
  const Limit limits[] = {
      {"warps", warpSlots(sm) / cost.warps},
      {"registers", regs_per_warp == 0 ? kUnlimited : warps_by_regs / cost.warps},
      {"shared memory", cost.shared_bytes == 0 ? kUnlimited : sm.shared_memory_per_sm_bytes / cost.shared_bytes},
      {"blocks", sm.max_blocks_per_sm},
      {"threads", sm.max_threads_per_sm / cost.threads},
  };
  const Limit* best = &limits[0];
  for (const Limit& l : limits)
    if (l.blocks < best->blocks) best = &l;

  o.blocks_per_sm = saturate(best->blocks);
  o.active_warps_per_sm = saturate(std::uint64_t(o.blocks_per_sm) * cost.warps);
  o.occupancy = sm.max_warps_per_sm ? double(o.active_warps_per_sm) / double(sm.max_warps_per_sm) : 0.0;
  o.limiter = best->name;
  return o;
}

}  // namespace scgpu::sm
