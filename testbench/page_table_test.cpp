// The page-table format and walker (memsys/page_table.h) against tables written here entry by
// entry, so that every expectation (addresses, levels, read counts) follows from the format alone;
// then the builder, checked through the walker; then the generated register-map constants.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>

#include "base/stats.h"
#include "memsys/page_table.h"
#include "tlm/host/scgpu_regs.h"

namespace scgpu::memsys {
namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

// Device memory of 64-bit words: unwritten words read 0; addresses at or above `limit` are outside
// device memory (the read fails). Tables come from a bump allocator above `next`.
struct Memory {
  std::map<std::uint64_t, std::uint64_t> words;
  std::uint64_t limit = 1ull << 40;
  std::uint64_t next = 0x100000;
  unsigned reads = 0;

  ReadEntry reader() {
    return [this](std::uint64_t pa, std::uint64_t* v) {
      ++reads;
      if (pa >= limit || pa % 8) return false;
      auto it = words.find(pa);
      *v = it == words.end() ? 0 : it->second;
      return true;
    };
  }
  void set(std::uint64_t table, std::uint64_t index, std::uint64_t entry) { words[table + index * 8] = entry; }
};

constexpr std::uint64_t V = pte::kValid, W = pte::kWritable, L = pte::kLeaf;

// A virtual address from its four indices and page offset.
std::uint64_t va(std::uint64_t i0, std::uint64_t i1, std::uint64_t i2, std::uint64_t i3, std::uint64_t off) {
  return i0 << 39 | i1 << 30 | i2 << 21 | i3 << 12 | off;
}

// Tables at fixed places: root (8 KiB) 0x10000, level 1 0x20000, level 2 0x30000, level 3 0x40000.
constexpr std::uint64_t kRoot = 0x10000, kL1 = 0x20000, kL2 = 0x30000, kL3 = 0x40000;

// The path of va(3, 5, 7, 9, *) down to level 2 (tables writable).
void pathToLevel2(Memory& m) {
  m.set(kRoot, 3, kL1 | V | W);
  m.set(kL1, 5, kL2 | V | W);
}

TEST(PageTableFormat, FortyNineBitsInFourLevels) {
  unsigned bits = 12;  // the smallest page's offset
  for (unsigned l = 0; l < PageTableFormat::kLevels; ++l) bits += PageTableFormat::bits(l);
  EXPECT_EQ(bits, PageTableFormat::kVaBits);
  EXPECT_EQ(PageTableFormat::entries(0) * pte::kEntryBytes, 8 * kKiB);  // the root table
  EXPECT_EQ(PageTableFormat::entries(1) * pte::kEntryBytes, 4 * kKiB);
  EXPECT_EQ(PageTableFormat::coverage(1), 1 * kGiB);
  EXPECT_EQ(PageTableFormat::coverage(2), 2 * kMiB);
  EXPECT_EQ(PageTableFormat::coverage(3), 4 * kKiB);
  EXPECT_EQ(PageTableFormat::levelOfPage(2 * kMiB), 2);
  EXPECT_EQ(PageTableFormat::levelOfPage(4 * kKiB), 3);
  EXPECT_EQ(PageTableFormat::levelOfPage(1 * kGiB), 1);
  EXPECT_EQ(PageTableFormat::levelOfPage(512 * kGiB), -1) << "level 0 maps no page";
  EXPECT_EQ(PageTableFormat::levelOfPage(64 * kKiB), -1);
}

TEST(PageTableWalker, TwoMiBPageInThreeReads) {
  Memory m;
  pathToLevel2(m);
  m.set(kL2, 7, 0x4000'0000 | V | W | L);
  PageTableWalker w(m.reader());
  const Translation t = w.walk(kRoot, va(3, 5, 7, 9, 0x345), false);
  ASSERT_TRUE(t.ok) << faultReasonName(t.reason);
  EXPECT_EQ(t.pa, 0x4000'0000u + (9u << 12) + 0x345u);
  EXPECT_EQ(t.page_pa, 0x4000'0000u);
  EXPECT_EQ(t.page_bytes, 2 * kMiB);
  EXPECT_TRUE(t.writable);
  EXPECT_EQ(t.reads, 3u);
  EXPECT_EQ(m.reads, 3u);
  EXPECT_TRUE(w.walk(kRoot, va(3, 5, 7, 9, 0x345), true).ok) << "writable at every level";
}

TEST(PageTableWalker, FourKiBPageInFourReadsAndOneGiBPageInTwo) {
  Memory m;
  pathToLevel2(m);
  m.set(kL2, 8, kL3 | V | W);
  m.set(kL3, 1, 0x7000'1000 | V | W | L);
  m.set(kL1, 6, 0x80'0000'0000 | V | L);  // 1 GiB, read-only
  PageTableWalker w(m.reader());
  Translation t = w.walk(kRoot, va(3, 5, 8, 1, 0xFFF), false);
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.pa, 0x7000'1FFFu);
  EXPECT_EQ(t.page_bytes, 4 * kKiB);
  EXPECT_EQ(t.reads, 4u);
  t = w.walk(kRoot, va(3, 6, 0x1FF, 0x1FF, 0xFFF), false);
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.pa, 0x80'0000'0000u + kGiB - 1);
  EXPECT_EQ(t.page_bytes, kGiB);
  EXPECT_FALSE(t.writable);
  EXPECT_EQ(t.reads, 2u);
  EXPECT_EQ(w.walks(), 2u);
  EXPECT_EQ(w.entryReads(), 6u);
}

TEST(PageTableWalker, NotPresentNamesTheLevelAndEntry) {
  Memory m;
  pathToLevel2(m);  // level 2 entry 7 left invalid
  PageTableWalker w(m.reader());
  Translation t = w.walk(kRoot, va(3, 5, 7, 0, 0), false);
  EXPECT_FALSE(t.ok);
  EXPECT_EQ(t.reason, FaultReason::NotPresent);
  EXPECT_EQ(t.level, 2u);
  EXPECT_EQ(t.entry_pa, kL2 + 7 * 8);
  EXPECT_EQ(t.reads, 3u);
  t = w.walk(kRoot, va(4, 0, 0, 0, 0), false);  // nothing under root entry 4
  EXPECT_EQ(t.reason, FaultReason::NotPresent);
  EXPECT_EQ(t.level, 0u);
  EXPECT_EQ(t.entry_pa, kRoot + 4 * 8);
  EXPECT_EQ(t.reads, 1u);
  EXPECT_EQ(w.faults(), 2u);
}

TEST(PageTableWalker, WriteNeedsWritableAtEveryLevel) {
  Memory m;
  m.set(kRoot, 3, kL1 | V | W);
  m.set(kL1, 5, kL2 | V);  // a read-only table entry above a writable page
  m.set(kL2, 7, 0x4000'0000 | V | W | L);
  m.set(kL2, 8, 0x4020'0000 | V | L);
  PageTableWalker w(m.reader());
  EXPECT_TRUE(w.walk(kRoot, va(3, 5, 7, 0, 0), false).ok);
  Translation t = w.walk(kRoot, va(3, 5, 7, 0, 0), true);
  EXPECT_EQ(t.reason, FaultReason::NotWritable);
  EXPECT_EQ(t.level, 2u) << "reported at the page's entry";
  EXPECT_EQ(t.entry, 0x4000'0000u | V | W | L);
  m.set(kL1, 5, kL2 | V | W);
  EXPECT_TRUE(w.walk(kRoot, va(3, 5, 7, 0, 0), true).ok);
  t = w.walk(kRoot, va(3, 5, 8, 0, 0), true);
  EXPECT_EQ(t.reason, FaultReason::NotWritable);
  EXPECT_EQ(t.entry_pa, kL2 + 8 * 8);
}

TEST(PageTableWalker, BadEntries) {
  struct Case {
    const char* what;
    unsigned level;
    std::uint64_t l1_entry, l2_entry;
  };
  const Case cases[] = {
      {"reserved bit 3", 1, kL2 | V | W | (1ull << 3), 0},
      {"reserved bit 63", 1, kL2 | V | W | (1ull << 63), 0},
      {"misaligned 2 MiB page", 2, kL2 | V | W, 0x4000'1000 | V | W | L},
      {"misaligned 1 GiB page", 1, 0x4020'0000 | V | W | L, 0},
      {"level-3 entry without LEAF", 3, kL2 | V | W, kL3 | V | W},
  };
  for (const Case& c : cases) {
    Memory m;
    m.set(kRoot, 3, kL1 | V | W);
    m.set(kL1, 5, c.l1_entry);
    m.set(kL2, 7, c.l2_entry);
    m.set(kL3, 0, kL3 | V | W);  // for the last case: a table pointer where a page must be
    const Translation t = PageTableWalker(m.reader()).walk(kRoot, va(3, 5, 7, 0, 0), false);
    EXPECT_EQ(t.reason, FaultReason::BadEntry) << c.what;
    EXPECT_EQ(t.level, c.level) << c.what;
    EXPECT_EQ(t.reads, c.level + 1) << c.what;
  }
  Memory m;
  m.set(kRoot, 3, 0x80'0000'0000 | V | W | L);  // a 512 GiB page: level 0 maps none
  const Translation t = PageTableWalker(m.reader()).walk(kRoot, va(3, 0, 0, 0, 0), false);
  EXPECT_EQ(t.reason, FaultReason::BadEntry);
  EXPECT_EQ(t.level, 0u);
}

TEST(PageTableWalker, AddressRootAndTableFaults) {
  Memory m;
  m.limit = 0x50000;  // tables below, nothing above
  m.set(kRoot, 3, kL1 | V | W);
  m.set(kL1, 5, 0x60000 | V | W);  // a level-2 table outside device memory
  PageTableWalker w(m.reader());
  Translation t = w.walk(kRoot, 1ull << PageTableFormat::kVaBits, false);
  EXPECT_EQ(t.reason, FaultReason::VaOutOfRange);
  EXPECT_EQ(t.reads, 0u);
  t = w.walk(kRoot + 0x800, va(0, 0, 0, 0, 0), false);
  EXPECT_EQ(t.reason, FaultReason::BadEntry) << "root not 4 KiB-aligned";
  EXPECT_EQ(t.entry_pa, kRoot + 0x800);
  EXPECT_EQ(t.reads, 0u);
  t = w.walk(kRoot, va(3, 5, 7, 0, 0), false);
  EXPECT_EQ(t.reason, FaultReason::TableUnreadable);
  EXPECT_EQ(t.level, 2u);
  EXPECT_EQ(t.entry_pa, 0x60000u + 7 * 8);
  EXPECT_EQ(t.reads, 2u) << "the refused read is not counted";
}

TEST(PageTableWalker, StatisticsCountWalksFaultsAndReads) {
  Memory m;
  pathToLevel2(m);
  m.set(kL2, 7, 0x4000'0000 | V | W | L);
  StatsRegistry stats;
  PageTableWalker w(m.reader(), &stats, "gpu.mmu.walker");
  w.walk(kRoot, va(3, 5, 7, 0, 0), false);  // 3 reads
  w.walk(kRoot, va(3, 5, 6, 0, 0), false);  // not present at level 2: 3 reads
  w.walk(kRoot, va(2, 0, 0, 0, 0), false);  // not present at level 0: 1 read
  EXPECT_EQ(stats.value("gpu.mmu.walker.walks"), 3u);
  EXPECT_EQ(stats.value("gpu.mmu.walker.faults"), 2u);
  EXPECT_EQ(stats.value("gpu.mmu.walker.entry_reads"), 7u);
}

// The builder through the walker: every page of every mapping translates, and nothing else does.
TEST(PageTableBuilder, MapsWhatTheWalkerFinds) {
  Memory m;
  PageTableBuilder b([&](std::uint64_t bytes) {
                       const std::uint64_t at = m.next;
                       m.next += (bytes + 4095) / 4096 * 4096;
                       return at;
                     },
                     m.reader(), [&](std::uint64_t pa, std::uint64_t v) { m.words[pa] = v; });
  const std::uint64_t base = 0x7000'0000'0000ull;  // the device allocator's heap base
  b.map(base, 0x1'0000'0000, 6 * kMiB, 2 * kMiB, true);
  b.map(base + 8 * kMiB, 0x2'0000'0000, 3 * 4 * kKiB, 4 * kKiB, false);
  b.map(base + 2 * kGiB, 0x40'0000'0000, kGiB, kGiB, true);
  PageTableWalker w(m.reader());
  for (std::uint64_t off : {std::uint64_t(0), 2 * kMiB - 1, 2 * kMiB, 6 * kMiB - 8}) {
    const Translation t = w.walk(b.root(), base + off, true);
    ASSERT_TRUE(t.ok) << off;
    EXPECT_EQ(t.pa, 0x1'0000'0000u + off);
    EXPECT_EQ(t.page_bytes, 2 * kMiB);
  }
  Translation t = w.walk(b.root(), base + 8 * kMiB + 2 * 4 * kKiB + 5, false);
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.pa, 0x2'0000'0000u + 2 * 4 * kKiB + 5);
  EXPECT_EQ(w.walk(b.root(), base + 8 * kMiB, true).reason, FaultReason::NotWritable);
  EXPECT_EQ(w.walk(b.root(), base + 8 * kMiB + 3 * 4 * kKiB, false).reason, FaultReason::NotPresent);
  EXPECT_EQ(w.walk(b.root(), base + 6 * kMiB, false).reason, FaultReason::NotPresent);
  t = w.walk(b.root(), base + 3 * kGiB - 1, true);
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.pa, 0x40'0000'0000u + kGiB - 1);

  EXPECT_THROW(b.map(base + 2 * kMiB, 0x3'0000'0000, 2 * kMiB, 2 * kMiB, true), std::invalid_argument)
      << "already mapped";
  EXPECT_THROW(b.map(base + 4 * kKiB, 0x3'0000'0000, 4 * kKiB, 4 * kKiB, true), std::invalid_argument)
      << "inside a 2 MiB page";
  EXPECT_THROW(b.map(base + 8 * kMiB, 0x3'0000'0000, 2 * kMiB, 2 * kMiB, true), std::invalid_argument)
      << "would replace a level-3 table with a page";
  EXPECT_THROW(b.map(base + 4 * kKiB, 0x3'0000'0000, 2 * kMiB, 2 * kMiB, true), std::invalid_argument)
      << "misaligned";
  EXPECT_THROW(b.map(base, 0x3'0000'0000, 64 * kKiB, 64 * kKiB, true), std::invalid_argument)
      << "no 64 KiB pages";

  b.unmap(base + 2 * kMiB, 2 * kMiB, 2 * kMiB);
  EXPECT_EQ(w.walk(b.root(), base + 2 * kMiB, false).reason, FaultReason::NotPresent);
  EXPECT_TRUE(w.walk(b.root(), base + 4 * kMiB, false).ok) << "the neighbours stay";
  EXPECT_THROW(b.unmap(base + 2 * kMiB, 2 * kMiB, 2 * kMiB), std::invalid_argument) << "twice";
}

// The format as registers.yaml publishes it to drivers (structure PAGE_TABLE_ENTRY, enum
// mmu_fault_reason, error kind PAGE_FAULT) is the one the walker reads.
TEST(PageTableFormat, AgreesWithTheGeneratedRegisterMap) {
  EXPECT_EQ(SCGPU_PAGE_TABLE_ENTRY_SIZE_BYTES, pte::kEntryBytes);
  EXPECT_EQ(SCGPU_PAGE_TABLE_ENTRY_ENTRY_VALID_MASK, pte::kValid);
  EXPECT_EQ(SCGPU_PAGE_TABLE_ENTRY_ENTRY_WRITABLE_MASK, pte::kWritable);
  EXPECT_EQ(SCGPU_PAGE_TABLE_ENTRY_ENTRY_LEAF_MASK, pte::kLeaf);
  EXPECT_EQ(SCGPU_PAGE_TABLE_ENTRY_ENTRY_ADDRESS_MASK, pte::kAddressMask);
  EXPECT_EQ(SCGPU_PAGE_TABLE_ENTRY_ENTRY_ADDRESS_SHIFT, pte::kAddressShift);
  EXPECT_EQ(SCGPU_MMU_FAULT_REASON_NOT_PRESENT, unsigned(FaultReason::NotPresent));
  EXPECT_EQ(SCGPU_MMU_FAULT_REASON_NOT_WRITABLE, unsigned(FaultReason::NotWritable));
  EXPECT_EQ(SCGPU_MMU_FAULT_REASON_BAD_ENTRY, unsigned(FaultReason::BadEntry));
  EXPECT_EQ(SCGPU_MMU_FAULT_REASON_VA_OUT_OF_RANGE, unsigned(FaultReason::VaOutOfRange));
  EXPECT_EQ(SCGPU_MMU_FAULT_REASON_TABLE_UNREADABLE, unsigned(FaultReason::TableUnreadable));
  EXPECT_GT(SCGPU_ERROR_KIND_PAGE_FAULT, SCGPU_ERROR_KIND_BAD_RING) << "a new kind after the existing ones";
}

}  // namespace
}  // namespace scgpu::memsys

namespace scgpu::memsys {
namespace {

TEST(TranslationCache, WalksOncePerPageUntilInvalidated) {
  Memory m;
  pathToLevel2(m);
  m.set(kL2, 7, 0x4000'0000 | V | W | L);
  m.set(kL2, 8, 0x4020'0000 | V | L);  // read-only
  StatsRegistry stats;
  TranslationCache c(m.reader(), &stats, "gpu.mmu");
  Translation t = c.translate(kRoot, va(3, 5, 7, 0, 0x10), true);
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(m.reads, 3u);
  t = c.translate(kRoot, va(3, 5, 7, 0x1FF, 0xFFF), false);  // the same 2 MiB page, its last byte
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.pa, 0x4000'0000u + 2 * kMiB - 1);
  EXPECT_EQ(t.reads, 0u);
  EXPECT_EQ(m.reads, 3u) << "no walk";
  EXPECT_TRUE(c.translate(kRoot, va(3, 5, 8, 0, 0), false).ok);  // the read-only page: a walk
  EXPECT_EQ(m.reads, 6u);
  t = c.translate(kRoot, va(3, 5, 8, 0, 0), true);  // cached read-only: walks again for the fault
  EXPECT_EQ(t.reason, FaultReason::NotWritable);
  EXPECT_EQ(t.level, 2u);
  EXPECT_EQ(t.entry_pa, kL2 + 8 * 8);
  EXPECT_EQ(m.reads, 9u);
  // Like a TLB, it keeps a page whose entry changed until told.
  m.set(kL2, 7, 0);
  EXPECT_TRUE(c.translate(kRoot, va(3, 5, 7, 0, 0), false).ok);
  c.invalidate(kRoot + 0x1000);  // another address space: nothing of this one goes
  EXPECT_TRUE(c.translate(kRoot, va(3, 5, 7, 0, 0), false).ok);
  c.invalidate(kRoot);
  EXPECT_EQ(c.translate(kRoot, va(3, 5, 7, 0, 0), false).reason, FaultReason::NotPresent);
  EXPECT_EQ(c.hits(), 3u);
  EXPECT_EQ(c.misses(), 4u);
  EXPECT_EQ(stats.value("gpu.mmu.translation_cache.hits"), 3u);
  EXPECT_EQ(stats.value("gpu.mmu.walker.walks"), 4u);
  EXPECT_EQ(stats.value("gpu.mmu.walker.faults"), 2u);
}

TEST(TranslationCache, FourKiBAndOneGiBPagesAndFaultsAreNotCached) {
  Memory m;
  pathToLevel2(m);
  m.set(kL2, 8, kL3 | V | W);
  m.set(kL3, 1, 0x7000'1000 | V | W | L);
  m.set(kL1, 6, 0x80'0000'0000 | V | W | L);
  TranslationCache c(m.reader());
  EXPECT_TRUE(c.translate(kRoot, va(3, 5, 8, 1, 0), false).ok);
  EXPECT_TRUE(c.translate(kRoot, va(3, 5, 8, 1, 0xFF8), true).ok);
  EXPECT_EQ(c.translate(kRoot, va(3, 5, 8, 2, 0), false).reason, FaultReason::NotPresent)
      << "the neighbouring 4 KiB page is not the cached one";
  EXPECT_EQ(c.translate(kRoot, va(3, 5, 8, 2, 0), false).reason, FaultReason::NotPresent);
  const Translation t = c.translate(kRoot, va(3, 6, 0x100, 0, 7), false);
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.pa, 0x80'0000'0000u + (0x100ull << 21) + 7);
  EXPECT_TRUE(c.translate(kRoot, va(3, 6, 0, 0, 0), true).ok);
  EXPECT_EQ(c.hits(), 2u) << "the second 4 KiB access and the second 1 GiB access";
  EXPECT_EQ(c.misses(), 4u) << "two walks that found pages, two faults (never cached)";
}

}  // namespace
}  // namespace scgpu::memsys
