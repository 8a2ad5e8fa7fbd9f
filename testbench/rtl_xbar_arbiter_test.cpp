// The RTL crossbar switch allocator (rtl/xbar_arbiter.sv, round robin and fixed priority) against
// the C++ model of the same boundary: seeded random request sets per output and packets finishing,
// as the crossbar produces them, with coverage of what was exercised. Built only with SCGPU_RTL.
#include <gtest/gtest.h>

#ifdef SCGPU_HAVE_RTL

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vxbar_arbiter_rr_planted_bug.h"
#include "Vxbar_arbiter_rr_planted_bug_wave.h"
#include "app/cli.h"
#include "driver/runtime.h"
#include "kernels/workload.h"
#include "memsys/crossbar_arbiter.h"
#include "rtl/verilated_block.h"
#include "rtl/xbar_arbiter_rtl.h"
#include "rtl/xbar_arbiter_transactor.h"
#include "rtl_wave_check.h"
#include "tlm/gpu_config.h"

namespace {

using namespace scgpu::memsys;

struct Case {
  std::uint32_t inputs, outputs;
  bool round_robin;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.inputs << " inputs, " << c.outputs << " outputs, " << (c.round_robin ? "round robin" : "fixed priority");
}

class RtlXbarArbiter : public ::testing::TestWithParam<Case> {};

TEST_P(RtlXbarArbiter, GrantsWhatTheModelGrants) {
  const Case& c = GetParam();
  const ArbiterParams p{c.inputs, c.outputs, c.round_robin};
  auto rtl = scgpu::rtl::makeRtlCrossbarArbiter(p, "test.xbar");
  ModelArbiter model(p);
  std::mt19937_64 rng(c.inputs * 1000 + c.outputs + (c.round_robin ? 1 : 0));  // seeded: a failure reproduces
  std::vector<std::uint64_t> req((c.inputs + 63) / 64);
  std::map<std::string, std::uint64_t> cover;
  const std::uint64_t ops = scgpu::rtl::testbenchCycles();  // a million by default
  for (std::uint64_t op = 0; op < ops; ++op) {
    const std::uint32_t o = std::uint32_t(rng() % c.outputs);
    // Requests: none, one, a few, most, every input (a hot slice).
    std::fill(req.begin(), req.end(), 0);
    const int kind = int(rng() % 5);
    for (std::uint32_t i = 0; i < c.inputs; ++i) {
      const bool on = kind == 0 ? false : kind == 1 ? i == rng() % c.inputs : kind == 2 ? rng() % 16 == 0
                      : kind == 3 ? rng() % 4 != 0 : true;
      if (on) req[i / 64] |= std::uint64_t(1) << (i % 64);
    }
    const std::uint32_t want = model.grant(o, req, op);
    const std::uint32_t got = rtl->grant(o, req, op);
    ASSERT_EQ(got, want) << "operation " << op << ", output " << o;
    if (want == CrossbarArbiter::kNone) {
      cover["no request"]++;
      continue;
    }
    cover["grant"]++;
    if (want == 0) cover["input 0 granted"]++;
    if (want == c.inputs - 1) cover["last input granted"]++;
    model.done(o, want);
    rtl->done(o, want);
  }
  for (const char* bin : {"no request", "grant", "input 0 granted", "last input granted"})
    EXPECT_GT(cover[bin], 0u) << "coverage bin '" << bin << "' never hit";
}

INSTANTIATE_TEST_SUITE_P(Networks, RtlXbarArbiter,
                         ::testing::Values(Case{132, 80, true}, Case{80, 132, true}, Case{2, 2, true},
                                           Case{64, 8, false}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::to_string(i.param.inputs) + "x" + std::to_string(i.param.outputs) +
                                  (i.param.round_robin ? "_rr" : "_fixed");
                         });

TEST(RtlXbarArbiterParams, MorePortsThanTheRtlWasBuiltForAreRefused) {
  try {
    scgpu::rtl::makeRtlCrossbarArbiter({300, 8, true}, "gpu.xbar.request_arbiter");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("300 inputs and 8 outputs (sm.count and l2.slices), but the RTL switch "
                                         "allocator (rtl/xbar_arbiter.sv) was built with N_IN = N_OUT = 256"),
              std::string::npos)
        << e.what();
  }
}

