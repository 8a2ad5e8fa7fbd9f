// The `scgpu` command line: `scgpu list`, `scgpu run WORKLOAD|FILE.yaml`. docs/cli.md is the
// reference. tlm/main.cpp calls main(); the run commands are also callable on their own.
#pragma once

#include "tlm/trace_options.h"

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <stdexcept>  // before runtime.h, which uses std::runtime_error without it

#include "driver/runtime.h"

namespace scgpu {
class GpuConfig;
}

namespace scgpu::cli {

// Exit statuses of `scgpu run` (and of `scgpu` for usage errors).
enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,  // the workload's check or a launch file's `expect:` failed
  kExitFault = 2,        // a kernel faulted (the fault report goes to stderr)
  kExitInputError = 3,   // usage, config, launch file or PTX error (message with file:line:col)
  kExitCosimDivergence = 4,  // an RTL block in `cosim` differed from its model (report on stderr)
  kExitInterrupted = 130,    // stopped by Ctrl-C (128 + SIGINT, as a shell reports it); partial statistics written
};

struct RunOptions {
  std::string target;  // a suite workload name, or a launch file (*.yaml, *.yml)
  std::string config = "tiny";
  std::vector<std::string> overrides;  // --set key=value
  std::string mode = "timing";  // timing | functional
  // Suite workloads only.
  std::string arch = "sm_90";
  int scale = 1;
  std::uint64_t seed = 1;
  std::uint32_t warm_repeats = 0;  // --warm-repeats: driver::Runtime::setWarmRepeats
  // Waveforms and timeline (timing mode).
  std::string trace;                   // out.vcd | out.fst
  std::string trace_filter;            // "sm[0-3].*,l2.*"
  std::string trace_window;            // "START:END" in core cycles
  std::string timeline;                // Chrome trace-event JSON
  std::string host_trace;              // the host interface's waveform (device time)
  std::string mmio_log;                // one line per BAR0 access
  // After a fault or watchdog in timing mode without --trace, re-run (deterministically) with a
  // waveform of the last this-many core cycles; 0 turns it off.
  std::uint64_t fault_trace_cycles = 2000;
  // Bounds on a long run: core cycles per launch (0: the config's limits.cycles_per_launch) and
  // wall-clock seconds for the whole run (0: none).
  std::uint64_t max_cycles = 0;
  std::uint64_t stats_interval = 0;  // --stats-interval: simulation.stats_interval_cycles
  double timeout_s = 0;
  // Host threads that tick the SMs (0: the config's simulation.host_threads).
  unsigned threads = 0;
  // Output.
  std::string stats_json;
  bool quiet = false;
};

int main(int argc, char** argv);

// `scgpu list`
int listWorkloads();
// `scgpu run`: dispatches on isLaunchFile(options.target). Exceptions (ConfigError,
// ptx::ParseError, driver::RuntimeError) propagate; main() turns them into kExitInputError.
int run(const RunOptions& options);
// The trace options a run asked for; throws CLI::ValidationError for a malformed window.
TraceOptions traceOptions(const RunOptions& options);
int runWorkload(const RunOptions& options);
int runLaunchFile(const RunOptions& options);

bool isLaunchFile(const std::string& target);

// Shared by the run commands and the benchmark.
GpuConfig loadConfig(const std::string& name_or_path, const std::vector<std::string>& overrides);
// Kernel faults, as opposed to launches the device refused (InvalidValue, InvalidConfiguration).
bool isKernelFault(driver::Error error);
// The exit status of a run that stopped on a fault: kExitCosimDivergence when an RTL block in
// cosim mode differed from its model, kExitInterrupted after Ctrl-C, else kExitFault.
int faultExitCode(const driver::Runtime& runtime);
// Prints the fault report (or the bare error) of a failed launch to stderr.
void printLaunchError(const driver::Runtime& runtime, driver::Error error);
nlohmann::json faultJson(const driver::Runtime& runtime, driver::Error error);
// Writes pretty-printed JSON; throws ConfigError when the file can't be written.
void writeJsonFile(const std::string& path, const nlohmann::json& json);

}  // namespace scgpu::cli
