// The GigaThread engine's block dispatch (tlm/gigathread.h): order, round robin, the per-cycle
// quota, the dispatch latency, back-pressure from the occupancy rules, and its statistics.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sm/occupancy.h"
#include "sm/cluster.h"
#include "sm/launch_state.h"
#include "tlm/gigathread.h"
#include "base/stats.h"

namespace scgpu {
namespace {

// An H100-like SM. 256 threads with 80 registers: 2560 registers per warp, 16384 / 2560 = 6 warps
// per sub-partition -> 24 warps -> 3 blocks of 8 warps per SM (registers limit).
SmParams smParams() {
  SmParams s;
  s.sub_cores = 4;
  s.max_threads_per_sm = 2048;
  s.max_warps_per_sm = 64;
  s.max_blocks_per_sm = 32;
  s.registers_per_sm = 65536;
  s.register_allocation_unit_size = 256;
  s.shared_memory_per_sm_bytes = 233472;
  s.reserved_shared_memory_per_block_bytes = 1024;
  s.shared_memory_allocation_unit_bytes = 128;
  return s;
}
const sm::KernelResources kThreeBlocksPerSm{256, 80, 0, 0};

GigaThreadParams gtParams(std::uint32_t latency, std::uint32_t per_cycle) {
  GigaThreadParams p;
  p.dispatch_latency_cycles = latency;
  p.blocks_per_cycle = per_cycle;
  return p;
}

struct Dispatch {
  std::uint64_t cycle, block;
  std::uint32_t sm, kernel;
};

// Every dispatch the engine allows at `cycle`.
std::vector<Dispatch> drain(GigaThread& gt, std::uint64_t cycle) {
  std::vector<Dispatch> out;
  std::uint64_t b;
  std::uint32_t s, k;
  while (gt.nextDispatch(cycle, &k, &b, &s)) out.push_back({cycle, b, s, k});
  return out;
}

TEST(GigaThread, TheCostAllowsThreeBlocksPerSm) {
  const sm::Occupancy o = sm::theoreticalOccupancy(smParams(), kThreeBlocksPerSm);
  EXPECT_EQ(o.blocks_per_sm, 3u);
  EXPECT_EQ(o.limiter, "registers");
}

// 2 SMs x 3 blocks: of 10 blocks, 6 go at once (one per cycle, sm0, sm1, sm0, ...), the rest as
// blocks finish, each dispatch_latency_cycles after the finish that made room.
TEST(GigaThread, DispatchesRoundRobinThenAsBlocksFinish) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(4, 1), smp, 2, stats);
  EXPECT_TRUE(gt.idle());
  EXPECT_FALSE(gt.kernelDone(0));
  gt.startKernel(0, 10, sm::blockCost(smp, kThreeBlocksPerSm), 100);
  EXPECT_FALSE(gt.idle());
  EXPECT_EQ(gt.wakeCycle(), 104u);

  // Nothing before start + latency = 104.
  for (std::uint64_t c = 100; c < 104; ++c) EXPECT_TRUE(drain(gt, c).empty()) << c;
  // Cycles 104..109: blocks 0..5, one per cycle, alternating SMs.
  for (std::uint64_t c = 104; c < 110; ++c) {
    const auto d = drain(gt, c);
    ASSERT_EQ(d.size(), 1u) << c;
    EXPECT_EQ(d[0].block, c - 104);
    EXPECT_EQ(d[0].sm, std::uint32_t((c - 104) % 2));
  }
  EXPECT_EQ(gt.residentBlocks(0), 3u);
  EXPECT_EQ(gt.residentBlocks(1), 3u);
  EXPECT_EQ(gt.blocksLaunched(0), 6u);
  // Full: the next block waits from cycle 110; with no slot on its way the engine is idle.
  EXPECT_TRUE(drain(gt, 110).empty());
  EXPECT_TRUE(gt.idle());

