#include "driver/socket_protocol.h"

#include "driver/transport.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <fmt/format.h>

namespace scgpu::driver::wire {

const char* typeName(std::uint16_t type) {
  switch (Type(type)) {
    case Type::Hello: return "HELLO";
    case Type::HelloReply: return "HELLO_REPLY";
    case Type::Goodbye: return "GOODBYE";
    case Type::Error: return "ERROR";
    case Type::MmioRead: return "MMIO_READ";
    case Type::MmioReadReply: return "MMIO_READ_REPLY";
    case Type::MmioWrite: return "MMIO_WRITE";
    case Type::MmioWriteAck: return "MMIO_WRITE_ACK";
    case Type::DmaRead: return "DMA_READ";
    case Type::DmaReadReply: return "DMA_READ_REPLY";
    case Type::DmaWrite: return "DMA_WRITE";
    case Type::DmaWriteAck: return "DMA_WRITE_ACK";
    case Type::Interrupt: return "INTERRUPT";
  }
  return "unknown";
}

const char* errorCodeName(std::uint32_t code) {
  switch (ErrorCode(code)) {
    case ErrorCode::Version: return "VERSION";
    case ErrorCode::Malformed: return "MALFORMED";
    case ErrorCode::TooLarge: return "TOO_LARGE";
    case ErrorCode::Unexpected: return "UNEXPECTED";
    case ErrorCode::Shutdown: return "SHUTDOWN";
    case ErrorCode::Timeout: return "TIMEOUT";
  }
  return "unknown";
}

namespace {
constexpr std::uint32_t kHelloBytes = 8;
constexpr std::uint32_t kHelloReplyBytes = 48;
}  // namespace

bool payloadBounds(std::uint16_t type, std::uint32_t* min, std::uint32_t* max) {
  auto exact = [&](std::uint32_t n) {
    *min = *max = n;
    return true;
  };
  switch (Type(type)) {
    case Type::Hello: return exact(kHelloBytes);
    case Type::HelloReply: return exact(kHelloReplyBytes);
    case Type::Goodbye: return exact(4);
    case Type::Error:
      *min = 4;
      *max = 4 + kMaxErrorTextBytes;
      return true;
    case Type::MmioRead: return exact(8);
    case Type::MmioReadReply: return exact(8);
    case Type::MmioWrite: return exact(16);
    case Type::MmioWriteAck: return exact(0);
    case Type::DmaRead: return exact(16);
    case Type::DmaReadReply:
      *min = 4;
      *max = 4 + kMaxDmaBytes;
      return true;
    case Type::DmaWrite:
      *min = 16;
      *max = 16 + kMaxDmaBytes;
      return true;
    case Type::DmaWriteAck: return exact(4);
    case Type::Interrupt: return exact(8);
  }
  return false;
}

// ---- encoding -----------------------------------------------------------------------------------

Writer& Writer::u16(std::uint16_t v) {
  b_.push_back(std::uint8_t(v));
  b_.push_back(std::uint8_t(v >> 8));
  return *this;
}
Writer& Writer::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b_.push_back(std::uint8_t(v >> (8 * i)));
  return *this;
}
Writer& Writer::u64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b_.push_back(std::uint8_t(v >> (8 * i)));
  return *this;
}
Writer& Writer::bytes(const void* p, std::size_t n) {
  const std::size_t at = b_.size();
  b_.resize(at + n);
  if (n) std::memcpy(b_.data() + at, p, n);
  return *this;
}

