// Which warp a sub-core issues when its warps wait on short dependencies: the suite's Mandelbrot
// loop (kernels/cuda/mandelbrot_loop.cuh, as in validation/micro/sm_micro.cu mandel_loop; every
// lane 256 iterations) in one block of 256, 512 or 1024 threads (2, 4 or 8 warps a sub-core) per SM, each warp recording the clock64 at
// which it ends its loop. Greedy-then-oldest ends the oldest warps first and the youngest last;
// round robin ends them together. Prints: threads,warp,end_cycles (from the block's start),
// median over 5 runs of the first SM's block.
//   nvcc -O3 -arch=sm_90 scripts/h100/mandel_order.cu -o mandel_order && ./mandel_order
#include <algorithm>
#include <cstdio>
#include <vector>

#include "../../kernels/cuda/mandelbrot_loop.cuh"
#include "cuda_check.h"

__global__ void mandel_order(int max_iter, float cr, float ci, long long* ends, int* sink) {
  float zr, zi;
  __syncthreads();
  const long long t0 = clock64();
  const int it = mandelbrotIterations(cr, ci, max_iter, zr, zi);
  const long long t1 = clock64();
  if (threadIdx.x % 32 == 0) ends[blockIdx.x * 32 + threadIdx.x / 32] = t1 - t0;
  if (__float_as_int(zr) + __float_as_int(zi) + it == 0x7fffffff) sink[0] = it;
}

int main() {
  long long* ends;
  int* sink;
  CHECK(cudaMalloc(&ends, 132 * 32 * sizeof(long long)));
  CHECK(cudaMalloc(&sink, 4));
  std::printf("threads,warp,end_cycles\n");
  for (int threads : {256, 512, 1024}) {
    const int warps = threads / 32;
    std::vector<std::vector<long long>> runs(warps);
    mandel_order<<<4, threads>>>(256, -0.1f, 0.1f, ends, sink);  // warm-up
    for (int r = 0; r < 5; ++r) {
      mandel_order<<<4, threads>>>(256, -0.1f, 0.1f, ends, sink);
      CHECK(cudaDeviceSynchronize());
      std::vector<long long> h(4 * 32);
      CHECK(cudaMemcpy(h.data(), ends, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int w = 0; w < warps; ++w) runs[w].push_back(h[w]);
    }
    for (int w = 0; w < warps; ++w) {
      std::sort(runs[w].begin(), runs[w].end());
      std::printf("%d,%d,%lld\n", threads, w, runs[w][2]);
    }
  }
  CHECK(cudaGetLastError());
  return 0;
}
