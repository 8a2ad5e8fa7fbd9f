// tma_transpose: out = in^T for a 313 x 500 float matrix through the copy engine (TMA, sm_90):
// 32 x 32 tiles loaded and stored by cp.async.bulk.tensor through two tensor maps made with
// cuTensorMapEncodeTiled, which a runtime program gets from cudaGetDriverEntryPoint (no libcuda
// link). The load uses the 128-byte swizzle; both dimensions end in partial tiles (zero fill on
// load, clipping on store). Output rows are padded to 316 floats (strides must be multiples of
// 16 bytes); the padding must stay untouched. Built with -arch=sm_90.
// Plain CUDA runtime port of kernels/host/tma_transpose.cpp (the suite at scale 1); the kernel is
// the suite's own. Usage: tma_transpose [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/tma_transpose.cu"

#include <cudaTypedefs.h>

#define CUDA_PROGRAM_NAME "tma_transpose"
#include "program_support.cuh"

// A 2-d float tensor map over a rows x cols matrix whose rows are `pitch` floats apart, 32 x 32 boxes.
static CUtensorMap floatMap(PFN_cuTensorMapEncodeTiled_v12000 encode, float* base, std::uint64_t rows,
                            std::uint64_t cols, std::uint64_t pitch, CUtensorMapSwizzle swizzle) {
  alignas(64) CUtensorMap map;
  const cuuint64_t dims[2] = {cols, rows}, strides[1] = {pitch * sizeof(float)};
  const cuuint32_t box[2] = {32, 32}, element_strides[2] = {1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
    std::exit(2);
  }
  return map;
}

int main(int argc, char** argv) {
  Rng rng(seedFrom(argc, argv));
  const unsigned rows = 313, cols = 500, out_pitch = (rows + 3) / 4 * 4;
  std::vector<float> in(std::size_t(rows) * cols);
  for (auto& v : in) v = rng.uniform(-1.0f, 1.0f);

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || !fn) return failed("cudaGetDriverEntryPoint found no cuTensorMapEncodeTiled");
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);

  float* din = upload(in);
  float* dout = deviceZeros<float>(std::size_t(cols) * out_pitch);
  const CUtensorMap in_map = floatMap(encode, din, rows, cols, cols, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap out_map = floatMap(encode, dout, cols, rows, out_pitch, CU_TENSOR_MAP_SWIZZLE_NONE);
  tma_transpose<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8)>>>(in_map, out_map);
  CHECK_LAUNCH("tma_transpose");
  const std::vector<float> got = download(dout, std::size_t(cols) * out_pitch);
  for (unsigned c = 0; c < cols; ++c)
    for (unsigned r = 0; r < out_pitch; ++r) {
      const float want = r < rows ? in[std::size_t(r) * cols + c] : 0.0f;
      const float g = got[std::size_t(c) * out_pitch + r];
      if (g != want) return failed(mismatchMessage("out", long(c) * out_pitch + r, g, want));
    }
  return passed(std::to_string(rows) + " x " + std::to_string(cols) + " floats transposed through TMA tiles: bit-exact");
}
