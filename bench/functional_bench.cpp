// Simulation speed of the functional mode: runs suite workloads and reports thread instructions
// per second of wall time spent inside kernel launches (host-side setup and checks excluded).
// bench/README.md says how to run it and what the goal is.
#include "tlm/sc_entry.h"
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <stdexcept>

#include "driver/runtime.h"
#include "kernels/workload.h"
#include "app/cli.h"
#include "app/stats_table.h"
#include "tlm/gpu_config.h"

namespace {

using scgpu::cli::Table;

struct Measurement {
  std::string workload;
  bool passed = true;
  std::string message;
  std::size_t launches = 0;
  std::uint64_t thread_instructions = 0;
  std::uint64_t warp_instructions = 0;
  std::vector<double> wall_seconds;  // per repeat: sum over the launches
  double best() const {
    return wall_seconds.empty() ? 0.0 : *std::min_element(wall_seconds.begin(), wall_seconds.end());
  }
  double mips() const { return best() > 0 ? double(thread_instructions) / best() / 1e6 : 0.0; }
};

Measurement measure(const scgpu::kernels::Workload& w, const scgpu::GpuConfig& config,
                    const scgpu::kernels::WorkloadOptions& options, int repeat) {
  Measurement m;
  m.workload = w.name;
  for (int r = 0; r < repeat; ++r) {
    // A fresh device per repeat, so that every repeat does the same work from the same state.
    scgpu::driver::Runtime rt(config);
    const scgpu::kernels::WorkloadResult result = w.run(rt, options);
    rt.takePrintfOutput();  // printf workloads: the text is not the point here
    std::uint64_t threads = 0, warps = 0;
    double wall = 0;
    for (const auto& l : rt.launches()) {
      threads += l.thread_instructions;
      warps += l.warp_instructions;
      wall += l.wall_seconds;
    }
    if (r > 0 && (threads != m.thread_instructions || warps != m.warp_instructions)) {
      m.passed = false;  // the model is deterministic; different counts are a bug worth seeing
      m.message = fmt::format("instruction counts differ between repeats ({} vs {})", threads, m.thread_instructions);
    }
    m.thread_instructions = threads;
    m.warp_instructions = warps;
    m.launches = rt.launches().size();
    m.wall_seconds.push_back(wall);
    if (result.error != scgpu::driver::Error::Success || !result.passed) {
      m.passed = false;
      m.message = result.error != scgpu::driver::Error::Success
                      ? fmt::format("{}: {}", scgpu::driver::errorName(result.error), result.message)
                      : result.message;
      break;  // a failing workload's speed is not worth measuring again
    }
  }
  return m;
}

}  // namespace

