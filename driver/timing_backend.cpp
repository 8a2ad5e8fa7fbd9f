#include "driver/timing_backend.h"

#include <fmt/format.h>

#include "driver/register_counts.h"
#include "driver/runtime.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_top.h"

namespace scgpu::driver {

namespace {
bool g_timing_model_exists = false;
}

TimingBackend::TimingBackend(const GpuConfig& config, memsys::BackingStore& memory, const TraceOptions& trace)
    : params_(GpuParams::fromConfig(config)) {
  if (g_timing_model_exists)
    throw RuntimeError(Error::InvalidValue,
                       "a timing-mode runtime already exists in this process (SystemC elaborates one design per "
                       "process); use one Runtime in timing mode, or functional mode");
  g_timing_model_exists = true;
  top_ = std::make_unique<GpuTop>("gpu", params_, memory, stats_, trace);
}

void TimingBackend::closeTraces() { top_->closeTraces(); }

TimingBackend::~TimingBackend() = default;

namespace {
TimingResult resultOf(const KernelRun& run) {
  TimingResult r;
  r.result.fault = run.fault;
  r.result.warp_instructions = run.warp_instructions;
  r.result.thread_instructions = run.thread_instructions;
  r.result.blocks = run.blocks;
  r.core_cycles = run.core_cycles;
  r.simulated_ns = run.simulated_ns;
  r.end_ns = run.end_ns;
  return r;
}
}  // namespace

std::optional<std::uint32_t> TimingBackend::start(sm::LaunchState& launch, const ptx::Program& program,
                                                  std::uint32_t dynamic_shared_bytes, std::uint32_t priority,
                                                  std::uint32_t track, TimingResult* refused) {
  sm::KernelResources k;
  k.threads_per_block = launch.block[0] * launch.block[1] * launch.block[2];
  k.registers_per_thread = registersPerThread(program, params_.sm.max_registers_per_thread);
  k.static_shared_bytes = program.static_shared_bytes;
  k.dynamic_shared_bytes = dynamic_shared_bytes;
  KernelRun no;
  const std::optional<std::uint32_t> id = top_->startKernel(launch, k, priority, track, &no);
  if (!id) *refused = resultOf(no);
  return id;
}

std::vector<std::pair<std::uint32_t, TimingResult>> TimingBackend::advance(double until_ns) {
  std::vector<std::pair<std::uint32_t, TimingResult>> out;
  for (const KernelRun& r : top_->advance(until_ns)) out.emplace_back(r.id, resultOf(r));
  return out;
}

void TimingBackend::invalidateTlbs() { top_->invalidateTlbs(); }
double TimingBackend::deviceNs() const { return top_->deviceNs(); }
bool TimingBackend::busy() const { return top_->busy(); }
void TimingBackend::noteCopy(std::uint32_t engine, std::uint32_t track, std::uint64_t bytes, double start_ns,
                             double end_ns) {
  top_->noteCopy(engine, track, bytes, start_ns, end_ns);
}

nlohmann::json TimingBackend::statistics() const {
  top_->computeMetrics();
  nlohmann::json j = stats_.toJson();
  if (params_.simulation.stats_interval_cycles) j["samples"] = top_->samples();
  return j;
}

}  // namespace scgpu::driver
