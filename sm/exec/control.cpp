// Control flow under SIMT: branches with divergence and reconvergence on the IPDOM stack, calls
// and returns with frames, exit, trap and barriers.
#include <algorithm>
#include <cstring>
#include <map>

#include "sm/address_space.h"
#include "sm/exec/builtins.h"
#include "sm/exec/handlers.h"
#include "sm/exec/mem_access.h"
#include "sm/cluster.h"
#include "sm/simt.h"

#include <fmt/format.h>

namespace scgpu::sm {
namespace {

using ptx::DecodedInst;

// Splits the active lanes between the taken lanes (to `target`) and the rest (fall through).
void diverge(Warp& w, const DecodedInst& in, std::uint32_t taken, std::uint32_t active, std::uint32_t fallthrough) {
  SimtEntry& top = w.stack.back();
  const std::uint32_t not_taken = active & ~taken;
  if (not_taken == 0) {
    top.pc = in.target;
    return;
  }
  if (taken == 0) return;  // top.pc is already the fall-through
  const std::uint32_t rpc = in.reconverge;
  top.pc = rpc;  // the entry below resumes, with all lanes, at the reconvergence point
  w.stack.push_back({fallthrough, rpc, not_taken, false, 0});
  w.stack.push_back({in.target, rpc, taken, false, 0});
}

void bra(ExecContext& c, const DecodedInst& in) { diverge(*c.warp, in, c.mask, c.active, c.pc + 1); }

void brxIdx(ExecContext& c, const DecodedInst& in) {
  Warp& w = *c.warp;
  const auto& table = c.program->branch_tables_flat;
  const std::uint64_t* idx = lanes(c, in.src[0]);
  // Group lanes by target, in target order, so the split is deterministic.
  std::map<std::uint32_t, std::uint32_t> groups;
  forLanes(c.mask, [&](int lane) {
    std::uint32_t i = std::uint32_t(idx[lane]);
    if (i >= in.aux)
      throw FaultSignal{"illegal instruction", "brx.idx index " + std::to_string(i) + " outside its table of " +
                                                   std::to_string(in.aux) + " targets",
                        std::uint32_t(lane)};
    groups[table[in.target + i]] |= 1u << lane;
  });
  SimtEntry& top = w.stack.back();
  const std::uint32_t rest = c.active & ~c.mask;  // lanes whose guard was false fall through
  if (groups.size() == 1 && rest == 0) {
    top.pc = groups.begin()->first;
    return;
  }
  const std::uint32_t rpc = in.reconverge;
  top.pc = rpc;
  if (rest) w.stack.push_back({c.pc + 1, rpc, rest, false, 0});
  for (auto it = groups.rbegin(); it != groups.rend(); ++it) w.stack.push_back({it->first, rpc, it->second, false, 0});
}

void call(ExecContext& c, const DecodedInst& in) {
  Warp& w = *c.warp;
  const ptx::CallSite& site = c.program->calls[in.aux];
  std::uint32_t callee = site.callee;
  if (callee == ptx::kNoSlot) {
    // Indirect call: every calling lane must name the same function.
    const std::uint64_t* f = lanes(c, site.callee_slot);
    int first = __builtin_ctz(c.mask);
    std::uint64_t addr = f[first];
    forLanes(c.mask, [&](int lane) {
      if (f[lane] != addr)
        throw FaultSignal{"illegal instruction", "divergent indirect call (lanes call different functions)",
                          std::uint32_t(lane)};
    });
    if (addr - kFunctionAddressBase >= c.program->functions.size())
      throw FaultSignal{"illegal instruction", "indirect call through an address that is not a function",
                        std::uint32_t(first)};
    callee = std::uint32_t(addr - kFunctionAddressBase);
  }
  const ptx::DecodedFunction& f = c.program->functions[callee];
  if (f.builtin != ptx::DecodedFunction::Builtin::None) {
    callBuiltin(c, f, site);
    return;
  }
  const std::uint32_t caller_local = w.frames.back().local_base;
  pushFrame(w, callee, in.aux, *c.block, *c.launch);
  const Frame& fr = w.frames.back();
  for (std::size_t i = 0; i < site.arg_offsets.size() && i < f.param_offsets.size(); ++i) {
    std::uint32_t n = std::min(site.arg_sizes[i], f.param_sizes[i]);
    forLanes(c.mask, [&](int lane) {
      std::memcpy(localBytes(w, lane, fr.local_base + f.param_offsets[i]),
                  localBytes(w, lane, caller_local + site.arg_offsets[i]), n);
    });
  }
  // The caller's entry resumes after the call (top.pc is already pc + 1) once the call entry,
  // holding the calling lanes, is popped.
  w.stack.push_back({f.entry_pc, kNoReconvergence, c.mask, true, c.mask});
  bindFrame(c, w);
}

// Removes `lanes` from the stack entries down to (and including) the innermost call entry.
void ret(ExecContext& c, const DecodedInst&) {
  Warp& w = *c.warp;
  for (auto it = w.stack.rbegin(); it != w.stack.rend(); ++it) {
    it->mask &= ~c.mask;
    if (it->call) break;
  }
}

void exitThreads(ExecContext& c, const DecodedInst&) {
  Warp& w = *c.warp;
  w.exited_mask |= c.mask;
  for (auto& e : w.stack) e.mask &= ~c.mask;
}

void trap(ExecContext& c, const DecodedInst& in) {
  throw FaultSignal{in.op == ptx::Op::Brkpt ? "breakpoint" : "trap",
                    in.op == ptx::Op::Brkpt ? "brkpt executed" : "trap instruction executed (e.g. __trap())",
                    std::uint32_t(__builtin_ctz(c.mask))};
}

// bar.sync / bar.arrive / bar.red: the engine owns the barrier bookkeeping; this records what
// the warp asked for.
void bar(ExecContext& c, const DecodedInst& in) {
  const int lane = __builtin_ctz(c.mask);
  std::uint32_t id = std::uint32_t(c.R[std::size_t(in.src[0]) * kWarpSize + lane]);
  if (id >= kNumBarriers)
    throw FaultSignal{"illegal instruction", "barrier id " + std::to_string(id) + " is not in 0..15",
                      std::uint32_t(lane)};
  std::uint32_t count = 0;
  if (in.flags & ptx::kHasCount) {
    count = std::uint32_t(c.R[std::size_t(in.src[1]) * kWarpSize + lane]);
    if (count == 0 || count % kWarpSize != 0)
      throw FaultSignal{"illegal instruction",
                        "barrier thread count " + std::to_string(count) + " is not a positive multiple of 32",
                        std::uint32_t(lane)};
  }
  std::uint32_t contribution = 0;
  if (in.sub == ptx::SubOp::BarRed) {
    std::uint32_t p = c.P[in.src[2]];
    if (in.flags & ptx::kNegPredSrc) p = ~p;
    p &= c.mask;
    contribution = p;
  }
  arriveAtBarrier(c, in, id, count, contribution);
}

void readClock(ExecContext& c, const DecodedInst& in) {
  std::uint64_t v = 0;
  const std::uint64_t clock = c.cycle != ExecContext::kNoCycle ? c.cycle : c.launch->clock;
  switch (ptx::SpecialReg(in.aux)) {
    case ptx::SpecialReg::Clock: v = clock & 0xFFFFFFFFu; break;
    case ptx::SpecialReg::Clock64: v = clock; break;
    // Nanoseconds at the configured core clock; functional mode counts instructions as cycles.
    case ptx::SpecialReg::GlobalTimer: v = clock; break;
    case ptx::SpecialReg::GlobalTimerLo: v = clock & 0xFFFFFFFFu; break;
    default: break;
  }
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int lane) { d[lane] = v; });
}

