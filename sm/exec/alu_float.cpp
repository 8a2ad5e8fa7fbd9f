// f32 and f64 instructions: add/sub/mul/fma/mad with .rn/.rz/.rm/.rp, .ftz and .sat; div
// (.approx, .full, IEEE), rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh; abs, neg, min, max (.NaN),
// copysign and testp.
//
// Round-to-nearest is the host's default mode and takes the plain path. A directed mode sets the
// host rounding mode once per warp instruction (fp::ScopedRounding), so every lane gets the
// exactly rounded IEEE result. .ftz flushes f32 subnormal inputs, and results that are tiny after
// rounding, to zeros of the same sign; .sat clamps to [0, 1] with NaN and -0 giving +0.
// NaN results follow the GPU (see float_util.h): canonical 0x7FFFFFFF for f32, propagated
// operands for f64. Behaviour beyond the ISA text was measured on an H100 (sm_90) and is marked
// so where it is implemented.
//
// Approximations: rcp/sqrt/rsqrt.approx.f32 return the correctly rounded value and div.approx/
// div.full the product a * RN(1/b) (the GPU's MUFU results differ from these by 1-2 ulp in a few
// percent of cases); sin/cos/lg2/ex2/tanh.approx.f32 use the C library in f32 (within 1-2 ulp of
// the exact value, at least as accurate as the GPU's documented 2^-20.5 absolute (sin/cos),
// 2^-22 relative (lg2/ex2) and 2^-11 relative (tanh) errors), so they are not bit-identical to
// hardware. rcp/rsqrt.approx.ftz.f64 keep the upper 32 bits (see f64ApproxFtz).
#include <cmath>
#include <cstdint>
#include <limits>

#include "sm/exec/alu.h"
#include "sm/exec/float_util.h"