const std::uint8_t* Reader::bytes(std::size_t n) {
  if (!ok_ || n > n_ - at_) {
    ok_ = false;
    return nullptr;
  }
  const std::uint8_t* p = p_ + at_;
  at_ += n;
  return p;
}
std::uint16_t Reader::u16() {
  const std::uint8_t* p = bytes(2);
  return p ? std::uint16_t(p[0] | p[1] << 8) : 0;
}
std::uint32_t Reader::u32() {
  const std::uint8_t* p = bytes(4);
  if (!p) return 0;
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
std::uint64_t Reader::u64() {
  const std::uint8_t* p = bytes(8);
  if (!p) return 0;
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void encodeHeader(const Header& h, std::uint8_t out[kHeaderBytes]) {
  Writer w;
  w.u16(h.type).u16(h.flags).u32(h.length).u32(h.id).u32(h.reserved).u64(h.time_ns);
  std::memcpy(out, w.data().data(), kHeaderBytes);
}

Header decodeHeader(const std::uint8_t in[kHeaderBytes]) {
  Reader r(in, kHeaderBytes);
  Header h;
  h.type = r.u16();
  h.flags = r.u16();
  h.length = r.u32();
  h.id = r.u32();
  h.reserved = r.u32();
  h.time_ns = r.u64();
  return h;
}

std::vector<std::uint8_t> helloPayload(std::uint32_t magic, std::uint16_t major, std::uint16_t minor) {
  Writer w;
  w.u32(magic).u16(major).u16(minor);
  return std::move(w.data());
}

std::vector<std::uint8_t> helloReplyPayload(const Identity& id) {
  Writer w;
  w.u32(kMagic).u16(kVersionMajor).u16(kVersionMinor);
  w.u32(id.boot_id).u32(id.regmap_version).u32(id.arch).u32(id.num_sms).u32(id.num_channels).u32(id.caps);
  w.u64(id.memory_bytes).u32(id.core_clock_mhz).u32(id.max_dma_bytes);
  return std::move(w.data());
}

bool parseHelloReply(const std::vector<std::uint8_t>& payload, std::uint32_t* magic, std::uint16_t* major,
                     std::uint16_t* minor, Identity* id) {
  Reader r(payload);
  *magic = r.u32();
  *major = r.u16();
  *minor = r.u16();
  id->boot_id = r.u32();
  id->regmap_version = r.u32();
  id->arch = r.u32();
  id->num_sms = r.u32();
  id->num_channels = r.u32();
  id->caps = r.u32();
  id->memory_bytes = r.u64();
  id->core_clock_mhz = r.u32();
  id->max_dma_bytes = r.u32();
  return r.ok() && r.remaining() == 0;
}

std::vector<std::uint8_t> errorPayload(ErrorCode code, const std::string& text) {
  Writer w;
  w.u32(std::uint32_t(code)).bytes(text.data(), std::min<std::size_t>(text.size(), kMaxErrorTextBytes));
  return std::move(w.data());
}

bool parseError(const std::vector<std::uint8_t>& payload, std::uint32_t* code, std::string* text) {
  Reader r(payload);
  *code = r.u32();
  if (!r.ok()) return false;
  const std::size_t n = std::min<std::size_t>(r.remaining(), kMaxErrorTextBytes);
  const std::uint8_t* p = r.bytes(n);
  text->assign(reinterpret_cast<const char*>(p), n);
  // Only printable ASCII of the peer's text reaches a log or terminal.
  for (char& c : *text)
    if (c < 0x20 || c > 0x7e) c = '?';
  return true;
}

// ---- the link -------------------------------------------------------------------------------------

FdLink::FdLink(int fd, int wake_fd) : fd_(fd), wake_fd_(wake_fd) {
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
}

bool FdLink::wait(short events) {
  pollfd p[2] = {{fd_, events, 0}, {wake_fd_, POLLIN, 0}};
  const nfds_t n = wake_fd_ >= 0 ? 2 : 1;
  for (;;) {
    const int rc = ::poll(p, n, timeout_ms_);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (rc == 0) {
      timed_out_ = true;
      return false;
    }
    if (n == 2 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      stopped_ = true;
      return false;
    }
    if (p[0].revents) return true;  // ready, or an error/hangup the next call reports
  }
}

bool FdLink::read(void* dst, std::size_t n) {
  auto* p = static_cast<std::uint8_t*>(dst);
  while (n > 0) {
    const ssize_t got = ::recv(fd_, p, n, 0);
    if (got > 0) {
      p += got;
      n -= std::size_t(got);
      continue;
    }
    if (got == 0) return false;  // the peer closed
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
    if (!wait(POLLIN)) return false;
  }
  return true;
}

bool FdLink::write(const void* src, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(src);
  while (n > 0) {
    const ssize_t put = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (put >= 0) {
      p += put;
      n -= std::size_t(put);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return false;  // EPIPE, ECONNRESET: the peer is gone
    if (!wait(POLLOUT)) return false;
  }
  return true;
}

// ---- messages --------------------------------------------------------------------------------------

Received receive(Link& link, Message& out, const Expectation& expect) {
  Received r;
  std::uint8_t raw[kHeaderBytes];
  if (!link.read(raw, sizeof raw)) {
    r.status = ReceiveStatus::Closed;
    return r;
  }
  const Header h = decodeHeader(raw);
  auto refuse = [&](ErrorCode code, std::string why) {
    r.status = ReceiveStatus::Refused;
    r.code = code;
    r.why = std::move(why);
    return r;
  };
  std::uint32_t min = 0, max = 0;
  if (!payloadBounds(h.type, &min, &max)) return refuse(ErrorCode::Malformed, fmt::format("unknown message type {}", h.type));
  if (h.flags != 0 || h.reserved != 0)
    return refuse(ErrorCode::Malformed, fmt::format("{}: flags 0x{:x} and reserved 0x{:x} must be 0",
                                                    typeName(h.type), h.flags, h.reserved));
  if (h.length > max)
    return refuse(ErrorCode::TooLarge, fmt::format("{}: a payload of {} bytes; at most {}", typeName(h.type), h.length, max));
  if (h.length < min)
    return refuse(ErrorCode::Malformed, fmt::format("{}: a payload of {} bytes; at least {}", typeName(h.type), h.length, min));
  if (expect.check) {
    std::string why = expect.check(h);
    if (!why.empty()) return refuse(expect.code, std::move(why));
  }
  out.header = h;
  out.payload.resize(h.length);
  if (h.length && !link.read(out.payload.data(), h.length)) {
    r.status = ReceiveStatus::Closed;
    return r;
  }
  return r;
}

bool send(Link& link, Type type, std::uint32_t id, std::uint64_t time_ns, const std::vector<std::uint8_t>& payload) {
  Header h;
  h.type = std::uint16_t(type);
  h.length = std::uint32_t(payload.size());
  h.id = id;
  h.time_ns = time_ns;
  std::vector<std::uint8_t> frame(kHeaderBytes + payload.size());
  encodeHeader(h, frame.data());
  if (!payload.empty()) std::memcpy(frame.data() + kHeaderBytes, payload.data(), payload.size());
  return link.write(frame.data(), frame.size());
}

sockaddr_un unixAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    throw TransportError(fmt::format("socket path '{}' has {} bytes; a Unix socket path has 1 to {}", path, path.size(),
                                     sizeof addr.sun_path - 1));
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

}  // namespace scgpu::driver::wire
