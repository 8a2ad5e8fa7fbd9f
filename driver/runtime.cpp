#include "driver/runtime.h"
#include "tlm/gpu_params.h"

#include <chrono>
#include <fmt/format.h>
#include <map>

#include "base/input_file.h"
#include "base/input_limits.h"
#include "driver/driver_internal.h"
#include "driver/inprocess_transport.h"
#include "driver/launch_setup.h"
#include "driver/module.h"
#include "driver/scgpu_driver.h"
#include "ptx/parser.h"
#include "tlm/gpu_config.h"

namespace scgpu::driver {

const char* errorName(Error e) {
  switch (e) {
    case Error::Success: return "cudaSuccess";
    case Error::InvalidValue: return "cudaErrorInvalidValue";
    case Error::MemoryAllocation: return "cudaErrorMemoryAllocation";
    case Error::InvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case Error::InvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case Error::LaunchFailure: return "cudaErrorLaunchFailure";
    case Error::IllegalAddress: return "cudaErrorIllegalAddress";
    case Error::MisalignedAddress: return "cudaErrorMisalignedAddress";
    case Error::IllegalInstruction: return "cudaErrorIllegalInstruction";
    case Error::Assert: return "cudaErrorAssert";
    case Error::BarrierDeadlock: return "cudaErrorLaunchTimeout";
    case Error::InvalidConfiguration: return "cudaErrorInvalidConfiguration";
  }
  return "cudaErrorUnknown";
}

const char* modeName(Mode m) { return m == Mode::Timing ? "timing" : "functional"; }
Mode modeFromName(const std::string& name) {
  if (name == "functional") return Mode::Functional;
  if (name == "timing") return Mode::Timing;
  throw RuntimeError(Error::InvalidValue, fmt::format("unknown mode '{}': expected functional or timing", name));
}

// The runtime is a client of the register-level driver (driver/scgpu_driver.h): every allocation
// is a MAP, every copy a COPY on a channel's ring, every module a LOAD_MODULE and every launch a
// LAUNCH, over the in-process transport. What the simulator reports beyond what a device tells its
// driver (instruction counts, cycles, the full fault report, printf text, statistics, waveforms)
// comes from the device model behind the transport, as from a debugger.
struct Runtime::Impl {
  Mode mode;
  GpuConfig config;
  DeviceProperties props;
  InProcessTransport* transport = nullptr;  // owned by dev
  scgpu_device* dev = nullptr;
  scgpu_stream* stream = nullptr;  // the runtime's stream: everything runs on it, in order
  std::map<const Function*, scgpu_module> function_slots;
  std::map<scgpu_module, std::string> module_names;
  Error last_error = Error::Success;
  std::optional<sm::FaultReport> last_fault;
  std::string last_launch_error;  // why the last refused launch was refused
  std::string printf_output;
  std::string printf_log;
  TraceOptions trace;
  std::vector<LaunchRecord> launches;
  std::uint32_t warm_repeats = 0;

  Impl(const GpuConfig& c, Mode m) : mode(m), config(c), props(DeviceProperties::fromConfig(c)) {}
  ~Impl() { scgpu_close(dev); }

