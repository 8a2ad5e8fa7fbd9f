// Back-to-back launches against one kernel's own duration: how much time a launch adds when
// launches queue up behind each other (CUDA-event timing, as a user times a kernel) and when the
// host synchronises after each. The kernel spins each block for `spin` clock64 cycles; every block
// records the %globaltimer at its start and end, so the kernel's span on the GPU (first block
// start to last block end) is known for each launch.
// Prints CSV: grid,block,spin_cycles,launches,event_ns_per_launch,synced_ns_per_launch,span_ns
//   (span_ns: median over the back-to-back launches of the kernel's span on the GPU)
//   nvcc -O3 -arch=sm_90 scripts/h100/launch_gap.cu -o launch_gap && ./launch_gap
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cuda_check.h"

__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// times[2 * (launch * grid + block)] = start, + 1 = end (ns, %globaltimer).
extern "C" __global__ void spin(long long cycles, unsigned long long* times, int launch) {
  const unsigned long long t0 = globalTimer();
  const long long c0 = clock64();
  while (clock64() - c0 < cycles) {
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long* t = times + 2ull * ((unsigned long long)launch * gridDim.x + blockIdx.x);
    t[0] = t0;
    t[1] = globalTimer();
  }
}

int main() {
  const int grids[] = {1, 132, 1056};
  const long long spins[] = {0, 1000, 2000, 4000, 8000, 16000, 40000};
  const int counts[] = {10, 100};
  constexpr int kMaxLaunches = 100, kMaxGrid = 1056;
  unsigned long long* times;
  CHECK(cudaMalloc(&times, sizeof(unsigned long long) * 2 * kMaxLaunches * kMaxGrid));
  std::vector<unsigned long long> host(2 * kMaxLaunches * kMaxGrid);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("grid,block,spin_cycles,launches,event_ns_per_launch,synced_ns_per_launch,span_ns,gap_ns\n");
  for (int grid : grids)
    for (long long spin_cycles : spins)
      for (int n : counts) {
        const int block = 128;
        for (int w = 0; w < 3; ++w) spin<<<grid, block>>>(spin_cycles, times, 0);  // warm-up
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(start));
        for (int i = 0; i < n; ++i) spin<<<grid, block>>>(spin_cycles, times, i);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        CHECK(cudaMemcpy(host.data(), times, sizeof(unsigned long long) * 2 * n * grid, cudaMemcpyDeviceToHost));
        std::vector<double> spans, gaps;
        unsigned long long prev_end = 0;
        for (int i = 0; i < n; ++i) {
          unsigned long long s = ~0ull, e = 0;
          for (int b = 0; b < grid; ++b) {
            s = std::min(s, host[2ull * (i * grid + b)]);
            e = std::max(e, host[2ull * (i * grid + b) + 1]);
          }
          spans.push_back(double(e - s));
          if (i > 0) gaps.push_back(double(s) - double(prev_end));  // last block's end to next first start
          prev_end = e;
        }
        std::sort(spans.begin(), spans.end());
        std::sort(gaps.begin(), gaps.end());
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
          spin<<<grid, block>>>(spin_cycles, times, i);
          CHECK(cudaDeviceSynchronize());
        }
        const double synced = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
        std::printf("%d,%d,%lld,%d,%.1f,%.1f,%.0f,%.0f\n", grid, block, spin_cycles, n, ms * 1e6 / n, synced,
                    spans[spans.size() / 2], gaps.empty() ? 0.0 : gaps[gaps.size() / 2]);
        std::fflush(stdout);
      }
  return 0;
}
