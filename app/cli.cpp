#include "app/cli.h"
#include "app/exec.h"
#include "app/serve.h"
#include "app/stats_diff.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "kernels/workload.h"
#include "ptx/parse_error.h"
#include "app/npy.h"
#include "app/python_tools.h"
#include "app/stats_table.h"
#include "base/input_limits.h"
#include "base/output_file.h"
#include "base/run_control.h"
#include "tlm/gpu_config.h"

// The build may pass the project version; the fallback keeps a bare compile working.
#ifndef SCGPU_VERSION
#define SCGPU_VERSION "0.1.0"
#endif

namespace scgpu::cli {

namespace {

constexpr const char* kMainFooter = R"(Examples:
  scgpu list
  scgpu run saxpy
  scgpu run sgemm_tiled --config hopper --set sm.count=8 --stats-json stats.json
  scgpu run my_kernel.yaml
  scgpu serve --socket /tmp/scgpu.sock --config hopper

Exit status: 0 passed, 1 check failed, 2 kernel fault (watchdog and budget timeouts too),
3 input error (usage, config, launch file, PTX, refused launch, limit, unwritable output),
4 an RTL block in cosim mode diverged from its model, 130 stopped by Ctrl-C.
Run `scgpu COMMAND --help` for the options of a command; docs/cli.md has the reference.)";

constexpr const char* kRunFooter = R"(TARGET is a suite workload (see `scgpu list`) or a launch file (a path ending in
.yaml or .yml) that describes a PTX kernel, its buffers and arguments (docs/launch-files.md).
--arch, --scale and --seed apply to suite workloads only.

Printed: the kernels' printf output, the verdict (PASSED/FAILED and what was checked), one row
per launch (grid, block, instructions; in timing mode cycles, IPC, simulated time, KIPS) and, in
timing mode, the derived metrics. --stats-json writes the same plus statistics and the effective
config. Input limits: `scgpu --limit NAME=VALUE` (docs/cli.md).

Examples:
  scgpu run saxpy
  scgpu run reduce_tree --scale 8 --seed 42 --quiet
  scgpu run transpose --arch sm_80 --config tiny --set sm.count=4
  scgpu run my_kernel.yaml --stats-json out/stats.json

Exit status: 0 passed, 1 check or expect failed, 2 kernel fault, watchdog or budget timeout
(report on stderr), 3 input error: usage, config, launch file, PTX, refused launch, exceeded
limit, unwritable output (message with file:line:col where there is one), 4 an RTL block in
cosim mode diverged from its model (docs/rtl-cosim.md), 130 stopped by Ctrl-C.

Long runs: on a terminal a progress line shows the kernel's cycles, blocks retired (percent),
KIPS and an ETA. Ctrl-C, --timeout and --max-cycles stop the run with a report; the statistics
(--stats-json, marked "partial": true) and traces gathered so far are still written. A block
resident longer than watchdog.block_resident_cycles (a warp spinning forever) is a watchdog fault.)";

constexpr const char* kServeFooter = R"(Runs the chip (a functional device behind the host interface) as a device that another
process drives over a Unix socket: MMIO reads and writes, DMA to and from the client's host
memory, interrupt messages (docs/host-protocol.md). One client at a time; others wait. When a
client leaves - goodbye, disconnect, killed, or a protocol error - the device is reset for the
next. SIGINT or SIGTERM stops the server and removes the socket file. A path that exists and is
not a socket is never replaced. Clients: scgpu_open_socket() of driver/scgpu_driver.h, or
driver::connectSocketTransport().

Example:
  scgpu serve --socket /tmp/scgpu.sock --config hopper

Exit status: 0 stopped by a signal, 3 bad config or a socket that cannot be made.)";