namespace scgpu::sm::alu {
namespace {

using fp::canon;
using fp::ftz;
using fp::sat01;
using ptx::DecodedInst;
using ptx::ExecFn;
using ptx::Op;
using ptx::Round;
using ptx::SubOp;
using ptx::Type;

// ---------------------------------------------------------------------------------------------
// .ftz and tininess. The GPU flushes a result that is tiny *after rounding with an unbounded
// exponent* (IEEE's "after rounding" rule, measured on sm_90): (1 - 2^-24) * 2^-126 rounds to
// 2^-126 but is flushed, while 2^-126 - 2^-152 (from an fma) is kept. Only a rounded result of
// exactly +-2^-126 needs the exact value v to decide; fp::tinyAfterRoundingF32 does that.
constexpr float kMinNormal = 0x1p-126f;

inline float flushTiny(float r, fp::RMode m, double exact) {
  const float ar = std::fabs(r);
  if (ar < kMinNormal || (ar == kMinNormal && fp::tinyAfterRoundingF32(exact, m))) return std::copysign(0.0f, r);
  return r;
}

// Operation functors (same code for float and double). exact(a, b): the exact f32 result, or a
// double that compares with the tininess thresholds as it would (asked only at +-2^-126).
struct OAdd {
  static constexpr bool kDividendFirst = false;  // f64 NaN precedence: b, then a
  template <class T> static T f(T a, T b) { return a + b; }
  static double exact(float a, float b) { return double(a) + double(b); }  // exact near 2^-126
};
struct OSub {
  static constexpr bool kDividendFirst = false;
  template <class T> static T f(T a, T b) { return a - b; }
  static double exact(float a, float b) { return double(a) - double(b); }
};
struct OMul {
  static constexpr bool kDividendFirst = false;
  template <class T> static T f(T a, T b) { return a * b; }
  static double exact(float a, float b) { return double(a) * double(b); }  // exact
};
struct ODiv {
  static constexpr bool kDividendFirst = true;  // f64 NaN precedence: a, then b
  template <class T> static T f(T a, T b) { return a / b; }
  // Not exact, but a quotient of floats is never within a double ulp of a threshold it differs
  // from, so the comparisons come out the same.
  static double exact(float a, float b) { return double(a) / double(b); }
};
// Unary functors; exact(a) is the (near-)exact f32 result for the tininess decision.
struct ORcp {
  template <class T> static T f(T a) { return T(1) / a; }
  static double exact(float a) { return 1.0 / double(a); }
};
struct OSqrt {
  template <class T> static T f(T a) { return std::sqrt(a); }
  static double exact(float a) { return std::sqrt(double(a)); }
};
struct ORsqrt {
  static float f(float a) { return float(1.0 / std::sqrt(double(a))); }
  static double f(double a) { return double(1.0L / std::sqrt(static_cast<long double>(a))); }
  static double exact(float a) { return 1.0 / std::sqrt(double(a)); }
};
struct OSin {
  static float f(float a) { return std::sin(a); }
  static double exact(float a) { return f(a); }
};
struct OCos {
  static float f(float a) { return std::cos(a); }
  static double exact(float a) { return f(a); }
};
struct OLg2 {
  static float f(float a) { return std::log2(a); }
  static double exact(float a) { return f(a); }
};
struct OEx2 {
  static float f(float a) { return std::exp2(a); }
  static double exact(float a) { return std::exp2(double(a)); }
};
struct OTanh {
  static float f(float a) { return std::tanh(a); }
  static double exact(float a) { return f(a); }
};

// ---------------------------------------------------------------------------------------------
// f32 handlers

template <class O, bool Ftz, bool Sat>
void f32Bin(ExecContext& c, const DecodedInst& in) {
  const fp::RMode m = fp::rmodeOf(in.round);
  map2<float, float, float>(c, in, [m](float a, float b) {
    if (Ftz) {
      a = ftz(a);
      b = ftz(b);
    }
    float r = O::f(a, b);
    if (Ftz) r = flushTiny(r, m, std::fabs(r) == kMinNormal ? O::exact(a, b) : 0.0);
    if (Sat) r = sat01(r);
    return canon(r);
  });
}
template <class O, bool Ftz, bool Sat>
void f32BinDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f32Bin<O, Ftz, Sat>(c, in);
}

// The exact a*b + c rounded to odd (so it compares with the thresholds like the exact value);
// exact in round-to-nearest, approximate within a double ulp under a directed host mode.
inline double fmaExact(float a, float b, float c) {
  const double p = double(a) * double(b);
  const double s = p + double(c);
  return fp::toOdd(s, fp::twoSumErr(p, c, s));
}

template <bool Ftz, bool Sat>
void f32Fma(ExecContext& c, const DecodedInst& in) {
  const fp::RMode m = fp::rmodeOf(in.round);
  map3<float, float, float, float>(c, in, [m](float a, float b, float s) {
    if (Ftz) {
      a = ftz(a);
      b = ftz(b);
      s = ftz(s);
    }
    float r = std::fma(a, b, s);
    if (Ftz) r = flushTiny(r, m, std::fabs(r) == kMinNormal ? fmaExact(a, b, s) : 0.0);
    if (Sat) r = sat01(r);
    return canon(r);
  });
}
template <bool Ftz, bool Sat>
void f32FmaDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f32Fma<Ftz, Sat>(c, in);
}

template <class O, bool Ftz>
void f32Un(ExecContext& c, const DecodedInst& in) {
  const fp::RMode m = fp::rmodeOf(in.round);
  map1<float, float>(c, in, [m](float a) {
    if (Ftz) a = ftz(a);
    float r = O::f(a);
    if (Ftz) r = flushTiny(r, m, std::fabs(r) == kMinNormal ? O::exact(a) : 0.0);
    return canon(r);
  });
}
template <class O, bool Ftz>
void f32UnDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f32Un<O, Ftz>(c, in);
}

// 1/b rounded to 24 significant bits but without the f32 exponent range, as a double. With
// Flush, a reciprocal below 2^-126 (|b| > 2^126) is zero, as div.approx specifies.
template <bool Flush>
inline double rcp24(float b) {
  const float m = std::fabs(b);
  if (m >= kMinNormal && m <= 0x1p126f) return 1.0f / b;
  if (m > 0x1p126f) {  // including infinity
    if (Flush) return std::copysign(0.0, double(b));
    return double(float((1.0 / double(b)) * 0x1p64)) * 0x1p-64;
  }
  if (m == 0.0f || m != m) return 1.0 / double(b);
  return double(float((1.0 / double(b)) * 0x1p-64)) * 0x1p64;  // subnormal b
}

