// f32 and f64 instructions: add/sub/mul/fma/mad with .rn/.rz/.rm/.rp, .ftz and .sat; div
// (.approx, .full, IEEE), rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh; abs, neg, min, max (.NaN),
// copysign and testp.
//
// Round-to-nearest is the host's default mode and takes the plain path. A directed mode sets the
// host rounding mode once per warp instruction (fp::ScopedRounding), so every lane gets the
// exactly rounded IEEE result. f32 results that are NaN become the canonical NaN 0x7FFFFFFF, as
// on the GPU; .ftz flushes f32 subnormal inputs and results to zeros of the same sign; .sat
// clamps to [0, 1] with NaN giving +0.
//
// The .approx transcendental functions use the C library in f32 (sinf, cosf, log2f, exp2f,
// tanhf: within 1-2 ulp of the exact value, hence at least as accurate as the GPU's MUFU
// results, which are documented with errors of 2^-20.5 absolute (sin/cos), 2^-22 relative
// (lg2/ex2) and 2^-11 relative (tanh)); the results are therefore not bit-identical to hardware.
// rcp.approx/sqrt.approx/rsqrt.approx/div.approx/div.full return correctly rounded values.
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
// Operation functors (same code for float and double). tiny(a, b): whether the exact f32 result
// is below 2^-126 in magnitude, asked only when the rounded result is exactly +-2^-126 (.ftz
// detects tininess before rounding, so a result rounded up to the smallest normal is flushed).
constexpr float kMinNormal = 0x1p-126f;

struct OAdd {
  template <class T> static T f(T a, T b) { return a + b; }
  static bool tiny(float, float) { return false; }  // sums of normals are exact below 2^-126
};
struct OSub {
  template <class T> static T f(T a, T b) { return a - b; }
  static bool tiny(float, float) { return false; }
};
struct OMul {
  template <class T> static T f(T a, T b) { return a * b; }
  static bool tiny(float a, float b) { return std::fabs(double(a) * double(b)) < 0x1p-126; }
};
struct ODiv {
  template <class T> static T f(T a, T b) { return a / b; }
  static bool tiny(float a, float b) { return std::fabs(double(a) / double(b)) < 0x1p-126; }
};
struct ORcp { template <class T> static T f(T a) { return T(1) / a; } };
struct OSqrt { template <class T> static T f(T a) { return std::sqrt(a); } };
struct ORsqrt {
  static float f(float a) { return float(1.0 / std::sqrt(double(a))); }
  static double f(double a) { return double(1.0L / std::sqrt(static_cast<long double>(a))); }
};
struct OSin { static float f(float a) { return std::sin(a); } };
struct OCos { static float f(float a) { return std::cos(a); } };
struct OLg2 { static float f(float a) { return std::log2(a); } };
struct OEx2 { static float f(float a) { return std::exp2(a); } };
struct OTanh { static float f(float a) { return std::tanh(a); } };

inline float flushTiny(float r, bool tinyAtBoundary) {
  const float m = std::fabs(r);
  return (m < kMinNormal || (m == kMinNormal && tinyAtBoundary)) ? std::copysign(0.0f, r) : r;
}

// ---------------------------------------------------------------------------------------------
// f32 handlers

template <class O, bool Ftz, bool Sat>
void f32Bin(ExecContext& c, const DecodedInst& in) {
  map2<float, float, float>(c, in, [](float a, float b) {
    if (Ftz) {
      a = ftz(a);
      b = ftz(b);
    }
    float r = O::f(a, b);
    if (Ftz) r = flushTiny(r, std::fabs(r) == kMinNormal && O::tiny(a, b));
    if (Sat) r = sat01(r);
    return canon(r);
  });
}
template <class O, bool Ftz, bool Sat>
void f32BinDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f32Bin<O, Ftz, Sat>(c, in);
}

// Whether a*b+c (exact) is below 2^-126 in magnitude, given the rounded result is +-2^-126.
inline bool fmaTiny(float a, float b, float c) {
  const double p = double(a) * double(b);  // exact
  const double s = p + double(c);
  const double e = fp::twoSumErr(p, c, s);
  const double m = std::fabs(s);
  return m < 0x1p-126 || (m == 0x1p-126 && (s > 0 ? e < 0 : e > 0));
}

template <bool Ftz, bool Sat>
void f32Fma(ExecContext& c, const DecodedInst& in) {
  map3<float, float, float, float>(c, in, [](float a, float b, float s) {
    if (Ftz) {
      a = ftz(a);
      b = ftz(b);
      s = ftz(s);
    }
    float r = std::fma(a, b, s);
    if (Ftz) r = flushTiny(r, std::fabs(r) == kMinNormal && fmaTiny(a, b, s));
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
  map1<float, float>(c, in, [](float a) {
    if (Ftz) a = ftz(a);
    float r = O::f(a);
    if (Ftz) r = ftz(r);
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
  if (m >= kMinNormal && m < 0x1p126f) return 1.0f / b;
  if (m >= 0x1p126f) {  // including infinity
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
    if (Ftz) q = flushTiny(q, std::fabs(p) < 0x1p-126);
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

template <class O>
void f64Bin(ExecContext& c, const DecodedInst& in) {
  map2<double, double, double>(c, in, [](double a, double b) {
    const double r = O::f(a, b);
    return r == r ? r : fp::nanOf(a, b);
  });
}
template <class O>
void f64BinDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f64Bin<O>(c, in);
}
void f64Fma(ExecContext& c, const DecodedInst& in) {
  map3<double, double, double, double>(c, in, [](double a, double b, double s) {
    const double r = std::fma(a, b, s);
    return r == r ? r : fp::nanOf(a, b, s);
  });
}
void f64FmaDir(ExecContext& c, const DecodedInst& in) {
  fp::ScopedRounding g(fp::rmodeOf(in.round));
  f64Fma(c, in);
}
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
// rcp.approx.ftz.f64, rsqrt.approx.ftz.f64: as measured, the result keeps the upper 32 bits of
// the exact reciprocal (square root) and zeroes the lower 32; subnormals flush to zero.
template <class O>
void f64ApproxFtz(ExecContext& c, const DecodedInst& in) {
  map1<double, double>(c, in, [](double a) {
    a = ftz(a);
    double r = O::f(a);
    if (r != r) return fp::nanOf(a);
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
      return sat ? &f32Fma<false, true> : &f32Fma<false, false>;
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
      return dir ? &f64FmaDir : &f64Fma;
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

ExecFn selectFloatHandler(const DecodedInst& in) {
  if (in.type == Type::F32) return selectF32(in);
  if (in.type == Type::F64) return selectF64(in);
  return nullptr;
}

}  // namespace scgpu::sm::alu
