// The state behind scgpu's libcudart.so.13: what a program registered (fat binaries, kernels,
// variables), the device it runs on (scgpu's register-level driver over the in-process host
// interface, opened at the first call that needs it), its streams, events, allocations and the
// error state CUDA keeps per thread. The extern "C" entry points (api_*.cpp) translate CUDA's
// types to and from it. One per process, behind one lock: the driver serves one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/run_control.h"
#include "cudart/cuda_abi.h"
#include "cudart/fatbin.h"
#include "driver/device_properties.h"
#include "driver/runtime.h"
#include "driver/scgpu_driver.h"

namespace scgpu {
class GpuConfig;
namespace ptx { struct Program; }
namespace driver { class InProcessTransport; class Module; }
}  // namespace scgpu

namespace scgpu::cudart {

// How `scgpu exec` (or the user) configures the library, from the environment:
//   SCGPU_CUDART_CONFIG      the GPU config (a path, or a name in configs/); default: hopper
//   SCGPU_CUDART_SET         config overrides, one `key=value` per line
//   SCGPU_CUDART_MODE        functional | timing (default timing)
//   SCGPU_CUDART_STATS_JSON  where to write the statistics at exit (per launch and per component)
//   SCGPU_CUDART_TRACE       the waveform (.fst/.vcd, timing mode)
//   SCGPU_CUDART_TIMELINE    the Chrome trace-event timeline (timing mode)
//   SCGPU_CUDART_TIMEOUT     seconds of wall-clock time the simulated device may run (0 or unset: no bound)
// While the device is open, the first Ctrl-C stops the running kernel (an "interrupted" fault the
// program sees as cudaErrorLaunchTimeout) instead of killing the process, so that the statistics
// are still written; a second one kills it.
struct Settings {
  std::string config = "hopper";
  std::vector<std::string> overrides;
  driver::Mode mode = driver::Mode::Timing;
  std::string stats_json, trace, timeline;
  double timeout_s = 0;
  static Settings fromEnvironment();
};

class State {
 public:
  static State& get();
  std::recursive_mutex mutex;

  // Registration, from the program's static initialisers (no device yet).
  void** registerFatbin(const void* wrapper);
  void registerFunction(void** handle, const void* host_function, const char* device_name);
  void registerVar(void** handle, const void* host_var, const char* device_name, std::size_t bytes, bool constant,
                   bool managed);
  void unregisterFatbin(void** handle);

  // The error calls return, as CUDA keeps it: a sticky error (a kernel fault) is returned by every
  // call until the device is reset; other errors are returned once and remembered for
  // cudaGetLastError.
  abi::Error fail(abi::Error e);
  abi::Error fail(abi::Error e, const std::string& message);  // also prints "scgpu: <message>"
  abi::Error takeLastError();
  abi::Error peekLastError() const { return last_error_; }
  abi::Error sticky() const { return sticky_; }

  // Opens the device on first use; kSuccess or the error (printed once).
  abi::Error ensureDevice();
  const driver::DeviceProperties& properties() const { return props_; }
  const GpuConfig& config() const { return *config_; }
  unsigned arch() const { return unsigned(props_.major * 10 + props_.minor); }

