// The config loader and schema (tlm/config.*, tlm/gpu_params.cpp): every shipped preset loads and
// checks; `extends:` and `--set` work; each class of error names the exact file:line:col (or the
// --set text) and the key path; the effective config reloads to the same parameters; and
// docs/config.md carries the reference generated from the schema.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "memsys/dram_presets.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu {
namespace {

namespace fs = std::filesystem;

// The message of the ConfigError that `f` throws ("" if it throws none).
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string loadError(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return errorOf([&] { GpuConfig::fromString(yaml, "test.yaml", overrides); });
}

// A scratch directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("scgpu_config_test_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// The dump without its two-line comment header (which names the source).
std::string body(const std::string& dump) {
  std::istringstream in(dump);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("#", 0) != 0) out += line + "\n";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Presets.

const std::vector<std::string> kPresets{"tiny", "fermi", "kepler", "turing", "ampere", "hopper"};

TEST(ConfigPresets, EveryShippedConfigLoadsAndChecks) {
  const auto shipped = GpuConfig::shippedConfigs();
  for (const auto& name : kPresets)
    EXPECT_NE(std::find(shipped.begin(), shipped.end(), name), shipped.end()) << name << " is not shipped";
  for (const auto& name : shipped) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(GpuConfig::load(GpuConfig::resolve(name)));
  }
}

TEST(ConfigPresets, KeyFacts) {
  struct Fact {
    std::string name;
    unsigned sms, cc_major, cc_minor;
    std::uint64_t l2_total_bytes;
    std::string dram;
    double peak_gb_per_s;  // channels x bus width x transfers per clock x DRAM clock
  };
  const std::vector<Fact> facts{
      {"fermi", 15, 2, 0, 768ull << 10, "gddr5", 177.4},
      {"kepler", 14, 3, 5, 1536ull << 10, "gddr5", 249.6},
      {"turing", 68, 7, 5, 5632ull << 10, "gddr6", 616.0},
      {"ampere", 108, 8, 0, 40ull << 20, "hbm2", 1555.2},
      // The H100 has 50 MB; a stream keeps about 40 of them (docs/validation.md, "What a stream
      // keeps in the L2"), which is what the preset models.
      {"hopper", 132, 9, 0, 40ull << 20, "hbm3", 3352.3},
      {"tiny", 2, 9, 0, 512ull << 10, "hbm3", 3352.3 / 160},
  };
  for (const auto& f : facts) {
    SCOPED_TRACE(f.name);
    const GpuParams p = GpuConfig::load(GpuConfig::resolve(f.name)).params();
    EXPECT_EQ(p.sm.count, f.sms);
    EXPECT_EQ(p.cc_major, f.cc_major);
    EXPECT_EQ(p.cc_minor, f.cc_minor);
    EXPECT_EQ(std::uint64_t(p.l2.slices) * p.l2.cache.size_bytes, f.l2_total_bytes);
    EXPECT_EQ(p.dram.standard, f.dram);
    const double peak = p.dram.channels * (p.dram.bus_width_bits / 8.0) * p.dram.transfers_per_clock *
                        p.clocks.dram_clock_mhz / 1000.0;
    EXPECT_NEAR(peak, f.peak_gb_per_s, 0.1);
  }
}

