// Conversions and moves: cvt between u8..u64, s8..s64, f16, bf16, f32, f64 (and f32 -> tf32,
// f32 pairs -> f16x2/bf16x2), cvt.pack.sat, and mov (scalar, predicate, vector pack/unpack).
//
// cvt semantics (PTX ISA 8.x):
//  - int -> int: truncation or sign/zero extension by the source type; .sat clamps to the
//    destination range. A signed result is written sign-extended to the whole register slot
//    (map1Widen), so a narrow signed cvt into a wider register reads back as on the GPU.
//  - float -> int: .rni/.rzi/.rmi/.rpi (none given: .rzi); always saturating to the destination
//    range; NaN gives 0 (or the sign bit, see cvtFI); .ftz flushes an f32 subnormal source first.
//  - int -> float: .rn/.rz/.rm/.rp, exact for every 64-bit value (fp::roundPack).
//  - float -> float: widening is exact; narrowing rounds once with the mode (no double rounding:
//    the source is held exactly in a double and rounded straight to the target format); the
//    same type with .rni/.rzi/.rmi/.rpi rounds to an integral value. .ftz flushes f32 subnormal
//    sources (not when converting to f16, as measured) and tiny f32 results; .sat clamps to
//    [0, 1] (NaN -> +0); .relu (f16/bf16/tf32) clamps negative results and -0 to +0 and keeps
//    NaN (canonical). NaN results are as the GPU gives them (see cvtNaN).
//
// Where the ISA leaves a result open (NaN payloads, NaN -> integer), the behaviour was measured
// on an H100 (sm_90).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "sm/exec/alu.h"
#include "sm/exec/float_util.h"

namespace scgpu::sm::alu {
namespace {

using fp::RMode;
using ptx::DecodedInst;
using ptx::ExecFn;
using ptx::Op;
using ptx::Round;
using ptx::Type;

__extension__ typedef __int128 i128;

// ---------------------------------------------------------------------------------------------
// mov

template <class T>
void movScalar(ExecContext& c, const DecodedInst& in) {
  map1<T, T>(c, in, [](T a) { return a; });
}

void movPred(ExecContext& c, const DecodedInst& in) {
  const std::uint32_t a = c.P[in.src[0]] ^ ((in.flags & ptx::kNegPredSrc0) ? ~0u : 0u);
  writePred(c, in.dst[0], a);
}

// mov.bN d, {e0, e1, ...}: e0 is the least significant element.
template <class T, class E, int N>
void movPack(ExecContext& c, const DecodedInst& in) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* s[N];
  for (int i = 0; i < N; ++i) s[i] = lanes(c, in.src[i]);
  forLanes(c.mask, [&](int l) {
    T v = 0;
    for (int i = 0; i < N; ++i) v = T(v | (T(as<E>(s[i][l])) << (i * int(sizeof(E)) * 8)));
    d[l] = bitsOf<T>(v);
  });
}

// mov.bN {e0, e1, ...}, a: e0 receives the least significant element; `_` elements are skipped.
template <class T, class E, int N>
void movUnpack(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  std::uint64_t* d[N];
  for (int i = 0; i < N; ++i) d[i] = in.dst[i] == ptx::kNoSlot ? nullptr : lanes(c, in.dst[i]);
  forLanes(c.mask, [&](int l) {
    const T v = as<T>(a[l]);
    for (int i = 0; i < N; ++i)
      if (d[i]) d[i][l] = bitsOf<E>(E(v >> (i * int(sizeof(E)) * 8)));
  });
}

template <class T>
ExecFn pickMovVector(int n, bool pack) {
  if constexpr (sizeof(T) == 8) {
    if (n == 2) return pack ? &movPack<T, std::uint32_t, 2> : &movUnpack<T, std::uint32_t, 2>;
    if (n == 4) return pack ? &movPack<T, std::uint16_t, 4> : &movUnpack<T, std::uint16_t, 4>;
  } else if constexpr (sizeof(T) == 4) {
    if (n == 2) return pack ? &movPack<T, std::uint16_t, 2> : &movUnpack<T, std::uint16_t, 2>;
    if (n == 4) return pack ? &movPack<T, std::uint8_t, 4> : &movUnpack<T, std::uint8_t, 4>;
  } else if constexpr (sizeof(T) == 2) {
    if (n == 2) return pack ? &movPack<T, std::uint8_t, 2> : &movUnpack<T, std::uint8_t, 2>;
  }
  return nullptr;
}

template <class F>
ExecFn byWidth(Type t, F&& f) {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: case Type::E4M3: case Type::E5M2:
      return f(Tag<std::uint8_t>{});
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16:
    case Type::E4M3x2: case Type::E5M2x2:
      return f(Tag<std::uint16_t>{});
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2:
    case Type::BF16x2: case Type::TF32:
      return f(Tag<std::uint32_t>{});
    case Type::B64: case Type::U64: case Type::S64: case Type::F64:
      return f(Tag<std::uint64_t>{});
    default: return nullptr;
  }
}