// div.approx.f32 and div.full.f32: a * (1/b) with the reciprocal rounded to f32 precision and
// the product rounded once (as measured: 3/7 gives 0x3EDB6DB8, the IEEE quotient is ...B7).
// .approx flushes reciprocals below 2^-126 (|b| > 2^126 gives 0); .full covers the full range.
template <bool Full, bool Ftz>
void f32DivFast(ExecContext& c, const DecodedInst& in) {
  map2<float, float, float>(c, in, [](float a, float b) {
    if (Ftz) {
      a = ftz(a);
      b = ftz(b);
    }
    const double p = double(a) * rcp24<!Full>(b);  // exact
    float q = float(p);
    if (Ftz) q = flushTiny(q, fp::RMode::Rn, p);
    return canon(q);
  });
}

// abs/neg: sign-bit operations; a NaN gives the canonical NaN (as the GPU does).
template <bool Neg, bool Ftz>
void f32AbsNeg(ExecContext& c, const DecodedInst& in) {
  map1<std::uint32_t, float>(c, in, [](float a) {
    if (a != a) return fp::kCanonNaN32;
    if (Ftz) a = ftz(a);
    return Neg ? (fp::bits(a) ^ 0x80000000u) : (fp::bits(a) & 0x7FFFFFFFu);
  });
}

// min/max: a NaN operand is ignored; both NaN gives the canonical NaN (f32) or operand b
// quieted (f64); .NaN: any NaN gives the canonical NaN; -0 is less than +0.
template <class T, bool Max, bool NaNMode>
inline T minMaxF(T a, T b) {
  const bool na = a != a, nb = b != b;
  if (na || nb) {
    if (NaNMode || (na && nb)) {
      if constexpr (sizeof(T) == 4) return fp::canonNaN32();
      else return fp::quiet(nb ? b : a);
    }
    return na ? b : a;
  }
  if (a == b) {  // equal values; only the signs of zeros may differ
    if constexpr (sizeof(T) == 4) {
      const std::uint32_t ua = fp::bits(a), ub = fp::bits(b);
      return fp::f32(Max ? (ua & ub) : (ua | ub));
    } else {
      const std::uint64_t ua = fp::bits(a), ub = fp::bits(b);
      return fp::f64(Max ? (ua & ub) : (ua | ub));
    }
  }
  return Max ? (a > b ? a : b) : (a < b ? a : b);
}

template <bool Max, bool NaNMode, bool Ftz>
void f32MinMax(ExecContext& c, const DecodedInst& in) {
  map2<float, float, float>(c, in, [](float a, float b) {
    if (Ftz) {
      a = ftz(a);
      b = ftz(b);
    }
    return minMaxF<float, Max, NaNMode>(a, b);
  });
}

// copysign d, a, b: the value of b with the sign of a (a pure bit operation, NaNs included).
template <class UI>
void copysignH(ExecContext& c, const DecodedInst& in) {
  constexpr UI kSign = UI(1) << (sizeof(UI) * 8 - 1);
  map2<UI, UI, UI>(c, in, [](UI a, UI b) { return UI((b & ~kSign) | (a & kSign)); });
}

// testp: as measured on the GPU, .normal is true for zeros too (finite and not subnormal).
template <class T, SubOp S>
void testp(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  std::uint32_t r = 0;
  forLanes(c.mask, [&](int l) {
    const T v = as<T>(a[l]);
    const bool sub = std::fpclassify(v) == FP_SUBNORMAL;
    bool t;
    if constexpr (S == SubOp::TestFinite) t = std::isfinite(v);
    else if constexpr (S == SubOp::TestInfinite) t = std::isinf(v);
    else if constexpr (S == SubOp::TestNumber) t = !std::isnan(v);
    else if constexpr (S == SubOp::TestNotANumber) t = std::isnan(v);
    else if constexpr (S == SubOp::TestNormal) t = std::isfinite(v) && !sub;
    else t = sub;
    r |= std::uint32_t(t) << l;
  });
  writePred(c, in.dst[0], r);
}

// ---------------------------------------------------------------------------------------------
// f64 handlers (NaN results: fp::nanOf)

// Whether a warp's results hold a NaN. A loop of its own: folded into the arithmetic loop, the
// test kept that loop from vectorising.
inline bool anyNaN(const double (&r)[kWarpSize]) {
  std::uint64_t nan = 0;
  for (int l = 0; l < kWarpSize; ++l) nan |= std::uint64_t(r[l] != r[l]);
  return nan != 0;
}

