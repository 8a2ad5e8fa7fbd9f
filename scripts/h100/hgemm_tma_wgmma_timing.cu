// Silicon timing of the suite's TMA + wgmma GEMM (kernels/cuda/hgemm_tma_wgmma.cu, issue 10) on an
// H100 or H200 (both GH100). For each size M x N x K: inputs k/1024 in binary16 (exact), one launch
// checked against a double-precision reference on 2048 sampled elements (the suite's tolerance,
// 1e-5 rel + 1e-6 K abs), then `reps` back-to-back launches timed with CUDA events (launch gaps
// included): microseconds a launch and dense TFLOP/s. The suite's sizes are 256s x 256s x 512s.
//   nvcc -O2 -arch=sm_90a -cudart shared -I. scripts/h100/hgemm_tma_wgmma_timing.cu -o hgt_timing
//   ./hgt_timing [M N K ...]   (CSV on stdout; "once M N K": one launch, for ncu)
#include "kernels/cuda/hgemm_tma_wgmma.cu"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "scripts/h100/cuda_check.h"

static uint16_t halfOf(int k) {
  if (k == 0) return 0;
  const uint16_t sign = k < 0 ? 0x8000 : 0;
  const unsigned m = unsigned(std::abs(k));
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;
  const unsigned frac = (m << (10 - e)) & 0x3FF;
  return uint16_t(sign | unsigned(e - 10 + 15) << 10 | frac);
}

static PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status));
  if (!fn) std::exit(2);
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

static CUtensorMap halfMap(const void* base, uint64_t rows, uint64_t cols, uint32_t box_cols, uint32_t box_rows) {
  alignas(64) CUtensorMap map;
  const cuuint64_t dims[2] = {cols, rows}, strides[1] = {cols * 2};
  const cuuint32_t box[2] = {box_cols, box_rows}, es[2] = {1, 1};
  if (encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void*>(base), dims, strides, box, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    std::exit(2);
  return map;
}

static int runSize(int M, int N, int K, bool once) {
  std::mt19937_64 rng(uint64_t(M) * 1000003u + uint64_t(N) * 1009u + uint64_t(K));
  std::vector<uint16_t> A(size_t(M) * K), B(size_t(K) * N);
  std::vector<int> ai(A.size()), bi(B.size());
  for (size_t i = 0; i < A.size(); ++i) ai[i] = int(rng() % 2049) - 1024, A[i] = halfOf(ai[i]);
  for (size_t i = 0; i < B.size(); ++i) bi[i] = int(rng() % 2049) - 1024, B[i] = halfOf(bi[i]);
  void *dA, *dB;
  float* dC;
  CHECK(cudaMalloc(&dA, A.size() * 2));
  CHECK(cudaMalloc(&dB, B.size() * 2));
  CHECK(cudaMalloc(&dC, size_t(M) * N * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dC, 0, size_t(M) * N * 4));
  const CUtensorMap am = halfMap(dA, M, K, 64, 128), bm = halfMap(dB, K, N, 64, 64);
  CHECK(cudaFuncSetAttribute(hgemm_tma_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, HGT_SHARED_BYTES));
  const dim3 grid(N / 256, M / 128), block(288);
  hgemm_tma_wgmma<<<grid, block, HGT_SHARED_BYTES>>>(am, bm, M, N, K, dC);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  if (once) return 0;
  std::vector<float> C(size_t(M) * N);
  CHECK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
  double max_rel = 0;
  int bad = 0;
  for (int t = 0; t < 2048; ++t) {
    const int r = int(rng() % uint64_t(M)), c = int(rng() % uint64_t(N));
    double want = 0;
    for (int k = 0; k < K; ++k) want += double(ai[size_t(r) * K + k]) * double(bi[size_t(k) * N + c]);
    want /= 1024.0 * 1024.0;
    const double got = C[size_t(r) * N + c], err = std::fabs(got - want);
    if (err > 1e-5 * std::fabs(want) + 1e-6 * K) ++bad;
    if (std::fabs(want) > 1) max_rel = std::max(max_rel, err / std::fabs(want));
  }
  const double flop = 2.0 * M * N * K;
  const int reps = flop > 1e11 ? 20 : flop > 1e9 ? 100 : 500;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) hgemm_tma_wgmma<<<grid, block, HGT_SHARED_BYTES>>>(am, bm, M, N, K, dC);
  CHECK(cudaEventRecord(e0));
  for (int i = 0; i < reps; ++i) hgemm_tma_wgmma<<<grid, block, HGT_SHARED_BYTES>>>(am, bm, M, N, K, dC);
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  const double us = 1000.0 * ms / reps;
  std::printf("%d,%d,%d,%d,%d,%.3f,%.1f,%d,%.2e\n", M, N, K, grid.x * grid.y, reps, us, flop / us * 1e-6, bad,
              max_rel);
  std::fflush(stdout);
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  return bad ? 1 : 0;
}

int main(int argc, char** argv) {
  bool once = argc > 1 && std::string(argv[1]) == "once";
  std::vector<int> dims;
  for (int i = once ? 2 : 1; i < argc; ++i) dims.push_back(std::atoi(argv[i]));
  if (dims.empty())
    dims = {256, 256, 512, 512, 512, 1024, 1024, 1024, 2048, 2048, 2048, 4096, 4096, 4096, 4096, 4096, 4096, 4096,
            8192, 8192, 8192, 16384, 16384, 16384};
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int clk = 0;
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  if (!once) std::printf("# %s, %d SMs, max SM clock %d MHz\nM,N,K,blocks,reps,us_per_launch,tflops,bad_samples,max_rel_err\n", p.name, p.multiProcessorCount, clk / 1000);
  int rc = 0;
  for (size_t i = 0; i + 2 < dims.size(); i += 3) rc |= runSize(dims[i], dims[i + 1], dims[i + 2], once);
  return rc;
}
