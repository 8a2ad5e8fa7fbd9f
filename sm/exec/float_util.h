// Floating-point helpers shared by the ALU handlers: bit casts, .ftz/.sat, canonical NaNs,
// a scoped directed rounding mode, round-to-odd, and an exact rounder from (sign, integer
// significand, exponent) to any binary format (f16, bf16, tf32, f32, f64) under every PTX
// rounding mode. Everything here is plain IEEE arithmetic in the default environment (no
// -ffast-math); only ScopedRounding changes the host rounding mode, for its own scope.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ptx/decoded.h"

// Hot helpers are forced inline: the lane loops call them for every element.
#if defined(__GNUC__)
#define SCGPU_FP_INLINE inline __attribute__((always_inline))
#else
#define SCGPU_FP_INLINE inline
#endif

namespace scgpu::sm::fp {

// ---------------------------------------------------------------------------------------------
// Bit casts
inline std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline std::uint64_t bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
inline float f32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline double f64(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

// ---------------------------------------------------------------------------------------------
// NaNs as NVIDIA GPUs produce them (measured on sm_90): every f32, f16 and bf16 operation that
// yields a NaN gives the canonical NaN (0x7FFFFFFF, 0x7FFF); f64 operations propagate an input
// NaN, quieted, in an order that depends on the operation (add/sub/mul: b then a; div: a then b;
// fma: b, c, a), and otherwise give the default NaN 0xFFF8000000000000.
constexpr std::uint32_t kCanonNaN32 = 0x7FFFFFFFu;
constexpr std::uint64_t kDefaultNaN64 = 0xFFF8000000000000ull;
constexpr std::uint16_t kCanonNaN16 = 0x7FFF;    // f16
constexpr std::uint16_t kCanonNaNBF16 = 0x7FFF;  // bf16

inline float canonNaN32() { return f32(kCanonNaN32); }
inline float canon(float x) { return x == x ? x : canonNaN32(); }
inline double quiet(double x) { return f64(bits(x) | 0x0008000000000000ull); }
// The NaN an f64 operation returns, given its operands in order of precedence.
inline double nanOf(double x) { return x != x ? quiet(x) : f64(kDefaultNaN64); }
inline double nanOf(double x, double y) {
  if (x != x) return quiet(x);
  return nanOf(y);
}
inline double nanOf(double x, double y, double z) {
  if (x != x) return quiet(x);
  return nanOf(y, z);
}

// .ftz: a subnormal becomes a zero of the same sign.
inline float ftz(float x) {
  std::uint32_t u = bits(x);
  return (u & 0x7F800000u) ? x : f32(u & 0x80000000u);
}
inline double ftz(double x) {
  std::uint64_t u = bits(x);
  return (u & 0x7FF0000000000000ull) ? x : f64(u & 0x8000000000000000ull);
}
// .sat: clamp to [0, 1]; NaN and -0 give +0.
inline float sat01(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
inline double sat01(double x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; }

// ---------------------------------------------------------------------------------------------
// Rounding modes
enum class RMode : std::uint8_t { Rn, Rz, Rm, Rp, Rna };

inline RMode rmodeOf(ptx::Round r) {
  switch (r) {
    case ptx::Round::Rz: case ptx::Round::Rzi: return RMode::Rz;
    case ptx::Round::Rm: case ptx::Round::Rmi: return RMode::Rm;
    case ptx::Round::Rp: case ptx::Round::Rpi: return RMode::Rp;
    case ptx::Round::Rna: return RMode::Rna;
    default: return RMode::Rn;
  }
}

inline int feModeOf(RMode m) {
  switch (m) {
    case RMode::Rz: return FE_TOWARDZERO;
    case RMode::Rm: return FE_DOWNWARD;
    case RMode::Rp: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// .ftz tininess for an f32 result, as the GPU decides it (IEEE "after rounding"): the exact value
// v, rounded to 24 bits under mode m with an unbounded exponent, is below 2^-126. Only needed
// when the rounded result is exactly +-2^-126 (below that it is tiny, above it is not).
inline bool tinyAfterRoundingF32(double v, RMode m) {
  const double av = v < 0 ? -v : v;
  if (m == RMode::Rn || m == RMode::Rna) return av < 0x1p-126 - 0x1p-151;  // a tie rounds up
  const bool away = (m == RMode::Rp && v > 0) || (m == RMode::Rm && v < 0);
  return away ? av <= 0x1p-126 - 0x1p-150 : av < 0x1p-126;
}
// Sets the host's rounding mode for one warp instruction and restores round-to-nearest (the
// simulator's default environment) on exit. Used only for the directed modes of f32/f64
// arithmetic, where the host FPU then gives the exactly rounded IEEE result.
class ScopedRounding {
 public:
  explicit ScopedRounding(RMode m) : active_(m != RMode::Rn) {
    if (active_) std::fesetround(feModeOf(m));
  }
  ~ScopedRounding() {
    if (active_) std::fesetround(FE_TONEAREST);
  }
  ScopedRounding(const ScopedRounding&) = delete;
  ScopedRounding& operator=(const ScopedRounding&) = delete;

 private:
  bool active_;
};

// ---------------------------------------------------------------------------------------------
// Binary formats and an exact rounder.
template <int M, int E>
struct Fmt {
  static constexpr int kMant = M;
  static constexpr int kExp = E;
  static constexpr int kBias = (1 << (E - 1)) - 1;
  static constexpr int kEmin = 1 - kBias;
  static constexpr std::uint64_t kMaxField = (1ull << E) - 1;
  static constexpr std::uint64_t kSignBit = 1ull << (M + E);
  static constexpr std::uint64_t kExpMask = kMaxField << M;
  static constexpr std::uint64_t kMantMask = (1ull << M) - 1;
  // The largest exponent of a finite value and the largest exponent field holding finite values:
  // IEEE formats keep the all-ones field for infinities and NaNs.
  static constexpr int kEmax = kBias;
  static constexpr std::uint64_t kMaxFiniteField = kMaxField - 1;
};
using FmtF16 = Fmt<10, 5>;
using FmtBF16 = Fmt<7, 8>;
using FmtTF32 = Fmt<10, 8>;
using FmtF32 = Fmt<23, 8>;
using FmtF64 = Fmt<52, 11>;
using FmtE5M2 = Fmt<2, 5>;
// OCP e4m3 has no infinities: the all-ones field holds finite values up to 448 (its all-ones
// mantissa is the NaN, which saturating conversions never produce).
struct FmtE4M3 : Fmt<3, 4> {
  static constexpr int kEmax = 8;
  static constexpr std::uint64_t kMaxFiniteField = kMaxField;
};

template <class F>
inline std::uint64_t overflowBits(bool neg, RMode mode) {
  const bool toInf = mode == RMode::Rn || mode == RMode::Rna || (mode == RMode::Rp && !neg) ||
                     (mode == RMode::Rm && neg);
  return (neg ? F::kSignBit : 0) | (toInf ? F::kExpMask : F::kExpMask - 1);
}

// Rounds the value (-1)^neg * sig * 2^exp (plus, when `sticky`, a nonzero amount smaller than
// one unit of sig's last place) to format F under `mode` and returns its bits (never a NaN).
// Handles subnormal results, overflow to infinity or the largest finite value as the mode says,
// and underflow to zero or the smallest subnormal.
template <class F>
inline std::uint64_t roundPack(bool neg, std::uint64_t sig, int exp, RMode mode, bool sticky = false) {
  constexpr int M = F::kMant;
  const std::uint64_t sign = neg ? F::kSignBit : 0;
  if (sig == 0) {
    if (!sticky) return sign;
    const bool up = (mode == RMode::Rp && !neg) || (mode == RMode::Rm && neg);
    return sign | (up ? 1u : 0u);
  }
  const int msb = 63 - __builtin_clzll(sig);
  const int e = exp + msb;  // the value lies in [2^e, 2^(e+1))
  if (e > F::kEmax) return overflowBits<F>(neg, mode);
  int q = (e < F::kEmin ? F::kEmin : e) - M;  // exponent of the result's last place
  const int shift = q - exp;
  std::uint64_t kept;
  bool up = false;
  if (shift <= 0) {
    kept = sig << (-shift);
    if (sticky) up = (mode == RMode::Rp && !neg) || (mode == RMode::Rm && neg);
  } else {
    std::uint64_t rem = 0, half = 0;
    bool below;  // remainder (with sticky) strictly below half an ulp
    if (shift > 64) {
      kept = 0;
      below = true;
    } else if (shift == 64) {
      kept = 0;
      rem = sig;
      half = 1ull << 63;
      below = rem < half;
    } else {
      kept = sig >> shift;
      rem = sig & ((1ull << shift) - 1);
      half = 1ull << (shift - 1);
      below = rem < half;
    }
    const bool inexact = shift > 64 || rem != 0 || sticky;
    const bool tie = !below && rem == half && !sticky;
    switch (mode) {
      case RMode::Rn: up = !below && (!tie || (kept & 1)); break;
      case RMode::Rna: up = !below; break;
      case RMode::Rz: up = false; break;
      case RMode::Rm: up = neg && inexact; break;
      case RMode::Rp: up = !neg && inexact; break;
    }
  }
  kept += up ? 1 : 0;
  if (kept >> (M + 1)) {  // carried into the next binade
    kept >>= 1;
    ++q;
  }
  if (kept < (1ull << M)) return sign | kept;  // subnormal; 2^M is the smallest normal
  const int field = q + M + F::kBias;
  if (field > int(F::kMaxFiniteField)) return overflowBits<F>(neg, mode);
  return sign | ((std::uint64_t(field - 1) << M) + kept);
}

// Converts a double (exact value) to format F under `mode`; NaN gives `nan_bits`.
template <class F>
inline std::uint64_t fromDouble(double d, RMode mode, std::uint64_t nan_bits) {
  const std::uint64_t u = bits(d);
  const bool neg = u >> 63;
  const int ef = int((u >> 52) & 0x7FF);
  const std::uint64_t m = u & ((1ull << 52) - 1);
  if (ef == 0x7FF) return m ? nan_bits : ((neg ? F::kSignBit : 0) | F::kExpMask);
  if (ef == 0) {
    if (m == 0) return neg ? F::kSignBit : 0;
    return roundPack<F>(neg, m, -1074, mode);
  }
  return roundPack<F>(neg, m | (1ull << 52), ef - 1075, mode);
}

// ---------------------------------------------------------------------------------------------
// Half precision
SCGPU_FP_INLINE float halfToFloat(std::uint16_t h) {
  const std::uint32_t s = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  const std::uint32_t m = h & 0x3FFu;
  if (e == 0x1F) return f32(s | 0x7F800000u | (m << 13));
  if (e == 0) {
    const float v = float(m) * 0x1p-24f;  // exact
    return s ? -v : v;
  }
  return f32(s | ((e + 112u) << 23) | (m << 13));
}
SCGPU_FP_INLINE double halfToDouble(std::uint16_t h) {
  const std::uint64_t s = std::uint64_t(h & 0x8000u) << 48;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  const std::uint64_t m = h & 0x3FFu;
  if (e == 0) {
    const double v = double(m) * 0x1p-24;  // exact
    return s ? -v : v;
  }
  return f64(s | (std::uint64_t(e == 0x1F ? 0x7FFu : e + 1008u) << 52) | (m << 42));
}
SCGPU_FP_INLINE float bf16ToFloat(std::uint16_t h) { return f32(std::uint32_t(h) << 16); }

constexpr double pow2(int e) {
  double r = 1.0;
  for (; e > 0; --e) r *= 2.0;
  for (; e < 0; ++e) r *= 0.5;
  return r;
}

// Round-to-nearest-even from a double (exact, or rounded to odd) to f16 or bf16 bits: the fast
// path of every RN conversion to a 16-bit format (the same result as fromDouble<F>(d, Rn), which
// the tests check). NaN gives the canonical NaN 0x7FFF. Uses the host's rounding (round to
// nearest) for subnormal results, so it must not run under ScopedRounding.
template <class F>
SCGPU_FP_INLINE std::uint16_t toHalfRn(double d) {
  constexpr int M = F::kMant, B = F::kBias, kDrop = 52 - M;
  const std::uint64_t u = bits(d);
  const std::uint16_t sign = std::uint16_t((u >> 48) & 0x8000u);
  const std::uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  // |d| >= (2 - 2^-(M+1)) * 2^B rounds to infinity.
  constexpr std::uint64_t kOverflow =
      (std::uint64_t(B + 1023) << 52) | (((1ull << (M + 1)) - 1) << (52 - M - 1));
  if (a >= kOverflow) {
    if (a > 0x7FF0000000000000ull) return 0x7FFF;
    return std::uint16_t(sign | F::kExpMask);
  }
  if (a < (std::uint64_t(1 - B + 1023) << 52)) {  // below the smallest normal: subnormal result
    constexpr double kC = pow2(52 + 1 - B - M);  // its last place is the subnormal spacing
    const double t = f64(a) + kC;  // rounds to a multiple of the subnormal spacing (RN)
    return std::uint16_t(sign | (bits(t) - bits(kC)));
  }
  const std::uint64_t r = a + ((1ull << (kDrop - 1)) - 1) + ((a >> kDrop) & 1);
  return std::uint16_t(sign | ((r >> kDrop) - (std::uint64_t(1023 - B) << M)));
}

inline std::uint16_t doubleToHalf(double d, RMode mode = RMode::Rn) {
  if (mode == RMode::Rn) return toHalfRn<FmtF16>(d);
  return std::uint16_t(fromDouble<FmtF16>(d, mode, kCanonNaN16));
}
inline std::uint16_t doubleToBf16(double d, RMode mode = RMode::Rn) {
  if (mode == RMode::Rn) return toHalfRn<FmtBF16>(d);
  return std::uint16_t(fromDouble<FmtBF16>(d, mode, kCanonNaNBF16));
}
inline std::uint16_t floatToHalf(float f, RMode mode = RMode::Rn) { return doubleToHalf(f, mode); }
inline std::uint16_t floatToBf16(float f, RMode mode = RMode::Rn) { return doubleToBf16(f, mode); }

// f16 .ftz on bits: a subnormal becomes a zero of the same sign.
SCGPU_FP_INLINE std::uint16_t ftzHalf(std::uint16_t h) { return (h & 0x7C00u) ? h : std::uint16_t(h & 0x8000u); }
SCGPU_FP_INLINE std::uint16_t ftzBf16(std::uint16_t h) { return (h & 0x7F80u) ? h : std::uint16_t(h & 0x8000u); }

// ---------------------------------------------------------------------------------------------
// Error-free transformations and round-to-odd
//
// twoSumErr: for s = a + b rounded to nearest, the exact a + b - s (Knuth's TwoSum).
SCGPU_FP_INLINE double twoSumErr(double a, double b, double s) {
  const double bp = s - a;
  const double ap = s - bp;
  return (a - ap) + (b - bp);
}
// Given s = RN(v) and the sign of v - s (err), returns v rounded to odd in double precision.
// A value rounded to odd with at least two more bits than the target format rounds correctly
// to that format under any mode (so double suffices for f32, tf32, bf16 and f16 results).
SCGPU_FP_INLINE double toOdd(double s, double err) {
  // Branch-free: err is nonzero only for a nonzero s.
  const std::uint64_t u = bits(s);
  const std::uint64_t step = ((err > 0) == (s > 0)) ? 1u : ~std::uint64_t(0);
  const std::uint64_t need = std::uint64_t(err != 0) & ~u & 1u;
  return f64(u + (step & (std::uint64_t(0) - need)));
}

}  // namespace scgpu::sm::fp
