// f16_math: __half / __half2 arithmetic on 4096 elements (f16_arith: add, sub, mul, fma, compare,
// neg, __hfma2/__hadd2) and float -> half / bfloat16 conversions over a wide range (subnormals,
// overflow, infinities) and back (f16_convert), against bit-exact software models of IEEE binary16
// and bfloat16 rounding; blocks of 128.
// Plain CUDA runtime port of kernels/host/f16_math.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: f16_math [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/f16_math.cu"

#include <cfloat>
#include <climits>
#include <cstring>
#include <limits>

#define CUDA_PROGRAM_NAME "f16_math"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
inline std::uint32_t floatBits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Rounds a double to binary16, round-to-nearest-even, with subnormals and overflow to infinity.
// Every value here is exact in double before this single rounding (sums and products of halves
// need at most 40 significant bits), so the result is the correctly rounded half.
inline std::uint16_t halfFromDouble(double x) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (std::isnan(x)) return 0x7fff;
  if (std::isinf(a) || a >= 65520.0) return sign | 0x7c00;  // 65520 = max half + half an ulp: ties go up
  if (a < 0x1p-14) {                                         // subnormal (or zero): units of 2^-24
    const double q = std::nearbyint(a * 0x1p24);             // exact scaling; default mode is to-nearest-even
    return sign | std::uint16_t(q);                          // q == 1024 is the smallest normal: same bits
  }
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1;    // a = 1.f * 2^exp
  double m = std::nearbyint(std::ldexp(a, 10 - exp));  // in [1024, 2048]
  if (m == 2048.0) {
    m = 1024.0;
    ++exp;
  }
  if (exp > 15) return sign | 0x7c00;
  return sign | std::uint16_t((exp + 15) << 10) | std::uint16_t(int(m) - 1024);
}

inline double halfToDouble(std::uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp == 0x1f) return frac ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(double(frac), -24);
  return sign * std::ldexp(double(frac + 1024), exp - 25);
}