// SystemC's library provides main() and calls sc_main.
int sc_main(int argc, char** argv) {
  CLI::App app{"scgpu_bench - functional-mode simulation speed on the kernel suite", "scgpu_bench"};
  std::vector<std::string> names;
  std::string config_name = "tiny";
  std::vector<std::string> overrides;
  scgpu::kernels::WorkloadOptions options;
  int repeat = 3;
  std::string json_path;
  app.add_option("WORKLOAD", names, "Workloads to run (default: the whole suite)");
  app.add_option("--scale", options.scale, "Problem size multiplier")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--repeat", repeat, "Runs per workload; the best wall time counts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--seed", options.seed, "Seed of the input data")->capture_default_str();
  app.add_option("--arch", options.arch, "Which committed PTX to run")
      ->check(CLI::IsMember({"sm_75", "sm_80", "sm_90"}))
      ->capture_default_str();
  app.add_option("-c,--config", config_name, "GPU config: a name in configs/ or a YAML path")->capture_default_str();
  app.add_option("--set", overrides, "Override a config key (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--json", json_path, "Also write the results as JSON")->type_name("FILE");
  app.footer(
      "Examples:\n"
      "  scgpu_bench                          # the whole suite, scale 1, best of 3\n"
      "  scgpu_bench saxpy sgemm_tiled reduce_tree --scale 8 --repeat 5 --json bench.json\n\n"
      "Wall time is the sum of the launches' wall_seconds: host-side setup and checks are excluded.");
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<const scgpu::kernels::Workload*> workloads;
    if (names.empty()) {
      for (const auto& w : scgpu::kernels::allWorkloads())
        if (std::find(w.archs.begin(), w.archs.end(), options.arch) != w.archs.end()) workloads.push_back(&w);
    } else {
      for (const auto& n : names) {
        const auto* w = scgpu::kernels::findWorkload(n);
        if (!w) throw scgpu::ConfigError(fmt::format("unknown workload '{}' (`scgpu list` shows the suite)", n));
        workloads.push_back(w);
      }
    }
    const scgpu::GpuConfig config = scgpu::cli::loadConfig(config_name, overrides);

    std::vector<Measurement> results;
    for (const auto* w : workloads) {
      fmt::print(stderr, "{:<16} ", w->name);
      std::fflush(stderr);
      try {
        results.push_back(measure(*w, config, options, repeat));
      } catch (const std::exception& e) {  // one broken workload must not hide the others' numbers
        Measurement m;
        m.workload = w->name;
        m.passed = false;
        m.message = e.what();
        results.push_back(m);
      }
      const auto& m = results.back();
      fmt::print(stderr, "{:>10.1f} M thread-instr/s  {}\n", m.mips(), m.passed ? "" : m.message);
    }

    using A = Table::Align;
    Table t({{"workload", A::Left}, {"launches", A::Right}, {"thread instr", A::Right}, {"warp instr", A::Right},
             {"best wall s", A::Right}, {"M thread-instr/s", A::Right}, {"passed", A::Left}});
    std::uint64_t threads = 0, warps = 0;
    double wall = 0;
    bool all_passed = true;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& m : results) {
      t.addRow({m.workload, std::to_string(m.launches), scgpu::cli::groupDigits(m.thread_instructions),
                scgpu::cli::groupDigits(m.warp_instructions), fmt::format("{:.4f}", m.best()),
                fmt::format("{:.1f}", m.mips()), m.passed ? "yes" : "NO"});
      threads += m.thread_instructions;
      warps += m.warp_instructions;
      wall += m.best();
      all_passed = all_passed && m.passed;
      rows.push_back({{"workload", m.workload},
                      {"passed", m.passed},
                      {"message", m.message},
                      {"launches", m.launches},
                      {"thread_instructions", m.thread_instructions},
                      {"warp_instructions", m.warp_instructions},
                      {"best_wall_seconds", m.best()},
                      {"wall_seconds", m.wall_seconds},
                      {"mthread_instructions_per_second", m.mips()}});
    }
    const double total_mips = wall > 0 ? double(threads) / wall / 1e6 : 0.0;
    t.addRule();
    t.addRow({"total", "", scgpu::cli::groupDigits(threads), scgpu::cli::groupDigits(warps), fmt::format("{:.4f}", wall),
              fmt::format("{:.1f}", total_mips), all_passed ? "yes" : "NO"});
    fmt::print("functional mode, config {}, arch {}, scale {}, best of {}\n\n{}", config_name, options.arch,
               options.scale, repeat, t.render());

    if (!json_path.empty()) {
      scgpu::cli::writeJsonFile(
          json_path, {{"mode", "functional"},
                      {"config", config_name},
                      {"arch", options.arch},
                      {"scale", options.scale},
                      {"seed", options.seed},
                      {"repeat", repeat},
                      {"workloads", rows},
                      {"totals",
                       {{"thread_instructions", threads},
                        {"warp_instructions", warps},
                        {"best_wall_seconds", wall},
                        {"mthread_instructions_per_second", total_mips},
                        {"passed", all_passed}}}});
    }
    return all_passed ? 0 : 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << e.what() << "\n";
    return 3;
  }
}

SCGPU_SYSTEMC_MAIN
