// SectorCache (tags, sectors, replacement, dirty state) and MshrTable (allocation, merging,
// limits). Expectations follow from the parameters: sets = size / (line x ways), set index = line
// number mod sets.
#include <gtest/gtest.h>

#include <stdexcept>

#include "memsys/sector_cache.h"

namespace scgpu::memsys {
namespace {

CacheParams smallCache(const char* replacement = "lru", const char* policy = "write_back") {
  CacheParams p;
  p.size_bytes = 4 * 2 * 128;  // 4 sets x 2 ways x 128 B
  p.line_bytes = 128;
  p.sector_bytes = 32;
  p.associativity = 2;
  p.replacement = replacement;
  p.write_policy = policy;
  return p;
}

// Address of the k-th line that maps to `set` in a cache with `sets` sets of 128-byte lines.
std::uint64_t lineInSet(std::uint32_t set, std::uint32_t k, std::uint32_t sets = 4) {
  return (std::uint64_t(k) * sets + set) * 128;
}

TEST(SectorCache, GeometryFromParams) {
  SectorCache c(smallCache());
  EXPECT_EQ(c.sets(), 4u * 2 * 128 / (128 * 2));
  EXPECT_EQ(c.lineBytes(), 128u);
  EXPECT_EQ(c.sectorBytes(), 32u);
  EXPECT_EQ(c.lineAddr(0x1234), 0x1200u);
}

TEST(SectorCache, RejectsBadGeometry) {
  CacheParams p = smallCache();
  p.size_bytes = 3 * 2 * 128;  // 3 sets
  EXPECT_THROW(SectorCache{p}, std::invalid_argument);
  p = smallCache();
  p.line_bytes = 96;
  EXPECT_THROW(SectorCache{p}, std::invalid_argument);
  p = smallCache();
  p.sector_bytes = 256;
  EXPECT_THROW(SectorCache{p}, std::invalid_argument);
  p = smallCache();
  p.associativity = 0;
  EXPECT_THROW(SectorCache{p}, std::invalid_argument);
  p = smallCache();
  p.replacement = "random";
  EXPECT_THROW(SectorCache{p}, std::invalid_argument);
  p = smallCache();
  p.size_bytes = 0;
  EXPECT_THROW(SectorCache{p}, std::invalid_argument);
  try {
    p = smallCache();
    p.size_bytes = 3 * 2 * 128;
    SectorCache c(p);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("power of two"), std::string::npos) << e.what();
  }
}

TEST(SectorCache, SectorMask) {
  SectorCache c(smallCache());
  EXPECT_EQ(c.sectorMask(0x1000, 4), 0x1u);
  EXPECT_EQ(c.sectorMask(0x1000 + 28, 8), 0x3u);     // straddles sectors 0 and 1
  EXPECT_EQ(c.sectorMask(0x1000 + 32, 96), 0xEu);    // sectors 1..3
  EXPECT_EQ(c.sectorMask(0x1000 + 96, 100), 0x8u);   // clamped to the line
  EXPECT_EQ(c.sectorMask(0x1000, 128), 0xFu);
  EXPECT_EQ(c.sectorMask(0x1000, 0), 0x0u);
}

TEST(SectorCache, SectorHitsAndMisses) {
  SectorCache c(smallCache());
  auto r = c.access(0x1000, 0x3, false, 1);
  EXPECT_FALSE(r.line_present);
  EXPECT_EQ(r.miss_mask, 0x3u);
  EXPECT_EQ(r.hit_mask, 0u);
  EXPECT_FALSE(c.fill(0x1000, 0x1, false, 2).valid);  // only sector 0 arrives
  r = c.access(0x1000, 0x3, false, 3);
  EXPECT_TRUE(r.line_present);
  EXPECT_EQ(r.hit_mask, 0x1u);
  EXPECT_EQ(r.miss_mask, 0x2u);
  c.fill(0x1000, 0x2, false, 4);
  r = c.probe(0x1040, 0x3);  // any address in the line
  EXPECT_EQ(r.hit_mask, 0x3u);
  EXPECT_EQ(r.miss_mask, 0u);
}

TEST(SectorCache, LruEvictsLeastRecentlyUsed) {
  SectorCache c(smallCache("lru"));
  const auto a = lineInSet(1, 0), b = lineInSet(1, 1), d = lineInSet(1, 2);
  c.fill(a, 0xF, false, 1);
  c.fill(b, 0xF, false, 2);
  c.access(a, 0x1, false, 3);  // a is now the most recent
  auto v = c.fill(d, 0xF, false, 4);
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line_addr, b);
  EXPECT_EQ(v.dirty_mask, 0u);
  EXPECT_TRUE(c.probe(a, 1).line_present);
  EXPECT_FALSE(c.probe(b, 1).line_present);
}

TEST(SectorCache, LruOrdersAccessesWithinOneCycle) {
  SectorCache c(smallCache("lru"));
  const auto a = lineInSet(2, 0), b = lineInSet(2, 1), d = lineInSet(2, 2);
  c.fill(a, 0xF, false, 5);
  c.fill(b, 0xF, false, 5);
  c.access(a, 0x1, false, 5);  // same cycle: a is still the most recent
  EXPECT_EQ(c.fill(d, 0xF, false, 5).line_addr, b);
}

