// printf: device printf of ints, floats, a string and a char (%d %u %x %lld %f %.3f %e %s %c %%)
// from lanes 0..3 of warp 1 of block 1 of print_values (grid 2 x 64 threads).
// Plain CUDA runtime port of kernels/host/printf.cpp (the suite at scale 1); the kernel is the
// suite's own. The device output goes to stdout (flushed by cudaDeviceSynchronize) and is NOT
// checked here: the suite's host program compares it with the same format applied on the host; a
// caller of this program can compare stdout with the 4 lines `expected_lines` builds below.
// Usage: printf [seed]. Prints PASSED (unless a CUDA call fails); exit 0, or 2 on a CUDA error.
#include "../kernels/cuda/printf.cu"

#define CUDA_PROGRAM_NAME "printf"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  Rng rng(seedFrom(argc, argv));
  const std::vector<std::int32_t> ints = rng.ints(4, -100000, 100000);
  std::vector<float> floats(4);
  for (float& f : floats) f = float(rng.range(-4096, 4096)) / 64.0f;  // short exact decimals
  // What the device should print, one line per lane (kept for reference; not compared here).
  std::string expected_lines;
  for (int lane = 0; lane < 4; ++lane) {
    char line[256];
    const int v = ints[lane];
    const float f = floats[lane];
    std::snprintf(line, sizeof line, "block %d warp %d lane %d: d=%d u=%u x=%x ll=%lld f=%f g=%.3f e=%e s=%s c=%c %%\n",
                  1, 1, lane, v, unsigned(v), unsigned(v), static_cast<long long>(v) * 1000000007LL, double(f),
                  double(f * 2.0f), double(f), (lane & 1) ? "odd" : "even", 'A' + lane);
    expected_lines += line;
  }

  const int* dints = upload(ints);
  const float* dfloats = upload(floats);
  std::fflush(stdout);  // host output so far before the device's
  print_values<<<2, 64>>>(dints, dfloats);
  CHECK_LAUNCH("print_values");  // cudaDeviceSynchronize flushes the device printf buffer
  std::fflush(stdout);
  return passed("print_values ran; 4 lines expected above (\"block 1 warp 1 lane 0..3: ...\", " +
                std::to_string(expected_lines.size()) + " bytes), not checked by this program");
}
