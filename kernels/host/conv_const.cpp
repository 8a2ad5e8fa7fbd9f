// conv_const: 1D convolution of 16K floats (x scale) with an 11-tap filter held in __constant__
// memory (written through the symbol's address), direct and with a shared-memory tile.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 16384 * scaleOf(opt), radius = 5, taps = 2 * radius + 1;
  Rng rng(opt.seed);
  const std::vector<float> in = rng.floats(n, -1.0f, 1.0f);
  std::vector<float> filter = rng.floats(taps, 0.0f, 1.0f);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    double sum = 0.0;
    for (int k = -radius; k <= radius; ++k)
      if (i + k >= 0 && i + k < n) sum += double(filter[k + radius]) * in[i + k];
    want[i] = float(sum);
  }

  DeviceArena mem(rt);
  driver::Module& mod = loadWorkloadModule(rt, "conv_const", opt);
  rt.memcpyHtoD(rt.symbolAddress(mod, "c_filter"), filter.data(), filter.size() * sizeof(float));
  const driver::DevicePtr din = mem.upload(in), dout = mem.alloc(n * sizeof(float));
  const std::uint32_t block = 256;  // conv1d_const_tiled needs blockDim.x <= 256
  struct Variant { const char* kernel; std::uint32_t grid; };
  for (const Variant& v : {Variant{"conv1d_const", blocksFor(n, block, 32)}, Variant{"conv1d_const_tiled", blocksFor(n, block)}}) {
    rt.memset(dout, 0xff, n * sizeof(float));
    driver::Function& fn = rt.getFunction(mod, v.kernel);
    if (auto e = rt.launch(fn, v.grid, block, 0, driver::KernelArgs().add(din).add(dout).add(n).add(radius));
        e != driver::Error::Success)
      return launchFailed(v.kernel, e);
    const std::vector<float> got = rt.download<float>(dout, n);
    // 11 float multiply-adds against a double reference: error <= 11 * eps * sum|w*x| <= 11 * 6e-8 * 11.
    const float rel = 1e-5f, abs = 1e-5f;
    if (long i = firstMismatch(got, want, rel, abs); i >= 0)
      return failed(mismatchMessage(std::string(v.kernel) + " out", i, got[i], want[i]));
  }
  return passed("2 kernels: " + std::to_string(n) + " outputs of an " + std::to_string(taps) +
                "-tap constant-memory filter match within 1e-05 rel + 1e-05 abs");
}

const WorkloadRegistrar reg({"conv_const", "1D convolution, 11-tap filter in __constant__ memory, direct and tiled",
                             "conv_const", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
