// L2 slice timing and state (hits, misses, MSHR merging and back-pressure, write-back, atomics) and
// the address map. Every expected number is derived from the parameters below, as a formula.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "memsys/address_map.h"
#include "memsys/l2_slice.h"
#include "base/stats.h"

namespace scgpu::memsys {
namespace {

constexpr std::uint32_t kHit = 5;      // cache.hit_latency_cycles
constexpr std::uint32_t kAtomic = 7;   // atomic_latency_cycles
constexpr std::uint32_t kSets = 16, kWays = 4, kLine = 128, kSector = 32;

L2Params l2Params() {
  L2Params p;
  p.slices = 1;
  p.cache.size_bytes = std::uint64_t(kSets) * kWays * kLine;
  p.cache.line_bytes = kLine;
  p.cache.sector_bytes = kSector;
  p.cache.associativity = kWays;
  p.cache.hit_latency_cycles = kHit;
  p.cache.mshr_entries = 4;
  p.cache.mshr_max_merge = 2;
  p.cache.replacement = "lru";
  p.cache.write_policy = "write_back";
  p.cache.allocate_on_write = true;
  p.atomic_latency_cycles = kAtomic;
  p.request_queue_entries = 4;
  return p;
}

// Address of the k-th line of set s.
std::uint64_t line(std::uint32_t s, std::uint32_t k) { return (std::uint64_t(k) * kSets + s) * kLine; }

MemRequest req(std::uint64_t id, MemOp op, std::uint64_t addr, std::uint32_t mask) {
  MemRequest r;
  r.id = id;
  r.op = op;
  r.addr = addr;
  r.sector_mask = mask;
  r.bytes = (op == MemOp::Write || op == MemOp::Atomic) ? sectorCount(mask) * kSector : 0;
  r.sm = 1;
  return r;
}

// Drives one slice: inputs are given before step(), which ticks and drains every output.
struct Bench {
  explicit Bench(const L2Params& p = l2Params()) : l2(p, 0, stats, "gpu.l2[0]") {}
  StatsRegistry stats;
  L2Slice l2;
  std::uint64_t cycle = 0;
  std::vector<std::pair<std::uint64_t, MemRequest>> responses, dram;

