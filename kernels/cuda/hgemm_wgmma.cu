// C = A * B on the Hopper tensor cores with wgmma (sm_90a): A (M x K) and B (K x N) half
// precision, row-major; C single precision, row-major. M a multiple of 64, N of 128, K of 64.
// Block: one warpgroup (128 threads) computing a 64 x 128 tile of C in 64 f32 registers a thread.
// K goes through shared memory in chunks of 64, double buffered with cp.async: A's 64 x 64 chunk
// K-major with the 128-byte swizzle (row r's 16-byte piece c at r*128 + (c ^ r%8)*16), B's 64 x 128
// chunk N-major (imm-trans-b) with the 128-byte swizzle (atoms of 8 K-rows x 64 columns: LBO 1024
// bytes to the next 64 columns, SBO 2048 to the next 8 K-rows). Each chunk is four
// wgmma.mma_async.m64n128k16, their descriptors advanced 32 bytes (A) and 4096 bytes (B) a step.
// Grid (N/128, M/64). Built for sm_90a (nvcc -arch=sm_90a also embeds compute_90 PTX, whose body
// only traps).
#include <cuda_fp16.h>
#include <stdint.h>

#define BM 64
#define BN 128
#define BK 64

// A matrix descriptor: start address, LBO, SBO (bytes), the 128-byte swizzle.
__device__ __forceinline__ uint64_t descriptor(const void* smem, uint32_t lbo, uint32_t sbo) {
  const uint32_t a = uint32_t(__cvta_generic_to_shared(smem));
  return uint64_t((a & 0x3FFFF) >> 4) | uint64_t((lbo & 0x3FFFF) >> 4) << 16 | uint64_t((sbo & 0x3FFFF) >> 4) << 32 |
         uint64_t(1) << 62;
}

__device__ __forceinline__ void copy16(void* smem, const void* global) {
  const uint32_t s = uint32_t(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(global));
}

// Brings chunk k0 of the block's A rows and B columns into one buffer (128 threads, 16 bytes a copy).
__device__ __forceinline__ void loadChunk(const __half* A, const __half* B, int N, int K, int m0, int n0, int k0,
                                          char* sA, char* sB) {
  const int t = threadIdx.x;
#pragma unroll
  for (int i = t; i < BM * BK / 8; i += 128) {  // A: row r, 16-byte piece c of its 64 K
    const int r = i / 8, c = i % 8;
    copy16(sA + r * 128 + ((c ^ (r % 8)) * 16), A + size_t(m0 + r) * K + k0 + c * 8);
  }
#pragma unroll
  for (int i = t; i < BK * BN / 8; i += 128) {  // B: K-row k, 16-byte piece c of its 128 columns
    const int k = i / 16, c = i % 16;
    const int off = (c / 8) * 1024 + (k / 8) * 2048 + (k % 8) * 128 + (((c % 8) ^ (k % 8)) * 16);
    copy16(sB + off, B + size_t(k0 + k) * N + n0 + c * 8);
  }
}

// D += A B for one k16 step: descriptors of A (K-major) and B (N-major).
__device__ __forceinline__ void wgmma16(float (&d)[64], uint64_t da, uint64_t db) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, 1, 1, 1, 0, 1;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db));
#endif
}

extern "C" __global__ void __launch_bounds__(128) hgemm_wgmma(int M, int N, int K, const __half* A, const __half* B,
                                                             float* C) {
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(1024) char sA[2][BM * BK * 2];
  __shared__ __align__(1024) char sB[2][BK * BN * 2];
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;
  const int chunks = K / BK;
  loadChunk(A, B, N, K, m0, n0, 0, sA[0], sB[0]);
  asm volatile("cp.async.commit_group;");
  for (int kc = 0; kc < chunks; ++kc) {
    const int buf = kc & 1;
    if (kc + 1 < chunks) loadChunk(A, B, N, K, m0, n0, (kc + 1) * BK, sA[buf ^ 1], sB[buf ^ 1]);
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncthreads();
    // cp.async wrote through the generic proxy; wgmma reads shared memory through the async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks)
      wgmma16(d, descriptor(sA[buf] + ks * 32, 16, 1024), descriptor(sB[buf] + ks * 4096, 1024, 2048));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();  // every warp is done with this buffer before it is loaded again
  }
  // D's layout: element i of lane L in warp w is row 16w + L/4 + 8((i/2)%2), column 8(i/4) + 2(L%4) + i%2.
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 64; i += 2) {
    const int row = m0 + 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = n0 + 8 * (i / 4) + 2 * (lane % 4);
    *reinterpret_cast<float2*>(&C[size_t(row) * N + col]) = make_float2(d[i], d[i + 1]);
  }
#else
  __trap();  // the compute_90 PTX nvcc adds beside sm_90a's: wgmma needs sm_90a
#endif
}
