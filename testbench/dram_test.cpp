// DRAM channel controller: every expectation is derived from the parameters (the formula is in the
// test), never copied from a run. Unless a test says otherwise it uses a preset with refresh off,
// so that a refresh cannot fall into a measured interval.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "memsys/dram_channel.h"
#include "memsys/dram_presets.h"
#include "base/stats.h"

using namespace scgpu;
using namespace scgpu::memsys;

namespace {

using Cmd = DramChannel::Command;

std::uint64_t burstCycles(const DramParams& p) { return p.timing.burst_length / p.transfers_per_clock; }
double peakBytesPerCycle(const DramParams& p) { return p.bus_width_bits / 8.0 * p.transfers_per_clock; }

// Channel-local address of (bank group, bank within the group, row, column), written from the
// mapping's definition, independently of DramChannel::locate.
std::uint64_t addrOf(const DramParams& p, std::uint32_t bg, std::uint32_t bank, std::uint32_t row, std::uint32_t col) {
  const std::uint64_t cols = p.row_bytes / p.access_bytes;
  std::uint64_t block;
  if (p.address_mapping == "row_bank_column") {
    block = ((std::uint64_t(row) * p.bank_groups + bg) * p.banks_per_group + bank) * cols + col;
  } else {
    // row, column (high part), bank, bank group, column (low part: bank_interleave_bytes)
    const std::uint64_t lo = p.bank_interleave_bytes / p.access_bytes;
    block = (((std::uint64_t(row) * (cols / lo) + col / lo) * p.banks_per_group + bank) * p.bank_groups + bg) * lo +
            col % lo;
  }
  return block * p.access_bytes;
}

MemRequest request(std::uint64_t id, std::uint64_t addr, std::uint32_t bytes, MemOp op = MemOp::Read) {
  MemRequest r;
  r.id = id;
  r.op = op;
  r.addr = addr;
  r.bytes = bytes;
  r.needs_response = op != MemOp::Write;
  return r;
}

// A channel plus a driver that ticks every cycle, records every command and the cycle each
// response became visible.
struct Sim {
  StatsRegistry stats;
  DramParams p;
  DramChannel ch;
  std::uint64_t now = 0;                        // the next cycle to tick
  std::map<std::uint64_t, std::uint64_t> done;  // request id -> cycle its response appeared
  std::vector<std::uint64_t> order;             // request ids in response order
  std::vector<std::pair<std::uint64_t, Cmd>> cmds;
  bool keep_responses = true;
  std::uint64_t responses = 0;

  explicit Sim(const DramParams& params) : p(params), ch(params, 0, stats, "dram") {}

  void accept(const MemRequest& r) { ch.accept(r, now); }
  void tick() {
    ch.tick(now);
    Cmd c = ch.lastCommand();
    if (c.kind != Cmd::None) cmds.push_back({now, c});
    while (ch.hasResponse()) {
      EXPECT_TRUE(ch.peekResponse().response);
      if (keep_responses) {
        done[ch.peekResponse().id] = now;
        order.push_back(ch.peekResponse().id);
      }
      ++responses;
      ch.popResponse();
    }
    ++now;
  }
  void run(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) tick();
  }
  std::uint64_t runUntilDone(std::uint64_t id, std::uint64_t limit = 200000) {
    for (std::uint64_t i = 0; i < limit && !done.count(id); ++i) tick();
    EXPECT_TRUE(done.count(id)) << "request " << id << " never completed";
    return done.count(id) ? done[id] : 0;
  }
  // Ticks until a command of kind k issues; returns its cycle.
  std::uint64_t runUntilCommand(Cmd::Kind k, std::uint64_t limit = 200000) {
    for (std::uint64_t i = 0; i < limit; ++i) {
      tick();
      if (!cmds.empty() && cmds.back().first == now - 1 && cmds.back().second.kind == k) return now - 1;
    }
    ADD_FAILURE() << "command " << k << " never issued";
    return 0;
  }
  std::vector<std::uint64_t> cyclesOf(Cmd::Kind k) const {
    std::vector<std::uint64_t> v;
    for (const auto& [c, cmd] : cmds)
      if (cmd.kind == k) v.push_back(c);
    return v;
  }
  std::uint64_t stat(const std::string& n) const { return stats.value("dram." + n); }
};

DramParams quiet(const std::string& standard) {
  DramParams p = dramPreset(standard);
  p.refresh = false;
  return p;
}

// Keeps the read queue full of sequential reads for `cycles` cycles; returns the fraction of the
// peak data-bus bandwidth delivered (bytes of responses received / (cycles * peak)).
double streamUtilization(Sim& s, std::uint64_t cycles, std::uint64_t start_addr = 0) {
  s.keep_responses = false;
  std::uint64_t addr = start_addr, id = 1;
  for (std::uint64_t i = 0; i < cycles; ++i) {
    for (;;) {
      MemRequest r = request(id, addr, s.p.access_bytes);
      if (!s.ch.canAccept(r)) break;
      s.accept(r);
      ++id;
      addr += s.p.access_bytes;
    }
    s.tick();
  }
  return double(s.responses) * s.p.access_bytes / (double(cycles) * peakBytesPerCycle(s.p));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Latencies of single accesses

TEST(Dram, FirstReadToClosedBank) {
  DramParams p = quiet("gddr6");
  const std::uint64_t c = p.controller_latency_cycles, B = burstCycles(p);
  Sim s(p);
  s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes));
  // Ready after the controller's inbound pipeline, ACT, tRCD later RD, tCL later the data, burst,
  // then the outbound pipeline.
  const std::uint64_t expected = 2 * c + p.timing.tRCD + p.timing.tCL + B;
  EXPECT_EQ(s.runUntilDone(1), expected);
  EXPECT_EQ(s.stat("row_misses"), 1u);
  EXPECT_EQ(s.stat("activates"), 1u);
  EXPECT_EQ(s.stat("total_read_latency_cycles"), expected);
  EXPECT_EQ(s.stat("read_requests"), 1u);
  EXPECT_EQ(s.cyclesOf(Cmd::Act), std::vector<std::uint64_t>{c});
  EXPECT_EQ(s.cyclesOf(Cmd::Rd), std::vector<std::uint64_t>{c + p.timing.tRCD});
}

