// Comparison and selection: setp (all comparison operators, .and/.or/.xor combining, p|q), set,
// selp and slct.
//
// A comparison builds one lane mask per warp; combining with the source predicate, negation and
// the complementary destination q are then whole-mask operations. Float comparisons follow PTX:
// eq..ge are ordered (false when an operand is NaN), equ..geu unordered (true when an operand is
// NaN), num/nan test for NaN operands; -0 equals +0. For .f16x2/.bf16x2, p is the result for the
// lower halves and q for the upper halves.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sm/exec/alu.h"
#include "sm/exec/float_util.h"

namespace scgpu::sm::alu {
namespace {

using ptx::Cmp;
using ptx::DecodedInst;
using ptx::ExecFn;
using ptx::Op;
using ptx::SubOp;
using ptx::Type;

// Operand loaders: the comparison value of a slot's low bits.
template <class T>
struct LRaw {
  using V = T;
  static V get(std::uint64_t b) { return as<T>(b); }
};
template <bool Ftz>
struct LF32 {
  using V = float;
  static V get(std::uint64_t b) { return Ftz ? fp::ftz(as<float>(b)) : as<float>(b); }
};
template <bool Ftz>
struct LF16 {
  using V = float;
  static V get(std::uint64_t b) {
    const std::uint16_t h = std::uint16_t(b);
    return fp::halfToFloat(Ftz ? fp::ftzHalf(h) : h);
  }
};
struct LBF16 {
  using V = float;
  static V get(std::uint64_t b) { return fp::bf16ToFloat(std::uint16_t(b)); }
};

template <Cmp C, class V>
inline bool compare(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if constexpr (C == Cmp::Eq) return a == b;
    else if constexpr (C == Cmp::Ne) return a < b || a > b;
    else if constexpr (C == Cmp::Lt) return a < b;
    else if constexpr (C == Cmp::Le) return a <= b;
    else if constexpr (C == Cmp::Gt) return a > b;
    else if constexpr (C == Cmp::Ge) return a >= b;
    else if constexpr (C == Cmp::Equ) return !(a < b || a > b);
    else if constexpr (C == Cmp::Neu) return a != b;
    else if constexpr (C == Cmp::Ltu) return !(a >= b);
    else if constexpr (C == Cmp::Leu) return !(a > b);
    else if constexpr (C == Cmp::Gtu) return !(a <= b);
    else if constexpr (C == Cmp::Geu) return !(a < b);
    else if constexpr (C == Cmp::Num) return a == a && b == b;
    else return a != a || b != b;  // Nan
  } else {
    using UV = std::make_unsigned_t<V>;
    if constexpr (C == Cmp::Eq) return a == b;
    else if constexpr (C == Cmp::Ne) return a != b;
    else if constexpr (C == Cmp::Lt) return a < b;
    else if constexpr (C == Cmp::Le) return a <= b;
    else if constexpr (C == Cmp::Gt) return a > b;
    else if constexpr (C == Cmp::Ge) return a >= b;
    else if constexpr (C == Cmp::Lo) return UV(a) < UV(b);
    else if constexpr (C == Cmp::Ls) return UV(a) <= UV(b);
    else if constexpr (C == Cmp::Hi) return UV(a) > UV(b);
    else return UV(a) >= UV(b);  // Hs
  }
}

// Lane bits from 32 bytes of 0 or 1 (byte i -> bit i): eight bytes at a time, a multiplication
// moves each byte's bit to its place in the top byte (no two partial products overlap).
inline std::uint32_t packLaneBytes(const std::uint8_t (&t)[kWarpSize]) {
  std::uint32_t r = 0;
  for (int k = 0; k < kWarpSize / 8; ++k) {
    std::uint64_t x;
    std::memcpy(&x, t + 8 * k, 8);
    r |= std::uint32_t((x * 0x0102040810204080ull) >> 56) << (8 * k);
  }
  return r;
}

template <class L, Cmp C, int Shift>
inline std::uint32_t compareMask(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  if (c.mask == kFullMask) {
    // A full warp compares into bytes, a loop the compiler vectorises, then packs them: a third
    // of the instructions of the lane-by-lane shift-and-or below.
    std::uint8_t t[kWarpSize];
    for (int l = 0; l < kWarpSize; ++l) t[l] = compare<C>(L::get(a[l] >> Shift), L::get(b[l] >> Shift));
    return packLaneBytes(t);
  }
  std::uint32_t r = 0;
  forLanes(c.mask, [&](int l) {
    r |= std::uint32_t(compare<C>(L::get(a[l] >> Shift), L::get(b[l] >> Shift))) << l;
  });
  return r;
}

// BoolOp(t, {!}c) for setp/set with a combining predicate in src[2].
inline std::uint32_t combine(const ExecContext& c, const DecodedInst& in, std::uint32_t t) {
  if (in.sub == SubOp::None) return t;
  const std::uint32_t p = c.P[in.src[2]] ^ ((in.flags & ptx::kNegPredSrc) ? ~0u : 0u);
  switch (in.sub) {
    case SubOp::BoolAnd: return t & p;
    case SubOp::BoolOr: return t | p;
    default: return t ^ p;  // BoolXor
  }
}

// Value of "true" for set's destination type (type2).
inline std::uint32_t setTrue(Type t) {
  switch (t) {
    case Type::F32: return 0x3F800000u;
    case Type::F16: case Type::F16x2: return 0x3C00u;
    case Type::BF16: case Type::BF16x2: return 0x3F80u;
    case Type::B16: case Type::U16: case Type::S16: return 0xFFFFu;
    default: return 0xFFFFFFFFu;  // u32, s32, b32; per half (masked below) for packed u32
  }
}

enum Kind { kSetp, kSet, kSetpPair, kSetPair };

template <int K, class L, Cmp C>
void cmpHandler(ExecContext& c, const DecodedInst& in) {
  if constexpr (K == kSetp) {
    const std::uint32_t t = compareMask<L, C, 0>(c, in);
    writePred(c, in.dst[0], combine(c, in, t));
    if (in.flags & ptx::kDualPred) writePred(c, in.dst[1], combine(c, in, ~t));
  } else if constexpr (K == kSetpPair) {
    const std::uint32_t lo = compareMask<L, C, 0>(c, in), hi = compareMask<L, C, 16>(c, in);
    writePred(c, in.dst[0], combine(c, in, lo));
    if (in.flags & ptx::kDualPred) writePred(c, in.dst[1], combine(c, in, hi));
  } else if constexpr (K == kSet) {
    const std::uint32_t t = combine(c, in, compareMask<L, C, 0>(c, in));
    const std::uint32_t one = setTrue(in.type2);
    std::uint64_t* d = lanes(c, in.dst[0]);
    forLanes(c.mask, [&](int l) { d[l] = ((t >> l) & 1u) ? one : 0u; });
  } else {
    const std::uint32_t lo = combine(c, in, compareMask<L, C, 0>(c, in));
    const std::uint32_t hi = combine(c, in, compareMask<L, C, 16>(c, in));
    const std::uint32_t one = setTrue(in.type2) & 0xFFFFu;
    std::uint64_t* d = lanes(c, in.dst[0]);
    forLanes(c.mask, [&](int l) {
      d[l] = (((lo >> l) & 1u) ? one : 0u) | ((((hi >> l) & 1u) ? one : 0u) << 16);
    });
  }
}

template <int K, class L>
ExecFn pickCmp(Cmp cmp) {
  if constexpr (std::is_floating_point_v<typename L::V>) {
    switch (cmp) {
      case Cmp::Eq: return &cmpHandler<K, L, Cmp::Eq>;
      case Cmp::Ne: return &cmpHandler<K, L, Cmp::Ne>;
      case Cmp::Lt: return &cmpHandler<K, L, Cmp::Lt>;
      case Cmp::Le: return &cmpHandler<K, L, Cmp::Le>;
      case Cmp::Gt: return &cmpHandler<K, L, Cmp::Gt>;
      case Cmp::Ge: return &cmpHandler<K, L, Cmp::Ge>;
      case Cmp::Equ: return &cmpHandler<K, L, Cmp::Equ>;
      case Cmp::Neu: return &cmpHandler<K, L, Cmp::Neu>;
      case Cmp::Ltu: return &cmpHandler<K, L, Cmp::Ltu>;
      case Cmp::Leu: return &cmpHandler<K, L, Cmp::Leu>;
      case Cmp::Gtu: return &cmpHandler<K, L, Cmp::Gtu>;
      case Cmp::Geu: return &cmpHandler<K, L, Cmp::Geu>;
      case Cmp::Num: return &cmpHandler<K, L, Cmp::Num>;
      case Cmp::Nan: return &cmpHandler<K, L, Cmp::Nan>;
      default: return nullptr;
    }
  } else {
    switch (cmp) {
      case Cmp::Eq: return &cmpHandler<K, L, Cmp::Eq>;
      case Cmp::Ne: return &cmpHandler<K, L, Cmp::Ne>;
      case Cmp::Lt: return &cmpHandler<K, L, Cmp::Lt>;
      case Cmp::Le: return &cmpHandler<K, L, Cmp::Le>;
      case Cmp::Gt: return &cmpHandler<K, L, Cmp::Gt>;
      case Cmp::Ge: return &cmpHandler<K, L, Cmp::Ge>;
      case Cmp::Lo: return &cmpHandler<K, L, Cmp::Lo>;
      case Cmp::Ls: return &cmpHandler<K, L, Cmp::Ls>;
      case Cmp::Hi: return &cmpHandler<K, L, Cmp::Hi>;
      case Cmp::Hs: return &cmpHandler<K, L, Cmp::Hs>;
      default: return nullptr;
    }
  }
}

template <int K>
ExecFn pickByType(const DecodedInst& in) {
  const bool ftz = in.flags & ptx::kFtz;
  constexpr int KPair = K == kSetp ? kSetpPair : kSetPair;
  switch (in.type) {
    case Type::B16: case Type::U16: return pickCmp<K, LRaw<std::uint16_t>>(in.cmp);
    case Type::B32: case Type::U32: return pickCmp<K, LRaw<std::uint32_t>>(in.cmp);
    case Type::B64: case Type::U64: return pickCmp<K, LRaw<std::uint64_t>>(in.cmp);
    case Type::S16: return pickCmp<K, LRaw<std::int16_t>>(in.cmp);
    case Type::S32: return pickCmp<K, LRaw<std::int32_t>>(in.cmp);
    case Type::S64: return pickCmp<K, LRaw<std::int64_t>>(in.cmp);
    case Type::F32: return ftz ? pickCmp<K, LF32<true>>(in.cmp) : pickCmp<K, LF32<false>>(in.cmp);
    case Type::F64: return pickCmp<K, LRaw<double>>(in.cmp);
    case Type::F16: return ftz ? pickCmp<K, LF16<true>>(in.cmp) : pickCmp<K, LF16<false>>(in.cmp);
    case Type::BF16: return pickCmp<K, LBF16>(in.cmp);
    case Type::F16x2: return ftz ? pickCmp<KPair, LF16<true>>(in.cmp) : pickCmp<KPair, LF16<false>>(in.cmp);
    case Type::BF16x2: return pickCmp<KPair, LBF16>(in.cmp);
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// selp d, a, b, c: c is a predicate slot.
template <class T>
void selp(ExecContext& c, const DecodedInst& in) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  const std::uint32_t p = c.P[in.src[2]];
  forLanes(c.mask, [&](int l) { d[l] = bitsOf<T>(as<T>(((p >> l) & 1u) ? a[l] : b[l])); });
}

// slct d, a, b, c: d = c >= 0 ? a : b (c is .s32 or .f32; -0 counts as >= 0, NaN does not).
template <class T, class LC>
void slct(ExecContext& c, const DecodedInst& in) {
  map3<T, T, T, std::uint64_t>(c, in, [](T a, T b, std::uint64_t s) { return LC::get(s) >= 0 ? a : b; });
}

template <class F>
ExecFn byWidth(Type t, F&& f) {
  switch (t) {
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16:
      return f(Tag<std::uint16_t>{});
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2:
    case Type::BF16x2:
      return f(Tag<std::uint32_t>{});
    case Type::B64: case Type::U64: case Type::S64: case Type::F64:
      return f(Tag<std::uint64_t>{});
    default: return nullptr;
  }
}

}  // namespace

ExecFn selectCompareHandler(const DecodedInst& in) {
  switch (in.op) {
    case Op::Setp: return pickByType<kSetp>(in);
    case Op::Set: {
      switch (in.type2) {
        case Type::U32: case Type::S32: case Type::B32: case Type::F32:
          if (in.type == Type::F16x2 || in.type == Type::BF16x2) {
            if (in.type2 == Type::F32) return nullptr;
            return pickByType<kSet>(in);  // packed u32 result
          }
          return pickByType<kSet>(in);
        case Type::F16: case Type::BF16: case Type::U16: case Type::S16: case Type::B16:
          if (in.type == Type::F16x2 || in.type == Type::BF16x2) return nullptr;
          return pickByType<kSet>(in);
        case Type::F16x2: case Type::BF16x2:
          if (in.type != Type::F16x2 && in.type != Type::BF16x2) return nullptr;
          return pickByType<kSet>(in);
        default: return nullptr;
      }
    }
    case Op::Selp:
      return byWidth(in.type, [](auto tag) -> ExecFn { return &selp<typename decltype(tag)::type>; });
    case Op::Slct: {
      const Type ct = in.type2 == Type::None ? Type::S32 : in.type2;
      const bool ftz = in.flags & ptx::kFtz;
      return byWidth(in.type, [&](auto tag) -> ExecFn {
        using T = typename decltype(tag)::type;
        if (ct == Type::S32) return &slct<T, LRaw<std::int32_t>>;
        if (ct == Type::F32) return ftz ? &slct<T, LF32<true>> : &slct<T, LF32<false>>;
        return nullptr;
      });
    }
    default: return nullptr;
  }
}

}  // namespace scgpu::sm::alu
