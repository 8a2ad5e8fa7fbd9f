// stencil2d: 4 Jacobi steps of a 5-point stencil on a 128 x 96 float grid, ping-ponging two
// device buffers; block (16, 16).
// Plain CUDA runtime port of kernels/host/stencil2d.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: stencil2d [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/stencil2d.cu"

#define CUDA_PROGRAM_NAME "stencil2d"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int width = 128, height = 96, steps = 4;
  const float c0 = 0.5f, c1 = 0.125f;
  const std::size_t count = std::size_t(width) * height;
  Rng rng(seedFrom(argc, argv));
  std::vector<float> cur = rng.floats(count, 0.0f, 10.0f), next(count);
  const std::vector<float> init = cur;
  for (int t = 0; t < steps; ++t) {
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const std::size_t i = std::size_t(y) * width + x;
        if (x == 0 || y == 0 || x == width - 1 || y == height - 1)
          next[i] = cur[i];
        else
          next[i] = c0 * cur[i] + c1 * (cur[i - 1] + cur[i + 1] + cur[i - width] + cur[i + width]);
      }
    }
    cur.swap(next);
  }

  float* bufs[2] = {upload(init), deviceAlloc<float>(count)};
  const dim3 block(16, 16), grid(blocksFor(width, 16), blocksFor(height, 16));
  for (int t = 0; t < steps; ++t) {
    stencil2d<<<grid, block>>>(bufs[t & 1], bufs[(t + 1) & 1], width, height, c0, c1);
    CHECK_LAUNCH("stencil2d");
  }
  const std::vector<float> got = download(bufs[steps & 1], count);
  // The kernel may fuse c0*centre into an FMA, the reference rounds separately: a few ulps per
  // step on values in [0, 10], the stencil (weights sum to 1) does not amplify them.
  const float rel = 1e-5f, abs = 1e-5f;
  if (long i = firstMismatch(got, cur, rel, abs); i >= 0) return failed(mismatchMessage("grid", i, got[i], cur[i]));
  return passed(std::to_string(steps) + " steps on " + std::to_string(width) + "x" + std::to_string(height) +
                ": all cells match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}
