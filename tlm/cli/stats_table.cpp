#include "tlm/cli/stats_table.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "tlm/config.h"

namespace scgpu::cli {

void Table::addRow(std::vector<std::string> cells) {
  if (cells.size() > columns_.size())
    throw std::invalid_argument(fmt::format("table row has {} cells for {} columns", cells.size(), columns_.size()));
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void Table::addRule() { rows_.emplace_back(); }

std::string Table::render() const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].header.size();
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c) out += "  ";
      if (columns_[c].align == Align::Right)
        out += fmt::format("{:>{}}", cells[c], width[c]);
      else
        out += fmt::format("{:<{}}", cells[c], width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::size_t total_width = 0;
  for (std::size_t c = 0; c < columns_.size(); ++c) total_width += width[c] + (c ? 2 : 0);
  const std::string rule = std::string(total_width, '-') + "\n";

  std::vector<std::string> headers;
  for (const auto& col : columns_) headers.push_back(col.header);
  std::string out = line(headers) + rule;
  for (const auto& row : rows_) out += row.empty() ? rule : line(row);
  return out;
}

std::string groupDigits(std::uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string formatSeconds(double s) {
  if (s <= 0) return "0 s";
  const char* unit = "s";
  if (s < 1e-3) { s *= 1e6; unit = "us"; }
  else if (s < 1) { s *= 1e3; unit = "ms"; }
  const int decimals = s >= 100 ? 0 : s >= 10 ? 1 : 2;
  return fmt::format("{:.{}f} {}", s, decimals, unit);
}

std::string formatRate(double r) {
  if (!std::isfinite(r) || r <= 0) return "-";
  const char* prefix = "";
  if (r >= 1e9) { r /= 1e9; prefix = "G"; }
  else if (r >= 1e6) { r /= 1e6; prefix = "M"; }
  else if (r >= 1e3) { r /= 1e3; prefix = "k"; }
  return fmt::format("{:.1f} {}/s", r, prefix);
}

std::string formatDim(const driver::Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

std::string launchTable(const std::vector<driver::LaunchRecord>& launches) {
  using A = Table::Align;
  Table t({{"#", A::Right}, {"kernel", A::Left}, {"grid", A::Left}, {"block", A::Left},
           {"warp instr", A::Right}, {"thread instr", A::Right}, {"wall", A::Right},
           {"thread instr/s", A::Right}});
  std::uint64_t warp = 0, thread = 0;
  double wall = 0;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const auto& l = launches[i];
    t.addRow({std::to_string(i), l.kernel, formatDim(l.grid), formatDim(l.block), groupDigits(l.warp_instructions),
              groupDigits(l.thread_instructions), formatSeconds(l.wall_seconds),
              formatRate(l.wall_seconds > 0 ? double(l.thread_instructions) / l.wall_seconds : 0)});
    warp += l.warp_instructions;
    thread += l.thread_instructions;
    wall += l.wall_seconds;
  }
  t.addRule();
  t.addRow({"", fmt::format("total ({} launch{})", launches.size(), launches.size() == 1 ? "" : "es"), "", "",
            groupDigits(warp), groupDigits(thread), formatSeconds(wall),
            formatRate(wall > 0 ? double(thread) / wall : 0)});
  return t.render();
}

nlohmann::json launchesJson(const std::vector<driver::LaunchRecord>& launches) {
  auto dim = [](const driver::Dim3& d) { return nlohmann::json::array({d.x, d.y, d.z}); };
  nlohmann::json list = nlohmann::json::array();
  std::uint64_t warp = 0, thread = 0;
  double wall = 0;
  for (const auto& l : launches) {
    list.push_back({{"kernel", l.kernel},
                    {"grid", dim(l.grid)},
                    {"block", dim(l.block)},
                    {"warp_instructions", l.warp_instructions},
                    {"thread_instructions", l.thread_instructions},
                    {"wall_seconds", l.wall_seconds},
                    {"thread_instructions_per_second",
                     l.wall_seconds > 0 ? double(l.thread_instructions) / l.wall_seconds : 0.0}});
    warp += l.warp_instructions;
    thread += l.thread_instructions;
    wall += l.wall_seconds;
  }
  return {{"launches", list},
          {"totals",
           {{"launches", launches.size()},
            {"warp_instructions", warp},
            {"thread_instructions", thread},
            {"wall_seconds", wall},
            {"thread_instructions_per_second", wall > 0 ? double(thread) / wall : 0.0}}}};
}

namespace {
// YAML 1.2 core-schema reading of a plain scalar.
nlohmann::json plainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  const char* begin = s.c_str();
  char* end = nullptr;
  // Decimal, or hexadecimal with 0x (a leading 0 is not octal in YAML 1.2).
  const bool hex = s.rfind("0x", 0) == 0 || s.rfind("-0x", 0) == 0;
  const int base = hex ? 16 : 10;
  errno = 0;
  if (s[0] == '-') {
    long long v = std::strtoll(begin, &end, base);
    if (*end == '\0' && errno == 0) return v;
  } else {
    unsigned long long v = std::strtoull(begin, &end, base);
    if (*end == '\0' && errno == 0 && s[0] != '+') return v;
  }
  errno = 0;
  double d = std::strtod(begin, &end);
  if (!hex && *end == '\0' && errno == 0 && std::isfinite(d)) return d;
  return s;
}
}  // namespace

nlohmann::json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) obj[kv.first.Scalar()] = yamlToJson(kv.second);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(yamlToJson(item));
      return arr;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?".
      return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : plainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

nlohmann::json configJson(const Config& config) { return yamlToJson(YAML::Load(config.dump())); }

}  // namespace scgpu::cli
