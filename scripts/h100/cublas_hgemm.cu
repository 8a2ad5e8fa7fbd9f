// cuBLAS's dense FP16 GEMM (f16 inputs, f32 accumulate and output) on the same sizes as
// hgemm_tma_wgmma_timing.cu: the silicon's tuned throughput, beside the suite kernel's.
// cudaEvents over back-to-back calls after 3 warm-ups. Row-major C = A B is computed as the
// column-major C^T = B^T A^T.
//   nvcc -O2 -arch=sm_90a scripts/h100/cublas_hgemm.cu -lcublas -o cublas_hgemm && ./cublas_hgemm
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda_check.h"

int main() {
  const int sizes[][3] = {{256, 256, 512}, {512, 512, 1024}, {1024, 1024, 2048}, {2048, 2048, 4096},
                          {4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 16384}};
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  std::printf("M,N,K,reps,us_per_call,tflops\n");
  for (const auto& s : sizes) {
    const int M = s[0], N = s[1], K = s[2];
    __half *A, *B;
    float* C;
    CHECK(cudaMalloc(&A, size_t(M) * K * 2));
    CHECK(cudaMalloc(&B, size_t(K) * N * 2));
    CHECK(cudaMalloc(&C, size_t(M) * N * 4));
    CHECK(cudaMemset(A, 0x3c, size_t(M) * K * 2));
    CHECK(cudaMemset(B, 0x3c, size_t(K) * N * 2));
    const float one = 1, zero = 0;
    auto call = [&] {
      return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16F, N, A, CUDA_R_16F, K, &zero, C,
                          CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    for (int i = 0; i < 3; ++i)
      if (call() != CUBLAS_STATUS_SUCCESS) return 1;
    const double flop = 2.0 * M * N * K;
    const int reps = flop > 1e11 ? 20 : flop > 1e9 ? 100 : 500;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    for (int i = 0; i < reps; ++i) call();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    const double us = 1000.0 * ms / reps;
    std::printf("%d,%d,%d,%d,%.3f,%.1f\n", M, N, K, reps, us, flop / us * 1e-6);
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
  }
  cublasDestroy(h);
  return 0;
}
