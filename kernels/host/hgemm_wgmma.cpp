// hgemm_wgmma: C = A * B on the Hopper tensor cores with wgmma.mma_async (sm_90a), A and B half
// precision, C single; M x N x K = 128 x 256 x 256 (x scale each). Tiles come into 128-byte
// swizzled shared memory through cp.async (A K-major, B N-major), read by the wgmma through
// matrix descriptors. Reference: the exact products summed in double.
#include <cmath>

#include "kernels/workload.h"
#include "kernels/half_gemm.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int M = 128 * s, N = 256 * s, K = 256 * s;
  Rng rng(opt.seed);
  const HalfGemm g = makeHalfGemm(rng, M, N, K);
  const std::vector<std::uint16_t>& A = g.A;
  const std::vector<std::uint16_t>& B = g.B;
  const std::vector<float>& want = g.want;

  DeviceArena mem(rt);
  const driver::DevicePtr dA = mem.upload(A), dB = mem.upload(B), dC = mem.alloc(want.size() * sizeof(float));
  driver::Module& module = loadWorkloadModule(rt, "hgemm_wgmma", opt);
  // Products are exact and each 16-term block of the tensor cores truncates below 2^-25 of its
  // largest term and rounds toward zero (sm/exec/mma_arith.h): with |a|, |b| <= 1 the error is at
  // most K/16 blocks x 18 x 2^-24 x max(|C|, 1), well within 1e-5 rel + 1e-6 x K abs.
  const float rel = 1e-5f, abs = 1e-6f * float(K);
  std::string detail;
  for (const char* kernel : {"hgemm_wgmma"}) {
    rt.memset(dC, 0, want.size() * sizeof(float));
    driver::Function& fn = rt.getFunction(module, kernel);
    if (auto e = rt.launch(fn, driver::Dim3(N / 128, M / 64), driver::Dim3(128), 0,
                           driver::KernelArgs().add(M).add(N).add(K).add(dA).add(dB).add(dC));
        e != driver::Error::Success)
      return launchFailed(kernel, e);
    const std::vector<float> got = rt.download<float>(dC, want.size());
    if (long i = firstMismatch(got, want, rel, abs); i >= 0)
      return failed(std::string(kernel) + ": " + mismatchMessage("C", i, got[i], want[i]));
    detail += std::string(detail.empty() ? "" : ", ") + kernel;
  }
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " f16 wgmma GEMM (" + detail +
                "): " + std::to_string(want.size()) + " floats match within " + tolText(rel) + " rel + " +
                tolText(abs) + " abs");
}

// The PTX is nvcc's for sm_90a (wgmma exists there only), kept with the sm_90 PTX.
const WorkloadRegistrar reg({"hgemm_wgmma",
                             "half-precision GEMM with wgmma.mma_async (sm_90a), swizzled shared tiles via cp.async, "
                             "128x256x256",
                             "hgemm_wgmma", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
