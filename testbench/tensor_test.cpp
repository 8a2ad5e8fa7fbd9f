// Matrix (tensor-core) instructions against the H100: every mma.sync shape and type, ldmatrix,
// movmatrix and wmma in validation/tensor/mma_inputs.h run on the model with the same register
// words the H100 ran (scripts/h100/mma_bits.cu), and their outputs must equal the H100's
// (docs/data/h100_mma_bits.txt) bit for bit, the 8-bit float forms included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "driver/runtime.h"
#include "tlm/gpu_config.h"
#include "validation/tensor/mma_inputs.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Runtime;

const std::string kSource = SCGPU_SOURCE_DIR;

// variant -> (tile * 32 + lane) * d words
std::map<std::string, std::vector<std::uint32_t>> h100Outputs() {
  std::map<std::string, std::vector<std::uint32_t>> out;
  std::ifstream in(kSource + "/docs/data/h100_mma_bits.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name;
    int tile, lane;
    ss >> name >> tile >> lane;
    std::string w;
    while (ss >> w) out[name].push_back(std::uint32_t(std::stoul(w, nullptr, 16)));
  }
  return out;
}

std::string kernelName(const std::string& v) {
  if (v.rfind("wmma_", 0) == 0) return v;
  if (v.rfind("ldmatrix", 0) == 0 || v.rfind("movmatrix", 0) == 0) return "ldm_" + v;
  return "mma_" + v;
}


class TensorVsH100 : public ::testing::TestWithParam<int> {};

TEST_P(TensorVsH100, OutputsEqualTheH100s) {
  static const auto reference = h100Outputs();
  const mma_probe::Variant& v = mma_probe::kVariants[GetParam()];
  auto it = reference.find(v.name);
  ASSERT_NE(it, reference.end()) << "no H100 data for " << v.name;
  const std::size_t per_lane = std::size_t(v.a) + v.b + v.c;
  std::vector<std::uint32_t> in(std::size_t(mma_probe::kTiles) * 32 * per_lane);
  mma_probe::makeInputs(GetParam(), in.data());
  const std::vector<std::uint32_t>& want = it->second;
  ASSERT_EQ(want.size(), std::size_t(mma_probe::kTiles) * 32 * v.d);

  Runtime rt;
  auto& m = rt.loadModuleFile(kSource + "/validation/tensor/mma_bits_sm90.ptx");
  const DevicePtr din = rt.upload(in), dout = rt.malloc(want.size() * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, kernelName(v.name)), Dim3(mma_probe::kTiles), Dim3(32), 0,
                      KernelArgs().add(din).add(dout)),
            Error::Success);
  const auto got = rt.download<std::uint32_t>(dout, want.size());
  int shown = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i] && ++shown <= 5)
      ADD_FAILURE() << v.name << " tile " << i / v.d / 32 << " lane " << i / v.d % 32 << " word " << i % v.d
                    << ": model " << std::hex << got[i] << ", H100 " << want[i];
}

INSTANTIATE_TEST_SUITE_P(Variants, TensorVsH100, ::testing::Range(0, mma_probe::kNumVariants),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::string(mma_probe::kVariants[p.param].name);
                         });

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