TEST(Dram, SecondReadToSameRowIsRowHit) {
  for (const char* mapping : {"row_bank_column", "row_column_bank"}) {
    DramParams p = quiet("gddr6");
    p.address_mapping = mapping;
    const std::uint64_t c = p.controller_latency_cycles, B = burstCycles(p);
    // Back to back: both arrive together; the second RD follows the first after tCCD_L (same bank,
    // hence same bank group) or the burst, whichever is longer.
    {
      Sim s(p);
      s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes));
      s.accept(request(2, addrOf(p, 0, 0, 0, 1), p.access_bytes));
      std::uint64_t t1 = s.runUntilDone(1), t2 = s.runUntilDone(2);
      EXPECT_EQ(t2 - t1, std::max<std::uint64_t>(p.timing.tCCD_L, B)) << mapping;
      EXPECT_EQ(s.stat("row_hits"), 1u);
      EXPECT_EQ(s.stat("row_misses"), 1u);
      EXPECT_EQ(s.stat("activates"), 1u);
    }
    // Alone, after the first completed: a row hit costs no ACT.
    {
      Sim s(p);
      s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes));
      s.runUntilDone(1);
      const std::uint64_t t0 = s.now;  // the accept cycle
      s.accept(request(2, addrOf(p, 0, 0, 0, 1), p.access_bytes));
      EXPECT_EQ(s.runUntilDone(2) - t0, 2 * c + p.timing.tCL + B) << mapping;
      EXPECT_EQ(s.stat("row_hits"), 1u);
    }
  }
}

// bank_interleave_bytes keeps a chunk of consecutive accesses in one row of one bank: a stream
// over two chunks opens two rows (one per bank group), and every other access is a row hit.
TEST(Dram, BankInterleaveBytesKeepsAChunkInOneRow) {
  DramParams p = quiet("hbm3");
  ASSERT_EQ(p.address_mapping, "row_column_bank");
  for (std::uint32_t chunk : {32u, 256u}) {
    p.bank_interleave_bytes = chunk;
    const std::uint32_t per_chunk = chunk / p.access_bytes;
    Sim s(p);
    const std::uint32_t n = 2 * 8;  // sixteen consecutive accesses
    for (std::uint32_t i = 0; i < n; ++i) s.accept(request(i, std::uint64_t(i) * p.access_bytes, p.access_bytes));
    for (std::uint32_t i = 0; i < n; ++i) s.runUntilDone(i);
    // 32: sixteen accesses over 4 bank groups x 4 banks, each its own row: 16 ACTs, no hit.
    // 256: two chunks of eight, each in one row of its bank group: 2 ACTs, 14 hits.
    const std::uint64_t rows = (n + per_chunk - 1) / per_chunk;
    EXPECT_EQ(s.stat("activates"), rows) << chunk;
    EXPECT_EQ(s.stat("row_hits"), n - rows) << chunk;
    // The address of (bank group 1, bank 0, row 0, column 0) is the second chunk's first access.
    EXPECT_EQ(addrOf(p, 1, 0, 0, 0), std::uint64_t(chunk)) << chunk;
  }
  p.bank_interleave_bytes = 48;  // not a multiple of access_bytes that divides the row
  StatsRegistry stats;
  EXPECT_THROW(DramChannel(p, 0, stats, "dram"), std::invalid_argument);
}

TEST(Dram, ReadToOtherRowOfSameBankIsRowConflict) {
  for (const char* standard : {"gddr6", "hbm2", "gddr5", "hbm3"}) {
    DramParams p = quiet(standard);
    const DramTimingParams& t = p.timing;
    const std::uint64_t c = p.controller_latency_cycles, B = burstCycles(p);
    Sim s(p);
    s.accept(request(1, addrOf(p, 1, 1, 5, 0), p.access_bytes));
    s.accept(request(2, addrOf(p, 1, 1, 6, 0), p.access_bytes));
    // ACT(row 5) at c, RD at c + tRCD; PRE no earlier than tRAS after the ACT and tRTP after the
    // RD; ACT(row 6) tRP after the PRE and tRC after the first ACT; then tRCD, tCL, burst, c.
    const std::uint64_t pre = c + std::max<std::uint64_t>(t.tRAS, t.tRCD + t.tRTP);
    const std::uint64_t act2 = std::max<std::uint64_t>(pre + t.tRP, c + t.tRC);
    EXPECT_EQ(s.runUntilDone(2), act2 + t.tRCD + t.tCL + B + c) << standard;
    EXPECT_EQ(s.cyclesOf(Cmd::Pre), std::vector<std::uint64_t>{pre}) << standard;
    EXPECT_EQ(s.cyclesOf(Cmd::Act), (std::vector<std::uint64_t>{c, act2})) << standard;
    EXPECT_EQ(s.stat("row_conflicts"), 1u);
    EXPECT_EQ(s.stat("row_misses"), 1u);
    EXPECT_EQ(s.stat("precharges"), 1u);
  }
}

TEST(Dram, MultiBurstRequestCompletesOnce) {
  DramParams p = quiet("gddr6");
  p.address_mapping = "row_bank_column";  // a 128-byte line stays in one row of one bank
  const std::uint64_t c = p.controller_latency_cycles, B = burstCycles(p);
  Sim s(p);
  MemRequest r = request(7, addrOf(p, 0, 2, 3, 4), 128);
  r.sector_mask = 0xF;  // four 32-byte sectors = four bursts
  s.accept(r);
  EXPECT_EQ(s.ch.readQueueDepth(), 128u / p.access_bytes);
  // One ACT, four RDs to one bank group spaced max(tCCD_L, burst); the response follows the last.
  const std::uint64_t bursts = 128 / p.access_bytes;
  EXPECT_EQ(s.runUntilDone(7),
            2 * c + p.timing.tRCD + (bursts - 1) * std::max<std::uint64_t>(p.timing.tCCD_L, B) + p.timing.tCL + B);
  EXPECT_EQ(s.stat("reads"), bursts);
  EXPECT_EQ(s.stat("read_requests"), 1u);
  EXPECT_EQ(s.responses, 1u);
}

