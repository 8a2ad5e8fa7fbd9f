// How much written data the L2 keeps dirty: write, copy and triad streams of growing footprints,
// each profiled alone from an empty L2 (mode "flushed": run under ncu --cache-control all; DRAM
// bytes written during the kernel against the bytes it writes), and a write followed by a read of
// the same buffer (mode "pairs": under ncu --cache-control none; the read's DRAM bytes say how much
// of what was written stayed in the L2). Kernels of validation/micro/dram_stream.cu, every SM full
// (8 blocks of 256 threads an SM), grid-stride.
//   nvcc -O3 -arch=sm_90 scripts/h100/l2_retention.cu -o l2_retention
//   ncu --cache-control all --clock-control none --metrics ... ./l2_retention flushed
//   ncu --cache-control none --clock-control none --metrics ... ./l2_retention pairs
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../validation/micro/dram_stream.cu"

#include "cuda_check.h"

// y = a x + y over float4s (two reads and a write a element, as saxpy).
extern "C" __global__ void triad_stream(const float4* __restrict__ x, float4* __restrict__ y, unsigned long long n4,
                                        float a) {
  for (unsigned long long i = blockIdx.x * 256ull + threadIdx.x; i < n4; i += gridDim.x * 256ull) {
    const float4 u = x[i];
    float4 v = y[i];
    v.x += a * u.x; v.y += a * u.y; v.z += a * u.z; v.w += a * u.w;
    y[i] = v;
  }
}

int main(int argc, char** argv) {
  const bool pairs = argc > 1 && std::strcmp(argv[1], "pairs") == 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount * 8, threads = 256;
  const std::vector<size_t> mib = {4, 8, 16, 24, 32, 40, 48, 64, 96, 128, 256};
  const size_t max_bytes = 256ull << 20;
  float4 *a, *b, *big;
  float* sink;
  CHECK(cudaMalloc(&a, max_bytes));
  CHECK(cudaMalloc(&b, max_bytes));
  CHECK(cudaMalloc(&big, 512ull << 20));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(a, 0, max_bytes));
  CHECK(cudaMemset(b, 0, max_bytes));
  CHECK(cudaMemset(big, 0, 512ull << 20));
  std::printf("# %s, %d SMs, grid %d x %d, mode %s\n", prop.name, prop.multiProcessorCount, blocks, threads,
              pairs ? "pairs" : "flushed");
  for (size_t m : mib) {
    const unsigned long long n4 = (m << 20) / 16;
    std::printf("footprint_mib %zu\n", m);
    if (pairs) {
      // An L2 of clean lines from elsewhere, then the write, then the read of what was written.
      read_stream<<<blocks, threads>>>(big, sink, (512ull << 20) / 16);
      write_stream<<<blocks, threads>>>(b, n4, 1.0f);
      read_stream<<<blocks, threads>>>(b, sink, n4);
      read_stream<<<blocks, threads>>>(big, sink, (512ull << 20) / 16);
      copy_stream<<<blocks, threads>>>(a, b, n4);
      read_stream<<<blocks, threads>>>(b, sink, n4);
    } else {
      write_stream<<<blocks, threads>>>(b, n4, 1.0f);
      copy_stream<<<blocks, threads>>>(a, b, n4);
      triad_stream<<<blocks, threads>>>(a, b, n4, 2.0f);
    }
    CHECK(cudaDeviceSynchronize());
  }
  CHECK(cudaGetLastError());
  return 0;
}