  // Memory.
  abi::Error malloc(void** ptr, std::size_t bytes);
  abi::Error mallocManaged(void** ptr, std::size_t bytes);
  abi::Error free(void* ptr);
  // Whether [p, p+bytes) lies in device memory the program allocated (or a module variable).
  bool isDevice(const void* p, std::size_t bytes) const;
  bool isManaged(const void* p) const;
  abi::Error memcpy(void* dst, const void* src, std::size_t bytes, abi::MemcpyKind kind, void* stream, bool async);
  abi::Error memcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                      std::size_t height, abi::MemcpyKind kind, void* stream, bool async);
  abi::Error memset(void* dst, int value, std::size_t bytes, void* stream, bool async);
  abi::Error memset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height, void* stream,
                      bool async);
  std::uint64_t allocatedBytes() const;
  abi::Error pointerAttributes(abi::PointerAttributes* attr, const void* p);

  // Host memory the program asked for as page-locked (cudaMallocHost/HostAlloc/HostRegister).
  abi::Error hostAlloc(void** ptr, std::size_t bytes);
  abi::Error hostFree(void* ptr);
  abi::Error hostRegister(void* ptr, std::size_t bytes);
  abi::Error hostUnregister(void* ptr);

  // Module variables by their host shadow (__cudaRegisterVar).
  abi::Error symbol(const void* host_var, scgpu_devptr* addr, std::size_t* bytes);

  // Kernels.
  abi::Error launch(const void* host_function, abi::Dim3 grid, abi::Dim3 block, void** args, std::size_t shared,
                    void* stream, bool cooperative = false, abi::Dim3 cluster = {0, 0, 0});
  abi::Error funcAttributes(abi::FuncAttributes* attr, const void* host_function);
  abi::Error funcSetAttribute(const void* host_function, int attr, int value);
  abi::Error occupancy(int* blocks, const void* host_function, int block_size, std::size_t dynamic_shared);
  bool isKernel(const void* host_function) const { return kernels_.count(host_function) != 0; }
  // The kernel's program (loads its module); null with the error in *e.
  const ptx::Program* program(const void* host_function, abi::Error* e);

  // The launch configuration stack of <<<>>> (__cudaPushCallConfiguration / Pop).
  struct CallConfig {
    abi::Dim3 grid, block;
    std::size_t shared;
    void* stream;
  };
  std::vector<CallConfig> call_stack;

  // Streams and events. Handles are the addresses of the objects below; 0 and the legacy handle
  // are the legacy default stream (the per-thread default stream is treated as it).
  abi::Error streamCreate(void** stream, unsigned flags, int priority);
  abi::Error streamDestroy(void* stream);
  abi::Error streamSynchronize(void* stream);
  abi::Error streamWaitEvent(void* stream, void* event);
  abi::Error deviceSynchronize();
  abi::Error deviceReset();
  abi::Error eventCreate(void** event, unsigned flags);
  abi::Error eventDestroy(void* event);
  abi::Error eventRecord(void* event, void* stream);
  abi::Error eventSynchronize(void* event);
  abi::Error eventQuery(void* event);
  abi::Error eventElapsed(float* ms, void* start, void* end);
  bool validStream(void* stream) const;
  // cudaStreamGetFlags / GetPriority / GetId.
  abi::Error streamInfo(void* stream, unsigned* flags, int* priority, unsigned long long* id);

  // Preferences the model takes (cudaDeviceSetLimit and friends).
  std::map<int, std::size_t> limits;
  unsigned device_flags = 0;
  int cache_config = 0;  // cudaFuncCachePreferNone

  // At exit: flushes printf, writes the statistics and waveforms, closes the device.
  void finish();

 private:
  State();
  struct Fatbin;
  struct Stream;
  struct Event;
  struct Kernel {
    Fatbin* fatbin;
    std::string name;
    int max_dynamic_shared = -1;  // cudaFuncAttributeMaxDynamicSharedMemorySize, -1: not set
    bool non_portable_cluster = false;  // cudaFuncAttributeNonPortableClusterSizeAllowed
  };
  struct Var {
    Fatbin* fatbin;
    std::string name;
    std::size_t bytes;
    bool managed;
  };
  struct Managed {
    std::size_t bytes;
  };

  abi::Error openDevice();
  // The most dynamic shared memory a launch of `k` may ask for: its
  // cudaFuncAttributeMaxDynamicSharedMemorySize, else the default per-block limit less its static
  // shared memory.
  std::uint64_t dynamicSharedLimit(const Kernel& k, const ptx::Program& prog) const;
  abi::Error loadModule(Fatbin& f);
  Stream* stream(void* handle);
  // Orders work on `s` after the legacy default stream (a blocking stream) or after every blocking
  // stream (the legacy stream), as the legacy default stream's implicit synchronisation says.
  abi::Error orderBefore(Stream& s);
  abi::Error syncStream(Stream& s);
  // Copies managed memory to the device before work that may read it, and back after a sync.
  abi::Error migrateToDevice(Stream& s);
  void migrateToHost();
  // The error of a driver call: a device fault becomes the sticky error (report on stderr).
  abi::Error check(scgpu_status st, const char* what);
  void flushPrintf();
  void writeStatistics();

  std::vector<std::unique_ptr<Fatbin>> fatbins_;
  std::map<const void*, Kernel> kernels_;
  std::map<const void*, Var> vars_;
  std::map<std::uint64_t, std::size_t> allocations_;  // device address -> bytes
  std::map<std::uint64_t, Managed> managed_;          // device address (== host address) -> bytes
  std::map<const void*, std::size_t> host_allocs_, host_registered_;
  std::set<Stream*> streams_;
  std::set<Event*> events_;
  std::unique_ptr<Stream> legacy_;
  bool managed_on_device_ = false;  // managed memory was copied to the device and may be newer there

  std::unique_ptr<GpuConfig> config_;
  Settings settings_;
  driver::DeviceProperties props_;
  scgpu_device* dev_ = nullptr;
  driver::InProcessTransport* transport_ = nullptr;  // owned by dev_
  std::unique_ptr<run_control::InterruptGuard> interrupt_;
  bool stopped_early_ = false;  // a launch ended by Ctrl-C or the timeout: statistics are partial
  bool open_failed_ = false;
  bool finished_ = false;
  abi::Error open_error_ = abi::kSuccess;
  abi::Error last_error_ = abi::kSuccess, sticky_ = abi::kSuccess;
};

// Prints "scgpu: <what> is not supported by scgpu's CUDA runtime" once per name and returns
// cudaErrorNotSupported (recorded as the last error).
abi::Error notSupported(const char* what);

}  // namespace scgpu::cudart