// ---------------------------------------------------------------------------------------------
// Bandwidth

TEST(Dram, StreamingReachesAtLeast80PercentOfPeak) {
  for (const char* standard : {"gddr6", "hbm2"}) {
    DramParams p = dramPreset(standard);  // refresh on: it is part of the sustained bandwidth
    Sim s(p);
    const std::uint64_t cycles = 20 * p.timing.tREFI;
    double u = streamUtilization(s, cycles);
    EXPECT_GE(u, 0.80) << standard;
    EXPECT_LE(u, 1.00) << standard;
    // The data bus is never double-booked: bursts issued so far fit in the elapsed cycles plus the
    // last one's tCL + burst tail.
    EXPECT_LE(s.stat("busy_cycles"), cycles + p.timing.tCL + burstCycles(p)) << standard;
    EXPECT_EQ(s.stat("busy_cycles"), (s.stat("reads") + s.stat("writes")) * burstCycles(p));
    EXPECT_GT(s.stat("read_queue_full_cycles"), cycles / 2) << standard << ": the stream must saturate the queue";
    EXPECT_GE(s.stat("refreshes") + 1, cycles / p.timing.tREFI);
    std::printf("[          ] %s streaming: %.1f%% of peak, row hits %llu of %llu\n", standard, 100 * u,
                (unsigned long long)s.stat("row_hits"), (unsigned long long)s.stat("reads"));
  }
}

// Alternating rows of one bank, in order (fcfs, so that the scheduler cannot batch the row hits),
// against a sequential stream under the same settings. The conflict pattern serves one access per
// row cycle of the bank: ACT, RD after tRCD, PRE after max(tRAS, tRCD + tRTP), next ACT after tRP
// and no sooner than tRC. The stream serves one access per burst, except at row crossings (a new
// row every row_bytes * banks bytes), which the tolerance below covers.
TEST(Dram, RowConflictPatternSlowerByTimingPrediction) {
  DramParams p = quiet("gddr6");
  p.scheduler = "fcfs";
  const DramTimingParams& t = p.timing;
  const std::uint64_t B = burstCycles(p);
  const std::uint64_t period = std::max<std::uint64_t>(std::max<std::uint64_t>(t.tRAS, t.tRCD + t.tRTP) + t.tRP, t.tRC);

  const std::uint64_t n = 200;
  Sim conflict(p);
  std::uint64_t next = 0;
  while (conflict.responses < n) {
    while (next < n) {
      MemRequest r = request(next, addrOf(p, 2, 3, 10 + next % 2, 0), p.access_bytes);
      if (!conflict.ch.canAccept(r)) break;
      conflict.accept(r);
      ++next;
    }
    conflict.tick();
  }
  // Steady state: every access after the first is exactly one period after the previous one.
  for (std::uint64_t i = 1; i < n; ++i) EXPECT_EQ(conflict.done[i] - conflict.done[i - 1], period) << i;
  EXPECT_EQ(conflict.stat("row_conflicts"), n - 1);

  Sim stream(p);
  const std::uint64_t m = 4000;
  next = 0;
  while (stream.responses < m) {
    while (next < m) {
      MemRequest r = request(next, next * p.access_bytes, p.access_bytes);
      if (!stream.ch.canAccept(r)) break;
      stream.accept(r);
      ++next;
    }
    stream.tick();
  }
  const double stream_per_access = double(stream.done[m - 1] - stream.done[0]) / double(m - 1);
  const double conflict_per_access = double(conflict.done[n - 1] - conflict.done[0]) / double(n - 1);
  // The stream is bus-bound: B cycles per access, plus at most 10% for row crossings (one PRE/ACT
  // round per bank every row_bytes/access_bytes accesses, overlapped with the other banks' bursts).
  EXPECT_GE(stream_per_access, double(B));
  EXPECT_LE(stream_per_access, 1.10 * double(B));
  const double slowdown = conflict_per_access / stream_per_access;
  EXPECT_LE(slowdown, double(period) / double(B));
  EXPECT_GE(slowdown, double(period) / (1.10 * double(B)));
  std::printf("[          ] conflict %.1f cycles/access (predicted %llu), stream %.2f (predicted %llu): %.1fx\n",
              conflict_per_access, (unsigned long long)period, stream_per_access, (unsigned long long)B, slowdown);
}

// ---------------------------------------------------------------------------------------------
// Scheduling

TEST(Dram, FrFcfsServesYoungerRowHitBeforeOlderMiss) {
  for (const char* sched : {"fr_fcfs", "fcfs"}) {
    DramParams p = quiet("gddr6");
    p.scheduler = sched;
    const std::uint64_t c = p.controller_latency_cycles, B = burstCycles(p);
    Sim s(p);
    s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes));  // opens row 0
    s.runUntilDone(1);
    const std::uint64_t t0 = s.now;                               // the accept cycle of requests 2 and 3
    s.accept(request(2, addrOf(p, 0, 0, 1, 0), p.access_bytes));  // older: another row
    s.accept(request(3, addrOf(p, 0, 0, 0, 1), p.access_bytes));  // younger: hits row 0
    s.runUntilDone(2);
    s.runUntilDone(3);
    if (std::string(sched) == "fr_fcfs") {
      EXPECT_EQ(s.order, (std::vector<std::uint64_t>{1, 3, 2}));
      EXPECT_EQ(s.done[3] - t0, 2 * c + p.timing.tCL + B);  // a pure row hit
      EXPECT_EQ(s.stat("row_hits"), 1u);
      EXPECT_EQ(s.stat("row_conflicts"), 1u);
    } else {
      EXPECT_EQ(s.order, (std::vector<std::uint64_t>{1, 2, 3}));
      EXPECT_EQ(s.stat("row_hits"), 0u);
      EXPECT_EQ(s.stat("row_conflicts"), 2u);  // the hit became a conflict once row 1 was opened
    }
  }
}

