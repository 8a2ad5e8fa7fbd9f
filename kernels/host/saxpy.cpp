// saxpy: y = a*x + y over 64K floats (x scale), one element per thread.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 65536 * scaleOf(opt);
  const float a = 2.5f;
  Rng rng(opt.seed);
  const std::vector<float> x = rng.floats(n, -1.0f, 1.0f);
  const std::vector<float> y = rng.floats(n, -1.0f, 1.0f);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a * x[i] + y[i];

  DeviceArena mem(rt);
  const driver::DevicePtr dx = mem.upload(x), dy = mem.upload(y);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "saxpy", opt), "saxpy");
  const std::uint32_t block = 256;
  if (auto e = rt.launch(fn, blocksFor(n, block), block, 0, driver::KernelArgs().add(n).add(a).add(dx).add(dy));
      e != driver::Error::Success)
    return launchFailed("saxpy", e);
  const std::vector<float> got = rt.download<float>(dy, n);
  // nvcc contracts a*x + y into one fma (one rounding), the reference rounds the product first:
  // they differ by at most half an ulp of a*x (|a*x| <= 2.5), i.e. < 2e-7 absolute.
  const float rel = 1e-6f, abs = 1e-6f;
  if (long i = firstMismatch(got, want, rel, abs); i >= 0) return failed(mismatchMessage("y", i, got[i], want[i]));
  return passed(std::to_string(n) + " floats match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}

const WorkloadRegistrar reg({"saxpy", "y = a*x + y over 64K floats", "saxpy", {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