// Every lane computed first, into a local array (a destination may alias a source), and a NaN
// result's operands looked at only when there is one: the arithmetic loop has no branch and
// vectorises.
template <class O>
void f64Bin(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  double r[kWarpSize];
  for (int l = 0; l < kWarpSize; ++l) r[l] = O::f(as<double>(a[l]), as<double>(b[l]));
  if (anyNaN(r))
    for (int l = 0; l < kWarpSize; ++l) {
      if (r[l] == r[l]) continue;
      const double x = as<double>(a[l]), y = as<double>(b[l]);
      r[l] = O::kDividendFirst ? fp::nanOf(x, y) : fp::nanOf(y, x);
    }
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int l) { d[l] = bitsOf<double>(r[l]); });
}
template <class O>
void f64BinDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f64Bin<O>(c, in);
}
void f64Fma(ExecContext& c, const DecodedInst& in) {
  map3<double, double, double, double>(c, in, [](double a, double b, double s) {
    const double r = std::fma(a, b, s);
    return r == r ? r : fp::nanOf(b, s, a);
  });
}
void f64FmaDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f64Fma(c, in);
}

// fma.rn.f32 (no .ftz, .sat) and fma.rn.f64 on the host's FMA unit, where it has one (chosen at
// decode time, so that the build still runs on any x86-64). Without -mfma, std::fma is a libm
// call per lane; compiled for FMA and AVX2 it is one instruction and the lane loop vectorises.
// The same IEEE fused multiply-add, so the same bits. The results go through a local array: a
// destination may alias a source, and an f64 NaN result needs its lane's operands (fp::nanOf).
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2,fma")]] void f32FmaHost(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  const std::uint64_t* s = lanes(c, in.src[2]);
  std::uint64_t r[kWarpSize];
  for (int l = 0; l < kWarpSize; ++l)
    r[l] = bitsOf<float>(canon(__builtin_fmaf(as<float>(a[l]), as<float>(b[l]), as<float>(s[l]))));
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int l) { d[l] = r[l]; });
}
[[gnu::target("avx2,fma")]] void f64FmaHost(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  const std::uint64_t* s = lanes(c, in.src[2]);
  double r[kWarpSize];
  for (int l = 0; l < kWarpSize; ++l) r[l] = __builtin_fma(as<double>(a[l]), as<double>(b[l]), as<double>(s[l]));
  if (anyNaN(r))
    for (int l = 0; l < kWarpSize; ++l)
      if (r[l] != r[l]) r[l] = fp::nanOf(as<double>(b[l]), as<double>(s[l]), as<double>(a[l]));
  std::uint64_t* d = lanes(c, in.dst[0]);
  forLanes(c.mask, [&](int l) { d[l] = bitsOf<double>(r[l]); });
}
bool use_host_fma = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
#else
bool use_host_fma = false;
#endif
template <class O>
void f64Un(ExecContext& c, const DecodedInst& in) {
  map1<double, double>(c, in, [](double a) {
    const double r = O::f(a);
    return r == r ? r : fp::nanOf(a);
  });
}
template <class O>
void f64UnDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f64Un<O>(c, in);
}
// rcp.approx.ftz.f64, rsqrt.approx.ftz.f64: the GPU (MUFU.RCP64H/RSQ64H) reads only the upper 32
// bits of the operand and produces only the upper 32 bits of the result; this keeps the upper
// 32 bits of the exact value for that operand (the GPU's, or one or two units of bit 32 away).
// Subnormals flush to zero; NaN gives 0x7FFFFFFF00000000.
template <class O>
void f64ApproxFtz(ExecContext& c, const DecodedInst& in) {
  map1<double, double>(c, in, [](double a) {
    a = ftz(fp::f64(fp::bits(a) & 0xFFFFFFFF00000000ull));
    double r = O::f(a);
    if (r != r) return fp::f64(0x7FFFFFFF00000000ull);
    r = ftz(r);
    return fp::f64(fp::bits(r) & 0xFFFFFFFF00000000ull);
  });
}
template <bool Neg>
void f64AbsNeg(ExecContext& c, const DecodedInst& in) {
  map1<double, double>(c, in, [](double a) {
    if (a != a) return fp::quiet(a);
    return fp::f64(Neg ? (fp::bits(a) ^ 0x8000000000000000ull) : (fp::bits(a) & 0x7FFFFFFFFFFFFFFFull));
  });
}
template <bool Max>
void f64MinMax(ExecContext& c, const DecodedInst& in) {
  map2<double, double, double>(c, in, [](double a, double b) { return minMaxF<double, Max, false>(a, b); });
}

