// What shfl.sync returns when its source lane is not taking part (not in the member mask and not
// executing the shuffle), which the PTX ISA leaves undefined but real programs rely on (the CUDA
// samples' reduce7 adds such a value). Lanes 0-7 shuffle down by 16 under mask 0xff; lanes 16-23,
// the sources, hold known values in the shuffled variable (case 0) or never wrote it (case 1).
// Prints one line per case: the 8 values lanes 0-7 received.
#include <cstdio>

#include "cuda_check.h"

__global__ void from_inactive(int* out, int base) {
  const int lane = threadIdx.x;
  int v = base + lane;
  if (lane < 8) out[lane] = __shfl_down_sync(0xffu, v, 16);
}

__global__ void never_written(int* out, const int* in) {
  const int lane = threadIdx.x;
  if (lane < 8) {
    int w = in[lane];  // only lanes 0-7 load it
    out[lane] = __shfl_down_sync(0xffu, w, 16);
  }
}

int main() {
  int *out = nullptr, *in = nullptr;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = 2000 + i;
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  from_inactive<<<1, 32>>>(out, 1000);
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("case 0 (source lanes hold 1016..1023):");
  for (int i = 0; i < 8; ++i) std::printf(" %d", h[i]);
  std::printf("\n");
  never_written<<<1, 32>>>(out, in);
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("case 1 (source lanes never loaded; lanes 0-7 hold 2000..2007):");
  for (int i = 0; i < 8; ++i) std::printf(" %d", h[i]);
  std::printf("\n");
  return 0;
}
