// C = A * B on the tensor cores: A (M x K) and B (K x N) half precision, row-major; C single
// precision, row-major. M, N multiples of 32, K of 32. Block: 4 warps computing a 32x32 tile of C,
// each warp a 16x16 quarter; K in steps of 32 staged through shared memory (rows padded by 8
// halves so that the fragment loads hit distinct banks). Grid (N/32, M/32).
//   hgemm_mma:  mma.sync.m16n8k16 with ldmatrix.x4 (A) and ldmatrix.x4.trans (B), inline PTX
//   hgemm_wmma: CUDA's wmma 16x16x16 fragments
//   hgemm_mma_async: hgemm_mma with the tiles brought by cp.async into two shared buffers, the next
//                    k step's copies in flight while this one computes (cp.async.wait_group 1)
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#define TILE 32
#define PAD 8

// Stages the block's 32x32 tiles of A and B at k0 in shared memory: 128 threads, 8 halves each.
__device__ __forceinline__ void stageTiles(const __half* A, const __half* B, int N, int K, int row0, int col0,
                                           int k0, __half (*As)[TILE + PAD], __half (*Bs)[TILE + PAD]) {
  const int t = threadIdx.x, r = t / 4, c = (t % 4) * 8;
  *reinterpret_cast<uint4*>(&As[r][c]) = *reinterpret_cast<const uint4*>(&A[(row0 + r) * K + k0 + c]);
  *reinterpret_cast<uint4*>(&Bs[r][c]) = *reinterpret_cast<const uint4*>(&B[(k0 + r) * N + col0 + c]);
}

// The warp's 16x16 quarter of C for one 32-wide k step: ldmatrix fragments, two m16n8k16 each k16.
__device__ __forceinline__ void mmaStep(__half (*As)[TILE + PAD], __half (*Bs)[TILE + PAD], int wm, int wn, int lane,
                                        float (&acc)[2][4]) {
  const int mrow = lane % 8 + 8 * ((lane / 8) % 2), mcol = 8 * (lane / 16);
#pragma unroll
  for (int kk = 0; kk < TILE; kk += 16) {
    unsigned a[4], b[4];
    const unsigned pa = unsigned(__cvta_generic_to_shared(&As[wm + mrow][kk + mcol]));
    const unsigned pb = unsigned(__cvta_generic_to_shared(&Bs[kk + mrow][wn + mcol]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(pb));
#pragma unroll
    for (int j = 0; j < 2; ++j)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};"
          : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * j]), "r"(b[2 * j + 1]));
  }
}

extern "C" __global__ void hgemm_mma_async(int M, int N, int K, const __half* __restrict__ A,
                                           const __half* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(16) __half As[2][TILE][TILE + PAD];
  __shared__ __align__(16) __half Bs[2][TILE][TILE + PAD];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / 2) * 16, wn = (warp % 2) * 16;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  const int t = threadIdx.x, r = t / 4, c = (t % 4) * 8;
  float acc[2][4] = {};
  __pipeline_memcpy_async(&As[0][r][c], &A[(row0 + r) * K + c], 16);
  __pipeline_memcpy_async(&Bs[0][r][c], &B[r * N + col0 + c], 16);
  __pipeline_commit();
  for (int k0 = 0; k0 < K; k0 += TILE) {
    const int buf = (k0 / TILE) & 1;
    if (k0 + TILE < K) {  // the next step's tiles, into the other buffer
      __pipeline_memcpy_async(&As[buf ^ 1][r][c], &A[(row0 + r) * K + k0 + TILE + c], 16);
      __pipeline_memcpy_async(&Bs[buf ^ 1][r][c], &B[(k0 + TILE + r) * N + col0 + c], 16);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);  // this step's tiles have arrived
    __syncthreads();
    mmaStep(As[buf], Bs[buf], wm, wn, lane, acc);
    __syncthreads();
  }
  const int g = lane / 4, tq = lane % 4;
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i)
      C[(row0 + wm + g + 8 * (i / 2)) * N + col0 + wn + 8 * j + 2 * tq + (i % 2)] = acc[j][i];
}

extern "C" __global__ void hgemm_mma(int M, int N, int K, const __half* __restrict__ A,
                                     const __half* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(16) __half As[TILE][TILE + PAD];
  __shared__ __align__(16) __half Bs[TILE][TILE + PAD];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / 2) * 16, wn = (warp % 2) * 16;  // the warp's quarter of the block tile
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc[2][4] = {};  // two m16n8 tiles: columns wn..wn+7 and wn+8..wn+15
  // ldmatrix: lane l gives row l % 8 of matrix l / 8.
  const int mrow = lane % 8 + 8 * ((lane / 8) % 2), mcol = 8 * (lane / 16);
  for (int k0 = 0; k0 < K; k0 += TILE) {
    stageTiles(A, B, N, K, row0, col0, k0, As, Bs);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; kk += 16) {
      unsigned a[4], b[4];
      const unsigned pa = unsigned(__cvta_generic_to_shared(&As[wm + mrow][kk + mcol]));
      const unsigned pb = unsigned(__cvta_generic_to_shared(&Bs[kk + mrow][wn + mcol]));
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(pb));
#pragma unroll
      for (int j = 0; j < 2; ++j)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * j]), "r"(b[2 * j + 1]));
    }
    __syncthreads();
  }
  // Accumulator layout: c0, c1 at row g, columns 2t, 2t+1; c2, c3 at row g + 8.
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = row0 + wm + g + 8 * (i / 2), c = col0 + wn + 8 * j + 2 * t + (i % 2);
      C[r * N + c] = acc[j][i];
    }
}

extern "C" __global__ void hgemm_wmma(int M, int N, int K, const __half* __restrict__ A,
                                      const __half* __restrict__ B, float* __restrict__ C) {
  using namespace nvcuda;
  __shared__ __align__(32) __half As[TILE][TILE + PAD];
  __shared__ __align__(32) __half Bs[TILE][TILE + PAD];
  const int warp = threadIdx.x / 32;
  const int wm = (warp / 2) * 16, wn = (warp % 2) * 16;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < K; k0 += TILE) {
    stageTiles(A, B, N, K, row0, col0, k0, As, Bs);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
      wmma::load_matrix_sync(a, &As[wm][kk], TILE + PAD);
      wmma::load_matrix_sync(b, &Bs[kk][wn], TILE + PAD);
      wmma::mma_sync(acc, a, b, acc);
    }
    __syncthreads();
  }
  wmma::store_matrix_sync(&C[(row0 + wm) * N + col0 + wn], acc, N, wmma::mem_row_major);
}
