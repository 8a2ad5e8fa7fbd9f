// Concurrency on silicon: one-block kernels of two streams side by side, and a host-to-device copy
// beside a kernel. Prints CSV rows: case, microseconds (median of 20 after 3 warm-ups).
// Build: nvcc -O2 -arch=sm_90 concurrency.cu -o concurrency
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_check.h"

// The same kernel as testbench/concurrency_test.cpp: an LCG stepped `iters` times per thread.
__global__ void spin(unsigned* out, unsigned iters) {
  unsigned id = blockIdx.x * blockDim.x + threadIdx.x, x = id;
  for (unsigned i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  out[id] = x;
}

template <typename F> float median(F run) {
  std::vector<float> t;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 23; ++i) {
    cudaDeviceSynchronize();
    cudaEventRecord(a, 0);
    run();
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 3) t.push_back(ms * 1000.0f);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  unsigned *o1, *o2;
  CHECK(cudaMalloc(&o1, 4096));
  CHECK(cudaMalloc(&o2, 4096));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, j1, j2;
  cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&j1, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&j2, cudaEventDisableTiming);
  const size_t kCopy = 1 << 20;
  void* host;
  CHECK(cudaMallocHost(&host, kCopy));
  void* dev;
  CHECK(cudaMalloc(&dev, kCopy));
  std::printf("case,iters,us\n");
  for (unsigned iters : {3000u, 12000u}) {
    // Forked from the legacy stream and joined back, so its events bracket both streams.
    auto both = [&](auto on1, auto on2) {
      cudaEventRecord(fork, 0);
      cudaStreamWaitEvent(s1, fork, 0);
      cudaStreamWaitEvent(s2, fork, 0);
      on1();
      on2();
      cudaEventRecord(j1, s1);
      cudaEventRecord(j2, s2);
      cudaStreamWaitEvent(0, j1, 0);
      cudaStreamWaitEvent(0, j2, 0);
    };
    const float alone = median([&] { spin<<<1, 32, 0, s1>>>(o1, iters); cudaEventRecord(j1, s1); cudaStreamWaitEvent(0, j1, 0); });
    const float two = median([&] {
      both([&] { spin<<<1, 32, 0, s1>>>(o1, iters); }, [&] { spin<<<1, 32, 0, s2>>>(o2, iters + 1); });
    });
    const float serial = median([&] {
      spin<<<1, 32, 0, s1>>>(o1, iters);
      spin<<<1, 32, 0, s1>>>(o2, iters + 1);
      cudaEventRecord(j1, s1);
      cudaStreamWaitEvent(0, j1, 0);
    });
    const float copy = median([&] { cudaMemcpyAsync(dev, host, kCopy, cudaMemcpyHostToDevice, s2); cudaEventRecord(j2, s2); cudaStreamWaitEvent(0, j2, 0); });
    const float copy_and_kernel = median([&] {
      both([&] { spin<<<1, 32, 0, s1>>>(o1, iters); },
           [&] { cudaMemcpyAsync(dev, host, kCopy, cudaMemcpyHostToDevice, s2); });
    });
    std::printf("kernel_alone,%u,%.2f\n", iters, alone);
    std::printf("two_kernels_two_streams,%u,%.2f\n", iters, two);
    std::printf("two_kernels_one_stream,%u,%.2f\n", iters, serial);
    std::printf("copy_1MiB_alone,%u,%.2f\n", iters, copy);
    std::printf("copy_1MiB_beside_kernel,%u,%.2f\n", iters, copy_and_kernel);
  }
  CHECK(cudaGetLastError());
  return 0;
}
