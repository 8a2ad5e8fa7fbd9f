// Tensor-core probe for the H100 (issue 10): every mma.sync shape and type that nvcc emits for
// sm_80/sm_90, ldmatrix, movmatrix and CUDA's wmma, run on register words drawn by
// validation/tensor/mma_inputs.h; writes each variant's output words (bit for bit, the model's
// reference: docs/data/h100_mma_bits.txt) and the latency and throughput of the main mma forms
// (docs/data/h100_mma_timing.csv).
//   nvcc -O2 -arch=sm_90 -I. scripts/h100/mma_bits.cu -o mma_bits && ./mma_bits OUTDIR
// The model runs the PTX of the same kernels (nvcc -ptx; validation/tensor/mma_bits_sm90.ptx).
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "scripts/h100/cuda_check.h"
#include "validation/tensor/mma_inputs.h"

// Lane L of tile blockIdx.x: its A, B, C words in a[], b[], c[]; d[] goes out.
#define PROLOG(NA, NB, NC, ND)                                                            \
  const int lane = threadIdx.x;                                                           \
  const std::uint32_t* p = in + (std::size_t(blockIdx.x) * 32 + lane) * (NA + NB + NC);   \
  std::uint32_t a[NA], b[NB > 0 ? NB : 1], c[NC > 0 ? NC : 1], d[ND];                     \
  for (int i = 0; i < NA; ++i) a[i] = p[i];                                               \
  for (int i = 0; i < NB; ++i) b[i] = p[NA + i];                                          \
  for (int i = 0; i < NC; ++i) c[i] = p[NA + NB + i];                                     \
  (void)b;                                                                                \
  (void)c
#define EPILOG(ND) \
  for (int i = 0; i < ND; ++i) out[(std::size_t(blockIdx.x) * 32 + lane) * ND + i] = d[i]

__device__ double asDouble(const std::uint32_t* w, int i) {
  return __longlong_as_double((long long)(std::uint64_t(w[2 * i]) | std::uint64_t(w[2 * i + 1]) << 32));
}
__device__ void fromDouble(std::uint32_t* w, int i, double v) {
  const std::uint64_t u = std::uint64_t(__double_as_longlong(v));
  w[2 * i] = std::uint32_t(u);
  w[2 * i + 1] = std::uint32_t(u >> 32);
}

extern "C" __global__ void mma_f16_f32_m16n8k16(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_f16_f16_m16n8k16(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 2, 2);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
               : "=r"(d[0]),"=r"(d[1])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"r"(c[0]),"r"(c[1]));
  EPILOG(2);
}

