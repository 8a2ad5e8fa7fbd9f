// sgemm_tiled: C = alpha*A*B + beta*C, M x N x K = 64 x 72 x 40 (x scale each), so that N and K
// are not multiples of the 16x16 tile and the edge guards run.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int M = 64 * s, N = 72 * s, K = 40 * s;
  const float alpha = 1.5f, beta = -0.5f;
  Rng rng(opt.seed);
  const std::vector<float> A = rng.floats(std::size_t(M) * K, -1.0f, 1.0f);
  const std::vector<float> B = rng.floats(std::size_t(K) * N, -1.0f, 1.0f);
  const std::vector<float> C = rng.floats(std::size_t(M) * N, -1.0f, 1.0f);
  std::vector<float> want(std::size_t(M) * N);
  for (int r = 0; r < M; ++r) {
    for (int c = 0; c < N; ++c) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += double(A[std::size_t(r) * K + k]) * B[std::size_t(k) * N + c];
      want[std::size_t(r) * N + c] = float(alpha * acc + beta * double(C[std::size_t(r) * N + c]));
    }
  }

  DeviceArena mem(rt);
  const driver::DevicePtr dA = mem.upload(A), dB = mem.upload(B), dC = mem.upload(C);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "sgemm_tiled", opt), "sgemm_tiled");
  const driver::Dim3 block(16, 16), grid(blocksFor(N, 16), blocksFor(M, 16));
  if (auto e = rt.launch(fn, grid, block, 0,
                         driver::KernelArgs().add(M).add(N).add(K).add(alpha).add(dA).add(dB).add(beta).add(dC));
      e != driver::Error::Success)
    return launchFailed("sgemm_tiled", e);
  const std::vector<float> got = rt.download<float>(dC, want.size());
  // K float FMAs against a double reference: error <= K * eps * sum|a*b| <= K * 6e-8 * K worst
  // case, ~sqrt(K) * eps typically; with |a|,|b| <= 1: 1e-5 rel + 2e-6 * K abs.
  const float rel = 1e-5f, abs = 2e-6f * float(K);
  if (long i = firstMismatch(got, want, rel, abs); i >= 0) return failed(mismatchMessage("C", i, got[i], want[i]));
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " sgemm: " +
                std::to_string(want.size()) + " floats match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}

const WorkloadRegistrar reg({"sgemm_tiled", "single-precision GEMM with 16x16 shared-memory tiles, 64x72x40",
                             "sgemm_tiled", {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