TEST(Dram, WritesHeldUntilHighWatermarkWhileReadsPending) {
  DramParams p = quiet("gddr6");
  p.write_queue_entries = 16;
  p.write_drain_high_watermark = 8;
  p.write_drain_low_watermark = 3;
  const DramTimingParams& t = p.timing;
  const std::uint64_t B = burstCycles(p);
  Sim s(p);
  s.keep_responses = false;
  std::uint64_t raddr = 0, id = 1000;
  auto feedReads = [&] {
    for (;;) {
      MemRequest r = request(id, raddr, p.access_bytes);
      if (!s.ch.canAccept(r)) return;
      s.accept(r);
      ++id;
      raddr += p.access_bytes;
    }
  };
  auto write = [&](std::uint32_t k) {
    s.accept(request(k, addrOf(p, k % 4, 1, 5000, k), p.access_bytes, MemOp::Write));
  };
  feedReads();
  for (std::uint32_t k = 0; k + 1 < p.write_drain_high_watermark; ++k) write(k);
  for (int i = 0; i < 5000; ++i) {
    feedReads();
    s.tick();
  }
  EXPECT_EQ(s.stat("writes"), 0u) << "below the high watermark, with reads pending, writes wait";
  EXPECT_EQ(s.ch.writeQueueDepth(), p.write_drain_high_watermark - 1);

  write(100);  // reaches the high watermark: drain until below the low one, then back to reads
  for (int i = 0; i < 5000; ++i) {
    feedReads();
    s.tick();
  }
  EXPECT_EQ(s.stat("writes"), p.write_drain_high_watermark - p.write_drain_low_watermark + 1);
  EXPECT_EQ(s.ch.writeQueueDepth(), p.write_drain_low_watermark - 1);
  EXPECT_GT(s.stat("reads"), 0u);

  // Turnarounds hold on the whole trace: a RD at least tCWL + burst + tWTR after the last WR; a WR
  // at least tRTW (and the data-bus order, tCL + burst - tCWL) after the last RD.
  std::uint64_t last_rd = 0, last_wr = 0;
  bool any_rd = false, any_wr = false;
  int checked = 0;
  for (const auto& [cyc, cmd] : s.cmds) {
    if (cmd.kind == Cmd::Rd) {
      if (any_wr) {
        EXPECT_GE(cyc - last_wr, t.tCWL + B + t.tWTR);
        ++checked;
      }
      last_rd = cyc, any_rd = true;
    } else if (cmd.kind == Cmd::Wr) {
      if (any_rd) {
        EXPECT_GE(cyc - last_rd, t.tRTW);
        EXPECT_GE(cyc + t.tCWL, last_rd + t.tCL + B);
        ++checked;
      }
      last_wr = cyc, any_wr = true;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(Dram, WritesIssueWhenNoReadsPending) {
  DramParams p = quiet("gddr6");
  Sim s(p);
  s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes, MemOp::Write));
  s.run(500);
  EXPECT_EQ(s.stat("writes"), 1u);
  EXPECT_EQ(s.stat("write_requests"), 1u);
  EXPECT_EQ(s.ch.writeQueueDepth(), 0u);
  EXPECT_EQ(s.responses, 0u) << "a write without needs_response completes silently";
  EXPECT_TRUE(s.ch.idle());

  // With needs_response, the write acknowledges once its data is written.
  MemRequest w = request(2, addrOf(p, 0, 0, 0, 1), p.access_bytes, MemOp::Write);
  w.needs_response = true;
  s.accept(w);
  const std::uint64_t t0 = s.now;
  const std::uint64_t c = p.controller_latency_cycles;
  EXPECT_EQ(s.runUntilDone(2) - t0, 2 * c + p.timing.tCWL + burstCycles(p));  // row 0 is open: a hit
}

// A write, then a read that arrives right after the WR issued: the RD waits tCWL + burst + tWTR.
// The controller pipeline is set to 1 cycle so that it cannot hide the turnaround.
TEST(Dram, WriteToReadTurnaround) {
  for (const char* standard : {"gddr6", "hbm2"}) {
    DramParams p = quiet(standard);
    p.controller_latency_cycles = 1;
    const DramTimingParams& t = p.timing;
    const std::uint64_t B = burstCycles(p);
    ASSERT_GT(t.tCWL + B + t.tWTR, std::max<std::uint64_t>(p.controller_latency_cycles, t.tCCD_L));
    Sim s(p);
    s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes, MemOp::Write));
    const std::uint64_t wr = s.runUntilCommand(Cmd::Wr);
    s.accept(request(2, addrOf(p, 0, 0, 0, 1), p.access_bytes));  // same open row
    const std::uint64_t rd = s.runUntilCommand(Cmd::Rd);
    EXPECT_EQ(rd - wr, t.tCWL + B + t.tWTR) << standard;
  }
}

// A read, then a write that arrives right after the RD issued: the WR waits tRTW (which, in the
// presets, covers the data-bus order tCL + burst - tCWL plus the bus turnaround).
TEST(Dram, ReadToWriteTurnaround) {
  for (const char* standard : {"gddr6", "hbm2"}) {
    DramParams p = quiet(standard);
    p.controller_latency_cycles = 1;
    const DramTimingParams& t = p.timing;
    const std::uint64_t B = burstCycles(p);
    ASSERT_GE(t.tRTW + t.tCWL, t.tCL + B);
    ASSERT_GT(t.tRTW, p.controller_latency_cycles);
    Sim s(p);
    s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes));
    const std::uint64_t rd = s.runUntilCommand(Cmd::Rd);
    s.accept(request(2, addrOf(p, 0, 0, 0, 1), p.access_bytes, MemOp::Write));
    const std::uint64_t wr = s.runUntilCommand(Cmd::Wr);
    EXPECT_EQ(wr - rd, t.tRTW) << standard;
  }
}

