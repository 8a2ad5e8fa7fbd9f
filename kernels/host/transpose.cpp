// transpose: out = in^T for a 232 x 136 (x scale) float matrix, which is not a multiple of the
// 32x32 tile, with the naive, shared-tile and padded shared-tile kernels.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int width = 232 * s, height = 136 * s;
  const std::size_t count = std::size_t(width) * height;
  Rng rng(opt.seed);
  const std::vector<float> in = rng.floats(count, -100.0f, 100.0f);
  std::vector<float> want(count);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) want[std::size_t(x) * height + y] = in[std::size_t(y) * width + x];

  DeviceArena mem(rt);
  const driver::DevicePtr din = mem.upload(in), dout = mem.alloc(count * sizeof(float));
  driver::Module& mod = loadWorkloadModule(rt, "transpose", opt);
  const driver::Dim3 block(32, 8), grid(blocksFor(width, 32), blocksFor(height, 32));
  for (const char* kernel : {"transpose_naive", "transpose_shared", "transpose_shared_padded"}) {
    rt.memset(dout, 0xff, count * sizeof(float));  // NaNs: an element left unwritten is caught
    driver::Function& fn = rt.getFunction(mod, kernel);
    if (auto e = rt.launch(fn, grid, block, 0, driver::KernelArgs().add(dout).add(din).add(width).add(height));
        e != driver::Error::Success)
      return launchFailed(kernel, e);
    const std::vector<float> got = rt.download<float>(dout, count);
    // Data movement only: bit-exact.
    if (long i = firstMismatch(got, want, 0.0f, 0.0f); i >= 0)
      return failed(mismatchMessage(std::string(kernel) + " out", i, got[i], want[i]));
  }
  return passed("3 kernels: " + std::to_string(width) + "x" + std::to_string(height) + " transposes match exactly");
}

const WorkloadRegistrar reg({"transpose", "232x136 float transpose: naive, shared tile, padded shared tile",
                             "transpose", {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
