// Runs validation/micro/warp_order.cu's warp_finish on a real GPU: for each case, one warm-up
// launch, then kRuns launches; prints every warp's clock64 at the start and the end of its loop,
// of every run, as CSV: case,mode,grid,block,iters,run,block_index,warp,start,end.
//   nvcc -O3 -arch=sm_90 scripts/h100/warp_order.cu -o warp_order && ./warp_order > h100_warp_order.csv
#include <cstdio>
#include <vector>

#include "../../validation/micro/warp_order.cu"

#include "cuda_check.h"

constexpr int kRuns = 3;

struct Case {
  const char* name;
  int mode, grid, block, iters;
};

// The same cases as validation/micro/warp_order/*.yaml.
static const Case kCases[] = {
    {"smem_v4", 0, 4, 1024, 64},   {"ffma", 1, 4, 1024, 256},      {"dram", 2, 132, 1024, 64},
    {"smem_1way", 3, 4, 1024, 64}, {"smem_v4_256", 0, 4, 256, 64}, {"ffma_256", 1, 4, 256, 256},
    {"ffma_32", 1, 4, 32, 256},     {"ffma_128", 1, 4, 128, 256},   {"smem_v4_128", 0, 4, 128, 64},
};

int main() {
  int4* buf;
  long long* ends;
  int* sink;
  const size_t buf_bytes = size_t(132) * 32 * 64 * 32 * sizeof(int4);
  CHECK(cudaMalloc(&buf, buf_bytes));
  CHECK(cudaMemset(buf, 1, buf_bytes));
  CHECK(cudaMalloc(&ends, 2 * 132 * 32 * sizeof(long long)));
  CHECK(cudaMalloc(&sink, 64));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  std::printf("case,mode,grid,block,iters,run,block_index,warp,start,end\n");
  for (const Case& c : kCases) {
    const int warps = c.block / 32;
    std::vector<long long> host(size_t(c.grid) * warps * 2);
    for (int run = -1; run < kRuns; ++run) {
      warp_finish<<<c.grid, c.block>>>(c.mode, c.iters, buf, ends, sink);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      if (run < 0) continue;
      CHECK(cudaMemcpy(host.data(), ends, host.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int b = 0; b < c.grid; ++b)
        for (int w = 0; w < warps; ++w)
          std::printf("%s,%d,%d,%d,%d,%d,%d,%d,%lld,%lld\n", c.name, c.mode, c.grid, c.block, c.iters, run, b, w,
                      host[2 * (size_t(b) * warps + w)], host[2 * (size_t(b) * warps + w) + 1]);
    }
  }
  return 0;
}