// ---------------------------------------------------------------------------------------------
// Refresh

TEST(Dram, RefreshEveryTrefi) {
  for (const char* standard : {"gddr5", "gddr6", "hbm2", "hbm3"}) {
    DramParams p = dramPreset(standard);
    const std::uint64_t n = 10 * p.timing.tREFI + p.timing.tREFI / 2;
    Sim s(p);
    s.run(n);
    const std::uint64_t expected = n / p.timing.tREFI;
    EXPECT_LE(s.stat("refreshes"), expected + 1) << standard;
    EXPECT_GE(s.stat("refreshes") + 1, expected) << standard;
    // Idle channel, all banks closed: each REF issues exactly when due, at k * tREFI.
    std::vector<std::uint64_t> refs = s.cyclesOf(Cmd::Ref);
    for (std::size_t k = 0; k < refs.size(); ++k) EXPECT_EQ(refs[k], (k + 1) * p.timing.tREFI) << standard;

    // The same span with a single tick at its end: the refreshes happened in the skipped cycles.
    StatsRegistry stats2;
    DramChannel lazy(p, 0, stats2, "dram");
    EXPECT_TRUE(lazy.idle());
    lazy.tick(n - 1);
    EXPECT_EQ(stats2.value("dram.refreshes"), s.stat("refreshes")) << standard;
  }
}

TEST(Dram, RefreshPrechargesOpenBanksThenBlocksForTrfc) {
  DramParams p = dramPreset("gddr6");
  const DramTimingParams& t = p.timing;
  const std::uint64_t c = p.controller_latency_cycles, B = burstCycles(p);
  Sim s(p);
  // Open two banks well before the refresh is due.
  s.accept(request(1, addrOf(p, 0, 0, 0, 0), p.access_bytes));
  s.accept(request(2, addrOf(p, 1, 0, 0, 0), p.access_bytes));
  s.runUntilDone(2);
  const std::uint64_t ref = s.runUntilCommand(Cmd::Ref);
  // Both open banks were precharged after the refresh fell due, REF came tRP after the last PRE.
  std::vector<std::uint64_t> pres = s.cyclesOf(Cmd::Pre);
  ASSERT_EQ(pres.size(), 2u);
  EXPECT_EQ(pres[0], t.tREFI);
  EXPECT_EQ(pres[1], t.tREFI + 1);  // one command per cycle
  EXPECT_EQ(ref, pres[1] + t.tRP);
  // A read arriving with the REF: its ACT waits for tRFC.
  ASSERT_GT(t.tRFC, c);
  s.accept(request(3, addrOf(p, 2, 2, 7, 0), p.access_bytes));
  EXPECT_EQ(s.runUntilDone(3), ref + t.tRFC + t.tRCD + t.tCL + B + c);
  EXPECT_EQ(s.cyclesOf(Cmd::Act).back(), ref + t.tRFC);
}

