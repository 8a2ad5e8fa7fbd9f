// hgemm_tma_wgmma: C = A * B on the Hopper tensor cores, fed by the copy engine (sm_90a).
// A (M x K) and B (K x N) half precision, row-major; C single precision, row-major. M a multiple of
// 128, N of 256, K of 64.
//
// Block: 288 threads = two consumer warpgroups (warps 0-7) and one producer warp (warp 8); grid
// (N/256, M/128), one 128 x 256 tile of C a block, 64 rows of it a consumer warpgroup (128 f32
// accumulators a thread). K goes through a ring of kStages stages in dynamic shared memory, 48 KiB a
// stage, each with two mbarriers:
//   full[s]   the producer's thread arms it with the stage's bytes (arrive.expect_tx) and issues
//             the stage's TMA loads, which complete the transaction when their data has landed;
//   empty[s]  each of the 8 consumer warps arrives once its wgmmas reading the stage are done.
// Stage layout (1024-byte aligned, everything in the TMA's 128-byte swizzle: 16-byte piece c of
// a 128-byte row r sits at piece c ^ (r % 8)):
//   A: one box of 64 K x 128 rows (16 KiB): row r at r*128, K-major. Consumer g reads rows 64g..;
//      descriptor SBO 1024 (the next 8 rows), a k16 step +32 bytes.
//   B: four boxes of 64 N x 64 K (8 KiB each): box j holds columns 64j..64j+63, K-row k at k*128,
//      N-major (imm-trans-b); descriptor LBO 8192 (the next 64 columns), SBO 1024 (the next 8
//      K-rows), a k16 step +2048 bytes.
// Each stage is four wgmma.mma_async.m64n256k16.f32.f16.f16 a consumer warpgroup; the consumer keeps
// one stage's group in flight (wait_group 1) and releases the stage before it.
// Built for sm_90a (nvcc -arch=sm_90a also embeds compute_90 PTX, whose body only traps).
#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define HGT_BM 128
#define HGT_BN 256
#define HGT_BK 64
#define HGT_STAGES 4
#define HGT_A_BYTES (HGT_BM * HGT_BK * 2)             // 16 KiB
#define HGT_B_BYTES (HGT_BK * HGT_BN * 2)             // 32 KiB
#define HGT_STAGE_BYTES (HGT_A_BYTES + HGT_B_BYTES)   // 48 KiB
// Dynamic shared memory the kernel needs: the ring plus 1 KiB to align it to 1024 bytes.
#define HGT_SHARED_BYTES (HGT_STAGES * HGT_STAGE_BYTES + 1024)

namespace hgt {

__device__ __forceinline__ uint32_t smemAddr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// A matrix descriptor: start address, LBO, SBO (bytes), the 128-byte swizzle.
__device__ __forceinline__ uint64_t descriptor(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t((lbo & 0x3FFFF) >> 4) << 16 |
         uint64_t((sbo & 0x3FFFF) >> 4) << 32 | uint64_t(1) << 62;
}

__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbarArriveExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Waits until the phase of parity `parity` has completed (try_wait suspends the warp a while).
__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// One 2-d TMA box of `map` at element coordinates (x innermost, y) into shared memory at `dst`,
// completing `bytes` of the transaction on `bar`.
__device__ __forceinline__ void tmaLoad(uint32_t dst, const CUtensorMap* map, int x, int y, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

// D += A B for one k16 step: descriptors of A (K-major) and B (N-major), m64n256k16.
__device__ __forceinline__ void wgmma256(float (&d)[128], uint64_t da, uint64_t db) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, 1, 1, 1, 0, 1;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db));
#endif
}

}  // namespace hgt

extern "C" __global__ void __launch_bounds__(288, 1)
    hgemm_tma_wgmma(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, int M,
                    int N, int K, float* C) {
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace hgt;
  extern __shared__ char dyn[];
  __shared__ __align__(8) uint64_t full[HGT_STAGES], empty[HGT_STAGES];
  const uint32_t ring = (smemAddr(dyn) + 1023) & ~1023u;  // stage s at ring + s * HGT_STAGE_BYTES
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * HGT_BM, n0 = blockIdx.x * HGT_BN, chunks = K / HGT_BK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < HGT_STAGES; ++s) {
      mbarInit(smemAddr(&full[s]), 1);   // the producer's arrive (plus the transaction bytes)
      mbarInit(smemAddr(&empty[s]), 8);  // one arrive per consumer warp
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the copy engine sees the barriers
  }
  __syncthreads();

  if (warp == 8) {  // producer: one thread issues every copy
    if (lane == 0) {
      for (int kc = 0; kc < chunks; ++kc) {
        const int s = kc % HGT_STAGES;
        if (kc >= HGT_STAGES) mbarWait(smemAddr(&empty[s]), (kc / HGT_STAGES - 1) & 1);  // consumers done with it
        const uint32_t bar = smemAddr(&full[s]), a = ring + s * HGT_STAGE_BYTES, b = a + HGT_A_BYTES;
        mbarArriveExpectTx(bar, HGT_STAGE_BYTES);
        tmaLoad(a, &a_map, kc * HGT_BK, m0, bar);
#pragma unroll
        for (int j = 0; j < HGT_BN / 64; ++j) tmaLoad(b + j * 8192, &b_map, n0 + 64 * j, kc * HGT_BK, bar);
      }
    }
    return;
  }

  // Consumers: warpgroup g computes rows 64g .. 64g+63 of the tile.
  const int g = warp / 4;
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.0f;
  for (int kc = 0; kc < chunks; ++kc) {
    const int s = kc % HGT_STAGES;
    mbarWait(smemAddr(&full[s]), (kc / HGT_STAGES) & 1);
    const uint32_t a = ring + s * HGT_STAGE_BYTES + g * (64 * 128), b = ring + s * HGT_STAGE_BYTES + HGT_A_BYTES;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int ks = 0; ks < HGT_BK / 16; ++ks) wgmma256(d, descriptor(a + ks * 32, 16, 1024), descriptor(b + ks * 2048, 8192, 1024));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    // The group before this one is done: its stage can be refilled.
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    if (kc > 0 && lane == 0) mbarArrive(smemAddr(&empty[(kc - 1) % HGT_STAGES]));
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

  // D's layout: element i of lane L in warp w of the warpgroup is row 16w + L/4 + 8((i/2)%2),
  // column 8(i/4) + 2(L%4) + i%2.
  const int w = warp % 4;
#pragma unroll
  for (int i = 0; i < 128; i += 2) {
    const int row = m0 + 64 * g + 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = n0 + 8 * (i / 4) + 2 * (lane % 4);
    *reinterpret_cast<float2*>(&C[size_t(row) * N + col]) = make_float2(d[i], d[i + 1]);
  }
#else
  __trap();  // the compute_90 PTX nvcc adds beside sm_90a's: wgmma needs sm_90a
#endif
}
