// printf: device printf of ints, floats, a string and a char (%d %u %x %lld %f %.3f %e %s %c %%)
// from lanes 0..3 of warp 1 of block 1 of print_values (grid 2 x 64 threads).
// Plain CUDA runtime port of kernels/host/printf.cpp (the suite at scale 1); the kernel is the
// suite's own. The device output goes to stdout (flushed by cudaDeviceSynchronize) and is NOT
// checked here: the suite's host program compares it with the same format applied on the host; a
// caller of this program can compare stdout with the 4 lines `expected_lines` builds below.
// Usage: printf [seed]. Prints PASSED (unless a CUDA call fails); exit 0, or 2 on a CUDA error.
#include "../kernels/cuda/printf.cu"

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
inline const char* const kWorkload = "printf";

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
int main(int argc, char** argv) {
  Rng rng(seedFrom(argc, argv));
  const std::vector<std::int32_t> ints = rng.ints(4, -100000, 100000);
  std::vector<float> floats(4);
  for (float& f : floats) f = float(rng.range(-4096, 4096)) / 64.0f;  // short exact decimals
  // What the device should print, one line per lane (kept for reference; not compared here).
  std::string expected_lines;
  for (int lane = 0; lane < 4; ++lane) {
    char line[256];
    const int v = ints[lane];
    const float f = floats[lane];
    std::snprintf(line, sizeof line, "block %d warp %d lane %d: d=%d u=%u x=%x ll=%lld f=%f g=%.3f e=%e s=%s c=%c %%\n",
                  1, 1, lane, v, unsigned(v), unsigned(v), static_cast<long long>(v) * 1000000007LL, double(f),
                  double(f * 2.0f), double(f), (lane & 1) ? "odd" : "even", 'A' + lane);
    expected_lines += line;
  }

  const int* dints = upload(ints);
  const float* dfloats = upload(floats);
  std::fflush(stdout);  // host output so far before the device's
  print_values<<<2, 64>>>(dints, dfloats);
  CHECK_LAUNCH("print_values");  // cudaDeviceSynchronize flushes the device printf buffer
  std::fflush(stdout);
  return passed("print_values ran; 4 lines expected above (\"block 1 warp 1 lane 0..3: ...\", " +
                std::to_string(expected_lines.size()) + " bytes), not checked by this program");
}