  void step() {
    l2.tick(cycle);
    for (; l2.hasResponse(); l2.popResponse()) responses.emplace_back(cycle, l2.peekResponse());
    for (; l2.hasDramRequest(); l2.popDramRequest()) dram.emplace_back(cycle, l2.peekDramRequest());
    ++cycle;
  }
  void runTo(std::uint64_t c) {
    while (cycle < c) step();
  }
  void accept(const MemRequest& r) {
    ASSERT_TRUE(l2.canAccept());
    l2.accept(r, cycle);
  }
  // The DRAM answers the i-th DRAM request now.
  void answer(std::size_t i) {
    MemRequest r = dram.at(i).second;
    r.response = true;
    l2.acceptDramResponse(r, cycle);
  }
  std::uint64_t stat(const char* n) const { return stats.value(std::string("gpu.l2[0].") + n); }
  std::uint64_t responseCycle(std::uint64_t id) const {
    for (const auto& [c, r] : responses)
      if (r.id == id) return c;
    return ~0ull;
  }
};

TEST(L2Slice, MissFetchesMissingSectorsOnceThenHitsAfterHitLatency) {
  Bench b;
  const std::uint64_t a = line(3, 0);
  b.accept(req(1, MemOp::Read, a, 0x3));
  b.runTo(100);
  ASSERT_EQ(b.dram.size(), 1u);
  EXPECT_EQ(b.dram[0].first, 0u + kHit);  // the miss is known after the tag lookup
  EXPECT_EQ(b.dram[0].second.op, MemOp::Read);
  EXPECT_EQ(b.dram[0].second.addr, a);
  EXPECT_EQ(b.dram[0].second.sector_mask, 0x3u);
  EXPECT_EQ(b.dram[0].second.bytes, 2 * kSector);
  EXPECT_TRUE(b.dram[0].second.needs_response);
  EXPECT_TRUE(b.responses.empty());
  EXPECT_TRUE(b.l2.idle());  // waiting on DRAM only
  EXPECT_EQ(b.l2.mshrUsed(), 1u);

  const std::uint64_t d = b.cycle;  // DRAM response arrives
  b.answer(0);
  b.runTo(d + 50);
  ASSERT_EQ(b.responses.size(), 1u);
  EXPECT_EQ(b.responses[0].first, d + kHit);
  EXPECT_TRUE(b.responses[0].second.response);
  EXPECT_EQ(b.responses[0].second.id, 1u);
  EXPECT_EQ(b.responses[0].second.sector_mask, 0x3u);
  EXPECT_EQ(b.l2.mshrUsed(), 0u);

  // Now a hit: the response comes hit_latency_cycles after acceptance.
  const std::uint64_t t = b.cycle;
  b.accept(req(2, MemOp::Read, a + 32, 0x3));
  b.runTo(t + 20);
  EXPECT_EQ(b.responseCycle(2), t + kHit);
  EXPECT_EQ(b.dram.size(), 1u);

  // Half present: only the two missing sectors go to DRAM.
  b.accept(req(3, MemOp::Fetch, a, 0xF));  // instruction fetches behave as reads
  b.runTo(b.cycle + 20);
  ASSERT_EQ(b.dram.size(), 2u);
  EXPECT_EQ(b.dram[1].second.sector_mask, 0xCu);
  EXPECT_EQ(b.dram[1].second.bytes, 2 * kSector);

  EXPECT_EQ(b.stat("reads"), 3u);
  EXPECT_EQ(b.stat("hits"), 2u + 2u);       // request 2: 2 sectors; request 3: sectors 0,1
  EXPECT_EQ(b.stat("misses"), 2u + 2u);     // request 1: 2; request 3: sectors 2,3
  EXPECT_EQ(b.stat("line_hits"), 2u);       // requests 2 and 3 found the tag
  EXPECT_EQ(b.stat("dram_reads"), 2u);
}

TEST(L2Slice, MshrMergesRequestsToOneLine) {
  Bench b;
  const std::uint64_t a = line(5, 0);
  b.accept(req(1, MemOp::Read, a, 0x1));
  b.step();
  b.accept(req(2, MemOp::Read, a, 0x1));  // same sector: merged, no new DRAM read
  b.runTo(50);
  ASSERT_EQ(b.dram.size(), 1u);
  EXPECT_EQ(b.stat("mshr_merges"), 1u);
  const std::uint64_t d = b.cycle;
  b.answer(0);
  b.runTo(d + 20);
  EXPECT_EQ(b.responseCycle(1), d + kHit);
  EXPECT_EQ(b.responseCycle(2), d + kHit);
  EXPECT_EQ(b.stat("dram_reads"), 1u);
}

TEST(L2Slice, MergeWithNewSectorsFetchesOnlyThoseAndWaitsForAll) {
  Bench b;
  const std::uint64_t a = line(6, 0);
  b.accept(req(1, MemOp::Read, a, 0x3));
  b.step();
  b.accept(req(2, MemOp::Read, a, 0x6));  // sector 1 pending, sector 2 new
  b.runTo(50);
  ASSERT_EQ(b.dram.size(), 2u);
  EXPECT_EQ(b.dram[0].second.sector_mask, 0x3u);
  EXPECT_EQ(b.dram[1].second.sector_mask, 0x4u);
  b.answer(0);
  b.runTo(80);
  EXPECT_TRUE(b.responses.empty());  // the line completes when every read for it is back
  const std::uint64_t d = b.cycle;
  b.answer(1);
  b.runTo(d + 20);
  EXPECT_EQ(b.responseCycle(1), d + kHit);
  EXPECT_EQ(b.responseCycle(2), d + kHit);
}

TEST(L2Slice, DramMayAnswerPerSector) {
  Bench b;
  const std::uint64_t a = line(1, 0);
  b.accept(req(1, MemOp::Read, a, 0x5));
  b.runTo(20);
  ASSERT_EQ(b.dram.size(), 1u);
  MemRequest part = b.dram[0].second;
  part.response = true;
  part.sector_mask = 0x1;  // the first sector's 32-byte access
  b.l2.acceptDramResponse(part, b.cycle);
  b.runTo(40);
  EXPECT_TRUE(b.responses.empty());
  part.sector_mask = 0x4;
  const std::uint64_t d = b.cycle;
  b.l2.acceptDramResponse(part, d);
  b.runTo(d + 20);
  EXPECT_EQ(b.responseCycle(1), d + kHit);
  // A response nobody asked for is a wiring error, reported as such.
  b.l2.acceptDramResponse(part, b.cycle);
  EXPECT_THROW(b.step(), std::logic_error);
}

TEST(L2Slice, MshrFullGivesBackPressure) {
  L2Params p = l2Params();
  p.cache.mshr_entries = 2;
  Bench b(p);
  // Four misses to four lines; two MSHRs. The third waits at the head of the queue.
  for (std::uint32_t i = 0; i < 4; ++i) b.accept(req(i, MemOp::Read, line(i, 0), 0x1));
  EXPECT_FALSE(b.l2.canAccept());  // request_queue_entries = 4
  b.runTo(30);
  EXPECT_EQ(b.dram.size(), 2u);
  EXPECT_EQ(b.l2.mshrUsed(), 2u);
  EXPECT_EQ(b.l2.queueDepth(), 2u);
  // Cycles 2..29 the head (line 2) stalled on the full MSHR table.
  EXPECT_EQ(b.stat("mshr_full_stalls"), 30u - 2u);
  // Refill the queue: it stays full, the crossbar sees back-pressure.
  b.accept(req(10, MemOp::Read, line(7, 0), 0x1));
  b.accept(req(11, MemOp::Read, line(8, 0), 0x1));
  EXPECT_FALSE(b.l2.canAccept());
  b.runTo(40);
  EXPECT_FALSE(b.l2.canAccept());
  // Full in cycle 0 (four accepted at once) and in cycles 30..39.
  EXPECT_EQ(b.stat("queue_full_cycles"), 1u + (40u - 30u));
  // The first fill frees an entry; the head proceeds in the same cycle.
  const std::uint64_t d = b.cycle;
  b.answer(0);
  b.runTo(d + 20);
  ASSERT_EQ(b.dram.size(), 3u);
  EXPECT_EQ(b.dram[2].second.addr, line(2, 0));
  EXPECT_EQ(b.dram[2].first, d + kHit);
  EXPECT_TRUE(b.l2.canAccept());
}

TEST(L2Slice, MergeLimitGivesBackPressure) {
  Bench b;  // mshr_max_merge = 2
  const std::uint64_t a = line(9, 0);
  for (std::uint32_t i = 0; i < 3; ++i) b.accept(req(i, MemOp::Read, a, 0x1));
  b.runTo(20);
  EXPECT_EQ(b.dram.size(), 1u);
  EXPECT_EQ(b.l2.queueDepth(), 1u);  // the third waits for the entry to complete
  EXPECT_EQ(b.stat("mshr_full_stalls"), 20u - 2u);
  const std::uint64_t d = b.cycle;
  b.answer(0);
  b.runTo(d + 20);
  EXPECT_EQ(b.responseCycle(0), d + kHit);
  EXPECT_EQ(b.responseCycle(1), d + kHit);
  // The third is looked up in the fill's cycle and now hits.
  EXPECT_EQ(b.responseCycle(2), d + kHit);
  EXPECT_EQ(b.dram.size(), 1u);
}

TEST(L2Slice, WriteAllocatesWithoutFetchAndDirtyEvictionWritesBack) {
  Bench b;
  const std::uint32_t s = 4;
  b.accept(req(1, MemOp::Write, line(s, 0), 0x5));  // write miss: sectors 0 and 2 allocated dirty
  b.step();
  b.accept(req(2, MemOp::Read, line(s, 0), 0x5));   // and then hit
  b.runTo(20);
  EXPECT_TRUE(b.dram.empty());
  EXPECT_EQ(b.responseCycle(1), 0u + kHit);
  EXPECT_EQ(b.responseCycle(2), 1u + kHit);
  // kWays more lines of the set evict the least recently used one: line(s, 0).
  for (std::uint32_t k = 1; k <= kWays; ++k) {
    b.accept(req(10 + k, MemOp::Write, line(s, k), 0x1));
    b.step();
  }
  b.runTo(b.cycle + 20);
  ASSERT_EQ(b.dram.size(), 1u);
  const MemRequest& wb = b.dram[0].second;
  EXPECT_EQ(wb.op, MemOp::Write);
  EXPECT_EQ(wb.addr, line(s, 0));
  EXPECT_EQ(wb.sector_mask, 0x5u);
  EXPECT_EQ(wb.bytes, 2 * kSector);
  EXPECT_FALSE(wb.needs_response);
  EXPECT_EQ(b.stat("evictions"), 1u);
  EXPECT_EQ(b.stat("dirty_writebacks"), 1u);
  EXPECT_EQ(b.stat("dram_writes"), 1u);
  EXPECT_EQ(b.stat("dram_reads"), 0u);
  EXPECT_EQ(b.stat("writes"), 1u + kWays);
}

// A write holds the lookup stage max(write_request_cycles, whole sectors x write_cycles_per_sector
// + partial sectors x write_cycles_per_partial_sector); fractions accumulate over back-to-back writes.
TEST(L2Slice, WritesHoldTheLookupForTheirCycles) {
  L2Params p = l2Params();
  p.request_queue_entries = 16;
  p.write_request_cycles = 2.5;
  p.write_cycles_per_sector = 1.25;
  p.write_cycles_per_partial_sector = 2.0;
  Bench b(p);
  // Four one-sector writes, each of one word (partial: 2.0 < 2.5), then a read: the writes take
  // 2.5 cycles each, so they start at 0, 2.5 (looked up at 3), 5 and 7.5 (at 8); the read at 10.
  for (std::uint64_t i = 0; i < 4; ++i) {
    MemRequest w = req(i + 1, MemOp::Write, line(i, 0), 0x1);
    w.word_mask = 0x1;
    b.accept(w);
  }
  b.accept(req(9, MemOp::Read, line(9, 0), 0x1));
  b.runTo(40);
  EXPECT_EQ(b.responseCycle(1), 0u + kHit);
  EXPECT_EQ(b.responseCycle(2), 3u + kHit);
  EXPECT_EQ(b.responseCycle(3), 5u + kHit);
  EXPECT_EQ(b.responseCycle(4), 8u + kHit);
  ASSERT_EQ(b.dram.size(), 1u);
  EXPECT_EQ(b.dram[0].first, 10u + kHit);  // the read's miss
  // Three sectors, two whole and one with a word missing: 1.25 + 1.25 + 2.0 = 4.5 cycles.
  const std::uint64_t c0 = b.cycle;
  MemRequest w = req(20, MemOp::Write, line(10, 0), 0x7);
  w.word_mask = 0xFFFF | 0x7F0000;
  b.accept(w);
  b.step();
  b.accept(req(21, MemOp::Write, line(11, 0), 0x1));  // word_mask 0: whole sectors, max(2.5, 1.25)
  b.step();
  b.accept(req(22, MemOp::Write, line(12, 0), 0x1));
  b.runTo(c0 + 30);
  EXPECT_EQ(b.responseCycle(20), c0 + kHit);
  EXPECT_EQ(b.responseCycle(21), c0 + 5 + kHit);  // free at c0 + 4.5
  EXPECT_EQ(b.responseCycle(22), c0 + 7 + kHit);  // free at c0 + 4.5 + 2.5
}

// partial_sector_fill: a sector a write allocated without covering it is read from DRAM (without
// a response: the data only completes the write-back) before the evicted line is written back;
// sectors written whole, or completed by later writes, are not.
TEST(L2Slice, PartlyWrittenSectorsAreFilledFromDramBeforeTheirWriteBack) {
  L2Params p = l2Params();
  p.partial_sector_fill = true;
  Bench b(p);
  const std::uint32_t s = 5;
  MemRequest a = req(1, MemOp::Write, line(s, 0), 0x7);  // sector 0 whole, 1 one word, 2 half
  a.word_mask = 0xFF | (1u << 8) | (0x0Fu << 16);
  b.accept(a);
  b.step();
  MemRequest c = req(2, MemOp::Write, line(s, 0), 0x4);  // the other half of sector 2
  c.word_mask = 0xF0u << 16;
  b.accept(c);
  b.step();
  for (std::uint32_t k = 1; k <= kWays; ++k) {  // evict line(s, 0)
    b.accept(req(10 + k, MemOp::Write, line(s, k), 0x1));
    b.step();
  }
  b.runTo(b.cycle + 20);
  ASSERT_EQ(b.dram.size(), 2u);
  EXPECT_EQ(b.dram[0].second.op, MemOp::Read);
  EXPECT_EQ(b.dram[0].second.addr, line(s, 0));
  EXPECT_EQ(b.dram[0].second.sector_mask, 0x2u);  // only sector 1 is still partly written
  EXPECT_FALSE(b.dram[0].second.needs_response);
  EXPECT_EQ(b.dram[1].second.op, MemOp::Write);
  EXPECT_EQ(b.dram[1].second.sector_mask, 0x7u);
  EXPECT_EQ(b.dram[0].first, b.dram[1].first);
  EXPECT_EQ(b.stat("partial_fills"), 1u);
  // Without partial_sector_fill the same writes evict with the write alone.
  Bench plain;
  plain.accept(a);
  plain.step();
  for (std::uint32_t k = 1; k <= kWays; ++k) {
    plain.accept(req(10 + k, MemOp::Write, line(s, k), 0x1));
    plain.step();
  }
  plain.runTo(plain.cycle + 20);
  ASSERT_EQ(plain.dram.size(), 1u);
  EXPECT_EQ(plain.dram[0].second.op, MemOp::Write);
  EXPECT_EQ(plain.stat("partial_fills"), 0u);
}

TEST(L2Slice, CleanEvictionWritesNothing) {
  Bench b;
  const std::uint32_t s = 2;
  for (std::uint32_t k = 0; k <= kWays; ++k) {
    b.accept(req(k, MemOp::Read, line(s, k), 0x1));
    b.runTo(b.cycle + kHit + 1);
    b.answer(b.dram.size() - 1);
    b.runTo(b.cycle + kHit + 1);
  }
  EXPECT_EQ(b.stat("evictions"), 1u);
  EXPECT_EQ(b.stat("dram_writes"), 0u);
  EXPECT_EQ(b.responses.size(), kWays + 1u);
}

TEST(L2Slice, AtomicLatencyAndDirtyResult) {
  Bench b;
  const std::uint32_t s = 7;
  // Hit: the sector was written (allocated) first.
  b.accept(req(1, MemOp::Write, line(s, 0), 0x2));
  b.runTo(10);
  const std::uint64_t t = b.cycle;
  b.accept(req(2, MemOp::Atomic, line(s, 0) + 32, 0x2));
  b.runTo(t + 30);
  EXPECT_EQ(b.responseCycle(2), t + kHit + kAtomic);
  EXPECT_TRUE(b.dram.empty());

  // Miss: fetched like a read, then hit + atomic latency after the fill; the sector becomes dirty.
  b.accept(req(3, MemOp::Atomic, line(s, 1), 0x1));
  b.runTo(b.cycle + 20);
  ASSERT_EQ(b.dram.size(), 1u);
  EXPECT_EQ(b.dram[0].second.op, MemOp::Read);
  const std::uint64_t d = b.cycle;
  b.answer(0);
  b.runTo(d + 30);
  EXPECT_EQ(b.responseCycle(3), d + kHit + kAtomic);
  EXPECT_EQ(b.stat("atomics"), 2u);
  // Evict line(s, 1) (line(s, 0) is older, so evict both): two write-backs, the atomic's sector 0.
  for (std::uint32_t k = 2; k < 2 + kWays; ++k) {
    b.accept(req(10 + k, MemOp::Read, line(s, k), 0x1));
    b.runTo(b.cycle + kHit + 1);
    b.answer(b.dram.size() - 1);
    b.runTo(b.cycle + kHit + 1);
  }
  std::map<std::uint64_t, std::uint32_t> written;
  for (const auto& [c, r] : b.dram)
    if (r.op == MemOp::Write) written[r.addr] = r.sector_mask;
  EXPECT_EQ(written[line(s, 0)], 0x2u);
  EXPECT_EQ(written[line(s, 1)], 0x1u);
}

TEST(L2Slice, SameAddressAtomicUpdatesSerialiseAtTheirKindsRate) {
  // A request holds the atomic unit max(atomic_request_cycles, n x op cycles) cycles, n the updates
  // of its most-updated address (floating point: atomic_op_cycles, integer:
  // integer_atomic_op_cycles). A second request on the same (resident) line starts when the unit
  // is free again.
  for (bool integer : {false, true}) {
    for (std::uint16_t n : {1, 8, 32}) {
      L2Params p = l2Params();
      p.atomic_op_cycles = 5;
      p.integer_atomic_op_cycles = 2;
      p.atomic_request_cycles = 3;
      Bench b(p);
      const std::uint32_t s = 3;
      b.accept(req(1, MemOp::Write, line(s, 0), 0xF));  // allocate the line: the atomics hit
      b.runTo(10);
      const std::uint64_t t = b.cycle;
      MemRequest a = req(2, MemOp::Atomic, line(s, 0), 0x1);
      a.atomic_ops = n;
      a.atomic_integer = integer;
      b.accept(a);
      b.accept(req(3, MemOp::Atomic, line(s, 0) + 32, 0x2));
      b.runTo(t + 400);
      const std::uint64_t op = integer ? 2 : 5, busy = std::max<std::uint64_t>(3, n * op);
      // Request 2 starts after its tag lookup (t + kHit); request 3, looked up a cycle later,
      // waits for the unit.
      EXPECT_EQ(b.responseCycle(2), t + kHit + busy - 1 + kAtomic) << n << (integer ? " integer" : " float");
      const std::uint64_t busy3 = 5;  // request 3: one update, not marked integer: max(3, 1 x 5)
      EXPECT_EQ(b.responseCycle(3), std::max(t + 1 + kHit, t + kHit + busy) + busy3 - 1 + kAtomic) << n;
    }
  }
}

TEST(L2Slice, AtomicUnitChargesPerSectorAndMoreForALineItDoesNotHold) {
  // A request holds the unit max(atomic_request_cycles, sectors x (atomic_cycles_per_sector + the
  // line-change cost when its line is not among the unit's last atomic_unit_lines lines), n x op)
  // cycles; fractions accumulate (1/256 cycle). Back-to-back requests on resident lines, each
  // starting when the unit is free: request k's result leaves kAtomic after the cycle holding its
  // last fraction.
  L2Params p = l2Params();
  p.atomic_request_cycles = 1;
  p.integer_atomic_op_cycles = 1;
  p.atomic_cycles_per_sector = 1.5;
  p.atomic_line_change_cycles_per_sector = 0.75;
  p.atomic_unit_lines = 2;
  p.request_queue_entries = 16;  // all six requests queue at once
  Bench b(p);
  const std::uint32_t s = 3;
  for (std::uint32_t k = 0; k < 3; ++k) b.accept(req(1 + k, MemOp::Write, line(s, k), 0xF));  // resident
  b.runTo(20);
  const std::uint64_t t = b.cycle;
  // Lines 0, 0, 1, 0, 2, 1: new, held, new, held (2 held: 0 and 1), new (evicts 1), new again.
  const std::uint32_t lines[] = {0, 0, 1, 0, 2, 1};
  const std::uint32_t masks[] = {0x1, 0xF, 0x3, 0x1, 0x1, 0x1};
  const double costs[] = {2.25, 6.0, 4.5, 1.5, 2.25, 2.25};
  for (std::uint32_t k = 0; k < 6; ++k) {
    MemRequest a = req(10 + k, MemOp::Atomic, line(s, lines[k]), masks[k]);
    a.atomic_integer = true;
    b.accept(a);
  }
  b.runTo(t + 400);
  // Request 10 is looked up at t and starts at t + kHit; the others queue behind it in the unit.
  double end = double(t + kHit);
  for (std::uint32_t k = 0; k < 6; ++k) {
    end += costs[k];
    const auto last = std::uint64_t(std::ceil(end)) - 1;
    EXPECT_EQ(b.responseCycle(10 + k), last + kAtomic) << "request " << k;
  }
}

TEST(L2Slice, AtomicsWaitAtTheQueueHeadWhileTheUnitsQueueIsFull) {
  // atomic_queue_entries 2, each atomic holding the unit 10 cycles. Atomic k looked up at L_k starts
  // at S_k = max(L_k + kHit, S_(k-1) + 10). A lookup at c finds the unit's queue as it will be at
  // c + kHit: the atomics not started by then count, and with 2 of them it waits. So atomics 0-2
  // are looked up at t, t+1, t+2; atomic 3 waits until c + kHit >= S_1 = t + kHit + 10, atomic 4
  // until S_2, atomic 5 until S_3: lookups at t+10, t+20, t+30. The unit's own timing is the same
  // as without the bound; the read queued behind them is looked up at t+31, not t+6.
  L2Params p = l2Params();
  p.atomic_request_cycles = 10;
  p.integer_atomic_op_cycles = 1;
  p.request_queue_entries = 16;
  for (std::uint32_t entries : {0u, 2u}) {
    p.atomic_queue_entries = entries;
    Bench b(p);
    const std::uint32_t s = 5;
    for (std::uint32_t k = 0; k < 2; ++k) b.accept(req(1 + k, MemOp::Write, line(s, k), 0xF));  // resident
    b.runTo(20);
    const std::uint64_t t = b.cycle;
    for (std::uint32_t k = 0; k < 6; ++k) {
      MemRequest a = req(10 + k, MemOp::Atomic, line(s, 0), 0x1);
      a.atomic_integer = true;
      b.accept(a);
    }
    b.accept(req(20, MemOp::Read, line(s, 1), 0x1));
    b.runTo(t + 400);
    for (std::uint64_t k = 0; k < 6; ++k)
      EXPECT_EQ(b.responseCycle(10 + k), t + kHit + 10 * k + 9 + kAtomic) << entries << " entries, atomic " << k;
    EXPECT_EQ(b.responseCycle(20), t + (entries ? 31 : 6) + kHit) << entries << " entries";
    // Atomic 3 waits t+3 .. t+9, atomic 4 t+11 .. t+19, atomic 5 t+21 .. t+29.
    EXPECT_EQ(b.stat("atomic_queue_full_cycles"), entries ? 7u + 9u + 9u : 0u);
  }
}

TEST(L2Slice, AMissFetchesTheRestOfItsPieceAndFillsIt) {
  // dram_fetch_granule_bytes 64: a read of sector 0 that misses fetches sectors 0 and 1 in one DRAM
  // read; once answered, sector 1 hits. A read of sector 2 then fetches 2 and 3. With the sector as
  // the granule, only sector 0 is fetched and sector 1 misses.
  for (std::uint32_t granule : {0u, 64u}) {
    L2Params p = l2Params();
    p.dram_fetch_granule_bytes = granule;
    Bench b(p);
    const std::uint64_t a = line(7, 0);
    b.accept(req(1, MemOp::Read, a, 0x1));
    b.runTo(kHit + 1);
    ASSERT_EQ(b.dram.size(), 1u);
    EXPECT_EQ(b.dram[0].second.sector_mask, granule ? 0x3u : 0x1u) << granule;
    EXPECT_EQ(b.dram[0].second.bytes, granule ? 64u : 32u) << granule;
    b.answer(0);
    b.runTo(b.cycle + kHit + 2);
    EXPECT_NE(b.responseCycle(1), ~0ull) << "the demand read is answered";
    const std::uint64_t t = b.cycle;
    b.accept(req(2, MemOp::Read, a, 0x2));
    b.runTo(t + kHit + 1);
    EXPECT_EQ(b.responseCycle(2), granule ? t + kHit : ~0ull) << granule;
    EXPECT_EQ(b.dram.size(), granule ? 1u : 2u) << granule;
    b.accept(req(3, MemOp::Read, a, 0x4));
    b.runTo(b.cycle + kHit + 1);
    EXPECT_EQ(b.dram.back().second.sector_mask, granule ? 0xCu : 0x4u) << granule;
    EXPECT_EQ(b.stat("fetched_along"), granule ? 2u : 0u) << granule;
    EXPECT_EQ(b.responses.size(), granule ? 2u : 1u) << "nothing answers the sectors fetched along";
  }
}

TEST(L2Slice, ASetKeepsAtMostMaxDirtyWaysDirtyAndWritesTheOldestBackEarly) {
  // max_dirty_ways 2 in a 4-way set. Writes of lines 0, 1, 2: line 0 (least recently written) goes
  // back to DRAM and stays valid (a read of it hits, so line 2 becomes the tag stage's LRU). Line 1
  // written again, then line 3: line 2 goes back. Line 4 evicts line 2, already in DRAM: nothing
  // written for it; line 1 goes back for line 4's dirty slot. Without the limit only the eviction of
  // line 2 writes.
  for (std::uint32_t limit : {0u, 2u}) {
    L2Params p = l2Params();
    p.max_dirty_ways = limit;
    Bench b(p);
    const std::uint32_t s = 6;
    auto write = [&](std::uint64_t id, std::uint32_t k, std::uint32_t mask) {
      b.accept(req(id, MemOp::Write, line(s, k), mask));
      b.runTo(b.cycle + 10);
    };
    write(1, 0, 0x5);
    write(2, 1, 0x3);
    write(3, 2, 0x1);
    b.accept(req(4, MemOp::Read, line(s, 0), 0x5));
    b.runTo(b.cycle + kHit + 1);
    EXPECT_NE(b.responseCycle(4), ~0ull) << "line 0 is still valid";
    write(5, 1, 0x4);
    write(6, 3, 0x8);
    write(7, 4, 0x1);
    b.runTo(b.cycle + kHit + 1);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> got;
    for (const auto& [c, r] : b.dram) {
      EXPECT_EQ(r.op, MemOp::Write);
      got.emplace_back(r.addr, r.sector_mask);
    }
    using V = std::vector<std::pair<std::uint64_t, std::uint32_t>>;
    if (limit) {
      EXPECT_EQ(got, (V{{line(s, 0), 0x5u}, {line(s, 2), 0x1u}, {line(s, 1), 0x7u}}));
      EXPECT_EQ(b.stat("early_writebacks"), 3u);
      EXPECT_EQ(b.stat("dirty_writebacks"), 0u) << "line 2 was already in DRAM when evicted";
    } else {
      EXPECT_EQ(got, (V{{line(s, 2), 0x1u}}));
      EXPECT_EQ(b.stat("dirty_writebacks"), 1u);
    }
    EXPECT_EQ(b.stat("evictions"), 1u);
    EXPECT_EQ(b.stat("dram_reads"), 0u);
  }
}

TEST(L2Slice, RejectsBadParameters) {
  StatsRegistry st;
  L2Params p = l2Params();
  p.cache.size_bytes = 3 * kWays * kLine;
  EXPECT_THROW(L2Slice(p, 0, st, "gpu.l2[0]"), std::invalid_argument);
  p = l2Params();
  p.request_queue_entries = 0;
  EXPECT_THROW(L2Slice(p, 0, st, "gpu.l2[1]"), std::invalid_argument);
  p = l2Params();
  p.write_request_cycles = 0.5;
  EXPECT_THROW(L2Slice(p, 0, st, "gpu.l2[2]"), std::invalid_argument);
  p = l2Params();
  p.partial_sector_fill = true;
  p.cache.line_bytes = 64;
  p.cache.size_bytes = std::uint64_t(kSets) * kWays * 64;
  EXPECT_THROW(L2Slice(p, 0, st, "gpu.l2[3]"), std::invalid_argument);
}

// ---- Address map ----

DramParams dram(std::uint32_t channels) {
  DramParams d;
  d.channels = channels;
  d.channel_interleave_bytes = 256;
  return d;
}
L2Params mapParams(std::uint32_t slices, const char* hash) {
  L2Params p;
  p.slices = slices;
  p.hash = hash;
  p.interleave_bytes = 256;
  return p;
}

// Sequential 128-byte lines over a range of 4096 groups of slices x interleave bytes: every slice
// gets exactly range / interleave / slices chunks, i.e. range / 128 / slices lines.
void expectEvenSpread(std::uint32_t slices, const char* hash) {
  AddressMap m(mapParams(slices, hash), dram(1));
  // The range starts at a multiple of slices x interleave (for a power-of-two slice count any
  // 256-byte-aligned heap address is one); a range of whole groups is spread exactly.
  const std::uint64_t group = std::uint64_t(slices) * 256;
  const std::uint64_t base = 0x7000'0000'0000ull / group * group, range = 4096 * group;
  std::vector<std::uint64_t> count(slices, 0);
  for (std::uint64_t a = base; a < base + range; a += 128) {
    const std::uint32_t s = m.sliceOf(a);
    ASSERT_LT(s, slices);
    EXPECT_EQ(s, m.sliceOf(a + 127 - (a % 128)));  // a line never straddles slices
    count[s]++;
  }
  for (std::uint32_t s = 0; s < slices; ++s) EXPECT_EQ(count[s], range / 128 / slices) << hash << " slice " << s;
}

TEST(AddressMap, LinearSpreadsSequentialLinesEvenly) {
  for (std::uint32_t s : {1u, 2u, 4u, 6u, 8u, 80u}) expectEvenSpread(s, "linear");
}

TEST(AddressMap, XorSpreadsSequentialLinesEvenly) {
  for (std::uint32_t s : {1u, 2u, 4u, 6u, 8u, 32u, 80u}) expectEvenSpread(s, "xor");
}

TEST(AddressMap, LinearIsAddrOverInterleaveModSlices) {
  AddressMap m(mapParams(4, "linear"), dram(1));
  for (std::uint64_t a = 0; a < 1 << 16; a += 64) EXPECT_EQ(m.sliceOf(a), (a / 256) % 4);
}

TEST(AddressMap, XorSpreadsPowerOfTwoStrides) {
  // A stride of slices x interleave bytes: linear sends everything to one slice, xor to all.
  const std::uint32_t slices = 8;
  AddressMap lin(mapParams(slices, "linear"), dram(1)), x(mapParams(slices, "xor"), dram(1));
  std::set<std::uint32_t> lin_hit, xor_hit;
  std::vector<std::uint32_t> xor_count(slices, 0);
  const std::uint32_t n = 8 * slices;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t a = i * slices * 256;
    lin_hit.insert(lin.sliceOf(a));
    xor_hit.insert(x.sliceOf(a));
    xor_count[x.sliceOf(a)]++;
  }
  EXPECT_EQ(lin_hit.size(), 1u);
  EXPECT_EQ(xor_hit.size(), slices);
  for (std::uint32_t c : xor_count) EXPECT_EQ(c, n / slices);
}

TEST(AddressMap, SlicesAndChannelsMustDivide) {
  EXPECT_THROW(AddressMap(mapParams(6, "xor"), dram(4)), std::invalid_argument);
  EXPECT_THROW(AddressMap(mapParams(4, "xor"), dram(6)), std::invalid_argument);
  EXPECT_NO_THROW(AddressMap(mapParams(8, "xor"), dram(2)));
  EXPECT_NO_THROW(AddressMap(mapParams(2, "xor"), dram(8)));
  EXPECT_THROW(AddressMap(mapParams(4, "modulo"), dram(1)), std::invalid_argument);
  L2Params p = mapParams(4, "xor");
  p.interleave_bytes = 384;
  EXPECT_THROW(AddressMap(p, dram(1)), std::invalid_argument);
  DramParams d = dram(2);
  d.channel_interleave_bytes = 512;  // larger than the slice chunk (256)
  EXPECT_THROW(AddressMap(mapParams(4, "xor"), d), std::invalid_argument);
  try {
    AddressMap(mapParams(6, "xor"), dram(4));
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dram.channels"), std::string::npos) << e.what();
  }
}

// A 512-byte slice chunk over two channels of 256-byte pieces: the chunk's lines stay on one slice,
// its two halves go to the slice's two channels.
TEST(AddressMap, ASliceChunkLargerThanAChannelPieceIsDealtOverTheSlicesChannels) {
  L2Params l2 = mapParams(80, "xor");
  l2.interleave_bytes = 512;
  AddressMap m(l2, dram(160));
  for (std::uint64_t chunk = 0; chunk < 4096; ++chunk) {
    const std::uint64_t a = chunk * 512;
    for (std::uint64_t line = 1; line < 4; ++line) EXPECT_EQ(m.sliceOf(a + line * 128), m.sliceOf(a));
    EXPECT_EQ(m.channelOf(a), 2 * m.sliceOf(a));
    EXPECT_EQ(m.channelOf(a + 256), 2 * m.sliceOf(a) + 1);
    EXPECT_EQ(m.channelLocal(a), m.channelLocal(a + 256));
    EXPECT_EQ(m.channelLocal(a + 300), m.channelLocal(a) + 44);
  }
}

// Over a range of R bytes, channel c receives R / channels bytes and sees them densely as
// [0, R / channels); a slice's addresses all go to the channel(s) it owns.
// With a slice chunk of several channel pieces (l2_interleave 512 over 256-byte pieces), a chunk's
// pieces are dealt over its slice's channels, or stay together on the one channel of its slice.
void expectDenseChannels(std::uint32_t slices, std::uint32_t channels, const char* hash,
                         std::uint32_t l2_interleave = 256) {
  L2Params l2 = mapParams(slices, hash);
  l2.interleave_bytes = l2_interleave;
  AddressMap m(l2, dram(channels));
  const std::uint64_t range = std::uint64_t(l2_interleave) * slices * channels * 64;
  const std::uint64_t per_channel = range / channels;
  std::vector<std::vector<bool>> seen(channels, std::vector<bool>(per_channel / 64, false));
  for (std::uint64_t a = 0; a < range; a += 64) {
    const std::uint32_t c = m.channelOf(a);
    ASSERT_LT(c, channels);
    const std::uint64_t local = m.channelLocal(a);
    ASSERT_LT(local, per_channel) << "slices " << slices << " channels " << channels;
    EXPECT_EQ(local % 256, a % 256);
    EXPECT_FALSE(seen[c][local / 64]);
    seen[c][local / 64] = true;
    if (slices >= channels)
      EXPECT_EQ(c, m.channelOfSlice(m.sliceOf(a)));
    else
      EXPECT_EQ(c / (channels / slices), m.sliceOf(a));
  }
  for (const auto& v : seen)
    for (bool b : v) EXPECT_TRUE(b);
}

TEST(AddressMap, ChannelsSeeDenseAddressSpaces) {
  for (const char* h : {"linear", "xor"}) {
    expectDenseChannels(1, 1, h);
    expectDenseChannels(4, 1, h);
    expectDenseChannels(8, 2, h);
    expectDenseChannels(8, 8, h);
    expectDenseChannels(6, 3, h);
    expectDenseChannels(2, 8, h);
    expectDenseChannels(3, 6, h);
    expectDenseChannels(8, 16, h, 512);
    expectDenseChannels(80, 160, h, 512);
    expectDenseChannels(8, 2, h, 1024);
  }
}

}  // namespace
}  // namespace scgpu::memsys
