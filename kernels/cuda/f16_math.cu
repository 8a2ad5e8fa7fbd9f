// Half-precision arithmetic and conversions.
//   f16_arith:   per element i (a, b, c floats, converted to __half with round-to-nearest):
//                out[k*n+i] for k = 0 add, 1 sub, 2 mul, 3 fma, 4 (a < b ? a : b), 5 -a,
//                6 / 7 low / high half of __hfma2(h2(a,b), h2(c,a), __hadd2(h2(a,b), h2(c,a))).
//   f16_convert: float -> half (rn) bits, half -> float, float -> bfloat16 (rn) bits,
//                bfloat16 -> float, half -> int (rz).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void f16_arith(const float* __restrict__ a, const float* __restrict__ b,
                                     const float* __restrict__ c, __half* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half ha = __float2half_rn(a[i]), hb = __float2half_rn(b[i]), hc = __float2half_rn(c[i]);
  out[0 * n + i] = __hadd(ha, hb);
  out[1 * n + i] = __hsub(ha, hb);
  out[2 * n + i] = __hmul(ha, hb);
  out[3 * n + i] = __hfma(ha, hb, hc);
  out[4 * n + i] = __hlt(ha, hb) ? ha : hb;
  out[5 * n + i] = __hneg(ha);
  __half2 p = __halves2half2(ha, hb), q = __halves2half2(hc, ha);
  __half2 s = __hadd2(p, q);
  __half2 f = __hfma2(p, q, s);
  out[6 * n + i] = __low2half(f);
  out[7 * n + i] = __high2half(f);
}

extern "C" __global__ void f16_convert(const float* __restrict__ x, unsigned short* __restrict__ half_bits,
                                       float* __restrict__ half_back, unsigned short* __restrict__ bf16_bits,
                                       float* __restrict__ bf16_back, int* __restrict__ half_int, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = x[i];
    __half h = __float2half_rn(v);
    __nv_bfloat16 bf = __float2bfloat16_rn(v);
    half_bits[i] = __half_as_ushort(h);
    half_back[i] = __half2float(h);
    bf16_bits[i] = __bfloat16_as_ushort(bf);
    bf16_back[i] = __bfloat162float(bf);
    half_int[i] = __half2int_rz(h);
  }
}
