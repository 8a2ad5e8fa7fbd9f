// The RTL DRAM command scheduler (rtl/dram_cmd_sched.sv) against the C++ model of the same
// boundary (memsys/dram_scheduler.h), command for command, for a million DRAM cycles per channel
// configuration: seeded random traffic in phases (idle, row streams, random rows, write bursts,
// full queues), as the channel produces it. An independent timing checker follows the command
// stream: no constraint is ever violated, and each one is seen being the binding one (the command
// issued at the first cycle that constraint allowed). Built only with SCGPU_RTL.
#include <gtest/gtest.h>

#ifdef SCGPU_HAVE_RTL

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "Vdram_cmd_sched_planted_bug.h"
#include "Vdram_cmd_sched_planted_bug_wave.h"
#include "app/cli.h"
#include "kernels/workload.h"
#include "memsys/dram_presets.h"
#include "memsys/dram_scheduler.h"
#include "rtl/dram_sched_rtl.h"
#include "rtl/dram_sched_transactor.h"
#include "rtl_wave_check.h"
#include "tlm/gpu_config.h"

namespace {

using namespace scgpu;
using namespace scgpu::memsys;
using Cmd = DramSchedCommand;

constexpr std::int64_t kLongAgo = -1'000'000;

// What the DRAM device requires, from the commands alone (absolute cycles).
class TimingChecker {
 public:
  explicit TimingChecker(const DramSchedParams& p)
      : p_(p), banks_(p.bank_groups * p.banks_per_group), groups_(p.bank_groups) {}

  // Checks the command issued at t against every constraint, records which were binding
  // (cover["ACT tRRD_L"] etc.), then applies it.
  void issue(const Cmd& c, std::int64_t t, std::map<std::string, std::uint64_t>& cover) {
    const DramTimingParams& tm = p_.timing;
    const std::int64_t burst = p_.burst_cycles;
    std::vector<std::pair<const char*, std::int64_t>> bounds;  // constraint, earliest cycle it allows
    auto actBounds = [&](const Bank& b) {
      bounds.push_back({"tRP", b.pre + tm.tRP});
      bounds.push_back({"tRC", b.act + tm.tRC});
      bounds.push_back({"tRFC", ref_ + tm.tRFC});
    };
    const char* name = dramCommandName(c.kind);
    if (c.kind == Cmd::Ref) {
      for (const Bank& b : banks_) {
        EXPECT_FALSE(b.open) << "REF at cycle " << t << " with a bank open";
        actBounds(b);
      }
    } else {
      ASSERT_LT(c.bank, banks_.size());
      Bank& b = banks_[c.bank];
      Group& g = groups_[c.bank / p_.banks_per_group];
      switch (c.kind) {
        case Cmd::Act:
          EXPECT_FALSE(b.open) << "ACT of an open bank at cycle " << t;
          actBounds(b);
          bounds.push_back({"tRRD_S", act_ + tm.tRRD_S});
          bounds.push_back({"tRRD_L", g.act + tm.tRRD_L});
          if (faw_.size() == 4) bounds.push_back({"tFAW", faw_.front() + tm.tFAW});
          break;
        case Cmd::Pre:
          EXPECT_TRUE(b.open) << "PRE of a closed bank at cycle " << t;
          bounds.push_back({"tRAS", b.act + tm.tRAS});
          bounds.push_back({"tRTP", b.rd + tm.tRTP});
          bounds.push_back({"tWR", b.wr + tm.tCWL + burst + tm.tWR});
          break;
        case Cmd::Rd:
        case Cmd::Wr: {
          const bool rd = c.kind == Cmd::Rd;
          EXPECT_TRUE(b.open && b.row == c.row) << name << " of a row that is not open at cycle " << t;
          bounds.push_back({"tRCD", b.act + tm.tRCD});
          bounds.push_back({"tCCD_S", (rd ? rd_ : wr_) + tm.tCCD_S});
          bounds.push_back({"tCCD_L", (rd ? g.rd : g.wr) + tm.tCCD_L});
          if (rd)
            bounds.push_back({"tWTR", wr_ + tm.tCWL + burst + tm.tWTR});
          else
            bounds.push_back({"tRTW", rd_ + tm.tRTW});
          bounds.push_back({"data bus", bus_ - (rd ? tm.tCL : tm.tCWL)});
          break;
        }
        default:
          break;
      }
    }
    for (const auto& [what, earliest] : bounds) {
      EXPECT_LE(earliest, t) << name << " at cycle " << t << " violates " << what;
      if (earliest == t) cover[std::string(name) + " " + what]++;
    }
    apply(c, t);
  }