// ---------------------------------------------------------------------------------------------
// Selection

bool isFpRound(Round r) { return r == Round::None || r == Round::Rn || r == Round::Rz || r == Round::Rm || r == Round::Rp; }
bool isDirected(Round r) { return r == Round::Rz || r == Round::Rm || r == Round::Rp; }

template <class O>
ExecFn pickF32Bin(bool ftz, bool sat, bool dir) {
  if (dir) {
    if (ftz) return sat ? &f32BinDir<O, true, true> : &f32BinDir<O, true, false>;
    return sat ? &f32BinDir<O, false, true> : &f32BinDir<O, false, false>;
  }
  if (ftz) return sat ? &f32Bin<O, true, true> : &f32Bin<O, true, false>;
  return sat ? &f32Bin<O, false, true> : &f32Bin<O, false, false>;
}
template <class O>
ExecFn pickF32Un(bool ftz, bool dir) {
  if (dir) return ftz ? &f32UnDir<O, true> : &f32UnDir<O, false>;
  return ftz ? &f32Un<O, true> : &f32Un<O, false>;
}
template <bool Max>
ExecFn pickF32MinMax(bool nan, bool ftz) {
  if (nan) return ftz ? &f32MinMax<Max, true, true> : &f32MinMax<Max, true, false>;
  return ftz ? &f32MinMax<Max, false, true> : &f32MinMax<Max, false, false>;
}
template <class T>
ExecFn pickTestp(SubOp s) {
  switch (s) {
    case SubOp::TestFinite: return &testp<T, SubOp::TestFinite>;
    case SubOp::TestInfinite: return &testp<T, SubOp::TestInfinite>;
    case SubOp::TestNumber: return &testp<T, SubOp::TestNumber>;
    case SubOp::TestNotANumber: return &testp<T, SubOp::TestNotANumber>;
    case SubOp::TestNormal: return &testp<T, SubOp::TestNormal>;
    case SubOp::TestSubnormal: return &testp<T, SubOp::TestSubnormal>;
    default: return nullptr;
  }
}

ExecFn selectF32(const DecodedInst& in) {
  const bool ftz = in.flags & ptx::kFtz, sat = in.flags & ptx::kSat;
  const bool approx = in.flags & ptx::kApprox;
  const bool dir = isDirected(in.round);
  switch (in.op) {
    case Op::Add:
      if (!isFpRound(in.round)) return nullptr;
      return pickF32Bin<OAdd>(ftz, sat, dir);
    case Op::Sub:
      if (!isFpRound(in.round)) return nullptr;
      return pickF32Bin<OSub>(ftz, sat, dir);
    case Op::Mul:
      if (!isFpRound(in.round)) return nullptr;
      return pickF32Bin<OMul>(ftz, sat, dir);
    case Op::Fma:
    case Op::Mad:
      if (!isFpRound(in.round)) return nullptr;
      if (dir) {
        if (ftz) return sat ? &f32FmaDir<true, true> : &f32FmaDir<true, false>;
        return sat ? &f32FmaDir<false, true> : &f32FmaDir<false, false>;
      }
      if (ftz) return sat ? &f32Fma<true, true> : &f32Fma<true, false>;
      if (sat) return &f32Fma<false, true>;
      return use_host_fma ? &f32FmaHost : &f32Fma<false, false>;
    case Op::Div:
      if (sat) return nullptr;
      if (approx) return ftz ? &f32DivFast<false, true> : &f32DivFast<false, false>;
      if (in.flags & ptx::kFull) return ftz ? &f32DivFast<true, true> : &f32DivFast<true, false>;
      if (!isFpRound(in.round)) return nullptr;
      return pickF32Bin<ODiv>(ftz, false, dir);
    case Op::Rcp:
      if (approx) return ftz ? &f32Un<ORcp, true> : &f32Un<ORcp, false>;
      if (!isFpRound(in.round)) return nullptr;
      return pickF32Un<ORcp>(ftz, dir);
    case Op::Sqrt:
      if (approx) return ftz ? &f32Un<OSqrt, true> : &f32Un<OSqrt, false>;
      if (!isFpRound(in.round)) return nullptr;
      return pickF32Un<OSqrt>(ftz, dir);
    case Op::Rsqrt: return ftz ? &f32Un<ORsqrt, true> : &f32Un<ORsqrt, false>;
    case Op::Sin: return ftz ? &f32Un<OSin, true> : &f32Un<OSin, false>;
    case Op::Cos: return ftz ? &f32Un<OCos, true> : &f32Un<OCos, false>;
    case Op::Lg2: return ftz ? &f32Un<OLg2, true> : &f32Un<OLg2, false>;
    case Op::Ex2: return ftz ? &f32Un<OEx2, true> : &f32Un<OEx2, false>;
    case Op::Tanh: return ftz ? &f32Un<OTanh, true> : &f32Un<OTanh, false>;
    case Op::Abs: return ftz ? &f32AbsNeg<false, true> : &f32AbsNeg<false, false>;
    case Op::Neg: return ftz ? &f32AbsNeg<true, true> : &f32AbsNeg<true, false>;
    case Op::Min: return pickF32MinMax<false>(in.flags & ptx::kNaN, ftz);
    case Op::Max: return pickF32MinMax<true>(in.flags & ptx::kNaN, ftz);
    case Op::Copysign: return &copysignH<std::uint32_t>;
    case Op::Testp: return pickTestp<float>(in.sub);
    default: return nullptr;
  }
}