extern "C" __global__ void mma_f16_f32_m16n8k8(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(2, 1, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(b[0]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_bf16_f32_m16n8k16(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_bf16_f32_m16n8k8(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(2, 1, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(b[0]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_tf32_f32_m16n8k8(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_tf32_f32_m16n8k4(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(2, 1, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(b[0]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_e4m3_f32_m16n8k32(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_e5m2_f32_m16n8k32(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fc[i] = __uint_as_float(c[i]);
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(fd[0]),"=f"(fd[1]),"=f"(fd[2]),"=f"(fd[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"f"(fc[0]),"f"(fc[1]),"f"(fc[2]),"f"(fc[3]));
  for (int i = 0; i < 4; ++i) d[i] = __float_as_uint(fd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_s8_s32_m16n8k32(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=r"(d[0]),"=r"(d[1]),"=r"(d[2]),"=r"(d[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"r"(c[0]),"r"(c[1]),"r"(c[2]),"r"(c[3]));
  EPILOG(4);
}

extern "C" __global__ void mma_u8s8_s32_m16n8k32_satfinite(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=r"(d[0]),"=r"(d[1]),"=r"(d[2]),"=r"(d[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"r"(c[0]),"r"(c[1]),"r"(c[2]),"r"(c[3]));
  EPILOG(4);
}

extern "C" __global__ void mma_s8_s32_m16n8k16(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(2, 1, 4, 4);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
               : "=r"(d[0]),"=r"(d[1]),"=r"(d[2]),"=r"(d[3])
               : "r"(a[0]),"r"(a[1]),"r"(b[0]),"r"(c[0]),"r"(c[1]),"r"(c[2]),"r"(c[3]));
  EPILOG(4);
}

extern "C" __global__ void mma_s8_s32_m8n8k16(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(1, 1, 2, 2);
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=r"(d[0]),"=r"(d[1])
               : "r"(a[0]),"r"(b[0]),"r"(c[0]),"r"(c[1]));
  EPILOG(2);
}

extern "C" __global__ void mma_s4_s32_m16n8k64(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=r"(d[0]),"=r"(d[1]),"=r"(d[2]),"=r"(d[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"r"(c[0]),"r"(c[1]),"r"(c[2]),"r"(c[3]));
  EPILOG(4);
}

extern "C" __global__ void mma_b1_s32_m16n8k256_xor(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=r"(d[0]),"=r"(d[1]),"=r"(d[2]),"=r"(d[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"r"(c[0]),"r"(c[1]),"r"(c[2]),"r"(c[3]));
  EPILOG(4);
}

extern "C" __global__ void mma_b1_s32_m16n8k256_and(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(4, 2, 4, 4);
  asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=r"(d[0]),"=r"(d[1]),"=r"(d[2]),"=r"(d[3])
               : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"r"(c[0]),"r"(c[1]),"r"(c[2]),"r"(c[3]));
  EPILOG(4);
}

extern "C" __global__ void mma_f64_m8n8k4(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(2, 2, 4, 4);
  double da[1], db[1], dc[2], dd[2];
  for (int i = 0; i < 1; ++i) da[i] = asDouble(a, i);
  for (int i = 0; i < 1; ++i) db[i] = asDouble(b, i);
  for (int i = 0; i < 2; ++i) dc[i] = asDouble(c, i);
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(dd[0]),"=d"(dd[1])
               : "d"(da[0]),"d"(db[0]),"d"(dc[0]),"d"(dc[1]));
  for (int i = 0; i < 2; ++i) fromDouble(d, i, dd[i]);
  EPILOG(4);
}

extern "C" __global__ void mma_f64_m16n8k8(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(8, 4, 8, 8);
  double da[4], db[2], dc[4], dd[4];
  for (int i = 0; i < 4; ++i) da[i] = asDouble(a, i);
  for (int i = 0; i < 2; ++i) db[i] = asDouble(b, i);
  for (int i = 0; i < 4; ++i) dc[i] = asDouble(c, i);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=d"(dd[0]),"=d"(dd[1]),"=d"(dd[2]),"=d"(dd[3])
               : "d"(da[0]),"d"(da[1]),"d"(da[2]),"d"(da[3]),"d"(db[0]),"d"(db[1]),"d"(dc[0]),"d"(dc[1]),"d"(dc[2]),"d"(dc[3]));
  for (int i = 0; i < 4; ++i) fromDouble(d, i, dd[i]);
  EPILOG(8);
}
// ldmatrix: the tile's 2 KiB of shared memory is the lanes' words, lane after lane (128 rows of
// 16 bytes); lane L gives the address of row (L * 37 + 5) % 128, so every lane's address counts.
#define LDM_PROLOG                                                   \
  __shared__ std::uint32_t smem[512];                                \
  PROLOG(16, 0, 0, 4);                                               \
  for (int i = 0; i < 16; ++i) smem[lane * 16 + i] = a[i];           \
  __syncwarp();                                                      \
  const unsigned row = unsigned(__cvta_generic_to_shared(smem)) + ((lane * 37 + 5) % 128) * 16

extern "C" __global__ void ldm_ldmatrix_x1(const std::uint32_t* in, std::uint32_t* out) {
  LDM_PROLOG;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(d[0]) : "r"(row));
  EPILOG(1);
}
extern "C" __global__ void ldm_ldmatrix_x2(const std::uint32_t* in, std::uint32_t* out) {
  LDM_PROLOG;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(d[0]), "=r"(d[1]) : "r"(row));
  EPILOG(2);
}
extern "C" __global__ void ldm_ldmatrix_x4(const std::uint32_t* in, std::uint32_t* out) {
  LDM_PROLOG;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(row));
  EPILOG(4);
}
extern "C" __global__ void ldm_ldmatrix_x4_trans(const std::uint32_t* in, std::uint32_t* out) {
  LDM_PROLOG;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(row));
  EPILOG(4);
}
extern "C" __global__ void ldm_movmatrix_trans(const std::uint32_t* in, std::uint32_t* out) {
  PROLOG(1, 0, 0, 1);
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d[0]) : "r"(a[0]));
  EPILOG(1);
}

// wmma through shared memory: words lane after lane form A (row-major), B (column-major) and C;
// D is stored row-major and read back the same way.
using namespace nvcuda;
template <typename TA, typename TC, int M, int N, int K, int NA, int NB, int NC, int ND>
__device__ void wmmaTile(const std::uint32_t* in, std::uint32_t* out) {
  __shared__ alignas(32) std::uint32_t sa[NA * 32], sb[NB * 32], sc[NC * 32];
  PROLOG(NA, NB, NC, ND);
  for (int i = 0; i < NA; ++i) sa[lane * NA + i] = a[i];
  for (int i = 0; i < NB; ++i) sb[lane * NB + i] = b[i];
  for (int i = 0; i < NC; ++i) sc[lane * NC + i] = c[i];
  __syncwarp();
  using EA = typename std::conditional<std::is_same<TA, wmma::precision::tf32>::value, float, TA>::type;
  wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
  wmma::load_matrix_sync(fa, reinterpret_cast<const EA*>(sa), K);
  wmma::load_matrix_sync(fb, reinterpret_cast<const EA*>(sb), K);
  wmma::load_matrix_sync(fc, reinterpret_cast<const TC*>(sc), N, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  __syncwarp();
  wmma::store_matrix_sync(reinterpret_cast<TC*>(sc), fc, N, wmma::mem_row_major);
  __syncwarp();
  for (int i = 0; i < ND; ++i) d[i] = sc[lane * ND + i];
  EPILOG(ND);
}
extern "C" __global__ void wmma_f16_f32_m16n16k16(const std::uint32_t* in, std::uint32_t* out) {
  wmmaTile<half, float, 16, 16, 16, 4, 4, 8, 8>(in, out);
}
extern "C" __global__ void wmma_f16_f16_m16n16k16(const std::uint32_t* in, std::uint32_t* out) {
  wmmaTile<half, half, 16, 16, 16, 4, 4, 4, 4>(in, out);
}
extern "C" __global__ void wmma_bf16_f32_m16n16k16(const std::uint32_t* in, std::uint32_t* out) {
  wmmaTile<__nv_bfloat16, float, 16, 16, 16, 4, 4, 8, 8>(in, out);
}
extern "C" __global__ void wmma_f16_f32_m32n8k16(const std::uint32_t* in, std::uint32_t* out) {
  wmmaTile<half, float, 32, 8, 16, 8, 2, 8, 8>(in, out);
}
extern "C" __global__ void wmma_tf32_f32_m16n16k8(const std::uint32_t* in, std::uint32_t* out) {
  wmmaTile<wmma::precision::tf32, float, 16, 16, 8, 4, 4, 8, 8>(in, out);
}
extern "C" __global__ void wmma_s8_s32_m16n16k16(const std::uint32_t* in, std::uint32_t* out) {
  wmmaTile<signed char, int, 16, 16, 16, 2, 2, 8, 8>(in, out);
}
extern "C" __global__ void wmma_f64_m8n8k4(const std::uint32_t* in, std::uint32_t* out) {
  wmmaTile<double, double, 8, 8, 4, 2, 2, 4, 4>(in, out);
}

// ---------------------------------------------------------------------------------------------
// Timing: dependent latency (one warp, each mma's C is the previous D) and throughput (16 warps per
// SM, 4 independent chains each), in SM cycles from clock64.
#define CHAIN_F32(INS, NA, NB)                                                                           \
  asm volatile("{\n" INS "\n}" : "+f"(x0), "+f"(x1), "+f"(x2), "+f"(x3) : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), \
               "r"(ra[3]), "r"(rb[0]), "r"(rb[1]))
template <int KIND>
__device__ __forceinline__ void step(float& x0, float& x1, float& x2, float& x3, const std::uint32_t* ra,
                                     const std::uint32_t* rb) {
  if (KIND == 0) CHAIN_F32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", 4, 2);
  if (KIND == 1) CHAIN_F32("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", 4, 2);
  if (KIND == 2) CHAIN_F32("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", 4, 2);
  if (KIND == 3) CHAIN_F32("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};", 4, 2);
  if (KIND == 4) CHAIN_F32("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%8}, {%0,%1,%2,%3};", 2, 1);
  if (KIND == 5) {
    std::uint32_t* u0 = reinterpret_cast<std::uint32_t*>(&x0);
    std::uint32_t* u1 = reinterpret_cast<std::uint32_t*>(&x1);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(*u0), "+r"(*u1) : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  }
  if (KIND == 6) {
    int* i0 = reinterpret_cast<int*>(&x0); int* i1 = reinterpret_cast<int*>(&x1);
    int* i2 = reinterpret_cast<int*>(&x2); int* i3 = reinterpret_cast<int*>(&x3);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(*i0), "+r"(*i1), "+r"(*i2), "+r"(*i3)
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  }
  if (KIND == 7) {
    double* d0 = reinterpret_cast<double*>(&x0);  // x0,x1 and x2,x3 as two doubles
    double* d1 = reinterpret_cast<double*>(&x2);
    const double av = __longlong_as_double(ra[0] | (long long)ra[1] << 32), bv = __longlong_as_double(rb[0]);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(*d0), "+d"(*d1) : "d"(av), "d"(bv));
  }
}
constexpr const char* kTimingNames[] = {"f16_f32_m16n8k16", "bf16_f32_m16n8k16", "tf32_f32_m16n8k8",
                                         "e4m3_f32_m16n8k32", "f16_f32_m16n8k8", "f16_f16_m16n8k16",
                                         "s8_s32_m16n8k32", "f64_m8n8k4"};
constexpr int kChainSteps = 1024;

template <int KIND, int CHAINS>
__global__ void timed(std::uint64_t* cycles, float* sink) {
  __shared__ unsigned long long t0, t1;
  if (threadIdx.x == 0) { t0 = ~0ull; t1 = 0; }
  __syncthreads();
  std::uint32_t ra[4] = {0x3C003C00u ^ threadIdx.x, 0x3C003C00u, 0x3C003C00u, 0x3C003C00u};
  std::uint32_t rb[2] = {0x00003C00u, 0x3C000000u};
  float x[CHAINS][4] = {};
  const unsigned long long s = clock64();
  for (int i = 0; i < kChainSteps; ++i) {
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) step<KIND>(x[k][0], x[k][1], x[k][2], x[k][3], ra, rb);
  }
  const unsigned long long e = clock64();
  atomicMin(&t0, s);
  atomicMax(&t1, e);
  float acc = 0;
  for (int k = 0; k < CHAINS; ++k) acc += x[k][0] + x[k][1] + x[k][2] + x[k][3];
  if (acc == 12345.f) sink[0] = acc;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int KIND>
void timeKind(FILE* f, int sms) {
  std::uint64_t* cyc;
  float* sink;
  CHECK(cudaMalloc(&cyc, sizeof(std::uint64_t) * sms));
  CHECK(cudaMalloc(&sink, sizeof(float)));
  std::vector<std::uint64_t> h(sms);
  timed<KIND, 1><<<1, 32>>>(cyc, sink);  // warm-up
  timed<KIND, 1><<<1, 32>>>(cyc, sink);
  CHECK(cudaMemcpy(h.data(), cyc, sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  const double latency = double(h[0]) / kChainSteps;
  double best = 0;
  for (int warps : {4, 8, 16}) {
    timed<KIND, 4><<<sms, 32 * warps>>>(cyc, sink);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h.data(), cyc, sizeof(std::uint64_t) * sms, cudaMemcpyDeviceToHost));
    std::uint64_t worst = 0;
    for (auto v : h) worst = v > worst ? v : worst;
    const double per_cycle = double(warps) * 4 * kChainSteps / double(worst);
    std::fprintf(f, "%s,throughput_%dwarps,%.4f\n", kTimingNames[KIND], warps, per_cycle);
    best = per_cycle > best ? per_cycle : best;
  }
  std::fprintf(f, "%s,latency_cycles,%.2f\n%s,mma_per_sm_cycle,%.4f\n", kTimingNames[KIND], latency,
               kTimingNames[KIND], best);
  CHECK(cudaFree(cyc));
  CHECK(cudaFree(sink));
}

// ---------------------------------------------------------------------------------------------
using Kernel = void (*)(const std::uint32_t*, std::uint32_t*);
Kernel kernelOf(const std::string& name) {
#define K(n) if (name == #n) return &mma_##n;
  K(f16_f32_m16n8k16) K(f16_f16_m16n8k16) K(f16_f32_m16n8k8) K(bf16_f32_m16n8k16) K(bf16_f32_m16n8k8)
  K(tf32_f32_m16n8k8) K(tf32_f32_m16n8k4) K(e4m3_f32_m16n8k32) K(e5m2_f32_m16n8k32) K(s8_s32_m16n8k32)
  K(u8s8_s32_m16n8k32_satfinite) K(s8_s32_m16n8k16) K(s8_s32_m8n8k16) K(s4_s32_m16n8k64)
  K(b1_s32_m16n8k256_xor) K(b1_s32_m16n8k256_and) K(f64_m8n8k4) K(f64_m16n8k8)
#undef K
#define K(n) if (name == #n) return &ldm_##n;
  K(ldmatrix_x1) K(ldmatrix_x2) K(ldmatrix_x4) K(ldmatrix_x4_trans) K(movmatrix_trans)
#undef K
#define K(n) if (name == #n) return &n;
  K(wmma_f16_f32_m16n16k16) K(wmma_f16_f16_m16n16k16) K(wmma_bf16_f32_m16n16k16) K(wmma_f16_f32_m32n8k16)
  K(wmma_tf32_f32_m16n16k8) K(wmma_s8_s32_m16n16k16) K(wmma_f64_m8n8k4)
#undef K
  return nullptr;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  FILE* bits = std::fopen((dir + "/h100_mma_bits.txt").c_str(), "w");
  if (!bits) { std::perror("h100_mma_bits.txt"); return 1; }
  std::fprintf(bits, "# variant tile lane d-words (hex): H100 output of validation/tensor/mma_inputs.h's inputs\n");
  for (int v = 0; v < mma_probe::kNumVariants; ++v) {
    const mma_probe::Variant& var = mma_probe::kVariants[v];
    Kernel k = kernelOf(var.name);
    if (!k) { std::fprintf(stderr, "no kernel for %s\n", var.name); return 1; }
    const int per_lane = var.a + var.b + var.c;
    std::vector<std::uint32_t> in(std::size_t(mma_probe::kTiles) * 32 * per_lane), out(std::size_t(mma_probe::kTiles) * 32 * var.d);
    mma_probe::makeInputs(v, in.data());
    std::uint32_t *din, *dout;
    CHECK(cudaMalloc(&din, in.size() * 4));
    CHECK(cudaMalloc(&dout, out.size() * 4));
    CHECK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
    k<<<mma_probe::kTiles, 32>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < mma_probe::kTiles; ++t)
      for (int lane = 0; lane < 32; ++lane) {
        std::fprintf(bits, "%s %d %d", var.name, t, lane);
        for (int i = 0; i < var.d; ++i) std::fprintf(bits, " %08x", out[(std::size_t(t) * 32 + lane) * var.d + i]);
        std::fprintf(bits, "\n");
      }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
  }
  std::fclose(bits);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  FILE* f = std::fopen((dir + "/h100_mma_timing.csv").c_str(), "w");
  std::fprintf(f, "variant,metric,value\n");
  timeKind<0>(f, sms); timeKind<1>(f, sms); timeKind<2>(f, sms); timeKind<3>(f, sms);
  timeKind<4>(f, sms); timeKind<5>(f, sms); timeKind<6>(f, sms); timeKind<7>(f, sms);
  std::fclose(f);
  std::printf("done: %d variants\n", mma_probe::kNumVariants);
  return 0;
}
