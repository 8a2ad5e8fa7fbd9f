// Plain-text tables for the command line (fmt), and the launch statistics in table and JSON form,
// shared by `scgpu run`, launch files and the functional benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <stdexcept>  // before runtime.h, which uses std::runtime_error without it

#include "driver/config_json.h"
#include "driver/runtime.h"

namespace YAML { class Node; }

namespace scgpu {
class GpuConfig;
}

namespace scgpu::cli {

class Table {
 public:
  enum class Align { Left, Right };
  struct Column {
    std::string header;
    Align align = Align::Left;
  };

  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // Missing cells are blank; extra cells are an error (std::invalid_argument).
  void addRow(std::vector<std::string> cells);
  // A rule under the rows so far (before a totals row).
  void addRule();
  bool empty() const { return rows_.empty(); }
  // Header, rule, rows; columns separated by two spaces; no trailing spaces.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a rule
};

// 1234567 -> "1,234,567".
std::string groupDigits(std::uint64_t value);
// Seconds with a unit that keeps 3 significant digits: "812 us", "12.3 ms", "4.56 s".
std::string formatSeconds(double seconds);
// Per second with an SI prefix: "123.4 M/s".
std::string formatRate(double per_second);
// "(256,1,1)"
std::string formatDim(const driver::Dim3& d);

// One row per launch and a totals row.
std::string launchTable(const std::vector<driver::LaunchRecord>& launches);
// The timing model's headline metrics from Runtime::statistics() (empty in functional mode).
std::string timingSummary(const nlohmann::json& stats);

// {"launches": [...], "totals": {...}}: the same numbers as launchTable, unformatted.
nlohmann::json launchesJson(const std::vector<driver::LaunchRecord>& launches);

// The effective config as JSON (driver/config_json.h).
using driver::configJson;
using driver::yamlToJson;

}  // namespace scgpu::cli
