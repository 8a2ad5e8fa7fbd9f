// Operations on a warp's SIMT state shared by the control-flow handlers and the engines:
// creating frames, entering and leaving calls, and popping finished stack entries.
#pragma once

#include <string>

#include "sm/exec_context.h"
#include "sm/launch_state.h"
#include "sm/warp.h"

namespace scgpu::sm {

// How much of a warp's registers a block start must write. Fresh: every slot the kernel frame
// initialises. SameLaunch: the warp ran the same warp index of a block of this launch last, so
// the slots whose values are the same in every block of a launch (constants, local addresses,
// thread and lane indices; no instruction writes them) still hold them, and only the per-block
// ones (%ctaid, ...) are written; a short block's start was a fifth of its simulation.
enum class BlockStart { Fresh, SameLaunch };

// Sets up a warp of a block at the kernel's entry: thread ids, the kernel frame, the stack.
void initWarp(Warp& w, std::uint32_t index, BlockState& block, const LaunchState& launch,
              BlockStart start = BlockStart::Fresh);

// Pushes a frame for `function` (registers, predicates and local storage) and fills its
// constants and special registers. Throws FaultSignal ("stack overflow") when the per-thread stack
// is exhausted or the call would nest deeper than LaunchState::call_depth_frames.
void pushFrame(Warp& w, std::uint32_t function, std::uint32_t call_site, const BlockState& block,
               const LaunchState& launch, BlockStart start = BlockStart::Fresh);

// Pops stack entries whose lanes all left (exited or returned) or that reached their
// reconvergence point; a popped call entry returns to the caller's frame.
void settleStack(Warp& w, const LaunchState& launch);

// Creates a block's state: its index, shared memory, and warps at the kernel entry. Throws
// FaultSignal if a warp cannot be set up.
void initBlock(BlockState& b, const LaunchState& launch, std::uint64_t linear_block, std::uint32_t sm_id,
               BlockStart start = BlockStart::Fresh);

// Barriers (sm/functional_engine.cpp): live warps of a block, releasing barrier `id` when enough
// warps arrived, and re-checking every barrier after a warp exited (fewer warps to wait for).
std::uint32_t liveWarps(const BlockState& b);
void tryRelease(BlockState& b, std::uint32_t id);
void onWarpExited(BlockState& b);
// One line per live warp of a block ("\n  warp 3: running at pc 12 (file:line:col), active mask
// ffffffff, stack depth 1"), for the hung-block reports of both engines.
std::string describeLiveWarps(const BlockState& b, const ptx::Program& prog);

// Points c.R and c.P at the warp's current frame.
inline void bindFrame(ExecContext& c, Warp& w) {
  c.R = w.frameRegs();
  c.P = w.framePreds();
}

// Per-thread local memory of a lane at a per-thread offset.
inline std::uint8_t* localBytes(Warp& w, int lane, std::uint64_t offset) {
  // Allocated (zeroed) on first use: most kernels never touch local memory, and zeroing a warp's
  // stack (32 x limits.stack_size_bytes) at every block start cost more than short warps' work.
  if (w.local.empty()) w.local.assign(std::size_t(w.local_stride) * kWarpSize, 0);
  return w.local.data() + std::size_t(lane) * w.local_stride + offset;
}

}  // namespace scgpu::sm
