// `scgpu stats diff` (app/stats_diff.h) on small statistics files written to a temp dir.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/stats_diff.h"

namespace scgpu::cli {
namespace {

namespace fs = std::filesystem;

class StatsDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("scgpu_stats_diff_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

const char* kBase = R"({
  "stats": {
    "counters": {"gpu.sm[0].issued": 1000, "gpu.sm[1].issued": 2000, "gpu.l2.hits": 50, "gpu.old": 7},
    "metrics": {"ipc": 1.5}
  },
  "config": {"sm": {"scheduler_policy": "gto", "count": 2}},
  "passed": true
})";

// Per line: issued[0] +100 (+10%), issued[1] +1 (+0.05%), l2.hits from 50 to 0, gpu.old removed,
// gpu.new added, ipc 1.5 -> 1.2, the policy string changed.
const char* kChanged = R"({
  "stats": {
    "counters": {"gpu.sm[0].issued": 1100, "gpu.sm[1].issued": 2001, "gpu.l2.hits": 0, "gpu.new": 5},
    "metrics": {"ipc": 1.2}
  },
  "config": {"sm": {"scheduler_policy": "lrr", "count": 2}},
  "passed": true
})";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST_F(StatsDiff, IdenticalFilesAgree) {
  const std::string a = write("a.json", kBase);
  // Same values, other order and layout; 2000 written as 2000.0.
  const std::string b = write("b.json", R"({"passed": true, "config": {"sm": {"count": 2, "scheduler_policy": "gto"}},
    "stats": {"metrics": {"ipc": 1.5}, "counters": {"gpu.old": 7, "gpu.l2.hits": 50, "gpu.sm[1].issued": 2000.0,
    "gpu.sm[0].issued": 1000}}})");
  std::ostringstream out;
  EXPECT_EQ(statsDiff(a, b, out, 0.0), 0);
  EXPECT_NE(out.str().find("no differences (8 values compared)"), std::string::npos) << out.str();
}

TEST_F(StatsDiff, ReportsChangesAdditionsAndRemovalsSortedByPath) {
  std::ostringstream out;
  EXPECT_EQ(statsDiff(write("a.json", kBase), write("b.json", kChanged), out, 0.0), 1);
  const auto l = lines(out.str());
  ASSERT_EQ(l.size(), 2u + 7u + 1u) << out.str();
  EXPECT_EQ(l[0].rfind("--- ", 0), 0u);
  EXPECT_EQ(l[1].rfind("+++ ", 0), 0u);
  // Sorted by JSON pointer.
  const char* order[] = {"/config/sm/scheduler_policy", "/stats/counters/gpu.l2.hits", "/stats/counters/gpu.new",
                         "/stats/counters/gpu.old",     "/stats/counters/gpu.sm[0].issued",
                         "/stats/counters/gpu.sm[1].issued", "/stats/metrics/ipc"};
  for (int i = 0; i < 7; ++i) EXPECT_NE(l[2 + i].find(order[i]), std::string::npos) << l[2 + i];
  EXPECT_EQ(l[2].rfind("~ ", 0), 0u);
  EXPECT_NE(l[2].find("\"gto\" -> \"lrr\""), std::string::npos) << l[2];
  EXPECT_NE(l[3].find("50 -> 0  (-50, -100.00%)"), std::string::npos) << l[3];
  EXPECT_EQ(l[4].rfind("+ ", 0), 0u);
  EXPECT_NE(l[4].find("  5"), std::string::npos) << l[4];
  EXPECT_EQ(l[5].rfind("- ", 0), 0u);
  EXPECT_NE(l[5].find("  7"), std::string::npos) << l[5];
  EXPECT_NE(l[6].find("1000 -> 1100  (+100, +10.00%)"), std::string::npos) << l[6];
  EXPECT_NE(l[7].find("2000 -> 2001  (+1, +0.05%)"), std::string::npos) << l[7];
  EXPECT_NE(l[8].find("1.5 -> 1.2  (-0.3, -20.00%)"), std::string::npos) << l[8];
  EXPECT_EQ(l[9], "7 differences: 5 changed, 1 added, 1 removed (7 values compared)");
}

