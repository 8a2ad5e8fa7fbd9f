#include "driver/device_model.h"

#include <fmt/format.h>

#include "driver/launch_setup.h"
#include "driver/runtime.h"
#include "driver/timing_backend.h"
#include "ptx/parser.h"
#include "tlm/gpu_config.h"
#include "tlm/host/scgpu_regs.h"

namespace scgpu::driver {
namespace {

std::uint32_t errorKindOfFault(const std::string& kind) {
  if (kind == "illegal address" || kind == "stack overflow") return SCGPU_ERROR_KIND_ILLEGAL_ADDRESS;
  if (kind == "misaligned address") return SCGPU_ERROR_KIND_MISALIGNED_ADDRESS;
  if (kind == "illegal instruction") return SCGPU_ERROR_KIND_ILLEGAL_INSTRUCTION;
  if (kind == "assert") return SCGPU_ERROR_KIND_ASSERT;
  if (kind == "barrier deadlock" || kind == "watchdog" || kind == "timeout") return SCGPU_ERROR_KIND_TIMEOUT;
  return SCGPU_ERROR_KIND_TRAP;  // trap, breakpoint
}

// The runtime's error for a fault (as cudaError_t would say it).
Error errorOfFault(const std::string& kind) {
  if (kind == "illegal address" || kind == "stack overflow") return Error::IllegalAddress;
  if (kind == "misaligned address") return Error::MisalignedAddress;
  if (kind == "illegal instruction") return Error::IllegalInstruction;
  if (kind == "assert") return Error::Assert;
  if (kind == "barrier deadlock" || kind == "watchdog" || kind == "timeout") return Error::BarrierDeadlock;
  return Error::LaunchFailure;  // trap, breakpoint
}

}  // namespace

DeviceModel::DeviceModel(const GpuConfig& config, Mode mode, const TraceOptions& trace)
    : mode_(mode),
      props_(DeviceProperties::fromConfig(config)),
      core_clock_mhz_(config.getDouble("clocks.core_clock_mhz", 1000)),
      memory_(props_.total_global_mem) {
  limits_.watchdog_warp_instructions_per_block =
      std::uint64_t(config.getInt("limits.watchdog_warp_instructions_per_block", 1'000'000'000));
  limits_.warp_instructions_per_launch = std::uint64_t(
      config.getInt("limits.warp_instructions_per_launch", std::int64_t(limits_.warp_instructions_per_launch)));
  call_depth_frames_ = std::uint64_t(config.getInt("limits.call_depth_frames", std::int64_t(sm::LaunchState{}.call_depth_frames)));
  if (mode == Mode::Timing) timing_ = std::make_unique<TimingBackend>(config, memory_, trace);
  else if (trace.enabled())
    throw RuntimeError(Error::InvalidValue, "waveforms and timelines come from the timing model: use timing mode");
}

DeviceModel::~DeviceModel() = default;

host::DeviceIdentity DeviceModel::identity() const {
  host::DeviceIdentity id;
  id.cc_major = std::uint32_t(props_.major);
  id.cc_minor = std::uint32_t(props_.minor);
  id.num_sms = std::uint32_t(props_.multiprocessor_count);
  id.memory_bytes = props_.total_global_mem;
  id.core_clock_mhz = core_clock_mhz_;
  id.const_memory_bytes = props_.total_const_mem;
  id.shared_per_block_bytes = props_.shared_mem_per_block_optin;
  id.timing = mode_ == Mode::Timing;
  return id;
}

bool DeviceModel::read(std::uint64_t addr, void* dst, std::uint64_t bytes) {
  if (bytes == 0) return true;
  if (!memory_.valid(addr, bytes)) return false;
  memory_.read(addr, dst, bytes);
  return true;
}
bool DeviceModel::write(std::uint64_t addr, const void* src, std::uint64_t bytes) {
  if (bytes == 0) return true;
  if (!memory_.valid(addr, bytes)) return false;
  memory_.write(addr, src, bytes);
  return true;
}
bool DeviceModel::fill(std::uint64_t addr, std::uint8_t value, std::uint64_t bytes) {
  if (bytes == 0) return true;
  if (!memory_.valid(addr, bytes)) return false;
  memory_.fill(addr, value, bytes);
  return true;
}
bool DeviceModel::map(std::uint64_t va, std::uint64_t bytes, std::string* why) {
  if (memory_.allocateAt(va, bytes, why)) return true;
  *why = fmt::format("[0x{:x}, +{}): {}", va, bytes, *why);
  return false;
}
bool DeviceModel::unmap(std::uint64_t va, std::string* why) {
  if (memory_.release(va)) return true;
  *why = fmt::format("0x{:x} is not the start of a mapping", va);
  return false;
}

bool DeviceModel::loadModule(std::uint32_t slot, const std::string& text, std::uint64_t globals_va, std::string* why) {
  if (slot >= kModuleSlots || modules_[slot]) {
    *why = fmt::format("LOAD_MODULE: slot {} is {}", slot, slot >= kModuleSlots ? "not below 256" : "in use");
    return false;
  }
  try {
    const std::string name = fmt::format("module{}.ptx", slot);
    ptx::Module ir = ptx::parseModule(text, name, ptxLimits());
    if (Module::globalsBytes(ir) && !globals_va) {
      *why = "LOAD_MODULE: the module has variables but GLOBALS_VA is 0";
      return false;
    }
    modules_[slot] = std::make_unique<Module>(std::move(ir), memory_, props_, globals_va);
    return true;
  } catch (const std::exception& e) {
    *why = fmt::format("LOAD_MODULE into slot {}: {}", slot, e.what());
    return false;
  }
}

bool DeviceModel::unloadModule(std::uint32_t slot, std::string* why) {
  if (slot >= kModuleSlots || !modules_[slot]) {
    *why = fmt::format("UNLOAD_MODULE: slot {} holds no module", slot);
    return false;
  }
  modules_[slot].reset();
  return true;
}

host::LaunchOutcome DeviceModel::launch(const host::LaunchRequest& r) {
  host::LaunchOutcome o;
  last_launch_ = LaunchReport{};
  last_launch_.kernel = r.entry;
  auto refuse = [&](const std::string& why, Error status = Error::InvalidConfiguration) {
    o.error_kind = SCGPU_ERROR_KIND_LAUNCH_REFUSED;
    o.message = why;
    last_launch_.status = status;
    last_launch_.refusal = why;
    return o;
  };
  if (r.module_slot >= kModuleSlots || !modules_[r.module_slot])
    return refuse(fmt::format("LAUNCH: module slot {} holds no module", r.module_slot), Error::InvalidResourceHandle);
  Function* fn = modules_[r.module_slot]->function(r.entry);
  if (!fn)
    return refuse(fmt::format("LAUNCH: module slot {} has no kernel '{}'", r.module_slot, r.entry),
                  Error::InvalidResourceHandle);
  const ptx::Program& prog = fn->program();
  if (r.params.size() != prog.param_buffer_bytes)
    return refuse(fmt::format("LAUNCH: kernel '{}' takes {} bytes of parameters, the descriptor gives {}",
                              prog.kernel_name, prog.param_buffer_bytes, r.params.size()),
                  Error::InvalidValue);
  sm::LaunchState launch;
  std::string why;
  const Error refused = setupLaunch(prog, Dim3(r.grid[0], r.grid[1], r.grid[2]), Dim3(r.block[0], r.block[1], r.block[2]),
                                    r.shared_bytes, memory_, props_, call_depth_frames_, grid_id_ + 1, launch, &why);
  if (refused != Error::Success) return refuse(why, refused);
  ++grid_id_;
  launch.params = r.params;
  sm::LaunchResult result;
  if (timing_) {
    const TimingResult t = timing_->run(launch, prog, r.shared_bytes);
    result = t.result;
    last_launch_.core_cycles = t.core_cycles;
    last_launch_.simulated_ns = t.simulated_ns;
    o.duration_ns = std::uint64_t(t.simulated_ns + 0.5);
  } else {
    sm::FunctionalEngine engine(limits_);
    result = engine.run(launch);
  }
  printf_ += launch.printf_output;
  last_launch_.warp_instructions = result.warp_instructions;
  last_launch_.thread_instructions = result.thread_instructions;
  if (result.fault) {
    const sm::FaultReport& f = *result.fault;
    last_launch_.fault = f;
    last_launch_.status = errorOfFault(f.kind);
    o.error_kind = errorKindOfFault(f.kind);
    o.message = f.toString();
    o.address = f.address;
    for (int i = 0; i < 3; ++i) o.block[i] = f.block[i];
    o.warp = f.warp;
    o.lane = f.lane;
    o.pc = f.pc;
    o.ptx_line = f.pc < prog.code.size() ? prog.code[f.pc].ptx_line : 0;
  }
  return o;
}

void DeviceModel::reset() {
  for (auto& m : modules_) m.reset();
  memory_.reset();
  grid_id_ = 0;
  printf_.clear();
  last_launch_ = LaunchReport{};
}

nlohmann::json DeviceModel::statistics() const { return timing_ ? timing_->statistics() : nlohmann::json::object(); }
void DeviceModel::closeTraces() {
  if (timing_) timing_->closeTraces();
}

std::string DeviceModel::takePrintfOutput() {
  std::string out;
  out.swap(printf_);
  return out;
}

}  // namespace scgpu::driver