  Error fail(Error e) {
    last_error = e;
    return e;
  }
  void checkRange(DevicePtr p, std::size_t bytes, const char* what) {
    if (bytes == 0) return;
    if (!scgpu_mem_contains(dev, p, bytes))
      throw RuntimeError(Error::InvalidValue,
                         fmt::format("{}: [0x{:x}, +{}) is not inside one device allocation", what, p, bytes));
  }
  // Work the runtime checked beforehand that fails on the device anyway is a bug of the model.
  void check(scgpu_status st, const char* what) {
    if (st != SCGPU_SUCCESS)
      throw RuntimeError(Error::InvalidValue, fmt::format("{}: {}: {}", what, scgpu_status_name(st), scgpu_last_error(dev)));
  }
};

Runtime::Runtime(const GpuConfig& config, Mode mode, const TraceOptions& trace)
    : impl_(std::make_unique<Impl>(config, mode)) {
  auto transport = std::make_unique<InProcessTransport>(config, mode, trace);
  impl_->transport = transport.get();
  if (scgpu_open_transport(std::move(transport), &impl_->dev) != SCGPU_SUCCESS)
    throw RuntimeError(Error::InvalidValue, fmt::format("the device did not come up: {}", scgpu_last_error(nullptr)));
  impl_->check(scgpu_stream_create(impl_->dev, 0, &impl_->stream), "creating the runtime's stream");
  impl_->trace = trace;
}

std::vector<std::string> Runtime::closeTraces() {
  std::vector<std::string> files = impl_->transport->closeHostTrace();
  if (impl_->mode != Mode::Timing) return files;
  impl_->transport->device().closeTraces();
  const TraceOptions& t = impl_->trace;
  if (!t.path.empty()) {
    files.push_back(t.path);
    files.push_back(t.path.substr(0, t.path.find_last_of('.')) + ".gtkw");
  }
  if (!t.timeline_path.empty()) files.push_back(t.timeline_path);
  return files;
}
Runtime::Runtime() : Runtime(GpuConfig::loadDefault()) {}
Mode Runtime::mode() const { return impl_->mode; }
Runtime::~Runtime() = default;

const DeviceProperties& Runtime::properties() const { return impl_->props; }

DevicePtr Runtime::malloc(std::size_t bytes) {
  scgpu_devptr p = 0;
  if (scgpu_mem_alloc(impl_->dev, bytes, &p) != SCGPU_SUCCESS) {
    impl_->last_error = Error::MemoryAllocation;
    throw RuntimeError(Error::MemoryAllocation,
                       fmt::format("out of device memory allocating {} bytes (memory.global_size_bytes = {})", bytes,
                                   impl_->props.total_global_mem));
  }
  return p;
}

void Runtime::free(DevicePtr ptr) {
  if (ptr == 0) return;
  if (scgpu_mem_free(impl_->dev, ptr) != SCGPU_SUCCESS)
    throw RuntimeError(Error::InvalidDevicePointer, fmt::format("free of 0x{:x}, which is not an allocation", ptr));
}

void Runtime::memcpyHtoD(DevicePtr dst, const void* src, std::size_t bytes) {
  impl_->checkRange(dst, bytes, "memcpy host to device");
  if (!bytes) return;
  impl_->check(scgpu_memcpy_htod_async(impl_->stream, dst, src, bytes), "memcpy host to device");
  impl_->check(scgpu_stream_synchronize(impl_->stream), "memcpy host to device");
}
void Runtime::memcpyDtoH(void* dst, DevicePtr src, std::size_t bytes) {
  impl_->checkRange(src, bytes, "memcpy device to host");
  if (!bytes) return;
  impl_->check(scgpu_memcpy_dtoh_async(impl_->stream, dst, src, bytes), "memcpy device to host");
  impl_->check(scgpu_stream_synchronize(impl_->stream), "memcpy device to host");
}
void Runtime::memcpyDtoD(DevicePtr dst, DevicePtr src, std::size_t bytes) {
  impl_->checkRange(src, bytes, "memcpy device to device (source)");
  impl_->checkRange(dst, bytes, "memcpy device to device (destination)");
  if (!bytes) return;
  impl_->check(scgpu_memcpy_dtod_async(impl_->stream, dst, src, bytes), "memcpy device to device");
  impl_->check(scgpu_stream_synchronize(impl_->stream), "memcpy device to device");
}
void Runtime::memset(DevicePtr dst, int value, std::size_t bytes) {
  impl_->checkRange(dst, bytes, "memset");
  if (!bytes) return;
  impl_->check(scgpu_memset_async(impl_->stream, dst, std::uint8_t(value), bytes), "memset");
  impl_->check(scgpu_stream_synchronize(impl_->stream), "memset");
}

Module& Runtime::loadModuleFile(const std::string& path) {
  // Bounded: a regular file of at most --limit input_file_bytes (an InputError otherwise).
  return loadModuleText(readInputFile(path, "PTX file"), path);
}
Module& Runtime::loadModuleString(const std::string& text, const std::string& name) {
  return loadModuleText(text, name);
}

ptx::Limits ptxLimits() {
  const InputLimits& in = inputLimits();
  ptx::Limits l;
  l.identifier_chars = in.ptx_identifier_chars;
  l.statements = in.ptx_statements;
  l.registers = in.ptx_registers;
  l.file_index = in.ptx_file_index;
  return l;
}

Module& Runtime::loadModuleText(const std::string& text, const std::string& name) {
  // The driver compiles it (ptx::ParseError with file:line:col for anything wrong) and loads it.
  scgpu_module slot = 0;
  scgpu_module_load_source(impl_->dev, text, name, &slot);
  Module& m = const_cast<Module&>(*scgpu_module_decoded(impl_->dev, slot));
  impl_->module_names[slot] = name;
  for (const std::string& kernel : m.kernelNames()) impl_->function_slots[m.function(kernel)] = slot;
  return m;
}

DevicePtr Runtime::symbolAddress(Module& module, const std::string& name) {
  std::uint64_t addr;
  if (!module.globalAddress(name, addr))
    throw RuntimeError(Error::InvalidValue, fmt::format("module has no .global or .const variable '{}'", name));
  return addr;
}

Function& Runtime::getFunction(Module& module, const std::string& name) {
  Function* f = module.function(name);
  if (!f) throw RuntimeError(Error::InvalidResourceHandle, fmt::format("module has no kernel named '{}'", name));
  return *f;
}

Error Runtime::launch(Function& fn, Dim3 grid, Dim3 block, std::size_t dynamic_shared_bytes, const KernelArgs& args,
                      Dim3 cluster) {
  Impl& s = *impl_;
  const ptx::Program& prog = fn.program();
  s.last_launch_error.clear();
  const auto slot = s.function_slots.find(&fn);
  if (slot == s.function_slots.end())
    throw RuntimeError(Error::InvalidResourceHandle, fmt::format("kernel '{}' is not from this runtime's modules", fn.name()));

  // Parameters, laid out as the PTX parameter list says.
  if (args.size() != prog.params.size()) {
    s.last_error = Error::InvalidValue;
    throw RuntimeError(Error::InvalidValue, fmt::format("kernel '{}' takes {} parameters, {} given", prog.kernel_name,
                                                        prog.params.size(), args.size()));
  }
  std::vector<std::uint8_t> params(prog.param_buffer_bytes, 0);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& param = prog.params[i];
    const auto& bytes = args.args()[i].bytes;
    if (bytes.size() != param.size) {
      s.last_error = Error::InvalidValue;
      throw RuntimeError(Error::InvalidValue,
                         fmt::format("kernel '{}' parameter {} ('{}') is {} bytes, argument is {} bytes",
                                     prog.kernel_name, i, param.name, param.size, bytes.size()));
    }
    std::copy(bytes.begin(), bytes.end(), params.begin() + param.offset);
  }

