#include "driver/inprocess_transport.h"

#include <memory>

#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::driver {

InProcessTransport::InProcessTransport(const GpuConfig& config, Mode mode, const TraceOptions& trace)
    : device_(config, mode, trace), hif_(GpuParams::fromConfig(config).host, device_.identity(), device_, host_) {
  if (!trace.host_trace_path.empty() || !trace.mmio_log_path.empty()) {
    trace_ = std::make_unique<host::HostTrace>(trace.host_trace_path, trace.mmio_log_path, hif_.numChannels());
    hif_.setListener([this](const host::HostEvent& e) { trace_->on(e, e.line, e.intr_status); });
  }
}

std::vector<std::string> InProcessTransport::closeHostTrace() {
  if (!trace_) return {};
  hif_.setListener(nullptr);
  return trace_->close();
}

std::unique_ptr<Transport> makeInProcessTransport(const GpuConfig& config) {
  return std::make_unique<InProcessTransport>(config);
}

}  // namespace scgpu::driver
