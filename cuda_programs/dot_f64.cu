// dot_f64: double precision over 4096 elements: f64_math (fma, sqrt, division: bit-exact; exp,
// log, sin, cos, rsqrt from libdevice: within 1e-14 rel) and dot_f64 (grid-stride fma chains, a
// shared-memory tree per block and one double atomicAdd per block).
// Plain CUDA runtime port of kernels/host/dot_f64.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: dot_f64 [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/dot_f64.cu"

#define CUDA_PROGRAM_NAME "dot_f64"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

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
