// The suite's three transposes (kernels/cuda/transpose.cu) at the realistic size of
// docs/validation.md (3712 x 2176 floats), each launched 1 + 5 times, for Nsight Compute's memory
// counters: does the H100 read DRAM for the naive transpose's 4-byte scattered stores, and how
// many L2 write requests does it count? Prints the CUDA-event time of the median launch.
//   nvcc -O3 -arch=sm_90 scripts/h100/transpose_probe.cu -o transpose_probe && ./transpose_probe
#include <algorithm>
#include <cstdio>
#include <vector>

#include "../../kernels/cuda/transpose.cu"

#include "cuda_check.h"

int main() {
  const int w = 3712, h = 2176;
  float *in, *out;
  CHECK(cudaMalloc(&in, sizeof(float) * w * h));
  CHECK(cudaMalloc(&out, sizeof(float) * w * h));
  CHECK(cudaMemset(in, 1, sizeof(float) * w * h));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  const dim3 grid(w / TILE_DIM, h / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  const char* names[] = {"transpose_naive", "transpose_shared", "transpose_shared_padded"};
  for (int k = 0; k < 3; ++k) {
    std::vector<float> ms;
    for (int r = 0; r < 6; ++r) {
      CHECK(cudaEventRecord(a));
      if (k == 0) transpose_naive<<<grid, block>>>(out, in, w, h);
      if (k == 1) transpose_shared<<<grid, block>>>(out, in, w, h);
      if (k == 2) transpose_shared_padded<<<grid, block>>>(out, in, w, h);
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float t;
      CHECK(cudaEventElapsedTime(&t, a, b));
      if (r) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s,%.0f ns\n", names[k], ms[2] * 1e6);
  }
  return 0;
}
