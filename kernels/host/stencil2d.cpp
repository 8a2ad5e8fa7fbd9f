// stencil2d: 4 Jacobi steps of a 5-point stencil on a 128 x 96 (x scale) float grid, ping-ponging
// two device buffers.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int width = 128 * s, height = 96 * s, steps = 4;
  const float c0 = 0.5f, c1 = 0.125f;
  const std::size_t count = std::size_t(width) * height;
  Rng rng(opt.seed);
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

  DeviceArena mem(rt);
  driver::DevicePtr bufs[2] = {mem.upload(init), mem.alloc(count * sizeof(float))};
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "stencil2d", opt), "stencil2d");
  const driver::Dim3 block(16, 16), grid(blocksFor(width, 16), blocksFor(height, 16));
  for (int t = 0; t < steps; ++t) {
    if (auto e = rt.launch(fn, grid, block, 0,
                           driver::KernelArgs().add(bufs[t & 1]).add(bufs[(t + 1) & 1]).add(width).add(height).add(c0).add(c1));
        e != driver::Error::Success)
      return launchFailed("stencil2d", e);
  }
  const std::vector<float> got = rt.download<float>(bufs[steps & 1], count);
  // The kernel may fuse c0*centre into an FMA, the reference rounds separately: a few ulps per
  // step on values in [0, 10], the stencil (weights sum to 1) does not amplify them.
  const float rel = 1e-5f, abs = 1e-5f;
  if (long i = firstMismatch(got, cur, rel, abs); i >= 0) return failed(mismatchMessage("grid", i, got[i], cur[i]));
  return passed(std::to_string(steps) + " steps on " + std::to_string(width) + "x" + std::to_string(height) +
                ": all cells match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}

const WorkloadRegistrar reg({"stencil2d", "5-point stencil, 4 steps on a 128x96 grid", "stencil2d", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