ExecFn selectF64(const DecodedInst& in) {
  const bool approx = in.flags & ptx::kApprox, ftz = in.flags & ptx::kFtz;
  const bool dir = isDirected(in.round);
  if (in.flags & ptx::kSat) return nullptr;
  switch (in.op) {
    case Op::Add:
      if (!isFpRound(in.round)) return nullptr;
      return dir ? &f64BinDir<OAdd> : &f64Bin<OAdd>;
    case Op::Sub:
      if (!isFpRound(in.round)) return nullptr;
      return dir ? &f64BinDir<OSub> : &f64Bin<OSub>;
    case Op::Mul:
      if (!isFpRound(in.round)) return nullptr;
      return dir ? &f64BinDir<OMul> : &f64Bin<OMul>;
    case Op::Div:
      if (!isFpRound(in.round) || approx) return nullptr;
      return dir ? &f64BinDir<ODiv> : &f64Bin<ODiv>;
    case Op::Fma:
    case Op::Mad:
      if (!isFpRound(in.round)) return nullptr;
      if (dir) return &f64FmaDir;
      return use_host_fma ? &f64FmaHost : &f64Fma;
    case Op::Rcp:
      if (approx) return &f64ApproxFtz<ORcp>;  // rcp.approx.ftz.f64
      if (!isFpRound(in.round)) return nullptr;
      return dir ? &f64UnDir<ORcp> : &f64Un<ORcp>;
    case Op::Sqrt:
      if (approx || !isFpRound(in.round)) return nullptr;
      return dir ? &f64UnDir<OSqrt> : &f64Un<OSqrt>;
    case Op::Rsqrt: return ftz ? &f64ApproxFtz<ORsqrt> : &f64Un<ORsqrt>;
    case Op::Abs: return &f64AbsNeg<false>;
    case Op::Neg: return &f64AbsNeg<true>;
    case Op::Min: return (in.flags & ptx::kNaN) ? nullptr : &f64MinMax<false>;
    case Op::Max: return (in.flags & ptx::kNaN) ? nullptr : &f64MinMax<true>;
    case Op::Copysign: return &copysignH<std::uint64_t>;
    case Op::Testp: return pickTestp<double>(in.sub);
    default: return nullptr;
  }
}

}  // namespace

bool useHostFma(bool on) {
#if defined(__x86_64__) && defined(__GNUC__)
  use_host_fma = on && __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
#endif
  return use_host_fma;
}

ExecFn selectFloatHandler(const DecodedInst& in) {
  if (in.type == Type::F32) return selectF32(in);
  if (in.type == Type::F64) return selectF64(in);
  return nullptr;
}

}  // namespace scgpu::sm::alu
