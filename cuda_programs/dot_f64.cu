// dot_f64: double precision over 4096 elements: f64_math (fma, sqrt, division: bit-exact; exp,
// log, sin, cos, rsqrt from libdevice: within 1e-14 rel) and dot_f64 (grid-stride fma chains, a
// shared-memory tree per block and one double atomicAdd per block).
// Plain CUDA runtime port of kernels/host/dot_f64.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: dot_f64 [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/dot_f64.cu"

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
inline const char* const kWorkload = "dot_f64";

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
  const int n = 4096;
  Rng rng(seedFrom(argc, argv));
  const std::vector<double> x = rng.doubles(n, -4.0, 4.0);
  std::vector<double> y = rng.doubles(n, -4.0, 4.0);
  for (double& v : y)
    if (std::fabs(v) < 1e-3) v = 1.0;  // keep x / y finite

  constexpr int K = 8;
  std::vector<double> want(std::size_t(K) * n);
  double dot = 0.0, dot_abs = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = x[i], b = y[i];
    auto at = [&](int k) -> double& { return want[std::size_t(k) * n + i]; };
    at(0) = std::fma(a, b, 1.0);
    at(1) = std::sqrt(std::fabs(a));
    at(2) = a / b;
    at(3) = std::exp(a);
    at(4) = std::log(std::fabs(b) + 0.5);
    at(5) = std::sin(8.0 * a);
    at(6) = std::cos(a);
    at(7) = 1.0 / std::sqrt(std::fabs(a) + 1.0);
    dot += a * b;
    dot_abs += std::fabs(a * b);
  }

  const double* dx = upload(x);
  const double* dy = upload(y);
  double* dout = deviceZeros<double>(want.size());
  double* ddot = deviceZeros<double>(1);
  f64_math<<<blocksFor(n, 128), 128>>>(dx, dy, dout, n);
  CHECK_LAUNCH("f64_math");
  dot_f64<<<blocksFor(n, 256, 16), 256>>>(dx, dy, ddot, n);
  CHECK_LAUNCH("dot_f64");

  static const char* const names[K] = {"fma", "sqrt", "div", "exp", "log", "sin", "cos", "rsqrt"};
  const std::vector<double> got = download(dout, want.size());
  // fma, sqrt and division are correctly rounded on both sides: exact. libdevice's exp, log, sin,
  // cos and rsqrt are within 1-2 ulp, the host libm within 1: 1e-14 relative (~45 ulp) is generous.
  for (int k = 0; k < K; ++k) {
    const std::vector<double> g(got.begin() + std::ptrdiff_t(k) * n, got.begin() + std::ptrdiff_t(k + 1) * n);
    const std::vector<double> w(want.begin() + std::ptrdiff_t(k) * n, want.begin() + std::ptrdiff_t(k + 1) * n);
    const double rel = k < 3 ? 0.0 : 1e-14, abs = k < 3 ? 0.0 : 1e-15;
    if (long i = firstMismatch(g, w, rel, abs); i >= 0) return failed(mismatchMessage(names[k], i, g[i], w[i]));
  }
  // The dot product sums in another order (per-thread fma chains, a tree, atomics):
  // error <= n * 1.1e-16 * sum|x*y|.
  const double got_dot = download(ddot, 1)[0];
  const double dot_tol = double(n) * 0x1p-53 * dot_abs;
  if (std::fabs(got_dot - dot) > dot_tol) return failed(mismatchMessage("dot", 0, got_dot, dot));
  return passed(std::to_string(n) + " x 8 double results (fma/sqrt/div exact, libdevice within 1e-14 rel) and the dot "
                "product within n*eps*sum|xy| match");
}