TEST(ConfigPresets, TinyIsTheDefaultAndKeepsItsValues) {
  const GpuConfig c = GpuConfig::loadDefault();
  const GpuParams& p = c.params();
  EXPECT_EQ(p.name, "tiny");
  EXPECT_EQ(p.sm.count, 2u);
  EXPECT_EQ(p.l2.slices, 2u);
  EXPECT_EQ(p.dram.channels, 1u);
  EXPECT_EQ(p.cc_major, 9u);
  EXPECT_EQ(p.cc_minor, 0u);
  EXPECT_EQ(p.sm.max_threads_per_sm, 2048u);
  EXPECT_EQ(p.sm.max_warps_per_sm, 64u);
  EXPECT_EQ(p.sm.max_blocks_per_sm, 32u);
  EXPECT_EQ(p.sm.max_threads_per_block, 1024u);
  EXPECT_EQ(p.sm.registers_per_sm, 65536u);
  EXPECT_EQ(p.sm.max_registers_per_block, 65536u);
  EXPECT_EQ(p.sm.max_registers_per_thread, 255u);
  EXPECT_EQ(p.sm.shared_memory_per_sm_bytes, 233472u);
  EXPECT_EQ(p.sm.shared_memory_per_block_bytes, 49152u);
  EXPECT_EQ(p.sm.shared_memory_per_block_optin_bytes, 232448u);
  EXPECT_EQ(p.clocks.core_clock_mhz, 1755.0);
  EXPECT_EQ(p.global_size_bytes, 4294967296ull);
  EXPECT_EQ(p.constant_size_bytes, 65536u);
  EXPECT_EQ(p.limits.stack_size_bytes, 1024u);
  EXPECT_EQ(p.limits.printf_fifo_size_bytes, 1048576u);
  // The getters see the effective tree: every key, including those tiny does not write.
  EXPECT_EQ(c.getInt("sm.pipes.fp32.latency_cycles"), 4);
  EXPECT_EQ(c.getString("l2.hash"), "xor");
  EXPECT_EQ(c.getDouble("clocks.dram_clock_mhz"), 1309.5);
  EXPECT_TRUE(c.getBool("dram.refresh"));
  EXPECT_EQ(c.getInt("limits.watchdog_warp_instructions_per_block"), 1000000000);
  EXPECT_TRUE(c.has("dram.timing.tRCD"));
  EXPECT_FALSE(c.has("dram.timing.tXYZ"));
  EXPECT_EQ(GpuParams::fromConfig(c).sm.count, 2u);
}

TEST(ConfigPresets, PipeLatenciesAndIntervalsFollowTheLanes) {
  // FFMA dependent issue 4 cycles from Volta on; initiation interval = 32 / FP32 lanes per sub-core.
  EXPECT_EQ(GpuConfig::load(GpuConfig::resolve("hopper")).params().sm.pipe_fp32.initiation_interval_cycles, 1u);
  EXPECT_EQ(GpuConfig::load(GpuConfig::resolve("ampere")).params().sm.pipe_fp32.initiation_interval_cycles, 2u);
  EXPECT_EQ(GpuConfig::load(GpuConfig::resolve("turing")).params().sm.pipe_fp32.initiation_interval_cycles, 2u);
  for (const char* n : {"turing", "ampere", "hopper"})
    EXPECT_EQ(GpuConfig::load(GpuConfig::resolve(n)).params().sm.pipe_fp32.latency_cycles, 4u) << n;
  EXPECT_EQ(GpuConfig::load(GpuConfig::resolve("hopper")).params().sm.pipe_fp64.latency_cycles, 8u);
}

TEST(ConfigPresets, DramSectionStartsFromThePresetAtTheConfiguredClock) {
  const GpuParams p = GpuConfig::fromString("extends: tiny\nclocks: {dram_clock_mhz: 1000}\n"
                                         "dram: {standard: hbm2, timing: {tCL: 30}}\n")
                          .params();
  const DramParams want = memsys::dramPreset("hbm2", 1000);
  EXPECT_EQ(p.dram.standard, "hbm2");
  EXPECT_EQ(p.dram.timing.tRCD, want.timing.tRCD);
  EXPECT_EQ(p.dram.timing.tRP, want.timing.tRP);
  EXPECT_EQ(p.dram.bus_width_bits, want.bus_width_bits);
  EXPECT_EQ(p.dram.timing.tCL, 30u);  // the explicit key wins
  EXPECT_EQ(p.dram.channels, 1u);     // tiny's, over the preset's
}

