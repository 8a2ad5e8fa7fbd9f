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
// NaN (quieted; operand b takes precedence over a, then c) and otherwise give the default NaN
// 0xFFF8000000000000.
constexpr std::uint32_t kCanonNaN32 = 0x7FFFFFFFu;
constexpr std::uint64_t kDefaultNaN64 = 0xFFF8000000000000ull;
constexpr std::uint16_t kCanonNaN16 = 0x7FFF;    // f16
constexpr std::uint16_t kCanonNaNBF16 = 0x7FFF;  // bf16

inline float canonNaN32() { return f32(kCanonNaN32); }
inline float canon(float x) { return x == x ? x : canonNaN32(); }
inline double quiet(double x) { return f64(bits(x) | 0x0008000000000000ull); }
// The NaN an f64 operation with result NaN returns.
inline double nanOf(double a, double b) {
  if (b != b) return quiet(b);
  if (a != a) return quiet(a);
  return f64(kDefaultNaN64);
}
inline double nanOf(double a, double b, double c) {
  if (b != b) return quiet(b);
  if (a != a) return quiet(a);
  if (c != c) return quiet(c);
  return f64(kDefaultNaN64);
}
inline double nanOf(double a) { return a != a ? quiet(a) : f64(kDefaultNaN64); }

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
};
using FmtF16 = Fmt<10, 5>;
using FmtBF16 = Fmt<7, 8>;
using FmtTF32 = Fmt<10, 8>;
using FmtF32 = Fmt<23, 8>;
using FmtF64 = Fmt<52, 11>;

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
  if (e > F::kBias) return overflowBits<F>(neg, mode);
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
  if (field >= int(F::kMaxField)) return overflowBits<F>(neg, mode);
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
inline float halfToFloat(std::uint16_t h) {
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
inline float bf16ToFloat(std::uint16_t h) { return f32(std::uint32_t(h) << 16); }

inline std::uint16_t doubleToHalf(double d, RMode mode = RMode::Rn) {
  return std::uint16_t(fromDouble<FmtF16>(d, mode, kCanonNaN16));
}
inline std::uint16_t doubleToBf16(double d, RMode mode = RMode::Rn) {
  return std::uint16_t(fromDouble<FmtBF16>(d, mode, kCanonNaNBF16));
}
inline std::uint16_t floatToHalf(float f, RMode mode = RMode::Rn) { return doubleToHalf(f, mode); }
inline std::uint16_t floatToBf16(float f, RMode mode = RMode::Rn) { return doubleToBf16(f, mode); }

// f16 .ftz on bits: a subnormal becomes a zero of the same sign.
inline std::uint16_t ftzHalf(std::uint16_t h) { return (h & 0x7C00u) ? h : std::uint16_t(h & 0x8000u); }
inline std::uint16_t ftzBf16(std::uint16_t h) { return (h & 0x7F80u) ? h : std::uint16_t(h & 0x8000u); }

// ---------------------------------------------------------------------------------------------
// Error-free transformations and round-to-odd
//
// twoSumErr: for s = a + b rounded to nearest, the exact a + b - s (Knuth's TwoSum).
inline double twoSumErr(double a, double b, double s) {
  const double bp = s - a;
  const double ap = s - bp;
  return (a - ap) + (b - bp);
}
// Given s = RN(v) and the sign of v - s (err), returns v rounded to odd in double precision.
// A value rounded to odd with at least two more bits than the target format rounds correctly
// to that format under any mode (so double suffices for f32, tf32, bf16 and f16 results).
inline double toOdd(double s, double err) {
  if (err == 0 || s == 0) return s;
  std::uint64_t u = bits(s);
  if (u & 1) return s;
  u += ((err > 0) == (s > 0)) ? 1 : std::uint64_t(-1);
  return f64(u);
}

}  // namespace scgpu::sm::fp
