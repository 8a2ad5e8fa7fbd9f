// histogram: 256-bin histogram of 64K bytes (x scale), skewed so that atomics collide, with
// shared-memory atomics and with global atomics.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 65536 * scaleOf(opt);
  Rng rng(opt.seed);
  std::vector<std::uint8_t> data(n);
  // Half the bytes in 16 hot bins, the rest uniform.
  for (auto& b : data) b = std::uint8_t(rng.range(0, 1) == 0 ? rng.range(64, 79) : rng.range(0, 255));
  std::vector<std::uint32_t> want(256, 0);
  for (std::uint8_t b : data) ++want[b];

  DeviceArena mem(rt);
  const driver::DevicePtr ddata = mem.upload(data), dbins = mem.alloc(256 * sizeof(std::uint32_t));
  driver::Module& mod = loadWorkloadModule(rt, "histogram", opt);
  for (const char* kernel : {"histogram_shared", "histogram_global"}) {
    rt.memset(dbins, 0, 256 * sizeof(std::uint32_t));
    driver::Function& fn = rt.getFunction(mod, kernel);
    if (auto e = rt.launch(fn, blocksFor(n, 256, 32), 256, 0, driver::KernelArgs().add(ddata).add(n).add(dbins));
        e != driver::Error::Success)
      return launchFailed(kernel, e);
    const std::vector<std::uint32_t> got = rt.download<std::uint32_t>(dbins, 256);
    if (long i = firstDifference(got, want); i >= 0)
      return failed(mismatchMessage(std::string(kernel) + " bin", i, got[i], want[i]));
  }
  return passed("2 kernels: 256 bins of " + std::to_string(n) + " bytes match exactly");
}

const WorkloadRegistrar reg({"histogram", "256-bin byte histogram: shared-memory atomics and global atomics",
                             "histogram", {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
