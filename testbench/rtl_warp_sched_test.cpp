// The RTL warp-scheduler arbiter (rtl/warp_sched_arbiter.sv, one build per policy) against the C++
// model of the same boundary, on seeded constrained-random streams of warps joining, leaving and
// being picked with random statuses, with functional coverage of what they exercised. Built only
// with the RTL blocks (SCGPU_RTL).
#include <gtest/gtest.h>

#ifdef SCGPU_HAVE_RTL

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "rtl/warp_sched_rtl.h"
#include "rtl_wave_check.h"
#include "rtl/verilated_block.h"
#include "sm/sm_params.h"
#include "sm/timing/warp_scheduler.h"

namespace {

using namespace scgpu::sm::timing;

struct Case {
  std::string policy;
  std::uint32_t sub_cores, sub_core, warps, active;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.policy << ", " << c.warps << " warps, sub-core " << c.sub_core << " of " << c.sub_cores << ", active "
      << c.active;
}

class RtlWarpScheduler : public ::testing::TestWithParam<Case> {};

TEST_P(RtlWarpScheduler, PicksWhatTheModelPicks) {
  const Case& c = GetParam();
  SchedulerParams sp;
  sp.policy = c.policy;
  sp.sub_cores = c.sub_cores;
  sp.sub_core = c.sub_core;
  sp.warps_per_sub_core = c.warps;
  sp.two_level_active_warps = c.active;
  auto rtl = scgpu::rtl::makeRtlWarpScheduler(sp, "test.sched");
  scgpu::SmParams mp;
  mp.scheduler_policy = c.policy;
  mp.two_level_active_warps = c.active;
  auto model = WarpScheduler::make(mp);

  std::mt19937_64 rng(std::hash<std::string>{}(c.policy) ^ c.warps);  // seeded: a failure reproduces
  std::vector<std::uint32_t> warps;  // live slots, launch order, as the SM keeps them
  std::vector<Reason> status(std::size_t(c.warps) * c.sub_cores, Reason::Idle);
  std::vector<std::uint32_t> free_locals;
  for (std::uint32_t l = 0; l < c.warps; ++l) free_locals.push_back(l);
  const Reason reasons[] = {Reason::Ready, Reason::Ready, Reason::Ready, Reason::LongScoreboard, Reason::Barrier,
                            Reason::ShortScoreboard, Reason::NoInstruction, Reason::Wait, Reason::MathPipeThrottle};
  std::map<std::string, std::uint64_t> cover;
  std::uint64_t rtl_clocks = 0;  // one per add, remove and pick
  const std::uint64_t clocks = scgpu::rtl::testbenchCycles();  // a million by default
  for (std::uint64_t cycles = 0; rtl_clocks < clocks; ++cycles) {
    // Warps join (a block arrives: several at once) and leave (they exit).
    if (!free_locals.empty() && rng() % 8 == 0) {
      const std::size_t n = 1 + rng() % std::min<std::size_t>(free_locals.size(), 4);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t pick = rng() % free_locals.size();
        const std::uint32_t slot = free_locals[pick] * c.sub_cores + c.sub_core;
        free_locals.erase(free_locals.begin() + long(pick));
        warps.push_back(slot);
        model->add(slot);
        rtl->add(slot);
        ++rtl_clocks;
      }
      cover["add"]++;
    }
    if (!warps.empty() && rng() % 10 == 0) {
      const std::size_t i = rng() % warps.size();
      const std::uint32_t slot = warps[i];
      warps.erase(warps.begin() + long(i));
      free_locals.push_back(slot / c.sub_cores);
      model->remove(slot);
      rtl->remove(slot);
      ++rtl_clocks;
      cover["remove"]++;
    }
    if (warps.empty()) continue;
    // Statuses change slowly (a warp waiting stays waiting for a while), as in the SM.
    for (std::uint32_t s : warps)
      if (rng() % 4 == 0) status[s] = reasons[rng() % (sizeof reasons / sizeof reasons[0])];
    const int want = model->pick(warps, status);
    const int got = rtl->pick(warps, status);
    ++rtl_clocks;
    ASSERT_EQ(got, want) << c.policy << ": cycle " << cycles << ", " << warps.size() << " warps";
    if (want >= 0) {
      model->issued(warps[std::size_t(want)]);
      rtl->issued(warps[std::size_t(want)]);
      cover[warps.size() == c.warps ? "grant, all warps live" : "grant"]++;
    } else {
      cover["no grant"]++;
    }
  }
  for (const char* bin : {"add", "remove", "grant", "grant, all warps live", "no grant"})
    EXPECT_GT(cover[bin], 0u) << c.policy << ": coverage bin '" << bin << "' never hit";
}

