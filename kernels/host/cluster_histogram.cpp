// cluster_histogram: 4096 bins of 1 M values (x scale), skewed so that some bins are hot, counted
// in clusters of 1, 2, 4 and 8 blocks whose shared memories hold the bins between them
// (distributed shared memory); every cluster size must give the CPU's counts exactly.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const unsigned n = 1u << 20, nbins = 4096;
  const unsigned total = n * unsigned(scaleOf(opt));
  Rng rng(opt.seed);
  std::vector<std::uint32_t> data(total);
  // A quarter of the values in 64 hot bins, the rest uniform over 2^20 (every bin).
  for (auto& v : data) v = rng.range(0, 3) == 0 ? std::uint32_t(rng.range(0, 63)) * 61u : std::uint32_t(rng.range(0, (1 << 20) - 1));
  std::vector<std::uint32_t> want(nbins, 0);
  for (std::uint32_t v : data) ++want[v % nbins];

  DeviceArena mem(rt);
  const driver::DevicePtr din = mem.upload(data), dbins = mem.alloc(nbins * sizeof(std::uint32_t));
  driver::Module& mod = loadWorkloadModule(rt, "cluster_histogram", opt);
  driver::Function& fn = rt.getFunction(mod, "cluster_histogram");
  for (unsigned c : {1u, 2u, 4u, 8u}) {
    rt.memset(dbins, 0, nbins * sizeof(std::uint32_t));
    const unsigned blocks = 128;  // a multiple of every cluster size
    if (auto e = rt.launch(fn, blocks, 256, nbins / c * sizeof(std::uint32_t),
                           driver::KernelArgs().add(din).add(total).add(nbins).add(dbins), driver::Dim3(c, 1, 1));
        e != driver::Error::Success)
      return launchFailed("cluster_histogram", e);
    const std::vector<std::uint32_t> got = rt.download<std::uint32_t>(dbins, nbins);
    if (long i = firstDifference(got, want); i >= 0)
      return failed(mismatchMessage("cluster_histogram (clusters of " + std::to_string(c) + ") bin", i, got[i], want[i]));
  }
  return passed("4096 bins of " + std::to_string(total) + " values match exactly in clusters of 1, 2, 4 and 8 blocks");
}

const WorkloadRegistrar reg({"cluster_histogram",
                             "histogram with its bins in the distributed shared memory of thread-block clusters",
                             "cluster_histogram", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