// The tensor pipe's timing on the hopper preset, from the probe's own timing kernels (dependent
// chains of 1024 mma, one warp; and 16 warps x 4 independent chains on one SM): the cycles per
// step and the mma per SM-cycle follow from sm.pipes.tensor and sm.tensor_* (configs/hopper.yaml):
// m16n8k16 .f16: latency 10 + 3.5 x 2048/512 = 24, pipe busy 2 + 4 = 6 cycles per sub-core
// (4 sub-cores: 2/3 mma per SM-cycle); m16n8k8 .f16: 17 and 4 (1 per SM-cycle); DMMA m8n8k4: 26
// and ceil(2 + 256 / 18.3) = 16 (1/4 per SM-cycle).
TEST(TensorPipeTiming, LatencyAndThroughputFollowTheHopperConfig) {
  struct Case { const char* name; const char* latency_kernel; const char* throughput_kernel; double latency, per_sm_cycle; };
  const Case cases[] = {{"f16 m16n8k16", "_Z5timedILi0ELi1EEvPmPf", "_Z5timedILi0ELi4EEvPmPf", 24, 4.0 / 6},
                        {"f16 m16n8k8", "_Z5timedILi4ELi1EEvPmPf", "_Z5timedILi4ELi4EEvPmPf", 17, 1.0},
                        {"f64 m8n8k4", "_Z5timedILi7ELi1EEvPmPf", "_Z5timedILi7ELi4EEvPmPf", 26, 0.25}};
  // One timing-mode runtime per process (SystemC elaborates one design).
  Runtime rt(GpuConfig::load(GpuConfig::resolve("hopper")), driver::Mode::Timing);
  auto& m = rt.loadModuleFile(kSource + "/validation/tensor/mma_bits_sm90.ptx");
  const DevicePtr cycles = rt.malloc(8), sink = rt.malloc(4);
  constexpr double kSteps = 1024;
  for (const Case& p : cases) {
    ASSERT_EQ(rt.launch(rt.getFunction(m, p.latency_kernel), Dim3(1), Dim3(32), 0, KernelArgs().add(cycles).add(sink)),
              Error::Success);
    const double latency = double(rt.download<std::uint64_t>(cycles, 1)[0]) / kSteps;
    ASSERT_EQ(rt.launch(rt.getFunction(m, p.throughput_kernel), Dim3(1), Dim3(16 * 32), 0,
                        KernelArgs().add(cycles).add(sink)),
              Error::Success);
    const double per_cycle = 16 * 4 * kSteps / double(rt.download<std::uint64_t>(cycles, 1)[0]);
    std::printf("%s: %.2f cycles a dependent step, %.4f mma per SM-cycle\n", p.name, latency, per_cycle);
    EXPECT_NEAR(latency, p.latency, 0.03 * p.latency) << p.name;
    EXPECT_NEAR(per_cycle, p.per_sm_cycle, 0.03 * p.per_sm_cycle) << p.name;
  }
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

// Instruction fetch runs ahead of a warp on straight-line code (sm.icache_prefetch_lines): the
// first pass through 2048 adds costs what the second does, 2 cycles an add on hopper's 16-lane
// integer pipe (initiation interval 2), as on the H100 (docs/data/h100_icache.csv: 4169 and 4134
// cycles). Without prefetch each 32-byte sector (two instructions) would miss for 20 cycles.
TEST(InstructionFetch, PrefetchHidesColdStraightLineCode) {
  Runtime rt(GpuConfig::load(GpuConfig::resolve("hopper")), driver::Mode::Timing);
  auto& m = rt.loadModuleFile(kSource + "/validation/micro/icache.ptx");
  const DevicePtr out = rt.malloc(3 * 8);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "icache_8"), Dim3(1), Dim3(32), 0, KernelArgs().add(out).add(1u)),
            Error::Success);
  const auto cycles = rt.download<std::uint64_t>(out, 2);
  EXPECT_NEAR(double(cycles[0]), 2.0 * 2048, 0.02 * 2 * 2048) << "cold pass";
  EXPECT_NEAR(double(cycles[1]), 2.0 * 2048, 0.02 * 2 * 2048) << "warm pass";
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

// cp.async.wait_group N holds the warp until all but the newest N committed groups have arrived:
// waiting for a group of one cold global read takes a global-miss latency (the chip's DRAM
// latency, hundreds of cycles on hopper); wait_group 1, which lets the newest group stay in
// flight, costs next to nothing; the copy's data is there after the wait_group 0.
TEST(CpAsyncTiming, WaitGroupHoldsTheWarpUntilItsGroupsArrive) {
  Runtime rt(GpuConfig::load(GpuConfig::resolve("hopper")), driver::Mode::Timing);
  auto& m = rt.loadModuleString(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .shared .align 16 .b8 s[16];
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, s;
  mov.u64 %rd5, %clock64;
  cp.async.cg.shared.global [%r1], [%rd3], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
  mov.u64 %rd6, %clock64;
  cp.async.wait_group 0;
  mov.u64 %rd7, %clock64;
  ld.shared.u32 %r2, [%r1];
  sub.s64 %rd8, %rd6, %rd5;
  sub.s64 %rd9, %rd7, %rd6;
  st.global.u64 [%rd4], %rd8;
  st.global.u64 [%rd4+8], %rd9;
  st.global.u32 [%rd4+16], %r2;
  ret;
}
)", "wait.ptx");
  const std::vector<std::uint32_t> in = {0xC0FFEE, 1, 2, 3};
  const DevicePtr din = rt.upload(in), dout = rt.malloc(24);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "k"), Dim3(1), Dim3(32), 0, KernelArgs().add(din).add(dout)), Error::Success);
  const auto cycles = rt.download<std::uint64_t>(dout, 2);
  const auto value = rt.download<std::uint32_t>(dout, 5)[4];
  std::printf("wait_group 1: %llu cycles, wait_group 0: %llu cycles\n", (unsigned long long)cycles[0],
              (unsigned long long)cycles[1]);
  EXPECT_LT(cycles[0], 40u);
  EXPECT_GT(cycles[1], 300u);
  EXPECT_EQ(value, 0xC0FFEEu);
}

}  // namespace
}  // namespace scgpu
