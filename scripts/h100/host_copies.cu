// Measures, on a real GPU, the host-interface constants of the hopper preset (config `host.*`):
// pinned host<->device copy latency and bandwidth, device<->device copy and memset bandwidth, and
// the time of an empty command (a stream's event record after a tiny copy).
// Build and run: nvcc -O2 -o host_copies host_copies.cu && ./host_copies > host_copies.csv
// Output: CSV rows  what,bytes,median_us,gb_per_s  (median of 20 repetitions after 3 warm-ups).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_check.h"

template <typename F>
float medianMs(F op, cudaStream_t s) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < 23; ++i) {
    CHECK(cudaEventRecord(a, s));
    op();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 3) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

int main() {
  const size_t max_bytes = size_t(256) << 20;
  void *host, *dev, *dev2;
  CHECK(cudaMallocHost(&host, max_bytes));
  CHECK(cudaMalloc(&dev, max_bytes));
  CHECK(cudaMalloc(&dev2, max_bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  std::printf("what,bytes,median_us,gb_per_s\n");
  auto row = [](const char* what, size_t bytes, float ms) {
    std::printf("%s,%zu,%.3f,%.2f\n", what, bytes, ms * 1000.0, ms > 0 ? bytes / (ms * 1e6) : 0.0);
  };
  row("empty", 0, medianMs([&] {}, s));
  for (size_t bytes = 4; bytes <= max_bytes; bytes *= 4) {
    row("h2d", bytes, medianMs([&] { CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); }, s));
    row("d2h", bytes, medianMs([&] { CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s)); }, s));
  }
  for (size_t bytes = size_t(1) << 20; bytes <= max_bytes; bytes *= 16) {
    row("d2d", bytes, medianMs([&] { CHECK(cudaMemcpyAsync(dev2, dev, bytes, cudaMemcpyDeviceToDevice, s)); }, s));
    row("memset", bytes, medianMs([&] { CHECK(cudaMemsetAsync(dev, 1, bytes, s)); }, s));
  }
  // 2D pitched host->device: 4096 rows of 4 KiB into a 8 KiB pitch.
  row("h2d_2d", size_t(4096) * 4096,
      medianMs([&] { CHECK(cudaMemcpy2DAsync(dev, 8192, host, 4096, 4096, 4096, cudaMemcpyHostToDevice, s)); }, s));
  // Copy overlapping a kernel-free stream: two streams copying at once (both directions).
  cudaStream_t s2;
  CHECK(cudaStreamCreate(&s2));
  void* host2;
  CHECK(cudaMallocHost(&host2, max_bytes));
  row("h2d_and_d2h_concurrent_each", size_t(64) << 20, medianMs([&] {
        CHECK(cudaMemcpyAsync(dev, host, size_t(64) << 20, cudaMemcpyHostToDevice, s));
        CHECK(cudaMemcpyAsync(host2, dev2, size_t(64) << 20, cudaMemcpyDeviceToHost, s2));
        CHECK(cudaStreamSynchronize(s2));
      }, s));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::fprintf(stderr, "device: %s, %d copy engines (asyncEngineCount)\n", p.name, p.asyncEngineCount);
  return 0;
}
