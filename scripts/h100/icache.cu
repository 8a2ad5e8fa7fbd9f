// Instruction fetch on the H100: one warp runs a straight-line body of N adds (a ring over 8
// registers, so the adds issue back to back) twice in a row; clock64 around each pass gives the cold
// pass (the code not yet in any instruction cache) and the warm pass. N = 256 .. 8192 instructions
// (4 KiB .. 128 KiB of SASS at 16 bytes each). Writes icache.csv: n_instructions,cold_cycles,warm_cycles.
//   nvcc -O3 -arch=sm_90 scripts/h100/icache.cu -o icache && ./icache OUTDIR
// The model runs the PTX of the same kernels (validation/micro/icache.ptx).
#include <cstdint>
#include <cstdio>
#include <string>

#include "scripts/h100/cuda_check.h"

// A ring of adds (r0 += r1, r1 += r2, ..., r7 += r0): nothing for ptxas to fold.
#define ADD8 \
  asm volatile("add.u32 %0, %0, %1; add.u32 %1, %1, %2; add.u32 %2, %2, %3; add.u32 %3, %3, %4; add.u32 %4, %4, %5; add.u32 %5, %5, %6; add.u32 %6, %6, %7; add.u32 %7, %7, %0;" \
               : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7));
#define ADD64 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8
#define ADD256 ADD64 ADD64 ADD64 ADD64
#define ADD1K ADD256 ADD256 ADD256 ADD256

template <int K>  // K x 256 adds
__device__ __forceinline__ void body(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3, unsigned& r4,
                                     unsigned& r5, unsigned& r6, unsigned& r7) {
  if (K >= 1) { ADD256 }
  if (K >= 2) { ADD256 }
  if (K >= 4) { ADD256 ADD256 }
  if (K >= 8) { ADD1K }
  if (K >= 16) { ADD1K ADD1K }
  if (K >= 32) { ADD1K ADD1K ADD1K ADD1K }
}

#define KERNEL(K)                                                                                 \
  extern "C" __global__ void icache_##K(unsigned long long* out, unsigned seed) {                 \
    unsigned r0 = seed, r1 = seed + 1, r2 = seed + 2, r3 = seed + 3, r4 = seed + 4, r5 = seed + 5, \
             r6 = seed + 6, r7 = seed + 7;                                                        \
    unsigned long long t[3];                                                                      \
    for (int pass = 0; pass < 2; ++pass) {                                                        \
      t[pass] = clock64();                                                                        \
      body<K>(r0, r1, r2, r3, r4, r5, r6, r7);                                                    \
    }                                                                                             \
    t[2] = clock64();                                                                             \
    if (threadIdx.x == 0) {                                                                       \
      out[0] = t[1] - t[0];                                                                       \
      out[1] = t[2] - t[1];                                                                       \
      out[2] = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7;                                             \
    }                                                                                             \
  }
KERNEL(1)
KERNEL(2)
KERNEL(4)
KERNEL(8)
KERNEL(16)
KERNEL(32)

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  FILE* f = std::fopen((dir + "/h100_icache.csv").c_str(), "w");
  if (!f) { std::perror("h100_icache.csv"); return 1; }
  std::fprintf(f, "n_instructions,cold_cycles,warm_cycles\n");
  unsigned long long* d;
  CHECK(cudaMalloc(&d, 3 * sizeof(unsigned long long)));
  void (*kernels[])(unsigned long long*, unsigned) = {icache_1, icache_2, icache_4, icache_8, icache_16, icache_32};
  const int ks[] = {1, 2, 4, 8, 16, 32};
  for (int i = 0; i < 6; ++i) {
    // A different kernel each time: its code has not run yet (cold); run once, as under ncu.
    kernels[i]<<<1, 32>>>(d, 1);
    CHECK(cudaDeviceSynchronize());
    unsigned long long h[3];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    std::fprintf(f, "%d,%llu,%llu\n", ks[i] * 256, h[0], h[1]);
  }
  std::fclose(f);
  return 0;
}
