// tma_transpose: out = in^T for a (300 x scale + 13) x 500 float matrix through the copy engine
// (TMA): 32 x 32 tiles loaded and stored by cp.async.bulk.tensor through two tensor maps, the
// load with the 128-byte swizzle. Both dimensions end in partial tiles, so the load's zero fill and
// the store's clipping are part of the result. Reference: the transpose on the CPU, bit-exact.
#include <cstdio>

#include "kernels/workload.h"
#include "kernels/workload_util.h"
#include "sm/tensor_map.h"

namespace scgpu::kernels {
namespace {

// A 2-d float tensor map over a rows x cols row-major matrix whose rows are `pitch` floats apart,
// 32 x 32 boxes.
std::vector<std::uint8_t> floatMap(driver::DevicePtr base, std::uint64_t rows, std::uint64_t cols, std::uint64_t pitch,
                                   sm::TmaSwizzle swizzle) {
  sm::TensorMap m;
  m.global_address = base;
  m.rank = 2;
  m.type = sm::TmaType::F32;
  m.swizzle = swizzle;
  m.size[0] = cols;
  m.size[1] = rows;
  m.stride_bytes[0] = 4;
  m.stride_bytes[1] = pitch * 4;
  m.box[0] = m.box[1] = 32;
  std::vector<std::uint8_t> bytes(sm::kTensorMapBytes);
  sm::encodeTensorMap(m, bytes.data());
  return bytes;
}

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const std::uint32_t rows = 300 * std::uint32_t(scaleOf(opt)) + 13, cols = 500;
  Rng rng(opt.seed);
  std::vector<float> in(std::size_t(rows) * cols), want(in.size());
  for (auto& v : in) v = rng.uniform(-1.0f, 1.0f);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) want[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];

  DeviceArena mem(rt);
  // Row pitches must be multiples of 16 bytes: the output's rows (rows floats) are padded to 4.
  const std::uint32_t out_pitch = (rows + 3) / 4 * 4;
  const driver::DevicePtr din = mem.upload(in), dpad = mem.alloc(std::size_t(cols) * out_pitch * 4);
  const auto in_map = floatMap(din, rows, cols, cols, sm::TmaSwizzle::B128);
  const auto out_map = floatMap(dpad, cols, rows, out_pitch, sm::TmaSwizzle::None);
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "tma_transpose", opt), "tma_transpose");
  if (auto e = rt.launch(fn, driver::Dim3((cols + 31) / 32, (rows + 31) / 32), driver::Dim3(32, 8), 0,
                         driver::KernelArgs().addBytes(in_map.data(), in_map.size()).addBytes(out_map.data(), out_map.size()));
      e != driver::Error::Success)
    return launchFailed("tma_transpose", e);
  const auto padded = rt.download<float>(dpad, std::size_t(cols) * out_pitch);
  for (std::uint32_t c = 0; c < cols; ++c)
    for (std::uint32_t r = 0; r < out_pitch; ++r) {
      const float got = padded[std::size_t(c) * out_pitch + r];
      const float expect = r < rows ? want[std::size_t(c) * rows + r] : 0.0f;  // padding: never written
      if (got != expect) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "out[%u][%u] = %g, want %g", c, r, double(got), double(expect));
        return failed(buf);
      }
    }
  return passed(std::to_string(rows) + " x " + std::to_string(cols) + " floats transposed through TMA tiles: bit-exact");
}

const WorkloadRegistrar reg({"tma_transpose", "matrix transpose with TMA tile loads (128-byte swizzle) and stores",
                             "tma_transpose", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
