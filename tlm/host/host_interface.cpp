#include "tlm/host/host_interface.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "base/input_limits.h"
#include "tlm/host/scgpu_regs.h"

namespace scgpu::host {
namespace {

constexpr std::uint32_t kIntrBits =
    SCGPU_INTR_STATUS_CHANNEL_MASK | SCGPU_INTR_STATUS_ERROR_MASK | SCGPU_INTR_STATUS_FAULT_MASK;
constexpr std::uint32_t kControlBits =
    SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK | SCGPU_CH_CONTROL_PRIORITY_MASK;
constexpr std::uint32_t kMaxRingEntries = 65536;
constexpr std::uint32_t kMaxBufferWords = 1u << 20;
constexpr std::uint32_t kMaxEntryNameBytes = 4096;
// CUDA 12.1 raised the kernel parameter limit to 32764 bytes on Volta and later.
constexpr std::uint32_t kMaxParamBytes = 32764;
// Copies and memsets move data in pieces of this size, so a large transfer never needs a large
// host buffer.
constexpr std::uint64_t kChunkBytes = 1u << 20;

std::uint64_t lo_hi(std::uint32_t lo, std::uint32_t hi) { return std::uint64_t(hi) << 32 | lo; }
// Faults raise INTR_STATUS.FAULT (errors of the command stream raise ERROR): a kernel's, and a
// failed translation of a kernel or a command.
bool isKernelFault(std::uint32_t kind) {
  return (kind >= SCGPU_ERROR_KIND_ILLEGAL_ADDRESS && kind <= SCGPU_ERROR_KIND_TIMEOUT) ||
         kind == SCGPU_ERROR_KIND_PAGE_FAULT;
}
template <typename T> T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

HostInterface::HostInterface(const HostParams& params, const DeviceIdentity& identity, DevicePort& device,
                             HostMemoryPort& host)
    : params_(params), identity_(identity), device_(device), host_(host), channels_(params.channels) {}

void HostInterface::emit(HostEvent::Kind kind, std::uint32_t channel, std::uint32_t what, std::uint64_t value) {
  if (!listener_) return;
  const HostEvent e{kind, in_service_ ? t_ : now_ns_, channel, what, value, intr_status_, interruptLine()};
  if (in_service_) service_events_.push_back(e);
  else listener_(e);
}

// ---- registers --------------------------------------------------------------------------------

std::uint32_t HostInterface::read(std::uint32_t offset) {
  now_ns_ += params_.mmio_latency_ns;
  service();
  bool defined = true;
  std::uint32_t v = readRegister(offset, &defined);
  if (!defined) {
    bad_access_ = true;
    v = SCGPU_UNDEFINED_READ_VALUE;
  }
  emit(HostEvent::Kind::MmioRead, ~0u, offset, v);
  return v;
}

void HostInterface::write(std::uint32_t offset, std::uint32_t value) {
  // Posted: the write lands, and the front end runs at the next read.
  now_ns_ += params_.mmio_latency_ns;
  if (!writeRegister(offset, value)) bad_access_ = true;
  emit(HostEvent::Kind::MmioWrite, ~0u, offset, value);
}

bool HostInterface::interruptLine() const {
  return (intr_status_ & intr_enable_) != 0 && !(intr_mask_ & SCGPU_INTR_MASK_ALL_MASK);
}

bool HostInterface::pollInterrupt() {
  service();
  return interruptLine();
}

bool HostInterface::idle() const {
  for (const Channel& ch : channels_)
    if (!ch.error && (ch.have_entry || ch.gp_get != ch.gp_put || ch.kernel)) return false;
  return true;
}

std::uint32_t HostInterface::readRegister(std::uint32_t offset, bool* defined) {
  if (offset % 4) {
    *defined = false;
    return 0;
  }
  if (offset >= SCGPU_CH_BASE && offset < SCGPU_CH_BASE + SCGPU_CH_STRIDE * SCGPU_CH_MAX_COUNT) {
    const std::uint32_t c = (offset - SCGPU_CH_BASE) / SCGPU_CH_STRIDE;
    if (c >= channels_.size()) {
      *defined = false;
      return 0;
    }
    const Channel& ch = channels_[c];
    switch ((offset - SCGPU_CH_BASE) % SCGPU_CH_STRIDE) {
      case SCGPU_CH_GPFIFO_BASE_LO_OFFSET: return std::uint32_t(ch.ring_base);
      case SCGPU_CH_GPFIFO_BASE_HI_OFFSET: return std::uint32_t(ch.ring_base >> 32);
      case SCGPU_CH_GPFIFO_ENTRIES_OFFSET: return ch.ring_entries;
      case SCGPU_CH_GP_PUT_OFFSET: return ch.gp_put;
      case SCGPU_CH_GP_GET_OFFSET: return ch.gp_get;
      case SCGPU_CH_CONTROL_OFFSET: return ch.control;
      case SCGPU_CH_PAGE_TABLE_LO_OFFSET: return std::uint32_t(ch.page_table);
      case SCGPU_CH_PAGE_TABLE_HI_OFFSET: return std::uint32_t(ch.page_table >> 32);
      case SCGPU_CH_STATUS_OFFSET: {
        std::uint32_t s = 0;
        if (!ch.have_entry && ch.gp_get == ch.gp_put && !ch.kernel) s |= SCGPU_CH_STATUS_IDLE_MASK;
        if (ch.waiting) s |= SCGPU_CH_STATUS_WAITING_MASK;
        if (ch.error) s |= SCGPU_CH_STATUS_ERROR_MASK;
        return s;
      }
      case SCGPU_CH_ERROR_OFFSET: return ch.error;
      case SCGPU_CH_RESET_OFFSET: return 0;
      case SCGPU_CH_INTR_PAYLOAD_OFFSET: return ch.intr_payload;
      default: *defined = false; return 0;
    }
  }
  switch (offset) {
    case SCGPU_REG_BOOT_ID: return SCGPU_REG_BOOT_ID_RESET;
    case SCGPU_REG_REGMAP_VERSION: return SCGPU_REG_REGMAP_VERSION_RESET;
    case SCGPU_REG_ARCH:
      return (identity_.cc_major << SCGPU_ARCH_CC_MAJOR_SHIFT) | (identity_.cc_minor << SCGPU_ARCH_CC_MINOR_SHIFT);
    case SCGPU_REG_NUM_SMS: return identity_.num_sms;
    case SCGPU_REG_NUM_CHANNELS: return std::uint32_t(channels_.size());
    case SCGPU_REG_CAPS:
      return (identity_.timing ? SCGPU_CAPS_TIMING_MASK : 0) | SCGPU_CAPS_COPY_2D_MASK | SCGPU_CAPS_SEM_TIMESTAMP_MASK |
             SCGPU_CAPS_MMU_MASK;
    case SCGPU_REG_MEM_SIZE_LO: return std::uint32_t(identity_.memory_bytes);
    case SCGPU_REG_MEM_SIZE_HI: return std::uint32_t(identity_.memory_bytes >> 32);
    case SCGPU_REG_CORE_CLOCK_MHZ: return std::uint32_t(std::lround(identity_.core_clock_mhz));
    case SCGPU_REG_CONST_MEM_BYTES: return std::uint32_t(std::min<std::uint64_t>(identity_.const_memory_bytes, 0xFFFFFFFFu));
    case SCGPU_REG_SHARED_MEM_PER_BLOCK_BYTES:
      return std::uint32_t(std::min<std::uint64_t>(identity_.shared_per_block_bytes, 0xFFFFFFFFu));
    case SCGPU_REG_RESET: return 0;
    case SCGPU_REG_STATUS:
      return (idle() ? SCGPU_STATUS_IDLE_MASK : 0) | (error_.kind ? SCGPU_STATUS_ERROR_MASK : 0) |
             (bad_access_ ? SCGPU_STATUS_BAD_ACCESS_MASK : 0);
    case SCGPU_REG_SCRATCH: return scratch_;
    case SCGPU_REG_QUIESCE: return quiesce_;
    case SCGPU_REG_INTR_STATUS: return intr_status_;
    case SCGPU_REG_INTR_ENABLE: return intr_enable_;
    case SCGPU_REG_INTR_PENDING: return interruptLine() ? (intr_status_ & intr_enable_) : 0;
    case SCGPU_REG_INTR_CHANNEL: return intr_channel_;
    case SCGPU_REG_INTR_MASK: return intr_mask_;
    case SCGPU_REG_TIMER_LO:
      timer_hi_latch_ = std::uint32_t(now_ns_ >> 32);
      return std::uint32_t(now_ns_);
    case SCGPU_REG_TIMER_HI: return timer_hi_latch_;
    case SCGPU_REG_ERR_KIND: return error_.kind;
    case SCGPU_REG_ERR_CHANNEL: return error_.channel;
    case SCGPU_REG_ERR_GP_ENTRY: return error_.gp_entry;
    case SCGPU_REG_ERR_METHOD: return error_.method;
    case SCGPU_REG_ERR_WORD: return error_.word;
    case SCGPU_REG_ERR_ADDR_LO: return std::uint32_t(error_.address);
    case SCGPU_REG_ERR_ADDR_HI: return std::uint32_t(error_.address >> 32);
    case SCGPU_REG_ERR_MODULE: return error_.module;
    case SCGPU_REG_ERR_LAUNCH: return error_.launch;
    case SCGPU_REG_ERR_BLOCK_X: return error_.block[0];
    case SCGPU_REG_ERR_BLOCK_Y: return error_.block[1];
    case SCGPU_REG_ERR_BLOCK_Z: return error_.block[2];
    case SCGPU_REG_ERR_WARP: return error_.warp;
    case SCGPU_REG_ERR_LANE: return error_.lane;
    case SCGPU_REG_ERR_PC: return error_.pc;
    case SCGPU_REG_ERR_PTX_LINE: return error_.ptx_line;
    case SCGPU_REG_ERR_MMU_FAULT: return error_.mmu_fault;
    case SCGPU_REG_ERR_CLEAR: return 0;
    default: *defined = false; return 0;
  }
}

bool HostInterface::writeRegister(std::uint32_t offset, std::uint32_t value) {
  if (offset % 4) return false;
  if (offset >= SCGPU_CH_BASE && offset < SCGPU_CH_BASE + SCGPU_CH_STRIDE * SCGPU_CH_MAX_COUNT) {
    const std::uint32_t c = (offset - SCGPU_CH_BASE) / SCGPU_CH_STRIDE;
    if (c >= channels_.size()) return false;
    Channel& ch = channels_[c];
    switch ((offset - SCGPU_CH_BASE) % SCGPU_CH_STRIDE) {
      case SCGPU_CH_GPFIFO_BASE_LO_OFFSET: ch.ring_base = (ch.ring_base & ~0xFFFFFFFFull) | value; return true;
      case SCGPU_CH_GPFIFO_BASE_HI_OFFSET: ch.ring_base = (ch.ring_base & 0xFFFFFFFFull) | std::uint64_t(value) << 32; return true;
      case SCGPU_CH_GPFIFO_ENTRIES_OFFSET: ch.ring_entries = value; return true;
      case SCGPU_CH_PAGE_TABLE_LO_OFFSET: ch.page_table = (ch.page_table & ~0xFFFFFFFFull) | value; return true;
      case SCGPU_CH_PAGE_TABLE_HI_OFFSET: ch.page_table = (ch.page_table & 0xFFFFFFFFull) | std::uint64_t(value) << 32; return true;
      case SCGPU_CH_GP_PUT_OFFSET:
        // New work is visible from now: an idle channel starts on it no earlier. (Entries already
        // visible keep their own times: fetchEntry() reads an entry no earlier than its write.)
        if (ch.gp_get == ch.gp_put) ch.ready_ns = std::max(ch.ready_ns, now_ns_);
        if (ch.puts.size() >= 4096) ch.puts.pop_front();  // a bound; the oldest are long fetched
        if (ch.puts.empty()) ch.puts_from = ch.gp_put;
        ch.puts.emplace_back(value, now_ns_);
        ch.gp_put = value;
        emit(HostEvent::Kind::MmioWrite, c, SCGPU_CH_GP_PUT_OFFSET, value);
        return true;
      case SCGPU_CH_CONTROL_OFFSET:
        ch.ready_ns = ch.fetch_gate_ns = std::max(ch.ready_ns, now_ns_);
        ch.control = value & kControlBits;
        return true;
      case SCGPU_CH_RESET_OFFSET:
        if (value & SCGPU_CH_RESET_CHANNEL_MASK) resetChannel(ch);
        return true;
      case SCGPU_CH_GP_GET_OFFSET:
      case SCGPU_CH_STATUS_OFFSET:
      case SCGPU_CH_ERROR_OFFSET:
      case SCGPU_CH_INTR_PAYLOAD_OFFSET: return true;  // read-only
      default: return false;
    }
  }
  switch (offset) {
    case SCGPU_REG_RESET:
      if (value & SCGPU_RESET_DEVICE_MASK) resetDevice();
      return true;
    case SCGPU_REG_SCRATCH: scratch_ = value; return true;
    case SCGPU_REG_QUIESCE:
      for (Channel& ch : channels_) ch.ready_ns = ch.fetch_gate_ns = std::max(ch.ready_ns, now_ns_);
      quiesce_ = value & SCGPU_QUIESCE_STOP_FETCH_MASK;
      return true;
    case SCGPU_REG_INTR_STATUS: intr_status_ &= ~(value & kIntrBits); return true;
    case SCGPU_REG_INTR_ENABLE: intr_enable_ = value & kIntrBits; return true;
    case SCGPU_REG_INTR_CHANNEL: intr_channel_ &= ~value; return true;
    case SCGPU_REG_INTR_MASK: intr_mask_ = value & SCGPU_INTR_MASK_ALL_MASK; return true;
    case SCGPU_REG_ERR_CLEAR:
      if (value & SCGPU_ERR_CLEAR_CLEAR_MASK) {
        error_ = ErrorInfo{};
        bad_access_ = false;
      }
      return true;
    case SCGPU_REG_BOOT_ID: case SCGPU_REG_REGMAP_VERSION: case SCGPU_REG_ARCH: case SCGPU_REG_NUM_SMS:
    case SCGPU_REG_NUM_CHANNELS: case SCGPU_REG_CAPS: case SCGPU_REG_MEM_SIZE_LO: case SCGPU_REG_MEM_SIZE_HI:
    case SCGPU_REG_CORE_CLOCK_MHZ: case SCGPU_REG_CONST_MEM_BYTES: case SCGPU_REG_SHARED_MEM_PER_BLOCK_BYTES:
    case SCGPU_REG_STATUS: case SCGPU_REG_INTR_PENDING: case SCGPU_REG_TIMER_LO:
    case SCGPU_REG_TIMER_HI: case SCGPU_REG_ERR_KIND: case SCGPU_REG_ERR_CHANNEL: case SCGPU_REG_ERR_GP_ENTRY:
    case SCGPU_REG_ERR_METHOD: case SCGPU_REG_ERR_WORD: case SCGPU_REG_ERR_ADDR_LO: case SCGPU_REG_ERR_ADDR_HI:
    case SCGPU_REG_ERR_MODULE: case SCGPU_REG_ERR_LAUNCH: case SCGPU_REG_ERR_BLOCK_X: case SCGPU_REG_ERR_BLOCK_Y:
    case SCGPU_REG_ERR_BLOCK_Z: case SCGPU_REG_ERR_WARP: case SCGPU_REG_ERR_LANE: case SCGPU_REG_ERR_PC:
    case SCGPU_REG_ERR_PTX_LINE: case SCGPU_REG_ERR_MMU_FAULT:
      return true;  // read-only: the write is dropped
    default: return false;
  }
}

void HostInterface::resetChannel(Channel& ch) {
  ch.gp_put = ch.gp_get = 0;
  ch.error = 0;
  ch.waiting = ch.recheck = false;
  ch.ready_ns = std::max(ch.ready_ns, now_ns_);
  ch.have_entry = false;
  ch.buffer.clear();
  ch.next_word = 0;
  ch.puts.clear();
  ch.puts_from = 0;
  ch.fetch_free_ns = 0;
  ch.fetch_gate_ns = ch.ready_ns;
}

void HostInterface::resetDevice() {
  for (Channel& ch : channels_) ch = Channel{};
  scratch_ = quiesce_ = 0;
  intr_status_ = intr_enable_ = intr_channel_ = intr_mask_ = 0;
  bad_access_ = false;
  timer_hi_latch_ = 0;
  error_ = ErrorInfo{};
  launches_ = 0;
  now_ns_ = t_ = 0;
  engine_free_ns_.fill(0);
  pcie_.fill(PcieTransfer{});
  last_message_.clear();
  device_.reset();
}

// ---- the front end ----------------------------------------------------------------------------

bool HostInterface::runnable(std::uint32_t c) const {
  const Channel& ch = channels_[c];
  if (!(ch.control & SCGPU_CH_CONTROL_ENABLE_MASK) || ch.error) return false;
  if (ch.kernel)  // the front end fetches the next entry while the kernel runs (fetchEntry)
    return !ch.have_entry && !ch.prefetch_tried && ch.gp_get != ch.gp_put && !(quiesce_ & SCGPU_QUIESCE_STOP_FETCH_MASK);
  if (ch.waiting) return ch.recheck;
  if (ch.have_entry) return true;
  return ch.gp_get != ch.gp_put && !(quiesce_ & SCGPU_QUIESCE_STOP_FETCH_MASK);
}

void HostInterface::service() {
  if (in_service_) return;
  in_service_ = true;
  // The host may have released a semaphore in its memory: every waiting channel looks again.
  wakeWaiters(now_ns_);
  std::uint64_t latest = now_ns_;
  for (;;) {
    // The next step: the runnable channel whose step is earliest; on a tie the higher priority,
    // then the lower index - a fixed order, so runs are deterministic.
    std::uint32_t best = ~0u;
    for (std::uint32_t c = 0; c < channels_.size(); ++c) {
      if (!runnable(c)) continue;
      Channel& ch = channels_[c];
      if (!ch.have_entry && !ch.waiting && !ch.kernel)  // its next step reads an entry: not before it was written
        ch.ready_ns = std::max(ch.ready_ns, visibleNs(ch));
      if (best == ~0u) {
        best = c;
        continue;
      }
      const Channel &a = channels_[c], &b = channels_[best];
      const std::uint32_t pa = a.control & SCGPU_CH_CONTROL_PRIORITY_MASK, pb = b.control & SCGPU_CH_CONTROL_PRIORITY_MASK;
      if (a.ready_ns < b.ready_ns || (a.ready_ns == b.ready_ns && pa > pb)) best = c;
    }
    // A kernel that completes first lets its channel go on from then.
    if (device_.busy()) {
      std::uint64_t end_ns = 0;
      const std::uint64_t until = best == ~0u ? DevicePort::kNoBound : channels_[best].ready_ns;
      if (auto done = device_.advance(until, &end_ns)) {
        t_ = std::max(t_, end_ns);
        completeLaunch(done->first, done->second, end_ns);
        latest = std::max(latest, end_ns);
        continue;
      }
    }
    if (best == ~0u) break;
    Channel& ch = channels_[best];
    t_ = ch.ready_ns;
    step(best);
    ch.ready_ns = std::max(ch.ready_ns, t_);
    latest = std::max(latest, t_);
  }
  // The host saw none of this happen: its next access comes after the last of it. (No later copy
  // can overlap the last ones of each direction now: their ends are final.)
  notePcie(pcie_[0], kHostToDevice);
  notePcie(pcie_[1], kDeviceToHost);
  now_ns_ = latest;
  t_ = now_ns_;
  in_service_ = false;
  std::stable_sort(service_events_.begin(), service_events_.end(),
                   [](const HostEvent& a, const HostEvent& b) { return a.time_ns < b.time_ns; });
  if (listener_)
    for (const HostEvent& e : service_events_) listener_(e);
  service_events_.clear();
}

void HostInterface::wakeWaiters(std::uint64_t at_ns) {
  for (Channel& ch : channels_)
    if (ch.waiting) {
      ch.recheck = true;
      ch.ready_ns = std::max(ch.ready_ns, at_ns);
    }
}

void HostInterface::collectCompletions() {
  std::uint64_t end_ns = 0;
  while (device_.busy())
    if (auto done = device_.advance(t_, &end_ns)) completeLaunch(done->first, done->second, end_ns);
    else break;
}

void HostInterface::completeLaunch(std::uint32_t kernel, const LaunchOutcome& o, std::uint64_t end_ns) {
  for (std::uint32_t c = 0; c < channels_.size(); ++c) {
    Channel& ch = channels_[c];
    if (ch.kernel != kernel) continue;
    ch.kernel = 0;
    ch.prefetch_tried = false;
    ch.ready_ns = std::max(ch.ready_ns, end_ns);
    wakeWaiters(end_ns);  // the kernel's stores may satisfy a channel's acquire
    const std::uint64_t saved = t_;
    t_ = end_ns;
    if (o.error_kind == SCGPU_ERROR_KIND_NONE) {
      emit(HostEvent::Kind::CommandDone, c, SCGPU_METHOD_LAUNCH, ch.kernel_word);
    } else {
      // A kernel fault: the channel stops, and the error registers say where.
      ErrorInfo e;
      e.kind = o.error_kind;
      e.method = ch.kernel_header;
      e.word = ch.kernel_word;
      e.address = o.address;
      e.module = ch.kernel_module;
      e.launch = ch.kernel_launch;
      for (int i = 0; i < 3; ++i) e.block[i] = o.block[i];
      e.warp = o.warp;
      e.lane = o.lane;
      e.pc = o.pc;
      e.ptx_line = o.ptx_line;
      e.mmu_fault = o.mmu_fault;
      stopChannel(c, e, o.message, ch.kernel_entry);
    }
    t_ = saved;
    return;
  }
}

void HostInterface::pcieCopy(std::uint32_t c, CopyEngine e, std::uint64_t bytes) {
  const double full = params_.pcie_bandwidth_bytes_per_ns;
  const double duplex = full * params_.pcie_duplex_bandwidth_fraction;
  const std::uint64_t start = std::max(t_, engine_free_ns_[e]);
  const std::uint64_t data_start = start + params_.pcie_latency_ns;
  PcieTransfer& other = pcie_[e == kHostToDevice ? 1 : 0];
  double bandwidth = full;
  if (duplex < full && other.end > data_start) {
    bandwidth = duplex;
    // The other direction's copy shares the link from now: what it has left goes at the duplex
    // rate, so its channel goes on later. (Its channel waits for it: nothing of that channel ran
    // after its end yet, since steps go in time order.)
    if (other.bandwidth > duplex) {
      const std::uint64_t from = std::max(data_start, other.data_start);
      const double left_bytes = double(other.end - from) * other.bandwidth;
      const std::uint64_t end = from + std::uint64_t(std::ceil(left_bytes / duplex));
      Channel& och = channels_[other.channel];
      if (och.ready_ns == other.end) och.ready_ns = end;
      CopyEngine oe = e == kHostToDevice ? kDeviceToHost : kHostToDevice;
      if (engine_free_ns_[oe] == other.end) engine_free_ns_[oe] = end;
      other.end = end;
      other.bandwidth = duplex;
    }
  }
  const std::uint64_t duration = pcieNs(bytes, bandwidth);
  PcieTransfer& mine = pcie_[e == kHostToDevice ? 0 : 1];
  notePcie(mine, e);  // the previous one of this direction is over: its end is final
  useEngine(c, e, bytes, duration, /*note=*/false);
  mine = {c, start, data_start, start + duration, bytes, bandwidth, false};
}

void HostInterface::useEngine(std::uint32_t c, CopyEngine e, std::uint64_t bytes, std::uint64_t duration, bool note) {
  const std::uint64_t start = std::max(t_, engine_free_ns_[e]);
  engine_free_ns_[e] = start + duration;
  if (note) device_.noteCopy(e, c, bytes, start, start + duration);
  t_ = start + duration;
}

void HostInterface::notePcie(PcieTransfer& t, CopyEngine e) {
  if (t.noted) return;
  device_.noteCopy(e, t.channel, t.bytes, t.start, t.end);
  t.noted = true;
}

bool HostInterface::memRead(bool in_host, std::uint64_t addr, void* dst, std::uint64_t bytes) {
  return in_host ? host_.dmaRead(addr, dst, bytes) : device_.read(addr, dst, bytes);
}
bool HostInterface::memWrite(bool in_host, std::uint64_t addr, const void* src, std::uint64_t bytes) {
  return in_host ? host_.dmaWrite(addr, src, bytes) : device_.write(addr, src, bytes);
}

std::uint64_t HostInterface::pcieNs(std::uint64_t bytes, double bandwidth) const {
  return bytes ? params_.pcie_latency_ns + std::uint64_t(std::ceil(double(bytes) / bandwidth)) : 0;
}

std::uint64_t HostInterface::transferNs(bool host_side, std::uint64_t bytes) const {
  if (bytes == 0) return 0;
  if (host_side) return pcieNs(bytes, params_.pcie_bandwidth_bytes_per_ns);
  return std::uint64_t(std::ceil(double(bytes) / params_.copy_bandwidth_bytes_per_ns));
}

void HostInterface::recordError(const ErrorInfo& e) {
  if (error_.kind == 0) error_ = e;  // the first error is kept until ERR_CLEAR
}

void HostInterface::raise(std::uint32_t status_bits) {
  intr_status_ |= status_bits;
  emit(HostEvent::Kind::Interrupt, ~0u, status_bits, intr_status_);
}

void HostInterface::stopChannel(std::uint32_t c, std::uint32_t kind, std::uint32_t method, std::uint32_t word,
                                std::uint64_t address, const std::string& message) {
  ErrorInfo e;
  e.kind = kind;
  e.method = method;
  e.word = word;
  e.address = address;
  stopChannel(c, e, message);
}

void HostInterface::stopChannel(std::uint32_t c, ErrorInfo e, const std::string& message, std::uint32_t gp_entry) {
  Channel& ch = channels_[c];
  ch.error = e.kind;
  ch.waiting = ch.recheck = false;
  e.channel = c;
  e.gp_entry = gp_entry == ~0u ? ch.gp_get : gp_entry;
  recordError(e);
  last_message_ = fmt::format("channel {}, GPFIFO entry {}: {}", c, e.gp_entry, message);
  emit(HostEvent::Kind::Error, c, e.method & SCGPU_CMD_METHOD_MASK, e.kind);
  raise(isKernelFault(e.kind) ? SCGPU_INTR_STATUS_FAULT_MASK : SCGPU_INTR_STATUS_ERROR_MASK);
}

void HostInterface::fetchEntry(std::uint32_t c, bool report) {
  Channel& ch = channels_[c];
  // A bad ring, entry or buffer stops the channel, or, read ahead while a kernel runs, is left for
  // the fetch after it to report.
  auto fail = [&](std::uint32_t kind, std::uint64_t address, const std::string& message) {
    if (report) stopChannel(c, kind, 0, 0, address, message);
  };
  const std::uint32_t n = ch.ring_entries;
  if (n < 2 || n > kMaxRingEntries || (n & (n - 1)) || ch.ring_base % 16 || ch.gp_put >= n) {
    fail(SCGPU_ERROR_KIND_BAD_RING, ch.ring_base,
         fmt::format("ring of {} entries at 0x{:x} with GP_PUT {}: the size must be a power of two from 2 to {}, the "
                     "base 16-byte aligned and GP_PUT inside the ring",
                     n, ch.ring_base, ch.gp_put, kMaxRingEntries));
    return;
  }
  const bool ring_in_host = ch.control & SCGPU_CH_CONTROL_RING_IN_HOST_MASK;
  const std::uint64_t entry_addr = ch.ring_base + std::uint64_t(ch.gp_get) * SCGPU_GPFIFO_ENTRY_SIZE_BYTES;
  std::uint8_t e[SCGPU_GPFIFO_ENTRY_SIZE_BYTES];
  if (!memRead(ring_in_host, entry_addr, e, sizeof e)) {
    fail(SCGPU_ERROR_KIND_BAD_GPFIFO_ENTRY, entry_addr, fmt::format("the entry at 0x{:x} cannot be read", entry_addr));
    return;
  }
  const auto addr = load<std::uint64_t>(e + SCGPU_GPFIFO_ENTRY_BUFFER_ADDR_OFFSET);
  const auto words = load<std::uint32_t>(e + SCGPU_GPFIFO_ENTRY_LENGTH_WORDS_OFFSET);
  const auto flags = load<std::uint32_t>(e + SCGPU_GPFIFO_ENTRY_FLAGS_OFFSET);
  if (words == 0 || words > kMaxBufferWords || (flags & ~1u) || addr % 4) {
    fail(SCGPU_ERROR_KIND_BAD_GPFIFO_ENTRY, addr,
         fmt::format("entry (buffer 0x{:x}, {} words, flags 0x{:x}): the length must be 1 to {} words, the buffer "
                     "4-byte aligned and only flag bit 0 set",
                     addr, words, flags, kMaxBufferWords));
    return;
  }
  const bool buffer_in_host = flags & 1u;
  std::vector<std::uint32_t> buffer(words, 0);
  if (!memRead(buffer_in_host, addr, buffer.data(), std::uint64_t(words) * 4)) {
    fail(SCGPU_ERROR_KIND_BAD_ADDRESS, addr,
         fmt::format("the command buffer [0x{:x}, +{} bytes) cannot be read", addr, std::uint64_t(words) * 4));
    return;
  }
  // The fetcher reads an entry from when it became visible (and fetching was allowed), its reads
  // pipelined: their latencies overlap, they arrive in order, and the commands before the entry,
  // a kernel in flight among them, hide the fetch.
  ch.fetch_free_ns = std::max(ch.fetch_free_ns, std::max(visibleNs(ch), ch.fetch_gate_ns) +
                                                    transferNs(ring_in_host, sizeof e) +
                                                    transferNs(buffer_in_host, std::uint64_t(words) * 4));
  t_ = std::max(t_, ch.fetch_free_ns);
  ch.buffer = std::move(buffer);
  ch.have_entry = true;
  ch.next_word = 0;
}

std::uint64_t HostInterface::visibleNs(Channel& ch) const {
  const std::uint32_t n = ch.ring_entries ? ch.ring_entries : 1;
  auto dist = [n](std::uint32_t a, std::uint32_t b) { return (b + n - a % n) % n; };
  // Records whose entries were all fetched go.
  while (!ch.puts.empty() && dist(ch.puts_from, ch.gp_get) >= dist(ch.puts_from, ch.puts.front().first) &&
         ch.puts.front().first != ch.puts_from) {
    ch.puts_from = ch.puts.front().first;
    ch.puts.pop_front();
  }
  std::uint32_t from = ch.puts_from;
  for (const auto& [put, ns] : ch.puts) {
    if (dist(from, ch.gp_get) < dist(from, put)) return ns;
    from = put;
  }
  return now_ns_;
}

void HostInterface::step(std::uint32_t c) {
  Channel& ch = channels_[c];
  if (ch.kernel) {  // the next entry, read ahead while the kernel runs (once: a bad one waits)
    ch.prefetch_tried = true;
    fetchEntry(c, false);
    return;
  }
  if (!ch.have_entry) {
    fetchEntry(c);
    return;
  }
  const std::uint32_t header = ch.buffer[ch.next_word];
  const std::uint32_t count = header >> SCGPU_CMD_COUNT_SHIFT;
  if (std::uint64_t(ch.next_word) + 1 + count > ch.buffer.size()) {
    stopChannel(c, SCGPU_ERROR_KIND_BAD_ARGUMENT, header, ch.next_word, 0,
                fmt::format("command 0x{:08x} at word {} has {} data words, past the end of its {}-word buffer", header,
                            ch.next_word, count, ch.buffer.size()));
    return;
  }
  device_.setAddressSpace(ch.page_table);
  if (!execute(c, header, ch.buffer.data() + ch.next_word + 1, count)) {
    ch.waiting = !ch.error;
    ch.recheck = false;
    return;
  }
  if (ch.error) return;
  ch.waiting = ch.recheck = false;
  // A kernel in flight completes later (completeLaunch says so then).
  if (!ch.kernel) emit(HostEvent::Kind::CommandDone, c, header & SCGPU_CMD_METHOD_MASK, ch.next_word);
  ch.next_word += 1 + count;
  if (ch.next_word >= ch.buffer.size()) {
    ch.have_entry = false;
    ch.buffer.clear();
    ch.gp_get = (ch.gp_get + 1) % ch.ring_entries;
    emit(HostEvent::Kind::GpGet, c, 0, ch.gp_get);
  }
}

bool HostInterface::execute(std::uint32_t c, std::uint32_t header, const std::uint32_t* a, std::uint32_t count) {
  Channel& ch = channels_[c];
  const std::uint32_t method = header & SCGPU_CMD_METHOD_MASK;
  const std::uint32_t word = ch.next_word;
  auto bad = [&](std::uint32_t kind, std::uint64_t address, const std::string& what) {
    ErrorInfo e;
    e.kind = kind;
    e.method = header;
    e.word = word;
    e.address = address;
    PageFault pf;
    std::string why = what;
    // A device address that did not translate is a page fault at that (virtual) address.
    if (kind == SCGPU_ERROR_KIND_BAD_ADDRESS && device_.takePageFault(&pf)) {
      e.kind = SCGPU_ERROR_KIND_PAGE_FAULT;
      e.address = pf.va;
      e.mmu_fault = pf.mmu_fault;
      why += fmt::format(" (page fault at 0x{:x})", pf.va);
    }
    stopChannel(c, e, why);
    return true;  // the command is done with (the channel stopped)
  };
  auto want = [&](std::uint32_t n, const char* name) {
    if (count == n) return true;
    bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, 0, fmt::format("{} takes {} data words, the command has {}", name, n, count));
    return false;
  };
  if (!ch.waiting) emit(HostEvent::Kind::Command, c, method, word);
  t_ += ch.waiting ? 0 : params_.command_latency_ns;