// ---------------------------------------------------------------------------------------------
// extends: and --set.

TEST(ConfigExtends, ChildOverridesNestedKeysAndInheritsTheRest) {
  TempDir dir;
  dir.write("parent.yaml",
            "extends: tiny\n"
            "name: parent\n"
            "sm:\n"
            "  count: 4\n"
            "  l1:\n"
            "    hit_latency_cycles: 30\n");
  const std::string child = dir.write("child.yaml",
                                      "extends: parent\n"
                                      "name: child\n"
                                      "sm:\n"
                                      "  l1:\n"
                                      "    associativity: 8\n");
  const GpuConfig c = GpuConfig::load(child);
  const GpuParams& p = c.params();
  EXPECT_EQ(p.name, "child");
  EXPECT_EQ(p.sm.count, 4u);                  // from the parent
  EXPECT_EQ(p.sm.l1.hit_latency_cycles, 30u); // from the parent, beside the child's key
  EXPECT_EQ(p.sm.l1.associativity, 8u);       // the child's
  EXPECT_EQ(p.sm.l1.size_bytes, 32768u);      // from tiny
  EXPECT_EQ(p.sm.max_warps_per_sm, 64u);
  EXPECT_EQ(c.where("sm.count"), dir.path() + "/parent.yaml:4:10");
  EXPECT_EQ(c.where("sm.l1.associativity"), child + ":5:20");
  EXPECT_EQ(c.where("sm.pipes.fp32.latency_cycles").rfind(GpuConfig::configDir() + "/hopper.yaml:", 0), 0u);
  EXPECT_EQ(c.where("dram.timing.tRCD"), "dram preset 'hbm3' at 1309.5 MHz");
  EXPECT_EQ(c.where("limits.watchdog_warp_instructions_per_block"), "default");
}

TEST(ConfigExtends, ShippedConfigByNameFromAnywhere) {
  const GpuConfig c = GpuConfig::fromString("extends: hopper\nsm: {count: 4}\n");
  EXPECT_EQ(c.params().sm.count, 4u);
  EXPECT_EQ(c.params().l2.slices, 80u);
}

TEST(ConfigExtends, MissingParentAndCycleAreErrors) {
  EXPECT_EQ(loadError("name: x\nextends: no_such_config\n").rfind("test.yaml:2:10: error: extended config "
                                                                    "'no_such_config' not found",
                                                                    0),
            0u);
  TempDir dir;
  dir.write("a.yaml", "extends: b\n");
  dir.write("b.yaml", "extends: a\n");
  const std::string msg = errorOf([&] { GpuConfig::load(dir.path() + "/a.yaml"); });
  EXPECT_NE(msg.find("`extends:` cycle"), std::string::npos) << msg;
}

TEST(ConfigSet, OverridesNestedKeysAndMergesMappings) {
  const GpuConfig c = GpuConfig::loadDefault({"sm.count=8", "sm.pipes.fp32.latency_cycles=6",
                                        "sm.l1={size_bytes: 65536, associativity: 8}", "clocks.core_clock_mhz=1410.5",
                                        "sm.scheduler_policy=lrr", "dram.refresh=false"});
  const GpuParams& p = c.params();
  EXPECT_EQ(p.sm.count, 8u);
  EXPECT_EQ(p.sm.pipe_fp32.latency_cycles, 6u);
  EXPECT_EQ(p.sm.pipe_fp32.initiation_interval_cycles, 1u);  // untouched sibling
  EXPECT_EQ(p.sm.l1.size_bytes, 65536u);
  EXPECT_EQ(p.sm.l1.associativity, 8u);
  // The mapping merged, it did not replace: the preset's hit latency stays.
  EXPECT_EQ(p.sm.l1.hit_latency_cycles, GpuConfig::loadDefault({}).params().sm.l1.hit_latency_cycles);
  EXPECT_GT(p.sm.l1.hit_latency_cycles, 0u);
  EXPECT_EQ(p.clocks.core_clock_mhz, 1410.5);
  EXPECT_EQ(p.sm.scheduler_policy, "lrr");
  EXPECT_FALSE(p.dram.refresh);
  EXPECT_EQ(c.where("sm.count"), "--set 'sm.count=8'");
  ASSERT_EQ(c.overrides().size(), 6u);
}

