// reduce_atomic: reductions through global atomics: int sum / max / min and a 64-bit sum, one
// atomic of each per thread; and a float sum with one atomicAdd per element.
#include <climits>

#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 65536 * scaleOf(opt);
  Rng rng(opt.seed);
  const std::vector<std::int32_t> ints = rng.ints(n, -1000, 1000);
  std::vector<float> floats(n);
  for (float& f : floats) f = float(rng.range(0, 255)) / 256.0f;  // k/256: exact partial sums at scale 1

  std::int64_t sum = 0;
  std::int32_t mx = INT_MIN, mn = INT_MAX;
  std::uint64_t sum64 = 0;
  double fsum = 0.0;
  for (int i = 0; i < n; ++i) {
    sum += ints[i];
    mx = std::max(mx, ints[i]);
    mn = std::min(mn, ints[i]);
    sum64 += std::uint64_t(std::uint32_t(ints[i]));
    fsum += floats[i];
  }

  DeviceArena mem(rt);
  const driver::DevicePtr din = mem.upload(ints), dfin = mem.upload(floats);
  const driver::DevicePtr dout = mem.upload(std::vector<std::int32_t>{0, INT_MIN, INT_MAX});
  const driver::DevicePtr d64 = mem.zeros<std::uint64_t>(1), dfsum = mem.zeros<float>(1);
  driver::Module& mod = loadWorkloadModule(rt, "reduce_atomic", opt);
  driver::Function& fint = rt.getFunction(mod, "reduce_atomic_int");
  driver::Function& ffloat = rt.getFunction(mod, "reduce_atomic_float");
  if (auto e = rt.launch(fint, 32, 256, 0, driver::KernelArgs().add(din).add(dout).add(d64).add(n));
      e != driver::Error::Success)
    return launchFailed("reduce_atomic_int", e);
  if (auto e = rt.launch(ffloat, blocksFor(n, 256), 256, 0, driver::KernelArgs().add(dfin).add(dfsum).add(n));
      e != driver::Error::Success)
    return launchFailed("reduce_atomic_float", e);

  const std::vector<std::int32_t> out = rt.download<std::int32_t>(dout, 3);
  if (out[0] != std::int32_t(sum)) return failed(mismatchMessage("sum", 0, out[0], std::int32_t(sum)));
  if (out[1] != mx) return failed(mismatchMessage("max", 0, out[1], mx));
  if (out[2] != mn) return failed(mismatchMessage("min", 0, out[2], mn));
  const std::uint64_t got64 = rt.download<std::uint64_t>(d64, 1)[0];
  if (got64 != sum64) return failed(mismatchMessage("sum64", 0, got64, sum64));
  // The float atomics add in an order the model chooses. Inputs are multiples of 1/256: while
  // n * 255/256 < 2^16 every partial sum is exact in 24 bits (scale 1), so the sum must be exact
  // in any order. Beyond that each addition rounds: the worst-case bound n * 2^-24 applies.
  const double rel = n <= 65536 ? 0.0 : double(n) * 0x1p-24;
  const float gotf = rt.download<float>(dfsum, 1)[0];
  if (std::fabs(gotf - fsum) > rel * fsum) return failed(mismatchMessage("float sum", 0, double(gotf), fsum));
  return passed("int sum/max/min and u64 sum of " + std::to_string(n) + " ints exact; float atomic sum " +
                (rel == 0.0 ? std::string("exact") : "within " + tolText(rel) + " rel"));
}

const WorkloadRegistrar reg({"reduce_atomic", "int/u64/float reductions with global atomicAdd/Max/Min",
                             "reduce_atomic", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
