#include "base/input_limits.h"

#include <fmt/format.h>

#include <stdexcept>

#include "base/errors.h"

namespace scgpu {
namespace {

InputLimits& mutableLimits() {
  static InputLimits limits;
  return limits;
}

struct Field {
  const char* name;
  std::uint64_t InputLimits::*member;
};
constexpr Field kFields[] = {
    {"input_file_bytes", &InputLimits::input_file_bytes},
    {"yaml_depth", &InputLimits::yaml_depth},
    {"yaml_nodes", &InputLimits::yaml_nodes},
    {"json_depth", &InputLimits::json_depth},
    {"ptx_identifier_chars", &InputLimits::ptx_identifier_chars},
    {"ptx_statements", &InputLimits::ptx_statements},
    {"ptx_registers", &InputLimits::ptx_registers},
    {"ptx_file_index", &InputLimits::ptx_file_index},
};

}  // namespace

const InputLimits& inputLimits() { return mutableLimits(); }

void setInputLimit(const std::string& name, const std::string& value) {
  for (const auto& f : kFields) {
    if (name != f.name) continue;
    std::uint64_t v = 0;
    bool ok = !value.empty() && value.size() <= 19;
    for (char c : value) ok = ok && c >= '0' && c <= '9';
    if (ok) v = std::stoull(value);
    if (!ok || v == 0)
      throw LimitError(fmt::format("--limit {}={}: error: expected a positive integer (at most 19 digits)", name, value));
    mutableLimits().*(f.member) = v;
    return;
  }
  std::string names;
  for (const auto& f : kFields) names += std::string(names.empty() ? "" : ", ") + f.name;
  throw LimitError(fmt::format("--limit {}={}: error: unknown limit '{}' (known: {})", name, value, name, names));
}

void setInputLimit(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw LimitError(fmt::format("--limit {}: error: expected NAME=VALUE, e.g. yaml_nodes=5000000", text));
  setInputLimit(text.substr(0, eq), text.substr(eq + 1));
}

std::vector<std::pair<std::string, std::uint64_t>> inputLimitTable() {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& f : kFields) out.emplace_back(f.name, inputLimits().*(f.member));
  return out;
}

void resetInputLimits() { mutableLimits() = InputLimits{}; }

std::string limitMessage(const std::string& where, const std::string& what, std::uint64_t value,
                         const std::string& name, std::uint64_t limit, const std::string& how) {
  return fmt::format("{}: error: {} is {}, above the limit {} = {} (raise it with {})", where, what, value, name,
                     limit, how);
}

std::string inputLimitMessage(const std::string& where, const std::string& what, std::uint64_t value,
                              const std::string& name, std::uint64_t limit) {
  return limitMessage(where, what, value, name, limit, fmt::format("--limit {}=N", name));
}

}  // namespace scgpu
