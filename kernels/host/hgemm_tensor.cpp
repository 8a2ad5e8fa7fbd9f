// hgemm_tensor: C = A * B on the tensor cores, A and B half precision, C single; M x N x K =
// 64 x 96 x 64 (x scale each), once with mma.sync + ldmatrix (hgemm_mma) and once with CUDA's wmma
// (hgemm_wmma), and with cp.async double buffering (hgemm_mma_async). Reference: the exact products
// summed in double.
#include <cmath>

#include "kernels/workload.h"
#include "kernels/half_gemm.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int M = 64 * s, N = 96 * s, K = 64 * s;
  Rng rng(opt.seed);
  const HalfGemm g = makeHalfGemm(rng, M, N, K);
  const std::vector<std::uint16_t>& A = g.A;
  const std::vector<std::uint16_t>& B = g.B;
  const std::vector<float>& want = g.want;

  DeviceArena mem(rt);
  const driver::DevicePtr dA = mem.upload(A), dB = mem.upload(B), dC = mem.alloc(want.size() * sizeof(float));
  driver::Module& module = loadWorkloadModule(rt, "hgemm_tensor", opt);
  // Products are exact and each 16-term block of the tensor cores truncates below 2^-25 of its
  // largest term and rounds toward zero (sm/exec/mma_arith.h): with |a|, |b| <= 1 the error is at
  // most K/16 blocks x 18 x 2^-24 x max(|C|, 1), well within 1e-5 rel + 1e-6 x K abs.
  const float rel = 1e-5f, abs = 1e-6f * float(K);
  std::string detail;
  for (const char* kernel : {"hgemm_mma", "hgemm_wmma", "hgemm_mma_async"}) {
    rt.memset(dC, 0, want.size() * sizeof(float));
    driver::Function& fn = rt.getFunction(module, kernel);
    if (auto e = rt.launch(fn, driver::Dim3(N / 32, M / 32), driver::Dim3(128), 0,
                           driver::KernelArgs().add(M).add(N).add(K).add(dA).add(dB).add(dC));
        e != driver::Error::Success)
      return launchFailed(kernel, e);
    const std::vector<float> got = rt.download<float>(dC, want.size());
    if (long i = firstMismatch(got, want, rel, abs); i >= 0)
      return failed(std::string(kernel) + ": " + mismatchMessage("C", i, got[i], want[i]));
    detail += std::string(detail.empty() ? "" : ", ") + kernel;
  }
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " f16 GEMM (" + detail +
                "): " + std::to_string(want.size()) + " floats match within " + tolText(rel) + " rel + " +
                tolText(abs) + " abs");
}

const WorkloadRegistrar reg({"hgemm_tensor",
                             "half-precision GEMM on the tensor cores (mma.sync + ldmatrix, wmma, cp.async), 64x96x64",
                             "hgemm_tensor", {"sm_90", "sm_80"}, run});

}  // namespace
}  // namespace scgpu::kernels
