// mandelbrot: escape iterations (at most 64) of a 128 x 128 grid over [-2, 0.56] x [-1.28, 1.28]:
// a loop whose trip count diverges between neighbouring threads; block (16, 16). Bit-exact.
// Plain CUDA runtime port of kernels/host/mandelbrot.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: mandelbrot (no seed: the input is the grid itself). Prints PASSED/FAILED;
// exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/mandelbrot.cu"

#define CUDA_PROGRAM_NAME "mandelbrot"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main() {
  const int width = 128, height = 128, max_iter = 64;
  const float x_min = -2.0f, y_min = -1.28f, dx = 2.56f / float(width), dy = 2.56f / float(height);
  // The kernel uses __fmaf_rn/__fmul_rn/__fadd_rn/__fsub_rn, which the compiler may not
  // re-associate or contract; the same operations here make the iteration counts bit-exact:
  // std::fma for the fused ones, and the products stored through volatile so that no host compiler
  // contracts them into the following addition (the suite builds its host code with
  // -ffp-contract=off instead; this program takes nvcc's default flags).
  std::vector<int> want(std::size_t(width) * height);
  for (int py = 0; py < height; ++py) {
    for (int px = 0; px < width; ++px) {
      const float cr = std::fma(float(px), dx, x_min), ci = std::fma(float(py), dy, y_min);
      float zr = 0.0f, zi = 0.0f;
      int it = 0;
      while (it < max_iter) {
        volatile float zr2 = zr * zr, zi2 = zi * zi;
        const float r2 = zr2, i2 = zi2;
        if (r2 + i2 > 4.0f) break;
        const float t = (r2 - i2) + cr;
        zi = std::fma(zr + zr, zi, ci);
        zr = t;
        ++it;
      }
      want[std::size_t(py) * width + px] = it;
    }
  }

  int* dout = deviceAlloc<int>(want.size());
  const dim3 block(16, 16), grid(blocksFor(width, 16), blocksFor(height, 16));
  mandelbrot<<<grid, block>>>(dout, width, height, x_min, y_min, dx, dy, max_iter);
  CHECK_LAUNCH("mandelbrot");
  const std::vector<int> got = download(dout, want.size());
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("iterations", i, got[i], want[i]));
  return passed(std::to_string(want.size()) + " pixels: iteration counts match exactly");
}