 private:
  struct Bank {
    bool open = false;
    std::uint32_t row = 0;
    std::int64_t act = kLongAgo, pre = kLongAgo, rd = kLongAgo, wr = kLongAgo;
  };
  struct Group {
    std::int64_t act = kLongAgo, rd = kLongAgo, wr = kLongAgo;
  };

  void apply(const Cmd& c, std::int64_t t) {
    const DramTimingParams& tm = p_.timing;
    const std::int64_t burst = p_.burst_cycles;
    if (c.kind == Cmd::Ref) {
      ref_ = t;
      return;
    }
    Bank& b = banks_[c.bank];
    Group& g = groups_[c.bank / p_.banks_per_group];
    switch (c.kind) {
      case Cmd::Act:
        b = Bank{true, c.row, t, b.pre, kLongAgo, kLongAgo};
        g.act = act_ = t;
        faw_.push_back(t);
        if (faw_.size() > 4) faw_.erase(faw_.begin());
        break;
      case Cmd::Pre:
        b.open = false;
        b.pre = t;
        break;
      case Cmd::Rd:
      case Cmd::Wr:
        if (c.kind == Cmd::Rd) {
          b.rd = g.rd = rd_ = t;
          bus_ = t + tm.tCL + burst;
        } else {
          b.wr = g.wr = wr_ = t;
          bus_ = t + tm.tCWL + burst;
        }
        if (p_.closed_page) {  // the auto-precharge starts as soon as tRAS, tRTP and tWR allow
          b.open = false;
          b.pre = std::max({b.act + std::int64_t(tm.tRAS), b.rd + std::int64_t(tm.tRTP),
                            b.wr + std::int64_t(tm.tCWL) + burst + std::int64_t(tm.tWR)});
        }
        break;
      default:
        break;
    }
  }

