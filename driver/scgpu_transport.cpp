#include "driver/scgpu_transport.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "driver/transport.h"
#include "tlm/gpu_config.h"

namespace {

// The C callbacks as the device's host memory.
class CallbackHostMemory : public scgpu::host::HostMemoryPort {
 public:
  scgpu_dma_read_fn read = nullptr;
  scgpu_dma_write_fn write = nullptr;
  void* context = nullptr;
  bool dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) override {
    return read && read(context, iova, dst, bytes) == 1;
  }
  bool dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) override {
    return write && write(context, iova, src, bytes) == 1;
  }
};

}  // namespace

struct scgpu_transport {
  std::unique_ptr<scgpu::driver::Transport> transport;
  CallbackHostMemory host;
};

extern "C" {

scgpu_transport* scgpu_transport_open(const char* config_path, char* error, size_t error_bytes) {
  try {
    const scgpu::GpuConfig config =
        config_path ? scgpu::GpuConfig::load(config_path) : scgpu::GpuConfig::loadDefault();
    auto t = std::make_unique<scgpu_transport>();
    t->transport = scgpu::driver::makeInProcessTransport(config);
    t->transport->attachHostMemory(&t->host);
    return t.release();
  } catch (const std::exception& e) {
    if (error && error_bytes) {
      const std::size_t n = std::min(error_bytes - 1, std::strlen(e.what()));
      std::memcpy(error, e.what(), n);
      error[n] = '\0';
    }
    return nullptr;
  }
}

void scgpu_transport_close(scgpu_transport* t) { delete t; }
uint32_t scgpu_transport_read32(scgpu_transport* t, uint32_t offset) {
  return t ? t->transport->mmioRead(offset) : 0xFFFFFFFFu;  // a dead link reads all ones
}
void scgpu_transport_write32(scgpu_transport* t, uint32_t offset, uint32_t value) {
  if (t) t->transport->mmioWrite(offset, value);
}
int scgpu_transport_irq(scgpu_transport* t) { return t && t->transport->interruptPending() ? 1 : 0; }
void scgpu_transport_set_dma(scgpu_transport* t, scgpu_dma_read_fn read, scgpu_dma_write_fn write, void* context) {
  if (!t) return;
  t->host.read = read;
  t->host.write = write;
  t->host.context = context;
}

}  // extern "C"

// Debian's SystemC library holds a main() that calls sc_main() and so needs an sc_main to link. A
// program on the driver has its own main and never reaches it; the programs that do define one (the
// CLI, the tests) override this weak definition.
extern "C" __attribute__((weak)) int sc_main(int, char**) { return 0; }
