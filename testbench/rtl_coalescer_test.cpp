// The RTL coalescer (rtl/lsu_coalescer.sv through its transactor) against the C++ model of the same
// boundary: constrained-random accesses side by side, with functional coverage of what they
// exercised; and a copy of the RTL with a planted bug, which co-simulation must catch at the
// right access and port. Built only with the RTL blocks (SCGPU_RTL).
#include <gtest/gtest.h>

#ifdef SCGPU_HAVE_RTL

#include <fmt/format.h>

#include <algorithm>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <bitset>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vlsu_coalescer.h"
#include "Vlsu_coalescer_planted_bug.h"
#include "Vlsu_coalescer_planted_bug_wave.h"
#include "rtl/coalescer_rtl.h"
#include "rtl/verilated_block.h"
#include "rtl/coalescer_transactor.h"
#include "rtl_wave_check.h"
#include "sm/fault.h"
#include "sm/timing/coalescer.h"
#include "app/cli.h"
#include "kernels/workload.h"
#include "tlm/gpu_config.h"

namespace {

using namespace scgpu::sm::timing;

const CoalescerParams kParams{128, 32};

// A warp's access as the functional core hands it to the LSU: aligned to its width.
struct Access {
  std::uint32_t mask = 0, bytes = 4;
  std::array<std::uint64_t, 32> addr{};
};

// Access patterns a GPU sees: unit stride, strided, a few hot lines, broadcast, scattered.
Access randomAccess(std::mt19937_64& rng) {
  Access a;
  const std::uint32_t widths[] = {1, 2, 4, 8, 16};
  a.bytes = widths[rng() % 5];
  switch (rng() % 5) {
    case 0: a.mask = 0xFFFFFFFFu; break;
    case 1: a.mask = std::uint32_t(rng()); break;
    case 2: a.mask = 1u << (rng() % 32); break;
    case 3: a.mask = 0; break;
    default: a.mask = std::uint32_t(rng()) & std::uint32_t(rng()); break;
  }
  const std::uint64_t base = (0x7000'0000'0000ull + (rng() % (1ull << 30))) & ~std::uint64_t(a.bytes - 1);
  const int pattern = int(rng() % 5);
  const std::uint64_t stride = a.bytes << (rng() % 6);
  for (int lane = 0; lane < 32; ++lane) {
    std::uint64_t x = 0;
    switch (pattern) {
      case 0: x = base + std::uint64_t(lane) * a.bytes; break;                  // unit stride
      case 1: x = base + std::uint64_t(lane) * stride; break;                   // strided
      case 2: x = base + (rng() % 512); break;                                  // a few hot lines
      case 3: x = base; break;                                                  // broadcast
      default: x = 0x7000'0000'0000ull + (rng() % (1ull << 34)); break;        // scattered
    }
    a.addr[std::size_t(lane)] = x & ~std::uint64_t(a.bytes - 1);
  }
  return a;
}

TEST(RtlCoalescer, MatchesTheModelOnConstrainedRandomAccesses) {
  scgpu::rtl::CoalescerTransactor<Vlsu_coalescer> rtl("test.coalescer");
  ModelCoalescer model(kParams);
  std::mt19937_64 rng(20261124);  // seeded: a failure reproduces
  std::map<std::string, std::uint64_t> cover;
  std::vector<LineAccess> want, got;
  int i = 0;
  const std::uint64_t cycles = scgpu::rtl::testbenchCycles();
  for (; rtl.cycles() < cycles; ++i) {  // at least a million RTL cycles side by side (by default)
    const Access a = randomAccess(rng);
    const LaneAccesses in{a.mask, a.bytes, a.addr.data(), std::uint64_t(i)};
    want.clear();
    got.clear();
    model.coalesce(in, want);
    rtl.coalesce(in, got);
    ASSERT_EQ(got.size(), want.size()) << "access " << i;
    for (std::size_t k = 0; k < want.size(); ++k) {
      ASSERT_EQ(got[k].line, want[k].line) << "access " << i << " line " << k;
      ASSERT_EQ(got[k].sectors, want[k].sectors) << "access " << i << " line " << k;
    }
    // Functional coverage: how many lines, full lines, single sectors, empty accesses, widths.
    cover[want.empty() ? "no lane" : want.size() == 1 ? "one line" : want.size() == 32 ? "32 lines" : "2-31 lines"]++;
    for (const auto& l : want) cover[std::bitset<4>(l.sectors).count() == 4 ? "full line" : "partial line"]++;
    cover["width " + std::to_string(a.bytes)]++;
  }
  EXPECT_GT(std::uint64_t(i), cycles / 100);
  for (const char* bin : {"no lane", "one line", "2-31 lines", "32 lines", "full line", "partial line", "width 1",
                          "width 2", "width 4", "width 8", "width 16"})
    EXPECT_GT(cover[bin], 0u) << "coverage bin '" << bin << "' never hit";
}

// At the pins, as a block-level testbench drives it (the transactor never idles the block and
// always takes its lines at once): idle cycles between accesses, and out_ready low at random, so
// every line waits a while; the lines must still be the model's, in order, with out_last on the
// last one.
TEST(RtlCoalescer, PinLevelIdleCyclesAndBackPressure) {
  scgpu::rtl::VerilatedBlock<Vlsu_coalescer> top("lsu_coalescer");
  top->clk = 0;
  top->rst_n = 0;
  top->in_valid = 0;
  top->out_ready = 0;
  top->eval();
  top.tick();
  top->rst_n = 1;
  top->eval();
  ModelCoalescer model(kParams);
  std::mt19937_64 rng(424242);  // seeded: a failure reproduces
  std::vector<LineAccess> want;
  std::uint64_t stalls = 0, idles = 0;
  const std::uint64_t accesses = std::max<std::uint64_t>(scgpu::rtl::testbenchCycles() / 100, 1000);
  for (std::uint64_t n = 0; n < accesses; ++n) {
    const Access a = randomAccess(rng);
    for (int k = int(rng() % 3); k > 0; --k, ++idles) top.tick();  // idle cycles, in_valid low
    ASSERT_TRUE(top->in_ready) << "access " << n;
    top->in_valid = 1;
    top->in_mask = a.mask;
    top->in_bytes = a.bytes & 0x1F;
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint64_t x = (a.mask >> lane) & 1 ? a.addr[std::size_t(lane)] : 0;
      top->in_addr[2 * lane] = std::uint32_t(x);
      top->in_addr[2 * lane + 1] = std::uint32_t(x >> 32);
    }
    top->eval();
    top.tick();
    top->in_valid = 0;
    want.clear();
    model.coalesce(LaneAccesses{a.mask, a.bytes, a.addr.data(), n}, want);
    std::size_t got = 0;
    for (int guard = 0; guard < 1000 && !(got == want.size() && top->in_ready); ++guard) {
      top->out_ready = rng() % 3 != 0;
      top->eval();
      if (top->out_valid && top->out_ready) {
        ASSERT_LT(got, want.size()) << "access " << n;
        EXPECT_EQ(top->out_line, want[got].line) << "access " << n << " line " << got;
        EXPECT_EQ(top->out_sectors, want[got].sectors) << "access " << n << " line " << got;
        EXPECT_EQ(bool(top->out_last), got + 1 == want.size()) << "access " << n << " line " << got;
        ++got;
      } else if (top->out_valid) {
        ++stalls;
      }
      top.tick();
    }
    ASSERT_EQ(got, want.size()) << "access " << n;
    top->out_ready = 0;
  }
  EXPECT_GT(stalls, 0u);
  EXPECT_GT(idles, 0u);
}

