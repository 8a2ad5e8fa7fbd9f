// fp8_convert: 64K float pairs to e4m3x2 and e5m2x2 (cvt.rn.satfinite, sm_89+) and back to half2.
// Inputs: values across both formats' ranges, exact ties, subnormals, values past the largest
// finite one, infinities and NaNs. Reference: each float's nearest code found by searching all 256
// codes (ties to the even code), saturated; the way back from the codes' values. Blocks of 256.
// Built with -arch=sm_90, like the suite's PTX (for older archs cuda_fp8.h converts in software).
// Plain CUDA runtime port of kernels/host/fp8_convert.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: fp8_convert [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/fp8_convert.cu"

#include <limits>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

// ---- Boilerplate shared (by copy) by every program in cuda_programs/ --------------------------

// Every CUDA runtime call is checked: on an error, the call, the error and file:line go to stderr
// and the program exits with status 2 (1 is reserved for a wrong result).
#define CHECK(call) checkCuda((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: the launch error (cudaGetLastError), then the execution error.
#define CHECK_LAUNCH(kernel_name) checkLaunch((kernel_name), __FILE__, __LINE__)

// Plain inline functions at namespace scope (not in an anonymous namespace, where the front end
// warns about every helper a program leaves unused).
inline const char* const kWorkload = "fp8_convert";

inline void checkCuda(cudaError_t err, const char* what, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s: CUDA error: %s failed: %s (%s) at %s:%d\n", kWorkload, what, cudaGetErrorString(err),
               cudaGetErrorName(err), file, line);
  std::exit(2);
}
inline void checkLaunch(const std::string& kernel, const char* file, int line) {
  const std::string launch = kernel + "<<<...>>>", sync = "cudaDeviceSynchronize() after " + kernel;
  checkCuda(cudaGetLastError(), launch.c_str(), file, line);
  checkCuda(cudaDeviceSynchronize(), sync.c_str(), file, line);
}

// Optional first argument: the input seed (default 1, the suite's default).
inline std::uint64_t seedFrom(int argc, char** argv) {
  return argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
}

// Deterministic inputs: the suite's Rng (kernels/workload_util.h): std::mt19937_64, whose output
// sequence the C++ standard fixes, with every bits-to-value conversion spelled out, so a seed gives
// the same inputs as the suite's host program at scale 1, with any standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0)
      : gen_(seed * 0x9e3779b97f4a7c15ull + stream * 0xd1b54a32d192ed03ull + 1) {}
  std::uint64_t u64() { return gen_(); }
  std::uint32_t u32() { return std::uint32_t(gen_() >> 32); }
  // Integer in [lo, hi] (modulo reduction).
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = std::uint64_t(hi - lo) + 1;
    return lo + std::int64_t(span == 0 ? gen_() : gen_() % span);
  }
  float unitFloat() { return std::ldexp(float(gen_() >> 40), -24); }     // [0, 1), 24 bits
  float uniform(float lo, float hi) { return lo + (hi - lo) * unitFloat(); }
  double unitDouble() { return std::ldexp(double(gen_() >> 11), -53); }  // [0, 1), 53 bits
  double uniform(double lo, double hi) { return lo + (hi - lo) * unitDouble(); }
  std::vector<float> floats(std::size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (float& x : v) x = uniform(lo, hi);
    return v;
  }
  std::vector<double> doubles(std::size_t n, double lo, double hi) {
    std::vector<double> v(n);
    for (double& x : v) x = uniform(lo, hi);
    return v;
  }
  std::vector<std::int32_t> ints(std::size_t n, std::int32_t lo, std::int32_t hi) {
    std::vector<std::int32_t> v(n);
    for (auto& x : v) x = std::int32_t(range(lo, hi));
    return v;
  }
  std::vector<std::uint32_t> words(std::size_t n) {
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = u32();
    return v;
  }

 private:
  std::mt19937_64 gen_;
};

// Device buffers: every allocation is recorded and freed before the result line.
inline std::vector<void*> g_device_buffers;

template <typename T> T* deviceAlloc(std::size_t count) {
  void* p = nullptr;
  CHECK(cudaMalloc(&p, count * sizeof(T)));
  g_device_buffers.push_back(p);
  return static_cast<T*>(p);
}
template <typename T> T* deviceZeros(std::size_t count) {
  T* p = deviceAlloc<T>(count);
  CHECK(cudaMemset(p, 0, count * sizeof(T)));
  return p;
}
template <typename T> T* upload(const std::vector<T>& host) {
  T* p = deviceAlloc<T>(host.size());
  CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}
template <typename T> std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}
inline void freeDeviceBuffers() {
  for (void* p : g_device_buffers) CHECK(cudaFree(p));
  g_device_buffers.clear();
}

// Blocks to cover n items with `block` threads each, at most max_blocks (0: no limit).
inline unsigned blocksFor(std::uint64_t n, unsigned block, unsigned max_blocks = 0) {
  std::uint64_t b = (n + block - 1) / block;
  if (b == 0) b = 1;
  if (max_blocks != 0 && b > max_blocks) b = max_blocks;
  return unsigned(b);
}

// The final line, and the exit status: 0 passed, 1 failed.
inline int passed(const std::string& what) {
  freeDeviceBuffers();
  std::printf("PASSED %s: %s\n", kWorkload, what.c_str());
  return 0;
}
inline int failed(const std::string& mismatch) {
  freeDeviceBuffers();
  std::printf("FAILED %s: %s\n", kWorkload, mismatch.c_str());
  return 1;
}

template <typename T> std::string formatValue(T v) {
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>) {
    s << std::setprecision(std::is_same_v<T, float> ? 9 : 17) << v;
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) {
    s << int(v);
  } else {
    s << v;
  }
  return s.str();
}
// "what[index]: got G, want W".
template <typename T> std::string mismatchMessage(const std::string& what, long index, T got, T want) {
  return what + "[" + std::to_string(index) + "]: got " + formatValue(got) + ", want " + formatValue(want);
}
inline std::string tolText(double tol) {
  std::ostringstream s;
  s << tol;
  return s.str();
}
// Index of the first element that differs (integers: bit-exact), or -1.
template <typename T> long firstDifference(const std::vector<T>& got, const std::vector<T>& want) {
  static_assert(std::is_integral_v<T>, "use firstMismatch for floating point");
  const std::size_t n = got.size() < want.size() ? got.size() : want.size();
  for (std::size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) return long(i);
  return got.size() == want.size() ? -1 : long(n);
}
// Floating point: |got - want| <= abs + rel * |want|; equal infinities and NaN in both match.
template <typename T>
long firstMismatch(const std::vector<T>& got, const std::vector<T>& want, T rel_tol, T abs_tol) {
  static_assert(std::is_floating_point_v<T>, "use firstDifference for integers");
  const std::size_t n = got.size() < want.size() ? got.size() : want.size();
  for (std::size_t i = 0; i < n; ++i) {
    const T g = got[i], w = want[i];
    if (g == w) continue;
    if (std::isnan(g) && std::isnan(w)) continue;
    if (std::isnan(g) || std::isnan(w) || std::isinf(g) || std::isinf(w)) return long(i);
    if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w))) return long(i);
  }
  return got.size() == want.size() ? -1 : long(n);
}

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
