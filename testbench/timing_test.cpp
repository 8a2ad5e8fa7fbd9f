// The timing model end to end, through the runtime: every suite kernel gives the same outputs and
// executes the same instructions as in functional mode; bandwidth stays within what the DRAM
// can deliver; memory throughput rises with occupancy (latency hiding); a bad config is rejected
// at load. SystemC elaborates one design per process, so each test makes one timing-mode Runtime
// and ctest runs each test in a process of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "driver/module.h"
#include "driver/runtime.h"
#include "kernels/workload.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Mode;
using driver::Runtime;

double metric(const Runtime& rt, const std::string& name) {
  return rt.statistics()["components"]["metrics"].value(name, -1.0);
}
std::uint64_t counterSum(const Runtime& rt, const std::string& prefix, const std::string& suffix) {
  std::uint64_t total = 0;
  const nlohmann::json counters = rt.statistics()["components"]["counters"];
  for (auto it = counters.begin(); it != counters.end(); ++it) {
    const std::string& name = it.key();
    if (name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      total += it.value().get<std::uint64_t>();
  }
  return total;
}

// ---- every suite workload: same results and instruction counts as functional mode ------------

class TimingSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingSuite, SameResultsAndInstructionsAsFunctional) {
  const kernels::Workload* w = kernels::findWorkload(GetParam());
  ASSERT_NE(w, nullptr);
  kernels::WorkloadOptions opt;
  Runtime functional(GpuConfig::loadDefault(), Mode::Functional);
  ASSERT_TRUE(w->run(functional, opt).passed);
  Runtime timing(GpuConfig::loadDefault(), Mode::Timing);
  kernels::WorkloadResult r = w->run(timing, opt);
  if (timing.lastFault()) ADD_FAILURE() << timing.lastFault()->toString();
  EXPECT_TRUE(r.passed) << r.message;
  ASSERT_EQ(timing.launches().size(), functional.launches().size());
  // bfs races benignly (several parents may claim one node in a level; which of them sees it
  // unclaimed depends on the order warps run), so its instruction count depends on timing.
  const bool racy = GetParam() == "bfs";
  for (std::size_t i = 0; i < timing.launches().size(); ++i) {
    const auto& t = timing.launches()[i];
    const auto& f = functional.launches()[i];
    if (!racy) {
      EXPECT_EQ(t.warp_instructions, f.warp_instructions) << t.kernel;
      EXPECT_EQ(t.thread_instructions, f.thread_instructions) << t.kernel;
    }
    EXPECT_GT(t.core_cycles, 0u) << t.kernel;
    // No GPU issues more than one warp instruction per scheduler per cycle.
    const GpuParams p = GpuParams::fromConfig(GpuConfig::loadDefault());
    EXPECT_LE(t.warp_instructions, t.core_cycles * p.sm.count * p.sm.sub_cores * p.sm.scheduler_issue_per_cycle)
        << t.kernel;
  }
}

std::vector<std::string> workloadNames() {
  std::vector<std::string> names;
  for (const auto& w : kernels::allWorkloads()) names.push_back(w.name);
  return names;
}
INSTANTIATE_TEST_SUITE_P(AllWorkloads, TimingSuite, ::testing::ValuesIn(workloadNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// ---- memory system -------------------------------------------------------------------------

const char* kCopyPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry copy(.param .u64 src, .param .u64 dst, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.u32 %r6, %r6, %r3;
LOOP:
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r0, %r2, %r3, %r7}, [%rd4];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r0, %r2, %r3, %r7};
  add.u32 %r5, %r5, %r6;
  bra.uni LOOP;
DONE:
  ret;
}
)";

struct CopyRun {
  std::uint64_t cycles;
  double dram_pct;
};

CopyRun runCopy(Runtime& rt, std::uint32_t n16, Dim3 grid, Dim3 block) {
  auto& m = rt.loadModuleString(kCopyPtx, "copy.ptx");
  std::vector<std::uint32_t> host(n16 * 4);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = std::uint32_t(i * 2654435761u);
  DevicePtr src = rt.upload(host), dst = rt.malloc(host.size() * 4);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "copy"), grid, block, 0, KernelArgs().add(src).add(dst).add(n16)),
            Error::Success);
  EXPECT_EQ(rt.download<std::uint32_t>(dst, host.size()), host);
  return {rt.launches().back().core_cycles, metric(rt, "dram__throughput.avg.pct_of_peak_sustained_elapsed")};
}

