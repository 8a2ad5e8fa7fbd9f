// Per-instance block implementations (docs/rtl-cosim.md): `sm[N].scheduler.impl` and
// `sm[N].coalescer.impl` choose model, rtl or cosim for SM N alone, `l2[J].impl` for slice J's
// tag/MSHR stage, `dram[C].impl` for channel C's command scheduler, and `crossbar.request.impl` /
// `crossbar.response.impl` for one network's switch allocator, from YAML or --set; a wrong block,
// impl or index is an error at its file:line:col (or --set text); the effective config keeps them.
// The choices that need the RTL are checked only where it is linked in.
#include <gtest/gtest.h>

#include <map>
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

TEST(ConfigInstanceImpl, SlicesAndChannelsFromYamlAndSet) {
  // hopper: 80 slices, 160 channels (model needs no RTL, so this holds in every build).
  const GpuConfig c = GpuConfig::fromString("extends: hopper\nl2[79]:\n  impl: model\ndram[3]: {impl: model}\n",
                                            "test.yaml", {"dram[159].impl=model", "l2[0].impl=model"});
  const GpuParams& p = c.params();
  EXPECT_EQ(p.l2.impl_of, (std::map<std::uint32_t, std::string>{{0, "model"}, {79, "model"}}));
  EXPECT_EQ(p.dram.impl_of, (std::map<std::uint32_t, std::string>{{3, "model"}, {159, "model"}}));
  EXPECT_EQ(p.l2.implOf(5), p.l2.impl);
  const std::string dump = c.dump();
  EXPECT_NE(dump.find("l2[79]:"), std::string::npos) << dump;
  EXPECT_NE(dump.find("dram[159]:"), std::string::npos) << dump;
  const GpuConfig again = GpuConfig::fromString(dump, "dump.yaml");
  EXPECT_EQ(again.params().l2.impl_of, p.l2.impl_of);
  EXPECT_EQ(again.params().dram.impl_of, p.dram.impl_of);
}

TEST(ConfigInstanceImpl, SliceAndChannelErrorsNameTheirPosition) {
  // tiny has 2 slices and 1 channel.
  EXPECT_EQ(errorOf("extends: tiny\n", {"l2[2].impl=model"}),
            "--set 'l2[2].impl=model': error: key 'l2[2].impl': L2 slice index 2 is out of range: l2.slices is 2 "
            "(l2[0] .. l2[1])");
  EXPECT_EQ(errorOf("extends: tiny\ndram[1]:\n  impl: model\n"),
            "test.yaml:2:1: error: key 'dram[1].impl': DRAM channel index 1 is out of range: dram.channels is 1 "
            "(dram[0] .. dram[0])");
  EXPECT_EQ(errorOf("extends: tiny\nl2[1]:\n  impl: rtll\n"),
            "test.yaml:3:9: error: key 'l2[1].impl': expected one of model, rtl, cosim; got 'rtll' (did you mean "
            "'rtl'?)");
  EXPECT_EQ(errorOf("extends: tiny\n", {"dram[0].impl=cosmi"}),
            "--set 'dram[0].impl=cosmi': error: key 'dram[0].impl': expected one of model, rtl, cosim; got 'cosmi'");
  EXPECT_EQ(errorOf("extends: tiny\nl2[0]:\n  cache:\n    impl: rtl\n"),
            "test.yaml:3:3: error: unknown key 'l2[0].cache' (only 'impl' can be set per instance; the L2 slice's "
            "other keys are those of 'l2')");
  EXPECT_EQ(errorOf("extends: tiny\n", {"dram[-1].impl=rtl"}),
            "--set 'dram[-1].impl=rtl': error: key 'dram[-1]': the DRAM channel index must be a non-negative integer, "
            "got '-1'");
  EXPECT_EQ(errorOf("extends: tiny\n", {"l2[0]=rtl"}),
            "--set 'l2[0]=rtl': error: key 'l2[0]': expected a mapping with 'impl', got 'rtl'");
}

TEST(ConfigInstanceImpl, EachCrossbarNetworkFollowsCrossbarImplUnlessSet) {
  const GpuParams a = GpuConfig::fromString("extends: tiny\n", "test.yaml").params();
  EXPECT_EQ(a.crossbar.request_impl, "model");
  EXPECT_EQ(a.crossbar.response_impl, "model");
  EXPECT_EQ(errorOf("extends: tiny\ncrossbar:\n  request:\n    impl: rtll\n"),
            "test.yaml:4:11: error: key 'crossbar.request.impl': expected one of model, rtl, cosim; got 'rtll' "
            "(did you mean 'rtl'?)");
  EXPECT_EQ(errorOf("extends: tiny\ncrossbar:\n  responce:\n    impl: rtl\n"),
            "test.yaml:3:3: error: unknown key 'crossbar.responce'; did you mean 'response'?");
}

#ifdef SCGPU_HAVE_RTL
TEST(ConfigInstanceImpl, RtlForOneSliceChannelOrNetwork) {
  const GpuConfig c = GpuConfig::loadDefault(
      {"l2[1].impl=cosim", "dram[0].impl=rtl", "crossbar.impl=rtl", "crossbar.response.impl=cosim"});
  const GpuParams& p = c.params();
  EXPECT_EQ(p.l2.implOf(1), "cosim");
  EXPECT_EQ(p.l2.implOf(0), "model");
  EXPECT_EQ(p.dram.implOf(0), "rtl");
  // The request network follows crossbar.impl; the response network has its own.
  EXPECT_EQ(p.crossbar.request_impl, "rtl");
  EXPECT_EQ(p.crossbar.response_impl, "cosim");
  // A geometry the RTL cannot hold is reported at the per-instance key.
  EXPECT_EQ(errorOf("extends: tiny\nl2:\n  cache: {associativity: 64, size_bytes: 1048576}\nl2[1]:\n  impl: rtl\n")
                .rfind("test.yaml:5:9: error: key 'l2[1].impl': gpu.l2.tags: l2.cache.associativity = 64, but the RTL "
                       "tag/MSHR stage",
                       0),
            0u);
  EXPECT_EQ(errorOf("extends: tiny\ndram: {read_queue_entries: 512}\ndram[0]:\n  impl: cosim\n")
                .rfind("test.yaml:4:9: error: key 'dram[0].impl': gpu.dram.scheduler: dram.read_queue_entries = 512, "
                       "but the RTL scheduler",
                       0),
            0u);
  // More slices than the RTL allocator has ports: the response network's own key is blamed.
  EXPECT_EQ(errorOf("extends: tiny\n", {"l2.slices=512", "crossbar.response.impl=rtl"})
                .rfind("--set 'crossbar.response.impl=rtl': error: key 'crossbar.response.impl': gpu.xbar.response_arbiter: "
                       "512 inputs",
                       0),
            0u);
}

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
