#include "sm/simt.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "sm/cluster.h"
#include "sm/fault.h"

namespace scgpu::sm {

namespace {

std::uint64_t specialValue(ptx::SpecialReg r, std::uint32_t index, const Warp& w, int lane, const BlockState& b,
                           const LaunchState& l) {
  using ptx::SpecialReg;
  const std::uint32_t lanebit = 1u << lane;
  switch (r) {
    case SpecialReg::TidX: return w.tid[lane][0];
    case SpecialReg::TidY: return w.tid[lane][1];
    case SpecialReg::TidZ: return w.tid[lane][2];
    case SpecialReg::NtidX: return l.block[0];
    case SpecialReg::NtidY: return l.block[1];
    case SpecialReg::NtidZ: return l.block[2];
    case SpecialReg::CtaidX: return b.ctaid[0];
    case SpecialReg::CtaidY: return b.ctaid[1];
    case SpecialReg::CtaidZ: return b.ctaid[2];
    case SpecialReg::NctaidX: return l.grid[0];
    case SpecialReg::NctaidY: return l.grid[1];
    case SpecialReg::NctaidZ: return l.grid[2];
    case SpecialReg::LaneId: return std::uint64_t(lane);
    case SpecialReg::WarpId: return w.index;
    case SpecialReg::NWarpId: return 64;
    case SpecialReg::SmId: return b.sm_id;
    case SpecialReg::NSmId: return l.num_sms;
    case SpecialReg::GridId: return l.grid_id;
    case SpecialReg::LanemaskEq: return lanebit;
    case SpecialReg::LanemaskLe: return (lanebit << 1) - 1;
    case SpecialReg::LanemaskLt: return lanebit - 1;
    case SpecialReg::LanemaskGe: return ~(lanebit - 1) & 0xFFFFFFFFu;
    case SpecialReg::LanemaskGt: return ~((lanebit << 1) - 1) & 0xFFFFFFFFu;
    case SpecialReg::DynamicSmemSize: return l.dynamic_shared_bytes;
    case SpecialReg::TotalSmemSize: return b.shared.size();
    // Clusters (LaunchState::cluster; 1x1x1 without a cluster launch: every block its own).
    case SpecialReg::ClusterCtarank: return clusterRank(l, b.ctaid);
    case SpecialReg::ClusterNctarank: return clusterSize(l);
    case SpecialReg::ClusterCtaidX: return b.ctaid[0] % l.cluster[0];
    case SpecialReg::ClusterCtaidY: return b.ctaid[1] % l.cluster[1];
    case SpecialReg::ClusterCtaidZ: return b.ctaid[2] % l.cluster[2];
    case SpecialReg::ClusterNctaidX: return l.cluster[0];
    case SpecialReg::ClusterNctaidY: return l.cluster[1];
    case SpecialReg::ClusterNctaidZ: return l.cluster[2];
    case SpecialReg::ClusteridX: return b.ctaid[0] / l.cluster[0];
    case SpecialReg::ClusteridY: return b.ctaid[1] / l.cluster[1];
    case SpecialReg::ClusteridZ: return b.ctaid[2] / l.cluster[2];
    case SpecialReg::NclusteridX: return l.grid[0] / l.cluster[0];
    case SpecialReg::NclusteridY: return l.grid[1] / l.cluster[1];
    case SpecialReg::NclusteridZ: return l.grid[2] / l.cluster[2];
    case SpecialReg::EnvReg: return index < l.envreg.size() ? l.envreg[index] : 0;
    case SpecialReg::ExternSharedBase: {
      std::uint32_t a = l.program->dynamic_shared_align;
      return (l.program->static_shared_bytes + a - 1) / a * a;
    }
    default: return 0;
  }
}

// Whether a special register may differ between the lanes of a warp (the others are per warp,
// block or launch).
bool specialVariesByLane(ptx::SpecialReg r) {
  using ptx::SpecialReg;
  switch (r) {
    case SpecialReg::TidX: case SpecialReg::TidY: case SpecialReg::TidZ: case SpecialReg::LaneId:
    case SpecialReg::LanemaskEq: case SpecialReg::LanemaskLe: case SpecialReg::LanemaskLt:
    case SpecialReg::LanemaskGe: case SpecialReg::LanemaskGt:
      return true;
    default:
      return false;
  }
}

}  // namespace

void pushFrame(Warp& w, std::uint32_t function, std::uint32_t call_site, const BlockState& block,
               const LaunchState& launch, BlockStart start) {
  const ptx::DecodedFunction& f = launch.program->functions[function];
  Frame fr;
  fr.function = function;
  fr.call_site = call_site;
  if (w.frames.empty()) {
    fr.reg_base = fr.pred_base = fr.local_base = 0;
  } else {
    const Frame& top = w.frames.back();
    const ptx::DecodedFunction& tf = launch.program->functions[top.function];
    fr.reg_base = top.reg_base + tf.num_regs;
    fr.pred_base = top.pred_base + tf.num_preds;
    fr.local_base = w.local_top;
  }
  // The kernel's own frame is not a call: the depth of this call is the frames already there.
  if (!w.frames.empty() && w.frames.size() > launch.call_depth_frames)
    throw FaultSignal{"stack overflow",
                      fmt::format("call to '{}': the call depth is {}, above the limit limits.call_depth_frames = {} "
                                  "(raise it with --set limits.call_depth_frames=N)",
                                  f.name, w.frames.size(), launch.call_depth_frames),
                      std::uint32_t(__builtin_ctz(w.stack.empty() ? 1u : w.stack.back().mask | 1u << 31))};
  const std::uint64_t register_bytes = (std::uint64_t(fr.reg_base) + f.num_regs) * sizeof(std::uint64_t);
  if (register_bytes > launch.register_bytes_per_thread)
    throw FaultSignal{"stack overflow",
                      fmt::format("call to '{}': the register slots of the call chain take {} bytes per thread, more "
                                  "than the {} bytes per thread that the free device memory leaves for them over "
                                  "every resident thread",
                                  f.name, register_bytes, launch.register_bytes_per_thread),
                      std::uint32_t(__builtin_ctz(w.stack.empty() ? 1u : w.stack.back().mask | 1u << 31))};
  if (std::uint64_t(fr.local_base) + f.local_frame_bytes > w.local_stride)
    throw FaultSignal{"stack overflow",
                      "call to '" + f.name + "' needs more per-thread stack than limits.stack_size_bytes allows",
                      std::uint32_t(__builtin_ctz(w.stack.empty() ? 1u : w.stack.back().mask | 1u << 31))};
  w.local_top = fr.local_base + f.local_frame_bytes;
  // Registers are undefined until written (PTX): storage a previous block or call of this warp
  // left keeps its values, only new storage is zeroed. Zeroing the whole register file at every
  // block start cost short kernels a quarter of their time.
  const std::size_t reg_extent = std::size_t(fr.reg_base + f.num_regs) * kWarpSize;
  if (w.regs.size() < reg_extent) w.regs.resize(reg_extent);
  w.preds.resize(fr.pred_base + f.num_preds);
  std::fill(w.preds.begin() + fr.pred_base, w.preds.end(), 0u);
  std::uint64_t* R = w.regs.data() + std::size_t(fr.reg_base) * kWarpSize;
  const bool same_launch = start == BlockStart::SameLaunch;
  for (const auto& init : f.inits) {
    std::uint64_t* slot = R + std::size_t(init.slot) * kWarpSize;
    switch (init.kind) {
      case ptx::SlotInit::Kind::Constant:
        if (!same_launch) std::fill(slot, slot + kWarpSize, init.value);
        break;
      case ptx::SlotInit::Kind::LocalAddress:
        if (!same_launch) std::fill(slot, slot + kWarpSize, fr.local_base + init.value);
        break;
      case ptx::SlotInit::Kind::PredicateTrue:
        w.preds[fr.pred_base + init.slot] = kFullMask;
        break;
      case ptx::SlotInit::Kind::Special: {
        // Most specials (%ctaid, %ntid, ...) are the same in every lane: computed once, not per
        // lane (the per-lane switch was a fifth of a short kernel's simulation time).
        const ptx::SpecialReg r = ptx::specialOf(init.value);
        const std::uint32_t index = ptx::specialIndexOf(init.value);
        if (same_launch && specialVariesByLane(r)) break;  // thread and lane indices: as before
        if (r == ptx::SpecialReg::TidX || r == ptx::SpecialReg::TidY || r == ptx::SpecialReg::TidZ) {
          const int dim = int(r) - int(ptx::SpecialReg::TidX);
          for (int lane = 0; lane < kWarpSize; ++lane) slot[lane] = w.tid[lane][dim];
        } else if (specialVariesByLane(r)) {
          for (int lane = 0; lane < kWarpSize; ++lane) slot[lane] = specialValue(r, index, w, lane, block, launch);
        } else {
          std::fill(slot, slot + kWarpSize, specialValue(r, index, w, 0, block, launch));
        }
        break;
      }
    }
  }
  w.frames.push_back(fr);
}

namespace {

// The warp's lanes' %tid and which lanes hold a thread (w.index set, valid_mask 0).
void setThreadIndices(Warp& w, const LaunchState& launch) {
  const std::uint32_t bx = launch.block[0], by = launch.block[1];
  const std::uint64_t nthreads = std::uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  // Thread t's index is (t % bx, t / bx % by, t / (bx * by)): divided once for the first lane,
  // then counted on (three divisions per lane were a tenth of a short kernel's time).
  const std::uint32_t t0 = w.index * kWarpSize;
  std::uint32_t x = t0 % bx, y = (t0 / bx) % by;
  auto z = std::uint32_t(t0 / (std::uint64_t(bx) * by));
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (t0 + std::uint32_t(lane) < nthreads) w.valid_mask |= 1u << lane;
    w.tid[lane][0] = x;
    w.tid[lane][1] = y;
    w.tid[lane][2] = z;
    if (++x == bx) {
      x = 0;
      if (++y == by) {
        y = 0;
        ++z;
      }
    }
  }
}

}  // namespace