TEST(ConfigSet, UnknownKeysAreRejectedWithASuggestion) {
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"sm.cout=4"}); }),
            "--set 'sm.cout=4': error: unknown key 'sm.cout'; did you mean 'count'?");
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"sm.pipes.fp32.latency=3"}); }),
            "--set 'sm.pipes.fp32.latency=3': error: unknown key 'sm.pipes.fp32.latency'; did you mean "
            "'latency_cycles'?");
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"gpu.count=4"}); }).rfind("--set 'gpu.count=4': error: unknown key 'gpu'", 0),
            0u);
}

TEST(ConfigSet, BadValuesNameTheOverride) {
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"sm.count=abc"}); }),
            "--set 'sm.count=abc': error: key 'sm.count': expected an integer, got 'abc'");
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"sm.count"}); }),
            "--set 'sm.count': error: expected key=value, e.g. sm.count=4");
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"sm.count.x=1"}); }).rfind(
                "--set 'sm.count.x=1': error: key 'sm.count' is a value (written at ", 0),
            0u);
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"sm=5"}); }),
            "--set 'sm=5': error: key 'sm': expected a mapping of keys, got '5'");
}

// ---------------------------------------------------------------------------------------------
// Each class of error, with its exact position.

TEST(ConfigErrors, UnknownKeyWithSuggestion) {
  EXPECT_EQ(loadError("extends: tiny\n"
                      "sm:\n"
                      "  pipes:\n"
                      "    fp32: {latency: 4}\n"),
            "test.yaml:4:12: error: unknown key 'sm.pipes.fp32.latency'; did you mean 'latency_cycles'?");
  EXPECT_EQ(loadError("extends: tiny\n"
                      "sm:\n"
                      "  l1:\n"
                      "    assoc: 4\n"),
            "test.yaml:4:5: error: unknown key 'sm.l1.assoc'; did you mean 'associativity'?");
  // The same name in another section.
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  hash: xor\n"),
            "test.yaml:3:3: error: unknown key 'sm.hash'; did you mean 'l2.hash'?");
  // Nothing close: the keys of a small section are listed.
  EXPECT_EQ(loadError("extends: tiny\nclocks:\n  banana: 1\n"),
            "test.yaml:3:3: error: unknown key 'clocks.banana' (the keys of 'clocks' are: core_clock_mhz, "
            "icnt_clock_mhz, dram_clock_mhz)");
}

TEST(ConfigErrors, WrongType) {
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  count: two\n"),
            "test.yaml:3:10: error: key 'sm.count': expected an integer, got 'two'");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  count: \"2\"\n"),
            "test.yaml:3:10: error: key 'sm.count': expected an integer, got the string '2'");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  count: 2.5\n"),
            "test.yaml:3:10: error: key 'sm.count': expected an integer, got '2.5'");
  EXPECT_EQ(loadError("extends: tiny\nclocks:\n  core_clock_mhz: fast\n"),
            "test.yaml:3:19: error: key 'clocks.core_clock_mhz': expected a number, got 'fast'");
  EXPECT_EQ(loadError("extends: tiny\ndram:\n  refresh: maybe\n"),
            "test.yaml:3:12: error: key 'dram.refresh': expected true or false, got 'maybe'");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  l1: 32768\n"),
            "test.yaml:3:7: error: key 'sm.l1': expected a mapping of keys, got '32768'");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  count:\n    value: 2\n"),
            "test.yaml:4:5: error: key 'sm.count': expected an integer, got a mapping");
}