  const std::uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z},
                      c[3] = {cluster.x, cluster.y, cluster.z};
  // A launch descriptor holds 32 bits of dynamic shared memory; more is refused here, with the
  // device's own checks in their order (no shared-memory size that large can pass them).
  if (dynamic_shared_bytes > 0xFFFFFFFFu) {
    memsys::BackingStore no_memory(s.props.total_global_mem);
    sm::LaunchState unused;
    const Error refused = setupLaunch(prog, grid, block, dynamic_shared_bytes, no_memory, s.props, 0, 0, unused,
                                      &s.last_launch_error);
    s.last_fault.reset();
    return s.fail(refused);
  }
  const auto shared = std::uint32_t(dynamic_shared_bytes);
  if (s.warm_repeats > 0 && s.mode == Mode::Timing) return launchBackToBack(fn, slot->second, g, b, shared, params, c);
  for (std::uint32_t repeat = 0; repeat <= s.warm_repeats; ++repeat) {
    const Error e = launchOnce(fn, slot->second, g, b, shared, params, repeat > 0, c);
    if (e != Error::Success) return e;
  }
  return Error::Success;
}

void Runtime::setWarmRepeats(std::uint32_t n) { impl_->warm_repeats = n; }

scgpu_status Runtime::submit(Function& fn, std::uint32_t module_slot, const std::uint32_t g[3], const std::uint32_t b[3],
                             std::uint32_t shared, const std::vector<std::uint8_t>& params,
                             const std::uint32_t cluster[3]) {
  Impl& s = *impl_;
  const ptx::Program& prog = fn.program();
  return cluster[0] || cluster[1] || cluster[2]
             ? scgpu_launch_cluster(s.stream, module_slot, prog.kernel_name.c_str(), g, b, cluster, shared,
                                    params.data(), params.size())
             : scgpu_launch(s.stream, module_slot, prog.kernel_name.c_str(), g, b, shared, params.data(),
                            params.size());
}

