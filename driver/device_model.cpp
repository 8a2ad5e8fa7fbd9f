#include "driver/device_model.h"

#include <algorithm>
#include <cmath>

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
      memory_(props_.total_global_mem),
      mmu_([this](std::uint64_t pa, std::uint64_t* v) {
        if (!memory_.valid(pa, 8)) return false;
        memory_.read(pa, v, 8);
        return true;
      }) {
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

template <typename Fn>
bool DeviceModel::forEachPiece(std::uint64_t va, std::uint64_t bytes, bool write, Fn fn) {
  if (!root_) return fn(va, 0, bytes);
  for (std::uint64_t done = 0; done < bytes;) {
    const memsys::Translation t = mmu_.translate(root_, va + done, write);
    if (!t.ok) {
      page_fault_ = host::PageFault{va + done, t.faultWord(write)};
      return false;
    }
    const std::uint64_t n = std::min(bytes - done, t.page_bytes - (t.pa - t.page_pa));
    if (!fn(t.pa, done, n)) return false;
    done += n;
  }
  return true;
}

void DeviceModel::invalidateTranslations(std::uint64_t root) {
  mmu_.invalidate(root);
  if (timing_) timing_->invalidateTlbs();  // the chip's TLBs hold one address space
}

bool DeviceModel::takePageFault(host::PageFault* fault) {
  if (!page_fault_) return false;
  *fault = *page_fault_;
  page_fault_.reset();
  return true;
}

bool DeviceModel::read(std::uint64_t addr, void* dst, std::uint64_t bytes) {
  if (bytes == 0) return true;
  return forEachPiece(addr, bytes, false, [&](std::uint64_t pa, std::uint64_t off, std::uint64_t n) {
    if (!memory_.valid(pa, n)) return false;
    memory_.read(pa, static_cast<std::uint8_t*>(dst) + off, n);
    return true;
  });
}
bool DeviceModel::write(std::uint64_t addr, const void* src, std::uint64_t bytes) {
  if (bytes == 0) return true;
  return forEachPiece(addr, bytes, true, [&](std::uint64_t pa, std::uint64_t off, std::uint64_t n) {
    if (!memory_.valid(pa, n)) return false;
    memory_.write(pa, static_cast<const std::uint8_t*>(src) + off, n);
    return true;
  });
}
bool DeviceModel::fill(std::uint64_t addr, std::uint8_t value, std::uint64_t bytes) {
  if (bytes == 0) return true;
  return forEachPiece(addr, bytes, true, [&](std::uint64_t pa, std::uint64_t, std::uint64_t n) {
    if (!memory_.valid(pa, n)) return false;
    memory_.fill(pa, value, n);
    return true;
  });
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

std::uint32_t DeviceModel::startLaunch(const host::LaunchRequest& r, std::uint32_t channel, std::uint32_t priority,
                                       std::uint64_t now_ns, host::LaunchOutcome* o) {
  LaunchReport report;
  report.kernel = r.entry;
  for (int i = 0; i < 3; ++i) {
    report.grid[i] = r.grid[i];
    report.block[i] = r.block[i];
  }
  auto refuse = [&](const std::string& why, Error status = Error::InvalidConfiguration) {
    o->error_kind = SCGPU_ERROR_KIND_LAUNCH_REFUSED;
    o->message = why;
    report.status = status;
    report.refusal = why;
    noteLaunch(report);
    return 0u;
  };
  if (r.module_slot >= kModuleSlots || !modules_[r.module_slot])
    return refuse(fmt::format("LAUNCH: module slot {} holds no module", r.module_slot), Error::InvalidResourceHandle);
  Function* fn = modules_[r.module_slot]->function(r.entry);
  if (!fn)
    return refuse(fmt::format("LAUNCH: module slot {} has no kernel '{}'", r.module_slot, r.entry),
                  Error::InvalidResourceHandle);
  // The timing model issues the kernel as ptxas would schedule it (ptx/schedule.h); the
  // functional core runs it as written. Both compute the same.
  const ptx::Program& prog = timing_ ? fn->timingProgram() : fn->program();
  if (r.params.size() != prog.param_buffer_bytes)
    return refuse(fmt::format("LAUNCH: kernel '{}' takes {} bytes of parameters, the descriptor gives {}",
                              prog.kernel_name, prog.param_buffer_bytes, r.params.size()),
                  Error::InvalidValue);
  auto launch = std::make_unique<sm::LaunchState>();
  std::string why;
  const Error refused = setupLaunch(prog, Dim3(r.grid[0], r.grid[1], r.grid[2]), Dim3(r.block[0], r.block[1], r.block[2]),
                                    r.shared_bytes, memory_, props_, call_depth_frames_, grid_id_ + 1, *launch, &why);
  if (refused != Error::Success) return refuse(why, refused);
  ++grid_id_;
  launch->params = r.params;
  launch->mmu = &mmu_;
  launch->page_table_root = r.page_table_root;
  // Thread-block clusters: the descriptor's, else the kernel's .reqnctapercluster, else 1x1x1.
  std::uint32_t cluster[3] = {r.cluster[0], r.cluster[1], r.cluster[2]};
  if (!cluster[0] && !cluster[1] && !cluster[2])
    for (int i = 0; i < 3; ++i) cluster[i] = prog.reqnctapercluster[i];
  if (!cluster[0] && !cluster[1] && !cluster[2]) cluster[0] = cluster[1] = cluster[2] = 1;
  const std::uint64_t cluster_blocks = std::uint64_t(cluster[0]) * cluster[1] * cluster[2];
  // At most 16 blocks (the H100's non-portable maximum; CUDA's portable size is 8), or the kernel's
  // .maxclusterrank.
  const std::uint32_t max_cluster = prog.maxclusterrank ? std::min<std::uint32_t>(prog.maxclusterrank, 16) : 16;
  for (int i = 0; i < 3; ++i)
    if (cluster[i] == 0 || r.grid[i] % cluster[i] != 0)
      return refuse(fmt::format("cannot launch kernel '{}' with grid {}x{}x{} in clusters of {}x{}x{}: every "
                                "cluster dimension must be at least 1 and divide the grid's",
                                prog.kernel_name, r.grid[0], r.grid[1], r.grid[2], cluster[0], cluster[1], cluster[2]),
                    Error::InvalidConfiguration);
  if (cluster_blocks > max_cluster)
    return refuse(fmt::format("cannot launch kernel '{}' in clusters of {}x{}x{}: {} blocks, above the device's "
                              "maximum of {}", prog.kernel_name, cluster[0], cluster[1], cluster[2], cluster_blocks,
                              max_cluster),
                  Error::InvalidConfiguration);
  for (int i = 0; i < 3; ++i) launch->cluster[i] = cluster[i];
  if (r.grid_sync_addr) {
    // Where cooperative groups' grid.sync() finds its barrier: %envreg1 (high) and %envreg2 (low).
    launch->cooperative = true;
    launch->envreg[1] = std::uint32_t(r.grid_sync_addr >> 32);
    launch->envreg[2] = std::uint32_t(r.grid_sync_addr);
  }
  const std::uint32_t id = next_id_++;
  Pending& p = pending_[id];
  p.program = &prog;
  p.report = report;
  p.launch = std::move(launch);
  if (timing_) {
    // The chip catches up with the host's time first (kernels finishing meanwhile are kept).
    while (timing_->deviceNs() + 1e-3 < double(now_ns)) runTiming(double(now_ns));
    TimingResult no;
    // Resources (registers estimated from liveness) from the PTX order, as ptxas allocates them.
    if (!timing_->start(*p.launch, fn->program(), r.shared_bytes, priority, channel, &no)) {
      // No block fits on an SM: the chip refuses it as it would fault at once.
      done_.push_back({id, now_ns, no.result, 0, 0});
    }
  } else {
    // Functional mode has no time: the kernel runs to completion as it starts.
    sm::FunctionalEngine engine(limits_);
    done_.push_back({id, now_ns, engine.run(*p.launch), 0, 0});
  }
  return id;
}

std::optional<std::pair<std::uint32_t, host::LaunchOutcome>> DeviceModel::advance(std::uint64_t until_ns,
                                                                                 std::uint64_t* end_ns) {
  // Kernels run in timing mode: simulate until one completes or `until_ns` comes.
  // With nothing running the chip's time only moves on.
  if (done_.empty() && timing_ && (timing_->busy() || until_ns != kNoBound))
    runTiming(until_ns == kNoBound ? -1.0 : double(until_ns));
  if (done_.empty() || done_.front().end_ns > until_ns) return std::nullopt;
  const Done d = done_.front();
  done_.pop_front();
  host::LaunchOutcome o;
  finish(d, &o);
  *end_ns = d.end_ns;
  return std::make_pair(d.id, o);
}

void DeviceModel::runTiming(double until_ns) {
  for (const auto& [id, t] : timing_->advance(until_ns))
    done_.push_back({id, std::uint64_t(std::ceil(t.end_ns)), t.result, t.core_cycles, t.simulated_ns});
}

void DeviceModel::finish(const Done& d, host::LaunchOutcome* o) {
  auto it = pending_.find(d.id);
  Pending& p = it->second;
  LaunchReport& report = p.report;
  const sm::LaunchResult& result = d.result;
  report.core_cycles = d.core_cycles;
  report.simulated_ns = d.simulated_ns;
  report.end_ns = d.end_ns;
  printf_ += p.launch->printf_output;
  report.warp_instructions = result.warp_instructions;
  report.thread_instructions = result.thread_instructions;
  if (result.fault) {
    const sm::FaultReport& f = *result.fault;
    const ptx::Program& prog = *p.program;
    report.fault = f;
    report.status = errorOfFault(f.kind);
    // A failed translation is an illegal address to the kernel (as CUDA says), a page fault to the
    // error registers.
    o->error_kind = f.mmu_fault ? SCGPU_ERROR_KIND_PAGE_FAULT : errorKindOfFault(f.kind);
    o->message = f.toString();
    o->address = f.address;
    o->mmu_fault = f.mmu_fault;
    for (int i = 0; i < 3; ++i) o->block[i] = f.block[i];
    o->warp = f.warp;
    o->lane = f.lane;
    o->pc = f.pc;
    o->ptx_line = f.pc < prog.code.size() ? prog.code[f.pc].ptx_line : 0;
  }
  noteLaunch(report);
  pending_.erase(it);
}

void DeviceModel::noteCopy(std::uint32_t engine, std::uint32_t channel, std::uint64_t bytes, std::uint64_t start_ns,
                           std::uint64_t end_ns) {
  if (timing_) timing_->noteCopy(engine, channel, bytes, double(start_ns), double(end_ns));
}

void DeviceModel::reset() {
  for (auto& m : modules_) m.reset();
  memory_.reset();
  grid_id_ = 0;
  root_ = 0;
  page_fault_.reset();
  mmu_.invalidate();
  printf_.clear();
  last_launch_ = LaunchReport{};
  pending_.clear();
  done_.clear();
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
