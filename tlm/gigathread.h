// The GigaThread engine: hands the thread blocks of a kernel to the SMs while each SM's limits
// allow (threads, warps, blocks, registers, shared memory: sm/occupancy.h, the same rules as the
// CUDA occupancy calculator). Plain C++ with no SystemC; the chip's SystemC wrapper ticks it from
// the core clock domain and carries each dispatch to its SM across the block boundary.
//
// Bookkeeping: the engine owns the resource usage of every SM (an SmUsage per SM). It adds a
// block's cost when it dispatches the block, and removes it dispatch_latency_cycles after the SM
// reports the block finished (blockFinished), which is when the freed slot can take the next
// block. So the caller reports only dispatches taken and blocks finished.
//
// Kernels run concurrently (streams, channels): each kernel has an id chosen by the caller and a
// priority. Blocks go in a fixed order over the kernels - higher priority first, then the order the
// kernels started in - and that order is strict: a kernel's blocks go only once every kernel ahead
// of it whose start latency is over has handed out all its blocks. So a later kernel fills what
// an earlier one leaves free (its last wave, or a grid smaller than the GPU), and a high-priority
// kernel overtakes the waiting blocks of a low-priority one, but never a resident block (no
// preemption), as on the GPUs since Kepler's Hyper-Q.
//
// Timing, per call to nextDispatch(cycle):
// - a kernel's first block goes no earlier than start + launch_latency_cycles + dispatch_latency_cycles;
// - a slot freed by a block finishing at cycle f can take a block no earlier than
//   f + dispatch_latency_cycles;
// - at most blocks_per_cycle blocks go per cycle (all kernels together);
// - a kernel's blocks go in linear order (block id 0, 1, 2, ... = blockIdx linearised x fastest),
//   or in the order startKernel() was given;
// - the SM is chosen round-robin, starting after the SM used last, skipping SMs that the block
//   does not fit on (sm::fits against that SM's usage).
// Cycles passed to the engine never decrease. The caller may skip cycles while idle() is true:
// nothing can change then until blockFinished() or startKernel().
//
// Statistics (under `name`, "gpu.gigathread"): kernels_launched, blocks_launched,
// blocks_completed, dispatch_stall_cycles (cycles in which the next block was ready to go - its
// kernel's start latency over, this cycle's dispatch quota not used up - but no SM had room for it;
// counted from the first such cycle to the cycle the block went, so skipped idle cycles count).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "sm/occupancy.h"
#include "sm/sm_params.h"
#include "tlm/gpu_params.h"
#include "base/stats.h"

namespace scgpu {

class GigaThread {
 public:
  // Throws std::invalid_argument when num_sms or params.blocks_per_cycle is 0.
  GigaThread(const GigaThreadParams& params, const SmParams& sm, std::uint32_t num_sms, StatsRegistry& stats,
             const std::string& name = "gpu.gigathread");

  // Starts dispatching kernel `kernel` of `total_blocks` blocks, each costing `cost`
  // (sm::blockCost), at `priority` (higher goes first). Throws std::logic_error when `kernel` is
  // already known (running, or finished and not yet forgotten), std::invalid_argument when a
  // block fits on no SM even when it is empty (check sm::theoreticalOccupancy(...).blocks_per_sm
  // first to report a launch error).
  // `order` maps the dispatch index (0, 1, 2, ...) to the block id that goes then; empty: linear
  // order (a cluster launch passes sm::clusterMajorBlock, so that a cluster's blocks go together).
  using BlockOrder = std::function<std::uint64_t(std::uint64_t index)>;
  void startKernel(std::uint32_t kernel, std::uint64_t total_blocks, const sm::BlockCost& cost, std::uint64_t cycle,
                   std::uint32_t priority = 0, BlockOrder order = {});

  // The next dispatch at `cycle`, if one may happen now: the kernel, its block id and the SM it
  // goes to (the block's cost is charged to that SM). Call repeatedly each cycle until it returns
  // false.
  bool nextDispatch(std::uint64_t cycle, std::uint32_t* kernel, std::uint64_t* block, std::uint32_t* sm);

  // SM `sm` finished one of kernel `kernel`'s blocks at `cycle`. Throws std::logic_error when that
  // SM runs no block of it. Blocks of an aborted kernel still in flight are ignored.
  void blockFinished(std::uint32_t sm, std::uint32_t kernel, std::uint64_t cycle);

