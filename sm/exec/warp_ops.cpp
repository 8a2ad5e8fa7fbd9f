// Warp-wide operations: shfl, vote, match, redux, activemask. They read other lanes' registers,
// so they see the warp as a whole rather than lane by lane.
#include <algorithm>

#include "sm/exec/handlers.h"
#include "sm/launch_state.h"

namespace scgpu::sm {
namespace {

using ptx::DecodedInst;
using ptx::SubOp;

// shfl.sync.mode.b32 d[|p], a, b, c, membermask — the PTX ISA's lane arithmetic: c packs the
// clamp value (bits 0-4) and the segment mask (bits 8-12). A source lane that does not take part
// (not executing the shuffle, or outside the member mask) gives 0: the PTX ISA leaves the value
// undefined, the H200 returns 0 (scripts/h100/shfl_inactive.cu), and the CUDA samples' reduce7
// relies on it.
// shflSource: the lane that `lane` reads (itself when out of range) and whether it is in range.
template <SubOp S>
inline bool shflSource(int lane, std::uint64_t b, std::uint64_t c, int* src) {
  const int bval = int(b & 0x1F);
  const int cval = int(c & 0x1F);
  const int segmask = int((c >> 8) & 0x1F);
  const int max_lane = (lane & segmask) | (cval & ~segmask);
  const int min_lane = lane & segmask;
  int j;
  bool ok;
  if constexpr (S == SubOp::ShflUp) {
    j = lane - bval;
    ok = j >= max_lane;
  } else if constexpr (S == SubOp::ShflDown) {
    j = lane + bval;
    ok = j <= max_lane;
  } else if constexpr (S == SubOp::ShflBfly) {
    j = lane ^ bval;
    ok = j <= max_lane;
  } else {
    j = min_lane | (bval & ~segmask);
    ok = j <= max_lane;
  }
  *src = ok ? j : lane;
  return ok;
}

// Whether every lane of the warp executes and is in the member mask: then every source lane takes
// part (the usual case: a full warp's reduction with membermask -1).
inline bool everyLaneTakesPart(const ExecContext& c, const std::uint64_t* member) {
  if (c.mask != kFullMask) return false;
  if (!member) return true;
  std::uint64_t all = ~std::uint64_t{0};
  for (int lane = 0; lane < kWarpSize; ++lane) all &= member[lane];
  return std::uint32_t(all) == kFullMask;
}

// One instantiation per mode (S), chosen at decode time: the mode's switch is out of the lane loop.
template <SubOp S>
void shfl(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  const std::uint64_t* cc = lanes(c, in.src[2]);
  const std::uint64_t* member = (in.flags & ptx::kHasMask) ? lanes(c, in.src[3]) : nullptr;
  std::uint64_t result[kWarpSize];
  std::uint32_t pred = 0;
  if (everyLaneTakesPart(c, member)) {
    // Without the per-lane participation test (a fifth of a warp-reducing SpMV's instructions),
    // and with b and c as one value each where they are the same in every lane (immediates, as
    // usual): the lane arithmetic on them is done once.
    auto full = [&](auto b_of, auto c_of) {
      for (int lane = 0; lane < kWarpSize; ++lane) {
        int j;
        pred |= std::uint32_t(shflSource<S>(lane, b_of(lane), c_of(lane), &j)) << lane;
        result[lane] = a[j] & 0xFFFFFFFFu;
      }
    };
    if (sameInEveryLane(b) && sameInEveryLane(cc)) {
      const std::uint64_t b0 = b[0], c0 = cc[0];
      full([b0](int) { return b0; }, [c0](int) { return c0; });
    } else {
      full([b](int lane) { return b[lane]; }, [cc](int lane) { return cc[lane]; });
    }
  } else {
    forLanes(c.mask, [&](int lane) {
      int j;
      const bool ok = shflSource<S>(lane, b[lane], cc[lane], &j);
      const std::uint32_t taking_part = c.mask & (member ? std::uint32_t(member[lane]) : ~0u);
      result[lane] = (taking_part >> j & 1u) ? a[j] & 0xFFFFFFFFu : 0;
      if (ok) pred |= 1u << lane;
    });
  }
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int lane) { d[lane] = result[lane]; });
  if (in.flags & ptx::kDualPred) {
    std::uint32_t& p = c.P[in.dst[1]];
    p = (p & ~c.mask) | pred;
  }
}