TEST(ConfigErrors, OutOfRange) {
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  count: 0\n"),
            "test.yaml:3:10: error: key 'sm.count': expected an integer in [1, 1024], got 0");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  max_registers_per_thread: 300\n"),
            "test.yaml:3:29: error: key 'sm.max_registers_per_thread': expected an integer in [1, 255], got 300");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  count: -2\n"),
            "test.yaml:3:10: error: key 'sm.count': expected an integer in [1, 1024], got -2");
  EXPECT_EQ(loadError("extends: tiny\nclocks:\n  core_clock_mhz: 0\n"),
            "test.yaml:3:19: error: key 'clocks.core_clock_mhz': expected a number > 0 and <= 10000, got 0");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  scheduler_policy: rr\n"),
            "test.yaml:3:21: error: key 'sm.scheduler_policy': expected one of lrr, gto, two_level; got 'rr' "
            "(did you mean 'lrr'?)");
  EXPECT_EQ(loadError("extends: tiny\nl2:\n  hash: modulo\n"),
            "test.yaml:3:9: error: key 'l2.hash': expected one of linear, xor; got 'modulo'");
}

TEST(ConfigErrors, NotAPowerOfTwo) {
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  l1:\n    line_bytes: 96\n"),
            "test.yaml:4:17: error: key 'sm.l1.line_bytes': expected a power of two, got 96");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  shared_memory_banks: 24\n"),
            "test.yaml:3:24: error: key 'sm.shared_memory_banks': expected a power of two, got 24");
  EXPECT_EQ(loadError("extends: tiny\ndram:\n  bank_groups: 3\n"),
            "test.yaml:3:16: error: key 'dram.bank_groups': expected a power of two, got 3");
  // Out of range and not a power of two: the range says both.
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  l1:\n    line_bytes: 8\n"),
            "test.yaml:4:17: error: key 'sm.l1.line_bytes': expected a power of two in [16, 4096], got 8");
}

TEST(ConfigErrors, InconsistentCombinations) {
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  sub_cores: 3\n"),
            "test.yaml:3:14: error: key 'sm.sub_cores': sm.sub_cores (3) must divide sm.max_warps_per_sm (64): "
            "every sub-core holds the same number of warp slots");
  EXPECT_EQ(loadError("extends: tiny\nl2:\n  slices: 3\ndram:\n  channels: 2\n"),
            "test.yaml:3:11: error: key 'l2.slices': l2.slices (3) and dram.channels (2) must divide one another: "
            "each channel serves a whole number of slices, or each slice a whole number of channels");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  l1:\n    size_bytes: 49152\n"),
            "test.yaml:4:17: error: key 'sm.l1.size_bytes': sm.l1.size_bytes / (sm.l1.line_bytes x "
            "sm.l1.associativity) = 96 sets; the number of sets must be a power of two");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  l1:\n    size_bytes: 40000\n"),
            "test.yaml:4:17: error: key 'sm.l1.size_bytes': sm.l1.size_bytes (40000) is not a multiple of "
            "sm.l1.line_bytes x sm.l1.associativity (128 x 4 = 512)");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  l1:\n    sector_bytes: 256\n"),
            "test.yaml:4:19: error: key 'sm.l1.sector_bytes': sm.l1.sector_bytes (256) must divide "
            "sm.l1.line_bytes (128)");
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  max_threads_per_sm: 4096\n"),
            "test.yaml:3:23: error: key 'sm.max_threads_per_sm': sm.max_threads_per_sm (4096) needs 128 warps, "
            "more than sm.max_warps_per_sm (64)");
  EXPECT_EQ(loadError("extends: tiny\ndram:\n  write_drain_low_watermark: 192\n"),
            "test.yaml:3:30: error: key 'dram.write_drain_low_watermark': dram.write_drain_low_watermark (192) must "
            "be below dram.write_drain_high_watermark (192)");
  EXPECT_EQ(loadError("extends: tiny\ndram:\n  write_drain_high_watermark: 300\n"),
            "test.yaml:3:31: error: key 'dram.write_drain_high_watermark': dram.write_drain_high_watermark (300) "
            "exceeds dram.write_queue_entries (256)");
  EXPECT_EQ(loadError("extends: tiny\ndram:\n  bus_width_bits: 64\n"),
            "test.yaml:3:19: error: key 'dram.bus_width_bits': dram.access_bytes (32) must equal "
            "dram.bus_width_bits x dram.timing.burst_length / 8 (64 x 8 / 8 = 64)");
}