ExecFn selectMov(const DecodedInst& in) {
  if (in.type == Type::Pred) return (in.ndst <= 1 && in.nsrc <= 1) ? &movPred : nullptr;
  if (in.nsrc > 1 && in.ndst > 1) return nullptr;
  if (in.nsrc > 1 || in.ndst > 1) {
    const bool pack = in.nsrc > 1;
    const int n = pack ? in.nsrc : in.ndst;
    return byWidth(in.type, [&](auto tag) -> ExecFn { return pickMovVector<typename decltype(tag)::type>(n, pack); });
  }
  return byWidth(in.type, [](auto tag) -> ExecFn { return &movScalar<typename decltype(tag)::type>; });
}

// ---------------------------------------------------------------------------------------------
// Float formats as cvt sources (exact value as a double) and destinations.

struct KF16 {
  static constexpr bool kIsF32 = false, kReluOk = true;
  using Bits = std::uint16_t;
  using F = fp::FmtF16;
  static double get(std::uint64_t b) { return fp::halfToDouble(std::uint16_t(b)); }
  static Bits nan() { return fp::kCanonNaN16; }
  template <bool Dir>
  static Bits enc(double x, RMode m) {
    if constexpr (Dir) return Bits(fp::fromDouble<F>(x, m, nan()));
    else return fp::toHalfRn<F>(x);
  }
};
struct KBF16 {
  static constexpr bool kIsF32 = false, kReluOk = true;
  using Bits = std::uint16_t;
  using F = fp::FmtBF16;
  static double get(std::uint64_t b) { return fp::bf16ToFloat(std::uint16_t(b)); }
  static Bits nan() { return fp::kCanonNaNBF16; }
  template <bool Dir>
  static Bits enc(double x, RMode m) {
    if constexpr (Dir) return Bits(fp::fromDouble<F>(x, m, nan()));
    else return fp::toHalfRn<F>(x);
  }
};
struct KTF32 {  // destination only: an f32 bit pattern with the low 13 bits zero
  static constexpr bool kIsF32 = false;
  using Bits = std::uint32_t;
  using F = fp::FmtTF32;
  static Bits nan() { return fp::kCanonNaN32; }
  template <bool Dir>
  static Bits enc(double x, RMode m) { return Bits(fp::fromDouble<F>(x, Dir ? m : RMode::Rn, 0) << 13); }
};
struct KF32 {
  static constexpr bool kIsF32 = true, kReluOk = false;
  using Bits = std::uint32_t;
  using F = fp::FmtF32;
  static double get(std::uint64_t b) { return as<float>(b); }
  static Bits nan() { return fp::kCanonNaN32; }
  template <bool Dir>
  static Bits enc(double x, RMode m) {
    if constexpr (Dir) return Bits(fp::fromDouble<F>(x, m, nan()));
    else return fp::bits(float(x));
  }
};
struct KF64 {
  static constexpr bool kIsF32 = false, kReluOk = false;
  using Bits = std::uint64_t;
  using F = fp::FmtF64;
  static double get(std::uint64_t b) { return as<double>(b); }
  template <bool Dir>
  static Bits enc(double x, RMode) { return fp::bits(x); }  // only used when exact
};

