// Global integer atomics (result unused: RED) from the whole chip under controlled contention, for
// the L2 atomic unit's model (docs/validation.md, "Scattered accesses": hot-line atomics are the
// model's largest remaining memory error). Every warp instruction updates `words` distinct words
// (lanes share them evenly; words = 1: all 32 lanes on one word) of one of `lines` lines, `stride`
// bytes apart; a warp walks the lines with a stride of its own, so consecutive requests to a slice
// come from many warps. Grid 132 x 256, 16 iterations. Prints the median CUDA-event time of 5
// launches (after a warm-up) per configuration, and the updates per ns.
//   nvcc -O3 -arch=sm_90 scripts/h100/atomic_probe.cu -o atomic_probe && ./atomic_probe
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda_check.h"

__global__ void hot_lines(unsigned* buf, unsigned lines, unsigned words, unsigned stride_words, int iters) {
  const unsigned lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned word = (lane % words) * (32 / words);
  for (int i = 0; i < iters; ++i) {
    const unsigned line = (warp * 7u + unsigned(i) * 13u) % lines;
    atomicAdd(buf + line * stride_words + word, 1u);
  }
}

int main() {
  const unsigned line_counts[] = {1, 2, 8, 64, 4096};
  const unsigned word_counts[] = {1, 4, 32};
  const unsigned strides[] = {32, 1024};  // 128 bytes (consecutive lines), 4 KiB
  unsigned* buf;
  CHECK(cudaMalloc(&buf, 4096u * 1024u * 4u));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  const int grid = 132, block = 256, iters = 16;
  std::printf("lines,words,stride_bytes,grid,block,iters,updates,median_ns,updates_per_ns\n");
  for (unsigned s : strides)
    for (unsigned l : line_counts)
      for (unsigned w : word_counts) {
        std::vector<float> ms;
        for (int r = 0; r < 6; ++r) {
          CHECK(cudaMemset(buf, 0, 4096u * 1024u * 4u));
          CHECK(cudaEventRecord(a));
          hot_lines<<<grid, block>>>(buf, l, w, s, iters);
          CHECK(cudaEventRecord(b));
          CHECK(cudaEventSynchronize(b));
          CHECK(cudaGetLastError());
          float t;
          CHECK(cudaEventElapsedTime(&t, a, b));
          if (r) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double ns = ms[2] * 1e6, updates = double(grid) * block * iters;
        std::printf("%u,%u,%u,%d,%d,%d,%.0f,%.0f,%.3f\n", l, w, s * 4, grid, block, iters, updates, ns, updates / ns);
      }
  return 0;
}