  // Every block of `kernel` has finished (an empty grid at once). False for an unknown kernel.
  bool kernelDone(std::uint32_t kernel) const;
  // Forgets a finished kernel (its id may be used again).
  void forgetKernel(std::uint32_t kernel);

  // Drops every kernel (after a fault or the watchdog stopped them): no more dispatches, and every
  // SM's blocks, usage and freed-slot latencies are forgotten, so the next startKernel() finds
  // empty SMs. The caller resets the SMs themselves. Counters keep their values.
  void abortAll();

  // Of one kernel (0 for an unknown one).
  std::uint64_t blocksLaunched(std::uint32_t kernel) const;
  std::uint64_t blocksCompleted(std::uint32_t kernel) const;
  std::uint64_t totalBlocks(std::uint32_t kernel) const;
  // Kernels started and not yet forgotten.
  std::size_t kernels() const { return kernels_.size(); }
  // True when nothing can happen until startKernel() or blockFinished(): every block of every
  // kernel dispatched, or the next block fits on no SM and no freed slot or start is on its way.
  bool idle() const;
  // The earliest cycle at which nextDispatch() can succeed, for a caller that jumps time; only
  // meaningful when !idle().
  std::uint64_t wakeCycle() const;

  std::uint32_t numSms() const { return std::uint32_t(usage_.size()); }
  // Blocks dispatched to `sm` and not yet finished (all kernels).
  std::uint32_t residentBlocks(std::uint32_t sm) const { return resident_.at(sm); }
  // Resources charged to `sm`: the resident blocks, plus finished blocks whose slots are not free
  // yet (the dispatch latency).
  const sm::SmUsage& usage(std::uint32_t sm) const { return usage_.at(sm); }

 private:
  struct Kernel {
    std::uint32_t id = 0, priority = 0;
    std::uint64_t seq = 0;  // start order
    std::uint64_t total = 0, launched = 0, completed = 0;
    sm::BlockCost cost;
    BlockOrder order;
    std::uint64_t first_dispatch_cycle = 0;
    std::vector<std::uint32_t> resident;  // per SM
  };
  struct Release {
    std::uint64_t cycle;  // when the slot becomes free
    std::uint32_t sm;
    sm::BlockCost cost;
  };
  void advance(std::uint64_t cycle);
  // Whether a block of kernel k fits on some SM now. Remembered until usage_ or kernels_ change
  // (changed_ counts those changes): idle() asks at every edge, and 132 SMs' usage each time cost
  // more than the rest of the engine while blocks waited for room.
  bool fitsSomewhere(const Kernel& k) const;
  void changed() { ++changed_; }
  Kernel* find(std::uint32_t kernel);
  const Kernel* find(std::uint32_t kernel) const;
  // The kernel whose block goes next at the latest cycle seen (nullptr: none ready).
  const Kernel* head() const;

  GigaThreadParams params_;
  SmParams sm_;
  std::vector<sm::SmUsage> usage_;
  std::vector<std::uint32_t> resident_;
  std::deque<Release> releases_;  // in cycle order
  std::vector<Kernel> kernels_;   // in dispatch order: priority (high first), then start order
  std::vector<std::uint32_t> aborted_;  // ids whose late retirements are ignored
  std::uint64_t next_seq_ = 0;
  std::uint64_t changed_ = 0;
  mutable std::uint64_t fit_changed_ = ~0ull;  // fitsSomewhere's memo: for changed_ and kernel fit_kernel_
  mutable std::uint32_t fit_kernel_ = 0;
  mutable bool fit_ = false;

  std::uint32_t next_sm_ = 0;            // round-robin: where the search starts
  std::uint64_t now_ = 0;                // the latest cycle seen
  std::uint64_t quota_cycle_ = ~0ull;    // the cycle dispatched_this_cycle_ counts
  std::uint32_t dispatched_this_cycle_ = 0;
  bool stalled_ = false;
  std::uint64_t stall_since_ = 0;

  Counter* kernels_launched_;
  Counter* blocks_launched_;
  Counter* blocks_completed_;
  Counter* dispatch_stall_cycles_;
};

}  // namespace scgpu