void vote(ExecContext& c, const DecodedInst& in) {
  std::uint32_t p = c.P[in.src[0]];
  if (in.flags & ptx::kNegPredSrc0) p = ~p;
  p &= c.mask;
  if (in.sub == SubOp::VoteBallot) {
    std::uint64_t* d = lanes(c, in.dst[0]);
    forLanes(c.mask, [&](int lane) { d[lane] = p; });
    return;
  }
  bool r = false;
  switch (in.sub) {
    case SubOp::VoteAll: r = p == c.mask; break;
    case SubOp::VoteAny: r = p != 0; break;
    default: r = p == 0 || p == c.mask; break;  // uni
  }
  std::uint32_t& dst = c.P[in.dst[0]];
  dst = (dst & ~c.mask) | (r ? c.mask : 0u);
}

void match(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  const bool wide = ptx::sizeOf(in.type) == 8;
  auto value = [&](int lane) { return wide ? a[lane] : (a[lane] & 0xFFFFFFFFu); };
  std::uint64_t* d = lanes(c, in.dst[0]);
  if (in.sub == SubOp::MatchAll) {
    bool all = true;
    int first = __builtin_ctz(c.mask);
    forLanes(c.mask, [&](int lane) { all &= value(lane) == value(first); });
    forLanes(c.mask, [&](int lane) { d[lane] = all ? c.mask : 0; });
    if (in.flags & ptx::kDualPred) {
      std::uint32_t& p = c.P[in.dst[1]];
      p = (p & ~c.mask) | (all ? c.mask : 0u);
    }
    return;
  }
  // match.any: the lanes holding each distinct value, one value at a time (a pass over the warp
  // per value, not per lane: warps hold few distinct values).
  std::uint64_t values[kWarpSize];
  for (int lane = 0; lane < kWarpSize; ++lane) values[lane] = value(lane);
  std::uint32_t masks[kWarpSize];
  for (std::uint32_t left = c.mask; left;) {
    const std::uint64_t v = values[__builtin_ctz(left)];
    std::uint32_t same = 0;
    for (int other = 0; other < kWarpSize; ++other) same |= std::uint32_t(values[other] == v) << other;
    same &= c.mask;
    forLanes(same, [&](int lane) { masks[lane] = same; });
    left &= ~same;
  }
  forLanes(c.mask, [&](int lane) { d[lane] = masks[lane]; });
}

template <typename T>
void redux(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  int first = __builtin_ctz(c.mask);
  T acc = as<T>(a[first]);
  forLanes(c.mask & (c.mask - 1), [&](int lane) {
    T v = as<T>(a[lane]);
    switch (in.sub) {
      case SubOp::AAdd: acc = T(acc + v); break;
      case SubOp::AMin: acc = std::min(acc, v); break;
      case SubOp::AMax: acc = std::max(acc, v); break;
      case SubOp::AAnd: acc = acc & v; break;
      case SubOp::AOr: acc = acc | v; break;
      default: acc = acc ^ v; break;
    }
  });
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int lane) { d[lane] = bitsOf<T>(acc); });
}

void activemask(ExecContext& c, const DecodedInst& in) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int lane) { d[lane] = c.mask; });
}

}  // namespace

ptx::ExecFn selectWarpHandler(const DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::Shfl:
      switch (in.sub) {
        case SubOp::ShflUp: return &shfl<SubOp::ShflUp>;
        case SubOp::ShflDown: return &shfl<SubOp::ShflDown>;
        case SubOp::ShflBfly: return &shfl<SubOp::ShflBfly>;
        default: return &shfl<SubOp::ShflIdx>;  // idx (and whatever else the decoder passes: as before)
      }
    case ptx::Op::Vote: return &vote;
    case ptx::Op::Match: return &match;
    case ptx::Op::Redux:
      if (in.type == ptx::Type::S32) return &redux<std::int32_t>;
      if (in.type == ptx::Type::U32 || in.type == ptx::Type::B32) return &redux<std::uint32_t>;
      return nullptr;
    case ptx::Op::Activemask: return &activemask;
    default: return nullptr;
  }
}

}  // namespace scgpu::sm
