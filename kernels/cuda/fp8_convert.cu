// 8-bit float conversions (sm_89+): pairs of floats to e4m3x2 and e5m2x2 with saturation to the
// largest finite value (cvt.rn.satfinite), and back to half2 (exact). One pair per thread; any n.
#include <cuda_fp16.h>
#include <cuda_fp8.h>

extern "C" __global__ void fp8_convert(const float2* __restrict__ in, unsigned short* __restrict__ e4m3,
                                       unsigned short* __restrict__ e5m2, unsigned* __restrict__ back4,
                                       unsigned* __restrict__ back5, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_fp8x2_storage_t q4 = __nv_cvt_float2_to_fp8x2(in[i], __NV_SATFINITE, __NV_E4M3);
  const __nv_fp8x2_storage_t q5 = __nv_cvt_float2_to_fp8x2(in[i], __NV_SATFINITE, __NV_E5M2);
  e4m3[i] = q4;
  e5m2[i] = q5;
  const __half2_raw h4 = __nv_cvt_fp8x2_to_halfraw2(q4, __NV_E4M3);
  const __half2_raw h5 = __nv_cvt_fp8x2_to_halfraw2(q5, __NV_E5M2);
  back4[i] = unsigned(h4.x) | unsigned(h4.y) << 16;
  back5[i] = unsigned(h5.x) | unsigned(h5.y) << 16;
}
