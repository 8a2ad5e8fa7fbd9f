// The RTL crossbar switch allocator (rtl/xbar_arbiter.sv, round robin and fixed priority) against
// the C++ model of the same boundary: seeded random request sets per output and packets finishing,
// as the crossbar produces them, with coverage of what was exercised. Built only with SCGPU_RTL.
#include <gtest/gtest.h>

#ifdef SCGPU_HAVE_RTL

#include <map>
#include <random>
#include <string>
#include <vector>

#include "memsys/crossbar_arbiter.h"
#include "rtl/xbar_arbiter_rtl.h"
#include "rtl/verilated_block.h"

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

}  // namespace

#endif  // SCGPU_HAVE_RTL
