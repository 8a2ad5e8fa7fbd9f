// reduce_tree: sum of 64K floats (x scale) by a shared-memory tree per block, then one block over
// the partial sums.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 65536 * scaleOf(opt);
  const std::uint32_t block = 256, blocks = 64;
  Rng rng(opt.seed);
  const std::vector<float> in = rng.floats(n, 0.0f, 1.0f);
  // Reference in double: partial b sums the grid-stride slice of block b.
  std::vector<double> want_partial(blocks, 0.0);
  double want_total = 0.0;
  for (int i = 0; i < n; ++i) {
    want_partial[(i / block) % blocks] += in[i];
    want_total += in[i];
  }

  DeviceArena mem(rt);
  const driver::DevicePtr din = mem.upload(in), dpart = mem.zeros<float>(blocks), dtotal = mem.zeros<float>(1);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "reduce_tree", opt), "reduce_tree");
  if (auto e = rt.launch(fn, blocks, block, 0, driver::KernelArgs().add(din).add(dpart).add(n));
      e != driver::Error::Success)
    return launchFailed("reduce_tree", e);
  if (auto e = rt.launch(fn, 1, blocks, 0, driver::KernelArgs().add(dpart).add(dtotal).add(int(blocks)));
      e != driver::Error::Success)
    return launchFailed("reduce_tree (partials)", e);

  // Float sums in a different order than the reference: the error grows like log2(n) * eps *
  // sum|x|; all inputs are positive, so 1e-5 relative is a comfortable bound.
  const double rel = 1e-5;
  const std::vector<float> part = rt.download<float>(dpart, blocks);
  for (std::uint32_t b = 0; b < blocks; ++b) {
    if (std::fabs(part[b] - want_partial[b]) > rel * want_partial[b])
      return failed(mismatchMessage("partial", b, double(part[b]), want_partial[b]));
  }
  const float total = rt.download<float>(dtotal, 1)[0];
  if (std::fabs(total - want_total) > rel * want_total) return failed(mismatchMessage("total", 0, double(total), want_total));
  return passed(std::to_string(blocks) + " block partials and the total of " + std::to_string(n) +
                " floats match within " + tolText(rel) + " rel");
}

const WorkloadRegistrar reg({"reduce_tree", "sum of 64K floats: shared-memory tree per block, two launches",
                             "reduce_tree", {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