  switch (method) {
    case SCGPU_METHOD_NOP: return true;

    case SCGPU_METHOD_MAP: {
      if (!want(SCGPU_METHOD_MAP_WORDS, "MAP")) return true;
      const std::uint64_t va = lo_hi(a[0], a[1]), bytes = lo_hi(a[2], a[3]);
      std::string why;
      if (va % 256 || bytes == 0) return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, va, fmt::format("MAP of {} bytes at 0x{:x}: the address must be 256-byte aligned and the size above 0", bytes, va));
      if (!device_.map(va, bytes, &why)) return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, va, "MAP: " + why);
      return true;
    }
    case SCGPU_METHOD_UNMAP: {
      if (!want(SCGPU_METHOD_UNMAP_WORDS, "UNMAP")) return true;
      const std::uint64_t va = lo_hi(a[0], a[1]);
      std::string why;
      if (!device_.unmap(va, &why)) return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, va, "UNMAP: " + why);
      return true;
    }
    case SCGPU_METHOD_LOAD_MODULE: {
      if (!want(SCGPU_METHOD_LOAD_MODULE_WORDS, "LOAD_MODULE")) return true;
      const std::uint64_t image = lo_hi(a[0], a[1]);
      const std::uint32_t bytes = a[2], slot = a[3];
      const std::uint64_t globals = lo_hi(a[4], a[5]);
      if (bytes > inputLimits().input_file_bytes)
        return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, image,
                   fmt::format("LOAD_MODULE: an image of {} bytes; it must be at most {} bytes (--limit input_file_bytes)",
                               bytes, inputLimits().input_file_bytes));
      // Read in pieces, so that a size word naming more than is mapped costs no more host memory
      // than the mapped part (a driver's word, or a socket client's, must not allocate 256 MiB).
      std::string text;
      for (std::uint64_t done = 0; done < bytes;) {
        const std::uint64_t n = std::min<std::uint64_t>(kChunkBytes, bytes - done);
        text.resize(done + n);
        if (!device_.read(image + done, text.data() + done, n))
          return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, image,
                     fmt::format("LOAD_MODULE: the image [0x{:x}, +{}) is not mapped", image, bytes));
        done += n;
      }
      std::string why;
      if (!device_.loadModule(slot, text, globals, &why)) return bad(SCGPU_ERROR_KIND_MODULE_LOAD, image, why);
      return true;
    }
    case SCGPU_METHOD_UNLOAD_MODULE: {
      if (!want(SCGPU_METHOD_UNLOAD_MODULE_WORDS, "UNLOAD_MODULE")) return true;
      std::string why;
      if (!device_.unloadModule(a[0], &why)) return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, 0, why);
      return true;
    }
    case SCGPU_METHOD_LAUNCH: {
      if (!want(SCGPU_METHOD_LAUNCH_WORDS, "LAUNCH")) return true;
      const std::uint64_t desc = lo_hi(a[0], a[1]);
      std::uint8_t d[SCGPU_LAUNCH_DESC_SIZE_BYTES];
      if (!device_.read(desc, d, sizeof d))
        return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, desc, fmt::format("LAUNCH: the descriptor at 0x{:x} is not mapped", desc));
      LaunchRequest r;
      r.page_table_root = ch.page_table;
      r.module_slot = load<std::uint32_t>(d + SCGPU_LAUNCH_DESC_MODULE_SLOT_OFFSET);
      const auto name_bytes = load<std::uint32_t>(d + SCGPU_LAUNCH_DESC_ENTRY_NAME_BYTES_OFFSET);
      const auto name_addr = load<std::uint64_t>(d + SCGPU_LAUNCH_DESC_ENTRY_NAME_ADDR_OFFSET);
      for (int i = 0; i < 3; ++i) {
        r.grid[i] = load<std::uint32_t>(d + SCGPU_LAUNCH_DESC_GRID_X_OFFSET + 4 * i);
        r.block[i] = load<std::uint32_t>(d + SCGPU_LAUNCH_DESC_BLOCK_X_OFFSET + 4 * i);
        r.cluster[i] = load<std::uint32_t>(d + SCGPU_LAUNCH_DESC_CLUSTER_X_OFFSET + 4 * i);
      }
      r.shared_bytes = load<std::uint32_t>(d + SCGPU_LAUNCH_DESC_SHARED_BYTES_OFFSET);
      const auto param_bytes = load<std::uint32_t>(d + SCGPU_LAUNCH_DESC_PARAM_BYTES_OFFSET);
      const auto param_addr = load<std::uint64_t>(d + SCGPU_LAUNCH_DESC_PARAM_ADDR_OFFSET);
      r.grid_sync_addr = load<std::uint64_t>(d + SCGPU_LAUNCH_DESC_GRID_SYNC_ADDR_OFFSET);
      if (name_bytes == 0 || name_bytes > kMaxEntryNameBytes || param_bytes > kMaxParamBytes || r.grid_sync_addr % 8)
        return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, desc,
                   fmt::format("LAUNCH: descriptor at 0x{:x}: the name must be 1 to {} bytes (is {}), the parameters "
                               "at most {} bytes (are {}) and GRID_SYNC_ADDR 8-byte aligned (is 0x{:x})",
                               desc, kMaxEntryNameBytes, name_bytes, kMaxParamBytes, param_bytes, r.grid_sync_addr));
      std::uint8_t sync_bytes[16];
      if (r.grid_sync_addr && !device_.read(r.grid_sync_addr, sync_bytes, sizeof sync_bytes))
        return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, r.grid_sync_addr,
                   fmt::format("LAUNCH: the grid synchronisation bytes at 0x{:x} are not mapped", r.grid_sync_addr));
      r.entry.assign(name_bytes, '\0');
      r.params.assign(param_bytes, 0);
      if (!device_.read(name_addr, r.entry.data(), name_bytes))
        return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, name_addr, fmt::format("LAUNCH: the kernel name at 0x{:x} is not mapped", name_addr));
      if (param_bytes && !device_.read(param_addr, r.params.data(), param_bytes))
        return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, param_addr, fmt::format("LAUNCH: the parameters at 0x{:x} are not mapped", param_addr));
      ++launches_;
      // Kernels completing before this one starts are seen first (their channels may go on).
      collectCompletions();
      LaunchOutcome refused;
      const std::uint32_t id =
          device_.startLaunch(r, c, (ch.control & SCGPU_CH_CONTROL_PRIORITY_MASK) >> SCGPU_CH_CONTROL_PRIORITY_SHIFT, t_, &refused);
      if (!id) return bad(refused.error_kind, desc, refused.message);
      ch.kernel = id;
      ch.kernel_header = header;
      ch.kernel_word = word;
      ch.kernel_entry = ch.gp_get;
      ch.kernel_module = r.module_slot;
      ch.kernel_launch = launches_;
      return true;
    }
    case SCGPU_METHOD_COPY: {
      if (!want(SCGPU_METHOD_COPY_WORDS, "COPY")) return true;
      const std::uint64_t src = lo_hi(a[0], a[1]), dst = lo_hi(a[2], a[3]);
      const std::uint32_t width = a[4], height = a[5], src_pitch = a[6], dst_pitch = a[7], flags = a[8];
      if (flags & ~3u || (height > 1 && (src_pitch < width || dst_pitch < width)))
        return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, src,
                   fmt::format("COPY: flags 0x{:x} (bits 0 and 1 only), {} rows of {} bytes with pitches {} and {} "
                               "(at least the width)",
                               flags, height, width, src_pitch, dst_pitch));
      const bool src_host = flags & 1u, dst_host = flags & 2u;
      // Nothing to move (rows of no bytes, or no rows) is done at once: 2^32 empty rows must not
      // take 2^32 steps (found by the `wire` fuzz target).
      if (width == 0 || height == 0) return true;
      std::vector<std::uint8_t> chunk;
      for (std::uint32_t row = 0; row < height; ++row) {
        for (std::uint64_t done = 0; done < width;) {
          const std::uint64_t n = std::min<std::uint64_t>(kChunkBytes, width - done);
          const std::uint64_t s = src + std::uint64_t(row) * src_pitch + done;
          const std::uint64_t t = dst + std::uint64_t(row) * dst_pitch + done;
          chunk.resize(n);
          if (!memRead(src_host, s, chunk.data(), n))
            return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, s, fmt::format("COPY: source [0x{:x}, +{}) cannot be read", s, n));
          if (!memWrite(dst_host, t, chunk.data(), n))
            return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, t, fmt::format("COPY: destination [0x{:x}, +{}) cannot be written", t, n));
          done += n;
        }
      }
      const CopyEngine engine = src_host && !dst_host ? kHostToDevice : dst_host ? kDeviceToHost : kWithinDevice;
      if (engine == kWithinDevice) useEngine(c, engine, std::uint64_t(width) * height, transferNs(false, std::uint64_t(width) * height));
      else pcieCopy(c, engine, std::uint64_t(width) * height);
      return true;
    }
    case SCGPU_METHOD_WRITE_INLINE: {
      const std::uint64_t dst = count >= 2 ? lo_hi(a[0], a[1]) : 0;
      if (count < 3 || dst % 4)
        return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, dst,
                   fmt::format("WRITE_INLINE: {} data words at 0x{:x}: the address (2 words) and at least one word to "
                               "write, 4-byte aligned",
                               count, dst));
      const std::uint64_t bytes = std::uint64_t(count - 2) * 4;
      if (!device_.write(dst, a + 2, bytes))
        return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, dst, fmt::format("WRITE_INLINE: [0x{:x}, +{}) is not mapped", dst, bytes));
      return true;  // the words came with the command buffer: its fetch paid for them
    }
    case SCGPU_METHOD_MEMSET: {
      if (!want(SCGPU_METHOD_MEMSET_WORDS, "MEMSET")) return true;
      const std::uint64_t dst = lo_hi(a[0], a[1]);
      const std::uint32_t width = a[2], height = a[3], pitch = a[4], value = a[5], elem = a[6];
      if ((elem != 1 && elem != 2 && elem != 4) || width % elem || (height > 1 && pitch < width))
        return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, dst,
                   fmt::format("MEMSET: elements of {} bytes (1, 2 or 4), rows of {} bytes (a multiple of it), pitch {}",
                               elem, width, pitch));
      std::vector<std::uint8_t> pattern;
      if (elem != 1) {
        pattern.resize(std::min<std::uint64_t>(kChunkBytes, width));
        for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = std::uint8_t(value >> (8 * (i % elem)));
      }
      if (width == 0 || height == 0) return true;  // as COPY: no work, no steps
      for (std::uint32_t row = 0; row < height; ++row) {
        const std::uint64_t t = dst + std::uint64_t(row) * pitch;
        bool ok = true;
        if (elem == 1) ok = device_.fill(t, std::uint8_t(value), width);
        else
          for (std::uint64_t done = 0; ok && done < width; done += pattern.size())
            ok = device_.write(t + done, pattern.data(), std::min<std::uint64_t>(pattern.size(), width - done));
        if (!ok) return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, t, fmt::format("MEMSET: [0x{:x}, +{}) is not mapped", t, width));
      }
      useEngine(c, kWithinDevice, std::uint64_t(width) * height,
                std::uint64_t(std::ceil(double(width) * height / params_.memset_bandwidth_bytes_per_ns)));
      return true;
    }
    case SCGPU_METHOD_SEM_RELEASE: {
      if (!want(SCGPU_METHOD_SEM_RELEASE_WORDS, "SEM_RELEASE")) return true;
      const std::uint64_t addr = lo_hi(a[0], a[1]);
      const std::uint32_t value = a[2], flags = a[3];
      if (flags & ~3u || addr % 4)
        return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, addr, fmt::format("SEM_RELEASE: flags 0x{:x} (bits 0 and 1 only), address 0x{:x} (4-byte aligned)", flags, addr));
      const bool in_host = flags & 2u;
      std::uint8_t rec[16] = {};
      std::memcpy(rec, &value, 4);
      const std::uint64_t stamp = t_;
      std::memcpy(rec + 8, &stamp, 8);
      const std::uint64_t n = (flags & 1u) ? 16 : 4;
      if (!memWrite(in_host, addr, rec, n))
        return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, addr, fmt::format("SEM_RELEASE: [0x{:x}, +{}) cannot be written", addr, n));
      t_ += in_host ? params_.pcie_latency_ns : 0;
      wakeWaiters(t_);  // a channel waiting on this semaphore may go on now
      return true;
    }
    case SCGPU_METHOD_SEM_ACQUIRE: {
      if (!want(SCGPU_METHOD_SEM_ACQUIRE_WORDS, "SEM_ACQUIRE")) return true;
      const std::uint64_t addr = lo_hi(a[0], a[1]);
      const std::uint32_t value = a[2], flags = a[3];
      if (flags & ~2u || addr % 4)
        return bad(SCGPU_ERROR_KIND_BAD_ARGUMENT, addr, fmt::format("SEM_ACQUIRE: flags 0x{:x} (bit 1 only), address 0x{:x} (4-byte aligned)", flags, addr));
      std::uint32_t current = 0;
      if (!memRead(flags & 2u, addr, &current, 4))
        return bad(SCGPU_ERROR_KIND_BAD_ADDRESS, addr, fmt::format("SEM_ACQUIRE: 0x{:x} cannot be read", addr));
      return current >= value;
    }
    case SCGPU_METHOD_WAIT_FOR_IDLE:
      // Commands of a channel run one after another, each to completion: everything before this
      // one has completed.
      want(SCGPU_METHOD_WAIT_FOR_IDLE_WORDS, "WAIT_FOR_IDLE");
      return true;
    case SCGPU_METHOD_MMU_INVALIDATE:
      if (!want(SCGPU_METHOD_MMU_INVALIDATE_WORDS, "MMU_INVALIDATE")) return true;
      device_.invalidateTranslations(ch.page_table);
      return true;
    case SCGPU_METHOD_INTERRUPT:
      if (!want(SCGPU_METHOD_INTERRUPT_WORDS, "INTERRUPT")) return true;
      ch.intr_payload = a[0];
      if (c < 32) intr_channel_ |= 1u << c;
      raise(SCGPU_INTR_STATUS_CHANNEL_MASK);
      return true;
    default:
      return bad(SCGPU_ERROR_KIND_BAD_METHOD, 0, fmt::format("unknown method 0x{:04x} at word {}", method, word));
  }
}

}  // namespace scgpu::host
