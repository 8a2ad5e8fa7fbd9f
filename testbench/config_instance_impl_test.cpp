// Per-instance block implementations (docs/rtl-cosim.md): `sm[N].scheduler.impl` and
// `sm[N].coalescer.impl` choose model, rtl or cosim for SM N alone, from YAML or --set; a wrong
// block, impl or index is an error at its file:line:col (or --set text); the effective config
// keeps them. The choices that need the RTL are checked only where it is linked in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu {
namespace {

std::string errorOf(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    GpuConfig::fromString(yaml, "test.yaml", overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigInstanceImpl, ModelPerInstanceFromYamlAndSet) {
  // model needs no RTL, so this holds in every build.
  const GpuConfig c = GpuConfig::fromString("extends: tiny\nsm[1]:\n  coalescer:\n    impl: model\n", "test.yaml",
                                            {"sm[0].scheduler.impl=model"});
  const SmParams& sm = c.params().sm;
  EXPECT_EQ(sm.coalescer_impl_of.at(1), "model");
  EXPECT_EQ(sm.scheduler_impl_of.at(0), "model");
  EXPECT_EQ(sm.coalescerImpl(0), sm.coalescer_impl);
  // The effective config keeps them and reloads to the same choices.
  const std::string dump = c.dump();
  EXPECT_NE(dump.find("sm[0]:"), std::string::npos) << dump;
  const GpuConfig again = GpuConfig::fromString(dump, "dump.yaml");
  EXPECT_EQ(again.params().sm.coalescer_impl_of, sm.coalescer_impl_of);
  EXPECT_EQ(again.params().sm.scheduler_impl_of, sm.scheduler_impl_of);
}

TEST(ConfigInstanceImpl, ErrorsNameTheirPosition) {
  // tiny has 2 SMs.
  EXPECT_EQ(errorOf("extends: tiny\n", {"sm[2].scheduler.impl=model"}),
            "--set 'sm[2].scheduler.impl=model': error: key 'sm[2].scheduler.impl': SM index 2 is out of range: "
            "sm.count is 2 (sm[0] .. sm[1])");
  EXPECT_EQ(errorOf("extends: tiny\nsm[7]:\n  coalescer:\n    impl: model\n"),
            "test.yaml:2:1: error: key 'sm[7].coalescer.impl': SM index 7 is out of range: sm.count is 2 (sm[0] .. "
            "sm[1])");
  EXPECT_EQ(errorOf("extends: tiny\nsm[1]:\n  shceduler:\n    impl: model\n"),
            "test.yaml:3:3: error: unknown block 'shceduler' in 'sm[1].shceduler'; did you mean 'sm[1].scheduler'?");
  EXPECT_EQ(errorOf("extends: tiny\nsm[1]:\n  l1:\n    impl: model\n"),
            "test.yaml:3:3: error: unknown block 'l1' in 'sm[1].l1' (the blocks that can be chosen per SM are: "
            "scheduler, coalescer)");
  EXPECT_EQ(errorOf("extends: tiny\nsm[1]:\n  scheduler:\n    impl: rtll\n"),
            "test.yaml:4:11: error: key 'sm[1].scheduler.impl': expected one of model, rtl, cosim; got 'rtll' (did "
            "you mean 'rtl'?)");
  EXPECT_EQ(errorOf("extends: tiny\nsm[1]:\n  scheduler:\n    policy: gto\n"),
            "test.yaml:4:5: error: unknown key 'sm[1].scheduler.policy' (only 'impl' can be set per instance; the "
            "block's other keys are those of 'sm.scheduler')");
  EXPECT_EQ(errorOf("extends: tiny\n", {"sm[x].coalescer.impl=rtl"}),
            "--set 'sm[x].coalescer.impl=rtl': error: key 'sm[x]': the SM index must be a non-negative integer, got "
            "'x'");
  EXPECT_EQ(errorOf("extends: tiny\n", {"sm[1].coalescer=rtl"}),
            "--set 'sm[1].coalescer=rtl': error: key 'sm[1].coalescer': expected a mapping with 'impl', got 'rtl'");
}

#ifdef SCGPU_HAVE_RTL
TEST(ConfigInstanceImpl, RtlAndCosimForOneSm) {
  const GpuConfig c = GpuConfig::loadDefault({"sm[1].scheduler.impl=cosim", "sm[0].coalescer.impl=rtl"});
  const SmParams& sm = c.params().sm;
  EXPECT_EQ(sm.schedulerImpl(1), "cosim");
  EXPECT_EQ(sm.schedulerImpl(0), "model");
  EXPECT_EQ(sm.coalescerImpl(0), "rtl");
  EXPECT_EQ(sm.coalescerImpl(1), "model");
  // A parameter the RTL cannot honour is reported at the per-instance key.
  EXPECT_EQ(errorOf("extends: tiny\nsm:\n  l1: {line_bytes: 64}\n  icache: {line_bytes: 64}\n"
                    "  constant_cache: {line_bytes: 64}\nl2:\n  cache: {line_bytes: 64}\nsm[1]:\n  coalescer:\n"
                    "    impl: rtl\n")
                .rfind("test.yaml:10:11: error: key 'sm[1].coalescer.impl': sm.l1.line_bytes = 64, but the RTL "
                       "coalescer",
                       0),
            0u);
}
#endif

}  // namespace
}  // namespace scgpu
