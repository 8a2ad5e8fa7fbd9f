// The architectural state of one warp: per-frame register and predicate files, the SIMT
// reconvergence stack, the call frames and the per-thread local memory.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/decoded.h"
#include "sm/exec_context.h"

namespace scgpu::sm {

// One entry of the immediate-post-dominator reconvergence stack: the lanes in `mask` run from
// `pc` until they reach `reconverge`, where the entry is popped and the one below resumes.
struct SimtEntry {
  std::uint32_t pc;
  std::uint32_t reconverge;
  std::uint32_t mask;
  bool call;  // pushed by a call: `ret` removes lanes down to and including this entry
  std::uint32_t entered;  // call entries: the lanes that made the call (they get return values)
};
constexpr std::uint32_t kNoReconvergence = 0xFFFFFFFFu;

// A function activation, shared by all lanes of the warp (calls are warp-wide under SIMT).
struct Frame {
  std::uint32_t function;    // index in Program::functions
  std::uint32_t reg_base;    // first slot of this frame in Warp::regs (in slots, not lanes)
  std::uint32_t pred_base;
  std::uint32_t local_base;  // per-thread local-memory offset of this frame
  std::uint32_t call_site;   // caller's CallSite index (for return values)
};

enum class WarpState : std::uint8_t { Ready, AtBarrier, Exited };

class Warp {
 public:
  std::uint32_t index = 0;          // warp index within its block
  std::uint32_t valid_mask = 0;     // lanes that hold a thread
  std::uint32_t exited_mask = 0;
  WarpState state = WarpState::Ready;
  std::uint32_t barrier_id = 0;
  std::uint32_t barrier_pc = 0;
  // bar.red: where the reduction result goes when the barrier releases.
  std::uint32_t barrier_red_dst = ptx::kNoSlot;
  std::uint32_t barrier_red_mask = 0;
  bool barrier_red_is_pred = false;
  // barrier.cluster: the warp arrived in phase `cluster_phase` of its cluster's barrier and has not
  // waited for it yet.
  bool cluster_arrived = false;
  std::uint32_t cluster_phase = 0;
  // wgmma.mma_async results not yet in the registers (sm/exec/wgmma.cpp): each lands when a
  // wgmma.wait_group waits for its group (the number of wgmma.commit_group before it).
  struct WgmmaResult {
    std::uint32_t group = 0, mask = 0;
    std::vector<std::uint32_t> slots;   // absolute register slots (frame reg_base + slot)
    std::vector<std::uint64_t> values;  // [slot index][lane]
  };
  std::vector<WgmmaResult> wgmma_pending;
  std::uint32_t wgmma_groups = 0;       // wgmma.commit_group executed
  std::uint64_t instructions = 0;       // warp instructions executed
  std::uint64_t thread_instructions = 0;
  std::uint32_t tid[kWarpSize][3] = {};

  std::vector<SimtEntry> stack;
  std::vector<Frame> frames;
  std::vector<std::uint64_t> regs;   // [slot][lane] across all frames
  std::vector<std::uint32_t> preds;  // [slot] lane masks across all frames

  // Local memory: lane L's byte at offset o is local[L * local_stride + o].
  std::vector<std::uint8_t> local;
  std::uint32_t local_stride = 0;
  std::uint32_t local_top = 0;       // first free per-thread local offset

  bool done() const { return state == WarpState::Exited; }
  std::uint64_t* frameRegs() { return regs.data() + std::size_t(frames.back().reg_base) * kWarpSize; }
  std::uint32_t* framePreds() { return preds.data() + frames.back().pred_base; }
};

}  // namespace scgpu::sm
