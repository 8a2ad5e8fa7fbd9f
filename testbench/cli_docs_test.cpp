// docs/cli.md against the binary: every option that `--help` lists is described on the page, every
// option the page's tables describe exists, and the defaults the page states are the binary's.
#include <gtest/gtest.h>

#include "testbench/test_util.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.h"
#include "base/input_limits.h"

namespace {

using scgpu::test::readFile;

// The help text of `scgpu ARGS... --help`, as the binary prints it.
std::string helpOf(std::vector<std::string> args) {
  args.insert(args.begin(), "scgpu");
  args.push_back("--help");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  const int rc = scgpu::cli::main(int(argv.size()), argv.data());
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  return out;
}

std::set<std::string> longOptions(const std::string& text) {
  std::set<std::string> out;
  const std::regex re("(^|[^a-z-])(--[a-z][a-z-]*)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.insert((*it)[2]);
  return out;
}

// The option column of the page's tables: lines "| `--opt ...` | ...".
std::set<std::string> documentedOptions(const std::string& page) {
  std::set<std::string> out;
  std::istringstream in(page);
  std::string line;
  const std::regex cell("^\\| `(-[a-z], )?(--[a-z][a-z-]*)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, cell)) out.insert(m[2]);
  return out;
}

const std::string kPage = std::string(SCGPU_SOURCE_DIR) + "/docs/cli.md";

TEST(CliDocs, EveryOptionOfTheBinaryIsDocumented) {
  const std::string page = readFile(kPage);
  ASSERT_FALSE(page.empty());
  const std::set<std::string> documented = documentedOptions(page);
  for (const auto& cmd : std::vector<std::vector<std::string>>{{}, {"run"}, {"stats", "diff"}, {"list"}, {"serve"}, {"exec"}})
    for (const auto& opt : longOptions(helpOf(cmd)))
      EXPECT_TRUE(documented.count(opt)) << opt << " (of `scgpu " << (cmd.empty() ? "" : cmd[0]) << "`) is not in a table of docs/cli.md";
}

TEST(CliDocs, EveryDocumentedOptionExists) {
  std::set<std::string> real;
  for (const auto& cmd : std::vector<std::vector<std::string>>{{}, {"run"}, {"stats", "diff"}, {"list"}, {"serve"}, {"exec"}})
    for (const auto& opt : longOptions(helpOf(cmd))) real.insert(opt);
  for (const auto& opt : documentedOptions(readFile(kPage)))
    EXPECT_TRUE(real.count(opt)) << opt << " is documented in docs/cli.md but the binary has no such option";
}

TEST(CliDocs, DefaultsMatchTheBinary) {
  const std::string page = readFile(kPage);
  const std::string run_help = helpOf({"run"});
  // The binary prints its defaults as OPTION ...=VALUE; the page's tables say the same.
  EXPECT_NE(run_help.find("{timing,functional}=timing"), std::string::npos) << run_help;
  EXPECT_NE(page.find("| `--mode timing\\|functional` | `timing` |"), std::string::npos);
  EXPECT_NE(run_help.find("--config NAME|PATH=tiny"), std::string::npos) << run_help;
  EXPECT_NE(page.find("| `-c, --config NAME\\|PATH` | `tiny` |"), std::string::npos);
  EXPECT_NE(run_help.find("--fault-trace-cycles UINT=2000"), std::string::npos) << run_help;
  EXPECT_NE(page.find("| `--fault-trace-cycles N` | 2000 |"), std::string::npos);
  // The input limits' defaults, from the code that enforces them.
  for (const auto& [name, value] : scgpu::inputLimitTable())
    EXPECT_NE(page.find("| `" + name + "` | " + std::to_string(value)), std::string::npos)
        << name << " = " << value << " is not what docs/cli.md says";
}

}  // namespace