  // A block on SM 1 finishes at 120: its slot is free at 124, and block 6 goes there (SM 0,
  // where the round robin would start, is full).
  gt.blockFinished(1, 0, 120);
  EXPECT_FALSE(gt.idle());
  EXPECT_EQ(gt.wakeCycle(), 124u);
  for (std::uint64_t c = 120; c < 124; ++c) EXPECT_TRUE(drain(gt, c).empty()) << c;
  auto d = drain(gt, 124);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].block, 6u);
  EXPECT_EQ(d[0].sm, 1u);
  // The block waited for room from 110 to 124.
  EXPECT_EQ(stats.value("gpu.gigathread.dispatch_stall_cycles"), 14u);

  // Two finish on SM 0 at 130 (skipping cycles while idle): blocks 7 and 8 go to SM 0 at 134 and
  // 135 (one per cycle).
  gt.blockFinished(0, 0, 130);
  gt.blockFinished(0, 0, 130);
  d = drain(gt, 134);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].block, 7u);
  EXPECT_EQ(d[0].sm, 0u);
  d = drain(gt, 135);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].block, 8u);
  EXPECT_EQ(d[0].sm, 0u);
  // 125..134 waited again.
  EXPECT_EQ(stats.value("gpu.gigathread.dispatch_stall_cycles"), 14u + 9u);
}

TEST(GigaThread, RespectsBlocksPerCycle) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(0, 2), smp, 2, stats);
  gt.startKernel(0, 10, sm::blockCost(smp, kThreeBlocksPerSm), 0);
  const std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> want = {
      {{0, 0}, {1, 1}}, {{2, 0}, {3, 1}}, {{4, 0}, {5, 1}}, {}};
  for (std::uint64_t c = 0; c < want.size(); ++c) {
    const auto d = drain(gt, c);
    ASSERT_EQ(d.size(), want[c].size()) << c;
    for (std::size_t i = 0; i < d.size(); ++i) {
      EXPECT_EQ(d[i].block, want[c][i].first);
      EXPECT_EQ(d[i].sm, want[c][i].second);
    }
  }
  // With latency 0 a freed slot is usable in the cycle it frees.
  gt.blockFinished(0, 0, 5);
  const auto d = drain(gt, 5);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].block, 6u);
  EXPECT_EQ(d[0].sm, 0u);
}

// A whole kernel with blocks of uneven lengths: every block goes once, in order, no SM ever holds
// more than the calculator's blocks_per_sm, and the counters add up.
TEST(GigaThread, RunsAKernelToCompletionWithinTheOccupancyLimit) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  const std::uint32_t limit = sm::theoreticalOccupancy(smp, kThreeBlocksPerSm).blocks_per_sm;
  for (std::uint32_t latency : {0u, 3u}) {
    for (std::uint32_t per_cycle : {1u, 2u, 4u}) {
      stats.clear();
      GigaThread gt(gtParams(latency, per_cycle), smp, 2, stats);
      const std::uint64_t kBlocks = 40;
      gt.startKernel(0, kBlocks, sm::blockCost(smp, kThreeBlocksPerSm), 0);
      std::multimap<std::uint64_t, std::uint32_t> finishing;  // cycle -> sm
      std::uint64_t next_block = 0;
      std::uint64_t cycle = 0;
      for (; !gt.kernelDone(0) && cycle < 100000; ++cycle) {
        for (auto it = finishing.begin(); it != finishing.end() && it->first == cycle; it = finishing.erase(it))
          gt.blockFinished(it->second, 0, cycle);
        std::uint32_t this_cycle = 0;
        for (const Dispatch& d : drain(gt, cycle)) {
          EXPECT_EQ(d.block, next_block++);
          EXPECT_LE(gt.residentBlocks(d.sm), limit);
          EXPECT_TRUE(sm::fits(smp, sm::SmUsage{}, sm::blockCost(smp, kThreeBlocksPerSm)));
          finishing.emplace(cycle + 10 + (d.block * 7) % 13, d.sm);  // 10..22 cycles
          ++this_cycle;
        }
        EXPECT_LE(this_cycle, per_cycle);
        for (std::uint32_t s = 0; s < 2; ++s) EXPECT_LE(gt.usage(s).blocks, limit);
      }
      EXPECT_TRUE(gt.kernelDone(0));
      EXPECT_TRUE(gt.idle());
      EXPECT_EQ(next_block, kBlocks);
      EXPECT_EQ(gt.blocksLaunched(0), kBlocks);
      EXPECT_EQ(gt.blocksCompleted(0), kBlocks);
      EXPECT_EQ(stats.value("gpu.gigathread.blocks_launched"), kBlocks);
      EXPECT_EQ(stats.value("gpu.gigathread.blocks_completed"), kBlocks);
      EXPECT_EQ(stats.value("gpu.gigathread.kernels_launched"), 1u);
      EXPECT_GT(stats.value("gpu.gigathread.dispatch_stall_cycles"), 0u);
    }
  }
}

