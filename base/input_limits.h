// Limits on what an input file may make scgpu do before anything is simulated: how big a file it
// reads, how deep and how large a YAML or JSON document may be, and the PTX front end's limits.
// Each has a documented default (docs/robustness.md) that a user raises with
// `scgpu --limit NAME=VALUE` (or setInputLimit from C++). Limits of the simulation itself (device
// memory, call depth, instruction and cycle budgets) live in the config's `limits:` section.
//
// The limits are process-wide: every loader reads them, and the command line sets them once,
// before it loads anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scgpu {

struct InputLimits {
  std::uint64_t input_file_bytes = 256ull << 20;   // any file scgpu parses: PTX, YAML, launch files, JSON
  std::uint64_t yaml_depth = 64;                   // nesting of mappings and lists
  std::uint64_t yaml_nodes = 1000000;              // nodes after alias expansion
  std::uint64_t json_depth = 256;                  // nesting of objects and arrays
  std::uint64_t ptx_identifier_chars = 1024;       // length of one PTX identifier
  std::uint64_t ptx_statements = 10000000;         // directives and instructions in one module
  std::uint64_t ptx_registers = 1000000;           // registers declared by one function
  std::uint64_t ptx_file_index = 1000000;          // largest `.file` index
};

// The limits in force (defaults until setInputLimit changes one).
const InputLimits& inputLimits();

// Sets one limit by its name ("yaml_nodes"); throws LimitError for an unknown name or a value
// that is not a positive integer.
void setInputLimit(const std::string& name, const std::string& value);
// "NAME=VALUE", as `--limit` takes it.
void setInputLimit(const std::string& name_equals_value);
// The names and current values, in declaration order (for --help and the docs).
std::vector<std::pair<std::string, std::uint64_t>> inputLimitTable();
// Back to the defaults (tests).
void resetInputLimits();

// The message every exceeded limit gives, so that all read alike:
//   "<where>: error: <what> is <value>, above the limit <name> = <limit> (raise it with <how>)"
// `how` is e.g. "--limit yaml_nodes=N" or "--set limits.max_call_depth=N".
std::string limitMessage(const std::string& where, const std::string& what, std::uint64_t value,
                         const std::string& name, std::uint64_t limit, const std::string& how);
// The same for an input limit: `how` is "--limit NAME=N".
std::string inputLimitMessage(const std::string& where, const std::string& what, std::uint64_t value,
                              const std::string& name, std::uint64_t limit);

}  // namespace scgpu
