// Load-to-use latency through the whole chip, measured as a GPU microbenchmark would: one thread
// chases a chain of dependent loads and reads %clock64 between them. Each configured latency on
// the path (L1 hit, L2 hit, DRAM tCL and tRCD) must appear in the measured latency exactly once:
// raising it by D cycles raises every load of that level by exactly D core cycles. All clocks are
// set equal so that interconnect and DRAM cycles are core cycles. Each run is its own `scgpu`
// process (one SystemC design per process).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const char* kChasePtx = R"(.version 8.0
.target sm_90
.address_size 64
// One thread: p = base + chain[p]; the time between consecutive loads' issue is one load-to-use
// latency plus a constant loop overhead. Deltas go to shared memory (no traffic on the memory
// path being measured) and are copied out at the end.
.visible .entry chase(.param .u64 chain, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b8 deltas[512];
  ld.param.u64 %rd1, [chain];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u64 %rd9, deltas;
  mov.u64 %rd4, %rd1;
  mov.u32 %r2, 0;
  mov.u64 %rd3, %clock64;
LOOP:
  ld.global.u64 %rd5, [%rd4];
  mov.u64 %rd6, %clock64;
  add.s64 %rd4, %rd1, %rd5;
  sub.s64 %rd7, %rd6, %rd3;
  mov.u64 %rd3, %rd6;
  mul.wide.u32 %rd8, %r2, 8;
  add.s64 %rd10, %rd9, %rd8;
  st.shared.u64 [%rd10], %rd7;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  mov.u32 %r3, 0;
COPY:
  mul.wide.u32 %rd8, %r3, 8;
  add.s64 %rd10, %rd9, %rd8;
  ld.shared.u64 %rd7, [%rd10];
  add.s64 %rd11, %rd2, %rd8;
  st.global.u64 [%rd11], %rd7;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r1;
  @%p2 bra COPY;
  ret;
}
)";

constexpr int kLoads = 24;

class Latency : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("scgpu_latency_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "chase.ptx") << kChasePtx;
  }

  // Writes the chain: element offsets (bytes from the chain's start) of the next load.
  void writeChain(const std::vector<std::uint64_t>& offsets_in_u64) {
    std::ofstream f(dir_ / "chain.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(offsets_in_u64.data()), std::streamsize(offsets_in_u64.size() * 8));
    chain_elems_ = offsets_in_u64.size();
  }

  // Runs the chase with config overrides; returns the per-load deltas (core cycles).
  std::vector<std::uint64_t> run(const std::vector<std::string>& sets) {
    std::ofstream(dir_ / "chase.yaml") << "ptx: chase.ptx\nkernel: chase\ngrid: 1\nblock: 1\n"
                                       << "buffers:\n  chain: {type: u64, count: " << chain_elems_
                                       << ", init: {file: chain.bin}}\n"
                                       << "  out: {type: u64, count: " << kLoads << ", init: zeros, output: out.bin}\n"
                                       << "args: [chain, out, {scalar: {type: u32, value: " << kLoads << "}}]\n";
    std::string cmd = std::string(SCGPU_BINARY) + " run " + (dir_ / "chase.yaml").string() + " --mode timing --quiet" +
                      " --set clocks.icnt_clock_mhz=1980 --set clocks.dram_clock_mhz=1980 --set clocks.core_clock_mhz=1980" +
                      " --set dram.refresh=false";
    for (const auto& s : sets) cmd += " --set " + s;
    cmd += " > /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::vector<std::uint64_t> out(kLoads);
    std::ifstream f(dir_ / "out.bin", std::ios::binary);
    f.read(reinterpret_cast<char*>(out.data()), kLoads * 8);
    return out;
  }

  // The steady-state latency: every load after the first few (which warm caches) must agree.
  static std::uint64_t steady(const std::vector<std::uint64_t>& d, int from) {
    for (int i = from + 1; i < kLoads; ++i) EXPECT_EQ(d[i], d[from]) << "load " << i;
    return d[from];
  }

  fs::path dir_;
  std::size_t chain_elems_ = 0;
};

TEST_F(Latency, L1HitLatencyIsTheConfiguredOne) {
  writeChain({0});  // the chain points at itself: after the first miss, every load hits L1
  const std::uint64_t base = steady(run({"sm.l1.hit_latency_cycles=20"}), 2);
  const std::uint64_t more = steady(run({"sm.l1.hit_latency_cycles=57"}), 2);
  EXPECT_EQ(more - base, 57u - 20u);
  // The LSU pipe's latency is on the path too.
  const std::uint64_t lsu31 = steady(run({"sm.l1.hit_latency_cycles=20", "sm.pipes.lsu.latency_cycles=31"}), 2);
  const std::uint64_t lsu10 = steady(run({"sm.l1.hit_latency_cycles=20", "sm.pipes.lsu.latency_cycles=10"}), 2);
  EXPECT_EQ(lsu31 - lsu10, 31u - 10u);
}

TEST_F(Latency, L2HitLatencyIsTheConfiguredOne) {
  writeChain({0});  // no L1 (size 0): every load misses L1 and hits L2 after the first
  const std::uint64_t base = steady(run({"sm.l1.size_bytes=0", "l2.cache.hit_latency_cycles=100"}), 2);
  const std::uint64_t more = steady(run({"sm.l1.size_bytes=0", "l2.cache.hit_latency_cycles=173"}), 2);
  EXPECT_EQ(more - base, 173u - 100u);
  // The crossbar's traversal latency is paid once each way.
  const std::uint64_t xbar = steady(run({"sm.l1.size_bytes=0", "l2.cache.hit_latency_cycles=100",
                                         "crossbar.latency_cycles=40"}),
                                    2);
  const std::uint64_t xbar0 = steady(run({"sm.l1.size_bytes=0", "l2.cache.hit_latency_cycles=100",
                                          "crossbar.latency_cycles=10"}),
                                     2);
  EXPECT_EQ(xbar - xbar0, 2u * (40u - 10u));
}

TEST_F(Latency, DramLatencyHasTclAndTrcdOnce) {
  // Loads 64 KiB apart: every one a new line in a new DRAM row, missing L1 (size 0) and L2.
  // Closed pages: each access is ACT, then RD after tRCD, data tCL later. One sector a miss
  // (the hopper preset fetches 64 bytes: two accesses, the second with its own ACT on closed pages).
  const std::uint64_t stride = 64 * 1024 / 8;
  std::vector<std::uint64_t> chain((kLoads + 1) * stride, 0);
  for (int i = 0; i < kLoads; ++i) chain[std::size_t(i) * stride] = std::uint64_t(i + 1) * stride * 8;
  writeChain(chain);
  const std::vector<std::string> common = {"sm.l1.size_bytes=0", "dram.page_policy=closed",
                                           "l2.dram_fetch_granule_bytes=0"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), common.begin(), common.end());
    return steady(run(extra), 2);
  };
  const std::uint64_t base = with({"dram.timing.tCL=20", "dram.timing.tRCD=20"});
  EXPECT_EQ(with({"dram.timing.tCL=45", "dram.timing.tRCD=20"}) - base, 45u - 20u);
  EXPECT_EQ(with({"dram.timing.tCL=20", "dram.timing.tRCD=61"}) - base, 61u - 20u);
}

}  // namespace