Error Runtime::launchOnce(Function& fn, std::uint32_t module_slot, const std::uint32_t g[3], const std::uint32_t b[3],
                          std::uint32_t shared, const std::vector<std::uint8_t>& params, bool warm_repeat,
                          const std::uint32_t cluster[3]) {
  Impl& s = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  scgpu_status st = submit(fn, module_slot, g, b, shared, params, cluster);
  if (st == SCGPU_SUCCESS) st = scgpu_stream_synchronize(s.stream);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return record(fn, module_slot, g, b, s.transport->device().lastLaunch(), st, wall, warm_repeat, 0.0);
}

// The launch and its warm repeats back to back, as a program that times a kernel with CUDA events
// submits them: the host spends host.launch_call_ns on each call and does not wait in between, the
// device runs them in order on the stream, and a repeat's event time runs from the completion of
// the launch before it to its own.
Error Runtime::launchBackToBack(Function& fn, std::uint32_t module_slot, const std::uint32_t g[3],
                                const std::uint32_t b[3], std::uint32_t shared,
                                const std::vector<std::uint8_t>& params, const std::uint32_t cluster[3]) {
  Impl& s = *impl_;
  DeviceModel& device = s.transport->device();
  device.keepLaunchReports(true);
  device.takeLaunchReports();
  const auto t0 = std::chrono::steady_clock::now();
  scgpu_status st = SCGPU_SUCCESS;
  for (std::uint32_t repeat = 0; repeat <= s.warm_repeats && st == SCGPU_SUCCESS; ++repeat) {
    if (repeat > 0) s.transport->hostInterface().elapse(s.config.params().host.launch_call_ns);
    st = submit(fn, module_slot, g, b, shared, params, cluster);
  }
  const scgpu_status synced = scgpu_stream_synchronize(s.stream);
  if (st == SCGPU_SUCCESS) st = synced;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<LaunchReport> reports = device.takeLaunchReports();
  device.keepLaunchReports(false);
  if (reports.empty()) {  // nothing reached the device
    s.check(st, "launch");
    return Error::Success;
  }
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const LaunchReport& r = reports[i];
    const scgpu_status sti = r.fault ? SCGPU_ERROR_FAULT
                             : r.status != Error::Success ? SCGPU_ERROR_LAUNCH_REFUSED
                                                          : SCGPU_SUCCESS;
    const double event_ns = i > 0 ? double(r.end_ns) - double(reports[i - 1].end_ns) : 0.0;
    const Error e = record(fn, module_slot, g, b, r, sti, wall / double(reports.size()), i > 0, event_ns);
    if (e != Error::Success) return e;
  }
  return Error::Success;
}

