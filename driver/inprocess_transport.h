// The device in this process: the host interface in front of the device model. Every MMIO access
// is a call; DMA lands in the attached host memory directly. The simulator's own tools reach the
// device model behind it (device()) for what the simulator reports: statistics, launch reports,
// printf text, waveforms.
#pragma once

#include "driver/device_model.h"
#include "driver/transport.h"
#include "tlm/host/host_trace.h"

#include <memory>
#include <string>
#include <vector>

namespace scgpu::driver {

class InProcessTransport : public Transport {
 public:
  InProcessTransport(const GpuConfig& config, Mode mode = Mode::Functional, const TraceOptions& trace = {});
  std::uint32_t mmioRead(std::uint32_t offset) override { return hif_.read(offset); }
  void mmioWrite(std::uint32_t offset, std::uint32_t value) override { hif_.write(offset, value); }
  bool interruptPending() override { return hif_.pollInterrupt(); }
  bool interruptLevel() override { return hif_.interruptLine(); }
  void attachHostMemory(host::HostMemoryPort* memory) override { host_.target = memory; }
  std::uint64_t deviceTimeNs() const override { return hif_.timeNs(); }

  DeviceModel& device() { return device_; }
  host::HostInterface& hostInterface() { return hif_; }
  // Writes the host interface's waveform and MMIO log (when asked for); returns the files.
  std::vector<std::string> closeHostTrace();

 private:
  // Forwards the device's DMA to whatever host memory the driver attached.
  struct HostMemoryForwarder : host::HostMemoryPort {
    host::HostMemoryPort* target = nullptr;
    bool dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) override {
      return target && target->dmaRead(iova, dst, bytes);
    }
    bool dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) override {
      return target && target->dmaWrite(iova, src, bytes);
    }
  };
  DeviceModel device_;
  HostMemoryForwarder host_;
  host::HostInterface hif_;
  std::unique_ptr<host::HostTrace> trace_;
};

}  // namespace scgpu::driver
