// hgemm_tma_wgmma: C = A * B with TMA-fed wgmma, A and B half precision, C single; M x N x K =
// 256 x 256 x 512. A producer thread loads tiles with cp.async.bulk.tensor through two tensor maps
// made with cuTensorMapEncodeTiled (from cudaGetDriverEntryPoint: no libcuda link), 128-byte
// swizzle, into a 4-stage ring of full/empty mbarriers; two consumer warpgroups run
// wgmma.mma_async m64n256k16. Grid (N/256, M/128), 288 threads, 193 KiB of dynamic shared memory
// (opted in with cudaFuncSetAttribute). wgmma exists on sm_90a only: built with -arch=sm_90a.
// Reference: the exact products summed in double.
// Plain CUDA runtime port of kernels/host/hgemm_tma_wgmma.cpp (the suite at scale 1); the kernel is
// the suite's own. Usage: hgemm_tma_wgmma [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/hgemm_tma_wgmma.cu"

#include <cudaTypedefs.h>

#include <algorithm>

#define CUDA_PROGRAM_NAME "hgemm_tma_wgmma"
#include "../kernels/half_gemm.h"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
// A 2-d f16 tensor map over a rows x cols row-major matrix, box_cols x box_rows boxes, 128B swizzle.
static CUtensorMap halfMap(PFN_cuTensorMapEncodeTiled_v12000 encode, const void* base, std::uint64_t rows,
                           std::uint64_t cols, std::uint32_t box_cols, std::uint32_t box_rows) {
  alignas(64) CUtensorMap map;
  const cuuint64_t dims[2] = {cols, rows}, strides[1] = {cols * 2};
  const cuuint32_t box[2] = {box_cols, box_rows}, element_strides[2] = {1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
    std::exit(2);
  }
  return map;
}

int main(int argc, char** argv) {
  const int M = 256, N = 256, K = 512;
  Rng rng(seedFrom(argc, argv));
  const scgpu::kernels::HalfGemm g = scgpu::kernels::makeHalfGemm(rng, M, N, K);  // the suite's inputs and reference
  const std::vector<std::uint16_t>& A = g.A;
  const std::vector<std::uint16_t>& B = g.B;
  const std::vector<float>& want = g.want;

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || !fn) return failed("cudaGetDriverEntryPoint found no cuTensorMapEncodeTiled");
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);

  const void* dA = upload(A);
  const void* dB = upload(B);
  float* dC = deviceZeros<float>(want.size());
  const CUtensorMap a_map = halfMap(encode, dA, M, K, 64, 128);  // 64 K x 128 rows
  const CUtensorMap b_map = halfMap(encode, dB, K, N, 64, 64);   // 64 columns x 64 K-rows
  CHECK(cudaFuncSetAttribute(hgemm_tma_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, HGT_SHARED_BYTES));
  hgemm_tma_wgmma<<<dim3(N / 256, M / 128), dim3(288), HGT_SHARED_BYTES>>>(a_map, b_map, M, N, K, dC);
  CHECK_LAUNCH("hgemm_tma_wgmma");
  // Products are exact and each 16-term block of the tensor cores truncates below 2^-25 of its
  // largest term and rounds toward zero: with |a|, |b| <= 1 the error is at most K/16 blocks x
  // 18 x 2^-24 x max(|C|, 1), well within 1e-5 rel + 1e-6 x K abs.
  const float rel = 1e-5f, abs = 1e-6f * float(K);
  const std::vector<float> got = download(dC, want.size());
  if (long i = firstMismatch(got, want, rel, abs); i >= 0)
    return failed(std::string("hgemm_tma_wgmma: ") + mismatchMessage("C", i, got[i], want[i]));
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
                " f16 GEMM, TMA ring + wgmma: " + std::to_string(want.size()) + " floats match within " +
                tolText(rel) + " rel + " + tolText(abs) + " abs");
}