// The NaN a conversion produces from a NaN source (measured on sm_90): f16/bf16 destinations get
// the canonical 0x7FFF except from f64, which like f64 -> f32 keeps the sign and the leading
// payload bits (quieted); widening to f64 keeps the payload; f16 -> f32 gives 0x7FFFFFFF while
// bf16 -> f32 is a plain shift; f32 -> f32 and f64 -> f64 are unchanged; f32 -> tf32 clears the
// low 13 bits. Canon (.ftz, .relu, or rounding to an integral value) makes an f32/bf16 source
// the canonical f32 NaN first (and quiets an f64 one).
template <class DK, class SK, bool Canon>
typename DK::Bits cvtNaN(std::uint64_t b) {
  using Bits = typename DK::Bits;
  if constexpr (std::is_same_v<DK, KF64>) {
    if constexpr (std::is_same_v<SK, KF64>) return Canon ? (b | 0x0008000000000000ull) : b;
    if constexpr (Canon && (std::is_same_v<SK, KF32> || std::is_same_v<SK, KBF16>)) return 0x7FFFFFFFE0000000ull;
    const std::uint64_t q = 0x7FF8000000000000ull;
    if constexpr (std::is_same_v<SK, KF32>)
      return (std::uint64_t(b & 0x80000000u) << 32) | q | (std::uint64_t(b & 0x7FFFFFu) << 29);
    else if constexpr (std::is_same_v<SK, KF16>)
      return (std::uint64_t(b & 0x8000u) << 48) | q | (std::uint64_t(b & 0x3FFu) << 42);
    else
      return (std::uint64_t(b & 0x8000u) << 48) | q | (std::uint64_t(b & 0x7Fu) << 45);
  } else if constexpr (std::is_same_v<DK, KTF32>) {
    return Bits(b & 0xFFFFE000u);
  } else if constexpr (std::is_same_v<SK, KF64>) {
    using F = typename DK::F;
    const std::uint64_t sign = (b >> 63) ? F::kSignBit : 0;
    return Bits(sign | F::kExpMask | (1ull << (F::kMant - 1)) | ((b & ((1ull << 52) - 1)) >> (52 - F::kMant)));
  } else if constexpr (std::is_same_v<DK, KF32>) {
    if constexpr (std::is_same_v<SK, KF32>) return Canon ? fp::kCanonNaN32 : Bits(b);
    else if constexpr (std::is_same_v<SK, KBF16>) return Canon ? fp::kCanonNaN32 : Bits((b & 0xFFFFu) << 16);
    else return fp::kCanonNaN32;
  } else {
    return DK::nan();
  }
}

// Destination DK holds every value of source SK exactly.
template <class DK, class SK>
constexpr bool kExact = std::is_same_v<DK, SK> || std::is_same_v<DK, KF64> ||
                        (std::is_same_v<DK, KF32> && (std::is_same_v<SK, KF16> || std::is_same_v<SK, KBF16>));

inline double ftzAsF32(double x) { return std::fabs(x) < 0x1p-126 ? std::copysign(0.0, x) : x; }

template <RMode R>
inline double roundIntegral(double x) {
  if constexpr (R == RMode::Rn) return std::nearbyint(x);  // default environment: ties to even
  else if constexpr (R == RMode::Rz) return std::trunc(x);
  else if constexpr (R == RMode::Rm) return std::floor(x);
  else return std::ceil(x);
}

// float -> float
template <class DK, class SK, bool Ftz, bool Sat, bool Relu, bool Dir>
void cvtFF(ExecContext& c, const DecodedInst& in) {
  const RMode m = fp::rmodeOf(in.round);
  map1<typename DK::Bits, std::uint64_t>(c, in, [m](std::uint64_t b) -> typename DK::Bits {
    double x = SK::get(b);
    // As measured on sm_90, .ftz does not flush an f32 source converted to f16.
    if constexpr (Ftz && SK::kIsF32 && !std::is_same_v<DK, KF16>) x = ftzAsF32(x);
    if (x != x) return Sat ? typename DK::Bits(0) : cvtNaN<DK, SK, Ftz || Relu>(b);
    if constexpr (Relu) x = x <= 0 ? 0.0 : x;  // -0 gives +0 too
    if constexpr (Sat) x = fp::sat01(x);
    typename DK::Bits r = DK::template enc<Dir>(x, m);
    if constexpr (Ftz && DK::kIsF32) {
      const std::uint32_t mag = std::uint32_t(r) & 0x7FFFFFFFu;
      if (mag < 0x00800000u || (mag == 0x00800000u && fp::tinyAfterRoundingF32(x, Dir ? m : RMode::Rn)))
        r = typename DK::Bits(r & 0x80000000u);
    }
    return r;
  });
}