TEST(TimingMemory, StreamingCopyMovesEveryByteWithinDramPeak) {
  Runtime rt(GpuConfig::loadDefault(), Mode::Timing);
  // 4 MiB read + 4 MiB written: far larger than the tiny config's L2 (2 x 256 KiB), so DRAM-bound.
  CopyRun r = runCopy(rt, 1u << 18, Dim3(64), Dim3(256));
  std::printf("streaming copy: %llu cycles, DRAM %.1f %% of peak\n", (unsigned long long)r.cycles, r.dram_pct);
  EXPECT_GT(r.dram_pct, 0.0);
  EXPECT_LE(r.dram_pct, 100.0);
  const GpuParams p = GpuParams::fromConfig(GpuConfig::loadDefault());
  const double reads = double(counterSum(rt, "gpu.dram[", "].reads")) * p.dram.access_bytes;
  const double writes = double(counterSum(rt, "gpu.dram[", "].writes")) * p.dram.access_bytes;
  const double l2_bytes = double(p.l2.cache.size_bytes) * p.l2.slices;
  // Every byte read came from DRAM once; every byte written reached DRAM unless still dirty in L2.
  EXPECT_GE(reads, double(1u << 22));
  EXPECT_GE(writes + l2_bytes, double(1u << 22));
}

// --warm-repeats: each launch is followed by more of it on the caches it left. A copy whose 128 KiB
// fit the tiny config's L2 (2 x 256 KiB) reads DRAM on its first launch only, so its repeats are
// faster; they run the same instructions and leave the same (idempotent) result.
TEST(TimingWarm, WarmRepeatsRunTheLaunchAgainOnTheCachesItLeft) {
  Runtime rt(GpuConfig::loadDefault(), Mode::Timing);
  rt.setWarmRepeats(2);
  const std::uint32_t n16 = 4096;  // 64 KiB read, 64 KiB written
  runCopy(rt, n16, Dim3(16), Dim3(256));
  const auto& l = rt.launches();
  ASSERT_EQ(l.size(), 3u);
  EXPECT_FALSE(l[0].warm_repeat);
  EXPECT_TRUE(l[1].warm_repeat);
  EXPECT_TRUE(l[2].warm_repeat);
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(l[i].kernel, l[0].kernel);
    EXPECT_EQ(l[i].warp_instructions, l[0].warp_instructions);
    EXPECT_LT(l[i].core_cycles, l[0].core_cycles) << "repeat " << i << " should hit in the L2";
  }
  // DRAM read the source once (the first launch), not three times.
  const GpuParams p = GpuParams::fromConfig(GpuConfig::loadDefault());
  const double reads = double(counterSum(rt, "gpu.dram[", "].reads")) * p.dram.access_bytes;
  EXPECT_LT(reads, 2.0 * n16 * 16);
}

// Warm repeats go back to back, as a program timing a kernel with CUDA events submits them. A host
// far slower than the kernel (host.launch_call_ns 50 us) paces them: each repeat is submitted a
// launch call and a doorbell write (host.mmio_latency_ns) after the one before, into an idle device,
// so completions follow each other by that plus the difference of the two kernels' times (the first
// launch finds cold caches).
TEST(TimingWarm, BackToBackRepeatsFollowTheHostsPaceWhenItIsSlower) {
  const GpuConfig config = GpuConfig::loadDefault({"host.launch_call_ns=50000"});
  const GpuParams p = GpuParams::fromConfig(config);
  Runtime rt(config, Mode::Timing);
  rt.setWarmRepeats(3);
  runCopy(rt, 1024, Dim3(4), Dim3(256));
  const auto& l = rt.launches();
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].event_ns, 0.0) << "the first launch has no launch before it";
  for (int i = 1; i < 4; ++i) {
    ASSERT_LT(l[i].simulated_ns, 50000.0);
    EXPECT_NEAR(l[i].event_ns, 50000.0 + p.host.mmio_latency_ns + l[i].simulated_ns - l[i - 1].simulated_ns, 2.0)
        << "repeat " << i;
  }
}

// A host faster than the kernel (no launch-call cost): the repeats queue behind each other, and a
// repeat's LAUNCH (behind the WRITE_INLINE of its descriptor, both fetched while the kernel before
// it ran) starts two method latencies after that kernel's completion.
TEST(TimingWarm, BackToBackRepeatsQueueBehindAKernelWhenTheHostIsFaster) {
  const GpuConfig config = GpuConfig::loadDefault({"host.launch_call_ns=0"});
  const GpuParams p = GpuParams::fromConfig(config);
  Runtime rt(config, Mode::Timing);
  rt.setWarmRepeats(3);
  runCopy(rt, 16384, Dim3(16), Dim3(256));
  const auto& l = rt.launches();
  ASSERT_EQ(l.size(), 4u);
  for (int i = 1; i < 4; ++i) {
    ASSERT_GT(l[i].simulated_ns, 4.0 * p.host.mmio_latency_ns) << "the kernel should outlast the doorbells";
    EXPECT_NEAR(l[i].event_ns, l[i].simulated_ns + 2.0 * p.host.command_latency_ns, 2.0) << "repeat " << i;
  }
}

// gigathread.flush_caches_before_launch: as under ncu --cache-control all, the repeat finds the L2
// empty and reads its source from DRAM again.
TEST(TimingWarm, FlushingBeforeEachLaunchMakesTheRepeatReadDramAgain) {
  Runtime rt(GpuConfig::loadDefault({"gigathread.flush_caches_before_launch=true"}), Mode::Timing);
  rt.setWarmRepeats(1);
  const std::uint32_t n16 = 4096;
  runCopy(rt, n16, Dim3(16), Dim3(256));
  ASSERT_EQ(rt.launches().size(), 2u);
  const GpuParams p = GpuParams::fromConfig(GpuConfig::loadDefault());
  const double reads = double(counterSum(rt, "gpu.dram[", "].reads")) * p.dram.access_bytes;
  EXPECT_GE(reads, 2.0 * n16 * 16);
  EXPECT_GT(rt.launches()[1].core_cycles, rt.launches()[0].core_cycles / 2);
}

