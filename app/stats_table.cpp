#include "app/stats_table.h"

#include "sm/timing/stall_reason.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "tlm/gpu_config.h"

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
  // Timing-mode launches also show their simulated cycles and time.
  const bool timed = std::any_of(launches.begin(), launches.end(), [](const auto& l) { return l.core_cycles > 0; });
  std::vector<Table::Column> cols = {{"#", A::Right}, {"kernel", A::Left}, {"grid", A::Left}, {"block", A::Left},
                                     {"warp instr", A::Right}, {"thread instr", A::Right}};
  if (timed) {
    cols.push_back({"cycles", A::Right});
    cols.push_back({"IPC", A::Right});
    cols.push_back({"sim time", A::Right});
  }
  cols.push_back({"wall", A::Right});
  cols.push_back({timed ? "KIPS" : "thread instr/s", A::Right});
  Table t(cols);
  std::uint64_t warp = 0, thread = 0, cycles = 0;
  double wall = 0, ns = 0;
  auto row = [&](std::vector<std::string> head, std::uint64_t w, std::uint64_t th, std::uint64_t cy, double sim_ns,
                 double secs) {
    head.push_back(groupDigits(w));
    head.push_back(groupDigits(th));
    if (timed) {
      head.push_back(groupDigits(cy));
      head.push_back(fmt::format("{:.2f}", cy ? double(w) / double(cy) : 0.0));
      head.push_back(fmt::format("{:.1f} us", sim_ns / 1000.0));
    }
    head.push_back(formatSeconds(secs));
    // Timing mode: thousands of warp instructions per host second, the unit simulators compare in.
    head.push_back(timed ? fmt::format("{:.1f}", secs > 0 ? double(w) / secs / 1000.0 : 0.0)
                         : formatRate(secs > 0 ? double(th) / secs : 0));
    t.addRow(head);
  };
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const auto& l = launches[i];
    row({std::to_string(i), l.kernel, formatDim(l.grid), formatDim(l.block)}, l.warp_instructions,
        l.thread_instructions, l.core_cycles, l.simulated_ns, l.wall_seconds);
    warp += l.warp_instructions;
    thread += l.thread_instructions;
    cycles += l.core_cycles;
    ns += l.simulated_ns;
    wall += l.wall_seconds;
  }
  t.addRule();
  row({"", fmt::format("total ({} launch{})", launches.size(), launches.size() == 1 ? "" : "es"), "", ""}, warp,
      thread, cycles, ns, wall);
  return t.render();
}

std::string timingSummary(const nlohmann::json& stats) {
  if (!stats.contains("components")) return "";
  const nlohmann::json& m = stats["components"]["metrics"];
  auto get = [&](const char* k) { return m.contains(k) ? m[k].get<double>() : 0.0; };
  using A = Table::Align;
  Table t({{"metric", A::Left}, {"value", A::Right}});
  t.addRow({"IPC (warp instructions per cycle, whole GPU)", fmt::format("{:.3f}", get("gpu.ipc"))});
  t.addRow({"achieved occupancy", fmt::format("{:.1f} %", get("sm__warps_active.avg.pct_of_peak_sustained_active"))});
  t.addRow({"L1 hit rate (sectors)", fmt::format("{:.1f} %", get("l1tex__t_sector_hit_rate.pct"))});
  t.addRow({"sectors per global request", fmt::format("{:.2f}", get("l1tex__t_sectors_per_request"))});
  t.addRow({"L2 hit rate (sectors)", fmt::format("{:.1f} %", get("lts__t_sector_hit_rate.pct"))});
  t.addRow({"DRAM bandwidth", fmt::format("{:.1f} GB/s ({:.1f} % of peak)", get("dram__bytes.sum.per_second") / 1e9,
                                          get("dram__throughput.avg.pct_of_peak_sustained_elapsed"))});
  t.addRow({"DRAM row-buffer hit rate", fmt::format("{:.1f} %", get("dram.row_buffer_hit_rate.pct"))});
  t.addRow({"crossbar utilisation", fmt::format("{:.1f} %", get("xbar.utilization.pct"))});
  if (get("sm__inst_executed_pipe_tensor.sum") > 0)  // a kernel with tensor-core instructions
    t.addRow({"tensor pipe utilisation (sub-core cycles)",
              fmt::format("{:.1f} %", get("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"))});
  // Where the schedulers' cycles went, one row per reason that matters.
  for (int i = 0; i < int(sm::timing::Reason::Count); ++i) {
    const sm::timing::Reason r = sm::timing::Reason(i);
    if (!sm::timing::isSchedulerReason(r)) continue;
    const double v = get((std::string("stall.") + sm::timing::toString(r) + ".pct").c_str());
    if (v >= 0.5) t.addRow({std::string("scheduler cycles: ") + sm::timing::toString(r), fmt::format("{:.1f} %", v)});
  }
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
                    {"core_cycles", l.core_cycles},
                    {"simulated_ns", l.simulated_ns},
                    {"thread_instructions_per_second",
                     l.wall_seconds > 0 ? double(l.thread_instructions) / l.wall_seconds : 0.0}});
    if (l.warm_repeat) {
      list.back()["warm_repeat"] = true;
      list.back()["event_ns"] = l.event_ns;
    }
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

}  // namespace scgpu::cli
