// dgemm_tiled: C = alpha*A*B + beta*C in double, M x N x K = 64 x 72 x 40 (x scale each).
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int M = 64 * s, N = 72 * s, K = 40 * s;
  const double alpha = 1.5, beta = -0.5;
  Rng rng(opt.seed);
  const std::vector<double> A = rng.doubles(std::size_t(M) * K, -1.0, 1.0);
  const std::vector<double> B = rng.doubles(std::size_t(K) * N, -1.0, 1.0);
  const std::vector<double> C = rng.doubles(std::size_t(M) * N, -1.0, 1.0);
  std::vector<double> want(std::size_t(M) * N);
  for (int r = 0; r < M; ++r) {
    for (int c = 0; c < N; ++c) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += A[std::size_t(r) * K + k] * B[std::size_t(k) * N + c];
      want[std::size_t(r) * N + c] = alpha * acc + beta * C[std::size_t(r) * N + c];
    }
  }

  DeviceArena mem(rt);
  const driver::DevicePtr dA = mem.upload(A), dB = mem.upload(B), dC = mem.upload(C);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "dgemm_tiled", opt), "dgemm_tiled");
  const driver::Dim3 block(16, 16), grid(blocksFor(N, 16), blocksFor(M, 16));
  if (auto e = rt.launch(fn, grid, block, 0,
                         driver::KernelArgs().add(M).add(N).add(K).add(alpha).add(dA).add(dB).add(beta).add(dC));
      e != driver::Error::Success)
    return launchFailed("dgemm_tiled", e);
  const std::vector<double> got = rt.download<double>(dC, want.size());
  // The kernel fuses multiply-adds, the reference does not: both round K times, error <=
  // K * 1.1e-16 * sum|a*b| with |a|,|b| <= 1.
  const double rel = 1e-12, abs = 1e-15 * K * K;
  if (long i = firstMismatch(got, want, rel, abs); i >= 0) return failed(mismatchMessage("C", i, got[i], want[i]));
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " dgemm: " +
                std::to_string(want.size()) + " doubles match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}

const WorkloadRegistrar reg({"dgemm_tiled", "double-precision GEMM with 16x16 shared-memory tiles, 64x72x40",
                             "dgemm_tiled", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
