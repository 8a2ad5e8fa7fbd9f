// mandelbrot: escape iterations (at most 64) of a 128 x 128 (x scale) grid over
// [-2, 0.56] x [-1.28, 1.28]: a loop whose trip count diverges between neighbouring threads.
#include <cmath>

#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int width = 128 * s, height = 128 * s, max_iter = 64;
  const float x_min = -2.0f, y_min = -1.28f, dx = 2.56f / float(width), dy = 2.56f / float(height);
  (void)opt.seed;  // the input is the grid itself
  // The kernel uses __fmaf_rn/__fmul_rn/__fadd_rn/__fsub_rn, which the compiler may not
  // re-associate or contract; the same operations here (std::fma for the fused ones, and the
  // library builds with -ffp-contract=off) make the iteration counts bit-exact.
  std::vector<std::int32_t> want(std::size_t(width) * height);
  for (int py = 0; py < height; ++py) {
    for (int px = 0; px < width; ++px) {
      const float cr = std::fma(float(px), dx, x_min), ci = std::fma(float(py), dy, y_min);
      float zr = 0.0f, zi = 0.0f;
      int it = 0;
      while (it < max_iter) {
        const float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) break;
        const float t = (zr2 - zi2) + cr;
        zi = std::fma(zr + zr, zi, ci);
        zr = t;
        ++it;
      }
      want[std::size_t(py) * width + px] = it;
    }
  }

  DeviceArena mem(rt);
  const driver::DevicePtr dout = mem.alloc(want.size() * sizeof(std::int32_t));
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "mandelbrot", opt), "mandelbrot");
  const driver::Dim3 block(16, 16), grid(blocksFor(width, 16), blocksFor(height, 16));
  if (auto e = rt.launch(fn, grid, block, 0,
                         driver::KernelArgs().add(dout).add(width).add(height).add(x_min).add(y_min).add(dx).add(dy).add(max_iter));
      e != driver::Error::Success)
    return launchFailed("mandelbrot", e);
  const std::vector<std::int32_t> got = rt.download<std::int32_t>(dout, want.size());
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("iterations", i, got[i], want[i]));
  return passed(std::to_string(want.size()) + " pixels: iteration counts match exactly");
}

const WorkloadRegistrar reg({"mandelbrot", "128x128 Mandelbrot, at most 64 iterations (divergent loop)", "mandelbrot",
                             {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