// cvt.rni/.rzi/.rmi/.rpi with the same float type: round to an integral value.
template <class K, RMode R, bool Ftz, bool Sat>
void cvtRoundInt(ExecContext& c, const DecodedInst& in) {
  map1<typename K::Bits, std::uint64_t>(c, in, [](std::uint64_t b) -> typename K::Bits {
    double x = K::get(b);
    if constexpr (Ftz && K::kIsF32) x = ftzAsF32(x);
    if (x != x) return Sat ? typename K::Bits(0) : cvtNaN<K, K, true>(b);
    x = roundIntegral<R>(x);
    if constexpr (Sat) x = fp::sat01(x);
    return K::template enc<false>(x, RMode::Rn);  // integral values are representable
  });
}

// float -> int (saturating). A NaN gives 0, except (measured on sm_90) into a 64-bit integer or
// from an f64, where it gives the destination's sign bit alone (0x80, 0x8000, 0x80000000, 2^63).
template <class D, class SK, RMode R, bool Ftz>
void cvtFI(ExecContext& c, const DecodedInst& in) {
  map1Widen<D, std::uint64_t>(c, in, [](std::uint64_t b) -> D {
    double x = SK::get(b);
    if constexpr (Ftz && SK::kIsF32) x = ftzAsF32(x);
    if (x != x) {
      if constexpr (sizeof(D) == 8 || std::is_same_v<SK, KF64>)
        return D(std::make_unsigned_t<D>(1) << (sizeof(D) * 8 - 1));
      else return D(0);
    }
    x = roundIntegral<R>(x);
    constexpr double lo = double(std::numeric_limits<D>::min());
    constexpr double hi = double(std::numeric_limits<D>::max());  // 2^63 / 2^64 for 64-bit
    if (x <= lo) return std::numeric_limits<D>::min();
    if (x >= hi) return std::numeric_limits<D>::max();
    return D(x);
  });
}

// int -> float
template <class DK, class S, bool Dir, bool Sat>
void cvtIF(ExecContext& c, const DecodedInst& in) {
  const RMode m = fp::rmodeOf(in.round);
  map1<typename DK::Bits, S>(c, in, [m](S v) -> typename DK::Bits {
    (void)m;  // unused on the native round-to-nearest path
    if constexpr (Sat) v = v <= 0 ? S(0) : S(1);
    if constexpr (!Dir && (std::is_same_v<DK, KF32> || std::is_same_v<DK, KF64>)) {
      if constexpr (std::is_same_v<DK, KF32>) return fp::bits(float(v));
      else return fp::bits(double(v));
    } else {
      const bool neg = v < 0;
      const std::uint64_t mag = neg ? std::uint64_t(0) - std::uint64_t(v) : std::uint64_t(v);
      return typename DK::Bits(fp::roundPack<typename DK::F>(neg, mag, 0, Dir ? m : RMode::Rn));
    }
  });
}

// int -> int
template <class D, class S, bool Sat>
void cvtII(ExecContext& c, const DecodedInst& in) {
  map1Widen<D, S>(c, in, [](S v) -> D {
    if constexpr (!Sat) {
      return D(v);
    } else {
      const i128 x = v;
      constexpr i128 lo = std::numeric_limits<D>::min(), hi = std::numeric_limits<D>::max();
      return D(x < lo ? lo : (x > hi ? hi : x));
    }
  });
}

// cvt.rn{.relu}.f16x2.f32 d, a, b (and .bf16x2): d = {cvt(a) : cvt(b)}.
template <class DK, bool Relu, bool Dir>
void cvtPairX2(ExecContext& c, const DecodedInst& in) {
  const RMode m = fp::rmodeOf(in.round);
  map2<std::uint32_t, float, float>(c, in, [m](float a, float b) {
    auto one = [m](double x) -> std::uint32_t {
      if (x != x) return DK::nan();
      if constexpr (Relu) x = x <= 0 ? 0.0 : x;
      return DK::template enc<Dir>(x, m);
    };
    return (one(a) << 16) | one(b);
  });
}

