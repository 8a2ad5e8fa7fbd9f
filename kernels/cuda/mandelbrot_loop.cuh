// The escape-time loop of the suite's Mandelbrot kernel (mandelbrot.cu): iterations before
// |z| > 2 for c = (cr, ci), at most max_iter, with z's last value in zr, zi. The microbenchmarks
// that measure this loop on silicon (validation/micro/sm_micro.cu mandel_loop,
// scripts/h100/mandel_order.cu) include it, so that all compile to the same SASS. The
// explicit-rounding intrinsics keep the compiler from contracting into FMAs the operations the CPU
// reference does separately (the result is then bit-exact).
#pragma once

__device__ __forceinline__ int mandelbrotIterations(float cr, float ci, int max_iter, float& zr, float& zi) {
  zr = 0.f;
  zi = 0.f;
  int it = 0;
  while (it < max_iter) {
    float zr2 = __fmul_rn(zr, zr), zi2 = __fmul_rn(zi, zi);
    if (__fadd_rn(zr2, zi2) > 4.0f) break;
    float t = __fadd_rn(__fsub_rn(zr2, zi2), cr);
    zi = __fmaf_rn(__fadd_rn(zr, zr), zi, ci);
    zr = t;
    ++it;
  }
  return it;
}
