// How a global atomic leaves the L1 (sm.atomic_same_address_passes): as passes, pass k carrying the
// k-th lane of every address of a line, or as one request per line telling the L2 how often its
// most-updated address is hit. Every expected request follows from the lanes' addresses.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "base/stats.h"
#include "sm/timing/lsu.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::sm::timing {
namespace {

constexpr std::uint64_t kBase = 0x7000'0000'0000ull;  // the device heap's first address

struct Sent {
  std::uint64_t line;
  std::uint32_t sectors;
  std::uint16_t ops;
};

// One warp's 4-byte atomic through the tiny preset's LSU: the requests it sends, in order.
std::vector<Sent> atomicRequests(bool passes, std::uint64_t (*addr)(int lane)) {
  StatsRegistry stats;
  SmParams sm = GpuConfig::load(GpuConfig::resolve("tiny")).params().sm;
  sm.atomic_same_address_passes = passes;
  Lsu lsu(sm, 0, stats, "gpu.sm[0]");
  MemTrace t;
  t.mask = ~0u;
  t.bytes = 4;
  t.write = true;
  t.atomic = true;
  for (int lane = 0; lane < 32; ++lane) {
    t.addr[lane] = addr(lane);
    t.space[lane] = ptx::Space::Global;
  }
  LsuRequest r;
  lsu.enqueue(t, r);
  std::vector<Sent> sent;
  for (std::uint64_t now = 0; now < 2000 && !lsu.idle(); ++now) {
    lsu.handleResponses(now);
    lsu.step(now);
    lsu.commitTranslations();
    while (lsu.hasRequest()) {
      memsys::MemRequest q = lsu.peekRequest();
      lsu.popRequest();
      EXPECT_EQ(q.op, memsys::MemOp::Atomic);
      sent.push_back({q.addr, q.sector_mask, q.atomic_ops});
      q.response = true;
      lsu.acceptResponse(q, now);
    }
  }
  return sent;
}

TEST(LsuAtomicPasses, AllLanesOnOneWordLeaveAsOnePassPerLane) {
  const auto one = [](int) { return kBase + 36; };  // word 9: sector 1
  const auto p = atomicRequests(true, one);
  ASSERT_EQ(p.size(), 32u);
  for (const Sent& s : p) {
    EXPECT_EQ(s.line, kBase);
    EXPECT_EQ(s.sectors, 0x2u);
    EXPECT_EQ(s.ops, 1u);
  }
  const auto q = atomicRequests(false, one);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].ops, 32u);
}

TEST(LsuAtomicPasses, LanesSharingFourWordsLeaveAsEightPassesOfFourSectors) {
  // Lane L updates word (L % 4) * 8: the first word of each sector, 8 lanes each.
  const auto p = atomicRequests(true, [](int lane) { return kBase + 32 * std::uint64_t(lane % 4); });
  ASSERT_EQ(p.size(), 8u);
  for (const Sent& s : p) {
    EXPECT_EQ(s.sectors, 0xFu);
    EXPECT_EQ(s.ops, 1u);
  }
}

TEST(LsuAtomicPasses, OnlyAddressesWithMoreLanesTakePartInLaterPasses) {
  // Lanes 0-3 on word 0 (sector 0), lanes 4-5 on word 8 (sector 1), lanes 6-21 on words 16-31
  // (sectors 2 and 3) and lanes 22-31 on words 1-7 and 9-11, one lane each: 4 passes, sectors
  // {0,1,2,3}, {0,1}, {0}, {0}.
  const auto p = atomicRequests(true, [](int lane) {
    if (lane < 4) return kBase;
    if (lane < 6) return kBase + 32;
    if (lane < 22) return kBase + 4 * std::uint64_t(16 + lane - 6);
    const int w = lane - 22 + 1;  // 1 .. 10
    return kBase + 4 * std::uint64_t(w < 8 ? w : w + 1);
  });
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].sectors, 0xFu);
  EXPECT_EQ(p[1].sectors, 0x3u);
  EXPECT_EQ(p[2].sectors, 0x1u);
  EXPECT_EQ(p[3].sectors, 0x1u);
}

TEST(LsuAtomicPasses, DistinctWordsNeedNoExtraPass) {
  const auto p = atomicRequests(true, [](int lane) { return kBase + 4 * std::uint64_t(lane); });
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].sectors, 0xFu);
  EXPECT_EQ(p[0].ops, 1u);
}

}  // namespace
}  // namespace scgpu::sm::timing
