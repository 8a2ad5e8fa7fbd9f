// The kernel suite: each workload is a small CUDA host program written against the scgpu
// runtime API. It uploads inputs, launches the suite's PTX, downloads the outputs and checks them
// against a CPU reference computed here, independently of the model.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/runtime.h"

namespace scgpu::kernels {

struct WorkloadOptions {
  // Problem size multiplier: 1 is the default size (fast enough for tests); larger for benches.
  int scale = 1;
  std::uint64_t seed = 1;
  // Which PTX to use: "sm_90" (all workloads), "sm_80" or "sm_75" (a subset).
  std::string arch = "sm_90";
};

struct WorkloadResult {
  bool passed = false;
  std::string message;        // what was checked, or the first mismatch
  driver::Error error = driver::Error::Success;  // a launch error, if any
};

struct Workload {
  std::string name;           // e.g. "saxpy"
  std::string description;    // one line
  std::string ptx_name;       // file stem under kernels/ptx/<arch>/, e.g. "saxpy"
  std::vector<std::string> archs;  // archs with committed PTX
  std::function<WorkloadResult(driver::Runtime&, const WorkloadOptions&)> run;
};

// All registered workloads, sorted by name.
const std::vector<Workload>& allWorkloads();
const Workload* findWorkload(const std::string& name);

// Registers a workload at static-initialisation time: one per source file in kernels/host/.
struct WorkloadRegistrar {
  explicit WorkloadRegistrar(Workload w);
};

// Path of the committed PTX for a workload: $SCGPU_KERNELS_DIR or the source tree's kernels/ptx.
std::string ptxPath(const std::string& ptx_name, const std::string& arch);

// Helpers shared by host checks.
// Compares floats with a relative+absolute tolerance; returns the index of the first mismatch or -1.
long firstMismatch(const std::vector<float>& got, const std::vector<float>& want, float rel_tol,
                   float abs_tol);
long firstMismatch(const std::vector<double>& got, const std::vector<double>& want, double rel_tol,
                   double abs_tol);

}  // namespace scgpu::kernels
