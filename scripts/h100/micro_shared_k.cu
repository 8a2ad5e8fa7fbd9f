// Times read_shared_k of validation/micro/dram_stream.cu on a real GPU for k = 1, 2, 4, 8, 16 (k
// blocks on k SMs read each line at about the same time), 33 MiB in all, with the L2 cold: before
// each of kRepeat launches a 512 MiB buffer is written (flushing the L2), and only the launch is
// timed, with CUDA events. Prints CSV: kernel,k,footprint_bytes,us_per_launch.
//   nvcc -O3 -arch=sm_90 scripts/h100/micro_shared_k.cu -o micro_shared_k && ./micro_shared_k
#include <cstdio>
#include <cstdlib>

#include "../../validation/micro/dram_stream.cu"

#include "cuda_check.h"

constexpr int kRepeat = 10;

int main() {
  const int blocks = 1056, threads = 256;  // as the launch files (8 blocks per SM on 132 SMs)
  const size_t footprint = size_t(blocks) * 2048 * 16;  // chunks x (2048 k float4) x 16 B, any k
  float4 *a, *flush;
  float* sink;
  CHECK(cudaMalloc(&a, footprint));
  CHECK(cudaMalloc(&flush, 512ull << 20));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(a, 0, footprint));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::printf("kernel,k,footprint_bytes,us_per_launch\n");
  for (int k : {1, 2, 4, 8, 16}) {
    const unsigned long long n4 = 2048ull * k;
    read_shared_k<<<blocks, threads>>>(a, sink, n4, k);  // warm-up (clocks, code)
    CHECK(cudaDeviceSynchronize());
    double total_ms = 0;
    for (int r = 0; r < kRepeat; ++r) {
      CHECK(cudaMemset(flush, r, 512ull << 20));
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaEventRecord(e0));
      read_shared_k<<<blocks, threads>>>(a, sink, n4, k);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      total_ms += ms;
    }
    std::printf("read_shared_k,%d,%zu,%.2f\n", k, footprint, 1000.0 * total_ms / kRepeat);
  }
  return 0;
}