// 8-bit floats (OCP FP8): e4m3 (bias 7, no infinity, NaN S.1111.111, largest 448) and e5m2
// (bias 15, IEEE-like, largest finite 57344).
template <bool E5M2>
struct Fp8 {
  static constexpr int kMant = E5M2 ? 2 : 3, kBias = E5M2 ? 15 : 7;
  static constexpr double kMax = E5M2 ? 57344.0 : 448.0;
  static constexpr std::uint8_t kNaN = 0x7F;  // both formats' positive all-ones NaN
  static double get(std::uint8_t v) {
    const double sign = (v & 0x80) ? -1.0 : 1.0;
    const int e = (v >> kMant) & ((1 << (7 - kMant)) - 1), m = v & ((1 << kMant) - 1);
    const int emax_field = (1 << (7 - kMant)) - 1;
    if (E5M2 && e == emax_field) return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
    if (!E5M2 && e == emax_field && m == (1 << kMant) - 1) return std::numeric_limits<double>::quiet_NaN();
    if (e == 0) return sign * std::ldexp(double(m), 1 - kBias - kMant);
    return sign * std::ldexp(double((1 << kMant) + m), e - kBias - kMant);
  }
  // .rn.satfinite: to nearest even, beyond the largest finite value (infinities too) the largest.
  // Every value past the largest rounds or saturates to it, so clamping first is the same.
  static std::uint8_t satfinite(double x) {
    if (x != x) return kNaN;
    using F = std::conditional_t<E5M2, fp::FmtE5M2, fp::FmtE4M3>;
    return std::uint8_t(fp::fromDouble<F>(std::copysign(std::min(std::fabs(x), kMax), x), RMode::Rn, kNaN));
  }
};

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b: d = {cvt(a) : cvt(b)}, a in the high byte.
template <bool E5M2, bool Relu>
void cvtFp8PairF32(ExecContext& c, const DecodedInst& in) {
  map2<std::uint16_t, float, float>(c, in, [](float a, float b) {
    auto one = [](double x) -> std::uint16_t {
      if constexpr (Relu) x = (x != x) ? x : (x <= 0 ? 0.0 : x);
      return Fp8<E5M2>::satfinite(x);
    };
    return std::uint16_t(one(a) << 8 | one(b));
  });
}
// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a: each half of a to the byte in its place.
template <bool E5M2, bool Relu>
void cvtFp8PairF16x2(ExecContext& c, const DecodedInst& in) {
  map1<std::uint16_t, std::uint32_t>(c, in, [](std::uint32_t a) {
    auto one = [](std::uint16_t h) -> std::uint16_t {
      double x = fp::halfToDouble(h);
      if constexpr (Relu) x = (x != x) ? x : (x <= 0 ? 0.0 : x);
      return Fp8<E5M2>::satfinite(x);
    };
    return std::uint16_t(one(std::uint16_t(a >> 16)) << 8 | one(std::uint16_t(a)));
  });
}
// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: each byte of a to the f16 in its place (exact).
template <bool E5M2, bool Relu>
void cvtF16x2FromFp8(ExecContext& c, const DecodedInst& in) {
  map1<std::uint32_t, std::uint16_t>(c, in, [](std::uint16_t a) {
    auto one = [](std::uint8_t v) -> std::uint32_t {
      double x = Fp8<E5M2>::get(v);
      if (x != x) return fp::kCanonNaN16;
      if constexpr (Relu) x = x <= 0 ? 0.0 : x;
      return fp::toHalfRn<fp::FmtF16>(x);
    };
    return one(std::uint8_t(a >> 8)) << 16 | one(std::uint8_t(a));
  });
}

