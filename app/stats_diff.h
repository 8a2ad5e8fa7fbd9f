// `scgpu stats diff A.json B.json`: what changed between two statistics files written by
// `scgpu run --stats-json`. Every leaf of the two JSON documents is named by its JSON pointer
// ("/stats/counters/gpu.sm[0].issued", "/launches/0/warp_instructions") and compared:
// - numbers by value (5 and 5.0 are equal), reported with the absolute and relative change;
// - strings, booleans and nulls by equality (a config string that changed is a difference);
// - a pointer present in only one file is reported as added (only in B) or removed (only in A).
// Lines are sorted by pointer, then a summary line follows.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace scgpu::cli {

struct StatsDiffOptions {
  // Numeric changes whose relative change is below this many percent are neither shown nor
  // counted as differences (a change from 0 is always shown). 0 shows every change.
  double threshold_percent = 0;
  // Leaves whose pointer contains any of these substrings are skipped (e.g. "wall_seconds" and
  // "per_second", which measure the host, not the model).
  std::vector<std::string> ignore;
};

// Exit status: 0 when the files agree (within the threshold), 1 when they differ, 2 when a file
// cannot be read or is not a JSON object (the error is written to `out`).
int statsDiff(const std::string& a_path, const std::string& b_path, std::ostream& out,
              const StatsDiffOptions& options);
int statsDiff(const std::string& a_path, const std::string& b_path, std::ostream& out, double threshold_percent);

// Adds `stats diff A B [--threshold PCT] [--ignore SUBSTRING]...` to `app` (creating the `stats`
// subcommand if `app` has none). Its callback runs statsDiff() on std::cout and ends the parse by
// throwing CLI::RuntimeError carrying statsDiff's exit status (0, 1 or 2); CLI::App::exit(e) and
// e.get_exit_code() return that status without printing anything. CLI::RuntimeError is a
// CLI::ParseError, so the caller's `catch (const CLI::ParseError& e)` around app.parse() receives
// it: return e.get_exit_code() for it to keep 1 (different) apart from 2 (error).
void addStatsDiffCommand(CLI::App& app);

}  // namespace scgpu::cli