TEST(ConfigErrors, ACombinationIsBlamedOnTheOverride) {
  // tiny is consistent; the override breaks it, so the error points at the override.
  EXPECT_EQ(errorOf([] { GpuConfig::loadDefault({"sm.max_warps_per_sm=66"}); }),
            "--set 'sm.max_warps_per_sm=66': error: key 'sm.max_warps_per_sm': sm.sub_cores (4) must divide "
            "sm.max_warps_per_sm (66): every sub-core holds the same number of warp slots");
}

TEST(ConfigErrors, ErrorInAParentFileNamesTheParent) {
  TempDir dir;
  const std::string parent = dir.write("parent.yaml",
                                       "extends: tiny\n"
                                       "name: parent\n"
                                       "sm:\n"
                                       "  l1:\n"
                                       "    line_bytes: 96\n"
                                       "  frobnicate: 1\n");
  const std::string child = dir.write("child.yaml", "extends: parent.yaml\nname: child\n");
  EXPECT_EQ(errorOf([&] { GpuConfig::load(child); }),
            parent + ":6:3: error: unknown key 'sm.frobnicate' (docs/config.md lists the keys of 'sm')\n" + parent +
                ":5:17: error: key 'sm.l1.line_bytes': expected a power of two, got 96");
  // A combination made inconsistent by the child is blamed on the child, where it was broken.
  dir.write("ok_parent.yaml", "extends: tiny\nname: p\nl2:\n  slices: 4\n");
  const std::string c2 = dir.write("c2.yaml", "extends: ok_parent\nname: c\ndram:\n  channels: 3\n");
  EXPECT_EQ(errorOf([&] { GpuConfig::load(c2); }).rfind(c2 + ":4:13: error: key 'dram.channels': l2.slices (4) and "
                                                          "dram.channels (3) must divide one another",
                                                     0),
            0u);
}

TEST(ConfigErrors, MissingRequiredKeysAndStructure) {
  EXPECT_EQ(loadError("name: x\ncompute_capability: {major: 9, minor: 0}\n").rfind(
                "test.yaml: error: missing required key 'sm.count' (number of SMs)", 0),
            0u);
  EXPECT_EQ(loadError("extends: tiny\nsm:\n  count: 2\n  count: 3\n"),
            "test.yaml:4:3: error: duplicate key 'sm.count' (first written at test.yaml:3:3)");
  EXPECT_EQ(loadError("extends: tiny\nsm.count: 4\n"),
            "test.yaml:2:1: error: key 'sm.count' contains '.': write nested keys as nested mappings");
  EXPECT_EQ(loadError("- 1\n- 2\n"), "test.yaml:1:1: error: expected a mapping of config keys at the top level");
  EXPECT_EQ(loadError("extends: tiny\nsm: [1, 2\n").rfind("test.yaml:", 0), 0u);  // a YAML syntax error
}

TEST(ConfigErrors, SeveralErrorsAreAllReported) {
  const std::string msg = loadError("extends: tiny\nsm:\n  count: 0\n  sub_corez: 4\n");
  EXPECT_EQ(msg,
            "test.yaml:4:3: error: unknown key 'sm.sub_corez'; did you mean 'sub_cores'?\n"
            "test.yaml:3:10: error: key 'sm.count': expected an integer in [1, 1024], got 0");
}

