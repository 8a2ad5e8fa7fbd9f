#define SCGPU_REGS_TABLE
#include "tlm/host/scgpu_regs.h"

#include "tlm/host/host_trace.h"

#include <stdexcept>

#include <fmt/format.h>

namespace scgpu::host {

std::string registerName(std::uint32_t offset) {
  for (const scgpu_reg_info& r : scgpu_registers) {
    if (!r.array_stride) {
      if (r.offset == offset) return r.name;
      continue;
    }
    if (offset < r.offset) continue;
    const std::uint32_t c = (offset - r.offset) / r.array_stride;
    if (c < SCGPU_CH_MAX_COUNT && r.offset + c * r.array_stride == offset) return fmt::format("{}[{}]", r.name, c);
  }
  return "undefined";
}

std::string methodName(std::uint32_t method) {
  switch (method) {
    case SCGPU_METHOD_NOP: return "NOP";
    case SCGPU_METHOD_MAP: return "MAP";
    case SCGPU_METHOD_UNMAP: return "UNMAP";
    case SCGPU_METHOD_LOAD_MODULE: return "LOAD_MODULE";
    case SCGPU_METHOD_UNLOAD_MODULE: return "UNLOAD_MODULE";
    case SCGPU_METHOD_LAUNCH: return "LAUNCH";
    case SCGPU_METHOD_COPY: return "COPY";
    case SCGPU_METHOD_MEMSET: return "MEMSET";
    case SCGPU_METHOD_SEM_RELEASE: return "SEM_RELEASE";
    case SCGPU_METHOD_SEM_ACQUIRE: return "SEM_ACQUIRE";
    case SCGPU_METHOD_WAIT_FOR_IDLE: return "WAIT_FOR_IDLE";
    case SCGPU_METHOD_INTERRUPT: return "INTERRUPT";
    default: return fmt::format("method 0x{:04x}", method);
  }
}

HostTrace::HostTrace(const std::string& waveform_path, const std::string& mmio_log_path, std::uint32_t channels) {
  if (!waveform_path.empty()) {
    trace::Tracer::Options o;
    o.path = waveform_path;
    o.core_clock_mhz = 0.001;  // time steps are nanoseconds of device time: zoom to microseconds
    tracer_ = std::make_unique<trace::Tracer>(o);
    mmio_offset_ = tracer_->add("host.mmio.offset", trace::Kind::Int, 16, trace::Radix::Hex);
    mmio_value_ = tracer_->add("host.mmio.value", trace::Kind::Int, 32, trace::Radix::Hex);
    mmio_access_ = tracer_->add("host.mmio.access", trace::Kind::String);
    intr_status_ = tracer_->add("host.intr.status", trace::Kind::Int, 3, trace::Radix::Bin);
    irq_ = tracer_->add("host.intr.line", trace::Kind::Int, 1);
    for (std::uint32_t c = 0; c < channels; ++c) {
      ChannelSignals s;
      const std::string p = fmt::format("host.ch[{}].", c);
      s.gp_put = tracer_->add(p + "gp_put", trace::Kind::Int, 16, trace::Radix::Dec);
      s.gp_get = tracer_->add(p + "gp_get", trace::Kind::Int, 16, trace::Radix::Dec);
      s.method = tracer_->add(p + "method", trace::Kind::String);
      s.error = tracer_->add(p + "error", trace::Kind::Int, 8, trace::Radix::Dec);
      ch_.push_back(s);
    }
  }
  if (!mmio_log_path.empty()) {
    log_.open(mmio_log_path);
    if (!log_) throw std::runtime_error(fmt::format("{}: cannot open the MMIO log for writing", mmio_log_path));
    log_path_ = mmio_log_path;
    log_ << "# time_ns access offset register value\n";
  }
}

HostTrace::~HostTrace() {
  try {
    close();
  } catch (...) {
  }
}

void HostTrace::on(const HostEvent& e, bool line, std::uint32_t status) {
  if (closed_) return;
  const bool mmio = e.kind == HostEvent::Kind::MmioRead || e.kind == HostEvent::Kind::MmioWrite;
  if (mmio && e.channel == ~0u && log_.is_open())
    log_ << fmt::format("{} {} 0x{:04x} {} 0x{:08x}\n", e.time_ns, e.kind == HostEvent::Kind::MmioRead ? 'R' : 'W',
                        e.offset_or_method, registerName(e.offset_or_method), e.value);
  if (!tracer_) return;
  // The front end runs when the host next reads, so work that posted writes made visible can be
  // done at device times before the host's later accesses, which were traced already: such an
  // event shows at the latest time traced (a waveform cannot go back).
  last_ns_ = std::max(last_ns_, e.time_ns);
  tracer_->advance(last_ns_ * 1000, last_ns_);
  const bool has_channel = e.channel < ch_.size();
  switch (e.kind) {
    case HostEvent::Kind::MmioRead:
    case HostEvent::Kind::MmioWrite:
      if (e.channel == ~0u) {
        tracer_->set(mmio_offset_, e.offset_or_method);
        tracer_->set(mmio_value_, e.value);
        tracer_->setString(mmio_access_, fmt::format("{} {}", e.kind == HostEvent::Kind::MmioRead ? "R" : "W",
                                                     registerName(e.offset_or_method)));
      } else if (has_channel) {
        tracer_->set(ch_[e.channel].gp_put, e.value);  // a doorbell
      }
      break;
    case HostEvent::Kind::Command:
      if (has_channel) tracer_->setString(ch_[e.channel].method, methodName(e.offset_or_method));
      break;
    case HostEvent::Kind::CommandDone:
      if (has_channel) tracer_->setString(ch_[e.channel].method, "");
      break;
    case HostEvent::Kind::GpGet:
      if (has_channel) tracer_->set(ch_[e.channel].gp_get, e.value);
      break;
    case HostEvent::Kind::Interrupt:
      break;  // the status is set below, after every event
    case HostEvent::Kind::Error:
      if (has_channel) {
        tracer_->set(ch_[e.channel].error, e.value);
        tracer_->setString(ch_[e.channel].method, "");
      }
      break;
  }
  tracer_->set(intr_status_, status);
  tracer_->set(irq_, line ? 1 : 0);
}

std::vector<std::string> HostTrace::close() {
  std::vector<std::string> files;
  if (closed_) return files;
  closed_ = true;
  if (tracer_) {
    tracer_->close();
    files.push_back(tracer_->tracePath());
    files.push_back(tracer_->gtkwPath());
  }
  if (log_.is_open()) {
    log_.close();
    if (!log_) throw std::runtime_error(fmt::format("{}: cannot write the MMIO log", log_path_));
    files.push_back(log_path_);
  }
  return files;
}

}  // namespace scgpu::host