void nop(ExecContext&, const DecodedInst&) {}

// barrier.cluster.arrive / .wait: the cluster's bookkeeping is in sm/cluster.cpp.
void barrierCluster(ExecContext& c, const DecodedInst& in) {
  if (in.sub == ptx::SubOp::BarArrive) arriveAtClusterBarrier(c);
  else waitAtClusterBarrier(c);
}

// The shared offset of a shared::cluster (or, generic, shared-window) address, and back.
std::uint64_t clusterOffset(const DecodedInst& in, std::uint64_t a, int lane) {
  if (in.space == ptx::Space::Shared) return in.type == ptx::Type::U32 ? a & 0xFFFFFFFFu : a;
  if (!inSharedWindow(a))
    throw FaultSignal{"illegal address",
                      fmt::format("{}: generic address 0x{:x} is not in the shared window", ptx::toString(in.op), a),
                      std::uint32_t(lane), a};
  return a - kSharedWindowBase;
}

// mapa d, a, rank: the same offset in the shared memory of block `rank` of the cluster.
void mapa(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* r = lanes(c, in.src[1]);
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint32_t size = clusterSize(*c.launch);
  forLanes(c.mask, [&](int lane) {
    const std::uint32_t rank = std::uint32_t(r[lane]);
    if (rank >= size)
      throw FaultSignal{"illegal instruction",
                        fmt::format("mapa: rank {} is not in the cluster of {} blocks", rank, size),
                        std::uint32_t(lane)};
    const std::uint64_t off = clusterOffset(in, a[lane], lane) % kClusterSharedStride;
    const std::uint64_t mapped = (std::uint64_t(rank) + 1) * kClusterSharedStride + off;
    d[lane] = in.space == ptx::Space::Shared ? mapped : kSharedWindowBase + mapped;
  });
}

// getctarank d, a: the rank of the cluster's block that a lies in.
void getctarank(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int lane) {
    const std::uint64_t off = clusterOffset(in, a[lane], lane);
    d[lane] = off < kClusterSharedStride ? c.block->cluster_rank : off / kClusterSharedStride - 1;
  });
}

}  // namespace

ptx::ExecFn selectControlHandler(const DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::Bra: return &bra;
    case ptx::Op::BrxIdx: return &brxIdx;
    case ptx::Op::Call: return &call;
    case ptx::Op::Ret: return &ret;
    case ptx::Op::Exit: return &exitThreads;
    case ptx::Op::Trap:
    case ptx::Op::Brkpt: return &trap;
    case ptx::Op::Bar: return &bar;
    case ptx::Op::Nanosleep: return &nop;
    case ptx::Op::BarCluster: return &barrierCluster;
    case ptx::Op::Mapa: return &mapa;
    case ptx::Op::Getctarank: return &getctarank;
    case ptx::Op::Mov:
      if (in.src[0] == ptx::kNoSlot && in.nsrc == 0) return &readClock;
      return nullptr;
    default: return nullptr;
  }
}

}  // namespace scgpu::sm
