// hgemm_tensor: C = A * B on the tensor cores, A and B half precision, C single; M x N x K =
// 64 x 96 x 64, with hgemm_mma (mma.sync.m16n8k16 + ldmatrix), hgemm_wmma (CUDA's wmma) and
// hgemm_mma_async (cp.async double buffering); grid (N/32, M/32), 128 threads. Needs sm_80+:
// built with -arch=sm_90. Reference: the exact products summed in double.
// Plain CUDA runtime port of kernels/host/hgemm_tensor.cpp (the suite at scale 1); the kernels are
// the suite's own. Usage: hgemm_tensor [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/hgemm_tensor.cu"

#include <algorithm>

#define CUDA_PROGRAM_NAME "hgemm_tensor"
#include "../kernels/half_gemm.h"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int M = 64, N = 96, K = 64;
  Rng rng(seedFrom(argc, argv));
  const scgpu::kernels::HalfGemm g = scgpu::kernels::makeHalfGemm(rng, M, N, K);  // the suite's inputs and reference
  const std::vector<std::uint16_t>& A = g.A;
  const std::vector<std::uint16_t>& B = g.B;
  const std::vector<float>& want = g.want;

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