INSTANTIATE_TEST_SUITE_P(Policies, RtlWarpScheduler,
                         ::testing::Values(Case{"lrr", 2, 1, 24, 8}, Case{"gto", 1, 0, 32, 8},
                                           Case{"two_level", 4, 0, 16, 4}, Case{"two_level", 2, 1, 24, 8}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return i.param.policy + "_" + std::to_string(i.param.warps) + "w_" +
                                  std::to_string(i.param.active) + "a";
                         });

// rtl-verif: a divergence's waveform. The RTL of another policy (gto) behind an lrr model in cosim
// must diverge (lrr moves on after an issue, gto stays); the report then names an FST holding the
// RTL's internal signals and the model's grant, and a .gtkw showing only signals that are in it.
TEST(RtlWarpSchedulerParams, CosimDivergenceComesWithAWaveform) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("scgpu_sched_wave_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("SCGPU_COSIM_WAVE_DIR", dir.c_str(), 1);
  registerRtlWarpScheduler([](const SchedulerParams& p, const std::string& instance) {
    SchedulerParams other = p;
    other.policy = "gto";
    return scgpu::rtl::makeRtlWarpScheduler(other, instance);
  });
  SchedulerParams sp;
  sp.policy = "lrr";
  sp.sub_cores = 2;
  sp.sub_core = 1;
  sp.warps_per_sub_core = 16;
  auto cosim = makeWarpScheduler("cosim", sp, "gpu.sm[2].sched[1]");
  std::vector<std::uint32_t> warps;
  std::vector<Reason> status(32, Reason::Ready);
  for (std::uint32_t l = 0; l < 4; ++l) {
    warps.push_back(l * 2 + 1);
    cosim->add(warps.back());
  }
  for (int i = 0; i < 10 && !cosim->divergence(); ++i) {
    const int k = cosim->pick(warps, status);
    if (k >= 0) cosim->issued(warps[std::size_t(k)]);
  }
  registerRtlWarpScheduler(scgpu::rtl::makeRtlWarpScheduler);
  ASSERT_NE(cosim->divergence(), nullptr);
  const std::string& msg = *cosim->divergence();
  EXPECT_NE(msg.find("port grant"), std::string::npos) << msg;
  const std::string stem = (dir / "cosim_gpu_sm_2_sched_1_pick2").string();
  EXPECT_NE(msg.find("waveform: " + stem + ".fst"), std::string::npos) << msg;
  ASSERT_TRUE(fs::exists(stem + ".fst")) << msg;
  ASSERT_TRUE(fs::exists(stem + ".gtkw"));
  const auto sigs = scgpu::testing::fstSignals(stem + ".fst");
  for (const char* want : {"TOP.warp_sched_arbiter_wave.dut.live_q", "TOP.warp_sched_arbiter_wave.dut.last_q",
                           "TOP.warp_sched_arbiter_wave.model_idx", "TOP.warp_sched_arbiter_wave.mismatch"})
    EXPECT_TRUE(sigs.count(want)) << want;
  std::ifstream g(stem + ".gtkw");
  int shown = 0;
  for (std::string line; std::getline(g, line);) {
    if (line.rfind("TOP.", 0) != 0) continue;
    ++shown;
    EXPECT_TRUE(sigs.count(line.substr(0, line.find('[')))) << line << " (in the .gtkw) is not in the FST";
  }
  EXPECT_GT(shown, 10);
  fs::remove_all(dir);
  ::unsetenv("SCGPU_COSIM_WAVE_DIR");
}

TEST(RtlWarpSchedulerParams, MoreWarpsThanTheRtlWasBuiltForAreRefused) {
  SchedulerParams sp;
  sp.warps_per_sub_core = 64;
  try {
    scgpu::rtl::makeRtlWarpScheduler(sp, "gpu.sm.sched");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("64 warps per scheduler, but the RTL arbiter (rtl/warp_sched_arbiter.sv) was "
                                         "built with NUM_WARPS = 32"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace

#endif  // SCGPU_HAVE_RTL