void initWarp(Warp& w, std::uint32_t index, BlockState& block, const LaunchState& launch, BlockStart start) {
  // A block slot hosts thousands of blocks in a run: keep the storage of the vectors (emptied;
  // the registers keep their values: see pushFrame) instead of freeing and allocating it again,
  // which cost page faults and a tenth of a short-block kernel's simulation time.
  Warp fresh;
  fresh.stack = std::move(w.stack);
  fresh.frames = std::move(w.frames);
  fresh.regs = std::move(w.regs);
  fresh.preds = std::move(w.preds);
  fresh.local = std::move(w.local);
  fresh.stack.clear();
  fresh.frames.clear();
  fresh.preds.clear();
  fresh.local.clear();
  if (start == BlockStart::SameLaunch) {  // the same thread indices as in the last block
    fresh.valid_mask = w.valid_mask;
    std::memcpy(fresh.tid, w.tid, sizeof fresh.tid);
  }
  w = std::move(fresh);
  w.index = index;
  if (start == BlockStart::Fresh) setThreadIndices(w, launch);
  const ptx::DecodedFunction& kernel = launch.program->functions[0];
  w.local_stride = kernel.local_frame_bytes + std::uint32_t(launch.stack_size_bytes);
  // w.local is allocated on first use (localBytes).
  w.stack.push_back({kernel.entry_pc, kNoReconvergence, w.valid_mask, false, w.valid_mask});
  pushFrame(w, 0, ptx::kNoSlot, block, launch, start);
}

