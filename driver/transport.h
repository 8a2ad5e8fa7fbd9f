// How the driver reaches a device: BAR0 reads and writes, the interrupt line, and the host memory
// the device reaches by DMA. Thin on purpose (DESIGN.md §8), so that other transports - a Unix
// socket to `scgpu serve`, vfio-user, Remote-Port - can sit beside the in-process one.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

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
  // The level of the device's interrupt line, as the host sees it when it looks (the device runs
  // first, as for a read).
  virtual bool interruptPending() = 0;
  // The level as it stands, without letting the device run: after a posted write (which may mask
  // or clear interrupts, but starts no work).
  virtual bool interruptLevel() { return interruptPending(); }
  // The host memory the device's DMA reads and writes (the driver's table of registered buffers).
  // Until one is attached, every DMA is refused.
  virtual void attachHostMemory(host::HostMemoryPort* memory) = 0;
  // The device's time in ns as of the last access, where the transport knows it (0 otherwise).
  // Messages of the socket protocol carry it, so that time can be synchronised later.
  virtual std::uint64_t deviceTimeNs() const { return 0; }
};

// A transport that cannot be set up: the message says what and why (a path, errno's text, what the
// peer said).
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device in this process: the host interface in front of the functional device. Every MMIO
// access is a call; DMA lands in the attached host memory directly.
std::unique_ptr<Transport> makeInProcessTransport(const GpuConfig& config);

// The device of an `scgpu serve --socket PATH` process, over the socket protocol
// (docs/host-protocol.md, driver/socket_protocol.h): connects, says HELLO and checks the reply;
// throws TransportError when that fails. The device's DMA requests are served from the attached
// host memory while an MMIO access waits for its reply. When the link breaks (the server went away
// or broke the protocol) every later read returns 0xFFFFFFFF, as a dead PCIe link reads, writes
// are dropped and the interrupt line reads low.
std::unique_ptr<Transport> connectSocketTransport(const std::string& path);
// The same over a stream socket that is already connected (a socketpair, an inherited descriptor).
// The transport owns `fd` and closes it, also when this throws.
std::unique_ptr<Transport> adoptSocketTransport(int fd);

}  // namespace scgpu::driver
