#include "sm/functional_engine.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "base/run_control.h"

#include "sm/exec/builtins.h"
#include "sm/cluster.h"
#include "sm/simt.h"

namespace scgpu::sm {

std::uint32_t liveWarps(const BlockState& b) {
  std::uint32_t n = 0;
  for (const auto& w : b.warps) n += w.state != WarpState::Exited;
  return n;
}

std::string describeLiveWarps(const BlockState& b, const ptx::Program& prog) {
  std::string detail;
  for (const auto& x : b.warps) {
    if (x.state == WarpState::Exited) continue;
    const std::uint32_t pc = x.stack.empty() ? 0 : x.stack.back().pc;
    detail += fmt::format("\n  warp {}: {} at pc {} ({}), active mask {:08x}, stack depth {}", x.index,
                          x.state == WarpState::AtBarrier ? "at barrier" : "running", pc, prog.ptxLocation(pc),
                          x.stack.empty() ? 0u : x.stack.back().mask, x.stack.size());
  }
  return detail;
}

void tryRelease(BlockState& b, std::uint32_t id) {
  BarrierState& bs = b.barriers[id];
  if (bs.arrived_warps == 0) return;
  std::uint32_t expected = bs.expected_warps ? bs.expected_warps : liveWarps(b);
  if (bs.arrived_warps < expected) return;
  for (auto& w : b.warps) {
    if (w.state != WarpState::AtBarrier || w.barrier_id != id) continue;
    w.state = WarpState::Ready;
    if (w.barrier_red_dst != ptx::kNoSlot) {
      std::uint32_t r = bs.reduce_kind == 1 ? bs.reduce : (bs.reduce ? 1u : 0u);
      if (w.barrier_red_is_pred) {
        std::uint32_t& p = w.framePreds()[w.barrier_red_dst];
        p = (p & ~w.barrier_red_mask) | (r ? w.barrier_red_mask : 0u);
      } else {
        std::uint64_t* d = w.frameRegs() + std::size_t(w.barrier_red_dst) * kWarpSize;
        forLanes(w.barrier_red_mask, [&](int lane) { d[lane] = r; });
      }
      w.barrier_red_dst = ptx::kNoSlot;
    }
  }
  bs = BarrierState{};
}

void onWarpExited(BlockState& b) {
  for (std::uint32_t id = 0; id < kNumBarriers; ++id) tryRelease(b, id);
  if (b.cluster) tryReleaseCluster(*b.cluster);
}

void initBlock(BlockState& b, const LaunchState& launch, std::uint64_t linear, std::uint32_t sm_id,
               BlockStart start) {
  // 64-bit: grid.x * grid.y reaches 2^32 within CUDA's limits (2^31-1 x 65535).
  const std::uint64_t gx = launch.grid[0], gy = launch.grid[1];
  b.linear_id = linear;
  b.ctaid[0] = std::uint32_t(linear % gx);
  b.ctaid[1] = std::uint32_t((linear / gx) % gy);
  b.ctaid[2] = std::uint32_t(linear / (gx * gy));
  b.sm_id = sm_id;
  const ptx::Program& prog = *launch.program;
  const std::uint32_t align = prog.dynamic_shared_align;
  const std::uint32_t static_end = (prog.static_shared_bytes + align - 1) / align * align;
  b.shared.assign(launch.dynamic_shared_bytes ? static_end + launch.dynamic_shared_bytes : prog.static_shared_bytes, 0);
  const std::uint64_t nthreads = std::uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  const auto nwarps = std::uint32_t((nthreads + kWarpSize - 1) / kWarpSize);
  for (BarrierState& bs : b.barriers) bs = BarrierState{};  // (the state may be a reused block's)
  b.warps.resize(nwarps);
  for (std::uint32_t i = 0; i < nwarps; ++i) initWarp(b.warps[i], i, b, launch, start);
}

void arriveAtBarrier(ExecContext& c, const ptx::DecodedInst& in, std::uint32_t id, std::uint32_t count,
                     std::uint32_t reduce_bits) {
  BlockState& b = *c.block;
  Warp& w = *c.warp;
  BarrierState& bs = b.barriers[id];
  if (bs.arrived_warps == 0) {
    bs.reduce_kind = in.sub == ptx::SubOp::BarRed ? in.aux : 0;
    bs.reduce = bs.reduce_kind == 2 ? 1u : 0u;  // .and starts true
  }
  bs.arrived_warps++;
  if (count) bs.expected_warps = count / kWarpSize;
  if (in.sub == ptx::SubOp::BarRed) {
    switch (in.aux) {
      case 1: bs.reduce += std::uint32_t(__builtin_popcount(reduce_bits)); break;
      case 2: bs.reduce &= reduce_bits == c.mask ? 1u : 0u; break;
      default: bs.reduce |= reduce_bits ? 1u : 0u; break;
    }
    w.barrier_red_dst = in.dst[0];
    w.barrier_red_mask = c.mask;
    w.barrier_red_is_pred = in.type == ptx::Type::Pred;
  }
  if (in.sub != ptx::SubOp::BarArrive) {
    w.state = WarpState::AtBarrier;
    w.barrier_id = id;
    w.barrier_pc = c.pc;
  }
  tryRelease(b, id);
}

void FunctionalEngine::step(ExecContext& c, Warp& w) {
  SimtEntry& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  const ptx::DecodedInst& in = c.program->code[pc];
  const std::uint32_t active = top.mask;
  std::uint32_t mask = active;
  if (in.guard != ptx::kNoSlot) {
    const std::uint32_t p = c.P[in.guard];
    mask &= in.guard_negated ? ~p : p;
  }
  top.pc = pc + 1;
  if (in.flags & ptx::kPredicatedBody) {  // counted as the branch it replaced let lanes through
    if (mask) {
      w.instructions++;
      w.thread_instructions += popCount(mask);
    }
  } else {
    w.instructions++;
    // (A full warp, the common case, skips the count.)
    w.thread_instructions += active == kFullMask ? kWarpSize : popCount(active);
  }
  if (mask) {
    c.pc = pc;
    c.mask = mask;
    c.active = active;
    in.fn(c, in);
    if (c.suspended) {  // an mbarrier.try_wait suspended the warp: as if it had not issued
      top.pc = pc;
      w.instructions--;
      w.thread_instructions -= active == kFullMask ? kWarpSize : popCount(active);
      return;
    }
  }
  const SimtEntry& now = w.stack.back();
  if (now.mask == 0 || now.pc == now.reconverge) {
    settleStack(w, *c.launch);
    if (!w.frames.empty()) bindFrame(c, w);
  }
}

FaultReport makeFaultReport(const FaultSignal& s, const LaunchState& launch, const BlockState& block,
                            const Warp& w, std::uint32_t pc) {
  const ptx::Program& prog = *launch.program;
  FaultReport r;
  r.kind = s.kind;
  r.message = s.message;
  r.address = s.address;
  r.mmu_fault = s.mmu_fault;
  r.kernel = prog.kernel_name;
  for (int i = 0; i < 3; ++i) r.block[i] = block.ctaid[i];
  r.warp = w.index;
  r.lane = s.lane % kWarpSize;
  for (int i = 0; i < 3; ++i) r.thread[i] = w.tid[r.lane][i];
  r.pc = pc;
  if (pc < prog.code.size()) {
    r.ptx_location = prog.ptxLocation(pc);
    r.source_location = prog.sourceLocation(pc);
    r.instruction = prog.text[pc];
  }
  return r;
}

// A block being run: its state, its execution context and the warp instructions it executed.
struct FunctionalEngine::BlockRun {
  BlockState b;
  ExecContext c;
  Warp* current = nullptr;
  std::uint64_t executed = 0;
  bool done = false;
  bool stalled = false;  // its last turn moved nothing: every live warp waits for the rest of its cluster
  bool suspend_try_wait = true;  // try_waits suspend (false for one turn after one in which all did)
};

void FunctionalEngine::startBlock(LaunchState& launch, std::uint64_t linear, BlockRun& r, LaunchResult& result,
                                  BlockStart start) {
  r.c.block = &r.b;
  r.c.launch = &launch;
  r.c.program = launch.program;
  try {
    initBlock(r.b, launch, linear, std::uint32_t(linear % launch.num_sms), start);
    joinCluster(launch, r.b);
  } catch (const FaultSignal& s) {
    if (r.b.warps.empty()) throw;  // no warp to name: cannot happen for a launch that passed its checks
    result.fault = makeFaultReport(s, launch, r.b, r.b.warps.front(), r.c.pc);
    r.done = true;
  }
}

bool FunctionalEngine::turn(LaunchState& launch, BlockRun& r, std::uint64_t& launch_total, LaunchResult& result) {
  BlockState& b = r.b;
  ExecContext& c = r.c;
  const ptx::Program& prog = *launch.program;
  try {
    bool progressed = false, executed = false, suspended = false;
    c.suspend_try_wait = r.suspend_try_wait;
    for (auto& w : b.warps) {
      if (w.state != WarpState::Ready) continue;
      r.current = &w;
      c.warp = &w;
      bindFrame(c, w);
      const std::uint64_t before = w.instructions;
      c.suspended = false;
      for (std::uint32_t n = 0; n < limits_.quantum && w.state == WarpState::Ready && !c.suspended; ++n) step(c, w);
      executed |= w.instructions != before;
      suspended |= c.suspended;
      launch.clock += w.instructions - before;
      r.executed += w.instructions - before;
      launch_total += w.instructions - before;
      progressed = true;
      if (w.state == WarpState::Exited) onWarpExited(b);
    }
    // Before the end-of-block test: a grid of many short blocks must stop too.
    if (launch_total > limits_.warp_instructions_per_launch) {
      Warp& w = r.current ? *r.current : b.warps.front();
      FaultSignal s{"timeout",
                    fmt::format("the number of warp instructions the launch executed is {}, above the limit "
                                "limits.warp_instructions_per_launch = {} (raise it with --set "
                                "limits.warp_instructions_per_launch=N)",
                                launch_total, limits_.warp_instructions_per_launch),
                    0};
      result.fault = makeFaultReport(s, launch, b, w, w.stack.empty() ? 0 : w.stack.back().pc);
      return false;
    }
    // A turn in which every ready warp was suspended in an mbarrier.try_wait: nothing in the block
    // can complete their phases (only another block of the cluster could), so in the next turn
    // their try_waits return false, as when the hardware's time limit expires.
    r.suspend_try_wait = executed || !suspended;
    c.suspended = false;
    if (liveWarps(b) == 0) return false;
    if (const run_control::Stop stop = run_control::stopRequested(); stop != run_control::Stop::None) {
      Warp& w = r.current ? *r.current : b.warps.front();
      FaultSignal s{run_control::stopKind(stop), run_control::stopMessage(stop), 0};
      result.fault = makeFaultReport(s, launch, b, w, w.stack.empty() ? 0 : w.stack.back().pc);
      return false;
    }
    r.stalled = false;
    if (!progressed && b.cluster && b.cluster->blocks.size() > 1 &&
        std::any_of(b.warps.begin(), b.warps.end(), [](const Warp& x) {
          return x.state == WarpState::AtBarrier && x.barrier_id == kClusterBarrierId;
        })) {
      // Waiting for other blocks of its cluster: they take their turns (run() sees a round in which
      // no block of the cluster moves).
      r.stalled = true;
      return true;
    }
    if (!progressed) {
      // Every live warp waits at a barrier that cannot complete.
      Warp& w = *std::find_if(b.warps.begin(), b.warps.end(),
                              [](const Warp& x) { return x.state == WarpState::AtBarrier; });
      std::string detail;
      for (const auto& x : b.warps) {
        if (x.state != WarpState::AtBarrier) continue;
        if (x.barrier_id == kClusterBarrierId) {
          detail += fmt::format("\n  warp {} waits at the cluster barrier (pc {}, {})", x.index, x.barrier_pc,
                                prog.ptxLocation(x.barrier_pc));
          continue;
        }
        const BarrierState& bs = b.barriers[x.barrier_id];
        detail += fmt::format("\n  warp {} waits at barrier {} (pc {}, {}): {} of {} warps arrived", x.index,
                              x.barrier_id, x.barrier_pc, prog.ptxLocation(x.barrier_pc), bs.arrived_warps,
                              bs.expected_warps ? bs.expected_warps : liveWarps(b));
      }
      FaultSignal s{"barrier deadlock", "every live warp waits at a barrier that can never complete:" + detail,
                    std::uint32_t(__builtin_ctz(w.stack.empty() ? 1u : (w.stack.back().mask | 0x80000000u)))};
      result.fault = makeFaultReport(s, launch, b, w, w.barrier_pc);
      return false;
    }
    if (r.executed > limits_.watchdog_warp_instructions_per_block) {
      Warp& w = *r.current;
      FaultSignal s{"watchdog",
                    fmt::format("block made no end after {} warp instructions (limits.watchdog_warp_instructions_"
                                "per_block); warps:{}", r.executed, describeLiveWarps(b, prog)),
                    0};
      result.fault = makeFaultReport(s, launch, b, w, w.stack.empty() ? 0 : w.stack.back().pc);
      return false;
    }
    return true;
  } catch (const FaultSignal& s) {
    Warp& w = r.current ? *r.current : b.warps.front();
    result.fault = makeFaultReport(s, launch, b, w, c.pc);
    return false;
  }
}

void FunctionalEngine::finishBlock(LaunchState& launch, BlockRun& r, LaunchResult& result) {
  leaveCluster(launch, r.b);
  for (const auto& w : r.b.warps) {
    result.warp_instructions += w.instructions;
    result.thread_instructions += w.thread_instructions;
  }
  result.blocks++;
  r.done = true;
}

LaunchResult FunctionalEngine::run(LaunchState& launch) {
  LaunchResult result;
  const std::uint64_t blocks = std::uint64_t(launch.grid[0]) * launch.grid[1] * launch.grid[2];
  std::uint64_t launch_total = 0;
  if (!launch.cooperative && clusterSize(launch) <= 1) {
    // One block after another, each to its end, in one BlockRun: its warps keep their registers'
    // storage from block to block (allocating and freeing it per block cost short kernels a
    // third of their time).
    BlockRun r;
    for (std::uint64_t i = 0; i < blocks && !result.fault; ++i) {
      r.c = ExecContext{};
      r.suspend_try_wait = true;
      r.current = nullptr;
      r.executed = 0;
      r.done = false;
      startBlock(launch, i, r, result, i == 0 ? BlockStart::Fresh : BlockStart::SameLaunch);
      if (!r.done)
        while (turn(launch, r, launch_total, result)) {
        }
      finishBlock(launch, r, result);
    }
    return result;
  }
  if (!launch.cooperative) return runClusters(launch, result, launch_total);
  // A cooperative launch's blocks may wait for each other (grid.sync()): every block is resident
  // at once, as the launch guarantees on a GPU, and they take turns until all have ended.
  std::vector<std::unique_ptr<BlockRun>> runs;
  runs.reserve(std::size_t(blocks));
  for (std::uint64_t i = 0; i < blocks && !result.fault; ++i) {
    runs.push_back(std::make_unique<BlockRun>());
    startBlock(launch, i, *runs.back(), result);
  }
  takeTurns(launch, runs, launch_total, result);
  return result;
}

void FunctionalEngine::takeTurns(LaunchState& launch, std::vector<std::unique_ptr<BlockRun>>& runs,
                                 std::uint64_t& launch_total, LaunchResult& result) {
  for (bool any = true; any && !result.fault;) {
    any = false;
    bool moved = false;
    for (auto& r : runs) {
      if (r->done) continue;
      if (turn(launch, *r, launch_total, result)) any = true;
      else finishBlock(launch, *r, result);
      moved |= r->done || !r->stalled;
      if (result.fault) break;
    }
    if (any && !moved && !result.fault) {
      // Every block still running waits at its cluster's barrier: none can arrive any more.
      BlockRun& r = *runs.front();
      const Warp& w = *std::find_if(r.b.warps.begin(), r.b.warps.end(),
                                    [](const Warp& x) { return x.state == WarpState::AtBarrier; });
      FaultSignal s{"barrier deadlock",
                    "every live warp of the cluster waits at a barrier that can never complete:" +
                        describeLiveWarps(r.b, *launch.program),
                    0};
      result.fault = makeFaultReport(s, launch, r.b, w, w.barrier_pc);
    }
  }
  for (auto& r : runs)
    if (!r->done) finishBlock(launch, *r, result);
}

// A cluster launch: a cluster's blocks run side by side (they may wait for each other at the
// cluster barrier and read each other's shared memory), one cluster after another.
LaunchResult FunctionalEngine::runClusters(LaunchState& launch, LaunchResult& result, std::uint64_t& launch_total) {
  const std::uint64_t clusters = std::uint64_t(launch.grid[0] / launch.cluster[0]) *
                                 (launch.grid[1] / launch.cluster[1]) * (launch.grid[2] / launch.cluster[2]);
  const std::uint32_t size = clusterSize(launch);
  std::vector<std::unique_ptr<BlockRun>> runs;
  for (std::uint32_t i = 0; i < size; ++i) runs.push_back(std::make_unique<BlockRun>());
  std::vector<std::uint64_t> ids;
  for (std::uint64_t k = 0; k < clusters && !result.fault; ++k) {
    clusterBlocks(launch, k, ids);
    for (std::uint32_t i = 0; i < size && !result.fault; ++i) {
      BlockRun& r = *runs[i];
      r.c = ExecContext{};
      r.suspend_try_wait = true;
      r.current = nullptr;
      r.executed = 0;
      r.done = false;
      r.stalled = false;
      startBlock(launch, ids[i], r, result);
    }
    takeTurns(launch, runs, launch_total, result);
  }
  return result;
}

}  // namespace scgpu::sm