// A sparse trace with long idle gaps across many refreshes: ticking only when the channel is busy
// (or a request arrives) must give the same responses, at the same cycles, and the same counters
// as ticking every cycle.
TEST(Dram, SkippingIdleTicksIsExact) {
  for (const char* standard : {"gddr6", "hbm2"}) {
    for (const char* page : {"open", "closed"}) {
      DramParams p = dramPreset(standard);
      p.page_policy = page;
      struct Arrival {
        std::uint64_t cycle;
        MemRequest r;
      };
      std::vector<Arrival> trace;
      std::uint64_t lcg = 12345;
      auto rnd = [&] { return (lcg = lcg * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
      std::uint64_t id = 1;
      for (int g = 0; g < 12; ++g) {
        std::uint64_t base = std::uint64_t(g) * (p.timing.tREFI * 3 / 2) + rnd() % 700;
        for (int k = 0; k < 20; ++k) {
          MemOp op = rnd() % 3 == 0 ? MemOp::Write : MemOp::Read;
          MemRequest r = request(id++, (rnd() % 4096) * p.access_bytes, p.access_bytes, op);
          if (op == MemOp::Write) r.needs_response = rnd() % 2;
          trace.push_back({base + std::uint64_t(k) * (rnd() % 3), r});
        }
      }
      const std::uint64_t end = trace.back().cycle + 3 * p.timing.tREFI;

      auto runTrace = [&](bool skip, StatsRegistry& stats, std::map<std::uint64_t, std::uint64_t>& done) {
        DramChannel ch(p, 0, stats, "dram");
        std::size_t next = 0;
        std::uint64_t ticks = 0;
        for (std::uint64_t cyc = 0; cyc <= end; ++cyc) {
          bool arrival = false;
          while (next < trace.size() && trace[next].cycle <= cyc && ch.canAccept(trace[next].r)) {
            ch.accept(trace[next].r, cyc);
            ++next;
            arrival = true;
          }
          const bool waiting = next < trace.size() && trace[next].cycle <= cyc;  // blocked by a full queue
          if (skip && !arrival && !waiting && ch.idle() && cyc != end) continue;
          ch.tick(cyc);
          ++ticks;
          while (ch.hasResponse()) {
            done[ch.peekResponse().id] = cyc;
            ch.popResponse();
          }
        }
        return ticks;
      };
      StatsRegistry sa, sb;
      std::map<std::uint64_t, std::uint64_t> da, db;
      std::uint64_t ta = runTrace(false, sa, da), tb = runTrace(true, sb, db);
      EXPECT_LT(tb * 4, ta) << "the skipping run must actually skip most cycles";
      EXPECT_EQ(da, db) << standard << " " << page;
      EXPECT_EQ(sa.toJson().dump(), sb.toJson().dump()) << standard << " " << page;
      EXPECT_GT(sa.value("dram.refreshes"), 10u);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Every timing rule, on random traffic: an independent checker replays the command trace.

namespace {

void checkTrace(const DramParams& p, const std::vector<std::pair<std::uint64_t, Cmd>>& cmds, const std::string& what) {
  const DramTimingParams& t = p.timing;
  const std::int64_t B = std::int64_t(burstCycles(p)), never = -(std::int64_t(1) << 40);
  const bool closed = p.page_policy == "closed";
  struct BankState {
    bool open = false;
    std::uint32_t row = 0;
    std::int64_t act = -(std::int64_t(1) << 40), pre = -(std::int64_t(1) << 40), rd = -(std::int64_t(1) << 40),
                 wr = -(std::int64_t(1) << 40), autopre = -(std::int64_t(1) << 40);
  };
  std::vector<BankState> bank(p.bank_groups * p.banks_per_group);
  std::vector<std::int64_t> act_bg(p.bank_groups, never), rd_bg(p.bank_groups, never), wr_bg(p.bank_groups, never);
  std::vector<std::int64_t> acts;
  std::int64_t ref = never, rd_any = never, wr_any = never, act_any = never, pre_any = never, bus_end = never,
               prev = -1;
  int errors = 0;
  auto check = [&](bool ok, std::int64_t c, const char* rule) {
    if (!ok && ++errors <= 5) ADD_FAILURE() << what << ": cycle " << c << " violates " << rule;
  };
  for (const auto& [cyc, cmd] : cmds) {
    const std::int64_t c = std::int64_t(cyc);
    check(c > prev, c, "one command per cycle");
    prev = c;
    if (cmd.kind == Cmd::Ref) {
      for (const BankState& b : bank) {
        check(!b.open, c, "REF with a bank open");
        check(c - b.act >= std::int64_t(t.tRC), c, "ACT->REF >= tRC");
        check(c - b.autopre >= std::int64_t(t.tRP), c, "auto-precharge->REF >= tRP");
      }
      check(c - pre_any >= std::int64_t(t.tRP), c, "PRE->REF >= tRP");
      check(c - ref >= std::int64_t(t.tRFC), c, "REF->REF >= tRFC");
      ref = c;
      continue;
    }
    BankState& b = bank[cmd.bank];
    const std::uint32_t g = cmd.bank / p.banks_per_group;
    switch (cmd.kind) {
      case Cmd::Act:
        check(!b.open, c, "ACT to an open bank");
        check(c - b.pre >= std::int64_t(t.tRP), c, "PRE->ACT >= tRP");
        check(c - b.autopre >= std::int64_t(t.tRP), c, "auto-precharge->ACT >= tRP");
        check(c - b.act >= std::int64_t(t.tRC), c, "ACT->ACT same bank >= tRC");
        check(c - ref >= std::int64_t(t.tRFC), c, "REF->ACT >= tRFC");
        check(c - act_any >= std::int64_t(t.tRRD_S), c, "ACT->ACT >= tRRD_S");
        check(c - act_bg[g] >= std::int64_t(t.tRRD_L), c, "ACT->ACT same bank group >= tRRD_L");
        if (acts.size() >= 4) check(c - acts[acts.size() - 4] >= std::int64_t(t.tFAW), c, "five ACTs within tFAW");
        acts.push_back(c);
        b.open = true, b.row = cmd.row, b.act = c, act_any = c, act_bg[g] = c;
        break;
      case Cmd::Pre:
        check(b.open, c, "PRE to a closed bank");
        check(c - b.act >= std::int64_t(t.tRAS), c, "ACT->PRE >= tRAS");
        check(c - b.rd >= std::int64_t(t.tRTP), c, "RD->PRE >= tRTP");
        check(c - b.wr >= std::int64_t(t.tCWL) + B + std::int64_t(t.tWR), c, "WR->PRE >= tCWL + burst + tWR");
        b.open = false, b.pre = c, pre_any = c;
        break;
      case Cmd::Rd:
      case Cmd::Wr: {
        const bool rd = cmd.kind == Cmd::Rd;
        check(b.open && b.row == cmd.row, c, "column command to a row that is not open");
        check(c - b.act >= std::int64_t(t.tRCD), c, "ACT->RD/WR >= tRCD");
        if (rd) {
          check(c - rd_any >= std::int64_t(t.tCCD_S), c, "RD->RD >= tCCD_S");
          check(c - rd_bg[g] >= std::int64_t(t.tCCD_L), c, "RD->RD same bank group >= tCCD_L");
          check(c - wr_any >= std::int64_t(t.tCWL) + B + std::int64_t(t.tWTR), c, "WR->RD >= tCWL + burst + tWTR");
          check(c + std::int64_t(t.tCL) >= bus_end, c, "read data overlaps the previous burst");
          bus_end = c + std::int64_t(t.tCL) + B;
          b.rd = c, rd_any = c, rd_bg[g] = c;
        } else {
          check(c - wr_any >= std::int64_t(t.tCCD_S), c, "WR->WR >= tCCD_S");
          check(c - wr_bg[g] >= std::int64_t(t.tCCD_L), c, "WR->WR same bank group >= tCCD_L");
          check(c - rd_any >= std::int64_t(t.tRTW), c, "RD->WR >= tRTW");
          check(c + std::int64_t(t.tCWL) >= bus_end, c, "write data overlaps the previous burst");
          bus_end = c + std::int64_t(t.tCWL) + B;
          b.wr = c, wr_any = c, wr_bg[g] = c;
        }
        if (closed) {  // auto-precharge when tRAS and tRTP / write recovery allow
          b.open = false;
          b.autopre = std::max(b.act + std::int64_t(t.tRAS),
                               rd ? c + std::int64_t(t.tRTP) : c + std::int64_t(t.tCWL) + B + std::int64_t(t.tWR));
        }
        break;
      }
      default:
        check(false, c, "unknown command");
    }
  }
}

}  // namespace

TEST(Dram, AllTimingConstraintsHoldOnRandomTraffic) {
  for (const char* standard : {"gddr5", "gddr6", "hbm2", "hbm3"})
    for (const char* sched : {"fr_fcfs", "fcfs"})
      for (const char* page : {"open", "closed"})
        for (const char* mapping : {"row_bank_column", "row_column_bank"}) {
          DramParams p = dramPreset(standard);
          p.scheduler = sched;
          p.page_policy = page;
          p.address_mapping = mapping;
          p.write_queue_entries = 16;
          p.write_drain_high_watermark = 12;
          p.write_drain_low_watermark = 4;
          Sim s(p);
          s.keep_responses = false;
          std::uint64_t lcg = 99, id = 1, issued = 0;
          auto rnd = [&] { return (lcg = lcg * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
          const std::uint64_t cycles = 3 * p.timing.tREFI;
          MemRequest next;
          bool have = false;
          for (std::uint64_t i = 0; i < cycles; ++i) {
            if (!have && rnd() % 2) {  // reads and writes over a few rows of every bank, some lines
              MemOp op = rnd() % 3 == 0 ? MemOp::Write : MemOp::Read;
              next = request(id++, addrOf(p, rnd() % p.bank_groups, rnd() % p.banks_per_group, rnd() % 3, rnd() % 8),
                             p.access_bytes, op);
              if (rnd() % 4 == 0) next.addr &= ~std::uint64_t(127), next.sector_mask = 0xF;
              have = true;
            }
            if (have && s.ch.canAccept(next)) s.accept(next), have = false, ++issued;
            s.tick();
          }
          const std::string what = std::string(standard) + " " + sched + " " + page + " " + mapping;
          ASSERT_GT(s.cmds.size(), issued) << what;
          EXPECT_GT(s.stat("refreshes"), 1u) << what;
          checkTrace(p, s.cmds, what);
        }
}

// ---------------------------------------------------------------------------------------------
// Activation limits, page policy

TEST(Dram, AtMostFourActivatesPerTfawWindow) {
  DramParams p = quiet("gddr6");
  const DramTimingParams& t = p.timing;
  ASSERT_EQ(p.address_mapping, "row_column_bank");
  // With tFAW > 3 tRRD_S the window, not tRRD, decides when the fifth ACT may go.
  ASSERT_GT(t.tFAW, 3 * t.tRRD_S);
  Sim s(p);
  // Eight consecutive accesses: bank groups 0..3 of bank 0, then of bank 1: eight closed banks.
  for (std::uint32_t i = 0; i < 8; ++i) s.accept(request(i, std::uint64_t(i) * p.access_bytes, p.access_bytes));
  for (std::uint32_t i = 0; i < 8; ++i) s.runUntilDone(i);
  std::vector<std::uint64_t> acts = s.cyclesOf(Cmd::Act);
  ASSERT_EQ(acts.size(), 8u);
  for (std::size_t i = 0; i + 4 < acts.size(); ++i) EXPECT_GE(acts[i + 4] - acts[i], t.tFAW) << i;
  for (std::size_t i = 0; i + 1 < acts.size(); ++i) EXPECT_GE(acts[i + 1] - acts[i], t.tRRD_S) << i;
  for (std::size_t i = 0; i + 4 < acts.size(); ++i) EXPECT_GE(acts[i + 4] - acts[i], t.tRRD_L) << "same bank group";
  // ACTs 1..3 follow at tRRD_S (different bank groups); the fifth waits for the window. No RD can
  // take its command slot: the first RD is due only tRCD after the first ACT.
  ASSERT_GT(t.tRCD, t.tFAW);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(acts[i] - acts[0], i * t.tRRD_S);
  EXPECT_EQ(acts[4] - acts[0], t.tFAW);
}

TEST(Dram, ClosedPageEveryAccessIsRowMiss) {
  DramParams p = dramPreset("gddr6");
  p.page_policy = "closed";
  Sim s(p);
  std::uint64_t id = 1;
  std::vector<MemRequest> rs;
  for (std::uint32_t i = 0; i < 64; ++i) rs.push_back(request(id++, std::uint64_t(i) * p.access_bytes, p.access_bytes));
  for (std::uint32_t i = 0; i < 32; ++i)  // same row again and again, and alternating rows
    rs.push_back(
        request(id++, addrOf(p, 1, 1, i % 2 ? 3 : 4, i % 4), p.access_bytes, i % 3 ? MemOp::Read : MemOp::Write));
  std::size_t next = 0;
  while (next < rs.size() || !s.ch.idle()) {
    while (next < rs.size() && s.ch.canAccept(rs[next])) s.accept(rs[next++]);
    s.tick();
  }
  const std::uint64_t accesses = s.stat("reads") + s.stat("writes");
  EXPECT_EQ(accesses, rs.size());
  EXPECT_EQ(s.stat("row_hits"), 0u);
  EXPECT_EQ(s.stat("row_conflicts"), 0u);
  EXPECT_EQ(s.stat("row_misses"), accesses);
  EXPECT_EQ(s.stat("activates"), accesses);
  EXPECT_EQ(s.stat("precharges"), accesses);  // one auto-precharge per access
}

TEST(Dram, OpenPageRowStatisticsAddUp) {
  DramParams p = dramPreset("hbm2");
  Sim s(p);
  streamUtilization(s, 5 * p.timing.tREFI);
  EXPECT_EQ(s.stat("row_hits") + s.stat("row_misses") + s.stat("row_conflicts"), s.stat("reads") + s.stat("writes"));
  EXPECT_GT(s.stat("row_hits"), 0u);
}

// ---------------------------------------------------------------------------------------------
// Presets, mapping, checks

TEST(Dram, PresetsAreCompleteAndConsistent) {
  for (const std::string& name : dramPresetNames()) {
    DramParams p = dramPreset(name);
    EXPECT_EQ(p.standard, name);
    EXPECT_EQ(p.access_bytes, p.bus_width_bits / 8 * p.timing.burst_length) << name;
    EXPECT_EQ(p.timing.burst_length % p.transfers_per_clock, 0u) << name;
    EXPECT_EQ(p.timing.tCCD_S, burstCycles(p)) << name << ": tCCD_S is one burst";
    EXPECT_GE(p.timing.tCCD_L, p.timing.tCCD_S) << name;
    EXPECT_GE(p.timing.tRC + 1, p.timing.tRAS + p.timing.tRP) << name;
    EXPECT_GE(p.timing.tRTW + p.timing.tCWL, p.timing.tCL + burstCycles(p)) << name;
    EXPECT_GT(dramPresetClockMhz(name), 0.0);
    StatsRegistry stats;
    EXPECT_NO_THROW(DramChannel(p, 0, stats, "dram")) << name;
  }
  EXPECT_EQ(dramPresetNames(), (std::vector<std::string>{"gddr5", "gddr6", "hbm2", "hbm3"}));
}

TEST(Dram, UnknownPresetListsNames) {
  try {
    dramPreset("ddr9");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    std::string m = e.what();
    for (const char* n : {"ddr9", "gddr5", "gddr6", "hbm2", "hbm3"}) EXPECT_NE(m.find(n), std::string::npos) << m;
  }
}

TEST(Dram, PresetRescaledToAnotherClock) {
  // hbm2 at A100's 1215 MHz: nanosecond timings scale by 1215/1000, rounded up; tREFI rounds down.
  DramParams ref = dramPreset("hbm2"), a100 = dramPreset("hbm2", 1215.0);
  const double k = 1215.0 / dramPresetClockMhz("hbm2");
  EXPECT_EQ(a100.timing.tRCD, std::uint32_t(std::ceil(ref.timing.tRCD * k)));
  EXPECT_EQ(a100.timing.tRFC, std::uint32_t(std::ceil(ref.timing.tRFC * k)));
  EXPECT_EQ(a100.timing.tREFI, std::uint32_t(std::floor(ref.timing.tREFI * k)));
  EXPECT_EQ(a100.timing.tCCD_S, ref.timing.tCCD_S);
  // At its own clock a preset is unchanged.
  DramParams same = dramPreset("gddr6", dramPresetClockMhz("gddr6")), g6 = dramPreset("gddr6");
  EXPECT_EQ(same.timing.tRCD, g6.timing.tRCD);
  EXPECT_EQ(same.timing.tRTW, g6.timing.tRTW);
  EXPECT_EQ(same.timing.tREFI, g6.timing.tREFI);
}

TEST(Dram, AddressMappings) {
  for (const char* mapping : {"row_bank_column", "row_column_bank"})
    for (bool pow2 : {true, false}) {
      DramParams p = quiet("gddr6");
      p.address_mapping = mapping;
      if (!pow2) p.rows = 1000, p.banks_per_group = 3;  // field sizes that are not powers of two
      StatsRegistry stats;
      DramChannel ch(p, 0, stats, "dram");
      for (std::uint32_t bg = 0; bg < p.bank_groups; ++bg)
        for (std::uint32_t b = 0; b < p.banks_per_group; ++b)
          for (std::uint32_t row : {0u, 1u, 777u, p.rows - 1})
            for (std::uint32_t col : {0u, 1u, p.row_bytes / p.access_bytes - 1}) {
              DramChannel::Location l = ch.locate(addrOf(p, bg, b, row, col) + p.access_bytes - 1);
              EXPECT_EQ(l.bank_group, bg);
              EXPECT_EQ(l.bank, bg * p.banks_per_group + b);
              EXPECT_EQ(l.row, row);
              EXPECT_EQ(l.column, col);
            }
    }
}

TEST(Dram, InvalidParametersAreRejected) {
  StatsRegistry stats;
  DramParams p = dramPreset("gddr6");
  p.access_bytes = 64;  // 16 bits x BL16 moves 32 bytes
  EXPECT_THROW(DramChannel(p, 0, stats, "a"), std::invalid_argument);
  p = dramPreset("gddr6");
  p.scheduler = "random";
  EXPECT_THROW(DramChannel(p, 0, stats, "b"), std::invalid_argument);
  p = dramPreset("gddr6");
  p.write_drain_low_watermark = p.write_drain_high_watermark + 1;
  EXPECT_THROW(DramChannel(p, 0, stats, "c"), std::invalid_argument);
}

TEST(Dram, QueueCapacityAndBackPressure) {
  DramParams p = quiet("gddr6");
  p.read_queue_entries = 4;
  Sim s(p);
  for (std::uint32_t i = 0; i < 4; ++i) {
    MemRequest r = request(i, std::uint64_t(i) * p.access_bytes, p.access_bytes);
    ASSERT_TRUE(s.ch.canAccept(r));
    s.accept(r);
  }
  MemRequest extra = request(9, 1 << 20, p.access_bytes);
  EXPECT_FALSE(s.ch.canAccept(extra));
  EXPECT_THROW(s.accept(extra), std::logic_error);
  EXPECT_TRUE(s.ch.canAccept(request(10, 0, p.access_bytes, MemOp::Write))) << "writes have their own queue";
  s.tick();
  EXPECT_EQ(s.stat("read_queue_full_cycles"), 1u);
  for (std::uint32_t i = 0; i < 4; ++i) s.runUntilDone(i);
  EXPECT_TRUE(s.ch.idle());
}

TEST(Dram, Deterministic) {
  std::string first;
  for (int run = 0; run < 2; ++run) {
    DramParams p = dramPreset("gddr6");
    Sim s(p);
    streamUtilization(s, 3 * p.timing.tREFI, 4096);
    std::string js = s.stats.toJson().dump();
    if (run == 0)
      first = js;
    else
      EXPECT_EQ(js, first);
  }
}