  DramSchedParams p_;
  std::vector<Bank> banks_;
  std::vector<Group> groups_;
  std::int64_t act_ = kLongAgo, rd_ = kLongAgo, wr_ = kLongAgo, ref_ = kLongAgo, bus_ = kLongAgo;
  std::vector<std::int64_t> faw_;
};

struct Case {
  const char* name;
  DramSchedParams p;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

DramSchedParams tight() {  // every constraint distinct, so each can be the one that binds
  DramSchedParams p;
  p.bank_groups = 4, p.banks_per_group = 4, p.rows = 1024;
  p.read_queue_entries = 16, p.write_queue_entries = 16;
  p.write_drain_high_watermark = 12, p.write_drain_low_watermark = 4;
  p.fr_fcfs = true, p.closed_page = false, p.refresh = true;
  p.burst_cycles = 2, p.controller_latency_cycles = 3;
  DramTimingParams& t = p.timing;
  t.tRCD = 5, t.tRP = 6, t.tRAS = 12, t.tRC = 21, t.tCL = 6, t.tCWL = 3, t.tCCD_S = 2, t.tCCD_L = 4;
  t.tRRD_S = 2, t.tRRD_L = 4, t.tFAW = 16, t.tWTR = 4, t.tRTW = 8, t.tWR = 6, t.tRTP = 3;
  t.tREFI = 1500, t.tRFC = 60;
  return p;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back({"tight_frfcfs_open", tight()});
  DramSchedParams b = tight();  // fcfs, closed page, 8 banks in each of 2 groups, a long burst (the bus binds)
  b.bank_groups = 2, b.banks_per_group = 8, b.fr_fcfs = false, b.closed_page = true;
  b.read_queue_entries = 8, b.write_queue_entries = 8, b.write_drain_high_watermark = 6, b.write_drain_low_watermark = 2;
  b.burst_cycles = 4, b.controller_latency_cycles = 0, b.timing.tREFI = 900, b.timing.tRFC = 40;
  v.push_back({"fcfs_closed", b});
  DramSchedParams c = DramSchedParams::from(dramPreset("hbm3", 1309.5));  // hopper's channels
  v.push_back({"hbm3_preset", c});
  DramSchedParams d = tight();  // fr_fcfs, closed page, no refresh, 16 groups of one bank
  d.bank_groups = 16, d.banks_per_group = 1, d.closed_page = true, d.refresh = false;
  d.read_queue_entries = 64, d.write_queue_entries = 64, d.write_drain_high_watermark = 64;
  d.write_drain_low_watermark = 0, d.controller_latency_cycles = 1;
  v.push_back({"frfcfs_closed_norefresh", d});
  return v;
}

class RtlDramSched : public ::testing::TestWithParam<Case> {};

TEST_P(RtlDramSched, IssuesTheModelsCommandsCycleForCycle) {
  const DramSchedParams& p = GetParam().p;
  auto model = makeModelDramScheduler(p);
  auto rtl = rtl::makeRtlDramScheduler(p, "test.dram.scheduler");
  TimingChecker checker(p);
  std::mt19937_64 rng(std::hash<std::string>()(GetParam().name) & 0xffff);  // seeded: a failure reproduces
  const std::uint32_t banks = p.bank_groups * p.banks_per_group;
  const std::uint32_t cap[2] = {p.read_queue_entries, p.write_queue_entries};
  std::uint32_t count[2] = {0, 0};
  std::vector<std::uint32_t> free_tags;
  for (std::uint32_t i = 0; i < cap[0] + cap[1]; ++i) free_tags.push_back(cap[0] + cap[1] - 1 - i);
  std::map<std::string, std::uint64_t> cover;
  int phase = 0;
  std::uint64_t phase_end = 0;
  std::uint32_t stream_bank = 0, stream_row = 0;
  Cmd::Kind last_col = Cmd::None;
  std::uint64_t last_ready = 0;
  std::deque<std::string> history;  // the last operations, for a failure's message
  auto remember = [&](std::string s) {
    history.push_back(std::move(s));
    if (history.size() > 40) history.pop_front();
  };
  auto recent = [&] {
    std::string s;
    for (const auto& h : history) s += "\n  " + h;
    return s;
  };

  const std::uint64_t kCycles = scgpu::rtl::testbenchCycles();  // a million by default
  for (std::uint64_t t = 0; t < kCycles; ++t) {
    if (t >= phase_end) {  // 0 idle, 1 row streams, 2 random rows, 3 write bursts, 4 flood
      phase = int(rng() % 5);
      phase_end = t + 500 + rng() % 6000;
    }
    // Bursts arriving before this cycle's decision: as the channel enqueues them, accepted in
    // this cycle or (after the tick) in the previous one.
    const int arrivals = phase == 0 ? 0 : phase == 4 ? int(rng() % 3) : rng() % 4 == 0 ? 1 : 0;
    for (int a = 0; a < arrivals; ++a) {
      DramSchedRequest r;
      r.write = phase == 3 ? rng() % 8 != 0 : rng() % 4 == 0;
      const int q = r.write ? 1 : 0;
      if (count[q] >= cap[q]) {
        cover[r.write ? "write queue full (back-pressure)" : "read queue full (back-pressure)"]++;
        continue;
      }
      if (phase == 1) {  // a stream: the same row over a few banks, moving on now and then
        if (rng() % 16 == 0) stream_bank = std::uint32_t(rng() % banks), stream_row = std::uint32_t(rng() % p.rows);
        r.bank = (stream_bank + std::uint32_t(rng() % 2)) % banks;
        r.row = stream_row;
      } else {  // a few hot rows per bank, now and then any row
        r.bank = std::uint32_t(rng() % banks);
        r.row = rng() % 16 == 0 ? std::uint32_t(rng() % p.rows) : std::uint32_t(rng() % 3);
      }
      r.tag = free_tags.back();
      free_tags.pop_back();
      // Accepted in this cycle or (after its tick) in the previous one; in order, as the channel's
      // arrival pipeline is, so ready cycles never decrease.
      const std::uint64_t accepted = t > 0 && rng() % 2 ? t - 1 : t;
      r.ready = last_ready = std::max(last_ready, accepted + p.controller_latency_cycles);
      model->enqueue(r);
      rtl->enqueue(r);
      remember("cycle " + std::to_string(t) + ": enqueue tag " + std::to_string(r.tag) + (r.write ? " write" : " read") +
               " bank " + std::to_string(r.bank) + " row " + std::to_string(r.row) + " ready " +
               std::to_string(r.ready));
      ++count[q];
    }

    const Cmd want = model->step(t);
    const Cmd got = rtl->step(t);
    ASSERT_EQ(int(got.kind), int(want.kind)) << "cycle " << t << ": RTL " << dramCommandName(got.kind) << " bank "
                                             << got.bank << " tag " << got.tag << recent();
    ASSERT_EQ(got.bank, want.bank) << "cycle " << t << ", " << dramCommandName(want.kind) << recent();
    ASSERT_EQ(got.row, want.row) << "cycle " << t << ", " << dramCommandName(want.kind) << recent();
    ASSERT_EQ(got.tag, want.tag) << "cycle " << t << ", " << dramCommandName(want.kind) << recent();
    if (want.kind == Cmd::None) continue;
    remember("cycle " + std::to_string(t) + ": " + dramCommandName(want.kind) + " bank " + std::to_string(want.bank) +
             " row " + std::to_string(want.row) + " tag " + std::to_string(want.tag));
    cover[dramCommandName(want.kind)]++;
    if (want.kind == Cmd::Pre && want.tag == Cmd::kNoTag) cover["PRE for refresh"]++;
    checker.issue(want, std::int64_t(t), cover);
    if (::testing::Test::HasFailure()) return;
    if (want.kind == Cmd::Rd || want.kind == Cmd::Wr) {
      const int q = want.kind == Cmd::Wr ? 1 : 0;
      --count[q];
      free_tags.push_back(want.tag);
      if (want.kind == Cmd::Wr && last_col == Cmd::Rd)
        cover[count[0] > 0 ? "write drain entered (high watermark)" : "write drain entered (no reads)"]++;
      if (want.kind == Cmd::Rd && last_col == Cmd::Wr)
        cover[count[1] > 0 ? "write drain left (low watermark)" : "write drain left (write queue empty)"]++;
      last_col = want.kind;
    }
  }
  std::string seen;
  for (const auto& [bin, n] : cover) seen += "\n  " + bin + ": " + std::to_string(n);
  std::printf("%s: %llu cycles, coverage:%s\n", GetParam().name, static_cast<unsigned long long>(kCycles),
              seen.c_str());
  // What every configuration must exercise.
  std::vector<std::string> bins = {"ACT", "PRE", "RD", "WR", "read queue full (back-pressure)",
                                   "write queue full (back-pressure)", "write drain entered (high watermark)",
                                   "write drain left (write queue empty)", "ACT tRP", "ACT tRRD_S", "RD tRCD",
                                   "WR tRCD", "RD data bus", "WR data bus", "PRE tRAS"};
  if (p.burst_cycles <= p.timing.tCCD_S) bins.insert(bins.end(), {"RD tCCD_S", "WR tCCD_S"});  // else the bus binds
  if (p.refresh) bins.insert(bins.end(), {"REF", "PRE for refresh", "ACT tRFC"});
  if (p.fr_fcfs && !p.closed_page)  // a row's last hit, then the conflicting request's PRE
    bins.insert(bins.end(), {"PRE tRTP", "PRE tWR", "RD tCCD_L", "WR tCCD_L", "RD tWTR", "WR tRTW", "ACT tRRD_L",
                             "ACT tFAW", "write drain left (low watermark)"});
  if (p.timing.tRC > p.timing.tRAS + p.timing.tRP) bins.push_back("ACT tRC");  // else tRAS and tRP bind
  // The functional coverage points are asserted on the full-length run (the default million);
  // scripts/rtl_coverage.sh runs shorter ($SCGPU_RTL_TB_CYCLES) for Verilator's line coverage only.
  if (kCycles < 1'000'000) return;
  for (const std::string& bin : bins) EXPECT_GT(cover[bin], 0u) << "coverage bin '" << bin << "' never hit";
}

INSTANTIATE_TEST_SUITE_P(Channels, RtlDramSched, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// A copy of the RTL with a planted bug (reads ignore tRCD) behind the cosim boundary: the report
// names the first cycle on which that copy, run alone beside the model, issues another command.
// It comes with the waveform of the edges before it (rtl-verif).
TEST(RtlDramSchedCosim, ReportsThePlantedBugAtTheRightCycleAndPort) {
  const scgpu::testing::ScratchWaveDir scratch;
  using Buggy = rtl::DramSchedTransactor<Vdram_cmd_sched_planted_bug>;
  registerRtlDramScheduler([](const DramSchedParams& p, const std::string& instance) {
    return std::make_unique<rtl::DramSchedTransactor<Vdram_cmd_sched_planted_bug, Vdram_cmd_sched_planted_bug_wave>>(
        p, instance);
  });
  const DramSchedParams p = tight();
  auto cosim = makeDramScheduler("cosim", p, "gpu.dram[2].scheduler");
  registerRtlDramScheduler(rtl::makeRtlDramScheduler);
  auto model = makeModelDramScheduler(p);
  Buggy buggy(p, "reference");
  std::mt19937_64 rng(11);
  std::uint32_t tag = 0;
  for (std::uint64_t t = 0; t < 100'000; ++t) {
    if (rng() % 8 == 0) {  // reads only, a few rows per bank: ACTs followed by their reads
      DramSchedRequest r;
      r.tag = tag++ % 100;  // at most a handful are queued at once
      r.bank = std::uint32_t(rng() % 16);
      r.row = std::uint32_t(rng() % 4);
      r.ready = t + p.controller_latency_cycles;
      cosim->enqueue(r);
      model->enqueue(r);
      buggy.enqueue(r);
    }
    const Cmd want = model->step(t), got = buggy.step(t);
    const Cmd used = cosim->step(t);
    EXPECT_EQ(used, want) << "cosim drives the channel with the model's command";
    if (want == got) {
      ASSERT_EQ(cosim->divergence(), nullptr) << "cycle " << t << ": " << *cosim->divergence();
      continue;
    }
    ASSERT_NE(cosim->divergence(), nullptr) << "cycle " << t;
    const std::string& m = *cosim->divergence();
    EXPECT_NE(m.find("RTL and model differ at cycle " + std::to_string(t) +
                     " in gpu.dram[2].scheduler (rtl/dram_cmd_sched.sv), port cmd"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find(std::string("got (RTL) ") + dramCommandName(got.kind) + " bank " + std::to_string(got.bank)),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("expected (model) "), std::string::npos) << m;
    EXPECT_NE(m.find("last 1 commands:\n    cycle"), std::string::npos) << m;  // the instance's history
    EXPECT_NE(m.find("bursts enqueued:\n    tag 0: read bank"), std::string::npos) << m;
    EXPECT_EQ(got.kind, Cmd::Rd) << "the planted bug issues a read early";
    scgpu::testing::expectDivergenceWaveform(
        m, (scratch.dir() / ("cosim_gpu_dram_2_scheduler_cycle" + std::to_string(t))).string(),
        "TOP.dram_cmd_sched_wave.",
        {"dut.col_ok", "dut.act_ok", "dut.bus_q", "cmd_kind", "model_kind", "model_cycle", "enq_bank"});
    std::printf("%s\n", m.c_str());
    return;
  }
  FAIL() << "the planted bug never showed";
}

// End to end: a workload with the buggy copy in cosim stops with the divergence as its fault, and
// the command line's exit status for it is 4.
// With two channels and only channel 1 co-simulated (`dram[1].impl`, per instance), the report
// names that channel.
TEST(RtlDramSchedCosim, DivergenceStopsTheRunWithExitStatus4) {
  const scgpu::testing::ScratchWaveDir scratch;
  registerRtlDramScheduler([](const DramSchedParams& p, const std::string& instance) {
    return std::make_unique<rtl::DramSchedTransactor<Vdram_cmd_sched_planted_bug, Vdram_cmd_sched_planted_bug_wave>>(
        p, instance);
  });
  driver::Runtime rt(GpuConfig::loadDefault({"dram.channels=2", "dram[1].impl=cosim"}), driver::Mode::Timing);
  registerRtlDramScheduler(rtl::makeRtlDramScheduler);
  const kernels::Workload* w = kernels::findWorkload("saxpy");
  ASSERT_NE(w, nullptr);
  const auto result = w->run(rt, {});
  ASSERT_TRUE(rt.lastFault().has_value());
  const auto& f = *rt.lastFault();
  EXPECT_EQ(f.kind, "cosim divergence");
  EXPECT_NE(f.message.find("in gpu.dram[1].scheduler (rtl/dram_cmd_sched.sv), port cmd: expected (model)"),
            std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("waveform: "), std::string::npos) << f.message;
  EXPECT_EQ(cli::faultExitCode(rt), cli::kExitCosimDivergence);
  std::printf("%s\n", f.toString().c_str());
}

TEST(RtlDramSchedParams, WhatTheRtlCannotHonourIsRefused) {
  auto refused = [](DramSchedParams p, const std::string& text) {
    try {
      rtl::makeRtlDramScheduler(p, "gpu.dram.scheduler");
      ADD_FAILURE() << "accepted; expected: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  DramSchedParams p = tight();
  p.bank_groups = 8;
  refused(p, "dram.bank_groups x dram.banks_per_group = 32 banks, but the RTL scheduler (rtl/dram_cmd_sched.sv) "
             "was built with NUM_BANKS = 16");
  p = tight();
  p.write_queue_entries = 257;
  refused(p, "dram.write_queue_entries = 257, but the RTL scheduler (rtl/dram_cmd_sched.sv) was built with "
             "QUEUE_DEPTH = 256");
  p = tight();
  p.read_queue_entries = 256;
  p.write_queue_entries = 256;
  EXPECT_NO_THROW(rtl::makeRtlDramScheduler(p, "gpu.dram.scheduler"));  // hopper's queues: 512 tags fit TAG_BITS
  p = tight();
  p.rows = 1 << 17;
  refused(p, "dram.rows = 131072, but the RTL scheduler (rtl/dram_cmd_sched.sv) was built with ROW_BITS = 16");
  p = tight();
  p.controller_latency_cycles = 300;
  refused(p, "dram.controller_latency_cycles = 300, but the RTL scheduler (rtl/dram_cmd_sched.sv) was built with "
             "WAIT_BITS = 8");
  p = tight();
  p.timing.tREFI = 70000;
  refused(p, "dram.timing: tREFI = 70000 cycles, but the RTL scheduler (rtl/dram_cmd_sched.sv) was built with "
             "TIME_BITS = 16");
}

}  // namespace

#endif  // SCGPU_HAVE_RTL
