// printf: device printf of ints, floats, a string and a char from lanes 0..3 of warp 1 of block 1
// (grid 2 x 64 threads), compared with the same format applied on the host.
#include <cstdio>

#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  Rng rng(opt.seed);
  const std::vector<std::int32_t> ints = rng.ints(4, -100000, 100000);
  std::vector<float> floats(4);
  for (float& f : floats) f = float(rng.range(-4096, 4096)) / 64.0f;  // short exact decimals
  std::string want;
  for (int lane = 0; lane < 4; ++lane) {
    char line[256];
    const int v = ints[lane];
    const float f = floats[lane];
    std::snprintf(line, sizeof line, "block %d warp %d lane %d: d=%d u=%u x=%x ll=%lld f=%f g=%.3f e=%e s=%s c=%c %%\n",
                  1, 1, lane, v, unsigned(v), unsigned(v), static_cast<long long>(v) * 1000000007LL, double(f),
                  double(f * 2.0f), double(f), (lane & 1) ? "odd" : "even", 'A' + lane);
    want += line;
  }

  DeviceArena mem(rt);
  const driver::DevicePtr dints = mem.upload(ints), dfloats = mem.upload(floats);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "printf", opt), "print_values");
  (void)rt.takePrintfOutput();  // drop anything an earlier kernel printed
  if (auto e = rt.launch(fn, 2, 64, 0, driver::KernelArgs().add(dints).add(dfloats)); e != driver::Error::Success)
    return launchFailed("print_values", e);
  const std::string got = rt.takePrintfOutput();
  if (got != want) return failed("printf output differs:\n--- got\n" + got + "--- want\n" + want);
  return passed("4 printf lines (%d %u %x %lld %f %.3f %e %s %c %%) match exactly");
}

const WorkloadRegistrar reg({"printf", "device printf from 4 lanes of one warp", "printf", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
