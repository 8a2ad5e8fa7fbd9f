// Half-precision instructions on .f16, .f16x2, .bf16 and .bf16x2: add, sub, mul, fma (.rn,
// .ftz/.sat for f16, .relu for fma), neg, abs, min, max (.NaN, .ftz for f16), ex2.approx and
// tanh.approx.
//
// Arithmetic is exact: operands are widened to double; add/sub/mul round once to double, which
// is innocuous for a later rounding to 11 or 8 bits (53 >= 2p + 2); fma's product is exact and
// its sum is rounded once to double (f16) or rounded to odd with TwoSum (bf16, see arith). The result is then rounded once to the
// 16-bit format, to nearest even (fp::toHalfRn). NaN results (abs and neg
// included) become the canonical NaN 0x7FFF; .relu turns negative results and -0 into +0; .ftz
// flushes subnormal inputs, and results that are subnormal before rounding, to signed zeros.
// For the x2 types each 16-bit half is computed independently (lower half from lower halves).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sm/exec/alu.h"
#include "sm/exec/float_util.h"

namespace scgpu::sm::alu {
namespace {

using ptx::DecodedInst;
using ptx::ExecFn;
using ptx::Op;
using ptx::Round;
using ptx::Type;

struct EF16 {
  SCGPU_FP_INLINE static double toD(std::uint16_t h) { return fp::halfToDouble(h); }
  SCGPU_FP_INLINE static std::uint16_t fromD(double d) { return fp::toHalfRn<fp::FmtF16>(d); }
  SCGPU_FP_INLINE static std::uint16_t flush(std::uint16_t h) { return fp::ftzHalf(h); }
  SCGPU_FP_INLINE static bool isNaN(std::uint16_t h) { return (h & 0x7FFFu) > 0x7C00u; }
  static constexpr std::uint16_t kNaN = fp::kCanonNaN16;
  // Results below this are tiny for .ftz: they stay below 2^-14 when rounded to 11 bits with an
  // unbounded exponent (IEEE tininess after rounding, as measured on sm_90).
  static constexpr double kTiny = 0x1p-14 - 0x1p-26;
  static constexpr bool kFmaToOdd = false;
};
struct EBF16 {
  SCGPU_FP_INLINE static double toD(std::uint16_t h) { return fp::bf16ToFloat(h); }
  SCGPU_FP_INLINE static std::uint16_t fromD(double d) { return fp::toHalfRn<fp::FmtBF16>(d); }
  SCGPU_FP_INLINE static std::uint16_t flush(std::uint16_t h) { return fp::ftzBf16(h); }
  SCGPU_FP_INLINE static bool isNaN(std::uint16_t h) { return (h & 0x7FFFu) > 0x7F80u; }
  static constexpr std::uint16_t kNaN = fp::kCanonNaNBF16;
  static constexpr double kTiny = 0x1p-126 - 0x1p-135;
  static constexpr bool kFmaToOdd = true;
};

enum class HOp { Add, Sub, Mul, Fma };

template <class E, HOp O, bool Ftz, bool Sat, bool Relu>
SCGPU_FP_INLINE std::uint16_t arith(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  if (Ftz) {
    a = E::flush(a);
    b = E::flush(b);
    c = E::flush(c);
  }
  const double x = E::toD(a), y = E::toD(b);
  double s;
  if constexpr (O == HOp::Fma) {
    const double z = E::toD(c);
    const double p = x * y;  // exact: at most 22 significant bits
    s = p + z;
    // For f16 the double rounding of p + z is innocuous: every term is a multiple of 2^-48, the
    // smallest nonzero f16 is 2^-24, so a result within half a double ulp of an f16 midpoint is
    // the midpoint itself. bf16's range allows a tiny c next to a product that is exactly a
    // midpoint, so its sum is rounded to odd first.
    if (E::kFmaToOdd && std::fabs(s) <= DBL_MAX) s = fp::toOdd(s, fp::twoSumErr(p, z, s));
  } else if constexpr (O == HOp::Add) {
    s = x + y;  // one rounding to double, then one to 16 bits: innocuous (53 >= 2*11 + 2)
  } else if constexpr (O == HOp::Sub) {
    s = x - y;
  } else {
    s = x * y;  // exact
  }
  if (s != s) return Sat ? std::uint16_t(0) : E::kNaN;
  if (Relu && s <= 0) s = 0.0;                          // -0 gives +0 too
  if (Sat) s = fp::sat01(s);
  if (Ftz && std::fabs(s) < E::kTiny) return std::uint16_t(std::signbit(s) ? 0x8000u : 0u);
  return E::fromD(s);
}

template <class E, HOp O, bool Ftz, bool Sat, bool Relu, bool Pair>
void arithH(ExecContext& c, const DecodedInst& in) {
  if constexpr (O == HOp::Fma) {
    map3<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>(
        c, in, [](std::uint32_t a, std::uint32_t b, std::uint32_t s) {
          std::uint32_t r = arith<E, O, Ftz, Sat, Relu>(std::uint16_t(a), std::uint16_t(b), std::uint16_t(s));
          if (Pair)
            r |= std::uint32_t(arith<E, O, Ftz, Sat, Relu>(std::uint16_t(a >> 16), std::uint16_t(b >> 16),
                                                           std::uint16_t(s >> 16))) << 16;
          return r;
        });
  } else {
    map2<std::uint32_t, std::uint32_t, std::uint32_t>(c, in, [](std::uint32_t a, std::uint32_t b) {
      std::uint32_t r = arith<E, O, Ftz, Sat, Relu>(std::uint16_t(a), std::uint16_t(b), 0);
      if (Pair)
        r |= std::uint32_t(arith<E, O, Ftz, Sat, Relu>(std::uint16_t(a >> 16), std::uint16_t(b >> 16), 0)) << 16;
      return r;
    });
  }
}

template <class E, bool Neg, bool Ftz, bool Pair>
void absNegH(ExecContext& c, const DecodedInst& in) {
  map1<std::uint32_t, std::uint32_t>(c, in, [](std::uint32_t a) {
    auto one = [](std::uint16_t h) -> std::uint32_t {
      if (E::isNaN(h)) return E::kNaN;  // as measured: NaN gives the canonical NaN
      if (Ftz) h = E::flush(h);
      return Neg ? std::uint32_t(h ^ 0x8000u) : std::uint32_t(h & 0x7FFFu);
    };
    std::uint32_t r = one(std::uint16_t(a));
    if (Pair) r |= one(std::uint16_t(a >> 16)) << 16;
    return r;
  });
}

template <class E, bool Max, bool NaNMode, bool Ftz>
SCGPU_FP_INLINE std::uint16_t minMaxHalf(std::uint16_t a, std::uint16_t b) {
  if (Ftz) {
    a = E::flush(a);
    b = E::flush(b);
  }
  const bool na = E::isNaN(a), nb = E::isNaN(b);
  if (na || nb) {
    if (NaNMode || (na && nb)) return E::kNaN;
    return na ? b : a;
  }
  const double x = E::toD(a), y = E::toD(b);
  if (x == y) return Max ? std::uint16_t(a & b) : std::uint16_t(a | b);  // -0 < +0
  return Max ? (x > y ? a : b) : (x < y ? a : b);
}

template <class E, bool Max, bool NaNMode, bool Ftz, bool Pair>
void minMaxH(ExecContext& c, const DecodedInst& in) {
  map2<std::uint32_t, std::uint32_t, std::uint32_t>(c, in, [](std::uint32_t a, std::uint32_t b) {
    std::uint32_t r = minMaxHalf<E, Max, NaNMode, Ftz>(std::uint16_t(a), std::uint16_t(b));
    if (Pair) r |= std::uint32_t(minMaxHalf<E, Max, NaNMode, Ftz>(std::uint16_t(a >> 16), std::uint16_t(b >> 16))) << 16;
    return r;
  });
}

struct FEx2 { static float f(float x) { return std::exp2(x); } };
struct FTanh { static float f(float x) { return std::tanh(x); } };

template <class E, class Fn, bool Pair>
void approxH(ExecContext& c, const DecodedInst& in) {
  map1<std::uint32_t, std::uint32_t>(c, in, [](std::uint32_t a) {
    auto one = [](std::uint16_t h) -> std::uint32_t { return E::fromD(Fn::f(float(E::toD(h)))); };
    std::uint32_t r = one(std::uint16_t(a));
    if (Pair) r |= one(std::uint16_t(a >> 16)) << 16;
    return r;
  });
}

// ---------------------------------------------------------------------------------------------
// Selection

template <class E, bool Pair>
ExecFn selectFor(const DecodedInst& in, bool isF16) {
  const bool ftz = in.flags & ptx::kFtz, sat = in.flags & ptx::kSat, relu = in.flags & ptx::kRelu;
  // ex2/tanh.approx: .ftz (required for bf16) makes no difference to these results.
  if (in.op == Op::Ex2) return sat || relu ? nullptr : &approxH<E, FEx2, Pair>;
  if (in.op == Op::Tanh) return sat || relu ? nullptr : &approxH<E, FTanh, Pair>;
  if (!isF16 && (ftz || sat)) return nullptr;
  auto bin = [&](auto opTag) -> ExecFn {
    constexpr HOp O = decltype(opTag)::value;
    if (relu) return nullptr;
    if (in.round != Round::None && in.round != Round::Rn) return nullptr;
    if (ftz) return sat ? &arithH<E, O, true, true, false, Pair> : &arithH<E, O, true, false, false, Pair>;
    return sat ? &arithH<E, O, false, true, false, Pair> : &arithH<E, O, false, false, false, Pair>;
  };
  switch (in.op) {
    case Op::Add: return bin(std::integral_constant<HOp, HOp::Add>{});
    case Op::Sub: return bin(std::integral_constant<HOp, HOp::Sub>{});
    case Op::Mul: return bin(std::integral_constant<HOp, HOp::Mul>{});
    case Op::Fma: {
      constexpr HOp O = HOp::Fma;
      if (in.round != Round::None && in.round != Round::Rn) return nullptr;
      if (relu) {
        if (sat) return nullptr;
        return ftz ? &arithH<E, O, true, false, true, Pair> : &arithH<E, O, false, false, true, Pair>;
      }
      if (ftz) return sat ? &arithH<E, O, true, true, false, Pair> : &arithH<E, O, true, false, false, Pair>;
      return sat ? &arithH<E, O, false, true, false, Pair> : &arithH<E, O, false, false, false, Pair>;
    }
    case Op::Neg:
      if (sat || relu) return nullptr;
      return ftz ? &absNegH<E, true, true, Pair> : &absNegH<E, true, false, Pair>;
    case Op::Abs:
      if (sat || relu) return nullptr;
      return ftz ? &absNegH<E, false, true, Pair> : &absNegH<E, false, false, Pair>;
    case Op::Min:
    case Op::Max: {
      if (sat || relu) return nullptr;
      const bool nan = in.flags & ptx::kNaN;
      if (in.op == Op::Max) {
        if (nan) return ftz ? &minMaxH<E, true, true, true, Pair> : &minMaxH<E, true, true, false, Pair>;
        return ftz ? &minMaxH<E, true, false, true, Pair> : &minMaxH<E, true, false, false, Pair>;
      }
      if (nan) return ftz ? &minMaxH<E, false, true, true, Pair> : &minMaxH<E, false, true, false, Pair>;
      return ftz ? &minMaxH<E, false, false, true, Pair> : &minMaxH<E, false, false, false, Pair>;
    }
    default: return nullptr;
  }
}

}  // namespace

ExecFn selectHalfHandler(const DecodedInst& in) {
  switch (in.type) {
    case Type::F16: return selectFor<EF16, false>(in, true);
    case Type::F16x2: return selectFor<EF16, true>(in, true);
    case Type::BF16: return selectFor<EBF16, false>(in, false);
    case Type::BF16x2: return selectFor<EBF16, true>(in, false);
    default: return nullptr;
  }
}

}  // namespace scgpu::sm::alu
