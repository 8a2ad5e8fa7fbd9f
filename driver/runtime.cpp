#include "driver/runtime.h"

#include <chrono>
#include <fmt/format.h>
#include <map>

#include "driver/launch_setup.h"
#include "driver/module.h"
#include "base/input_file.h"
#include "base/input_limits.h"
#include "driver/timing_backend.h"
#include "memsys/backing_store.h"
#include "ptx/decoder.h"
#include "ptx/parser.h"
#include "sm/exec/handlers.h"
#include "sm/functional_engine.h"
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

namespace {
Error errorOfFault(const std::string& kind) {
  if (kind == "illegal address" || kind == "stack overflow") return Error::IllegalAddress;
  if (kind == "misaligned address") return Error::MisalignedAddress;
  if (kind == "illegal instruction") return Error::IllegalInstruction;
  if (kind == "assert") return Error::Assert;
  if (kind == "barrier deadlock" || kind == "watchdog" || kind == "timeout") return Error::BarrierDeadlock;
  return Error::LaunchFailure;  // trap, breakpoint
}
}  // namespace

struct Runtime::Impl {
  Mode mode;
  GpuConfig config;
  DeviceProperties props;
  memsys::BackingStore memory;
  std::vector<std::unique_ptr<Module>> modules;
  Error last_error = Error::Success;
  std::optional<sm::FaultReport> last_fault;
  std::string last_launch_error;  // why the last refused launch was refused
  std::string printf_output;
  std::string printf_log;
  std::unique_ptr<TimingBackend> timing;
  TraceOptions trace;
  std::vector<LaunchRecord> launches;
  std::uint64_t grid_id = 0;
  sm::EngineLimits limits;
  std::uint64_t call_depth_frames = sm::LaunchState{}.call_depth_frames;

