// The timing mode behind the runtime: the configured GPU as a SystemC design (tlm/gpu_top.h),
// built once per process, running each launch cycle by cycle.
#pragma once

#include <cstdint>
#include <memory>

#include <nlohmann/json.hpp>

#include "memsys/backing_store.h"
#include "ptx/decoded.h"
#include "sm/functional_engine.h"
#include "tlm/gpu_params.h"
#include "base/stats.h"
#include "tlm/trace_options.h"

namespace scgpu {
class GpuConfig;
class GpuTop;
}  // namespace scgpu

namespace scgpu::driver {

struct TimingResult {
  sm::LaunchResult result;
  std::uint64_t core_cycles = 0;
  double simulated_ns = 0;
};

class TimingBackend {
 public:
  // Throws ConfigError for a bad config, RuntimeError when a timing model already exists in
  // this process.
  TimingBackend(const GpuConfig& config, memsys::BackingStore& memory, const TraceOptions& trace = {});
  void closeTraces();
  ~TimingBackend();

  TimingResult run(sm::LaunchState& launch, const ptx::Program& program, std::uint32_t dynamic_shared_bytes);
  // Every component's counters and the derived metrics, plus the effective parameters' name.
  nlohmann::json statistics() const;
  const GpuParams& params() const { return params_; }

 private:
  GpuParams params_;
  StatsRegistry stats_;
  std::unique_ptr<GpuTop> top_;
};

}  // namespace scgpu::driver
