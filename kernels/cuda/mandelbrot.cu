// Escape-time Mandelbrot: out[py*width+px] = iterations before |z| > 2 (at most max_iter).
// A divergent loop (mandelbrot_loop.cuh): neighbouring threads leave it at different iterations.
// Block (16,16).
#include "mandelbrot_loop.cuh"

extern "C" __global__ void mandelbrot(int* __restrict__ out, int width, int height, float x_min,
                                      float y_min, float dx, float dy, int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= width || py >= height) return;
  float cr = __fmaf_rn((float)px, dx, x_min);
  float ci = __fmaf_rn((float)py, dy, y_min);
  float zr, zi;
  out[py * width + px] = mandelbrotIterations(cr, ci, max_iter, zr, zi);
}
