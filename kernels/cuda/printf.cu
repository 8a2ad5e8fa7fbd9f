// Device printf: only lanes 0..3 of warp 1 of block 1 print, so the output order is defined
// (lane order). Formats: %d %u %x %lld %f %.3f %e %s %c %%.
#include <cstdio>

extern "C" __global__ void print_values(const int* __restrict__ ints, const float* __restrict__ floats) {
  if (blockIdx.x != 1) return;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp != 1 || lane >= 4) return;
  int v = ints[lane];
  float f = floats[lane];
  long long big = (long long)v * 1000000007LL;
  printf("block %d warp %d lane %d: d=%d u=%u x=%x ll=%lld f=%f g=%.3f e=%e s=%s c=%c %%\n", blockIdx.x,
         warp, lane, v, (unsigned)v, (unsigned)v, big, f, f * 2.0f, (double)f, (lane & 1) ? "odd" : "even",
         'A' + lane);
}