constexpr const char* kExecFooter = R"(Runs an unmodified CUDA program on the model: a program built with `nvcc -cudart shared`
loads scgpu's libcudart.so.13 instead of NVIDIA's, which takes the PTX out of the program's fat
binary (the newest PTX not above the config's compute capability) and serves the CUDA runtime API
on scgpu's register-level driver. The program's output and exit status are its own. A kernel
fault is returned as a CUDA error (cudaErrorIllegalAddress, ...) at the next synchronising call,
with scgpu's fault report on stderr. Everything after `--` is the program and its arguments.

Examples:
  scgpu exec -- ./vector_add
  scgpu exec --config ampere --stats-json s.json -- ./app 1024
  scgpu exec --mode functional -- ./app          # results only, fast
  scgpu exec --trace t.fst -- ./app               # then: gtkwave t.gtkw

Exit status: the program's; 3 a bad config; 126/127 the program cannot be run or is not found.
docs/cuda-programs.md: what is supported, statistics per kernel launch.)";

constexpr const char* kListFooter = R"(Example:
  scgpu list)";

void printError(const std::string& message) {
  std::fflush(stdout);
  // Messages that carry their location ("file:line:col: error: ...") read like a compiler's.
  if (message.find(": error:") != std::string::npos)
    std::cerr << message << "\n";
  else
    std::cerr << "scgpu: error: " << message << "\n";
}

}  // namespace

GpuConfig loadConfig(const std::string& name_or_path, const std::vector<std::string>& overrides) {
  return GpuConfig::load(GpuConfig::resolve(name_or_path), overrides);
}

bool isKernelFault(driver::Error e) {
  switch (e) {
    case driver::Error::LaunchFailure:
    case driver::Error::IllegalAddress:
    case driver::Error::MisalignedAddress:
    case driver::Error::IllegalInstruction:
    case driver::Error::Assert:
    case driver::Error::BarrierDeadlock:
      return true;
    default:
      return false;
  }
}

int faultExitCode(const driver::Runtime& runtime) {
  const auto& f = runtime.lastFault();
  if (f && f->kind == "cosim divergence") return kExitCosimDivergence;
  return f && f->kind == "interrupted" ? kExitInterrupted : kExitFault;
}

void printLaunchError(const driver::Runtime& runtime, driver::Error error) {
  std::fflush(stdout);
  if (const auto& fault = runtime.lastFault()) {
    const std::string report = fault->toString();
    std::cerr << report << (report.empty() || report.back() != '\n' ? "\n" : "");
  }
  else if (!runtime.lastLaunchError().empty())  // the device refused the launch, and says why
    std::cerr << "scgpu: error: " << runtime.lastLaunchError() << " (" << driver::errorName(error) << ")\n";
  else
    std::cerr << "scgpu: error: kernel launch failed: " << driver::errorName(error) << "\n";
}

nlohmann::json faultJson(const driver::Runtime& runtime, driver::Error error) {
  nlohmann::json j = {{"error", driver::errorName(error)}};
  if (const auto& f = runtime.lastFault()) {
    j["kind"] = f->kind;
    j["kernel"] = f->kernel;
    j["message"] = f->message;
    j["ptx_location"] = f->ptx_location;
    j["source_location"] = f->source_location;
    j["instruction"] = f->instruction;
    j["block"] = {f->block[0], f->block[1], f->block[2]};
    j["thread"] = {f->thread[0], f->thread[1], f->thread[2]};
    j["warp"] = f->warp;
    j["lane"] = f->lane;
    j["pc"] = f->pc;
    j["report"] = f->toString();
  }
  return j;
}

void writeJsonFile(const std::string& path, const nlohmann::json& json) {
  writeOutputFile(path, json.dump(2) + "\n");  // OutputError names the file
}

