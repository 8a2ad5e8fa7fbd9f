// The client end of the socket protocol (docs/host-protocol.md): a Transport whose device is an
// `scgpu serve` process. Each MMIO access is a request and its reply; while it waits for the reply
// it serves the device's DMA requests from the attached host memory and takes interrupt messages.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "driver/socket_protocol.h"
#include "driver/transport.h"

namespace scgpu::driver {
namespace {

using wire::ErrorCode;
using wire::Type;

class SocketTransport : public Transport {
 public:
  // Takes a connected stream socket (closed here, also when this throws) and says HELLO; `name`
  // names the peer in messages.
  SocketTransport(int fd, const std::string& name);
  ~SocketTransport() override;

  std::uint32_t mmioRead(std::uint32_t offset) override;
  void mmioWrite(std::uint32_t offset, std::uint32_t value) override;
  bool interruptPending() override { return up_ && line_; }
  void attachHostMemory(host::HostMemoryPort* memory) override { host_ = memory; }
  std::uint64_t deviceTimeNs() const override { return time_ns_; }

 private:
  // Waits for the reply of request `id` (of type `type`), serving what the device sends meanwhile.
  bool await(std::uint32_t id, Type type, wire::Message& reply);
  void serveDmaRead(const wire::Message& m);
  void serveDmaWrite(const wire::Message& m);
  void linkDown(std::string why);
  void protocolError(ErrorCode code, const std::string& why);