// ---------------------------------------------------------------------------------------------
// The effective config.

TEST(ConfigDump, EffectiveConfigReloadsToTheSameParameters) {
  for (const auto& name : kPresets) {
    SCOPED_TRACE(name);
    const GpuConfig c = GpuConfig::load(GpuConfig::resolve(name), {"sm.count=3", "dram.timing.tCL=40"});
    const std::string dump = c.dump();
    const GpuConfig again = GpuConfig::fromString(dump, "dump.yaml");
    EXPECT_EQ(body(again.dump()), body(dump));
    const GpuParams &a = c.params(), &b = again.params();
    EXPECT_EQ(b.sm.count, 3u);
    EXPECT_EQ(b.dram.timing.tCL, 40u);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.clocks.core_clock_mhz, b.clocks.core_clock_mhz);
    EXPECT_EQ(a.clocks.dram_clock_mhz, b.clocks.dram_clock_mhz);
    EXPECT_EQ(a.sm.l1.size_bytes, b.sm.l1.size_bytes);
    EXPECT_EQ(a.l2.cache.associativity, b.l2.cache.associativity);
    EXPECT_EQ(a.dram.timing.tRCD, b.dram.timing.tRCD);
    EXPECT_EQ(a.dram.timing.tREFI, b.dram.timing.tREFI);
    EXPECT_EQ(a.limits.watchdog_warp_instructions_per_block, b.limits.watchdog_warp_instructions_per_block);
    // The dump holds every key, so a reloaded dump has no defaults left.
    EXPECT_EQ(again.where("dram.timing.tRCD").rfind("dump.yaml:", 0), 0u);
  }
}

TEST(ConfigDump, HeaderAndOrigins) {
  const GpuConfig c = GpuConfig::loadDefault({"sm.count=4"});
  const std::string plain = c.dump();
  EXPECT_NE(plain.find("# source: " + GpuConfig::configDir() + "/tiny.yaml --set sm.count=4"), std::string::npos);
  EXPECT_NE(plain.find("\n  count: 4\n"), std::string::npos);
  const std::string annotated = c.dump(true);
  EXPECT_NE(annotated.find("count: 4  # --set 'sm.count=4'"), std::string::npos);
  EXPECT_NE(annotated.find("tRCD: 20  # dram preset 'hbm3' at 1309.5 MHz"), std::string::npos);
  EXPECT_NE(annotated.find("sub_cores: 4  # " + GpuConfig::configDir() + "/hopper.yaml:"), std::string::npos);
}

TEST(ConfigDump, StringsThatLookLikeNumbersStayStrings) {
  const GpuConfig c = GpuConfig::fromString("extends: tiny\nname: \"1080\"\n");
  EXPECT_EQ(c.params().name, "1080");
  EXPECT_EQ(GpuConfig::fromString(c.dump()).params().name, "1080");
}

// ---------------------------------------------------------------------------------------------
// docs/config.md's reference is generated from the schema.

TEST(ConfigDocs, ReferenceMatchesTheSchema) {
  const std::string path = std::string(SCGPU_SOURCE_DIR) + "/docs/config.md";
  const std::string begin = "<!-- BEGIN GENERATED: GpuConfig::schemaMarkdown() -->\n";
  const std::string end = "<!-- END GENERATED -->";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  const auto b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const std::string generated = GpuConfig::schemaMarkdown();
  const std::string current = doc.substr(b + begin.size(), e - b - begin.size());
  if (current != generated && std::getenv("SCGPU_UPDATE_DOCS")) {
    doc.replace(b + begin.size(), e - b - begin.size(), generated);
    std::ofstream(path) << doc;
    return;
  }
  EXPECT_EQ(current, generated) << "docs/config.md is out of date: rerun this test with SCGPU_UPDATE_DOCS=1";
}

}  // namespace
}  // namespace scgpu
