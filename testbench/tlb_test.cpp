// TLBs (memsys/tlb.h): geometry, set mapping, LRU and address spaces on sequences whose hits and
// misses are derived by hand below each call; the L1 -> shared L2 -> walk path with its latencies;
// the mmu.* config keys and the presets' values.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/config.h"
#include "base/stats.h"
#include "memsys/tlb.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::memsys {
namespace {

constexpr std::uint64_t kPage = 4096;
std::uint64_t page(std::uint64_t vpn, std::uint64_t offset = 0) { return vpn * kPage + offset; }

TEST(Tlb, GeometryFromParams) {
  Tlb t(8, 2, kPage);
  EXPECT_EQ(t.sets(), 4u);
  EXPECT_EQ(t.ways(), 2u);
  EXPECT_THROW(Tlb(6, 4, kPage), std::invalid_argument) << "6 entries in sets of 4";
  EXPECT_THROW(Tlb(0, 1, kPage), std::invalid_argument);
  EXPECT_THROW(Tlb(8, 0, kPage), std::invalid_argument);
  EXPECT_THROW(Tlb(8, 2, 3000), std::invalid_argument) << "page not a power of two";
}

TEST(Tlb, LruWithinASetByHand) {
  // 2 sets x 2 ways: even pages in set 0, odd pages in set 1.
  StatsRegistry stats;
  Tlb t(4, 2, kPage, &stats, "tlb");
  EXPECT_FALSE(t.lookup(0, page(0)));  // miss; set 0 = {}
  t.fill(0, page(0));                  // set 0 = {0}
  EXPECT_FALSE(t.lookup(0, page(2)));  // miss
  t.fill(0, page(2));                  // set 0 = {0, 2}, 0 least recent
  EXPECT_TRUE(t.lookup(0, page(0, 123)));  // hit (same page, other byte); now 2 is least recent
  EXPECT_FALSE(t.lookup(0, page(1)));  // miss in set 1, which does not disturb set 0
  t.fill(0, page(1));
  EXPECT_FALSE(t.lookup(0, page(4)));  // miss
  t.fill(0, page(4));                  // evicts 2: set 0 = {0, 4}, 0 least recent
  EXPECT_FALSE(t.lookup(0, page(2)));  // miss: it was evicted
  t.fill(0, page(2));                  // evicts 0: set 0 = {4, 2}
  EXPECT_FALSE(t.lookup(0, page(0)));  // miss
  EXPECT_TRUE(t.lookup(0, page(4)));   // hit
  EXPECT_TRUE(t.lookup(0, page(1)));   // hit: set 1 kept it
  EXPECT_EQ(t.hits(), 3u);
  EXPECT_EQ(t.misses(), 6u);
  EXPECT_EQ(stats.value("tlb.hits"), 3u);
  EXPECT_EQ(stats.value("tlb.misses"), 6u);
}

TEST(Tlb, FillOfAPresentPageRefreshesIt) {
  Tlb t(2, 2, kPage);  // one set of 2 ways
  t.fill(0, page(10));
  t.fill(0, page(11));  // 10 least recent
  t.fill(0, page(10));  // present: refreshed, nothing evicted; 11 least recent
  t.fill(0, page(12));  // evicts 11
  EXPECT_TRUE(t.contains(0, page(10)));
  EXPECT_FALSE(t.contains(0, page(11)));
  EXPECT_TRUE(t.contains(0, page(12)));
  EXPECT_EQ(t.hits() + t.misses(), 0u) << "fill and contains are not lookups";
}

TEST(Tlb, AddressSpacesAreSeparate) {
  Tlb t(4, 4, kPage);
  t.fill(1, page(7));
  EXPECT_TRUE(t.lookup(1, page(7)));
  EXPECT_FALSE(t.lookup(2, page(7))) << "the same page of another channel";
  t.fill(2, page(7));
  t.invalidate(1);
  EXPECT_FALSE(t.contains(1, page(7)));
  EXPECT_TRUE(t.contains(2, page(7)));
  t.invalidateAll();
  EXPECT_FALSE(t.contains(2, page(7)));
}

// Pages a multiple of the sets apart share a set: with 16 sets of 16 ways (hopper's L1 TLB), pages
// 16 apart fit 16 at a time, and a cyclic pass over 17 of them misses every time under LRU.
TEST(Tlb, StridedPagesCompeteForOneSet) {
  Tlb t(256, 16, 2 << 20);
  auto pass = [&](unsigned n, unsigned stride) {
    unsigned misses = 0;
    for (unsigned i = 0; i < n; ++i) {
      const std::uint64_t va = std::uint64_t(i) * stride * (2 << 20);
      if (!t.lookup(0, va)) {
        ++misses;
        t.fill(0, va);
      }
    }
    return misses;
  };
  EXPECT_EQ(pass(16, 16), 16u) << "cold";
  EXPECT_EQ(pass(16, 16), 0u) << "16 fit in the set's 16 ways";
  t.invalidateAll();
  pass(17, 16);
  EXPECT_EQ(pass(17, 16), 17u) << "17 in one set: LRU misses on every access";
  t.invalidateAll();
  pass(256, 1);
  EXPECT_EQ(pass(256, 1), 0u) << "256 consecutive pages fill all 16 sets exactly";
}

MmuParams smallMmu() {
  MmuParams p;
  p.enabled = true;
  p.page_bytes = kPage;
  p.l1_tlb_entries = 2;
  p.l1_tlb_associativity = 2;
  p.l2_tlb_entries = 4;
  p.l2_tlb_associativity = 4;
  p.l2_tlb_hit_latency_cycles = 10;
  p.walk_latency_cycles = 400;
  return p;
}

TEST(TranslationPath, L1ThenSharedL2ThenWalk) {
  StatsRegistry stats;
  const MmuParams p = smallMmu();
  Tlb l2(p.l2_tlb_entries, p.l2_tlb_associativity, p.page_bytes, &stats, "gpu.l2_tlb");
  TranslationPath sm0(p, &l2, &stats, "gpu.sm[0].lsu");
  TranslationPath sm1(p, &l2, &stats, "gpu.sm[1].lsu");
  using W = TranslationPath::Where;
  auto expect = [](TranslationPath::Result r, W where, std::uint32_t cycles, const char* what) {
    EXPECT_EQ(r.where, where) << what;
    EXPECT_EQ(r.extra_cycles, cycles) << what;
  };
  expect(sm0.translate(0, page(1)), W::Walk, 400, "cold: walk; L1 {1}, L2 {1}");
  expect(sm0.translate(0, page(1, 8)), W::L1Hit, 0, "same page");
  expect(sm0.translate(0, page(2)), W::Walk, 400, "L1 {1,2}, L2 {1,2}");
  expect(sm0.translate(0, page(3)), W::Walk, 400, "L1 evicts 1: {2,3}; L2 {1,2,3}");
  expect(sm0.translate(0, page(1)), W::L2Hit, 10, "L1 miss, L2 hit; L1 evicts 2: {3,1}");
  expect(sm1.translate(0, page(2)), W::L2Hit, 10, "the other SM finds the page SM 0 walked");
  expect(sm1.translate(0, page(2)), W::L1Hit, 0, "now in SM 1's L1");
  expect(sm0.translate(1, page(2)), W::Walk, 400, "another channel's page 2");
  EXPECT_EQ(stats.value("gpu.sm[0].lsu.page_walks"), 4u);
  EXPECT_EQ(stats.value("gpu.sm[1].lsu.page_walks"), 0u);
  EXPECT_EQ(stats.value("gpu.sm[0].lsu.l1_tlb.hits"), 1u);
  EXPECT_EQ(stats.value("gpu.sm[0].lsu.l1_tlb.misses"), 5u);
  EXPECT_EQ(stats.value("gpu.l2_tlb.hits"), 2u);
  EXPECT_EQ(stats.value("gpu.l2_tlb.misses"), 4u);
}

TEST(TranslationPath, SharedTlbMustMatchThePage) {
  const MmuParams p = smallMmu();
  Tlb l2(4, 4, 2 * kPage);
  EXPECT_THROW(TranslationPath(p, &l2), std::invalid_argument);
  EXPECT_THROW(TranslationPath(p, nullptr), std::invalid_argument);
}

std::string configError(const std::string& yaml) {
  try {
    GpuConfig::fromString(yaml, "test.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(MmuConfig, PresetsAndChecks) {
  const GpuParams hopper = GpuConfig::load(GpuConfig::resolve("hopper")).params();
  EXPECT_TRUE(hopper.mmu.enabled);
  EXPECT_EQ(hopper.mmu.page_bytes, 2u << 20);
  EXPECT_EQ(hopper.mmu.l1_tlb_entries, 256u);
  EXPECT_EQ(hopper.mmu.l1_tlb_associativity, 16u);
  EXPECT_EQ(hopper.mmu.l2_tlb_hit_latency_cycles, 10u);
  EXPECT_EQ(hopper.mmu.walk_latency_cycles, 409u);
  for (const char* n : {"tiny", "fermi", "kepler", "turing", "ampere"})
    EXPECT_FALSE(GpuConfig::load(GpuConfig::resolve(n)).params().mmu.enabled) << n;
  EXPECT_NE(configError("extends: tiny\nmmu: {l1_tlb_entries: 24, l1_tlb_associativity: 16}\n")
                .find("mmu.l1_tlb_entries (24) is not a multiple of mmu.l1_tlb_associativity (16)"),
            std::string::npos);
  EXPECT_NE(configError("extends: tiny\nmmu: {l2_tlb_entries: 100, l2_tlb_associativity: 16}\n").find("mmu.l2_tlb_entries"),
            std::string::npos);
  EXPECT_NE(configError("extends: tiny\nmmu: {page_bytes: 65536}\n").find("not a page size of the page-table format"),
            std::string::npos);
  EXPECT_NE(configError("extends: tiny\nmmu: {page_bytes: 3000}\n").find("mmu.page_bytes"), std::string::npos);
  EXPECT_EQ(configError("extends: tiny\nmmu: {enabled: true, page_bytes: 4096}\n"), "");
}

}  // namespace
}  // namespace scgpu::memsys


namespace scgpu::memsys {
namespace {

// The hopper preset's TLBs replayed on the H100 chases of docs/validation.md "TLB" (one warm pass,
// then timed passes; extra cycles per hop, which the H100 adds to an L2 hit of ~276 cycles).
namespace replay {

double extraPerHop(const MmuParams& m, const std::vector<std::uint64_t>& hops, bool warm = true) {
  Tlb l2(m.l2_tlb_entries, m.l2_tlb_associativity, m.page_bytes);
  TranslationPath path(m, &l2);
  if (warm)
    for (std::uint64_t va : hops) path.translate(0, va);
  std::uint64_t extra = 0;
  for (std::uint64_t va : hops) extra += path.translate(0, va).extra_cycles;
  return double(extra) / double(hops.size());
}

std::vector<std::uint64_t> strided(std::uint64_t n, std::uint64_t stride) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t i = 0; i < n; ++i) v.push_back(0x7000'0000'0000ull + i * stride);
  return v;
}

std::vector<std::uint64_t> shuffled(std::vector<std::uint64_t> v) {
  std::uint64_t x = 12345;  // a fixed xorshift: the order only has to be scattered and repeatable
  for (std::size_t i = v.size() - 1; i > 1; --i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::swap(v[i], v[1 + x % i]);
  }
  return v;
}

}  // namespace replay

TEST(TlbHopperReplay, StepsWhereTheH100Steps) {
  using namespace replay;
  const MmuParams m = GpuConfig::load(GpuConfig::resolve("hopper")).params().mmu;
  constexpr std::uint64_t k2M = 2 << 20, k32M = 32 << 20;
  // 32 MiB strides: pages 16 apart share one of the L1 TLB's 16 sets: 16 fit, 20 do not, and
  // then every hop misses the L1 TLB and hits the L2 TLB (H100: +10 from 16 to 20 pages).
  EXPECT_EQ(extraPerHop(m, strided(16, k32M)), 0.0);
  EXPECT_EQ(extraPerHop(m, strided(20, k32M)), double(m.l2_tlb_hit_latency_cycles));
  // Random order over consecutive pages: 256 fill the 16 x 16 L1 TLB exactly (H100: the rise is
  // half done at 256 and complete by 2048).
  EXPECT_EQ(extraPerHop(m, shuffled(strided(128, k2M))), 0.0);
  EXPECT_EQ(extraPerHop(m, shuffled(strided(256, k2M))), 0.0);
  EXPECT_GT(extraPerHop(m, shuffled(strided(2048, k2M))), 0.9 * m.l2_tlb_hit_latency_cycles);
  // 16384 pages never walk once warm (H100: no walk-sized step to 16384 pages)...
  EXPECT_EQ(extraPerHop(m, strided(16384, k2M)), double(m.l2_tlb_hit_latency_cycles));
  // ... but in address order the model pays the L1 TLB miss that the H100 does not (a known gap).
  // Cold, every page walks (H100: +403 to +432).
  EXPECT_EQ(extraPerHop(m, strided(4096, k2M), false), double(m.walk_latency_cycles));
}

}  // namespace
}  // namespace scgpu::memsys