  std::string path_;
  int fd_ = -1;
  std::unique_ptr<wire::FdLink> link_;
  bool up_ = false;
  std::string why_down_;
  bool line_ = false;
  host::HostMemoryPort* host_ = nullptr;
  std::uint32_t next_id_ = 1;
  std::uint64_t time_ns_ = 0;
};

SocketTransport::SocketTransport(int fd, const std::string& name) : path_(name), fd_(fd) {
  link_ = std::make_unique<wire::FdLink>(fd_);
  up_ = true;
  const std::uint32_t id = next_id_++;
  wire::Message reply;
  if (!wire::send(*link_, Type::Hello, id, 0, wire::helloPayload())) linkDown("the server closed the connection");
  if (!up_ || !await(id, Type::HelloReply, reply)) {
    ::close(fd_);
    throw TransportError(fmt::format("{}: {}", name, why_down_));
  }
  std::uint32_t magic = 0;
  std::uint16_t major = 0, minor = 0;
  wire::Identity identity;
  std::string bad;
  if (!wire::parseHelloReply(reply.payload, &magic, &major, &minor, &identity) || magic != wire::kMagic)
    bad = fmt::format("HELLO_REPLY with magic 0x{:08x}: not an scgpu server", magic);
  else if (major != wire::kVersionMajor)
    bad = fmt::format("the server speaks protocol {}.{}, this client {}.{}", major, minor, wire::kVersionMajor,
                      wire::kVersionMinor);
  if (!bad.empty()) {
    protocolError(ErrorCode::Version, bad);
    ::close(fd_);
    throw TransportError(fmt::format("{}: {}", name, bad));
  }
}

SocketTransport::~SocketTransport() {
  if (up_) {
    wire::Writer w;
    w.u32(0);
    (void)wire::send(*link_, Type::Goodbye, 0, 0, w.data());
  }
  ::close(fd_);
}

void SocketTransport::linkDown(std::string why) {
  if (!up_) return;
  up_ = false;
  line_ = false;
  why_down_ = std::move(why);
}

void SocketTransport::protocolError(ErrorCode code, const std::string& why) {
  if (!up_) return;
  (void)wire::send(*link_, Type::Error, 0, 0, wire::errorPayload(code, why));
  linkDown(fmt::format("protocol error ({}): {}", wire::errorCodeName(std::uint32_t(code)), why));
  ::shutdown(fd_, SHUT_RDWR);
}

std::uint32_t SocketTransport::mmioRead(std::uint32_t offset) {
  if (!up_) return 0xFFFFFFFFu;
  const std::uint32_t id = next_id_++;
  wire::Writer w;
  w.u32(offset).u32(wire::kMmioWidth);
  wire::Message reply;
  if (!wire::send(*link_, Type::MmioRead, id, 0, w.data())) {
    linkDown("the server closed the connection");
    return 0xFFFFFFFFu;
  }
  if (!await(id, Type::MmioReadReply, reply)) return 0xFFFFFFFFu;
  const std::uint64_t v = wire::Reader(reply.payload).u64();
  if (v > 0xFFFFFFFFull) {
    protocolError(ErrorCode::Malformed, fmt::format("MMIO_READ_REPLY value 0x{:x} for a 4-byte read", v));
    return 0xFFFFFFFFu;
  }
  return std::uint32_t(v);
}

void SocketTransport::mmioWrite(std::uint32_t offset, std::uint32_t value) {
  if (!up_) return;
  const std::uint32_t id = next_id_++;
  wire::Writer w;
  w.u32(offset).u32(wire::kMmioWidth).u64(value);
  wire::Message reply;
  if (!wire::send(*link_, Type::MmioWrite, id, 0, w.data())) {
    linkDown("the server closed the connection");
    return;
  }
  await(id, Type::MmioWriteAck, reply);
}

bool SocketTransport::await(std::uint32_t id, Type type, wire::Message& reply) {
  wire::Expectation expect;
  expect.check = [&](const wire::Header& h) -> std::string {
    switch (Type(h.type)) {
      case Type::DmaRead:
      case Type::DmaWrite:
      case Type::Interrupt:
      case Type::Error:
      case Type::Goodbye: return "";
      default:
        if (h.type == std::uint16_t(type) && h.id == id) return "";
        return fmt::format("{} (id {}) while waiting for {} to request {}", wire::typeName(h.type), h.id,
                           wire::typeName(std::uint16_t(type)), id);
    }
  };
  while (up_) {
    wire::Message m;
    const wire::Received r = wire::receive(*link_, m, expect);
    if (r.status == wire::ReceiveStatus::Closed) {
      linkDown("the server closed the connection");
      return false;
    }
    if (r.status == wire::ReceiveStatus::Refused) {
      protocolError(r.code, r.why);
      return false;
    }
    time_ns_ = m.header.time_ns;
    wire::Reader in(m.payload);
    switch (Type(m.header.type)) {
      case Type::DmaRead: serveDmaRead(m); break;
      case Type::DmaWrite: serveDmaWrite(m); break;
      case Type::Interrupt: {
        const std::uint32_t line = in.u32(), level = in.u32();
        if (line != 0 || level > 1) {
          protocolError(ErrorCode::Malformed, fmt::format("INTERRUPT of line {} to level {}: line 0, level 0 or 1", line, level));
          return false;
        }
        line_ = level == 1;
        break;
      }
      case Type::Error: {
        std::uint32_t code = 0;
        std::string text;
        wire::parseError(m.payload, &code, &text);
        linkDown(fmt::format("the server reported {}: {}", wire::errorCodeName(code), text));
        return false;
      }
      case Type::Goodbye: linkDown("the server said goodbye"); return false;
      default:
        reply = std::move(m);
        return true;
    }
  }
  return false;
}

void SocketTransport::serveDmaRead(const wire::Message& m) {
  wire::Reader in(m.payload);
  const std::uint64_t iova = in.u64();
  const std::uint32_t bytes = in.u32(), reserved = in.u32();
  if (reserved != 0 || bytes > wire::kMaxDmaBytes) {
    protocolError(bytes > wire::kMaxDmaBytes ? ErrorCode::TooLarge : ErrorCode::Malformed,
                  fmt::format("DMA_READ of {} bytes (at most {}), reserved 0x{:x}", bytes, wire::kMaxDmaBytes, reserved));
    return;
  }
  std::vector<std::uint8_t> payload(4 + std::size_t(bytes));
  const bool ok = host_ && (bytes == 0 || host_->dmaRead(iova, payload.data() + 4, bytes));
  const std::uint32_t status = ok ? wire::kDmaOk : wire::kDmaRefused;
  if (!ok) payload.resize(4);
  for (int i = 0; i < 4; ++i) payload[std::size_t(i)] = std::uint8_t(status >> (8 * i));
  if (!wire::send(*link_, Type::DmaReadReply, m.header.id, 0, payload)) linkDown("the server closed the connection");
}

void SocketTransport::serveDmaWrite(const wire::Message& m) {
  wire::Reader in(m.payload);
  const std::uint64_t iova = in.u64();
  const std::uint32_t bytes = in.u32(), reserved = in.u32();
  if (reserved != 0 || in.remaining() != bytes) {
    protocolError(ErrorCode::Malformed, fmt::format("DMA_WRITE of {} bytes carrying {}, reserved 0x{:x}", bytes,
                                                    in.remaining(), reserved));
    return;
  }
  const bool ok = host_ && (bytes == 0 || host_->dmaWrite(iova, in.bytes(bytes), bytes));
  wire::Writer w;
  w.u32(ok ? wire::kDmaOk : wire::kDmaRefused);
  if (!wire::send(*link_, Type::DmaWriteAck, m.header.id, 0, w.data())) linkDown("the server closed the connection");
}

}  // namespace

std::unique_ptr<Transport> connectSocketTransport(const std::string& path) {
  const sockaddr_un addr = wire::unixAddress(path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw TransportError(fmt::format("socket(): {}", std::strerror(errno)));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int e = errno;
    ::close(fd);
    throw TransportError(fmt::format("cannot connect to {}: {} (is `scgpu serve --socket {}` running?)", path,
                                     std::strerror(e), path));
  }
  return std::make_unique<SocketTransport>(fd, path);
}

std::unique_ptr<Transport> adoptSocketTransport(int fd) {
  return std::make_unique<SocketTransport>(fd, fmt::format("socket descriptor {}", fd));
}

}  // namespace scgpu::driver
