// vector_add: c = a + b over 64K floats (x scale), grid-stride with a capped grid.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 65536 * scaleOf(opt);
  Rng rng(opt.seed);
  const std::vector<float> a = rng.floats(n, -1.0f, 1.0f);
  const std::vector<float> b = rng.floats(n, -1.0f, 1.0f);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];

  DeviceArena mem(rt);
  const driver::DevicePtr da = mem.upload(a), db = mem.upload(b), dc = mem.zeros<float>(n);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "vector_add", opt), "vector_add");
  const std::uint32_t block = 256;
  if (auto e = rt.launch(fn, blocksFor(n, block, 64), block, 0, driver::KernelArgs().add(da).add(db).add(dc).add(n));
      e != driver::Error::Success)
    return launchFailed("vector_add", e);
  const std::vector<float> got = rt.download<float>(dc, n);
  // One IEEE addition per element, correctly rounded on both sides: bit-exact.
  if (long i = firstMismatch(got, want, 0.0f, 0.0f); i >= 0) return failed(mismatchMessage("c", i, got[i], want[i]));
  return passed(std::to_string(n) + " floats match exactly");
}

const WorkloadRegistrar reg({"vector_add", "c = a + b over 64K floats, grid-stride loop", "vector_add",
                             {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
