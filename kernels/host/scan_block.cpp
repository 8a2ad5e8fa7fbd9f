// scan_block: inclusive prefix sum of 16K - 37 ints (x scale): per-block Hillis-Steele scans in
// dynamic shared memory, the block totals scanned the same way (recursively), then offsets added.
#include <functional>

#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 16384 * scaleOf(opt) - 37;  // not a multiple of the block: the guards run
  const std::uint32_t block = 256;
  Rng rng(opt.seed);
  const std::vector<std::int32_t> in = rng.ints(n, -100, 100);
  std::vector<std::int32_t> want(n);
  std::int32_t acc = 0;
  for (int i = 0; i < n; ++i) want[i] = acc += in[i];

  DeviceArena mem(rt);
  driver::Module& mod = loadWorkloadModule(rt, "scan_block", opt);
  driver::Function& scan = rt.getFunction(mod, "scan_block");
  driver::Function& add = rt.getFunction(mod, "scan_add_offsets");
  const std::size_t smem = 2 * block * sizeof(std::int32_t);
  int launches = 0;

  // Scans `count` ints from src into dst (device), recursing on the block totals.
  std::function<driver::Error(driver::DevicePtr, driver::DevicePtr, int)> scanLevel =
      [&](driver::DevicePtr src, driver::DevicePtr dst, int count) -> driver::Error {
    const std::uint32_t blocks = blocksFor(count, block);
    driver::DevicePtr sums = 0, scanned = 0;
    if (blocks > 1) {
      sums = mem.alloc(blocks * sizeof(std::int32_t));
      scanned = mem.alloc(blocks * sizeof(std::int32_t));
    }
    ++launches;
    if (auto e = rt.launch(scan, blocks, block, smem, driver::KernelArgs().add(src).add(dst).add(sums).add(count));
        e != driver::Error::Success)
      return e;
    if (blocks == 1) return driver::Error::Success;
    if (auto e = scanLevel(sums, scanned, int(blocks)); e != driver::Error::Success) return e;
    ++launches;
    return rt.launch(add, blocks, block, 0, driver::KernelArgs().add(dst).add(scanned).add(count));
  };

  const driver::DevicePtr din = mem.upload(in), dout = mem.alloc(n * sizeof(std::int32_t));
  if (auto e = scanLevel(din, dout, n); e != driver::Error::Success) return launchFailed("scan_block", e);
  const std::vector<std::int32_t> got = rt.download<std::int32_t>(dout, n);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("scan", i, got[i], want[i]));
  return passed(std::to_string(n) + " inclusive prefix sums match exactly (" + std::to_string(launches) + " launches)");
}

const WorkloadRegistrar reg({"scan_block", "inclusive int prefix sum: Hillis-Steele per block in dynamic shared memory",
                             "scan_block", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