// cvt.pack.sat.{u16,s16}.s32 d, a, b: d = {sat(a) : sat(b)}.
// cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c: d = {c[15:0] : sat(a) : sat(b)}.
template <class E, bool WithC>
void cvtPackSat(ExecContext& c, const DecodedInst& in) {
  auto sat = [](std::int32_t v) -> std::uint32_t {
    constexpr std::int32_t lo = std::numeric_limits<E>::min(), hi = std::numeric_limits<E>::max();
    return std::uint32_t(std::make_unsigned_t<E>(E(v < lo ? lo : (v > hi ? hi : v))));
  };
  constexpr int W = int(sizeof(E)) * 8;
  if constexpr (WithC) {
    map3<std::uint32_t, std::int32_t, std::int32_t, std::uint32_t>(
        c, in, [&](std::int32_t a, std::int32_t b, std::uint32_t s) {
          return (s << (2 * W)) | (sat(a) << W) | sat(b);
        });
  } else {
    map2<std::uint32_t, std::int32_t, std::int32_t>(c, in, [&](std::int32_t a, std::int32_t b) {
      return (sat(a) << W) | sat(b);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Selection

enum class TK { None, Int, F16, BF16, F32, F64, TF32 };

TK kindOf(Type t) {
  switch (t) {
    case Type::U8: case Type::U16: case Type::U32: case Type::U64:
    case Type::S8: case Type::S16: case Type::S32: case Type::S64:
      return TK::Int;
    case Type::F16: return TK::F16;
    case Type::BF16: return TK::BF16;
    case Type::F32: return TK::F32;
    case Type::F64: return TK::F64;
    case Type::TF32: return TK::TF32;
    default: return TK::None;
  }
}

template <class F>
ExecFn byCvtInt(Type t, F&& f) {
  switch (t) {
    case Type::U8: return f(Tag<std::uint8_t>{});
    case Type::U16: return f(Tag<std::uint16_t>{});
    case Type::U32: return f(Tag<std::uint32_t>{});
    case Type::U64: return f(Tag<std::uint64_t>{});
    case Type::S8: return f(Tag<std::int8_t>{});
    case Type::S16: return f(Tag<std::int16_t>{});
    case Type::S32: return f(Tag<std::int32_t>{});
    case Type::S64: return f(Tag<std::int64_t>{});
    default: return nullptr;
  }
}

template <class F>
ExecFn byFloatKind(TK k, F&& f) {
  switch (k) {
    case TK::F16: return f(Tag<KF16>{});
    case TK::BF16: return f(Tag<KBF16>{});
    case TK::F32: return f(Tag<KF32>{});
    case TK::F64: return f(Tag<KF64>{});
    default: return nullptr;
  }
}

bool isIntRound(Round r) { return r == Round::Rni || r == Round::Rzi || r == Round::Rmi || r == Round::Rpi; }
bool isDirected(Round r) { return r == Round::Rz || r == Round::Rm || r == Round::Rp || r == Round::Rna; }

// Float rounding for a float -> int conversion (None: .rzi).
RMode intRoundOf(Round r) {
  switch (r) {
    case Round::Rni: case Round::Rn: return RMode::Rn;
    case Round::Rmi: case Round::Rm: return RMode::Rm;
    case Round::Rpi: case Round::Rp: return RMode::Rp;
    default: return RMode::Rz;
  }
}

template <class DK, class SK, bool Ftz, bool Sat, bool Relu>
ExecFn pickFFDir(bool dir) {
  if constexpr (kExact<DK, SK>) return &cvtFF<DK, SK, Ftz, Sat, Relu, false>;
  else return dir ? &cvtFF<DK, SK, Ftz, Sat, Relu, true> : &cvtFF<DK, SK, Ftz, Sat, Relu, false>;
}
template <class DK, class SK, bool Ftz, bool Sat>
ExecFn pickFFRelu(bool relu, bool dir) {
  if constexpr (DK::kReluOk) {
    if (relu) return pickFFDir<DK, SK, Ftz, Sat, true>(dir);
  } else {
    if (relu) return nullptr;
  }
  return pickFFDir<DK, SK, Ftz, Sat, false>(dir);
}
template <class DK, class SK>
ExecFn pickFF(bool ftz, bool sat, bool relu, bool dir) {
  if constexpr (DK::kIsF32 || SK::kIsF32) {
    if (ftz) return sat ? pickFFRelu<DK, SK, true, true>(relu, dir) : pickFFRelu<DK, SK, true, false>(relu, dir);
  }
  return sat ? pickFFRelu<DK, SK, false, true>(relu, dir) : pickFFRelu<DK, SK, false, false>(relu, dir);
}

template <class K>
ExecFn pickRoundInt(RMode r, bool ftz, bool sat) {
  auto go = [&](auto rt) -> ExecFn {
    constexpr RMode R = decltype(rt)::value;
    if (K::kIsF32 && ftz) return sat ? &cvtRoundInt<K, R, true, true> : &cvtRoundInt<K, R, true, false>;
    return sat ? &cvtRoundInt<K, R, false, true> : &cvtRoundInt<K, R, false, false>;
  };
  switch (r) {
    case RMode::Rn: return go(std::integral_constant<RMode, RMode::Rn>{});
    case RMode::Rz: return go(std::integral_constant<RMode, RMode::Rz>{});
    case RMode::Rm: return go(std::integral_constant<RMode, RMode::Rm>{});
    case RMode::Rp: return go(std::integral_constant<RMode, RMode::Rp>{});
    default: return nullptr;
  }
}

template <class D, class SK>
ExecFn pickFI(RMode r, bool ftz) {
  auto go = [&](auto rt) -> ExecFn {
    constexpr RMode R = decltype(rt)::value;
    if constexpr (SK::kIsF32) {
      if (ftz) return &cvtFI<D, SK, R, true>;
    }
    return &cvtFI<D, SK, R, false>;
  };
  switch (r) {
    case RMode::Rn: return go(std::integral_constant<RMode, RMode::Rn>{});
    case RMode::Rz: return go(std::integral_constant<RMode, RMode::Rz>{});
    case RMode::Rm: return go(std::integral_constant<RMode, RMode::Rm>{});
    case RMode::Rp: return go(std::integral_constant<RMode, RMode::Rp>{});
    default: return nullptr;
  }
}

ExecFn selectCvt(const DecodedInst& in) {
  const bool ftz = in.flags & ptx::kFtz, sat = in.flags & ptx::kSat, relu = in.flags & ptx::kRelu;
  const TK dk = kindOf(in.type), sk = kindOf(in.type2);

  // 8-bit float pairs (sm_89 and later): from two f32 or an f16x2, and back to f16x2.
  if (in.type == Type::E4M3x2 || in.type == Type::E5M2x2) {
    if (in.round != Round::Rn || !sat || ftz) return nullptr;
    const bool e5 = in.type == Type::E5M2x2;
    if (in.type2 == Type::F32 && in.nsrc == 2) {
      if (e5) return relu ? &cvtFp8PairF32<true, true> : &cvtFp8PairF32<true, false>;
      return relu ? &cvtFp8PairF32<false, true> : &cvtFp8PairF32<false, false>;
    }
    if (in.type2 == Type::F16x2 && in.nsrc == 1) {
      if (e5) return relu ? &cvtFp8PairF16x2<true, true> : &cvtFp8PairF16x2<true, false>;
      return relu ? &cvtFp8PairF16x2<false, true> : &cvtFp8PairF16x2<false, false>;
    }
    return nullptr;
  }
  if (in.type == Type::F16x2 && (in.type2 == Type::E4M3x2 || in.type2 == Type::E5M2x2)) {
    if (in.round != Round::Rn || in.nsrc != 1 || sat || ftz) return nullptr;
    if (in.type2 == Type::E5M2x2) return relu ? &cvtF16x2FromFp8<true, true> : &cvtF16x2FromFp8<true, false>;
    return relu ? &cvtF16x2FromFp8<false, true> : &cvtF16x2FromFp8<false, false>;
  }
  // Packed pair from two f32 sources.
  if ((in.type == Type::F16x2 || in.type == Type::BF16x2) && in.type2 == Type::F32) {
    if (in.nsrc != 2 || sat || ftz || isIntRound(in.round) || in.round == Round::Rna) return nullptr;
    const bool dir = isDirected(in.round);
    if (in.type == Type::F16x2) {
      if (relu) return dir ? &cvtPairX2<KF16, true, true> : &cvtPairX2<KF16, true, false>;
      return dir ? &cvtPairX2<KF16, false, true> : &cvtPairX2<KF16, false, false>;
    }
    if (relu) return dir ? &cvtPairX2<KBF16, true, true> : &cvtPairX2<KBF16, true, false>;
    return dir ? &cvtPairX2<KBF16, false, true> : &cvtPairX2<KBF16, false, false>;
  }
  if (dk == TK::None || sk == TK::None) return nullptr;

  if (dk == TK::TF32) {
    if (sk != TK::F32 || sat || isIntRound(in.round)) return nullptr;
    const bool dir = in.round != Round::None && in.round != Round::Rn;
    if (relu) return dir ? &cvtFF<KTF32, KF32, false, false, true, true> : &cvtFF<KTF32, KF32, false, false, true, false>;
    return dir ? &cvtFF<KTF32, KF32, false, false, false, true> : &cvtFF<KTF32, KF32, false, false, false, false>;
  }
  if (sk == TK::TF32) return nullptr;

  if (dk == TK::Int && sk == TK::Int) {
    return byCvtInt(in.type, [&](auto dt) -> ExecFn {
      using D = typename decltype(dt)::type;
      return byCvtInt(in.type2, [&](auto st) -> ExecFn {
        using S = typename decltype(st)::type;
        return sat ? &cvtII<D, S, true> : &cvtII<D, S, false>;
      });
    });
  }
  if (dk == TK::Int) {  // float -> int
    if (in.round == Round::Rna) return nullptr;
    const RMode r = intRoundOf(in.round);
    return byCvtInt(in.type, [&](auto dt) -> ExecFn {
      using D = typename decltype(dt)::type;
      return byFloatKind(sk, [&](auto st) -> ExecFn { return pickFI<D, typename decltype(st)::type>(r, ftz); });
    });
  }
  if (sk == TK::Int) {  // int -> float
    if (isIntRound(in.round) || in.round == Round::Rna) return nullptr;
    const bool dir = isDirected(in.round);
    return byFloatKind(dk, [&](auto dt) -> ExecFn {
      using DK = typename decltype(dt)::type;
      return byCvtInt(in.type2, [&](auto st) -> ExecFn {
        using S = typename decltype(st)::type;
        if (dir) return sat ? &cvtIF<DK, S, true, true> : &cvtIF<DK, S, true, false>;
        return sat ? &cvtIF<DK, S, false, true> : &cvtIF<DK, S, false, false>;
      });
    });
  }
  // float -> float
  if (isIntRound(in.round)) {
    if (dk != sk || relu) return nullptr;
    const RMode r = fp::rmodeOf(in.round);
    return byFloatKind(dk, [&](auto kt) -> ExecFn { return pickRoundInt<typename decltype(kt)::type>(r, ftz, sat); });
  }
  if (in.round == Round::Rna) return nullptr;
  const bool dir = isDirected(in.round);
  return byFloatKind(dk, [&](auto dt) -> ExecFn {
    using DK = typename decltype(dt)::type;
    return byFloatKind(sk, [&](auto st) -> ExecFn { return pickFF<DK, typename decltype(st)::type>(ftz, sat, relu, dir); });
  });
}

ExecFn selectCvtPack(const DecodedInst& in) {
  if (in.type2 != Type::S32 && in.type2 != Type::None) return nullptr;
  const bool withC = in.nsrc >= 3;
  switch (in.type) {
    case Type::U16: return withC ? nullptr : &cvtPackSat<std::uint16_t, false>;
    case Type::S16: return withC ? nullptr : &cvtPackSat<std::int16_t, false>;
    case Type::U8: return withC ? &cvtPackSat<std::uint8_t, true> : nullptr;
    case Type::S8: return withC ? &cvtPackSat<std::int8_t, true> : nullptr;
    default: return nullptr;
  }
}

}  // namespace

ExecFn selectConvertHandler(const DecodedInst& in) {
  switch (in.op) {
    case Op::Mov: return selectMov(in);
    case Op::Cvt: return selectCvt(in);
    case Op::CvtPack: return selectCvtPack(in);
    default: return nullptr;
  }
}

}  // namespace scgpu::sm::alu
