// The cycle-level model of one streaming multiprocessor: the boundary the SystemC wrapper (and a
// future RTL SM) implements. Blocks come in through launchBlock, memory traffic leaves through
// the request queue and comes back through acceptMemResponse, and tick advances one core cycle.
// Instruction semantics come from the functional core (FunctionalEngine::step, executed when an
// instruction issues); this model decides when things happen. See sm/timing/README.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memsys/mem_request.h"
#include "memsys/memsys_params.h"
#include "memsys/tlb.h"
#include "sm/fault.h"
#include "sm/launch_state.h"
#include "sm/occupancy.h"
#include "sm/sm_params.h"
#include "base/stats.h"

namespace scgpu::sm {

class SmCore {
 public:
  // Registers its statistics under `name` ("gpu.sm[3]"). Throws std::invalid_argument for
  // parameters it cannot model (unknown scheduler policy, malformed cache geometry).
  SmCore(const SmParams& p, std::uint32_t index, StatsRegistry& stats, const std::string& name);
  ~SmCore();
  SmCore(const SmCore&) = delete;
  SmCore& operator=(const SmCore&) = delete;

  // Before a kernel's first block on this SM: its blocks come as kernel `kernel` (the GigaThread
  // engine's id; an id already added is replaced). Blocks of other launches may be resident, and
  // launches run side by side (concurrent kernels). `launch` must outlive its blocks.
  void addLaunch(std::uint32_t kernel, LaunchState* launch, const KernelResources& k);
  // After the kernel's last block here retired: its id may be added again.
  void removeLaunch(std::uint32_t kernel);
  // Another block of that launch fits next to the resident ones (the occupancy rules).
  bool canLaunchBlock(std::uint32_t kernel) const;
  // Makes the block resident; its warps may fetch from cycle + block_launch_latency_cycles.
  void launchBlock(std::uint32_t kernel, std::uint64_t linear_block_id, std::uint64_t cycle);
  // A block whose warps all exited and whose memory operations all completed; its resources are
  // free. Gives its kernel and linear block id.
  bool hasFinishedBlock() const;
  bool popFinishedBlock(std::uint32_t* kernel, std::uint64_t* linear_block_id);

  // Address translation in front of the accesses that leave the SM (Lsu::attachTranslation): this
  // SM's L1 TLB and the chip's shared L2 TLB, which must outlive the SM.
  void attachTranslation(const MmuParams& mmu, memsys::Tlb* shared_l2, StatsRegistry& stats);
  // Forgets this SM's translations (MMU_INVALIDATE).
  void invalidateTranslations();

  // Requests to the crossbar: L1 read misses, write-through stores, atomics.
  bool hasMemRequest() const;
  const memsys::MemRequest& peekMemRequest() const;
  // Takes the oldest request at `cycle` (after the SM's tick of that cycle); an LSU that waited
  // for room to send (Lsu::blockedOnCrossbar) wakes the SM for the next cycle.
  void popMemRequest(std::uint64_t cycle);
  // A response (fill, store or atomic acknowledgement) arriving at `cycle`; handled in tick.
  void acceptMemResponse(const memsys::MemRequest& r, std::uint64_t cycle);

  // One core cycle. Cycles must increase; skipped cycles (while idle()) are allowed. Touches
  // nothing outside the SM: what it does to global memory, to the launches' instruction counts and
  // to the shared L2 TLB waits for commitCycle.
  void tick(std::uint64_t cycle);
  // After every SM ticked, SM by SM in index order (on one host thread): applies the cycle's
  // global stores, atomics, printf output and device malloc/free in issue order, adds the
  // instructions issued to their launches, and looks the cycle's L1 TLB misses up in the L2 TLB.
  void commitCycle();
  // The last tick held something back (commitCycle has work).
  bool needsCommit() const { return needs_commit_; }
  // No resident block (or a fault stopped the SM) and nothing in flight: tick would do nothing.
  bool idle() const;
  // After a tick in which nothing could change before a later cycle (every warp waits on memory, a
  // barrier, a fetch or a latency), the SM sleeps: ticks before that cycle may be skipped, and the
  // next tick accounts them in bulk, so that statistics stay those of ticking every cycle. A
  // response or a new block wakes it (it ticks at the next cycle). The caller ticks it at every cycle it is not
  // asleep at, or lets it sleep; settle() accounts a sleep up to `cycle` (the run stops there, or
  // something arrives at it) and wakes the SM from the next cycle on.
  bool asleepAt(std::uint64_t cycle) const;
  // The cycle a sleeping SM must tick at again (0: not asleep).
  std::uint64_t wakeCycle() const;
  void settle(std::uint64_t cycle);
  // Off when something observes the SM every cycle (waveforms, the timeline).
  void setSleepAllowed(bool allowed);
  // While on, the SM does not sleep or doze: a cluster launch runs, and another SM's block may
  // release its warps from the cluster barrier at any cycle.
  void holdAwake(bool awake);
  // Set (to true, never back) whenever the SM raises a fault, from whichever host thread ticks it:
  // the chip looks at its SMs' faults only then.
  void setFaultFlag(std::atomic<bool>* flag);
  // Evaluate every warp at every tick instead of trusting how long its stall reason is known to
  // hold (status_until): slow, the reference for tests that the cached reasons are exact.
  void setEvaluateEveryCycle(bool every);
  // Empties the instruction, L1 data and constant caches (between kernels).
  void invalidateCaches();
  // The first fault; the SM issues nothing after it.
  const std::optional<FaultReport>& fault() const;
  // A block resident for more than `limit` cycles at `cycle` (a warp spinning in a loop that never
  // ends issues forever, which the no-progress watchdog cannot see) becomes a "watchdog" fault
  // naming the block and its warps' PCs. True if it did.
  bool checkHungBlocks(std::uint64_t cycle, std::uint64_t limit);
  // Every resident warp (PC, state, stall reason, pending registers) and every non-empty queue.
  std::string dumpState() const;
  std::uint64_t instructionsIssued() const;

  // Per scheduler, what happened in the last tick: the issued warp slot (-1: none), its PC and
  // opcode, and the recorded reason ("selected" or the stall reason).
  struct SchedulerTrace {
    int warp = -1;
    std::uint32_t slot_issues = 0;  // instructions that took an issue slot (not the folded-away ones)
    std::uint32_t pc = 0;
    const char* opcode = "";
    const char* stall = "";
  };
  const std::vector<SchedulerTrace>& lastCycle() const;
  // For waveforms: what the SM holds at `cycle` (the cycle just ticked, or a later one it idled
  // through). barrier_waits: warps at bar.sync or barrier.cluster; mbarrier_waits: warps suspended
  // in mbarrier.try_wait; tensor_busy: bit i, sub-core i's tensor pipe is held; tma_in_flight: bulk
  // copies (the TMA unit's work) not yet complete.
  struct Occupancy {
    std::uint32_t resident_blocks = 0, live_warps = 0, barrier_waits = 0, lsu_queue = 0, l1_mshrs = 0;
    std::uint32_t mbarrier_waits = 0, tensor_busy = 0, tma_in_flight = 0;
  };
  Occupancy occupancy(std::uint64_t cycle) const;
  // For the timeline: a warp started on or left a sub-core (warp slot, sub-core, block, cycle).
  std::function<void(std::uint32_t slot, std::uint32_t sub_core, std::uint32_t block, bool start,
                     std::uint64_t cycle)>
      on_warp;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool needs_commit_ = false;
};

}  // namespace scgpu::sm
