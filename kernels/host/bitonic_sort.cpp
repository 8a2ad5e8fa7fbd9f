// bitonic_sort: sorts 2048 (x the largest power of two <= scale) unsigned keys twice: with one
// global compare-exchange launch per step, and with shared-memory sorts and merges of 256-key
// chunks plus global launches only for the steps that cross chunks.
#include <algorithm>

#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  std::uint32_t n = 2048;
  for (int s = scaleOf(opt); s > 1; s >>= 1) n <<= 1;
  const std::uint32_t block = 256, blocks = n / block;
  Rng rng(opt.seed);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = std::uint32_t(rng.range(0, 4999)) * 859'433u;  // duplicates, spread bits
  std::vector<std::uint32_t> want = keys;
  std::sort(want.begin(), want.end());

  DeviceArena mem(rt);
  driver::Module& mod = loadWorkloadModule(rt, "bitonic_sort", opt);
  driver::Function& step = rt.getFunction(mod, "bitonic_step");
  driver::Function& sort_shared = rt.getFunction(mod, "bitonic_sort_shared");
  driver::Function& merge_shared = rt.getFunction(mod, "bitonic_merge_shared");

  // 1. Global steps only.
  const driver::DevicePtr a = mem.upload(keys);
  int launches_global = 0;
  for (std::uint32_t k = 2; k <= n; k <<= 1) {
    for (std::uint32_t j = k >> 1; j > 0; j >>= 1) {
      ++launches_global;
      if (auto e = rt.launch(step, blocks, block, 0, driver::KernelArgs().add(a).add(j).add(k));
          e != driver::Error::Success)
        return launchFailed("bitonic_step", e);
    }
  }
  std::vector<std::uint32_t> got = rt.download<std::uint32_t>(a, n);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("global sort", i, got[i], want[i]));

  // 2. Shared-memory sort of chunks, then per stage k: global steps for j >= block, shared merge.
  const driver::DevicePtr b = mem.upload(keys);
  int launches_shared = 1;
  if (auto e = rt.launch(sort_shared, blocks, block, 0, driver::KernelArgs().add(b)); e != driver::Error::Success)
    return launchFailed("bitonic_sort_shared", e);
  for (std::uint32_t k = block << 1; k <= n; k <<= 1) {
    for (std::uint32_t j = k >> 1; j >= block; j >>= 1) {
      ++launches_shared;
      if (auto e = rt.launch(step, blocks, block, 0, driver::KernelArgs().add(b).add(j).add(k));
          e != driver::Error::Success)
        return launchFailed("bitonic_step", e);
    }
    ++launches_shared;
    if (auto e = rt.launch(merge_shared, blocks, block, 0, driver::KernelArgs().add(b).add(k));
        e != driver::Error::Success)
      return launchFailed("bitonic_merge_shared", e);
  }
  got = rt.download<std::uint32_t>(b, n);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("shared sort", i, got[i], want[i]));
  return passed(std::to_string(n) + " keys sorted exactly twice: " + std::to_string(launches_global) +
                " global-step launches, and " + std::to_string(launches_shared) + " shared/global launches");
}

const WorkloadRegistrar reg({"bitonic_sort", "bitonic sort of 2048 keys: global steps, and shared-memory stages",
                             "bitonic_sort", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
