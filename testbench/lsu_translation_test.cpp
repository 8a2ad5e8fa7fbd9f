// The LSU with address translation attached (Lsu::attachTranslation): the cycle an access leaves
// for the crossbar is its LSU step plus the translation's extra cycles (a walk, an L2 TLB hit or
// nothing), L1 hits skip translation, and a pending translation does not hold back later accesses.
// Small TLBs make every outcome follow by hand from the sequence of pages.
#include <gtest/gtest.h>

#include <cstdint>

#include "base/stats.h"
#include "memsys/tlb.h"
#include "sm/timing/lsu.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::sm::timing {
namespace {

constexpr std::uint64_t kPage = 2ull << 20;
constexpr std::uint64_t kBase = 0x7000'0000'0000ull;  // the device heap's first address
constexpr std::uint32_t kWalk = 400, kL2Hit = 10;

MmuParams smallMmu() {
  MmuParams m;
  m.enabled = true;
  m.page_bytes = kPage;
  m.l1_tlb_entries = 2;
  m.l1_tlb_associativity = 2;
  m.l2_tlb_entries = 8;
  m.l2_tlb_associativity = 8;
  m.l2_tlb_hit_latency_cycles = kL2Hit;
  m.walk_latency_cycles = kWalk;
  return m;
}

// One LSU of the tiny preset's SM, ticked by hand.
struct Rig {
  StatsRegistry stats;
  SmParams sm = GpuConfig::load(GpuConfig::resolve("tiny")).params().sm;
  memsys::Tlb l2;
  Lsu lsu;
  std::uint64_t now = 0;

  explicit Rig(const MmuParams& m, bool attach = true)
      : l2(m.l2_tlb_entries, m.l2_tlb_associativity, m.page_bytes, &stats, "gpu.l2_tlb"),
        lsu(sm, 0, stats, "gpu.sm[0]") {
    if (attach) lsu.attachTranslation(m, &l2, stats);
  }

  // A one-lane 4-byte global load (or store) of `addr`, reaching the LSU at `now`.
  void access(std::uint64_t addr, bool write = false) {
    MemTrace t;
    t.mask = 1;
    t.bytes = 4;
    t.write = write;
    t.addr[0] = addr;
    t.space[0] = ptx::Space::Global;
    LsuRequest r;
    r.ready_at = now;
    lsu.enqueue(t, r);
  }
  // Steps until a request is ready for the crossbar (at most `limit` cycles); returns its cycle
  // and answers it at once, so that later accesses see the line in the L1.
  std::uint64_t nextRequestCycle(std::uint64_t limit = 2000) {
    for (std::uint64_t end = now + limit; now <= end; ++now) {
      lsu.handleResponses(now);
      lsu.step(now);
      lsu.commitTranslations();  // as SmCore::commitCycle does after every SM ticked
      if (lsu.hasRequest()) {
        memsys::MemRequest r = lsu.peekRequest();
        lsu.popRequest();
        r.response = true;
        lsu.acceptResponse(r, now);
        return now++;
      }
    }
    return ~std::uint64_t(0);
  }
  // Runs until the LSU is idle, returns the cycle.
  std::uint64_t drain() {
    for (; !lsu.idle() && now < 100000; ++now) {
      lsu.handleResponses(now);
      lsu.step(now);
      lsu.commitTranslations();
      lsu.done().clear();
      if (lsu.hasRequest()) {
        memsys::MemRequest r = lsu.peekRequest();
        lsu.popRequest();
        r.response = true;
        lsu.acceptResponse(r, now);
      }
    }
    return now;
  }
};

TEST(LsuTranslation, MissesWaitForWalkOrL2TlbHit) {
  Rig rig(smallMmu());
  rig.now = 100;
  rig.access(kBase);  // page 0: both TLBs cold
  EXPECT_EQ(rig.nextRequestCycle(), 100u + kWalk);
  rig.drain();
  const std::uint64_t t1 = rig.now;
  rig.access(kBase + 256);  // another line of page 0: L1 miss, L1 TLB hit
  EXPECT_EQ(rig.nextRequestCycle(), t1);
  rig.drain();
  for (std::uint64_t p : {1, 2}) {  // pages 1 and 2: walks; the L1 TLB (2 entries) drops page 0
    rig.access(kBase + p * kPage);
    const std::uint64_t t = rig.now;
    EXPECT_EQ(rig.nextRequestCycle(), t + kWalk) << p;
    rig.drain();
  }
  const std::uint64_t t2 = rig.now;
  rig.access(kBase + 512);  // page 0 again, a new line: L1 TLB miss, L2 TLB hit
  EXPECT_EQ(rig.nextRequestCycle(), t2 + kL2Hit);
  rig.drain();
  EXPECT_EQ(rig.stats.value("gpu.sm[0].lsu.page_walks"), 3u);
  EXPECT_EQ(rig.stats.value("gpu.sm[0].lsu.l1_tlb.hits"), 1u);
  EXPECT_EQ(rig.stats.value("gpu.l2_tlb.hits"), 1u);
}

TEST(LsuTranslation, L1HitsSkipTranslation) {
  Rig rig(smallMmu());
  rig.access(kBase);
  rig.nextRequestCycle();
  rig.drain();
  const std::uint64_t lookups = rig.stats.value("gpu.sm[0].lsu.l1_tlb.hits") + rig.stats.value("gpu.sm[0].lsu.l1_tlb.misses");
  rig.access(kBase + 4);  // the same line: an L1 hit
  rig.drain();
  EXPECT_EQ(rig.stats.value("gpu.sm[0].lsu.l1_tlb.hits") + rig.stats.value("gpu.sm[0].lsu.l1_tlb.misses"), lookups);
  EXPECT_EQ(rig.stats.value("gpu.sm[0].l1.hits"), 1u);
}

TEST(LsuTranslation, StoresTranslateToo) {
  Rig rig(smallMmu());
  rig.now = 7;
  rig.access(kBase + 5 * kPage, true);
  EXPECT_EQ(rig.nextRequestCycle(), 7u + kWalk);
}

TEST(LsuTranslation, AWalkDoesNotHoldBackLaterAccesses) {
  Rig rig(smallMmu());
  rig.access(kBase);  // warm page 0 in both TLBs
  rig.nextRequestCycle();
  rig.drain();
  const std::uint64_t t = rig.now;
  rig.access(kBase + 3 * kPage);  // a walk: leaves at t + kWalk
  rig.access(kBase + 1024);       // page 0, a new line: leaves one LSU step later, without waiting
  EXPECT_EQ(rig.nextRequestCycle(), t + 1);
  EXPECT_EQ(rig.nextRequestCycle(), t + kWalk);
}

TEST(LsuTranslation, OffMeansNoExtraCycles) {
  MmuParams off = smallMmu();
  off.enabled = false;
  for (bool attach : {false, true}) {
    Rig rig(off, attach);
    rig.now = 50;
    rig.access(kBase + 9 * kPage);
    EXPECT_EQ(rig.nextRequestCycle(), 50u) << (attach ? "attached while disabled" : "not attached");
    EXPECT_FALSE(rig.stats.has("gpu.sm[0].lsu.page_walks"));
  }
}

}  // namespace
}  // namespace scgpu::sm::timing