using scgpu::testing::ScratchWaveDir;

// A copy of the RTL with a planted bug (a line touched in sectors 0 and 3 loses sector 3) behind
// the cosim boundary: the first access that triggers it is reported with its cycle and port.
TEST(RtlCoalescer, CosimReportsThePlantedBugAtTheRightAccessAndPort) {
  namespace fs = std::filesystem;
  const fs::path wave_dir = fs::temp_directory_path() / ("scgpu_cosim_wave_" + std::to_string(::getpid()));
  fs::remove_all(wave_dir);
  fs::create_directories(wave_dir);
  ::setenv("SCGPU_COSIM_WAVE_DIR", wave_dir.c_str(), 1);
  registerRtlCoalescer([](const CoalescerParams&, const std::string& instance) {
    return std::make_unique<scgpu::rtl::CoalescerTransactor<Vlsu_coalescer_planted_bug, Vlsu_coalescer_planted_bug_wave>>(instance);
  });
  auto cosim = makeCoalescer("cosim", kParams, "gpu.sm[0].coalescer");
  ModelCoalescer reference(kParams);
  std::mt19937_64 rng(7);
  std::vector<LineAccess> lines, ref;
  for (int i = 0; i < 1000; ++i) {
    const Access a = randomAccess(rng);
    const std::uint64_t cycle = 1000 + 3 * std::uint64_t(i);
    const LaneAccesses in{a.mask, a.bytes, a.addr.data(), cycle};
    // Where the planted bug must show, from the model's lines: the first line with sectors 0 and 3.
    ref.clear();
    reference.coalesce(in, ref);
    int bad = -1;
    for (std::size_t k = 0; k < ref.size() && bad < 0; ++k)
      if ((ref[k].sectors & 0x9u) == 0x9u) bad = int(k);
    lines.clear();
    if (bad < 0) {
      ASSERT_NO_THROW(cosim->coalesce(in, lines)) << "access " << i;
      continue;
    }
    try {
      cosim->coalesce(in, lines);
      FAIL() << "the planted bug in access " << i << " was not reported";
    } catch (const scgpu::sm::FaultSignal& s) {
      EXPECT_EQ(s.kind, "cosim divergence");
      EXPECT_NE(s.message.find("at cycle " + std::to_string(cycle) + " in gpu.sm[0].coalescer"), std::string::npos)
          << s.message;
      EXPECT_NE(s.message.find("port out (line " + std::to_string(bad) + " of the access)"), std::string::npos)
          << s.message;
      EXPECT_NE(s.message.find(fmt::format("expected (model) line 0x{:x} sectors {:#x}", ref[std::size_t(bad)].line,
                                           ref[std::size_t(bad)].sectors)),
                std::string::npos)
          << s.message;
      EXPECT_NE(s.message.find("got (RTL) line"), std::string::npos) << s.message;
      EXPECT_NE(s.message.find("last "), std::string::npos) << s.message;  // the instance's history
      // The waveform of the window before it (rtl-verif): FST with the RTL's internal signals and
      // the model's, and a .gtkw that opens it (its dump file is the FST beside it, and every
      // signal it shows is in the FST).
      const std::string stem = (wave_dir / ("cosim_gpu_sm_0_coalescer_cycle" + std::to_string(cycle))).string();
      EXPECT_NE(s.message.find("waveform: " + stem + ".fst (RTL cycles "), std::string::npos) << s.message;
      EXPECT_NE(s.message.find("view: gtkwave " + stem + ".gtkw"), std::string::npos) << s.message;
      ASSERT_TRUE(fs::exists(stem + ".fst"));
      ASSERT_TRUE(fs::exists(stem + ".gtkw"));
      const std::set<std::string> sigs = scgpu::testing::fstSignals(stem + ".fst");
      for (const char* want : {"TOP.lsu_coalescer_wave.dut.pending_q", "TOP.lsu_coalescer_wave.dut.state_q",
                               "TOP.lsu_coalescer_wave.dut.line_mask", "TOP.lsu_coalescer_wave.model_line",
                               "TOP.lsu_coalescer_wave.model_sectors", "TOP.lsu_coalescer_wave.out_sectors",
                               "TOP.lsu_coalescer_wave.mismatch"})
        EXPECT_TRUE(sigs.count(want)) << want << " is not in " << stem << ".fst";
      std::ifstream g(stem + ".gtkw");
      std::stringstream text;
      text << g.rdbuf();
      const std::string fst_name = fs::path(stem + ".fst").filename().string();
      EXPECT_NE(text.str().find("[dumpfile] \"" + fst_name + "\""), std::string::npos) << text.str();
      int shown = 0;
      for (std::string line; std::getline(text, line);) {
        if (line.rfind("TOP.", 0) != 0) continue;
        ++shown;
        EXPECT_TRUE(sigs.count(line.substr(0, line.find('[')))) << line << " (in the .gtkw) is not in the FST";
      }
      EXPECT_GT(shown, 10);
      fs::remove_all(wave_dir);
      ::unsetenv("SCGPU_COSIM_WAVE_DIR");
      return;
    }
  }
  FAIL() << "no access triggered the planted bug";
}

