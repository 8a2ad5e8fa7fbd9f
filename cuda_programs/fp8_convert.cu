// fp8_convert: 64K float pairs to e4m3x2 and e5m2x2 (cvt.rn.satfinite, sm_89+) and back to half2.
// Inputs: values across both formats' ranges, exact ties, subnormals, values past the largest
// finite one, infinities and NaNs. Reference: each float's nearest code found by searching all 256
// codes (ties to the even code), saturated; the way back from the codes' values. Blocks of 256.
// Built with -arch=sm_90, like the suite's PTX (for older archs cuda_fp8.h converts in software).
// Plain CUDA runtime port of kernels/host/fp8_convert.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: fp8_convert [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/fp8_convert.cu"

#include <limits>

#define CUDA_PROGRAM_NAME "fp8_convert"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
// The value of an 8-bit float code (NaN for NaN codes, infinities for e5m2's).
inline double fp8Value(unsigned code, bool e5m2) {
  const int mant = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, emask = e5m2 ? 31 : 15;
  const double sign = (code & 0x80) ? -1.0 : 1.0;
  const int e = int(code >> mant) & emask, m = int(code) & ((1 << mant) - 1);
  if (e5m2 && e == 31) return m ? std::nan("") : sign * HUGE_VAL;
  if (!e5m2 && e == 15 && m == 7) return std::nan("");
  return sign * (e == 0 ? std::ldexp(m, 1 - bias - mant) : std::ldexp((1 << mant) + m, e - bias - mant));
}

// .rn.satfinite by search: the finite code nearest x, ties to the code with an even last bit;
// beyond the largest finite value (infinities too) the largest; NaN -> 0x7F.
inline unsigned toFp8(float x, bool e5m2) {
  if (std::isnan(x)) return 0x7F;
  const double largest = e5m2 ? 57344.0 : 448.0;
  if (std::fabs(double(x)) >= largest) return (std::signbit(x) ? 0x80u : 0u) | (e5m2 ? 0x7Bu : 0x7Eu);
  unsigned best = 0;
  double best_err = HUGE_VAL;
  for (unsigned code = 0; code < 256; ++code) {
    const double v = fp8Value(code, e5m2);
    if (!std::isfinite(v)) continue;
    if (std::signbit(v) != std::signbit(double(x))) continue;
    const double err = std::fabs(double(x) - v);
    if (err < best_err || (err == best_err && (code & 1) == 0)) {
      best = code;
      best_err = err;
    }
  }
  return best;
}

// A half's bits for an exact value of an 8-bit float (all are representable in binary16).
inline unsigned halfBits(double v) {
  if (std::isnan(v)) return 0x7FFF;
  const unsigned sign = std::signbit(v) ? 0x8000 : 0;
  v = std::fabs(v);
  if (std::isinf(v)) return sign | 0x7C00;
  if (v == 0) return sign;
  int e = std::ilogb(v);
  if (e < -14) return sign | unsigned(std::ldexp(v, 24));  // subnormal half
  return sign | unsigned(e + 15) << 10 | (unsigned(std::ldexp(v, 10 - e)) & 0x3FF);
}

inline std::string hexText(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

int main(int argc, char** argv) {
  const int n = 65536;
  Rng rng(seedFrom(argc, argv));
  std::vector<float> in(2 * std::size_t(n));
  const float specials[] = {0.0f, -0.0f, 448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f, 1e30f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 0x1p-9f, 0x1p-10f, 0x3p-10f, 0x1p-17f, 1.0625f};
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint64_t r = rng.u64();
    if (r % 16 == 0) {
      in[i] = specials[(r >> 8) % 16];
    } else {  // sign, an exponent across both formats' ranges, 24 random bits (ties among them)
      const int e = int((r >> 8) % 48) - 30;
      const float m = 1.0f + float((r >> 16) & 0xFFFFFF) * 0x1p-24f;
      in[i] = std::ldexp((r >> 60) & 1 ? -m : m, e);
      if ((r >> 40) % 8 == 0) in[i] = std::ldexp(std::round(std::ldexp(in[i], 4 - e)), e - 4);  // few bits: ties
    }
  }
  std::vector<std::uint16_t> want4(n), want5(n);
  std::vector<std::uint32_t> wantb4(n), wantb5(n);
  for (int i = 0; i < n; ++i) {
    const float lo = in[2 * std::size_t(i)], hi = in[2 * std::size_t(i) + 1];
    const unsigned l4 = toFp8(lo, false), h4 = toFp8(hi, false), l5 = toFp8(lo, true), h5 = toFp8(hi, true);
    want4[i] = std::uint16_t(h4 << 8 | l4);
    want5[i] = std::uint16_t(h5 << 8 | l5);
    wantb4[i] = halfBits(fp8Value(l4, false)) | halfBits(fp8Value(h4, false)) << 16;
    wantb5[i] = halfBits(fp8Value(l5, true)) | halfBits(fp8Value(h5, true)) << 16;
  }

  const float* din = upload(in);
  unsigned short* d4 = deviceAlloc<unsigned short>(n);
  unsigned short* d5 = deviceAlloc<unsigned short>(n);
  unsigned* db4 = deviceAlloc<unsigned>(n);
  unsigned* db5 = deviceAlloc<unsigned>(n);
  fp8_convert<<<blocksFor(n, 256), 256>>>(reinterpret_cast<const float2*>(din), d4, d5, db4, db5, n);
  CHECK_LAUNCH("fp8_convert");
  const std::vector<std::uint16_t> got4 = download(d4, n), got5 = download(d5, n);
  const std::vector<std::uint32_t> gotb4 = download(db4, n), gotb5 = download(db5, n);
  for (int i = 0; i < n; ++i) {
    if (got4[i] != want4[i] || got5[i] != want5[i] || gotb4[i] != wantb4[i] || gotb5[i] != wantb5[i])
      return failed("pair " + std::to_string(i) + " (" + std::to_string(in[2 * std::size_t(i)]) + ", " +
                    std::to_string(in[2 * std::size_t(i) + 1]) + "): e4m3x2 " + hexText(got4[i]) + " want " +
                    hexText(want4[i]) + ", e5m2x2 " + hexText(got5[i]) + " want " + hexText(want5[i]) + ", back " +
                    hexText(gotb4[i]) + "/" + hexText(gotb5[i]) + " want " + hexText(wantb4[i]) + "/" +
                    hexText(wantb5[i]));
  }
  return passed(std::to_string(n) + " float pairs to e4m3x2 and e5m2x2 and back: bit-exact");
}
