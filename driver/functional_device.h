// The device on the far side of the host interface, in functional mode: device memory (mapped by
// MAP commands), module slots (LOAD_MODULE) and kernels run by the functional engine (LAUNCH). It
// implements the host interface's DevicePort; nothing reaches it but the host interface's
// commands. (It lives in driver/ because it reuses the runtime's module loader and launch checks;
// the timing-mode device is the chip's GpuTop behind the same port, still to come.)
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "driver/device_properties.h"
#include "driver/module.h"
#include "memsys/backing_store.h"
#include "sm/functional_engine.h"
#include "tlm/host/host_interface.h"

namespace scgpu {
class GpuConfig;
}

namespace scgpu::driver {

class FunctionalDevice : public host::DevicePort {
 public:
  static constexpr std::uint32_t kModuleSlots = 256;

  explicit FunctionalDevice(const GpuConfig& config);
  ~FunctionalDevice() override;

  bool read(std::uint64_t addr, void* dst, std::uint64_t bytes) override;
  bool write(std::uint64_t addr, const void* src, std::uint64_t bytes) override;
  bool fill(std::uint64_t addr, std::uint8_t value, std::uint64_t bytes) override;
  bool map(std::uint64_t va, std::uint64_t bytes, std::string* why) override;
  bool unmap(std::uint64_t va, std::string* why) override;
  bool loadModule(std::uint32_t slot, const std::string& ptx, std::uint64_t globals_va, std::string* why) override;
  bool unloadModule(std::uint32_t slot, std::string* why) override;
  host::LaunchOutcome launch(const host::LaunchRequest& request) override;
  void reset() override;

  const DeviceProperties& properties() const { return props_; }
  host::DeviceIdentity identity() const;
  // Text the kernels printed since the last call.
  std::string takePrintfOutput();

 private:
  DeviceProperties props_;
  double core_clock_mhz_;
  std::unique_ptr<memsys::BackingStore> memory_;
  std::array<std::unique_ptr<Module>, kModuleSlots> modules_;
  sm::EngineLimits limits_;
  std::uint64_t call_depth_frames_;
  std::uint64_t grid_id_ = 0;
  std::string printf_;
};

}  // namespace scgpu::driver