bool isLaunchFile(const std::string& target) {
  auto ends = [&](const std::string& suffix) {
    return target.size() > suffix.size() && target.compare(target.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

int listWorkloads() {
  using A = Table::Align;
  Table t({{"workload", A::Left}, {"archs", A::Left}, {"description", A::Left}});
  for (const auto& w : kernels::allWorkloads()) {
    std::string archs;
    for (const auto& a : w.archs) archs += (archs.empty() ? "" : ",") + a;
    t.addRow({w.name, archs, w.description});
  }
  std::cout << t.render() << fmt::format("{} workloads; run one with `scgpu run NAME`.\n",
                                         kernels::allWorkloads().size());
  return kExitOk;
}

int run(const RunOptions& options) {
  RunOptions o = options;
  if (o.max_cycles) o.overrides.push_back(fmt::format("limits.cycles_per_launch={}", o.max_cycles));
  if (o.threads) o.overrides.push_back(fmt::format("simulation.host_threads={}", o.threads));
  if (o.stats_interval) o.overrides.push_back(fmt::format("simulation.stats_interval_cycles={}", o.stats_interval));
  // Ctrl-C and the wall-clock timeout end the run as a fault would: statistics and traces are
  // still written, marked partial.
  const run_control::InterruptGuard interrupt;
  run_control::setWallTimeout(o.timeout_s);
  const int code = isLaunchFile(o.target) ? runLaunchFile(o) : runWorkload(o);
  run_control::setWallTimeout(0);
  return code;
}

int main(int argc, char** argv) {
  CLI::App app{"scgpu " SCGPU_VERSION " - a cycle-level model of a CUDA-class GPU that runs PTX kernels", "scgpu"};
  app.set_version_flag("--version", "scgpu " SCGPU_VERSION);
  app.require_subcommand(1);
  app.footer(kMainFooter);
  app.get_formatter()->column_width(28);

  std::vector<std::string> limit_texts;  // applied as they are parsed, below
  app.add_option("--limit", limit_texts,
                 "Raise (or lower) an input limit, e.g. --limit yaml_nodes=5000000 (repeatable; "
                 "docs/robustness.md lists them)")
      ->type_name("NAME=VALUE")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->trigger_on_parse()  // in force before a subcommand's callback (`stats diff`) reads its files
      ->each([](const std::string& text) {
        try {
          setInputLimit(text);
        } catch (const LimitError& e) {
          throw CLI::ValidationError(e.what());
        }
      });
  app.fallthrough();  // `scgpu run X --limit ...` as well as `scgpu --limit ... run X`

  CLI::App* list = app.add_subcommand("list", "List the workloads of the kernel suite (name, archs, description)");
  list->footer(kListFooter);

  RunOptions opt;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a suite workload or a launch file, check it, print statistics");
  run_cmd->footer(kRunFooter);
  run_cmd->add_option("TARGET", opt.target, "Workload name (see `scgpu list`) or launch file (*.yaml)")->required();
  run_cmd->add_option("-c,--config", opt.config, "GPU config: a name in configs/ or a YAML path")
      ->type_name("NAME|PATH")
      ->capture_default_str();
  run_cmd->add_option("--set", opt.overrides, "Override a config key, e.g. --set sm.count=4 (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->allow_extra_args(false)  // one KEY=VALUE per --set, so a positional after it stays one
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run_cmd->add_option("--mode", opt.mode, "Simulation mode: cycle-level timing, or functional (results only)")
      ->check(CLI::IsMember({"timing", "functional"}))
      ->capture_default_str();
  CLI::Option* arch = run_cmd->add_option("--arch", opt.arch, "Which committed PTX to run (workloads)")
                          ->check(CLI::IsMember({"sm_75", "sm_80", "sm_90"}))
                          ->capture_default_str();
  CLI::Option* scale = run_cmd->add_option("--scale", opt.scale, "Problem size multiplier (workloads)")
                           ->check(CLI::PositiveNumber)
                           ->capture_default_str();
  CLI::Option* seed =
      run_cmd->add_option("--seed", opt.seed, "Seed of the input data (workloads)")->capture_default_str();
  CLI::Option* warm = run_cmd
                          ->add_option("--warm-repeats", opt.warm_repeats,
                                       "After each launch, N more launches of it back to back with warm caches, TLBs "
                                       "and DRAM rows, as CUDA-event timing sees a kernel (workloads, timing mode); each "
                                       "is a row of `launches` marked warm_repeat, with event_ns: completion to completion, "
                                       "the host submitting them host.launch_call_ns apart. Kernels that accumulate change "
                                       "their output, so the check may fail")
                          ->type_name("N")
                          ->check(CLI::Range(0, 1000));
  run_cmd->add_option("--stats-json", opt.stats_json, "Write statistics, verdict and effective config as JSON")
      ->type_name("FILE");
  run_cmd->add_flag("-q,--quiet", opt.quiet, "Print only the verdict (and kernel printf output)");
  run_cmd->add_option("--threads", opt.threads,
                      "Host threads that tick the SMs side by side (timing mode; sets simulation.host_threads); "
                      "results and statistics are the same at any N")
      ->type_name("N")
      ->check(CLI::Range(1, 256));
  run_cmd->add_option("--max-cycles", opt.max_cycles,
                      "Stop a launch that runs longer than N core cycles with a timeout fault (timing mode; sets "
                      "limits.cycles_per_launch)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--stats-interval", opt.stats_interval,
                      "Every N core cycles of a running kernel, sample IPC, L2 and DRAM bandwidth, hit rates and stall reasons "
                      "over the interval into the stats JSON's `samples` (timing mode; sets "
                      "simulation.stats_interval_cycles; `scgpu report` plots them)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--timeout", opt.timeout_s,
                      "Stop the run after SECONDS of wall-clock time with a timeout fault; statistics and traces "
                      "gathered so far are still written, marked partial")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.001, 1e9));
  run_cmd->add_option("--trace", opt.trace,
                      "Write a waveform of the run (timing mode): FILE.vcd or FILE.fst, with FILE.gtkw beside it "
                      "for `gtkwave FILE.gtkw`")
      ->type_name("FILE");
  run_cmd->add_option("--trace-filter", opt.trace_filter,
                      "Trace only these components: comma-separated globs, e.g. 'sm[0-3].*,l2.*'")
      ->type_name("GLOBS");
  run_cmd->add_option("--trace-window", opt.trace_window, "Trace only core cycles START:END (either may be empty)")
      ->type_name("START:END");
  run_cmd->add_option("--fault-trace-cycles", opt.fault_trace_cycles,
                      "After a fault or watchdog (timing mode, no --trace), write a waveform of the last N core "
                      "cycles by re-running the same deterministic simulation; 0: off")
      ->capture_default_str();
  run_cmd->add_option("--timeline", opt.timeline,
                      "Write a Chrome trace-event timeline (kernels and copies per channel, blocks per SM, DRAM refreshes) for Perfetto")
      ->type_name("FILE");
  run_cmd->add_option("--host-trace", opt.host_trace,
                      "Write a waveform of the host interface (BAR0 accesses, doorbells, GP_GET, methods, "
                      "interrupts) in device time: FILE.vcd or FILE.fst, with FILE.gtkw; either mode")
      ->type_name("FILE");
  run_cmd->add_option("--mmio-log", opt.mmio_log, "Write every BAR0 access (time, R/W, offset, register, value)")
      ->type_name("FILE");

  ServeOptions serve_opt;
  CLI::App* serve_cmd = app.add_subcommand("serve", "Run the chip as a device that another process drives over a Unix socket");
  serve_cmd->footer(kServeFooter);
  serve_cmd->add_option("--socket", serve_opt.socket, "The Unix socket to create and listen on")
      ->type_name("PATH")
      ->required();
  serve_cmd->add_option("-c,--config", serve_opt.config, "GPU config: a name in configs/ or a YAML path")
      ->type_name("NAME|PATH")
      ->capture_default_str();
  serve_cmd->add_option("--set", serve_opt.overrides, "Override a config key, e.g. --set host.channels=16 (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  serve_cmd->add_option("-m,--mode", serve_opt.mode,
                        "functional, or timing: the cycle-level model runs the kernels, whose simulated time "
                        "the device's timer and timestamps count")
      ->check(CLI::IsMember({"functional", "timing"}))
      ->capture_default_str();
  serve_cmd->add_option("--hello-timeout", serve_opt.hello_timeout_s,
                        "Seconds a client has to complete HELLO before it is disconnected (0: no limit)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();

  ExecOptions exec_opt;
  CLI::App* exec_cmd = app.add_subcommand("exec", "Run an unmodified CUDA program (nvcc -cudart shared) on the model");
  exec_cmd->footer(kExecFooter);
  exec_cmd->add_option("-c,--config", exec_opt.config, "GPU config: a name in configs/ or a YAML path")
      ->type_name("NAME|PATH")
      ->capture_default_str();
  exec_cmd->add_option("--set", exec_opt.overrides, "Override a config key, e.g. --set sm.count=4 (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  exec_cmd->add_option("--mode", exec_opt.mode, "Simulation mode: cycle-level timing, or functional (results only)")
      ->check(CLI::IsMember({"timing", "functional"}))
      ->capture_default_str();
  exec_cmd->add_option("--stats-json", exec_opt.stats_json,
                       "At exit, write statistics per kernel launch and per component, and the effective config")
      ->type_name("FILE");
  exec_cmd->add_option("--trace", exec_opt.trace, "Write a waveform (timing mode): FILE.vcd or FILE.fst, with FILE.gtkw")
      ->type_name("FILE");
  exec_cmd->add_option("--timeline", exec_opt.timeline, "Write a Chrome trace-event timeline of kernels and copies")
      ->type_name("FILE");
  exec_cmd->add_option("--threads", exec_opt.threads, "Host threads that tick the SMs (timing mode)")
      ->type_name("N")
      ->check(CLI::Range(1, 256));
  exec_cmd->add_option("--max-cycles", exec_opt.max_cycles,
                       "Stop a kernel that runs longer than N core cycles with a timeout fault (the program sees "
                       "cudaErrorLaunchTimeout; sets limits.cycles_per_launch)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  exec_cmd->add_option("--timeout", exec_opt.timeout_s,
                       "Stop the simulated device after SECONDS of wall-clock time: the running kernel ends with a "
                       "timeout fault (cudaErrorLaunchTimeout), and the statistics gathered so far are written, "
                       "marked partial")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.001, 1e9));
  exec_cmd->add_option("PROGRAM", exec_opt.program, "The program and its arguments, after --")
      ->required()
      ->expected(1, -1);

  addStatsDiffCommand(app);

  // The design-exploration tools (python/scgpu_tools): every argument goes to them unchanged,
  // --help included (docs/design-exploration.md).
  CLI::App* python_cmds[3];
  const char* python_names[3] = {"sweep", "plot", "report"};
  const char* python_help[3] = {
      "Run a parameter sweep (a sweep YAML file) locally or on a Dask cluster, into a results table",
      "Plot a sweep's results: a metric per parameter, speedups, stall reasons, Pareto fronts",
      "Write one self-contained HTML page from a stats JSON file"};
  for (int i = 0; i < 3; ++i) {
    python_cmds[i] = app.add_subcommand(python_names[i], python_help[i]);
    python_cmds[i]->prefix_command();
    python_cmds[i]->allow_extras();
    python_cmds[i]->set_help_flag();
  }

  // They take over before CLI11 parses, so that their --help is theirs.
  if (argc >= 2)
    for (int i = 0; i < 3; ++i)
      if (std::string(argv[1]) == python_names[i]) return runPythonTool(python_names[i], {argv + 2, argv + argc});

  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // `stats diff` ran: 0 same, 1 different, 2 unreadable
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, version or the usage error
    return code == 0 ? kExitOk : kExitInputError;
  }

  try {
    if (*list) return listWorkloads();
    if (*serve_cmd) return serve(serve_opt);
    if (*exec_cmd) return execProgram(exec_opt);
    if (*run_cmd) {
      if (isLaunchFile(opt.target))
        for (CLI::Option* o : {arch, scale, seed, warm})
          if (o->count() > 0)
            throw CLI::ValidationError(fmt::format("{} applies to suite workloads; a launch file sets its own "
                                                   "PTX, sizes and data",
                                                   o->get_name()));
      return run(opt);
    }
  } catch (const CLI::Error& e) {
    printError(e.what());
  } catch (const InputError& e) {  // ConfigError, LimitError: bad input, with file:line:col
    printError(e.what());
  } catch (const ptx::ParseError& e) {
    printError(e.what());
  } catch (const driver::RuntimeError& e) {
    printError(fmt::format("{} ({})", e.what(), driver::errorName(e.code())));
  } catch (const NpyError& e) {
    printError(e.what());
  } catch (const std::bad_alloc&) {
    printError("out of host memory (is a buffer or --scale too large?)");
  } catch (const std::exception& e) {
    printError(e.what());
  }
  return kExitInputError;
}

}  // namespace scgpu::cli