// End to end: a workload in timing mode with the buggy copy in cosim stops with the divergence as
// its fault, and the command line's exit status for it is 4.
TEST(RtlCoalescer, DivergenceStopsTheRunWithExitStatus4) {
  const ScratchWaveDir scratch;  // scripts/cosim_screenshot.sh chooses its own
  registerRtlCoalescer([](const CoalescerParams&, const std::string& instance) {
    return std::make_unique<scgpu::rtl::CoalescerTransactor<Vlsu_coalescer_planted_bug, Vlsu_coalescer_planted_bug_wave>>(instance);
  });
  scgpu::driver::Runtime rt(scgpu::GpuConfig::loadDefault({"sm.coalescer.impl=cosim"}), scgpu::driver::Mode::Timing);
  const scgpu::kernels::Workload* w = scgpu::kernels::findWorkload("saxpy");
  ASSERT_NE(w, nullptr);
  const auto result = w->run(rt, {});
  ASSERT_TRUE(rt.lastFault().has_value());
  const auto& f = *rt.lastFault();
  EXPECT_EQ(f.kind, "cosim divergence");
  EXPECT_NE(f.message.find("coalescer (rtl/lsu_coalescer.sv), port out"), std::string::npos) << f.message;
  EXPECT_GT(f.cycle, 0u);
  EXPECT_EQ(scgpu::cli::faultExitCode(rt), scgpu::cli::kExitCosimDivergence);
  EXPECT_NE(f.message.find("waveform: "), std::string::npos) << f.message;
  std::printf("%s\n", f.toString().c_str());
}

