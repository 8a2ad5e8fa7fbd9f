// The RTL L2 tag/MSHR stage (rtl/l2_tag_mshr.sv) against the C++ model of the same boundary
// (memsys/l2_tag_mshr.h), side by side on seeded constrained-random operation streams shaped as an
// L2 slice makes them: reads, writes and atomics to a pool of lines concentrated on a few sets, DRAM
// fills of the sectors the misses asked for (whole, or sector by sector, out of order), and the
// atomic updates of a completed entry's waiters. Every result is compared; functional coverage bins
// must all be hit. One operation is one RTL clock. Built only with the RTL blocks (SCGPU_RTL).
#include <gtest/gtest.h>

#ifdef SCGPU_HAVE_RTL

#include <verilated_cov.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "Vl2_tag_mshr_coverage.h"
#include "Vl2_tag_mshr_planted_bug.h"
#include "Vl2_tag_mshr_planted_bug_wave.h"
#include "app/cli.h"
#include "driver/runtime.h"
#include "kernels/workload.h"
#include "memsys/l2_tag_mshr.h"
#include "rtl/l2_tag_mshr_rtl.h"
#include "rtl/l2_tag_transactor.h"
#include "rtl_wave_check.h"
#include "tlm/gpu_config.h"

namespace {

using namespace scgpu::memsys;

struct Case {
  std::string name;
  std::uint32_t sets, ways, entries, merge;
  std::string replacement, write_policy;
  bool allocate_on_write;
  std::uint32_t pool_lines;  // distinct lines the stream touches
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name << ": " << c.sets << " sets x " << c.ways << " ways, " << c.entries << " MSHRs x " << c.merge << ", "
      << c.replacement << ", " << c.write_policy << (c.allocate_on_write ? ", allocate on write" : "");
}

scgpu::CacheParams cacheOf(const Case& c) {
  scgpu::CacheParams p;
  p.line_bytes = 128;
  p.sector_bytes = 32;
  p.associativity = c.ways;
  p.size_bytes = std::uint64_t(c.sets) * c.ways * p.line_bytes;
  p.mshr_entries = c.entries;
  p.mshr_max_merge = c.merge;
  p.replacement = c.replacement;
  p.write_policy = c.write_policy;
  p.allocate_on_write = c.allocate_on_write;
  return p;
}

std::string show(const L2TagResult& r) {
  return std::string(toString(r.outcome)) + " present=" + std::to_string(r.line_present) +
         " hit=" + std::to_string(r.hit_mask) + " miss=" + std::to_string(r.miss_mask) +
         " dram=" + std::to_string(r.dram_mask) + " mshr=" + std::to_string(r.mshr) +
         " count=" + std::to_string(r.count) + " victim=" + std::to_string(r.victim) + "/" +
         std::to_string(r.victim_line) + "/" + std::to_string(r.victim_dirty) + " error=" + std::to_string(r.error);
}

// `ops` operations of the case's stream on `rtl` and the model side by side; every result compared.
void runStream(const Case& c, L2TagMshr& rtl, std::uint64_t ops, std::map<std::string, std::uint64_t>& cover) {
  const L2TagParams p{cacheOf(c)};
  ModelL2TagMshr model(p);
  std::mt19937_64 rng(std::hash<std::string>{}(c.name));  // seeded: a failure reproduces
  // The line pool: lines spread over a few sets (conflicts, evictions) with high address bits set,
  // so the whole tag is compared.
  const std::uint32_t hot_sets = std::max<std::uint32_t>(1, c.sets / 16);
  std::vector<std::uint64_t> pool;
  for (std::uint32_t i = 0; i < c.pool_lines; ++i) {
    const std::uint64_t set = rng() % hot_sets * (c.sets / hot_sets);
    const std::uint64_t tag = (rng() % 4096) | (rng() % 4 == 0 ? (rng() & 0x1FFFFF) << 20 : 0);
    pool.push_back(((tag * c.sets + set) << 7) | (std::uint64_t(rng() % 2) << 56));
  }
  struct Read {
    std::uint64_t line;
    std::uint32_t mask;
  };
  std::vector<Read> dram;                                  // sectors asked of DRAM, not yet returned
  std::map<std::uint32_t, std::vector<L2TagRequest>> targets;  // MSHR entry -> its requests, by slot
  std::vector<L2TagRequest> updates;                       // atomics of completed entries to execute
  auto mask4 = [&] { return rng() % 2 ? 0xFu : std::uint32_t(rng() % 15 + 1); };

  for (std::uint64_t cycle = 0; cycle < ops; ++cycle) {
    L2TagRequest q;
    // Phases of 4096 operations: normal; DRAM holding its data (the MSHRs fill up); the same with
    // the requests crowded onto 8 lines (merge slots run out); normal again (the fills drain).
    const int phase = int(cycle / 4096 % 4);
    // Fills become likelier as DRAM holds more; the atomic updates of a completed entry go first.
    const bool fill = !dram.empty() && (phase == 0 || phase == 3) && rng() % (c.entries + 4) < dram.size() + 1;
    if (!updates.empty()) {
      q = updates.back();
      updates.pop_back();
    } else if (fill) {
      const std::size_t i = rng() % dram.size();
      q.op = L2TagOp::Fill;
      q.line = dram[i].line;
      if (rng() % 3 == 0) {  // one sector at a time
        q.mask = dram[i].mask & (~dram[i].mask + 1);
        dram[i].mask &= ~q.mask;
        if (!dram[i].mask) dram.erase(dram.begin() + std::ptrdiff_t(i));
      } else {
        q.mask = dram[i].mask;
        dram.erase(dram.begin() + std::ptrdiff_t(i));
      }
    } else if (rng() % 4096 == 0) {
      q = {L2TagOp::Fill, pool[rng() % pool.size()], 1};  // a stray fill: refused, nothing changes
    } else {
      const int k = int(rng() % 8);
      q.op = k < 4 ? L2TagOp::Read : k < 6 ? L2TagOp::Write : L2TagOp::Atomic;
      q.line = pool[rng() % (phase == 2 ? std::min<std::size_t>(8, pool.size()) : pool.size())];
      q.mask = mask4();
    }
    const L2TagResult want = model.operate(q, cycle);
    const L2TagResult got = rtl.operate(q, cycle);
    ASSERT_EQ(show(got), show(want)) << "cycle " << cycle << ": " << toString(q.op) << " line " << q.line << " mask "
                                     << q.mask;
    if (want.error) {
      cover["fill refused (error)"]++;
      continue;
    }
    // What the slice does with the answer.
    if ((want.outcome == L2TagOutcome::Miss || want.outcome == L2TagOutcome::Merge)) {
      if (want.dram_mask) dram.push_back({q.line, want.dram_mask});
      auto& t = targets[want.mshr];
      if (want.outcome == L2TagOutcome::Miss) t.clear();
      ASSERT_EQ(t.size(), want.count);
      t.push_back(q);
    }
    if (want.outcome == L2TagOutcome::FillDone) {
      auto& t = targets[want.mshr];
      ASSERT_EQ(t.size(), want.count);
      for (auto it = t.rbegin(); it != t.rend(); ++it)
        if (it->op == L2TagOp::Atomic) updates.push_back({L2TagOp::Update, it->line, it->mask});
      t.clear();
    }
    // Coverage.
    switch (want.outcome) {
      case L2TagOutcome::Hit: cover[q.op == L2TagOp::Write ? "write hit" : q.op == L2TagOp::Update ? "update hit"
                                                                                                    : "hit"]++;
        break;
      case L2TagOutcome::Miss: cover[want.line_present ? "sector miss (new entry)" : "line miss (new entry)"]++; break;
      case L2TagOutcome::Merge:
        cover["MSHR merge"]++;
        if (want.dram_mask) cover["merge with more sectors"]++;
        break;
      case L2TagOutcome::MshrFull: cover["MSHR full (no entry)"]++; break;
      case L2TagOutcome::MergeFull: cover["MSHR full (merge limit)"]++; break;
      case L2TagOutcome::WriteMiss: cover[want.line_present ? "write sector miss" : "write line miss"]++; break;
      case L2TagOutcome::Fill: cover["fill (entry still waiting)"]++; break;
      case L2TagOutcome::FillDone: cover["fill done"]++; break;
    }
    if (q.op == L2TagOp::Fill || (q.op == L2TagOp::Write && c.allocate_on_write && !want.line_present)) {
      // An install: into an invalid way, or over the policy's victim (clean or dirty).
      if (!want.line_present) cover[want.victim ? "install over victim" : "install into invalid way"]++;
    }
    if (want.victim) cover[want.victim_dirty ? "dirty eviction" : "clean eviction"]++;
  }
}

class RtlL2Tag : public ::testing::TestWithParam<Case> {};

TEST_P(RtlL2Tag, AnswersWhatTheModelAnswers) {
  const Case& c = GetParam();
  auto rtl = scgpu::rtl::makeRtlL2TagMshr({cacheOf(c)}, "test.l2.tags");
  std::map<std::string, std::uint64_t> cover;
  runStream(c, *rtl, scgpu::rtl::testbenchCycles(), cover);  // a million RTL clocks by default
  if (HasFatalFailure()) return;
  for (const auto& [bin, n] : cover) std::cout << "  " << bin << ": " << n << "\n";
  std::vector<std::string> bins = {"hit", "write hit", "sector miss (new entry)", "line miss (new entry)",
                                   "MSHR merge", "merge with more sectors", "MSHR full (no entry)",
                                   "MSHR full (merge limit)", "fill (entry still waiting)", "fill done",
                                   "install over victim", "install into invalid way", "clean eviction",
                                   "write sector miss", "write line miss", "fill refused (error)", "update hit"};
  if (c.write_policy == "write_back") bins.push_back("dirty eviction");
  // The functional coverage points are asserted on the full-length run (the default million);
  // scripts/rtl_coverage.sh runs shorter ($SCGPU_RTL_TB_CYCLES) for Verilator's line coverage only.
  if (scgpu::rtl::testbenchCycles() < 1'000'000) return;
  for (const auto& bin : bins) EXPECT_GT(cover[bin], 0u) << "coverage bin '" << bin << "' never hit";
}

const std::vector<Case> kCases = {
    // Small: MSHRs and merge slots run out, sets overflow often.
    Case{"small_lru_wb", 4, 2, 4, 2, "lru", "write_back", true, 24},
    Case{"small_fifo_wt", 4, 3, 6, 3, "fifo", "write_through", false, 24},
    // The presets' slices: tiny (write-through, no allocate), hopper (20 ways, 384 MSHRs), kepler
    // (merge 64, FIFO here to cover it at size).
    Case{"tiny", 128, 16, 32, 8, "lru", "write_through", false, 600},
    Case{"hopper", 256, 20, 384, 4, "lru", "write_back", true, 2400},
    Case{"kepler_fifo", 64, 16, 256, 64, "fifo", "write_back", true, 1400}};

INSTANTIATE_TEST_SUITE_P(Slices, RtlL2Tag, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// Verilator's line (block and branch) and toggle coverage of the RTL under the same streams, on a
// build with coverage points (Vl2_tag_mshr_coverage): each case's points merged, line coverage at
// least 90%. The merged data is written to l2_tag_mshr.coverage.dat in the working directory
// (`verilator_coverage --annotate DIR l2_tag_mshr.coverage.dat` shows it per source line).
TEST(RtlL2TagCoverage, LineCoverageOfTheRtlIsAtLeast90Percent) {
  std::map<std::string, std::uint64_t> points;  // coverage point -> count, over every case
  for (const Case& c : kCases) {
    const L2TagParams p{cacheOf(c)};
    scgpu::rtl::L2TagTransactor<Vl2_tag_mshr_coverage> rtl(p, SectorCache(p.cache).sets());
    std::map<std::string, std::uint64_t> cover;
    runStream(c, rtl, 50'000, cover);
    if (HasFatalFailure()) return;
    const std::string file = "l2_tag_mshr." + c.name + ".coverage.dat";
    rtl.context()->coveragep()->write(file.c_str());
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      // C '<key>' <count>
      const auto end = line.rfind("' ");
      if (line.rfind("C '", 0) != 0 || end == std::string::npos) continue;
      points[line.substr(0, end + 1)] += std::stoull(line.substr(end + 2));
    }
    std::remove(file.c_str());
  }
  // The point's type is the first part of its page: v_line/..., v_branch/..., v_toggle/...
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_type;  // type -> (hit, total)
  std::ofstream merged("l2_tag_mshr.coverage.dat");
  merged << "# SystemC::Coverage-3\n";
  for (const auto& [key, count] : points) {
    merged << key << ' ' << count << '\n';
    const auto page = key.find("page\x02v_");
    if (page == std::string::npos) continue;
    const std::string type = key.substr(page + 7, key.find('/', page) - page - 7);
    by_type[type].second++;
    if (count) by_type[type].first++;
  }
  std::uint64_t hit = 0, total = 0;
  for (const auto& [type, ht] : by_type) {
    std::printf("  %-8s %6.2f%% (%llu of %llu points)\n", type.c_str(), 100.0 * double(ht.first) / double(ht.second),
                (unsigned long long)ht.first, (unsigned long long)ht.second);
    if (type != "toggle") {
      hit += ht.first;
      total += ht.second;
    }
  }
  ASSERT_GT(total, 0u) << "no line coverage points";
  EXPECT_GE(100.0 * double(hit) / double(total), 90.0) << "line and branch coverage of rtl/l2_tag_mshr.sv";
}

// Every replacement decision, with known answers, on one set of 4 ways: an invalid way first (the
// lowest), then the least recently used (a hit moves a line to the front) or the first installed
// (hits change nothing), for a fill and for a write-allocate.
TEST(RtlL2TagReplacement, VictimsAreThePolicys) {
  for (const std::string policy : {"lru", "fifo"}) {
    Case c{policy, 1, 4, 8, 2, policy, "write_back", true, 0};
    const L2TagParams p{cacheOf(c)};
    auto rtl = scgpu::rtl::makeRtlL2TagMshr(p, "test.l2.tags");
    ModelL2TagMshr model(p);
    std::uint64_t cycle = 0;
    auto op = [&](L2TagOp o, std::uint64_t line, std::uint32_t mask) {
      const L2TagResult want = model.operate({o, line << 7, mask}, cycle);
      const L2TagResult got = rtl->operate({o, line << 7, mask}, cycle);
      EXPECT_EQ(show(got), show(want)) << policy << ", cycle " << cycle;
      ++cycle;
      return want;
    };
    auto install = [&](std::uint64_t line) {  // a read miss and its fill
      EXPECT_EQ(op(L2TagOp::Read, line, 0xF).outcome, L2TagOutcome::Miss);
      return op(L2TagOp::Fill, line, 0xF);
    };
    for (std::uint64_t line : {10, 11, 12, 13}) EXPECT_FALSE(install(line).victim) << "an invalid way first";
    EXPECT_EQ(op(L2TagOp::Read, 10, 0x1).outcome, L2TagOutcome::Hit);  // 10 most recently used
    EXPECT_EQ(op(L2TagOp::Write, 12, 0x2).outcome, L2TagOutcome::Hit);  // 12 dirty, most recent
    L2TagResult r = install(14);
    ASSERT_TRUE(r.victim);
    EXPECT_EQ(r.victim_line, (policy == "lru" ? 11u : 10u) << 7) << policy;
    // A write-allocate of an absent line evicts the next one: lru 13, fifo 11.
    r = op(L2TagOp::Write, 15, 0x4);
    EXPECT_EQ(r.outcome, L2TagOutcome::WriteMiss);
    ASSERT_TRUE(r.victim);
    EXPECT_EQ(r.victim_line, (policy == "lru" ? 13u : 11u) << 7) << policy;
    // Then lru: 10 (its hit is older than 12's write); fifo: 12, dirty.
    r = install(16);
    ASSERT_TRUE(r.victim);
    EXPECT_EQ(r.victim_line, (policy == "lru" ? 10u : 12u) << 7) << policy;
    EXPECT_EQ(r.victim_dirty, policy == "lru" ? 0u : 0x2u) << policy;
  }
}

// The copy with the planted bug (a miss of all four sectors asks DRAM for three) behind cosim.
void plantBug() {
  registerRtlL2TagMshr([](const L2TagParams& p, const std::string&) {
    const std::uint32_t sets = SectorCache(p.cache).sets();
    return std::make_unique<scgpu::rtl::L2TagTransactor<Vl2_tag_mshr_planted_bug, Vl2_tag_mshr_planted_bug_wave>>(
        p, sets);
  });
}
void unplantBug() { registerRtlL2TagMshr(scgpu::rtl::makeRtlL2TagMshr); }

// The first operation that triggers the bug is reported with its cycle and the right pin, and with
// the waveform of the operations before it (rtl-verif).
TEST(RtlL2TagCosim, ReportsThePlantedBugAtTheRightCycleAndPort) {
  const scgpu::testing::ScratchWaveDir scratch;
  plantBug();
  const L2TagParams p{cacheOf({"t", 128, 16, 32, 8, "lru", "write_back", true, 0})};
  auto cosim = makeL2TagMshr("cosim", p, "gpu.l2[1].tags");
  unplantBug();
  ModelL2TagMshr reference(p);
  std::mt19937_64 rng(11);
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const std::uint64_t cycle = 500 + 2 * i;
    const L2TagRequest q{L2TagOp::Read, (rng() % 4096) << 7, std::uint32_t(rng() % 15 + 1)};
    const L2TagResult want = reference.operate(q, cycle);
    cosim->operate(q, cycle);
    if (want.outcome != L2TagOutcome::Miss || want.dram_mask != 0xF) {
      ASSERT_EQ(cosim->divergence(), nullptr) << "operation " << i << ": " << *cosim->divergence();
      continue;
    }
    ASSERT_NE(cosim->divergence(), nullptr) << "the planted bug in operation " << i << " was not reported";
    const std::string& d = *cosim->divergence();
    EXPECT_NE(d.find("at cycle " + std::to_string(cycle) + " in gpu.l2[1].tags (rtl/l2_tag_mshr.sv), port "
                     "res_dram_mask: expected (model) 0xf, got (RTL) 0x7"),
              std::string::npos)
        << d;
    EXPECT_NE(d.find("last "), std::string::npos) << d;  // the instance's history
    scgpu::testing::expectDivergenceWaveform(
        d, (scratch.dir() / ("cosim_gpu_l2_1_tags_cycle" + std::to_string(cycle))).string(), "TOP.l2_tag_mshr_wave.",
        {"dut.present", "dut.m_free", "dut.m_found", "dut.line_vm", "res_dram_mask", "model_dram_mask", "op_line"});
    std::printf("%s\n", d.c_str());
    return;
  }
  FAIL() << "no operation triggered the planted bug";
}

// End to end: a workload in timing mode with the buggy copy in cosim stops with the divergence as
// its fault, and the command line's exit status for it is 4.
// Only slice 1 is co-simulated (`l2[1].impl`, per instance): the report names it.
TEST(RtlL2TagCosim, DivergenceStopsTheRunWithExitStatus4) {
  const scgpu::testing::ScratchWaveDir scratch;
  plantBug();
  scgpu::driver::Runtime rt(scgpu::GpuConfig::loadDefault({"l2[1].impl=cosim"}), scgpu::driver::Mode::Timing);
  const scgpu::kernels::Workload* w = scgpu::kernels::findWorkload("saxpy");
  ASSERT_NE(w, nullptr);
  w->run(rt, {});
  unplantBug();
  ASSERT_TRUE(rt.lastFault().has_value());
  const auto& f = *rt.lastFault();
  EXPECT_EQ(f.kind, "cosim divergence");
  EXPECT_NE(f.message.find("in gpu.l2[1].tags (rtl/l2_tag_mshr.sv), port res_dram_mask"), std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("waveform: "), std::string::npos) << f.message;
  EXPECT_EQ(scgpu::cli::faultExitCode(rt), scgpu::cli::kExitCosimDivergence);
  std::printf("%s\n", f.toString().c_str());
}

TEST(RtlL2TagParams, AGeometryTheRtlCannotHoldIsRefused) {
  Case c{"big", 2048, 16, 32, 8, "lru", "write_back", true, 0};
  try {
    scgpu::rtl::makeRtlL2TagMshr({cacheOf(c)}, "gpu.l2.tags");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the sets, = 2048, but the RTL tag/MSHR stage (rtl/l2_tag_mshr.sv) was built "
                                         "with SETS = 1024"),
              std::string::npos)
        << e.what();
  }
  c = {"ways", 64, 40, 32, 8, "lru", "write_back", true, 0};
  try {
    scgpu::rtl::makeRtlL2TagMshr({cacheOf(c)}, "gpu.l2.tags");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("l2.cache.associativity = 40, but the RTL tag/MSHR stage "
                                         "(rtl/l2_tag_mshr.sv) was built with WAYS = 32"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace

#endif  // SCGPU_HAVE_RTL
