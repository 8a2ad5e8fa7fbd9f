// hgemm_tma_wgmma: C = A * B on the Hopper tensor cores, A and B half precision, C single;
// M x N x K = 256 x 256 x 512 (x scale each). Warp-specialised like CUTLASS's Hopper kernels: a
// producer thread loads 128 x 64 tiles of A and 64 x 256 tiles of B with TMA (cp.async.bulk.tensor,
// 128-byte swizzle) into a 4-stage shared-memory ring guarded by full/empty mbarriers; two consumer
// warpgroups run wgmma.mma_async m64n256k16 on the tiles through matrix descriptors. At scale 1 the
// 8 K-chunks wrap the ring twice. Reference: the exact products summed in double.
#include <cmath>

#include "kernels/workload.h"
#include "kernels/half_gemm.h"
#include "kernels/workload_util.h"
#include "sm/tensor_map.h"

namespace scgpu::kernels {
namespace {

// A 2-d f16 tensor map over a rows x cols row-major matrix, boxes of box_cols x box_rows elements
// in the 128-byte swizzle (box_cols x 2 bytes = 128: one swizzle row a box row).
std::vector<std::uint8_t> halfMap(driver::DevicePtr base, std::uint64_t rows, std::uint64_t cols,
                                  std::uint32_t box_cols, std::uint32_t box_rows) {
  sm::TensorMap m;
  m.global_address = base;
  m.rank = 2;
  m.type = sm::TmaType::F16;
  m.swizzle = sm::TmaSwizzle::B128;
  m.size[0] = cols;
  m.size[1] = rows;
  m.stride_bytes[0] = 2;
  m.stride_bytes[1] = cols * 2;
  m.box[0] = box_cols;
  m.box[1] = box_rows;
  std::vector<std::uint8_t> bytes(sm::kTensorMapBytes);
  sm::encodeTensorMap(m, bytes.data());
  return bytes;
}

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  const int M = 256 * s, N = 256 * s, K = 512 * s;
  Rng rng(opt.seed);
  const HalfGemm g = makeHalfGemm(rng, M, N, K);
  const std::vector<std::uint16_t>& A = g.A;
  const std::vector<std::uint16_t>& B = g.B;
  const std::vector<float>& want = g.want;

  DeviceArena mem(rt);
  const driver::DevicePtr dA = mem.upload(A), dB = mem.upload(B), dC = mem.alloc(want.size() * sizeof(float));
  rt.memset(dC, 0, want.size() * sizeof(float));
  // A: boxes of 64 K x 128 rows; B: boxes of 64 columns x 64 K-rows (kernels/cuda/hgemm_tma_wgmma.cu).
  const auto a_map = halfMap(dA, std::uint64_t(M), std::uint64_t(K), 64, 128);
  const auto b_map = halfMap(dB, std::uint64_t(K), std::uint64_t(N), 64, 64);
  // 4 stages of 48 KiB, plus 1 KiB to align the ring to 1024 bytes (HGT_SHARED_BYTES).
  const std::size_t shared_bytes = 4 * 48 * 1024 + 1024;
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "hgemm_tma_wgmma", opt), "hgemm_tma_wgmma");
  if (auto e = rt.launch(fn, driver::Dim3(N / 256, M / 128), driver::Dim3(288), shared_bytes,
                         driver::KernelArgs()
                             .addBytes(a_map.data(), a_map.size())
                             .addBytes(b_map.data(), b_map.size())
                             .add(M)
                             .add(N)
                             .add(K)
                             .add(dC));
      e != driver::Error::Success)
    return launchFailed("hgemm_tma_wgmma", e);
  // Products are exact and each 16-term block of the tensor cores truncates below 2^-25 of its
  // largest term and rounds toward zero (sm/exec/mma_arith.h): with |a|, |b| <= 1 the error is at
  // most K/16 blocks x 18 x 2^-24 x max(|C|, 1), well within 1e-5 rel + 1e-6 x K abs.
  const float rel = 1e-5f, abs = 1e-6f * float(K);
  const std::vector<float> got = rt.download<float>(dC, want.size());
  if (long i = firstMismatch(got, want, rel, abs); i >= 0)
    return failed("hgemm_tma_wgmma: " + mismatchMessage("C", i, got[i], want[i]));
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
                " f16 GEMM, TMA ring + wgmma: " + std::to_string(want.size()) + " floats match within " +
                tolText(rel) + " rel + " + tolText(abs) + " abs");
}

// The PTX is nvcc's for sm_90a (wgmma exists there only), kept with the sm_90 PTX.
const WorkloadRegistrar reg({"hgemm_tma_wgmma",
                             "half-precision GEMM: TMA loads into a 4-stage mbarrier ring, two wgmma consumer "
                             "warpgroups (sm_90a), 256x256x512",
                             "hgemm_tma_wgmma", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