// Per instance: with only SM 1's coalescer in cosim (`sm[1].coalescer.impl=cosim`), the buggy copy
// runs there alone, and the divergence names that instance (SM 0, which gets the first block, is
// not co-simulated).
TEST(RtlCoalescer, PerInstanceCosimChecksOnlyThatSm) {
  const ScratchWaveDir scratch;
  registerRtlCoalescer([](const CoalescerParams&, const std::string& instance) {
    return std::make_unique<scgpu::rtl::CoalescerTransactor<Vlsu_coalescer_planted_bug, Vlsu_coalescer_planted_bug_wave>>(instance);
  });
  scgpu::driver::Runtime rt(scgpu::GpuConfig::loadDefault({"sm[1].coalescer.impl=cosim"}),
                            scgpu::driver::Mode::Timing);
  const scgpu::kernels::Workload* w = scgpu::kernels::findWorkload("saxpy");
  ASSERT_NE(w, nullptr);
  w->run(rt, {});
  ASSERT_TRUE(rt.lastFault().has_value());
  const auto& f = *rt.lastFault();
  EXPECT_EQ(f.kind, "cosim divergence");
  EXPECT_NE(f.message.find("in gpu.sm[1].coalescer (rtl/lsu_coalescer.sv)"), std::string::npos) << f.message;
}

TEST(RtlCoalescer, ParametersTheRtlCannotHonourAreRefused) {
  try {
    scgpu::rtl::makeRtlCoalescer(CoalescerParams{64, 32}, "x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sm.l1.line_bytes = 64, but the RTL coalescer (rtl/lsu_coalescer.sv) was "
                                         "built with LINE_BYTES = 128"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace

#endif  // SCGPU_HAVE_RTL
