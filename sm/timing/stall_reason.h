// Why a warp did not issue in a cycle, with Nsight Compute's names (smsp__pcsamp_warps_issue_stalled_*).
#pragma once

#include <cstdint>

namespace scgpu::sm::timing {

// Ordered from "about to issue" to "far from issuing": a scheduler that issues nothing reports the
// reason of its candidate that comes first in this order (its best candidate).
enum class Reason : std::uint8_t {
  Selected,          // issued this cycle
  NotSelected,       // could issue, another warp was chosen
  Ready,             // (internal) could issue; becomes Selected or NotSelected
  MathPipeThrottle,  // the execution pipe (int/fp32/fp64/sfu/branch) is busy (initiation interval)
  MioThrottle,       // the LSU queue is full, or the sub-core's LSU port is busy
  DispatchStall,     // every operand collector of the sub-core is busy
  Wait,              // fixed-latency dependency on an earlier instruction
  BranchResolving,   // after a branch/call/return, until pipe_branch latency has passed
  NoInstruction,     // instruction buffer empty (fetch, icache miss, refetch after a branch)
  ShortScoreboard,   // dependency on an MIO result (shared memory, constant/param load, SFU)
  LongScoreboard,    // dependency on an L1TEX result (global or local memory)
  Barrier,           // waiting at bar.sync for the other warps of the block
  Drain,             // exited, block waiting for its memory operations (warp_state only)
  Idle,              // the scheduler has no live warp (scheduler only)
  Count
};

inline const char* toString(Reason r) {
  static const char* names[] = {"selected",  "not_selected",     "ready",          "math_pipe_throttle",
                                "mio_throttle", "dispatch_stall", "wait",          "branch_resolving",
                                "no_instruction", "short_scoreboard", "long_scoreboard", "barrier",
                                "drain",     "idle"};
  return r < Reason::Count ? names[int(r)] : "?";
}

// Reasons a scheduler records for a cycle (Ready is internal, Drain describes warps only).
inline bool isSchedulerReason(Reason r) { return r != Reason::Ready && r != Reason::Drain && r < Reason::Count; }

}  // namespace scgpu::sm::timing