TEST(SectorCache, FifoIgnoresRecency) {
  SectorCache c(smallCache("fifo"));
  const auto a = lineInSet(0, 0), b = lineInSet(0, 1), d = lineInSet(0, 2);
  c.fill(a, 0xF, false, 1);
  c.fill(b, 0xF, false, 2);
  c.access(a, 0x1, false, 3);
  auto v = c.fill(d, 0xF, false, 4);
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line_addr, a);  // first in, first out
}

TEST(SectorCache, WriteBackMarksDirtyAndVictimReportsIt) {
  SectorCache c(smallCache("lru", "write_back"));
  const auto a = lineInSet(3, 0), b = lineInSet(3, 1), d = lineInSet(3, 2);
  c.fill(a, 0xF, false, 1);
  c.access(a, 0x4, true, 2);        // write hit: sector 2 dirty
  c.fill(b, 0x3, true, 3);          // write-allocate: sectors 0,1 dirty
  c.access(b, 0x1, false, 4);       // b most recent
  auto v = c.fill(d, 0x1, false, 5);
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line_addr, a);
  EXPECT_EQ(v.dirty_mask, 0x4u);
  v = c.fill(lineInSet(3, 3), 0x1, false, 6);  // evicts b (d used at 5)
  EXPECT_EQ(v.line_addr, b);
  EXPECT_EQ(v.dirty_mask, 0x3u);
}

TEST(SectorCache, WriteThroughNeverDirty) {
  SectorCache c(smallCache("lru", "write_through"));
  const auto a = lineInSet(0, 0);
  c.fill(a, 0xF, true, 1);
  c.access(a, 0xF, true, 2);
  c.fill(lineInSet(0, 1), 0xF, false, 3);
  auto v = c.fill(lineInSet(0, 2), 0xF, false, 4);
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line_addr, a);
  EXPECT_EQ(v.dirty_mask, 0u);
}

TEST(SectorCache, InvalidateDropsSectorsAndLines) {
  SectorCache c(smallCache());
  c.fill(0x2000, 0xF, false, 1);
  c.invalidate(0x2000, 0x3);
  auto r = c.probe(0x2000, 0xF);
  EXPECT_TRUE(r.line_present);
  EXPECT_EQ(r.hit_mask, 0xCu);
  c.invalidate(0x2000, 0xC);
  EXPECT_FALSE(c.probe(0x2000, 0xF).line_present);
  // The freed way is reused before any valid line is evicted.
  const std::uint32_t set = std::uint32_t((0x2000 / 128) % 4);
  c.fill(lineInSet(set, 100), 0x1, false, 2);
  EXPECT_FALSE(c.fill(lineInSet(set, 101), 0x1, false, 3).valid);
}

TEST(SectorCache, ProbeChangesNothing) {
  SectorCache c(smallCache("lru"));
  const auto a = lineInSet(1, 0), b = lineInSet(1, 1);
  c.fill(a, 0xF, false, 1);
  c.fill(b, 0xF, false, 2);
  c.probe(a, 0xF);  // does not make a recent
  EXPECT_EQ(c.fill(lineInSet(1, 2), 0xF, false, 3).line_addr, a);
}

TEST(MshrTable, AllocatesMergesAndCompletesInOrder) {
  MshrTable m(2, 3);
  EXPECT_EQ(m.add(0x100, 0x1, 10), MshrTable::Outcome::NewEntry);
  EXPECT_EQ(m.pendingSectors(0x100), 0x1u);
  EXPECT_EQ(m.add(0x100, 0x2, 11), MshrTable::Outcome::Merged);
  EXPECT_EQ(m.pendingSectors(0x100), 0x1u);  // merging leaves the sectors to the caller
  m.addSectors(0x100, 0x2);
  EXPECT_EQ(m.pendingSectors(0x100), 0x3u);
  EXPECT_EQ(m.add(0x100, 0x1, 12), MshrTable::Outcome::Merged);
  EXPECT_EQ(m.add(0x100, 0x1, 13), MshrTable::Outcome::Full);  // max_merge = 3 waiters
  EXPECT_EQ(m.used(), 1u);
  EXPECT_FALSE(m.full());
  EXPECT_EQ(m.add(0x200, 0x8, 20), MshrTable::Outcome::NewEntry);
  EXPECT_TRUE(m.full());
  EXPECT_EQ(m.add(0x300, 0x1, 30), MshrTable::Outcome::Full);
  EXPECT_EQ(m.add(0x200, 0x1, 21), MshrTable::Outcome::Merged);  // merging still works when full
  EXPECT_EQ(m.complete(0x100), (std::vector<std::uint64_t>{10, 11, 12}));
  EXPECT_EQ(m.used(), 1u);
  EXPECT_EQ(m.pendingSectors(0x100), 0u);
  EXPECT_EQ(m.add(0x300, 0x1, 30), MshrTable::Outcome::NewEntry);
  EXPECT_EQ(m.complete(0x200), (std::vector<std::uint64_t>{20, 21}));
  EXPECT_TRUE(m.complete(0x999).empty());
}

}  // namespace
}  // namespace scgpu::memsys