const char* kReadStreamPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry readsum(.param .u64 src, .param .u64 dst, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<14>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.u32 %r6, %r6, %r3;
  mov.u32 %r11, 0;
  shl.b32 %r12, %r6, 1;
LOOP:
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  // Two independent loads per iteration (elements i and i + threads), as a streaming kernel
  // unrolls to keep more bytes in flight.
  mul.wide.u32 %rd3, %r5, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r7, %r8, %r9, %r10}, [%rd4];
  mul.wide.u32 %rd5, %r6, 16;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.v4.u32 {%r13, %r8, %r9, %r10}, [%rd6];
  add.u32 %r11, %r11, %r7;
  add.u32 %r11, %r11, %r13;
  add.u32 %r5, %r5, %r12;
  bra.uni LOOP;
DONE:
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r11;
  ret;
}
)";

TEST(TimingMemory, ReadStreamReachesMostOfDramPeak) {
  Runtime rt(GpuConfig::loadDefault(), Mode::Timing);
  auto& m = rt.loadModuleString(kReadStreamPtx, "readsum.ptx");
  const std::uint32_t n16 = 1u << 18;  // 4 MiB
  std::vector<std::uint32_t> host(n16 * 4);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = std::uint32_t(i);
  DevicePtr src = rt.upload(host), dst = rt.malloc(64 * 256 * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "readsum"), Dim3(64), Dim3(256), 0, KernelArgs().add(src).add(dst).add(n16)),
            Error::Success);
  // Check the sums against the CPU.
  auto got = rt.download<std::uint32_t>(dst, 64 * 256);
  for (std::uint32_t t = 0; t < 64 * 256; t += 997) {
    std::uint32_t want = 0;
    for (std::uint32_t i = t; i < n16; i += 64 * 256) want += host[4 * i];
    EXPECT_EQ(got[t], want) << t;
  }
  const double pct = metric(rt, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
  std::printf("read stream: %llu cycles, DRAM %.1f %% of peak\n", (unsigned long long)rt.launches().back().core_cycles,
              pct);
  EXPECT_GE(pct, 80.0);
  EXPECT_LE(pct, 100.0);
}

// Runs the read stream; returns its cycles.
std::uint64_t runReadStream(Runtime& rt, std::uint32_t n16, Dim3 grid, Dim3 block) {
  auto& m = rt.loadModuleString(kReadStreamPtx, "readsum.ptx");
  std::vector<std::uint32_t> host(n16 * 4, 1);
  DevicePtr src = rt.upload(host), dst = rt.malloc(grid.count() * block.count() * 4);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "readsum"), grid, block, 0, KernelArgs().add(src).add(dst).add(n16)),
            Error::Success);
  // Each thread summed n16 / threads ones.
  auto got = rt.download<std::uint32_t>(dst, grid.count() * block.count());
  EXPECT_EQ(got[0], n16 / std::uint32_t(grid.count() * block.count()));
  return rt.launches().back().core_cycles;
}

TEST(TimingMemory, ThroughputRisesWithOccupancyUntilBandwidthBound) {
  // More resident warps hide more memory latency: the same read stream with more warps per SM
  // runs faster while latency-bound, and levels off once DRAM bandwidth is the limit.
  Runtime rt(GpuConfig::loadDefault(), Mode::Timing);
  std::vector<std::uint64_t> cycles;
  for (std::uint32_t warps : {1u, 2u, 4u, 8u, 16u, 32u}) {
    cycles.push_back(runReadStream(rt, 1u << 16, Dim3(2), Dim3(32 * warps)));
    std::printf("%u warps per SM: %llu cycles\n", warps, (unsigned long long)cycles.back());
  }
  // Latency-bound at 1, 2 and 4 warps per SM: each doubling helps.
  EXPECT_LT(cycles[1], cycles[0]);
  EXPECT_LT(cycles[2], cycles[1]);
  // Once bandwidth-bound, more warps buy nothing, and the extra concurrently open DRAM rows may
  // cost some row conflicts: never more than 15% over the best time seen with fewer warps.
  std::uint64_t best = cycles[0];
  for (std::size_t i = 1; i < cycles.size(); ++i) {
    EXPECT_LE(cycles[i], best * 115 / 100) << i;
    best = std::min(best, cycles[i]);
  }
  EXPECT_LT(cycles.back() * 3, cycles[0]);
}

TEST(TimingConfig, BadConfigIsRejectedAtLoadWithTheKeyPath) {
  try {
    Runtime rt(GpuConfig::loadDefault({"sm.l1.line_bytes=96"}), Mode::Timing);
    FAIL() << "expected a config error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("line_bytes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scgpu
