// The device on the far side of the host interface: device memory (mapped by MAP commands), module
// slots (LOAD_MODULE) and kernels (LAUNCH), run by the functional engine or, in timing mode, by the
// cycle-level chip (tlm/gpu_top.h through TimingBackend), whose simulated time each launch takes.
// It implements the host interface's DevicePort: the driver reaches it only through commands.
//
// Besides the device, it is the simulator: what the simulator reports about a run - each launch's
// instruction counts, cycles and full fault report, the kernels' printf text, the statistics and
// waveforms - is read from here by the simulator's own tools (the runtime API, the CLI), as a
// debugger or a profiler would, not through the device's registers.
//
// (It lives in driver/ because it reuses the runtime's module loader and launch checks.)
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/device_properties.h"
#include "driver/module.h"
#include "driver/runtime.h"
#include "memsys/backing_store.h"
#include "sm/fault.h"
#include "sm/functional_engine.h"
#include "tlm/host/host_interface.h"
#include "tlm/trace_options.h"

namespace scgpu {
class GpuConfig;
}

namespace scgpu::driver {

class TimingBackend;

// What the simulator knows about one LAUNCH.
struct LaunchReport {
  std::string kernel;
  std::uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  Error status = Error::Success;   // Success, a refusal (InvalidConfiguration, MemoryAllocation) or a fault's error
  std::string refusal;             // why a refused launch was refused
  std::optional<sm::FaultReport> fault;
  std::uint64_t warp_instructions = 0, thread_instructions = 0;
  std::uint64_t core_cycles = 0;   // timing mode
  double simulated_ns = 0;         // timing mode
  std::uint64_t end_ns = 0;        // timing mode: the device time of its completion
};

class DeviceModel : public host::DevicePort {
 public:
  static constexpr std::uint32_t kModuleSlots = 256;

  // Throws ConfigError for a bad config; in timing mode RuntimeError when a timing model already
  // exists in this process (SystemC elaborates one design per process).
  DeviceModel(const GpuConfig& config, Mode mode = Mode::Functional, const TraceOptions& trace = {});
  ~DeviceModel() override;

  void setAddressSpace(std::uint64_t root) override { root_ = root; }
  void invalidateTranslations(std::uint64_t root) override;
  bool takePageFault(host::PageFault* fault) override;
  bool read(std::uint64_t addr, void* dst, std::uint64_t bytes) override;
  bool write(std::uint64_t addr, const void* src, std::uint64_t bytes) override;
  bool fill(std::uint64_t addr, std::uint8_t value, std::uint64_t bytes) override;
  bool map(std::uint64_t va, std::uint64_t bytes, std::string* why) override;
  bool unmap(std::uint64_t va, std::string* why) override;
  bool loadModule(std::uint32_t slot, const std::string& ptx, std::uint64_t globals_va, std::string* why) override;
  bool unloadModule(std::uint32_t slot, std::string* why) override;
  std::uint32_t startLaunch(const host::LaunchRequest& request, std::uint32_t channel, std::uint32_t priority,
                            std::uint64_t now_ns, host::LaunchOutcome* refused) override;
  std::optional<std::pair<std::uint32_t, host::LaunchOutcome>> advance(std::uint64_t until_ns,
                                                                      std::uint64_t* end_ns) override;
  bool busy() const override { return !pending_.empty() || !done_.empty(); }
  void noteCopy(std::uint32_t engine, std::uint32_t channel, std::uint64_t bytes, std::uint64_t start_ns,
                std::uint64_t end_ns) override;
  void reset() override;

  const DeviceProperties& properties() const { return props_; }
  host::DeviceIdentity identity() const;
  Mode mode() const { return mode_; }

  // The simulator's side: the last launch to complete (or be refused), the kernels' printf text
  // since the last call, the timing model's statistics, and its waveforms (written by
  // closeTraces()).
  const LaunchReport& lastLaunch() const { return last_launch_; }
  // Every launch's report since the last call, in completion order, once keepLaunchReports(true)
  // asked for them (a host program's statistics per launch; off by default, as the list grows).
  void keepLaunchReports(bool keep) { keep_reports_ = keep; }
  std::vector<LaunchReport> takeLaunchReports() { return std::exchange(reports_, {}); }
  std::string takePrintfOutput();
  nlohmann::json statistics() const;
  void closeTraces();

 private:
  Mode mode_;
  DeviceProperties props_;
  double core_clock_mhz_;
  memsys::BackingStore memory_;  // physical device memory
  // The MMU's translations (walks read the tables from memory_), shared by commands and kernels.
  memsys::TranslationCache mmu_;
  std::uint64_t root_ = 0;  // the address space of the current command (0: physical)
  std::optional<host::PageFault> page_fault_;
  // Calls fn(pa, offset, n) for each piece of [va, va + bytes) within one page (one piece when
  // translation is off); false when a translation fails (page_fault_ says where) or fn does.
  template <typename Fn> bool forEachPiece(std::uint64_t va, std::uint64_t bytes, bool write, Fn fn);
  std::array<std::unique_ptr<Module>, kModuleSlots> modules_;
  sm::EngineLimits limits_;
  std::uint64_t call_depth_frames_;
  std::uint64_t grid_id_ = 0;
  std::string printf_;
  LaunchReport last_launch_;
  bool keep_reports_ = false;
  std::vector<LaunchReport> reports_;
  void noteLaunch(const LaunchReport& report) {
    last_launch_ = report;
    if (keep_reports_) reports_.push_back(report);
  }
  // Launches started and not yet given back, by id: the launch state lives until then.
  struct Pending {
    std::unique_ptr<sm::LaunchState> launch;
    const ptx::Program* program = nullptr;
    LaunchReport report;
  };
  std::map<std::uint32_t, Pending> pending_;
  // Completed and not yet given back: (id, end time, result), in completion order.
  struct Done {
    std::uint32_t id;
    std::uint64_t end_ns;
    sm::LaunchResult result;
    std::uint64_t core_cycles;
    double simulated_ns;
  };
  std::deque<Done> done_;
  std::uint32_t next_id_ = 1;
  std::unique_ptr<TimingBackend> timing_;
  void finish(const Done& d, host::LaunchOutcome* o);
  // Runs the timing model until a launch completes or device time reaches `until_ns` (< 0: no
  // bound), keeping what completed in done_.
  void runTiming(double until_ns);
};

}  // namespace scgpu::driver
