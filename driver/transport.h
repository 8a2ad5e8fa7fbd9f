// How the driver reaches a device: BAR0 reads and writes, the interrupt line, and the host memory
// the device reaches by DMA. Thin on purpose (DESIGN.md §8), so that other transports - a Unix
// socket to `scgpu serve`, vfio-user, Remote-Port - can sit beside the in-process one.
#pragma once

#include <cstdint>
#include <memory>

#include "tlm/host/host_interface.h"

namespace scgpu {
class GpuConfig;
}

namespace scgpu::driver {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::uint32_t mmioRead(std::uint32_t offset) = 0;
  virtual void mmioWrite(std::uint32_t offset, std::uint32_t value) = 0;
  // The level of the device's interrupt line.
  virtual bool interruptPending() = 0;
  // The host memory the device's DMA reads and writes (the driver's table of registered buffers).
  // Until one is attached, every DMA is refused.
  virtual void attachHostMemory(host::HostMemoryPort* memory) = 0;
};

// The device in this process: the host interface in front of the functional device. Every MMIO
// access is a call; DMA lands in the attached host memory directly.
std::unique_ptr<Transport> makeInProcessTransport(const GpuConfig& config);

}  // namespace scgpu::driver
