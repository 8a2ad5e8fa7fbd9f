// The scgpu runtime API: what a CUDA host program does with the CUDA runtime, against the model.
// Device memory, modules, launches and errors. Launches run to completion inside launch() in the
// functional mode; synchronize() is where an asynchronous mode will wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/kernel_args.h"
#include "driver/device_properties.h"
#include "driver/scgpu_driver.h"
#include "tlm/trace_options.h"
#include "sm/fault.h"

namespace scgpu {
class GpuConfig;
namespace ptx { struct Module; struct Limits; }
namespace sm { class FunctionalEngine; struct LaunchStats; }
}  // namespace scgpu

namespace scgpu::driver {

// A device address, as the kernel sees it.
using DevicePtr = std::uint64_t;

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(std::uint32_t x_, std::uint32_t y_ = 1, std::uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
  std::uint64_t count() const { return std::uint64_t(x) * y * z; }
};

// Mirrors cudaError_t for the cases the model can produce.
enum class Error {
  Success = 0,
  InvalidValue,
  MemoryAllocation,
  InvalidDevicePointer,
  InvalidResourceHandle,
  LaunchFailure,       // the kernel faulted; lastFault() says where
  IllegalAddress,
  MisalignedAddress,
  IllegalInstruction,
  Assert,
  BarrierDeadlock,
  InvalidConfiguration,
};
const char* errorName(Error e);

class Module;
struct LaunchReport;
class Function;

// Statistics of one launch (functional mode): counts, not time.
// Statistics of one launch.
struct LaunchRecord {
  std::string kernel;
  Dim3 grid, block;
  std::uint64_t warp_instructions = 0;
  std::uint64_t thread_instructions = 0;
  double wall_seconds = 0;
  // Timing mode only: core cycles from launch to the last block's retirement, and the time.
  std::uint64_t core_cycles = 0;
  double simulated_ns = 0;
  // One of the extra launches of setWarmRepeats (the same kernel again, right after).
  bool warm_repeat = false;
  // Timing mode, a warm repeat: from the completion of the launch before it to its own, as a pair of
  // CUDA events around back-to-back launches measures (the host submits them host.launch_call_ns
  // apart, the device runs them in order).
  double event_ns = 0;
};

// Functional: instructions execute with exact semantics and no notion of time (fast).
// Timing: the cycle-level model of the configured GPU; same results, plus cycles and statistics.
// A process can hold one timing-mode Runtime (SystemC elaborates one design per process).
enum class Mode { Functional, Timing };
const char* modeName(Mode m);
Mode modeFromName(const std::string& name);  // "functional" | "timing"; throws RuntimeError

class Runtime {
 public:
  // Builds a device from a config (see configs/). Throws ConfigError on a bad config.
  explicit Runtime(const GpuConfig& config, Mode mode = Mode::Functional, const TraceOptions& trace = {});
  // The default config (configs/tiny.yaml), functional mode.
  Runtime();
  Mode mode() const;
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const DeviceProperties& properties() const;

  // Memory. malloc throws std::bad_alloc-like RuntimeError when the device is out of memory.
  DevicePtr malloc(std::size_t bytes);
  void free(DevicePtr ptr);
  void memcpyHtoD(DevicePtr dst, const void* src, std::size_t bytes);
  void memcpyDtoH(void* dst, DevicePtr src, std::size_t bytes);
  void memcpyDtoD(DevicePtr dst, DevicePtr src, std::size_t bytes);
  void memset(DevicePtr dst, int value, std::size_t bytes);

  // Typed conveniences.
  template <typename T> DevicePtr upload(const std::vector<T>& host) {
    DevicePtr p = malloc(host.size() * sizeof(T));
    memcpyHtoD(p, host.data(), host.size() * sizeof(T));
    return p;
  }
  template <typename T> std::vector<T> download(DevicePtr src, std::size_t count) {
    std::vector<T> host(count);
    memcpyDtoH(host.data(), src, count * sizeof(T));
    return host;
  }

  // Modules: parse, check and decode once. Throws ptx::ParseError with file:line:col (limits of
  // the PTX front end from ptxLimits()); loadModuleFile reads through scgpu::readInputFile and
  // throws scgpu::InputError for a path that is not a regular file or is larger than
  // --limit input_file_bytes.
  Module& loadModuleFile(const std::string& path);
  Module& loadModuleString(const std::string& ptx_text, const std::string& name = "<string>");
  // Address of a module-scope .global/.const variable (cudaGetSymbolAddress).
  DevicePtr symbolAddress(Module& module, const std::string& name);

  // Looks up a kernel (.entry) by name. Throws RuntimeError when absent.
  Function& getFunction(Module& module, const std::string& kernel_name);

