// How much of what was just read the L2 keeps: a read stream of growing footprints, then the same
// read again (under ncu --cache-control none, application replay: the second read's DRAM bytes and
// L2 hit rate say how much of the first stayed). A 512 MiB read of other data empties the L2 of
// the footprint before each pair. Written data is kept up to about 27 MB (l2_retention.cu); this
// asks the same of clean lines, whose copies the two L2 partitions may both hold. Kernels of
// validation/micro/dram_stream.cu, every SM full (8 blocks of 256 threads an SM), grid-stride.
//   nvcc -O3 -arch=sm_90 scripts/h100/l2_reread.cu -o l2_reread
//   ncu --cache-control none --replay-mode application --clock-control none --metrics ... ./l2_reread
#include <cstdio>
#include <vector>

#include "../../validation/micro/dram_stream.cu"

#include "cuda_check.h"

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount * 8, threads = 256;
  const std::vector<size_t> mib = {8, 16, 24, 32, 40, 48, 56, 64};
  float4 *buf, *big;
  float* sink;
  CHECK(cudaMalloc(&buf, 64ull << 20));
  CHECK(cudaMalloc(&big, 512ull << 20));
  CHECK(cudaMalloc(&sink, 1 << 20));
  CHECK(cudaMemset(buf, 0, 64ull << 20));
  CHECK(cudaMemset(big, 0, 512ull << 20));
  std::printf("# %s, %d SMs, grid %d x %d\n", prop.name, prop.multiProcessorCount, blocks, threads);
  for (size_t m : mib) {
    const unsigned long long n4 = (m << 20) / 16;
    std::printf("footprint_mib %zu\n", m);
    read_stream<<<blocks, threads>>>(big, sink, (512ull << 20) / 16);
    read_stream<<<blocks, threads>>>(buf, sink, n4);
    read_stream<<<blocks, threads>>>(buf, sink, n4);
    CHECK(cudaDeviceSynchronize());
  }
  CHECK(cudaGetLastError());
  return 0;
}