TEST_F(StatsDiff, ThresholdHidesSmallRelativeChanges) {
  const std::string a = write("a.json", R"({"c": {"x": 1000, "y": 2000, "z": 0}})");
  std::ostringstream out;
  // x +10% is shown at 5%; y +0.05% is not.
  EXPECT_EQ(statsDiff(a, write("b.json", R"({"c": {"x": 1100, "y": 2001, "z": 0}})"), out, 5.0), 1);
  EXPECT_NE(out.str().find("/c/x"), std::string::npos);
  EXPECT_EQ(out.str().find("/c/y"), std::string::npos);
  EXPECT_NE(out.str().find("1 difference: 1 changed, 0 added, 0 removed (3 values compared; 1 change under 5% not "
                           "shown)"),
            std::string::npos)
      << out.str();
  // Only small changes: the files agree within the threshold.
  out.str("");
  EXPECT_EQ(statsDiff(a, write("c.json", R"({"c": {"x": 1001, "y": 2001, "z": 0}})"), out, 5.0), 0);
  // A change from 0 has no relative size and is always shown.
  out.str("");
  EXPECT_EQ(statsDiff(a, write("d.json", R"({"c": {"x": 1000, "y": 2000, "z": 3}})"), out, 50.0), 1);
  EXPECT_NE(out.str().find("0 -> 3  (+3, from 0)"), std::string::npos) << out.str();
}

TEST_F(StatsDiff, IntegersAreExactAndIgnoreSkipsPaths) {
  const std::string a =
      write("a.json", R"({"big": 18446744073709551615, "neg": -9223372036854775808, "wall_seconds": 1.5})");
  const std::string b =
      write("b.json", R"({"big": 18446744073709551614, "neg": 9223372036854775807, "wall_seconds": 2.5})");
  StatsDiffOptions opt;
  opt.ignore = {"wall_seconds"};
  std::ostringstream out;
  EXPECT_EQ(statsDiff(a, b, out, opt), 1);
  EXPECT_NE(out.str().find("18446744073709551615 -> 18446744073709551614  (-1, "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(+18446744073709551615, "), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("/wall_seconds"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("1 ignored"), std::string::npos) << out.str();
}

TEST_F(StatsDiff, UnreadableInputIsAnError) {
  const std::string good = write("good.json", kBase);
  std::ostringstream out;
  EXPECT_EQ(statsDiff((dir_ / "missing.json").string(), good, out, 0.0), 2);
  EXPECT_NE(out.str().find("missing.json: error: cannot read statistics file"), std::string::npos) << out.str();
  out.str("");
  EXPECT_EQ(statsDiff(good, write("bad.json", "{\"a\": 1,"), out, 0.0), 2);
  EXPECT_NE(out.str().find("bad.json: error: not valid JSON"), std::string::npos) << out.str();
  out.str("");
  EXPECT_EQ(statsDiff(good, write("array.json", "[1, 2]"), out, 0.0), 2);
  EXPECT_NE(out.str().find("array.json: error: the top level is not an object"), std::string::npos) << out.str();
}

// The subcommand ends the parse with CLI::RuntimeError carrying the exit status.
int runCli(std::vector<std::string> args, std::string* output) {
  CLI::App app{"scgpu"};
  app.require_subcommand(1);
  addStatsDiffCommand(app);
  std::vector<const char*> argv = {"scgpu"};
  for (const auto& a : args) argv.push_back(a.c_str());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();  // CLI11's usage messages
  int code = -1;
  try {
    app.parse(int(argv.size()), const_cast<char**>(argv.data()));
  } catch (const CLI::ParseError& e) {
    code = e.get_name() == "RuntimeError" ? e.get_exit_code() : 100 + app.exit(e);
  }
  *output = ::testing::internal::GetCapturedStdout();
  ::testing::internal::GetCapturedStderr();
  return code;
}

TEST_F(StatsDiff, CommandLine) {
  const std::string a = write("a.json", kBase), b = write("b.json", kChanged);
  std::string out;
  EXPECT_EQ(runCli({"stats", "diff", a, a}, &out), 0);
  EXPECT_NE(out.find("no differences"), std::string::npos) << out;
  EXPECT_EQ(runCli({"stats", "diff", a, b}, &out), 1);
  EXPECT_NE(out.find("7 differences"), std::string::npos) << out;
  EXPECT_EQ(runCli({"stats", "diff", a, b, "--threshold", "50", "--ignore", "config", "--ignore", "gpu."}, &out), 0);
  EXPECT_NE(out.find("no differences (2 values compared; 1 change under 50% not shown; 7 ignored)"), std::string::npos)
      << out;
  EXPECT_EQ(runCli({"stats", "diff", a, (dir_ / "none.json").string()}, &out), 2);
  // Usage errors stay CLI11's (a missing operand, a negative threshold).
  EXPECT_GT(runCli({"stats", "diff", a}, &out), 100);
  EXPECT_GT(runCli({"stats", "diff", a, b, "--threshold", "-1"}, &out), 100);
}

}  // namespace
}  // namespace scgpu::cli