  // Launches and runs the kernel. Parameters are laid out as the PTX parameter list says;
  // a count or size mismatch is InvalidValue. Returns Success, InvalidConfiguration or
  // MemoryAllocation for a launch the device refuses (lastLaunchError() says why), or the error of
  // the fault (lastFault()).
  // After each launch, `n` more launches of it, back to back on the same arguments and data, with
  // the caches, TLBs and DRAM rows as it left them: the warm condition in which a user times a
  // kernel with CUDA events. In the timing mode they are submitted without waiting, the host
  // spending host.launch_call_ns on each; each is a launches() record marked warm_repeat, its
  // event_ns the time from the completion before it to its own. (A kernel that accumulates into
  // its output then changes it n more times.)
  void setWarmRepeats(std::uint32_t n);
  // `cluster`: thread-block cluster dimensions (sm_90); 0x0x0 takes the kernel's .reqnctapercluster,
  // or clusters of one block.
  Error launch(Function& fn, Dim3 grid, Dim3 block, std::size_t dynamic_shared_bytes,
               const KernelArgs& args, Dim3 cluster = Dim3(0, 0, 0));

  Error synchronize();
  // Sticky error of the last failed call, as cudaGetLastError (clears it) / cudaPeekAtLastError.
  Error getLastError();
  Error peekAtLastError() const;
  // The report of the last kernel fault, if any (kernel, block, warp, thread, PC, source line).
  const std::optional<sm::FaultReport>& lastFault() const;
  // Why the last launch was refused (InvalidConfiguration: a zero or too large grid or block
  // dimension, too many threads, .reqntid/.maxntid, too much shared memory; MemoryAllocation:
  // the local memory of every resident thread does not fit in the free device memory), e.g.
  //   "cannot launch kernel 'k' with grid 1x1x1 and block 2048x1x1: 2048 threads per block, above
  //    the device's maximum of 1024"
  // Empty after a launch that ran (faulted or not). A refusal is not a fault: lastFault() is empty.
  const std::string& lastLaunchError() const;

  // Text the kernels printed with printf, in device order, since the last call.
  std::string takePrintfOutput();
  // Everything the kernels printed since construction (not consumed by takePrintfOutput).
  const std::string& printfLog() const;
  // Statistics of the timing model (every component's counters and the derived metrics) as
  // JSON; in functional mode, the launch counts only.
  nlohmann::json statistics() const;
  // Per-launch records since construction.
  const std::vector<LaunchRecord>& launches() const;
  // Timing mode: writes the waveform, its .gtkw and the timeline asked for at construction (also
  // done by the destructor); returns the files written.
  std::vector<std::string> closeTraces();

 private:
  // One launch of a checked kernel and parameter buffer (launch() repeats it for setWarmRepeats).
  Error launchOnce(Function& fn, std::uint32_t module_slot, const std::uint32_t grid[3], const std::uint32_t block[3],
                   std::uint32_t shared, const std::vector<std::uint8_t>& params, bool warm_repeat,
                   const std::uint32_t cluster[3]);
  // Timing mode with warm repeats: the launch and its repeats submitted back to back, one sync.
  Error launchBackToBack(Function& fn, std::uint32_t module_slot, const std::uint32_t grid[3],
                         const std::uint32_t block[3], std::uint32_t shared, const std::vector<std::uint8_t>& params,
                         const std::uint32_t cluster[3]);
  // Puts one launch on the runtime's stream (no wait).
  scgpu_status submit(Function& fn, std::uint32_t module_slot, const std::uint32_t grid[3],
                      const std::uint32_t block[3], std::uint32_t shared, const std::vector<std::uint8_t>& params,
                      const std::uint32_t cluster[3]);
  // The record of one completed (or refused) launch from the device's report: launches(), printf,
  // the fault or refusal it ended with.
  Error record(Function& fn, std::uint32_t module_slot, const std::uint32_t grid[3], const std::uint32_t block[3],
               const LaunchReport& report, scgpu_status st, double wall, bool warm_repeat, double event_ns);
  Module& loadModuleText(const std::string& text, const std::string& name);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The PTX front end's limits in force: scgpu::inputLimits() (--limit ptx_*) as a ptx::Limits.
ptx::Limits ptxLimits();

// Thrown for API misuse (bad pointer, unknown kernel); kernel faults are Error codes, not exceptions.
class RuntimeError : public std::runtime_error {
 public:
  RuntimeError(Error code, const std::string& what) : std::runtime_error(what), code_(code) {}
  Error code() const { return code_; }
 private:
  Error code_;
};

}  // namespace scgpu::driver
