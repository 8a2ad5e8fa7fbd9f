#include "cudart/runtime_state.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/input_limits.h"
#include "driver/config_json.h"
#include "driver/driver_internal.h"
#include "driver/inprocess_transport.h"
#include "driver/module.h"
#include "driver/register_counts.h"
#include "sm/occupancy.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::cudart {

namespace {

constexpr std::uint64_t kPageBytes = 4096;
// Fat binaries larger than this are refused before they are read (a corrupt size field).
constexpr std::uint64_t kMaxFatbinBytes = 1ull << 30;

std::uint64_t roundUp(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

void say(const std::string& line) {
  std::fflush(stdout);
  std::fputs(("scgpu: " + line + "\n").c_str(), stderr);
}

std::string programName() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "program";
  std::string path(buf, std::size_t(n));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// cudaMemcpyDefault resolved from where the pointers are (unified addressing).
abi::MemcpyKind resolveKind(abi::MemcpyKind kind, bool src_on_device, bool dst_on_device) {
  if (kind != abi::kDefault) return kind;
  return src_on_device ? (dst_on_device ? abi::kDeviceToDevice : abi::kDeviceToHost)
                       : (dst_on_device ? abi::kHostToDevice : abi::kHostToHost);
}

abi::Error errorOf(driver::Error e) {
  switch (e) {
    case driver::Error::Success: return abi::kSuccess;
    case driver::Error::InvalidValue: return abi::kInvalidValue;
    case driver::Error::MemoryAllocation: return abi::kMemoryAllocation;
    case driver::Error::InvalidDevicePointer: return abi::kInvalidDevicePointer;
    case driver::Error::InvalidResourceHandle: return abi::kInvalidResourceHandle;
    case driver::Error::LaunchFailure: return abi::kLaunchFailure;
    case driver::Error::IllegalAddress: return abi::kIllegalAddress;
    case driver::Error::MisalignedAddress: return abi::kMisalignedAddress;
    case driver::Error::IllegalInstruction: return abi::kIllegalInstruction;
    case driver::Error::Assert: return abi::kAssert;
    case driver::Error::BarrierDeadlock: return abi::kLaunchTimeout;  // also watchdog and time limits, as the driver names it
    case driver::Error::InvalidConfiguration: return abi::kInvalidConfiguration;
  }
  return abi::kUnknown;
}

}  // namespace

Settings Settings::fromEnvironment() {
  Settings s;
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (!env("SCGPU_CUDART_CONFIG").empty()) s.config = env("SCGPU_CUDART_CONFIG");
  const std::string set = env("SCGPU_CUDART_SET");
  for (std::size_t at = 0; at < set.size();) {
    const std::size_t nl = set.find('\n', at);
    const std::string line = set.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (!line.empty()) s.overrides.push_back(line);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  if (!env("SCGPU_CUDART_MODE").empty()) s.mode = driver::modeFromName(env("SCGPU_CUDART_MODE"));
  s.stats_json = env("SCGPU_CUDART_STATS_JSON");
  s.trace = env("SCGPU_CUDART_TRACE");
  s.timeline = env("SCGPU_CUDART_TIMELINE");
  if (!env("SCGPU_CUDART_TIMEOUT").empty()) s.timeout_s = std::strtod(env("SCGPU_CUDART_TIMEOUT").c_str(), nullptr);
  return s;
}

struct State::Fatbin {
  const abi::FatbinWrapper* wrapper = nullptr;
  std::size_t index = 0;
  bool loaded = false;
  abi::Error error = abi::kSuccess;  // why it did not load (then every use returns it)
  scgpu_module slot = 0;
  unsigned ptx_arch = 0;
  std::uint32_t ptx_version = 0;
};

struct State::Stream {
  scgpu_stream* s = nullptr;
  bool blocking = true;
  int priority = 0;                // as the program asked (0 lowest, -5 highest)
  unsigned long long id = 0;       // cudaStreamGetId: unique for the process
  std::uint64_t submitted = 0;     // commands put on it
  std::uint64_t legacy_seen = 0;   // the legacy stream's `submitted` it last waited for
  std::uint64_t waited_by_legacy = 0;  // its own `submitted` the legacy stream last waited for
};

struct State::Event {
  scgpu_event* e = nullptr;
  unsigned flags = 0;
  Stream* stream = nullptr;  // where it was last recorded
  std::uint64_t at = 0;      // that stream's `submitted` when it was recorded
};

State& State::get() {
  // Never destroyed: the program's atexit handlers and static destructors may still call in.
  static State* state = new State;
  return *state;
}

State::State() {
  limits[abi::kLimitStackSize] = 1024;
  limits[abi::kLimitPrintfFifoSize] = 1 << 20;
  limits[abi::kLimitMallocHeapSize] = 8 << 20;
}

// ---------------------------------------------------------------------------------------------
// Registration

void** State::registerFatbin(const void* wrapper) {
  auto f = std::make_unique<Fatbin>();
  f->wrapper = static_cast<const abi::FatbinWrapper*>(wrapper);
  f->index = fatbins_.size();
  fatbins_.push_back(std::move(f));
  // The handle the program passes back is the record itself.
  return reinterpret_cast<void**>(fatbins_.back().get());
}

void State::registerFunction(void** handle, const void* host_function, const char* device_name) {
  kernels_[host_function] = Kernel{reinterpret_cast<Fatbin*>(handle), device_name ? device_name : ""};
}

void State::registerVar(void** handle, const void* host_var, const char* device_name, std::size_t bytes,
                        bool /*constant*/, bool managed) {
  vars_[host_var] = Var{reinterpret_cast<Fatbin*>(handle), device_name ? device_name : "", bytes, managed};
  if (managed) say(fmt::format("__managed__ variable '{}' is not supported: it is device memory only",
                               device_name ? device_name : "?"));
}

void State::unregisterFatbin(void** /*handle*/) {
  // Modules stay loaded until the device closes at exit (finish()).
}

// ---------------------------------------------------------------------------------------------
// Errors

abi::Error State::fail(abi::Error e) {
  if (e != abi::kSuccess) last_error_ = e;
  return e;
}

abi::Error State::fail(abi::Error e, const std::string& message) {
  say(message);
  return fail(e);
}

abi::Error State::takeLastError() {
  const abi::Error e = sticky_ != abi::kSuccess ? sticky_ : last_error_;
  last_error_ = abi::kSuccess;
  return e;
}

abi::Error State::check(scgpu_status st, const char* what) {
  switch (st) {
    case SCGPU_SUCCESS: return abi::kSuccess;
    case SCGPU_ERROR_NOT_READY: return abi::kNotReady;
    case SCGPU_ERROR_FAULT: {
      flushPrintf();
      const driver::LaunchReport& r = transport_->device().lastLaunch();
      abi::Error e = abi::kLaunchFailure;
      if (r.fault) {
        say(fmt::format("kernel fault, reported at {}:\n{}", what, r.fault->toString()));
        e = errorOf(r.status);
      } else {
        say(fmt::format("{}: device error: {}", what, scgpu_last_error(dev_)));
      }
      sticky_ = e;
      return fail(e);
    }
    case SCGPU_ERROR_LAUNCH_REFUSED: {
      const driver::LaunchReport& r = transport_->device().lastLaunch();
      return fail(r.status == driver::Error::Success ? abi::kInvalidConfiguration : errorOf(r.status),
                  fmt::format("{}: {}", what, scgpu_last_error(dev_)));
    }
    case SCGPU_ERROR_INVALID_VALUE: return fail(abi::kInvalidValue, fmt::format("{}: {}", what, scgpu_last_error(dev_)));
    case SCGPU_ERROR_OUT_OF_MEMORY: return fail(abi::kMemoryAllocation);
    case SCGPU_ERROR_MODULE: return fail(abi::kInvalidPtx, fmt::format("{}: {}", what, scgpu_last_error(dev_)));
    case SCGPU_ERROR_NO_DEVICE: return fail(abi::kNoDevice, fmt::format("{}: {}", what, scgpu_last_error(dev_)));
    case SCGPU_ERROR_DEADLOCK:
      sticky_ = abi::kLaunchTimeout;
      return fail(abi::kLaunchTimeout, fmt::format("{}: {}", what, scgpu_last_error(dev_)));
    case SCGPU_ERROR_DEVICE:
      sticky_ = abi::kLaunchFailure;
      return fail(abi::kLaunchFailure, fmt::format("{}: {}", what, scgpu_last_error(dev_)));
  }
  return fail(abi::kUnknown);
}

abi::Error notSupported(const char* what) {
  static std::set<std::string> said;
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (said.insert(what).second) say(fmt::format("{} is not supported by scgpu's CUDA runtime", what));
  return s.fail(abi::kNotSupported);
}

// ---------------------------------------------------------------------------------------------
// The device

abi::Error State::ensureDevice() {
  if (dev_) return abi::kSuccess;
  if (open_failed_) return fail(open_error_);
  const abi::Error e = openDevice();
  if (e != abi::kSuccess) {
    open_failed_ = true;
    open_error_ = e;
    return fail(e);
  }
  return abi::kSuccess;
}

abi::Error State::openDevice() {
  try {
    settings_ = Settings::fromEnvironment();
    config_ = std::make_unique<GpuConfig>(GpuConfig::load(GpuConfig::resolve(settings_.config), settings_.overrides));
    props_ = driver::DeviceProperties::fromConfig(*config_);
    TraceOptions trace;
    if (settings_.mode == driver::Mode::Timing) {
      trace.path = settings_.trace;
      trace.timeline_path = settings_.timeline;
    }
    auto transport = std::make_unique<driver::InProcessTransport>(*config_, settings_.mode, trace);
    transport_ = transport.get();
    if (scgpu_open_transport(std::move(transport), &dev_) != SCGPU_SUCCESS) {
      transport_ = nullptr;
      say(fmt::format("the device did not come up: {}", scgpu_last_error(nullptr)));
      return abi::kNoDevice;
    }
  } catch (const std::exception& e) {
    say(fmt::format("no device: {}", e.what()));
    return abi::kNoDevice;
  }
  transport_->device().keepLaunchReports(true);
  interrupt_ = std::make_unique<run_control::InterruptGuard>();
  if (settings_.timeout_s > 0) run_control::setWallTimeout(settings_.timeout_s);
  legacy_ = std::make_unique<Stream>();
  if (scgpu_stream_create(dev_, 0, &legacy_->s) != SCGPU_SUCCESS) {
    say(fmt::format("cannot create the default stream: {}", scgpu_last_error(dev_)));
    return abi::kNoDevice;
  }
  std::atexit([] {
    State& s = State::get();
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    s.finish();
  });
  return abi::kSuccess;
}

abi::Error State::loadModule(Fatbin& f) {
  if (f.loaded) return abi::kSuccess;
  if (f.error != abi::kSuccess) return fail(f.error);
  auto refuse = [&](abi::Error e, const std::string& why) {
    f.error = e;
    return fail(e, why);
  };
  const std::string program = programName();
  if (!f.wrapper || f.wrapper->magic != abi::kFatbinWrapperMagic)
    return refuse(abi::kInvalidKernelImage, fmt::format("{}: a registered fat binary without its wrapper's magic", program));
  if (f.wrapper->version != 1)
    return refuse(abi::kNotSupported, fmt::format("{}: fat binary wrapper version {} (relocatable device code, -rdc) "
                                                  "is not supported: build without -rdc",
                                                  program, f.wrapper->version));
  std::vector<FatbinEntry> entries;
  try {
    const std::uint64_t bytes = fatbinContainerBytes(f.wrapper->data);
    if (bytes > kMaxFatbinBytes) throw FatbinError(fmt::format("a fat binary of {} bytes", bytes));
    entries = parseFatbin(f.wrapper->data, bytes, inputLimits().input_file_bytes);
  } catch (const FatbinError& e) {
    return refuse(abi::kInvalidKernelImage, fmt::format("{}: {}", program, e.what()));
  }
  const FatbinEntry* ptx = bestPtx(entries, arch());
  if (!ptx) {
    std::string have;
    for (const FatbinEntry& e : entries)
      have += fmt::format("{}{}_{}", have.empty() ? "" : ", ",
                          e.kind == FatbinEntry::Kind::Ptx ? "compute" : e.kind == FatbinEntry::Kind::Elf ? "sm" : "?",
                          e.arch);
    return refuse(abi::kNoKernelImageForDevice,
                  fmt::format("{}: no PTX for compute capability {}.{} or older in its fat binary (it holds: {}); "
                              "scgpu runs PTX: build with -arch=compute_XX or a -gencode that keeps PTX",
                              program, props_.major, props_.minor, have.empty() ? "nothing" : have));
  }
  const std::string name =
      fmt::format("{}{}.compute_{}.ptx", program, f.index ? fmt::format(".{}", f.index) : "", ptx->arch);
  try {
    if (scgpu_module_load_source(dev_, ptx->text, name, &f.slot) != SCGPU_SUCCESS)
      return refuse(abi::kInvalidPtx, fmt::format("{}: {}", name, scgpu_last_error(dev_)));
  } catch (const std::exception& e) {
    return refuse(abi::kInvalidPtx, fmt::format("the PTX of {} does not load: {}", program, e.what()));
  }
  f.loaded = true;
  f.ptx_arch = ptx->arch;
  f.ptx_version = ptx->ptx_version;
  return abi::kSuccess;
}

const ptx::Program* State::program(const void* host_function, abi::Error* e) {
  auto it = kernels_.find(host_function);
  if (it == kernels_.end()) {
    *e = fail(abi::kInvalidDeviceFunction);
    return nullptr;
  }
  *e = loadModule(*it->second.fatbin);
  if (*e != abi::kSuccess) return nullptr;
  auto* module = const_cast<driver::Module*>(scgpu_module_decoded(dev_, it->second.fatbin->slot));
  driver::Function* fn = module ? module->function(it->second.name) : nullptr;
  if (!fn) {
    *e = fail(abi::kInvalidDeviceFunction,
              fmt::format("kernel '{}' is registered but not in the program's PTX", it->second.name));
    return nullptr;
  }
  return &fn->program();
}

void State::flushPrintf() {
  if (!transport_) return;
  const std::string text = transport_->device().takePrintfOutput();
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------
// Streams

State::Stream* State::stream(void* handle) {
  if (!handle || handle == abi::kStreamLegacy || handle == abi::kStreamPerThread) return legacy_.get();
  auto* s = static_cast<Stream*>(handle);
  return streams_.count(s) ? s : nullptr;
}

bool State::validStream(void* handle) const {
  if (!handle || handle == abi::kStreamLegacy || handle == abi::kStreamPerThread) return true;
  return streams_.count(static_cast<Stream*>(handle)) != 0;
}

abi::Error State::orderBefore(Stream& s) {
  if (&s == legacy_.get()) {
    for (Stream* b : streams_) {
      if (!b->blocking || b->submitted == b->waited_by_legacy) continue;
      if (const abi::Error e = check(scgpu_stream_wait_stream(legacy_->s, b->s), "legacy default stream"))
        return e;
      b->waited_by_legacy = b->submitted;
      legacy_->submitted++;
    }
  } else if (s.blocking && legacy_->submitted != s.legacy_seen) {
    if (const abi::Error e = check(scgpu_stream_wait_stream(s.s, legacy_->s), "stream ordering")) return e;
    s.legacy_seen = legacy_->submitted;
    s.submitted++;
  }
  return abi::kSuccess;
}

abi::Error State::syncStream(Stream& s) {
  const abi::Error e = check(scgpu_stream_synchronize(s.s), "synchronisation");
  flushPrintf();
  return e;
}

abi::Error State::streamCreate(void** handle, unsigned flags, int priority) {
  if (!handle) return fail(abi::kInvalidValue);
  if (const abi::Error e = ensureDevice()) return e;
  auto s = std::make_unique<Stream>();
  s->blocking = !(flags & abi::kStreamNonBlocking);
  s->priority = std::clamp(priority, -5, 0);
  static unsigned long long next_id = 1;
  s->id = ++next_id;
  // CUDA's priorities run from 0 (lowest) to -5 (highest); the channels' from 0 (lowest) to 15.
  const unsigned channel_priority = unsigned(std::clamp(-priority, 0, 5));
  if (const abi::Error e = check(scgpu_stream_create(dev_, channel_priority, &s->s), "cudaStreamCreate")) return e;
  *handle = s.get();
  streams_.insert(s.release());
  return abi::kSuccess;
}

abi::Error State::streamInfo(void* handle, unsigned* flags, int* priority, unsigned long long* id) {
  if (const abi::Error e = ensureDevice()) return e;
  Stream* s = stream(handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  if (flags) *flags = s->blocking ? 0u : abi::kStreamNonBlocking;
  if (priority) *priority = s->priority;
  // The legacy stream's id is 1 in CUDA too; the per-thread default stream is the same stream here.
  if (id) *id = s == legacy_.get() ? 1ull : s->id;
  return abi::kSuccess;
}

abi::Error State::streamDestroy(void* handle) {
  if (!handle || handle == abi::kStreamLegacy || handle == abi::kStreamPerThread) return fail(abi::kInvalidResourceHandle);
  Stream* s = stream(handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  // CUDA lets the stream's work complete first.
  const abi::Error e = syncStream(*s);
  for (Event* ev : events_)
    if (ev->stream == s) ev->stream = nullptr;
  scgpu_stream_destroy(s->s);
  streams_.erase(s);
  delete s;
  return e;
}

abi::Error State::streamSynchronize(void* handle) {
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  Stream* s = stream(handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  if (const abi::Error e = orderBefore(*s)) return e;
  const abi::Error e = syncStream(*s);
  if (e == abi::kSuccess && s == legacy_.get()) migrateToHost();
  return e;
}

abi::Error State::deviceSynchronize() {
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  for (Stream* s : streams_)
    if (const abi::Error e = syncStream(*s)) return e;
  if (const abi::Error e = syncStream(*legacy_)) return e;
  migrateToHost();
  return abi::kSuccess;
}

abi::Error State::deviceReset() {
  if (!dev_) return abi::kSuccess;
  flushPrintf();
  for (Event* ev : events_) {
    scgpu_event_destroy(ev->e);
    delete ev;
  }
  events_.clear();
  for (Stream* s : streams_) {
    scgpu_stream_destroy(s->s);
    delete s;
  }
  streams_.clear();
  scgpu_stream_destroy(legacy_->s);
  legacy_->s = nullptr;
  for (auto& [addr, m] : managed_) ::munmap(reinterpret_cast<void*>(roundUp(addr, kPageBytes)), roundUp(m.bytes, kPageBytes));
  managed_.clear();
  managed_on_device_ = false;
  allocations_.clear();
  for (auto& f : fatbins_) {
    f->loaded = false;
    f->error = abi::kSuccess;
  }
  if (scgpu_reset(dev_) != SCGPU_SUCCESS) return fail(abi::kUnknown, fmt::format("cudaDeviceReset: {}", scgpu_last_error(dev_)));
  *legacy_ = Stream{};
  if (scgpu_stream_create(dev_, 0, &legacy_->s) != SCGPU_SUCCESS)
    return fail(abi::kUnknown, fmt::format("cudaDeviceReset: {}", scgpu_last_error(dev_)));
  sticky_ = abi::kSuccess;
  last_error_ = abi::kSuccess;
  return abi::kSuccess;
}

// ---------------------------------------------------------------------------------------------
// Events

abi::Error State::eventCreate(void** handle, unsigned flags) {
  if (!handle) return fail(abi::kInvalidValue);
  if (const abi::Error e = ensureDevice()) return e;
  auto ev = std::make_unique<Event>();
  ev->flags = flags;
  if (const abi::Error e = check(scgpu_event_create(dev_, &ev->e), "cudaEventCreate")) return e;
  *handle = ev.get();
  events_.insert(ev.release());
  return abi::kSuccess;
}

abi::Error State::eventDestroy(void* handle) {
  auto* ev = static_cast<Event*>(handle);
  if (!ev || !events_.count(ev)) return fail(abi::kInvalidResourceHandle);
  scgpu_event_destroy(ev->e);
  events_.erase(ev);
  delete ev;
  return abi::kSuccess;
}

abi::Error State::eventRecord(void* handle, void* stream_handle) {
  auto* ev = static_cast<Event*>(handle);
  if (!ev || !events_.count(ev)) return fail(abi::kInvalidResourceHandle);
  if (sticky_) return sticky_;
  Stream* s = stream(stream_handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  if (const abi::Error e = orderBefore(*s)) return e;
  if (const abi::Error e = check(scgpu_event_record(ev->e, s->s), "cudaEventRecord")) return e;
  ev->stream = s;
  ev->at = s->submitted;
  return abi::kSuccess;
}

abi::Error State::eventSynchronize(void* handle) {
  auto* ev = static_cast<Event*>(handle);
  if (!ev || !events_.count(ev)) return fail(abi::kInvalidResourceHandle);
  if (sticky_) return sticky_;
  // The event's stream up to now includes the event: waiting for all of it is waiting for the event
  // and possibly a little more, which a simulated host cannot tell apart.
  if (ev->stream) return syncStream(*ev->stream);
  return abi::kSuccess;
}

abi::Error State::eventQuery(void* handle) {
  auto* ev = static_cast<Event*>(handle);
  if (!ev || !events_.count(ev)) return fail(abi::kInvalidResourceHandle);
  if (sticky_) return sticky_;
  // The simulated device runs only while the host waits on it, so a query waits: a program that
  // polls until an event completes sees it complete at the first poll.
  return eventSynchronize(handle);
}

abi::Error State::eventElapsed(float* ms, void* start, void* end) {
  auto* a = static_cast<Event*>(start);
  auto* b = static_cast<Event*>(end);
  if (!ms) return fail(abi::kInvalidValue);
  if (!a || !b || !events_.count(a) || !events_.count(b)) return fail(abi::kInvalidResourceHandle);
  if ((a->flags | b->flags) & abi::kEventDisableTiming) return fail(abi::kInvalidResourceHandle);
  if (!a->stream || !b->stream) return fail(abi::kInvalidResourceHandle);
  std::uint64_t ns = 0;
  const scgpu_status st = scgpu_event_elapsed_ns(a->e, b->e, &ns);
  if (st == SCGPU_ERROR_NOT_READY) return fail(abi::kNotReady);
  if (const abi::Error e = check(st, "cudaEventElapsedTime")) return e;
  *ms = float(double(ns) / 1e6);
  return abi::kSuccess;
}

abi::Error State::streamWaitEvent(void* stream_handle, void* event_handle) {
  auto* ev = static_cast<Event*>(event_handle);
  if (!ev || !events_.count(ev)) return fail(abi::kInvalidResourceHandle);
  Stream* s = stream(stream_handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  if (!ev->stream || ev->stream == s) return abi::kSuccess;
  // Exact when nothing was put on the event's stream after the event; otherwise the host waits for
  // the event, which orders the later work as well.
  if (ev->stream->submitted != ev->at) return eventSynchronize(event_handle);
  if (const abi::Error e = check(scgpu_stream_wait_stream(s->s, ev->stream->s), "cudaStreamWaitEvent")) return e;
  s->submitted++;
  return abi::kSuccess;
}

// ---------------------------------------------------------------------------------------------
// Memory

bool State::isDevice(const void* p, std::size_t bytes) const {
  const auto a = reinterpret_cast<std::uint64_t>(p);
  auto it = allocations_.upper_bound(a);
  if (it != allocations_.begin()) {
    --it;
    if (a >= it->first && a + bytes <= it->first + it->second) return true;
  }
  return dev_ && scgpu_mem_contains(dev_, a, bytes);
}

bool State::isManaged(const void* p) const {
  const auto a = reinterpret_cast<std::uint64_t>(p);
  auto it = managed_.upper_bound(a);
  if (it == managed_.begin()) return false;
  --it;
  return a >= it->first && a < it->first + it->second.bytes;
}

std::uint64_t State::allocatedBytes() const {
  std::uint64_t sum = 0;
  for (const auto& [a, b] : allocations_) sum += b;
  return sum;
}

abi::Error State::malloc(void** ptr, std::size_t bytes) {
  if (!ptr) return fail(abi::kInvalidValue);
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  if (bytes == 0) {
    *ptr = nullptr;
    return abi::kSuccess;
  }
  scgpu_devptr p = 0;
  if (scgpu_mem_alloc(dev_, bytes, &p) != SCGPU_SUCCESS) return fail(abi::kMemoryAllocation);
  allocations_[p] = bytes;
  *ptr = reinterpret_cast<void*>(p);
  return abi::kSuccess;
}

// Managed memory is device memory whose address the host maps too: the pages at the same address
// in this process. The host's copy is the one that counts until the device runs; then it is copied
// to the device (migrateToDevice), and back when the host synchronises (migrateToHost).
abi::Error State::mallocManaged(void** ptr, std::size_t bytes) {
  if (!ptr || bytes == 0) return fail(abi::kInvalidValue);
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  // Room to start the host mapping on a page boundary inside the allocation.
  scgpu_devptr p = 0;
  if (scgpu_mem_alloc(dev_, bytes + 2 * kPageBytes, &p) != SCGPU_SUCCESS) return fail(abi::kMemoryAllocation);
  const std::uint64_t at = roundUp(p, kPageBytes);
  void* host = ::mmap(reinterpret_cast<void*>(at), roundUp(bytes, kPageBytes), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (host == MAP_FAILED || reinterpret_cast<std::uint64_t>(host) != at) {
    if (host != MAP_FAILED) ::munmap(host, roundUp(bytes, kPageBytes));
    scgpu_mem_free(dev_, p);
    return fail(abi::kMemoryAllocation,
                fmt::format("cudaMallocManaged: the host cannot map the device address 0x{:x}", at));
  }
  allocations_[p] = bytes + 2 * kPageBytes;
  managed_[at] = Managed{bytes};
  // New managed memory is zero on both sides (mmap's pages are zero; the device's need a memset).
  if (managed_on_device_) {
    if (const abi::Error e = check(scgpu_memset(dev_, at, 0, bytes), "cudaMallocManaged")) return e;
  }
  *ptr = host;
  return abi::kSuccess;
}

abi::Error State::migrateToDevice(Stream& s) {
  if (managed_on_device_ || managed_.empty()) return abi::kSuccess;
  for (const auto& [addr, m] : managed_)
    if (const abi::Error e =
            check(scgpu_memcpy_htod_async(s.s, addr, reinterpret_cast<const void*>(addr), m.bytes), "managed memory"))
      return e;
  s.submitted++;
  managed_on_device_ = true;
  // Other streams' work may read it too: the copies complete before anything else is queued.
  return syncStream(s);
}

void State::migrateToHost() {
  if (!managed_on_device_) return;
  for (Stream* s : streams_)
    if (syncStream(*s) != abi::kSuccess) return;
  for (const auto& [addr, m] : managed_)
    if (check(scgpu_memcpy_dtoh_async(legacy_->s, reinterpret_cast<void*>(addr), addr, m.bytes), "managed memory"))
      return;
  legacy_->submitted++;
  if (syncStream(*legacy_) == abi::kSuccess) managed_on_device_ = false;
}

abi::Error State::free(void* ptr) {
  if (!ptr) return abi::kSuccess;
  if (const abi::Error e = ensureDevice()) return e;
  const auto a = reinterpret_cast<std::uint64_t>(ptr);
  auto m = managed_.find(a);
  if (m != managed_.end()) {
    // The allocation that holds it starts up to a page before.
    auto it = allocations_.upper_bound(a);
    --it;
    ::munmap(ptr, roundUp(m->second.bytes, kPageBytes));
    managed_.erase(m);
    deviceSynchronize();
    scgpu_mem_free(dev_, it->first);
    allocations_.erase(it);
    return abi::kSuccess;
  }
  auto it = allocations_.find(a);
  if (it == allocations_.end()) return fail(abi::kInvalidDevicePointer);
  // cudaFree waits for the device first.
  if (!sticky_) deviceSynchronize();
  scgpu_mem_free(dev_, a);
  allocations_.erase(it);
  return abi::kSuccess;
}

abi::Error State::memcpy(void* dst, const void* src, std::size_t bytes, abi::MemcpyKind kind, void* stream_handle,
                         bool async) {
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  if (bytes == 0) return abi::kSuccess;
  if (!dst || !src) return fail(abi::kInvalidValue);
  Stream* s = stream(stream_handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  // Managed memory is on the host's side until the device has run, on the device's after.
  auto onDevice = [&](const void* p) { return isManaged(p) ? managed_on_device_ : isDevice(p, 1); };
  kind = resolveKind(kind, onDevice(src), onDevice(dst));
  if (kind < abi::kHostToHost || kind > abi::kDefault) return fail(abi::kInvalidMemcpyDirection);
  if (kind == abi::kHostToHost || (isManaged(dst) && isManaged(src) && !managed_on_device_)) {
    // The host copies; CUDA orders it after the stream's work.
    if (const abi::Error e = syncStream(*s)) return e;
    std::memmove(dst, src, bytes);
    return abi::kSuccess;
  }
  const bool needs_dst = kind == abi::kHostToDevice || kind == abi::kDeviceToDevice;
  const bool needs_src = kind == abi::kDeviceToHost || kind == abi::kDeviceToDevice;
  if ((needs_dst && !isDevice(dst, bytes)) || (needs_src && !isDevice(src, bytes)))
    return fail(abi::kInvalidValue, fmt::format("cudaMemcpy: {} is not {} bytes of device memory",
                                                needs_dst && !isDevice(dst, bytes) ? fmt::ptr(dst) : fmt::ptr(src),
                                                bytes));
  if (const abi::Error e = orderBefore(*s)) return e;
  scgpu_status st = SCGPU_SUCCESS;
  const auto d = reinterpret_cast<scgpu_devptr>(dst);
  const auto sp = reinterpret_cast<scgpu_devptr>(src);
  if (kind == abi::kHostToDevice) st = scgpu_memcpy_htod_async(s->s, d, src, bytes);
  else if (kind == abi::kDeviceToHost) st = scgpu_memcpy_dtoh_async(s->s, dst, sp, bytes);
  else st = scgpu_memcpy_dtod_async(s->s, d, sp, bytes);
  s->submitted++;
  if (const abi::Error e = check(st, "cudaMemcpy")) return e;
  // Host memory must stay valid until an asynchronous copy has run: scgpu's driver reads it when
  // the device gets to the copy, so a copy from pageable memory (which CUDA stages at once) waits.
  const bool pageable = kind != abi::kDeviceToDevice;
  if (!async || pageable) return syncStream(*s);
  return abi::kSuccess;
}

abi::Error State::memcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                           std::size_t height, abi::MemcpyKind kind, void* stream_handle, bool async) {
  if (width > dpitch || width > spitch) return fail(abi::kInvalidPitchValue);
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  if (width == 0 || height == 0) return abi::kSuccess;
  kind = resolveKind(kind, isDevice(src, 1), isDevice(dst, 1));
  Stream* s = stream(stream_handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  if (kind == abi::kHostToDevice || kind == abi::kDeviceToHost) {
    const std::size_t span = (height - 1) * (kind == abi::kHostToDevice ? dpitch : spitch) + width;
    if (!isDevice(kind == abi::kHostToDevice ? dst : src, span)) return fail(abi::kInvalidValue);
    if (const abi::Error e = orderBefore(*s)) return e;
    const scgpu_status st =
        kind == abi::kHostToDevice
            ? scgpu_memcpy_2d_htod_async(s->s, reinterpret_cast<scgpu_devptr>(dst), dpitch, src, spitch, width, height)
            : scgpu_memcpy_2d_dtoh_async(s->s, dst, dpitch, reinterpret_cast<scgpu_devptr>(src), spitch, width, height);
    s->submitted++;
    if (const abi::Error e = check(st, "cudaMemcpy2D")) return e;
    return syncStream(*s);
  }
  // Device to device and host to host: row by row.
  for (std::size_t r = 0; r < height; ++r)
    if (const abi::Error e = memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                                    width, kind, stream_handle, async))
      return e;
  return abi::kSuccess;
}

abi::Error State::memset(void* dst, int value, std::size_t bytes, void* stream_handle, bool async) {
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  if (bytes == 0) return abi::kSuccess;
  Stream* s = stream(stream_handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  if (isManaged(dst) && !managed_on_device_) {
    std::memset(dst, value, bytes);
    return abi::kSuccess;
  }
  if (!isDevice(dst, bytes))
    return fail(abi::kInvalidValue, fmt::format("cudaMemset: {} is not {} bytes of device memory", fmt::ptr(dst), bytes));
  if (const abi::Error e = orderBefore(*s)) return e;
  const scgpu_status st = scgpu_memset_async(s->s, reinterpret_cast<scgpu_devptr>(dst), std::uint8_t(value), bytes);
  s->submitted++;
  if (const abi::Error e = check(st, "cudaMemset")) return e;
  return async ? abi::kSuccess : syncStream(*s);
}

abi::Error State::memset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height,
                           void* stream_handle, bool async) {
  if (width > pitch) return fail(abi::kInvalidPitchValue);
  for (std::size_t r = 0; r < height; ++r)
    if (const abi::Error e = memset(static_cast<char*>(dst) + r * pitch, value, width, stream_handle, async)) return e;
  return abi::kSuccess;
}

abi::Error State::pointerAttributes(abi::PointerAttributes* attr, const void* p) {
  if (!attr) return fail(abi::kInvalidValue);
  if (const abi::Error e = ensureDevice()) return e;
  std::memset(attr, 0, sizeof *attr);
  attr->device = 0;
  if (isManaged(p)) {
    attr->type = abi::kMemoryManaged;
    attr->devicePointer = attr->hostPointer = const_cast<void*>(p);
  } else if (isDevice(p, 1)) {
    attr->type = abi::kMemoryDevice;
    attr->devicePointer = const_cast<void*>(p);
  } else {
    bool pinned = false;
    for (const auto* table : {&host_allocs_, &host_registered_}) {
      auto it = table->upper_bound(p);
      if (it != table->begin()) {
        --it;
        const auto* b = static_cast<const char*>(it->first);
        if (static_cast<const char*>(p) < b + it->second) pinned = true;
      }
    }
    attr->type = pinned ? abi::kMemoryHost : abi::kMemoryUnregistered;
    if (pinned) attr->hostPointer = const_cast<void*>(p);
  }
  return abi::kSuccess;
}

abi::Error State::hostAlloc(void** ptr, std::size_t bytes) {
  if (!ptr) return fail(abi::kInvalidValue);
  void* p = nullptr;
  if (::posix_memalign(&p, kPageBytes, std::max<std::size_t>(bytes, 1)) != 0) return fail(abi::kMemoryAllocation);
  host_allocs_[p] = bytes;
  *ptr = p;
  return abi::kSuccess;
}

abi::Error State::hostFree(void* ptr) {
  if (!ptr) return abi::kSuccess;
  auto it = host_allocs_.find(ptr);
  if (it == host_allocs_.end()) return fail(abi::kInvalidValue);
  // The device may still read it.
  if (dev_ && !sticky_) deviceSynchronize();
  std::free(ptr);
  host_allocs_.erase(it);
  return abi::kSuccess;
}

abi::Error State::hostRegister(void* ptr, std::size_t bytes) {
  if (!ptr || bytes == 0) return fail(abi::kInvalidValue);
  if (host_registered_.count(ptr)) return fail(abi::kHostMemoryAlreadyRegistered);
  host_registered_[ptr] = bytes;
  return abi::kSuccess;
}

abi::Error State::hostUnregister(void* ptr) {
  if (!host_registered_.erase(ptr)) return fail(abi::kHostMemoryNotRegistered);
  return abi::kSuccess;
}

abi::Error State::symbol(const void* host_var, scgpu_devptr* addr, std::size_t* bytes) {
  if (const abi::Error e = ensureDevice()) return e;
  auto it = vars_.find(host_var);
  if (it == vars_.end()) return fail(abi::kInvalidSymbol);
  if (const abi::Error e = loadModule(*it->second.fatbin)) return e;
  std::size_t size = 0;
  if (scgpu_module_symbol(dev_, it->second.fatbin->slot, it->second.name.c_str(), addr, &size) != SCGPU_SUCCESS)
    return fail(abi::kInvalidSymbol, fmt::format("variable '{}' is registered but not in the program's PTX",
                                                 it->second.name));
  *bytes = size;
  return abi::kSuccess;
}

// ---------------------------------------------------------------------------------------------
// Kernels

abi::Error State::launch(const void* host_function, abi::Dim3 grid, abi::Dim3 block, void** args, std::size_t shared,
                         void* stream_handle, bool cooperative, abi::Dim3 cluster) {
  if (const abi::Error e = ensureDevice()) return e;
  if (sticky_) return sticky_;
  abi::Error e = abi::kSuccess;
  const ptx::Program* prog = program(host_function, &e);
  if (!prog) return e;
  const std::string& name = prog->kernel_name;
  Stream* s = stream(stream_handle);
  if (!s) return fail(abi::kInvalidResourceHandle);
  if (!prog->unsupported.empty()) {
    std::string list;
    for (const auto& u : prog->unsupported)
      list += fmt::format("\n  {}:{}:{}: {} ({})", prog->module_name, u.line, u.col, u.text, u.reason);
    return fail(abi::kNotSupported, fmt::format("kernel '{}' uses PTX that scgpu does not implement:{}", name, list));
  }
  const std::uint64_t threads = std::uint64_t(block.x) * block.y * block.z;
  const int* max_block = props_.max_block_dim;
  const int* max_grid = props_.max_grid_dim;
  // CUDA 13 says cudaErrorInvalidValue for a block the device cannot run (measured on an H200)
  // and cudaErrorInvalidConfiguration for a grid it cannot.
  if (!block.x || !block.y || !block.z || threads > unsigned(props_.max_threads_per_block) ||
      block.x > unsigned(max_block[0]) || block.y > unsigned(max_block[1]) || block.z > unsigned(max_block[2]))
    return fail(abi::kInvalidValue,
                fmt::format("cannot launch kernel '{}' with blocks of {}x{}x{}: the device allows blocks up to "
                            "{}x{}x{} and {} threads",
                            name, block.x, block.y, block.z, max_block[0], max_block[1], max_block[2],
                            props_.max_threads_per_block));
  if (!grid.x || !grid.y || !grid.z || grid.x > unsigned(max_grid[0]) || grid.y > unsigned(max_grid[1]) ||
      grid.z > unsigned(max_grid[2]))
    return fail(abi::kInvalidConfiguration,
                fmt::format("cannot launch kernel '{}' with a grid of {}x{}x{}: the device allows grids up to "
                            "{}x{}x{}",
                            name, grid.x, grid.y, grid.z, max_grid[0], max_grid[1], max_grid[2]));
  const Kernel& k = kernels_.at(host_function);
  const std::uint64_t dynamic_limit = dynamicSharedLimit(k, *prog);
  if (shared > dynamic_limit)
    return fail(abi::kInvalidValue,
                fmt::format("kernel '{}' asks for {} bytes of dynamic shared memory; above {} bytes a kernel needs "
                            "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)",
                            name, shared, dynamic_limit));
  int per_sm = 0;
  occupancy(&per_sm, host_function, int(threads), shared);
  if (per_sm == 0)
    return fail(abi::kLaunchOutOfResources,
                fmt::format("kernel '{}' with {} threads per block and {} bytes of dynamic shared memory does not fit "
                            "on an SM (registers or shared memory)",
                            name, threads, shared));
  if (cooperative && std::uint64_t(grid.x) * grid.y * grid.z > std::uint64_t(per_sm) * props_.multiprocessor_count)
    return fail(abi::kCooperativeLaunchTooLarge);
  // Thread-block clusters (cudaLaunchAttributeClusterDimension; else the kernel's __cluster_dims__,
  // .reqnctapercluster, which the device applies): each dimension divides the grid's, at most 8
  // blocks, or 16 with cudaFuncAttributeNonPortableClusterSizeAllowed.
  if (cluster.x || cluster.y || cluster.z) {
    const std::uint64_t n = std::uint64_t(cluster.x) * cluster.y * cluster.z;
    if (!cluster.x || !cluster.y || !cluster.z || grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z ||
        n > (k.non_portable_cluster ? 16u : 8u))
      return fail(abi::kInvalidClusterSize,
                  fmt::format("cannot launch kernel '{}' with a grid of {}x{}x{} in clusters of {}x{}x{}: each "
                              "cluster dimension must divide the grid's, and a cluster hold at most {} blocks",
                              name, grid.x, grid.y, grid.z, cluster.x, cluster.y, cluster.z,
                              k.non_portable_cluster ? 16 : 8));
  }

  // The parameter buffer, laid out as the PTX parameter list says.
  std::vector<std::uint8_t> params(prog->param_buffer_bytes, 0);
  if (!prog->params.empty() && !args) return fail(abi::kInvalidValue, fmt::format("kernel '{}': no arguments", name));
  for (std::size_t i = 0; i < prog->params.size(); ++i) {
    const auto& p = prog->params[i];
    if (!args[i]) return fail(abi::kInvalidValue, fmt::format("kernel '{}': argument {} is null", name, i));
    std::memcpy(params.data() + p.offset, args[i], p.size);
  }
  if (const abi::Error oe = orderBefore(*s)) return oe;
  if (const abi::Error me = migrateToDevice(*s)) return me;
  const std::uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  const std::uint32_t c[3] = {cluster.x, cluster.y, cluster.z};
  const scgpu_status st =
      cooperative ? scgpu_launch_cooperative(s->s, k.fatbin->slot, name.c_str(), g, b, std::uint32_t(shared),
                                             params.data(), params.size())
      : c[0] || c[1] || c[2]
          ? scgpu_launch_cluster(s->s, k.fatbin->slot, name.c_str(), g, b, c, std::uint32_t(shared), params.data(),
                                 params.size())
          : scgpu_launch(s->s, k.fatbin->slot, name.c_str(), g, b, std::uint32_t(shared), params.data(),
                         params.size());
  s->submitted++;
  return check(st, "cudaLaunchKernel");
}

std::uint64_t State::dynamicSharedLimit(const Kernel& k, const ptx::Program& prog) const {
  if (k.max_dynamic_shared >= 0) return std::uint64_t(k.max_dynamic_shared);
  // Without the opt-in, static and dynamic shared memory share the default per-block limit.
  const std::uint64_t limit = props_.shared_mem_per_block;
  return limit - std::min<std::uint64_t>(limit, prog.static_shared_bytes);
}

abi::Error State::funcAttributes(abi::FuncAttributes* attr, const void* host_function) {
  if (!attr) return fail(abi::kInvalidValue);
  if (const abi::Error e = ensureDevice()) return e;
  abi::Error e = abi::kSuccess;
  const ptx::Program* prog = program(host_function, &e);
  if (!prog) return e;
  const Kernel& k = kernels_.at(host_function);
  std::memset(attr, 0, sizeof *attr);
  attr->sharedSizeBytes = prog->static_shared_bytes;
  attr->constSizeBytes = 0;
  attr->localSizeBytes = 0;
  attr->numRegs = int(driver::registersPerThread(*prog, config_->params().sm.max_registers_per_thread));
  // The largest block the kernel can run with: its .maxntid/.reqntid, and what its registers allow.
  int max_threads = props_.max_threads_per_block;
  const std::uint32_t* bound = prog->reqntid[0] ? prog->reqntid : prog->maxntid;
  if (bound[0]) max_threads = std::min<int>(max_threads, int(bound[0] * std::max(1u, bound[1]) * std::max(1u, bound[2])));
  while (max_threads > 32) {
    int blocks = 0;
    occupancy(&blocks, host_function, max_threads, 0);
    if (blocks > 0) break;
    max_threads -= 32;
  }
  attr->maxThreadsPerBlock = max_threads;
  attr->ptxVersion = int(k.fatbin->ptx_version);
  attr->binaryVersion = int(arch());
  attr->maxDynamicSharedSizeBytes = int(dynamicSharedLimit(k, *prog));
  attr->preferredShmemCarveout = -1;
  return abi::kSuccess;
}

abi::Error State::funcSetAttribute(const void* host_function, int attr, int value) {
  if (const abi::Error e = ensureDevice()) return e;
  abi::Error e = abi::kSuccess;
  const ptx::Program* prog = program(host_function, &e);
  if (!prog) return e;
  Kernel& k = kernels_.at(host_function);
  if (attr == abi::kFuncAttrMaxDynamicSharedMemorySize) {
    if (value < 0 || std::uint64_t(value) + prog->static_shared_bytes > props_.shared_mem_per_block_optin)
      return fail(abi::kInvalidValue,
                  fmt::format("cudaFuncSetAttribute: {} bytes of dynamic shared memory for '{}' exceed the device's "
                              "{} bytes per block",
                              value, prog->kernel_name, props_.shared_mem_per_block_optin));
    k.max_dynamic_shared = value;
    return abi::kSuccess;
  }
  if (attr == abi::kFuncAttrPreferredSharedMemoryCarveout) return abi::kSuccess;  // a hint; the model's carveout is its config's
  if (attr == abi::kFuncAttrNonPortableClusterSizeAllowed) {
    k.non_portable_cluster = value != 0;
    return abi::kSuccess;
  }
  return notSupported(fmt::format("cudaFuncSetAttribute with attribute {}", attr).c_str());
}

abi::Error State::occupancy(int* blocks, const void* host_function, int block_size, std::size_t dynamic_shared) {
  if (!blocks || block_size <= 0) return fail(abi::kInvalidValue);
  if (const abi::Error e = ensureDevice()) return e;
  abi::Error e = abi::kSuccess;
  const ptx::Program* prog = program(host_function, &e);
  if (!prog) return e;
  sm::KernelResources k;
  k.threads_per_block = std::uint32_t(block_size);
  k.registers_per_thread = driver::registersPerThread(*prog, config_->params().sm.max_registers_per_thread);
  k.static_shared_bytes = prog->static_shared_bytes;
  k.dynamic_shared_bytes = std::uint32_t(dynamic_shared);
  *blocks = int(sm::theoreticalOccupancy(config_->params().sm, k).blocks_per_sm);
  return abi::kSuccess;
}

// ---------------------------------------------------------------------------------------------
// Exit

void State::writeStatistics() {
  if (settings_.stats_json.empty()) return;
  nlohmann::json launches = nlohmann::json::array();
  std::uint64_t warp = 0, thread = 0, cycles = 0;
  for (const driver::LaunchReport& r : transport_->device().takeLaunchReports()) {
    nlohmann::json l = {{"kernel", r.kernel},
                        {"grid", {r.grid[0], r.grid[1], r.grid[2]}},
                        {"block", {r.block[0], r.block[1], r.block[2]}},
                        {"status", driver::errorName(r.status)},
                        {"warp_instructions", r.warp_instructions},
                        {"thread_instructions", r.thread_instructions},
                        {"core_cycles", r.core_cycles},
                        {"simulated_ns", r.simulated_ns}};
    if (!r.refusal.empty()) l["refusal"] = r.refusal;
    if (r.fault) l["fault"] = r.fault->toString();
    if (r.fault && (r.fault->kind == run_control::stopKind(run_control::Stop::Interrupted) ||
                    r.fault->kind == run_control::stopKind(run_control::Stop::WallTimeout)))
      stopped_early_ = true;
    warp += r.warp_instructions;
    thread += r.thread_instructions;
    cycles += r.core_cycles;
    launches.push_back(std::move(l));
  }
  nlohmann::json j;
  j["program"] = programName();
  j["mode"] = driver::modeName(settings_.mode);
  j["config_source"] = config_->sourceName();
  j["launches"] = launches;
  j["partial"] = stopped_early_;
  j["totals"] = {{"launches", launches.size()},
                 {"warp_instructions", warp},
                 {"thread_instructions", thread},
                 {"core_cycles", cycles}};
  j["config"] = driver::configJson(*config_);
  if (settings_.mode == driver::Mode::Timing) j["stats"] = {{"components", transport_->device().statistics()}};
  std::ofstream out(settings_.stats_json);
  out << j.dump(2) << "\n";
  if (!out) say(fmt::format("cannot write the statistics to {}", settings_.stats_json));
}

void State::finish() {
  if (finished_ || !dev_) return;
  finished_ = true;
  flushPrintf();
  writeStatistics();
  if (settings_.mode == driver::Mode::Timing) transport_->device().closeTraces();
  interrupt_.reset();
  // The device stays open: the program's remaining atexit handlers may still call in, and the
  // process is ending anyway.
}

}  // namespace scgpu::cudart
