// hgemm_tensor: C = A * B on the tensor cores, A and B half precision, C single; M x N x K =
// 64 x 96 x 64, with hgemm_mma (mma.sync.m16n8k16 + ldmatrix), hgemm_wmma (CUDA's wmma) and
// hgemm_mma_async (cp.async double buffering); grid (N/32, M/32), 128 threads. Needs sm_80+:
// built with -arch=sm_90. Reference: the exact products summed in double.
// Plain CUDA runtime port of kernels/host/hgemm_tensor.cpp (the suite at scale 1); the kernels are
// the suite's own. Usage: hgemm_tensor [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/hgemm_tensor.cu"

#include <algorithm>

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
inline const char* const kWorkload = "hgemm_tensor";

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
// k / 1024 for |k| <= 1024 in binary16 (exact: at most 11 significant bits).
inline std::uint16_t halfOf(int k) {
  if (k == 0) return 0;
  const std::uint16_t sign = k < 0 ? 0x8000 : 0;
  const unsigned m = unsigned(std::abs(k));
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;  // 2^e <= m < 2^(e+1)
  const unsigned frac = (m << (10 - e)) & 0x3FF;
  return std::uint16_t(sign | unsigned(e - 10 + 15) << 10 | frac);
}

int main(int argc, char** argv) {
  const int M = 64, N = 96, K = 64;
  Rng rng(seedFrom(argc, argv));
  std::vector<std::uint16_t> A(std::size_t(M) * K), B(std::size_t(K) * N);
  std::vector<double> a(A.size()), b(B.size());
  for (std::size_t i = 0; i < A.size(); ++i) {
    const int k = int(rng.range(-1024, 1024));
    A[i] = halfOf(k);
    a[i] = k / 1024.0;
  }
  for (std::size_t i = 0; i < B.size(); ++i) {
    const int k = int(rng.range(-1024, 1024));
    B[i] = halfOf(k);
    b[i] = k / 1024.0;
  }
  std::vector<float> want(std::size_t(M) * N);
  std::vector<double> row(N);
  for (int r = 0; r < M; ++r) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int k = 0; k < K; ++k) {
      const double x = a[std::size_t(r) * K + k];
      for (int c = 0; c < N; ++c) row[c] += x * b[std::size_t(k) * N + c];
    }
    for (int c = 0; c < N; ++c) want[std::size_t(r) * N + c] = float(row[c]);
  }

  const __half* dA = reinterpret_cast<const __half*>(upload(A));
  const __half* dB = reinterpret_cast<const __half*>(upload(B));
  float* dC = deviceAlloc<float>(want.size());
  // Products are exact and each 16-term block of the tensor cores truncates below 2^-25 of its
  // largest term and rounds toward zero: with |a|, |b| <= 1 the error is at most K/16 blocks x
  // 18 x 2^-24 x max(|C|, 1), well within 1e-5 rel + 1e-6 x K abs.
  const float rel = 1e-5f, abs = 1e-6f * float(K);
  struct Variant {
    const char* name;
    void (*kernel)(int, int, int, const __half*, const __half*, float*);
  };
  const Variant variants[] = {{"hgemm_mma", hgemm_mma}, {"hgemm_wmma", hgemm_wmma}, {"hgemm_mma_async", hgemm_mma_async}};
  std::string detail;
  for (const Variant& v : variants) {
    CHECK(cudaMemset(dC, 0, want.size() * sizeof(float)));
    v.kernel<<<dim3(N / 32, M / 32), dim3(128)>>>(M, N, K, dA, dB, dC);
    CHECK_LAUNCH(v.name);
    const std::vector<float> got = download(dC, want.size());
    if (long i = firstMismatch(got, want, rel, abs); i >= 0)
      return failed(std::string(v.name) + ": " + mismatchMessage("C", i, got[i], want[i]));
    detail += std::string(detail.empty() ? "" : ", ") + v.name;
  }
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " f16 GEMM (" + detail +
                "): " + std::to_string(want.size()) + " floats match within " + tolText(rel) + " rel + " +
                tolText(abs) + " abs");
}
