// Times the streaming microbenchmarks of validation/micro/dram_stream.cu on a real GPU: read,
// write and copy of one buffer per footprint (8 MiB: L2-resident when warm; 64 MiB to 1 GiB:
// DRAM), every SM full (8 blocks of 256 threads per SM), grid-stride.
//   warm: one launch to warm up, then kRepeat back-to-back launches timed with CUDA events
//         (mean per launch, launch gaps included, as a user times a kernel);
//   cold: before each of kRepeat launches a 512 MiB buffer is written (flushing the L2), and
//         only the launch is timed.
// Prints CSV: kernel,footprint_bytes,condition,us_per_launch,gb_per_s (bytes read + written).
//   nvcc -O3 -arch=sm_90 scripts/h100/micro_stream.cu -o micro_stream && ./micro_stream
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../validation/micro/dram_stream.cu"

#include "cuda_check.h"

constexpr int kRepeat = 10;

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount * 8, threads = 256;
  const std::vector<size_t> footprints = {8ull << 20, 64ull << 20, 256ull << 20, 1024ull << 20};
  const size_t max_bytes = footprints.back();
  float4 *a, *b, *flush;
  float* sink;
  CHECK(cudaMalloc(&a, max_bytes));
  CHECK(cudaMalloc(&b, max_bytes));
  CHECK(cudaMalloc(&flush, 512ull << 20));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(a, 0, max_bytes));
  CHECK(cudaMemset(b, 0, max_bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("# %s, %d SMs, grid %d x %d\n", prop.name, prop.multiProcessorCount, blocks, threads);
  std::printf("kernel,footprint_bytes,condition,us_per_launch,gb_per_s\n");
  for (const char* kernel : {"read", "write", "copy"}) {
    for (size_t bytes : footprints) {
      const unsigned long long n4 = bytes / 16;
      auto launch = [&] {
        if (kernel[0] == 'r') read_stream<<<blocks, threads>>>(a, sink, n4);
        else if (kernel[0] == 'w') write_stream<<<blocks, threads>>>(b, n4, 1.0f);
        else copy_stream<<<blocks, threads>>>(a, b, n4);
      };
      const double moved = double(bytes) * (kernel[0] == 'c' ? 2 : 1);
      // warm
      launch();
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaEventRecord(start));
      for (int i = 0; i < kRepeat; ++i) launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      double us = ms * 1000.0 / kRepeat;
      std::printf("%s,%zu,warm,%.2f,%.1f\n", kernel, bytes, us, moved / (us * 1e3));
      // cold
      double total_ms = 0;
      for (int i = 0; i < kRepeat; ++i) {
        write_stream<<<blocks, threads>>>(flush, (512ull << 20) / 16, 2.0f);
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        total_ms += ms;
      }
      us = total_ms * 1000.0 / kRepeat;
      std::printf("%s,%zu,cold,%.2f,%.1f\n", kernel, bytes, us, moved / (us * 1e3));
    }
  }
  CHECK(cudaGetLastError());
  return 0;
}