// float -> bfloat16, round-to-nearest-even on the upper 16 bits (inputs here are never NaN).
inline std::uint16_t bf16FromFloat(float f) {
  const std::uint32_t u = floatBits(f);
  return std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// cvt.rzi.s32.f16: truncate toward zero, saturating (infinities to INT_MAX / INT_MIN).
inline std::int32_t halfToIntRz(std::uint16_t h) {
  const double d = halfToDouble(h);
  if (std::isinf(d)) return d > 0 ? INT_MAX : INT_MIN;
  return std::int32_t(std::trunc(d));
}

int main(int argc, char** argv) {
  const int n = 4096;
  Rng rng(seedFrom(argc, argv));

  // Arithmetic inputs: magnitudes in [1/64, 4) or zero, random sign, so that all sums and products
  // are exact in double before rounding to half.
  auto arithValue = [&]() {
    if (rng.range(0, 31) == 0) return 0.0f;
    const float m = std::ldexp(1.0f + rng.unitFloat(), int(rng.range(-6, 1)));
    return rng.range(0, 1) ? -m : m;
  };
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = arithValue();
    b[i] = arithValue();
    c[i] = arithValue();
  }
  std::vector<std::uint16_t> want(8 * std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const std::uint16_t ha = halfFromDouble(a[i]), hb = halfFromDouble(b[i]), hc = halfFromDouble(c[i]);
    const double da = halfToDouble(ha), db = halfToDouble(hb), dc = halfToDouble(hc);
    auto at = [&](int k) -> std::uint16_t& { return want[std::size_t(k) * n + i]; };
    at(0) = halfFromDouble(da + db);
    at(1) = halfFromDouble(da - db);
    at(2) = halfFromDouble(da * db);
    at(3) = halfFromDouble(da * db + dc);  // exact in double, so this is the fused result
    at(4) = da < db ? ha : hb;
    at(5) = std::uint16_t(ha ^ 0x8000);
    // half2 p = (a, b), q = (c, a); s = p + q; f = p * q + s, lane by lane.
    const double s_lo = halfToDouble(halfFromDouble(da + dc)), s_hi = halfToDouble(halfFromDouble(db + da));
    at(6) = halfFromDouble(da * dc + s_lo);
    at(7) = halfFromDouble(db * da + s_hi);
  }

  // Conversion inputs: random floats with exponents 2^-27 .. 2^23 (half subnormals, underflow to
  // zero, overflow to infinity, rounding of every kind), plus special values.
  std::vector<float> x(n);
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 0x1p-24f, 0x1p-25f,
                            0x1.8p-25f, 0x1p-14f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, 1.00048828125f, 3.14159265f};
  const int nspecial = int(sizeof specials / sizeof specials[0]);
  for (int i = 0; i < n; ++i) {
    if (i < nspecial) {
      x[i] = specials[i];
    } else {
      const std::uint32_t sign = std::uint32_t(rng.range(0, 1)) << 31;
      const std::uint32_t exp = std::uint32_t(rng.range(100, 150)) << 23;
      x[i] = bitsFloat(sign | exp | (rng.u32() & 0x7fffffu));
    }
  }
  std::vector<std::uint16_t> want_half(n), want_bf16(n);
  std::vector<float> want_half_back(n), want_bf16_back(n);
  std::vector<std::int32_t> want_int(n);
  for (int i = 0; i < n; ++i) {
    want_half[i] = halfFromDouble(x[i]);
    want_half_back[i] = float(halfToDouble(want_half[i]));
    want_bf16[i] = bf16FromFloat(x[i]);
    want_bf16_back[i] = bitsFloat(std::uint32_t(want_bf16[i]) << 16);
    want_int[i] = halfToIntRz(want_half[i]);
  }

  const float* da = upload(a);
  const float* db = upload(b);
  const float* dc = upload(c);
  std::uint16_t* dout = deviceZeros<std::uint16_t>(want.size());
  const unsigned block = 128;
  f16_arith<<<blocksFor(n, block), block>>>(da, db, dc, reinterpret_cast<__half*>(dout), n);
  CHECK_LAUNCH("f16_arith");
  const float* dx = upload(x);
  unsigned short* dh = deviceZeros<unsigned short>(n);
  float* dhb = deviceZeros<float>(n);
  unsigned short* dbf = deviceZeros<unsigned short>(n);
  float* dbfb = deviceZeros<float>(n);
  int* dint = deviceZeros<int>(n);
  f16_convert<<<blocksFor(n, block, 16), block>>>(dx, dh, dhb, dbf, dbfb, dint, n);
  CHECK_LAUNCH("f16_convert");

  // Everything is bit-exact: each result is one correctly rounded operation.
  static const char* const arith_names[8] = {"hadd", "hsub", "hmul", "hfma", "hlt-select", "hneg", "hfma2.lo", "hfma2.hi"};
  const std::vector<std::uint16_t> got = download(dout, want.size());
  if (long i = firstDifference(got, want); i >= 0)
    return failed(mismatchMessage(std::string(arith_names[i / n]) + " bits", i % n, got[i], want[i]));
  const std::vector<std::uint16_t> got_half = download(dh, n), got_bf16 = download(dbf, n);
  if (long i = firstDifference(got_half, want_half); i >= 0)
    return failed(mismatchMessage("float->half bits", i, got_half[i], want_half[i]) + " for " + formatValue(x[i]));
  if (long i = firstDifference(got_bf16, want_bf16); i >= 0)
    return failed(mismatchMessage("float->bf16 bits", i, got_bf16[i], want_bf16[i]) + " for " + formatValue(x[i]));
  const std::vector<float> got_half_back = download(dhb, n), got_bf16_back = download(dbfb, n);
  if (long i = firstMismatch(got_half_back, want_half_back, 0.0f, 0.0f); i >= 0)
    return failed(mismatchMessage("half->float", i, got_half_back[i], want_half_back[i]));
  if (long i = firstMismatch(got_bf16_back, want_bf16_back, 0.0f, 0.0f); i >= 0)
    return failed(mismatchMessage("bf16->float", i, got_bf16_back[i], want_bf16_back[i]));
  const std::vector<int> got_int = download(dint, n);
  if (long i = firstDifference(got_int, want_int); i >= 0)
    return failed(mismatchMessage("half->int rz", i, got_int[i], want_int[i]));
  return passed(std::to_string(n) + " x 8 half/half2 results and " + std::to_string(n) +
                " x 5 half/bf16 conversions match bit-exactly");
}