  Impl(const GpuConfig& c, Mode m)
      : mode(m), config(c), props(DeviceProperties::fromConfig(c)), memory(props.total_global_mem) {
    limits.watchdog_warp_instructions_per_block =
        std::uint64_t(c.getInt("limits.watchdog_warp_instructions_per_block", 1'000'000'000));
    limits.warp_instructions_per_launch =
        std::uint64_t(c.getInt("limits.warp_instructions_per_launch", std::int64_t(limits.warp_instructions_per_launch)));
    call_depth_frames = std::uint64_t(c.getInt("limits.call_depth_frames", std::int64_t(call_depth_frames)));
  }

  Error fail(Error e) {
    last_error = e;
    return e;
  }
  void checkRange(DevicePtr p, std::size_t bytes, const char* what) {
    if (bytes == 0) return;
    if (!memory.valid(p, bytes))
      throw RuntimeError(Error::InvalidValue,
                         fmt::format("{}: [0x{:x}, +{}) is not inside one device allocation", what, p, bytes));
  }
};

Runtime::Runtime(const GpuConfig& config, Mode mode, const TraceOptions& trace)
    : impl_(std::make_unique<Impl>(config, mode)) {
  if (mode == Mode::Timing) impl_->timing = std::make_unique<TimingBackend>(config, impl_->memory, trace);
  else if (trace.enabled())
    throw RuntimeError(Error::InvalidValue, "waveforms and timelines come from the timing model: use timing mode");
  impl_->trace = trace;
}

std::vector<std::string> Runtime::closeTraces() {
  std::vector<std::string> files;
  if (!impl_->timing) return files;
  impl_->timing->closeTraces();
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
  DevicePtr p = impl_->memory.allocate(bytes);
  if (!p) {
    impl_->last_error = Error::MemoryAllocation;
    throw RuntimeError(Error::MemoryAllocation,
                       fmt::format("out of device memory allocating {} bytes (memory.global_size_bytes = {})", bytes,
                                   impl_->props.total_global_mem));
  }
  return p;
}

void Runtime::free(DevicePtr ptr) {
  if (ptr == 0) return;
  if (!impl_->memory.release(ptr))
    throw RuntimeError(Error::InvalidDevicePointer, fmt::format("free of 0x{:x}, which is not an allocation", ptr));
}

void Runtime::memcpyHtoD(DevicePtr dst, const void* src, std::size_t bytes) {
  impl_->checkRange(dst, bytes, "memcpy host to device");
  impl_->memory.write(dst, src, bytes);
}
void Runtime::memcpyDtoH(void* dst, DevicePtr src, std::size_t bytes) {
  impl_->checkRange(src, bytes, "memcpy device to host");
  impl_->memory.read(src, dst, bytes);
}
void Runtime::memcpyDtoD(DevicePtr dst, DevicePtr src, std::size_t bytes) {
  impl_->checkRange(src, bytes, "memcpy device to device (source)");
  impl_->checkRange(dst, bytes, "memcpy device to device (destination)");
  std::vector<std::uint8_t> tmp(bytes);
  impl_->memory.read(src, tmp.data(), bytes);
  impl_->memory.write(dst, tmp.data(), bytes);
}
void Runtime::memset(DevicePtr dst, int value, std::size_t bytes) {
  impl_->checkRange(dst, bytes, "memset");
  impl_->memory.fill(dst, std::uint8_t(value), bytes);
}

Module& Runtime::loadModuleFile(const std::string& path) {
  // Bounded: a regular file of at most --limit input_file_bytes (an InputError otherwise).
  const std::string text = readInputFile(path, "PTX file");
  return loadModuleIR(ptx::parseModule(text, path, ptxLimits()));
}
Module& Runtime::loadModuleString(const std::string& text, const std::string& name) {
  return loadModuleIR(ptx::parseModule(text, name, ptxLimits()));
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

Module& Runtime::loadModuleIR(ptx::Module ir) {
  auto mod = std::make_unique<Module>(std::move(ir), impl_->memory, impl_->props);
  impl_->modules.push_back(std::move(mod));
  return *impl_->modules.back();
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

Error Runtime::launch(Function& fn, Dim3 grid, Dim3 block, std::size_t dynamic_shared_bytes, const KernelArgs& args) {
  Impl& s = *impl_;
  const ptx::Program& prog = fn.program();
  const DeviceProperties& p = s.props;
  // A launch the device refuses is not a fault: nothing ran. It returns InvalidConfiguration (or
  // MemoryAllocation) and says why in lastLaunchError().
  s.last_launch_error.clear();
  sm::LaunchState launch;
  std::string why;
  const Error refused = setupLaunch(prog, grid, block, dynamic_shared_bytes, s.memory, p, s.call_depth_frames,
                                    s.grid_id + 1, launch, &why);
  if (refused != Error::Success) {
    s.last_fault.reset();
    s.last_error = refused;
    s.last_launch_error = why;
    return refused;
  }
  ++s.grid_id;

  // Parameters, laid out as the PTX parameter list says.
  if (args.size() != prog.params.size()) {
    s.last_error = Error::InvalidValue;
    throw RuntimeError(Error::InvalidValue, fmt::format("kernel '{}' takes {} parameters, {} given", prog.kernel_name,
                                                        prog.params.size(), args.size()));
  }
  launch.params.assign(prog.param_buffer_bytes, 0);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& param = prog.params[i];
    const auto& bytes = args.args()[i].bytes;
    if (bytes.size() != param.size) {
      s.last_error = Error::InvalidValue;
      throw RuntimeError(Error::InvalidValue,
                         fmt::format("kernel '{}' parameter {} ('{}') is {} bytes, argument is {} bytes",
                                     prog.kernel_name, i, param.name, param.size, bytes.size()));
    }
    std::copy(bytes.begin(), bytes.end(), launch.params.begin() + param.offset);
  }

  LaunchRecord rec;
  rec.kernel = prog.kernel_name;
  rec.grid = grid;
  rec.block = block;
  auto t0 = std::chrono::steady_clock::now();
  sm::LaunchResult r;
  if (s.timing) {
    TimingResult t = s.timing->run(launch, fn.program(), static_cast<std::uint32_t>(dynamic_shared_bytes));
    r = t.result;
    rec.core_cycles = t.core_cycles;
    rec.simulated_ns = t.simulated_ns;
  } else {
    sm::FunctionalEngine engine(s.limits);
    r = engine.run(launch);
  }
  rec.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.printf_output += launch.printf_output;
  s.printf_log += launch.printf_output;
  rec.warp_instructions = r.warp_instructions;
  rec.thread_instructions = r.thread_instructions;
  s.launches.push_back(rec);
  if (r.fault) {
    s.last_fault = r.fault;
    return s.fail(errorOfFault(r.fault->kind));
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
  if (impl_->timing) out["components"] = impl_->timing->statistics();
  return out;
}

}  // namespace scgpu::driver
