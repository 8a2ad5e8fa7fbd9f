#include "driver/inprocess_transport.h"

#include <memory>

#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::driver {

InProcessTransport::InProcessTransport(const GpuConfig& config, Mode mode, const TraceOptions& trace)
    : device_(config, mode, trace), hif_(GpuParams::fromConfig(config).host, device_.identity(), device_, host_) {}

std::unique_ptr<Transport> makeInProcessTransport(const GpuConfig& config) {
  return std::make_unique<InProcessTransport>(config);
}

}  // namespace scgpu::driver
