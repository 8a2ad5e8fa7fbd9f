// Escape-time Mandelbrot: out[py*width+px] = iterations before |z| > 2 (at most max_iter).
// A divergent loop: neighbouring threads leave it at different iterations. Arithmetic uses the
// explicit-rounding intrinsics so that the compiler does not contract into FMAs the operations the
// CPU reference does separately (the result is then bit-exact). Block (16,16).
extern "C" __global__ void mandelbrot(int* __restrict__ out, int width, int height, float x_min,
                                      float y_min, float dx, float dy, int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= width || py >= height) return;
  float cr = __fmaf_rn((float)px, dx, x_min);
  float ci = __fmaf_rn((float)py, dy, y_min);
  float zr = 0.f, zi = 0.f;
  int it = 0;
  while (it < max_iter) {
    float zr2 = __fmul_rn(zr, zr), zi2 = __fmul_rn(zi, zi);
    if (__fadd_rn(zr2, zi2) > 4.0f) break;
    float t = __fadd_rn(__fsub_rn(zr2, zi2), cr);
    zi = __fmaf_rn(__fadd_rn(zr, zr), zi, ci);
    zr = t;
    ++it;
  }
  out[py * width + px] = it;
}
