// recursion: per thread, fib(i % 13) through a doubly recursive __noinline__ device function and
// factorial(i % 21) in 64 bits; 1024 threads (x scale).
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 1024 * scaleOf(opt);
  (void)opt.seed;  // inputs are the thread indices
  std::vector<std::uint32_t> fib(13);
  fib[0] = 0;
  fib[1] = 1;
  for (int k = 2; k < 13; ++k) fib[k] = fib[k - 1] + fib[k - 2];
  std::vector<std::uint64_t> fact(21);
  fact[0] = 1;
  for (int k = 1; k < 21; ++k) fact[k] = fact[k - 1] * std::uint64_t(k);
  std::vector<std::uint32_t> want_fib(n);
  std::vector<std::uint64_t> want_fact(n);
  for (int i = 0; i < n; ++i) {
    want_fib[i] = fib[i % 13];
    want_fact[i] = fact[i % 21];
  }

  DeviceArena mem(rt);
  const driver::DevicePtr dfib = mem.zeros<std::uint32_t>(n), dfact = mem.zeros<std::uint64_t>(n);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "recursion", opt), "recursion");
  if (auto e = rt.launch(fn, blocksFor(n, 128), 128, 0, driver::KernelArgs().add(dfib).add(dfact).add(n));
      e != driver::Error::Success)
    return launchFailed("recursion", e);
  const std::vector<std::uint32_t> got_fib = rt.download<std::uint32_t>(dfib, n);
  if (long i = firstDifference(got_fib, want_fib); i >= 0) return failed(mismatchMessage("fib", i, got_fib[i], want_fib[i]));
  const std::vector<std::uint64_t> got_fact = rt.download<std::uint64_t>(dfact, n);
  if (long i = firstDifference(got_fact, want_fact); i >= 0)
    return failed(mismatchMessage("factorial", i, got_fact[i], want_fact[i]));
  return passed(std::to_string(n) + " recursive fib and factorial results match exactly");
}

const WorkloadRegistrar reg({"recursion", "recursive __noinline__ device functions (fib, factorial) per thread",
                             "recursion", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
