// `scgpu run`: a suite workload (kernels/) or a launch file, on a runtime built from the config;
// then the verdict, the statistics table and, if asked, the JSON report.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <iostream>

#include "kernels/workload.h"
#include "app/spawn.h"
#include "app/cli.h"
#include "base/run_control.h"
#include "tlm/trace/tracer.h"

#include <CLI/CLI.hpp>
#include "app/launch_file.h"
#include "app/stats_table.h"
#include "tlm/gpu_config.h"

namespace scgpu::cli {
namespace {

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string unknownWorkloadMessage(const std::string& name) {
  const kernels::Workload* best = nullptr;
  std::size_t best_distance = 4;  // suggest only close names
  for (const auto& w : kernels::allWorkloads()) {
    const std::size_t d = editDistance(name, w.name);
    if (d < best_distance) {
      best = &w;
      best_distance = d;
    }
  }
  std::string msg = fmt::format("unknown workload '{}'", name);
  if (best) msg += fmt::format("; did you mean '{}'?", best->name);
  return msg + " (`scgpu list` shows the suite; a launch file must end in .yaml or .yml)";
}

void printPrintf(const std::string& text) {
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (text.back() != '\n') std::fputc('\n', stdout);
}

// The JSON report common to workloads and launch files.
nlohmann::json report(const RunOptions& o, const GpuConfig& config, const driver::Runtime& rt, bool passed,
                      int exit_code) {
  nlohmann::json j = launchesJson(rt.launches());
  j["passed"] = passed;
  j["exit_code"] = exit_code;
  j["mode"] = o.mode;
  j["config_source"] = config.sourceName();
  j["config"] = configJson(config);
  j["stats"] = rt.statistics();
  // --stats-interval: the time series at the top level, where `scgpu report` looks for it.
  if (j["stats"].contains("components") && j["stats"]["components"].contains("samples")) {
    j["samples"] = j["stats"]["components"]["samples"];
    j["stats"]["components"].erase("samples");
  }
  return j;
}

}  // namespace

TraceOptions traceOptions(const RunOptions& o) {
  TraceOptions t;
  t.path = o.trace;
  t.timeline_path = o.timeline;
  t.host_trace_path = o.host_trace;
  t.mmio_log_path = o.mmio_log;
  t.filters = trace::PathFilter::split(o.trace_filter);
  if (!o.trace_window.empty()) {
    // START:END, each a plain decimal number of core cycles or empty; nothing else is accepted.
    const std::string bad = "expected START:END in core cycles (decimal, either may be empty, START <= END), "
                            "e.g. 1000:5000";
    const auto colon = o.trace_window.find(':');
    if (colon == std::string::npos || o.trace_window.find(':', colon + 1) != std::string::npos)
      throw CLI::ValidationError("--trace-window", bad);
    auto number = [&](const std::string& text, std::uint64_t& out) {
      if (text.empty()) return;
      if (text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
        throw CLI::ValidationError("--trace-window", bad);
      out = std::stoull(text);
    };
    number(o.trace_window.substr(0, colon), t.window_start);
    number(o.trace_window.substr(colon + 1), t.window_end);
    if (t.window_start > t.window_end) throw CLI::ValidationError("--trace-window", bad);
  }
  return t;
}

namespace {
// After a fault or watchdog in timing mode, the same simulation is re-run with a waveform of the
// last cycles before it: the model is deterministic, so the re-run reaches the same state.
void traceFault(const RunOptions& o, const driver::Runtime& rt) {
  if (o.mode != "timing" || !o.trace.empty() || o.fault_trace_cycles == 0 || !rt.lastFault()) return;
  // Not after Ctrl-C or the wall-clock timeout: the re-run would take as long again.
  if (run_control::stopRequested() != run_control::Stop::None) return;
  const std::uint64_t end = rt.lastFault()->cycle + 1;
  if (end <= 1) return;
  const std::uint64_t start = end > o.fault_trace_cycles ? end - o.fault_trace_cycles : 0;
  std::string stem = std::filesystem::path(o.target).stem().string();
  const std::string file = "scgpu-fault-" + stem + ".vcd";
  // An argument vector through posix_spawn: no shell sees the file name or the --set values.
  std::vector<std::string> argv{selfExecutable(), "run", "--mode", "timing", "--quiet",
                                "--config", o.config, "--fault-trace-cycles", "0"};
  for (const auto& s : o.overrides) argv.insert(argv.end(), {"--set", s});
  if (!isLaunchFile(o.target))
    argv.insert(argv.end(), {"--arch", o.arch, "--scale", std::to_string(o.scale), "--seed", std::to_string(o.seed)});
  argv.insert(argv.end(), {"--trace", file, "--trace-window", fmt::format("{}:{}", start, end)});
  if (!o.trace_filter.empty()) argv.insert(argv.end(), {"--trace-filter", o.trace_filter});
  argv.insert(argv.end(), {"--", o.target});  // a name that starts with '-' is still the target
  if (spawnAndWait(argv, /*silence=*/true) >= 0 && std::filesystem::exists(file))
    fmt::print(stderr, "scgpu: waveform of the last {} cycles before the fault: {} (open: gtkwave {})\n",
               end - start, file, std::filesystem::path(file).replace_extension(".gtkw").string());
}

// Closes the traces of a run and says where they are.
void reportTraces(driver::Runtime& rt, bool quiet) {
  for (const auto& f : rt.closeTraces())
    if (!quiet) fmt::print("wrote {}\n", f);
}
}  // namespace

int runWorkload(const RunOptions& o) {
  const kernels::Workload* w = kernels::findWorkload(o.target);
  if (!w) throw ConfigError(unknownWorkloadMessage(o.target));
  if (std::find(w->archs.begin(), w->archs.end(), o.arch) == w->archs.end())
    throw ConfigError(fmt::format("workload '{}' has no PTX for {} (it has: {})", w->name, o.arch,
                                  fmt::join(w->archs, ", ")));

  const GpuConfig config = loadConfig(o.config, o.overrides);
  driver::Runtime rt(config, driver::modeFromName(o.mode), traceOptions(o));
  rt.setWarmRepeats(o.warm_repeats);
  if (!o.quiet)
    fmt::print("{}: {} [config {}, {}, scale {}, seed {}, {}]\n", w->name, w->description, o.config, o.arch, o.scale, o.seed, o.mode);
  std::fflush(stdout);

  kernels::WorkloadOptions wo;
  wo.scale = o.scale;
  wo.seed = o.seed;
  wo.arch = o.arch;
  const kernels::WorkloadResult result = w->run(rt, wo);
  printPrintf(rt.printfLog());

  int code;
  std::string verdict;
  if (result.error != driver::Error::Success) {
    // A workload's launches are right by construction, so a refused launch means the config (or
    // --set) left the device too small for it: an input error, not a fault.
    const bool fault = isKernelFault(result.error) || rt.lastFault();
    code = fault ? faultExitCode(rt) : kExitInputError;
    verdict = !fault ? "ERROR" : code == kExitCosimDivergence ? "DIVERGED" : "FAULT";
    printLaunchError(rt, result.error);
    traceFault(o, rt);
  } else {
    code = result.passed ? kExitOk : kExitCheckFailed;
    verdict = result.passed ? "PASSED" : "FAILED";
  }
  fmt::print("{} {}{}{}\n", verdict, w->name, result.message.empty() ? "" : ": ", result.message);
  if (!o.quiet && !rt.launches().empty()) fmt::print("\n{}", launchTable(rt.launches()));
  if (!o.quiet && rt.mode() == driver::Mode::Timing) fmt::print("\n{}", timingSummary(rt.statistics()));
  reportTraces(rt, o.quiet);
  std::fflush(stdout);

  if (!o.stats_json.empty()) {
    nlohmann::json j = report(o, config, rt, code == kExitOk, code);
    j["workload"] = w->name;
    j["message"] = result.message;
    j["options"] = {{"arch", o.arch}, {"scale", o.scale}, {"seed", o.seed}};
    if (result.error != driver::Error::Success) j["fault"] = faultJson(rt, result.error);
    j["partial"] = result.error != driver::Error::Success;  // the statistics cover the run up to its stop
    writeJsonFile(o.stats_json, j);
  }
  return code;
}

int runLaunchFile(const RunOptions& o) {
  const LaunchSpec spec = parseLaunchFile(o.target);  // before the device: errors come fast
  const GpuConfig config = loadConfig(o.config, o.overrides);
  driver::Runtime rt(config, driver::modeFromName(o.mode), traceOptions(o));
  if (!o.quiet)
    fmt::print("{}: kernel {} from {}, grid {}, block {} [config {}, {}]\n", spec.path, spec.kernel, spec.ptx,
               formatDim(spec.grid), formatDim(spec.block), o.config, o.mode);
  std::fflush(stdout);

  const LaunchOutcome out = runLaunch(spec, rt);
  printPrintf(out.printf_output);

  int code;
  if (out.error != driver::Error::Success) {
    code = faultExitCode(rt);
    printLaunchError(rt, out.error);
    traceFault(o, rt);
    fmt::print("{} {}\n", code == kExitCosimDivergence ? "DIVERGED" : "FAULT", spec.kernel);
  } else {
    for (const auto& c : out.checks) fmt::print("  {} {}\n", c.passed ? "ok  " : "FAIL", c.message);
    if (!o.quiet)
      for (const auto& path : out.outputs_written) fmt::print("  wrote {}\n", path);
    code = out.passed ? kExitOk : kExitCheckFailed;
    if (out.checks.empty())
      fmt::print("DONE {} (no buffer has expect:, nothing checked)\n", spec.kernel);
    else
      fmt::print("{} {}: {} of {} expected buffers match\n", out.passed ? "PASSED" : "FAILED", spec.kernel,
                 std::count_if(out.checks.begin(), out.checks.end(), [](const BufferCheck& c) { return c.passed; }),
                 out.checks.size());
  }
  if (!o.quiet && !rt.launches().empty()) fmt::print("\n{}", launchTable(rt.launches()));
  if (!o.quiet && rt.mode() == driver::Mode::Timing) fmt::print("\n{}", timingSummary(rt.statistics()));
  reportTraces(rt, o.quiet);
  std::fflush(stdout);

  if (!o.stats_json.empty()) {
    nlohmann::json j = report(o, config, rt, code == kExitOk, code);
    j["workload"] = spec.kernel;
    j["launch_file"] = spec.path;
    j["warmup_launches"] = spec.warmup;  // the first rows of `launches`; then `repeat` timed ones
    j["repeat"] = spec.repeat;
    j["ptx"] = spec.ptx;
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& c : out.checks)
      checks.push_back({{"buffer", c.buffer}, {"passed", c.passed}, {"mismatches", c.mismatches}, {"message", c.message}});
    j["checks"] = checks;
    j["outputs"] = out.outputs_written;
    if (out.error != driver::Error::Success) j["fault"] = faultJson(rt, out.error);
    j["partial"] = out.error != driver::Error::Success;  // the statistics cover the run up to its stop
    writeJsonFile(o.stats_json, j);
  }
  return code;
}

}  // namespace scgpu::cli
