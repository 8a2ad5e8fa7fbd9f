#include "driver/functional_device.h"

#include <fmt/format.h>

#include "driver/launch_setup.h"
#include "driver/runtime.h"
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

}  // namespace

FunctionalDevice::FunctionalDevice(const GpuConfig& config)
    : props_(DeviceProperties::fromConfig(config)),
      core_clock_mhz_(config.getDouble("clocks.core_clock_mhz", 1000)),
      memory_(std::make_unique<memsys::BackingStore>(props_.total_global_mem)) {
  limits_.watchdog_warp_instructions_per_block =
      std::uint64_t(config.getInt("limits.watchdog_warp_instructions_per_block", 1'000'000'000));
  limits_.warp_instructions_per_launch = std::uint64_t(
      config.getInt("limits.warp_instructions_per_launch", std::int64_t(limits_.warp_instructions_per_launch)));
  call_depth_frames_ = std::uint64_t(config.getInt("limits.call_depth_frames", std::int64_t(sm::LaunchState{}.call_depth_frames)));
}

FunctionalDevice::~FunctionalDevice() = default;

host::DeviceIdentity FunctionalDevice::identity() const {
  host::DeviceIdentity id;
  id.cc_major = std::uint32_t(props_.major);
  id.cc_minor = std::uint32_t(props_.minor);
  id.num_sms = std::uint32_t(props_.multiprocessor_count);
  id.memory_bytes = props_.total_global_mem;
  id.core_clock_mhz = core_clock_mhz_;
  id.timing = false;
  return id;
}

bool FunctionalDevice::read(std::uint64_t addr, void* dst, std::uint64_t bytes) {
  if (bytes == 0) return true;
  if (!memory_->valid(addr, bytes)) return false;
  memory_->read(addr, dst, bytes);
  return true;
}
bool FunctionalDevice::write(std::uint64_t addr, const void* src, std::uint64_t bytes) {
  if (bytes == 0) return true;
  if (!memory_->valid(addr, bytes)) return false;
  memory_->write(addr, src, bytes);
  return true;
}
bool FunctionalDevice::fill(std::uint64_t addr, std::uint8_t value, std::uint64_t bytes) {
  if (bytes == 0) return true;
  if (!memory_->valid(addr, bytes)) return false;
  memory_->fill(addr, value, bytes);
  return true;
}
bool FunctionalDevice::map(std::uint64_t va, std::uint64_t bytes, std::string* why) {
  if (memory_->allocateAt(va, bytes, why)) return true;
  *why = fmt::format("[0x{:x}, +{}): {}", va, bytes, *why);
  return false;
}
bool FunctionalDevice::unmap(std::uint64_t va, std::string* why) {
  if (memory_->release(va)) return true;
  *why = fmt::format("0x{:x} is not the start of a mapping", va);
  return false;
}

bool FunctionalDevice::loadModule(std::uint32_t slot, const std::string& text, std::uint64_t globals_va, std::string* why) {
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
    modules_[slot] = std::make_unique<Module>(std::move(ir), *memory_, props_, globals_va);
    return true;
  } catch (const std::exception& e) {
    *why = fmt::format("LOAD_MODULE into slot {}: {}", slot, e.what());
    return false;
  }
}

bool FunctionalDevice::unloadModule(std::uint32_t slot, std::string* why) {
  if (slot >= kModuleSlots || !modules_[slot]) {
    *why = fmt::format("UNLOAD_MODULE: slot {} holds no module", slot);
    return false;
  }
  modules_[slot].reset();
  return true;
}

host::LaunchOutcome FunctionalDevice::launch(const host::LaunchRequest& r) {
  host::LaunchOutcome o;
  auto refuse = [&](const std::string& why) {
    o.error_kind = SCGPU_ERROR_KIND_LAUNCH_REFUSED;
    o.message = why;
    return o;
  };
  if (r.module_slot >= kModuleSlots || !modules_[r.module_slot])
    return refuse(fmt::format("LAUNCH: module slot {} holds no module", r.module_slot));
  Function* fn = modules_[r.module_slot]->function(r.entry);
  if (!fn) return refuse(fmt::format("LAUNCH: module slot {} has no kernel '{}'", r.module_slot, r.entry));
  const ptx::Program& prog = fn->program();
  if (r.params.size() != prog.param_buffer_bytes)
    return refuse(fmt::format("LAUNCH: kernel '{}' takes {} bytes of parameters, the descriptor gives {}",
                              prog.kernel_name, prog.param_buffer_bytes, r.params.size()));
  sm::LaunchState launch;
  std::string why;
  if (setupLaunch(prog, Dim3(r.grid[0], r.grid[1], r.grid[2]), Dim3(r.block[0], r.block[1], r.block[2]),
                  r.shared_bytes, *memory_, props_, call_depth_frames_, grid_id_ + 1, launch, &why) != Error::Success)
    return refuse(why);
  ++grid_id_;
  launch.params = r.params;
  sm::FunctionalEngine engine(limits_);
  const sm::LaunchResult result = engine.run(launch);
  printf_ += launch.printf_output;
  if (result.fault) {
    const sm::FaultReport& f = *result.fault;
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

void FunctionalDevice::reset() {
  for (auto& m : modules_) m.reset();
  memory_ = std::make_unique<memsys::BackingStore>(props_.total_global_mem);
  grid_id_ = 0;
  printf_.clear();
}

std::string FunctionalDevice::takePrintfOutput() {
  std::string out;
  out.swap(printf_);
  return out;
}

}  // namespace scgpu::driver
