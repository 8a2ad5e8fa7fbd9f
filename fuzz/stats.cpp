// Fuzz target `stats`: `scgpu stats diff A B` on two JSON statistics files. The input is split at
// its first NUL byte into A and B (no NUL: A and B are the same text), which are written to
// per-process temporary files and compared by cli::statsDiff, twice (threshold 0, and 10% with
// "wall_seconds" ignored).
//
// statsDiff reports unreadable or malformed files itself (status 2, message on its stream), so no
// exception may escape it. Findings besides crashes: a status other than 0, 1 or 2; a file that
// differs from itself (status 1 without a NUL); an error message from inside nlohmann::json
// ("[json.exception.type_error...", a logic error rather than a malformed file).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "app/stats_diff.h"
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scgpu;
  static const std::string a_path = fuzz::tempPath("a.json"), b_path = fuzz::tempPath("b.json");
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const bool same = nul == std::string::npos;
  fuzz::writeFile(a_path, input.substr(0, nul));
  fuzz::writeFile(b_path, same ? input : input.substr(nul + 1));

  for (int pass = 0; pass < 2; ++pass) {
    cli::StatsDiffOptions options;
    if (pass == 1) {
      options.threshold_percent = 10;
      options.ignore = {"wall_seconds"};
    }
    std::ostringstream out;
    const int status = cli::statsDiff(a_path, same ? a_path : b_path, out, options);
    if (status < 0 || status > 2) fuzz::finding("statsDiff returned " + std::to_string(status));
    if (same && status == 1) fuzz::finding("a statistics file differs from itself:\n" + out.str());
    // A campaign may set SCGPU_FUZZ_KNOWN=json-number-overflow to look past a known finding (now
    // fixed: fuzz/regressions/stats/json-number-overflow-message-without-file.json); replays don't.
    static const bool skip_overflow = [] {
      const char* known = std::getenv("SCGPU_FUZZ_KNOWN");
      return known && std::string(known).find("json-number-overflow") != std::string::npos;
    }();
    if (status == 2 && skip_overflow && out.str().find("[json.exception.out_of_range.406]") != std::string::npos)
      continue;
    if (status == 2 && out.str().find("[json.exception.") != std::string::npos)
      fuzz::finding("an exception from nlohmann::json escaped as an error message:\n" + out.str());
  }
  std::remove(a_path.c_str());
  std::remove(b_path.c_str());
  return 0;
}
