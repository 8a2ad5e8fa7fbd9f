// Why a warp did not issue in a cycle, with Nsight Compute's names (smsp__pcsamp_warps_issue_stalled_*).
#pragma once

#include <cstddef>
#include <cstdint>

namespace scgpu::sm::timing {

// Ordered from "about to issue" to "far from issuing": a scheduler that issues nothing reports the
// reason of its candidate that comes first in this order (its best candidate). A reason split out
// of an older one sits right after it, so that the split only moves cycles between the two.
enum class Reason : std::uint8_t {
  Selected,          // issued this cycle
  NotSelected,       // could issue, another warp was chosen
  Ready,             // (internal) could issue; becomes Selected or NotSelected
  MathPipeThrottle,  // the execution pipe (int/fp32/fp64/sfu/branch/tensor) is busy (initiation interval)
  MioThrottle,       // the sub-core's LSU port is busy, or the LSU queue is full for a non-LG instruction
  LgThrottle,        // the LSU queue is full and the instruction is a local/global (LG) one
  DispatchStall,     // every operand collector of the sub-core is busy
  Wait,              // fixed-latency dependency on an earlier instruction
  WarpgroupArrive,   // wgmma.wait_group: its warpgroup's wgmma groups are not complete (WARPGROUP.DEPBAR)
  BranchResolving,   // after a branch/call/return, until pipe_branch latency has passed
  NoInstruction,     // instruction buffer empty (fetch, icache miss, refetch after a branch)
  ShortScoreboard,   // dependency on an MIO result (shared memory, constant/param load, SFU)
  LongScoreboard,    // dependency on an L1TEX result (global or local memory, cp.async and bulk groups)
  Barrier,           // waiting at bar.sync (or barrier.cluster) for the other warps
  Sleeping,          // suspended in mbarrier.try_wait until the phase completes (the threads are blocked)
  Drain,             // exited, block waiting for its memory operations (warp_state only)
  Idle,              // the scheduler has no live warp (scheduler only)
  Count
};

inline const char* toString(Reason r) {
  static const char* names[] = {"selected",        "not_selected",     "ready",           "math_pipe_throttle",
                                "mio_throttle",    "lg_throttle",      "dispatch_stall",  "wait",
                                "warpgroup_arrive", "branch_resolving", "no_instruction",  "short_scoreboard",
                                "long_scoreboard", "barrier",          "sleeping",        "drain",
                                "idle"};
  static_assert(sizeof(names) / sizeof(names[0]) == std::size_t(Reason::Count), "a name for every reason");
  return r < Reason::Count ? names[int(r)] : "?";
}

// Reasons a scheduler records for a cycle (Ready is internal, Drain describes warps only).
inline bool isSchedulerReason(Reason r) { return r != Reason::Ready && r != Reason::Drain && r < Reason::Count; }

// A long wait that does not end by the warp's own issue: a memory result, a barrier, a suspended
// mbarrier wait. The two-level scheduler parks such warps in its pending set.
inline bool isLongWait(Reason r) {
  return r == Reason::LongScoreboard || r == Reason::Barrier || r == Reason::Sleeping;
}

}  // namespace scgpu::sm::timing