namespace {

// Leaves a call: copies return values of the lanes that made the call and still run, and drops
// the callee's frame.
void returnFromCall(Warp& w, const SimtEntry& entry, const LaunchState& launch) {
  const Frame callee = w.frames.back();
  w.frames.pop_back();
  const Frame& caller = w.frames.back();
  const ptx::DecodedFunction& f = launch.program->functions[callee.function];
  const ptx::CallSite& site = launch.program->calls[callee.call_site];
  std::uint32_t lanes = entry.entered & ~w.exited_mask;
  for (std::size_t i = 0; i < site.ret_offsets.size() && i < f.return_offsets.size(); ++i) {
    std::uint32_t n = std::min(site.ret_sizes[i], f.return_sizes[i]);
    forLanes(lanes, [&](int lane) {
      std::memcpy(localBytes(w, lane, caller.local_base + site.ret_offsets[i]),
                  localBytes(w, lane, callee.local_base + f.return_offsets[i]), n);
    });
  }
  w.local_top = callee.local_base;
  const ptx::DecodedFunction& cf = launch.program->functions[caller.function];
  w.regs.resize(std::size_t(caller.reg_base + cf.num_regs) * kWarpSize);
  w.preds.resize(caller.pred_base + cf.num_preds);
}

}  // namespace

void settleStack(Warp& w, const LaunchState& launch) {
  while (!w.stack.empty()) {
    SimtEntry& top = w.stack.back();
    if (top.mask != 0 && top.pc != top.reconverge) break;
    SimtEntry popped = top;
    w.stack.pop_back();
    if (popped.call) returnFromCall(w, popped, launch);
  }
  if (w.stack.empty()) w.state = WarpState::Exited;
}

}  // namespace scgpu::sm
