// int_hash: integer mixing (murmur3 fmix32, xorshift32, splitmix64) and the bit-manipulation
// intrinsics (__umulhi, __mulhi, __umul64hi, __popc, __clz, __ffs, __brev, __byte_perm, funnel
// shifts, 64-bit variants), integer division and shifts over 16K words, 128-thread blocks. Bit-exact.
// Plain CUDA runtime port of kernels/host/int_hash.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: int_hash [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/int_hash.cu"

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
inline const char* const kWorkload = "int_hash";

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
// Host reference (in a namespace: the kernel file defines __device__ fmix32, xorshift32, splitmix64).
namespace ref {

inline std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
inline std::uint32_t xorshift32(std::uint32_t x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}
inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
inline int popc64(std::uint64_t x) {
  int c = 0;
  for (; x != 0; x &= x - 1) ++c;
  return c;
}
inline int clz64(std::uint64_t x, int width) {  // leading zeros of the low `width` bits
  int c = 0;
  for (int b = width - 1; b >= 0 && !((x >> b) & 1); --b) ++c;
  return c;
}
inline int ffs64(std::uint64_t x) {  // 1 + index of the lowest set bit, 0 for 0
  if (x == 0) return 0;
  int i = 1;
  for (; !(x & 1); x >>= 1) ++i;
  return i;
}
inline std::uint64_t brev(std::uint64_t x, int width) {
  std::uint64_t r = 0;
  for (int b = 0; b < width; ++b) r |= ((x >> b) & 1) << (width - 1 - b);
  return r;
}
// High 64 bits of a 64x64 product from 32-bit halves (no __int128 needed).
inline std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
  const std::uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
// __byte_perm(x, y, s): byte k of the result is byte (s >> 4k) & 7 of the 8-byte value y:x.
inline std::uint32_t bytePerm(std::uint32_t x, std::uint32_t y, std::uint32_t s) {
  const std::uint64_t v = (std::uint64_t(y) << 32) | x;
  std::uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= std::uint32_t((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
}
// Funnel shifts of hi:lo: left returns the high word of (hi:lo) << s, right the low word of >> s.
inline std::uint32_t funnelLeft(std::uint32_t lo, std::uint32_t hi, std::uint32_t s) {
  return std::uint32_t(((std::uint64_t(hi) << 32 | lo) << s) >> 32);
}
inline std::uint32_t funnelRight(std::uint32_t lo, std::uint32_t hi, std::uint32_t s) {
  return std::uint32_t((std::uint64_t(hi) << 32 | lo) >> s);
}
inline std::uint32_t sar32(std::uint32_t x, std::uint32_t r) {  // arithmetic shift right, r < 32
  const std::uint32_t fill = (x & 0x80000000u) && r ? ~(0xffffffffu >> r) : 0u;
  return (x >> r) | fill;
}

}  // namespace ref

int main(int argc, char** argv) {
  const int n = 16384;
  Rng rng(seedFrom(argc, argv));
  std::vector<std::uint32_t> in = rng.words(n);
  const std::uint32_t specials[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x00010000u, 0xdeadbeefu};
  for (std::size_t k = 0; k < sizeof specials / sizeof specials[0] && k < in.size(); ++k) in[k] = specials[k];

  constexpr int K32 = 14, K64 = 4;
  std::vector<unsigned> want(std::size_t(K32) * n);
  std::vector<unsigned long long> want64(std::size_t(K64) * n);
  for (int i = 0; i < n; ++i) {
    const std::uint32_t x = in[i], h = ref::fmix32(x);
    auto at = [&](int k) -> unsigned& { return want[std::size_t(k) * n + i]; };
    at(0) = h;
    at(1) = ref::xorshift32(x);
    at(2) = std::uint32_t((std::uint64_t(x) * 0x9e3779b9u) >> 32);
    at(3) = std::uint32_t(ref::popc64(x) | (ref::clz64(x, 32) << 8) | (ref::ffs64(x) << 16));
    at(4) = std::uint32_t(ref::brev(x, 32));
    at(5) = ref::bytePerm(x, h, 0x7531);
    at(6) = ref::funnelLeft(x, h, h & 31);
    at(7) = ref::funnelRight(x, h, h & 31);
    at(8) = ref::funnelLeft(x, h, (h & 63) > 32 ? 32 : (h & 63));  // the clamping variant
    at(9) = std::uint32_t(std::uint64_t(std::int64_t(std::int32_t(x)) * std::int64_t(std::int32_t(h))) >> 32);
    at(10) = x / (h | 1u);
    at(11) = x % (h | 1u);
    const std::uint32_t r = h & 31;
    at(12) = (x << r) | (x >> ((32 - r) & 31));
    at(13) = ref::sar32(x, r);
    const std::uint64_t xh = (std::uint64_t(x) << 32) | h;
    want64[0 * std::size_t(n) + i] = ref::splitmix64(xh);
    want64[1 * std::size_t(n) + i] = ref::mulhi64(xh, 0x9e3779b97f4a7c15ull);
    want64[2 * std::size_t(n) + i] =
        std::uint64_t(ref::popc64(xh) | (ref::clz64(xh, 64) << 8) | (ref::ffs64(xh) << 16));
    want64[3 * std::size_t(n) + i] = ref::brev(xh, 64);
  }

  const unsigned* din = upload(in);
  unsigned* dout = deviceZeros<unsigned>(want.size());
  unsigned long long* dout64 = deviceZeros<unsigned long long>(want64.size());
  int_hash<<<blocksFor(n, 128), 128>>>(din, dout, dout64, n);
  CHECK_LAUNCH("int_hash");
  static const char* const names[K32] = {"fmix32", "xorshift32", "umulhi", "popc|clz|ffs", "brev", "byte_perm",
                                         "funnelshift_l", "funnelshift_r", "funnelshift_lc", "mulhi", "div", "rem",
                                         "rotl", "sar"};
  static const char* const names64[K64] = {"splitmix64", "umul64hi", "popcll|clzll|ffsll", "brevll"};
  const std::vector<unsigned> got = download(dout, want.size());
  if (long i = firstDifference(got, want); i >= 0)
    return failed(mismatchMessage(names[i / n], i % n, got[i], want[i]) + " for x=" + std::to_string(in[i % n]));
  const std::vector<unsigned long long> got64 = download(dout64, want64.size());
  if (long i = firstDifference(got64, want64); i >= 0)
    return failed(mismatchMessage(names64[i / n], i % n, got64[i], want64[i]) + " for x=" + std::to_string(in[i % n]));
  return passed(std::to_string(n) + " words x " + std::to_string(K32 + K64) + " hash/bit results match exactly");
}
