#include <memory>

#include "driver/functional_device.h"
#include "driver/transport.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::driver {
namespace {

// Forwards the device's DMA to whatever host memory the driver attached.
class HostMemoryForwarder : public host::HostMemoryPort {
 public:
  host::HostMemoryPort* target = nullptr;
  bool dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) override {
    return target && target->dmaRead(iova, dst, bytes);
  }
  bool dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) override {
    return target && target->dmaWrite(iova, src, bytes);
  }
};

class InProcessTransport : public Transport {
 public:
  explicit InProcessTransport(const GpuConfig& config)
      : device_(config), hif_(GpuParams::fromConfig(config).host, device_.identity(), device_, host_) {}
  std::uint32_t mmioRead(std::uint32_t offset) override { return hif_.read(offset); }
  void mmioWrite(std::uint32_t offset, std::uint32_t value) override { hif_.write(offset, value); }
  bool interruptPending() override { return hif_.interruptLine(); }
  void attachHostMemory(host::HostMemoryPort* memory) override { host_.target = memory; }
  std::uint64_t deviceTimeNs() const override { return hif_.timeNs(); }

 private:
  FunctionalDevice device_;
  HostMemoryForwarder host_;
  host::HostInterface hif_;
};

}  // namespace

std::unique_ptr<Transport> makeInProcessTransport(const GpuConfig& config) {
  return std::make_unique<InProcessTransport>(config);
}

}  // namespace scgpu::driver