TEST(GigaThread, SkipsSmsTheBlockDoesNotFitOn) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(0, 8), smp, 3, stats);
  const sm::BlockCost cost = sm::blockCost(smp, kThreeBlocksPerSm);
  gt.startKernel(0, 9, cost, 0);
  EXPECT_EQ(drain(gt, 0).size(), 8u);  // the quota: sm0 1 2 0 1 2 0 1
  auto d = drain(gt, 1);               // block 8 goes to sm2, the only one with room
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].block, 8u);
  EXPECT_EQ(d[0].sm, 2u);
  for (std::uint32_t s = 0; s < 3; ++s) EXPECT_EQ(gt.residentBlocks(s), 3u);
  EXPECT_TRUE(gt.idle());  // all dispatched
  EXPECT_FALSE(gt.kernelDone(0));
}

// A cluster launch's order (sm::clusterMajorBlock): 2x2 clusters on a 4x2 grid go cluster by
// cluster, rank by rank: blocks 0 1 4 5, then 2 3 6 7.
TEST(GigaThread, BlocksGoInTheOrderTheKernelGives) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(0, 8), smp, 3, stats);
  sm::LaunchState launch;
  launch.grid[0] = 4, launch.grid[1] = 2, launch.grid[2] = 1;
  launch.cluster[0] = 2, launch.cluster[1] = 2, launch.cluster[2] = 1;
  gt.startKernel(0, 8, sm::blockCost(smp, kThreeBlocksPerSm), 0, 0,
                 [&](std::uint64_t i) { return sm::clusterMajorBlock(launch, i); });
  std::vector<std::uint64_t> order;
  for (const auto& d : drain(gt, 0)) order.push_back(d.block);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{0, 1, 4, 5, 2, 3, 6, 7}));
}

TEST(GigaThread, KernelIdsAreKeptUntilForgotten) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(1, 1), smp, 1, stats);
  const sm::BlockCost cost = sm::blockCost(smp, kThreeBlocksPerSm);
  gt.startKernel(0, 1, cost, 0);
  EXPECT_THROW(gt.startKernel(0, 1, cost, 0), std::logic_error);  // id 0 is running
  EXPECT_EQ(drain(gt, 1).size(), 1u);
  EXPECT_THROW(gt.blockFinished(1, 0, 5), std::logic_error);  // no SM 1
  EXPECT_THROW(gt.blockFinished(0, 7, 5), std::logic_error);  // no kernel 7
  gt.blockFinished(0, 0, 5);
  EXPECT_TRUE(gt.kernelDone(0));
  EXPECT_THROW(gt.blockFinished(0, 0, 6), std::logic_error);  // nothing of it runs there
  EXPECT_THROW(gt.startKernel(0, 1, cost, 5), std::logic_error);  // done, not yet forgotten
  gt.forgetKernel(0);
  EXPECT_FALSE(gt.kernelDone(0));
  // The id may be used again; its blocks wait for the slot freed at 5 + 1.
  gt.startKernel(0, 4, cost, 5);
  EXPECT_FALSE(gt.kernelDone(0));
  EXPECT_TRUE(drain(gt, 5).empty());
  EXPECT_EQ(drain(gt, 6).size(), 1u);  // one per cycle
  EXPECT_EQ(stats.value("gpu.gigathread.kernels_launched"), 2u);
  // An empty grid is done at once.
  GigaThread empty(gtParams(1, 1), smp, 1, stats, "gpu.gigathread_b");
  empty.startKernel(3, 0, cost, 0);
  EXPECT_TRUE(empty.kernelDone(3));
  EXPECT_TRUE(empty.idle());
}

