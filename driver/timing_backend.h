// The timing mode behind the runtime: the configured GPU as a SystemC design (tlm/gpu_top.h),
// built once per process, running each launch cycle by cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

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
  double end_ns = 0;  // device time of the completion
};

class TimingBackend {
 public:
  // Throws ConfigError for a bad config, RuntimeError when a timing model already exists in
  // this process.
  TimingBackend(const GpuConfig& config, memsys::BackingStore& memory, const TraceOptions& trace = {});
  void closeTraces();
  ~TimingBackend();

  // Starts a launch at the current device time (kernels may run side by side); nothing with
  // `refused` filled in when a block fits on no SM.
  std::optional<std::uint32_t> start(sm::LaunchState& launch, const ptx::Program& program,
                                     std::uint32_t dynamic_shared_bytes, std::uint32_t priority, std::uint32_t track,
                                     TimingResult* refused);
  // Simulates until a launch finishes or device time reaches `until_ns` (< 0: no bound); the
  // launches that finished, by id.
  std::vector<std::pair<std::uint32_t, TimingResult>> advance(double until_ns);
  double deviceNs() const;
  bool busy() const;
  void noteCopy(std::uint32_t engine, std::uint32_t track, std::uint64_t bytes, double start_ns, double end_ns);
  void invalidateTlbs();
  // Every component's counters and the derived metrics, plus the effective parameters' name.
  nlohmann::json statistics() const;
  const GpuParams& params() const { return params_; }

 private:
  GpuParams params_;
  StatsRegistry stats_;
  std::unique_ptr<GpuTop> top_;
};

}  // namespace scgpu::driver