Error Runtime::record(Function& fn, std::uint32_t module_slot, const std::uint32_t g[3], const std::uint32_t b[3],
                      const LaunchReport& report, scgpu_status st, double wall, bool warm_repeat, double event_ns) {
  Impl& s = *impl_;
  const ptx::Program& prog = fn.program();
  const Dim3 grid{g[0], g[1], g[2]}, block{b[0], b[1], b[2]};
  DeviceModel& device = s.transport->device();
  // The device knows the module by its slot; the runtime by the name it was loaded from. Every
  // "moduleN.ptx" that ends a word or precedes ":line:col" becomes that name.
  const auto runtimeNames = [&](std::string text) {
    const std::string device_name = fmt::format("module{}.ptx", module_slot);
    const std::string& name = s.module_names[module_slot];
    for (std::string::size_type at = 0; (at = text.find(device_name, at)) != std::string::npos;) {
      const std::string::size_type after = at + device_name.size();
      if (after < text.size() && text[after] != ':') {
        at = after;
        continue;
      }
      text.replace(at, device_name.size(), name);
      at += name.size();
    }
    return text;
  };
  if (st == SCGPU_ERROR_LAUNCH_REFUSED) {
    // A launch the device refuses is not a fault: nothing ran.
    s.last_fault.reset();
    s.last_launch_error = runtimeNames(report.refusal);
    return s.fail(report.status);
  }
  if (st != SCGPU_SUCCESS && st != SCGPU_ERROR_FAULT) s.check(st, "launch");

  LaunchRecord rec;
  rec.kernel = prog.kernel_name;
  rec.grid = grid;
  rec.block = block;
  rec.wall_seconds = wall;
  rec.warp_instructions = report.warp_instructions;
  rec.thread_instructions = report.thread_instructions;
  rec.core_cycles = report.core_cycles;
  rec.simulated_ns = report.simulated_ns;
  rec.warm_repeat = warm_repeat;
  rec.event_ns = event_ns;
  const std::string printed = device.takePrintfOutput();
  s.printf_output += printed;
  s.printf_log += printed;
  s.launches.push_back(rec);
  if (st == SCGPU_ERROR_FAULT) {
    sm::FaultReport f = *report.fault;
    f.ptx_location = runtimeNames(f.ptx_location);
    s.last_fault = f;
    return s.fail(report.status);
  }
  return Error::Success;
}

Error Runtime::synchronize() { return impl_->last_error; }
Error Runtime::getLastError() {
  Error e = impl_->last_error;
  impl_->last_error = Error::Success;
  return e;
}
Error Runtime::peekAtLastError() const { return impl_->last_error; }
const std::optional<sm::FaultReport>& Runtime::lastFault() const { return impl_->last_fault; }
const std::string& Runtime::lastLaunchError() const { return impl_->last_launch_error; }
std::string Runtime::takePrintfOutput() {
  std::string out;
  out.swap(impl_->printf_output);
  return out;
}
const std::vector<LaunchRecord>& Runtime::launches() const { return impl_->launches; }
const std::string& Runtime::printfLog() const { return impl_->printf_log; }

nlohmann::json Runtime::statistics() const {
  nlohmann::json launches = nlohmann::json::array();
  for (const auto& l : impl_->launches)
    launches.push_back({{"kernel", l.kernel},
                        {"grid", {l.grid.x, l.grid.y, l.grid.z}},
                        {"block", {l.block.x, l.block.y, l.block.z}},
                        {"warp_instructions", l.warp_instructions},
                        {"thread_instructions", l.thread_instructions},
                        {"core_cycles", l.core_cycles},
                        {"simulated_ns", l.simulated_ns}});
  nlohmann::json out = {{"mode", modeName(impl_->mode)}, {"launches", launches}};
  if (impl_->mode == Mode::Timing) out["components"] = impl_->transport->device().statistics();
  return out;
}

}  // namespace scgpu::driver