// Two kernels side by side: the second (same priority, started later) takes the SMs the first
// leaves free, and its blocks go only once the first's have all gone.
TEST(GigaThread, ALaterKernelFillsWhatTheFirstLeavesFree) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(0, 8), smp, 2, stats);  // 2 SMs x 3 blocks
  const sm::BlockCost cost = sm::blockCost(smp, kThreeBlocksPerSm);
  gt.startKernel(1, 2, cost, 0);  // 2 blocks: the GPU has room for 6
  gt.startKernel(2, 7, cost, 0);
  auto d = drain(gt, 0);
  ASSERT_EQ(d.size(), 6u);
  EXPECT_EQ(d[0].kernel, 1u);
  EXPECT_EQ(d[1].kernel, 1u);
  for (std::size_t i = 2; i < 6; ++i) {
    EXPECT_EQ(d[i].kernel, 2u);
    EXPECT_EQ(d[i].block, i - 2);
  }
  EXPECT_EQ(gt.blocksLaunched(2), 4u);
  EXPECT_TRUE(gt.idle());  // full, nothing on its way
  // Kernel 1's first block finishes on SM 0: kernel 2's block 4 takes the slot.
  gt.blockFinished(d[0].sm, 1, 3);
  d = drain(gt, 3);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kernel, 2u);
  EXPECT_EQ(d[0].block, 4u);
  EXPECT_FALSE(gt.kernelDone(1));
  EXPECT_THROW(gt.blockFinished(d[0].sm, 1, 4), std::logic_error) << "kernel 1 has no block left on that SM";
}

// A high-priority kernel started while a low-priority one still has blocks waiting goes first.
TEST(GigaThread, PriorityOvertakesWaitingBlocksButNotResidentOnes) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(0, 8), smp, 1, stats);  // 1 SM x 3 blocks
  const sm::BlockCost cost = sm::blockCost(smp, kThreeBlocksPerSm);
  gt.startKernel(1, 10, cost, 0, /*priority=*/0);
  EXPECT_EQ(drain(gt, 0).size(), 3u);  // the SM is full of kernel 1
  gt.startKernel(2, 2, cost, 1, /*priority=*/5);
  EXPECT_EQ(gt.residentBlocks(0), 3u);  // no preemption
  gt.blockFinished(0, 1, 2);
  auto d = drain(gt, 2);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kernel, 2u);  // not kernel 1's block 3
  gt.blockFinished(0, 1, 3);
  d = drain(gt, 3);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kernel, 2u);
  gt.blockFinished(0, 1, 4);
  d = drain(gt, 4);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kernel, 1u);  // kernel 2 has handed out all its blocks
  EXPECT_EQ(d[0].block, 3u);
}

TEST(GigaThread, AbortAllEmptiesTheSms) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(2, 4), smp, 2, stats);
  const sm::BlockCost cost = sm::blockCost(smp, kThreeBlocksPerSm);
  gt.startKernel(0, 10, cost, 0);
  EXPECT_EQ(drain(gt, 2).size(), 4u);
  gt.blockFinished(0, 0, 3);  // a slot on its way back at 5
  gt.abortAll();              // e.g. a fault at cycle 3
  EXPECT_EQ(gt.kernels(), 0u);
  EXPECT_TRUE(gt.idle());
  for (std::uint32_t s = 0; s < 2; ++s) {
    EXPECT_EQ(gt.residentBlocks(s), 0u);
    EXPECT_EQ(gt.usage(s).blocks, 0u);
  }
  gt.blockFinished(1, 0, 4);  // still in flight when the kernel was dropped: ignored
  EXPECT_EQ(stats.value("gpu.gigathread.blocks_completed"), 1u);
  // The next kernel starts on empty SMs: 6 blocks (3 per SM) at its first dispatch cycles.
  gt.startKernel(1, 6, cost, 4);
  EXPECT_EQ(drain(gt, 6).size(), 4u);
  EXPECT_EQ(drain(gt, 7).size(), 2u);
  EXPECT_EQ(stats.value("gpu.gigathread.blocks_launched"), 10u);
}

TEST(GigaThread, RejectsBlocksThatFitNowhereAndBadParameters) {
  StatsRegistry stats;
  const SmParams smp = smParams();
  GigaThread gt(gtParams(1, 1), smp, 2, stats);
  // 1024 threads x 65 registers: 73728 registers per block, more than an SM has.
  EXPECT_THROW(gt.startKernel(0, 4, sm::blockCost(smp, {1024, 65, 0, 0}), 0), std::invalid_argument);
  EXPECT_THROW(GigaThread(gtParams(1, 1), smp, 0, stats, "x"), std::invalid_argument);
  EXPECT_THROW(GigaThread(gtParams(1, 0), smp, 2, stats, "y"), std::invalid_argument);
  // Time never goes backwards.
  gt.startKernel(0, 1, sm::blockCost(smp, kThreeBlocksPerSm), 10);
  std::uint64_t b;
  std::uint32_t s, k;
  EXPECT_THROW(gt.nextDispatch(9, &k, &b, &s), std::logic_error);
}

}  // namespace
}  // namespace scgpu