// The copy with the planted bug (the pointer stays on the input just served) behind cosim.
void plantBug() {
  registerRtlCrossbarArbiter([](const ArbiterParams&, const std::string&) {
    return std::make_unique<
        scgpu::rtl::XbarArbiterTransactor<Vxbar_arbiter_rr_planted_bug, Vxbar_arbiter_rr_planted_bug_wave>>();
  });
}
void unplantBug() { registerRtlCrossbarArbiter(scgpu::rtl::makeRtlCrossbarArbiter); }

// The report names the first grant where the bug shows, which the test knows from the model
// alone: an output's last served input requests again beside another one (the model moves past
// it, the buggy copy takes it again); with the waveform of the operations before it (rtl-verif).
TEST(RtlXbarArbiterCosim, ReportsThePlantedBugAtTheRightCycleAndPort) {
  const scgpu::testing::ScratchWaveDir scratch;
  plantBug();
  const ArbiterParams p{8, 4, true};
  auto cosim = makeCrossbarArbiter("cosim", p, "gpu.xbar.request_arbiter");
  unplantBug();
  ModelArbiter reference(p);
  std::vector<std::uint32_t> last_served(p.outputs, CrossbarArbiter::kNone);
  std::mt19937_64 rng(5);
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const std::uint64_t cycle = 200 + i;
    const std::uint32_t o = std::uint32_t(rng() % p.outputs);
    const std::vector<std::uint64_t> req{rng() % 256};
    const std::uint32_t want = reference.grant(o, req, cycle);
    const std::uint32_t d = last_served[o];
    const bool shows = d != CrossbarArbiter::kNone && (req[0] >> d & 1) && __builtin_popcountll(req[0]) > 1;
    EXPECT_EQ(cosim->grant(o, req, cycle), want) << "cosim drives the crossbar with the model's grant";
    if (!shows) {
      ASSERT_EQ(cosim->divergence(), nullptr) << "grant " << i << ": " << *cosim->divergence();
      if (want != CrossbarArbiter::kNone && rng() % 4 != 0) {  // the packet leaves (or is still in flight)
        reference.done(o, want);
        cosim->done(o, want);
        last_served[o] = want;
      }
      continue;
    }
    ASSERT_NE(cosim->divergence(), nullptr) << "the planted bug at grant " << i << " was not reported";
    const std::string& m = *cosim->divergence();
    EXPECT_NE(m.find("RTL and model differ at cycle " + std::to_string(cycle) +
                     " in gpu.xbar.request_arbiter (rtl/xbar_arbiter.sv), port gnt of output " + std::to_string(o) +
                     ": expected (model) input " + std::to_string(want) + ", got (RTL) input " + std::to_string(d)),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("last "), std::string::npos) << m;  // the instance's history
    scgpu::testing::expectDivergenceWaveform(
        m, (scratch.dir() / ("cosim_gpu_xbar_request_arbiter_cycle" + std::to_string(cycle))).string(),
        "TOP.xbar_arbiter_wave.", {"dut.ptr_q", "dut.ptr", "dut.above", "gnt_idx", "model_idx", "req", "done_in"});
    std::printf("%s\n", m.c_str());
    return;
  }
  FAIL() << "the planted bug never showed";
}

// End to end, and per network: with only the request network's allocator in cosim
// (`crossbar.request.impl`), saxpy stops with the divergence as its fault, naming that network,
// and the command line's exit status for it is 4.
TEST(RtlXbarArbiterCosim, DivergenceStopsTheRunWithExitStatus4) {
  const scgpu::testing::ScratchWaveDir scratch;
  plantBug();
  scgpu::driver::Runtime rt(scgpu::GpuConfig::loadDefault({"crossbar.request.impl=cosim"}),
                            scgpu::driver::Mode::Timing);
  unplantBug();
  const scgpu::kernels::Workload* w = scgpu::kernels::findWorkload("saxpy");
  ASSERT_NE(w, nullptr);
  w->run(rt, {});
  ASSERT_TRUE(rt.lastFault().has_value());
  const auto& f = *rt.lastFault();
  EXPECT_EQ(f.kind, "cosim divergence");
  EXPECT_NE(f.message.find("in gpu.xbar.request_arbiter (rtl/xbar_arbiter.sv), port gnt of output"),
            std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("waveform: "), std::string::npos) << f.message;
  EXPECT_EQ(scgpu::cli::faultExitCode(rt), scgpu::cli::kExitCosimDivergence);
  std::printf("%s\n", f.toString().c_str());
}

}  // namespace

#endif  // SCGPU_HAVE_RTL
