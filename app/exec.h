// `scgpu exec [options] -- PROGRAM ARGS...`: runs an unmodified CUDA program (built with
// `nvcc -cudart shared`) on the model. The program is started with scgpu's libcudart.so.13 first
// on its library path and the run's settings in its environment (SCGPU_CUDART_*, read by
// cudart/runtime_state.h); scgpu then becomes the program (execve), so its output and exit status
// are the program's own. docs/cuda-programs.md is the guide.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scgpu::cli {

struct ExecOptions {
  std::string config = "hopper";       // a config name or YAML path
  std::vector<std::string> overrides;  // --set key=value
  std::string mode = "timing";         // timing | functional
  std::string stats_json;              // statistics per launch and per component, at exit
  std::string trace;                   // waveform (.fst/.vcd), timing mode
  std::string timeline;                // Chrome trace-event timeline, timing mode
  unsigned threads = 0;                // host threads for the SMs (0: the config's)
  std::uint64_t max_cycles = 0;        // limits.cycles_per_launch (0: the config's)
  double timeout_s = 0;                // wall-clock bound on the simulated device (0: none)
  std::vector<std::string> program;    // PROGRAM ARGS...
};

// Checks the config (ConfigError with file:line:col on a bad one), finds the runtime library and
// the program, and replaces this process with the program. Returns only when that cannot be done:
// 127 when the program or the library is not found, 126 when the program cannot be executed (as
// env(1) reports it), with the reason on stderr.
int execProgram(const ExecOptions& options);

// The directory that holds scgpu's libcudart.so.13: $SCGPU_CUDART_DIR, else cudart/ beside the
// scgpu executable; empty when neither holds it.
std::string cudartDirectory();

}  // namespace scgpu::cli
