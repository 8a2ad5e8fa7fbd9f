#include "driver/socket_server.h"

#include "driver/inprocess_transport.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <fmt/format.h>

#include "tlm/gpu_config.h"
#include "tlm/host/scgpu_regs.h"

namespace scgpu::driver {

using wire::ErrorCode;
using wire::Type;

wire::Identity readIdentity(Transport& device) {
  wire::Identity id;
  id.boot_id = device.mmioRead(SCGPU_REG_BOOT_ID);
  id.regmap_version = device.mmioRead(SCGPU_REG_REGMAP_VERSION);
  id.arch = device.mmioRead(SCGPU_REG_ARCH);
  id.num_sms = device.mmioRead(SCGPU_REG_NUM_SMS);
  id.num_channels = device.mmioRead(SCGPU_REG_NUM_CHANNELS);
  id.caps = device.mmioRead(SCGPU_REG_CAPS);
  id.memory_bytes = std::uint64_t(device.mmioRead(SCGPU_REG_MEM_SIZE_HI)) << 32 | device.mmioRead(SCGPU_REG_MEM_SIZE_LO);
  id.core_clock_mhz = device.mmioRead(SCGPU_REG_CORE_CLOCK_MHZ);
  id.max_dma_bytes = wire::kMaxDmaBytes;
  return id;
}

// ---- one client ----------------------------------------------------------------------------------

ServerSession::ServerSession(Transport& device, const wire::Identity& identity, wire::Link& link)
    : device_(device), identity_(identity), link_(link) {}

bool ServerSession::sendMessage(Type type, std::uint32_t id, const std::vector<std::uint8_t>& payload) {
  if (!open_) return false;
  if (!wire::send(link_, type, id, device_.deviceTimeNs(), payload)) {
    linkLost();
    return false;
  }
  return true;
}

void ServerSession::clientReportedError(const wire::Message& m) {
  std::uint32_t code = 0;
  std::string text;
  wire::parseError(m.payload, &code, &text);
  open_ = false;
  result_.end = End::Disconnected;
  result_.message = fmt::format("the client reported {} ({}): {}", wire::errorCodeName(code), code, text);
}

void ServerSession::linkLost() {
  if (!open_) return;
  open_ = false;
  result_.end = link_.stopped() ? End::Stopped : End::Disconnected;
}

void ServerSession::protocolError(ErrorCode code, const std::string& why) {
  if (!open_) return;
  // Best effort: the client may already be gone.
  (void)wire::send(link_, Type::Error, 0, device_.deviceTimeNs(), wire::errorPayload(code, why));
  open_ = false;
  result_.end = End::ProtocolError;
  result_.message = fmt::format("{}: {}", wire::errorCodeName(std::uint32_t(code)), why);
}

void ServerSession::notifyInterrupt() {
  // Reads let the device run before they answer; a write is posted: the level as it stands.
  const bool level = device_.interruptLevel();
  if (level == line_) return;
  line_ = level;
  wire::Writer w;
  w.u32(0).u32(level ? 1 : 0);
  sendMessage(Type::Interrupt, 0, w.data());
}

ServerSession::Result ServerSession::run() {
  struct Attach {
    Transport& t;
    Attach(Transport& t, host::HostMemoryPort* p) : t(t) { t.attachHostMemory(p); }
    ~Attach() { t.attachHostMemory(nullptr); }
  } attach(device_, this);

  wire::Expectation expect;
  expect.check = [this](const wire::Header& h) -> std::string {
    const Type t = Type(h.type);
    if (!greeted_)
      return t == Type::Hello ? "" : fmt::format("{} before HELLO", wire::typeName(h.type));
    if (t == Type::MmioRead || t == Type::MmioWrite || t == Type::Goodbye || t == Type::Error) return "";
    return fmt::format("{} while no request of the server is outstanding", wire::typeName(h.type));
  };
  while (open_) {
    wire::Message m;
    const wire::Received r = wire::receive(link_, m, expect);
    if (r.status == wire::ReceiveStatus::Closed) {
      if (link_.timedOut())
        protocolError(ErrorCode::Timeout, "no complete HELLO within the server's handshake timeout");
      else
        linkLost();
      break;
    }
    if (r.status == wire::ReceiveStatus::Refused) {
      protocolError(r.code, r.why);
      break;
    }
    wire::Reader in(m.payload);
    const std::uint32_t id = m.header.id;
    switch (Type(m.header.type)) {
      case Type::Hello: {
        const std::uint32_t magic = in.u32();
        const std::uint16_t major = in.u16(), minor = in.u16();
        if (magic != wire::kMagic) {
          protocolError(ErrorCode::Version, fmt::format("HELLO: magic 0x{:08x}, not 0x{:08x} ('SGPU')", magic, wire::kMagic));
          break;
        }
        if (major != wire::kVersionMajor) {
          protocolError(ErrorCode::Version, fmt::format("HELLO: protocol version {}.{}; this server speaks {}.{}",
                                                        major, minor, wire::kVersionMajor, wire::kVersionMinor));
          break;
        }
        greeted_ = true;
        link_.setTimeoutMs(-1);  // the handshake timeout ends here: a driver may sit idle
        if (sendMessage(Type::HelloReply, id, wire::helloReplyPayload(identity_))) notifyInterrupt();
        break;
      }
      case Type::MmioRead: {
        const std::uint32_t offset = in.u32(), width = in.u32();
        if (width != wire::kMmioWidth) {
          protocolError(ErrorCode::Malformed, fmt::format("MMIO_READ of width {} at 0x{:x}: version 1 has width 4 only", width, offset));
          break;
        }
        ++result_.mmio_accesses;
        const std::uint32_t value = device_.mmioRead(offset);
        if (!open_) break;  // the link broke while the access ran (a DMA failed)
        notifyInterrupt();
        wire::Writer w;
        w.u64(value);
        sendMessage(Type::MmioReadReply, id, w.data());
        break;
      }
      case Type::MmioWrite: {
        const std::uint32_t offset = in.u32(), width = in.u32();
        const std::uint64_t value = in.u64();
        if (width != wire::kMmioWidth || value > 0xFFFFFFFFull) {
          protocolError(ErrorCode::Malformed, fmt::format("MMIO_WRITE of width {}, value 0x{:x} at 0x{:x}: version 1 "
                                                          "has width 4 only, and the value must fit it",
                                                          width, value, offset));
          break;
        }
        ++result_.mmio_accesses;
        device_.mmioWrite(offset, std::uint32_t(value));
        if (!open_) break;
        notifyInterrupt();
        sendMessage(Type::MmioWriteAck, id, {});
        break;
      }
      case Type::Goodbye:
        open_ = false;
        result_.end = End::Goodbye;
        break;
      case Type::Error:
        clientReportedError(m);
        break;
      default:  // the expectation admits no other type
        protocolError(ErrorCode::Unexpected, wire::typeName(m.header.type));
        break;
    }
  }
  return result_;
}

bool ServerSession::receiveDmaReply(std::uint32_t id, Type type, std::uint32_t data_bytes, wire::Message& reply) {
  wire::Expectation expect;
  expect.check = [&](const wire::Header& h) -> std::string {
    if (h.type == std::uint16_t(Type::Goodbye) || h.type == std::uint16_t(Type::Error)) return "";
    if (h.type != std::uint16_t(type))
      return fmt::format("{} while the reply to request {} ({}) is outstanding", wire::typeName(h.type), id,
                         wire::typeName(std::uint16_t(type)));
    if (h.id != id) return fmt::format("{} to request {}; the outstanding request is {}", wire::typeName(h.type), h.id, id);
    if (type == Type::DmaReadReply && h.length != 4 && h.length != 4 + data_bytes)
      return fmt::format("DMA_READ_REPLY of {} bytes to a read of {}: 4 (refused) or {} expected", h.length, data_bytes,
                         4 + data_bytes);
    return "";
  };
  const wire::Received r = wire::receive(link_, reply, expect);
  if (r.status == wire::ReceiveStatus::Closed) {
    linkLost();
    return false;
  }
  if (r.status == wire::ReceiveStatus::Refused) {
    protocolError(r.code, r.why);
    return false;
  }
  if (reply.header.type == std::uint16_t(Type::Goodbye)) {
    open_ = false;
    result_.end = End::Goodbye;
    return false;
  }
  if (reply.header.type == std::uint16_t(Type::Error)) {
    clientReportedError(reply);
    return false;
  }
  return true;
}

bool ServerSession::dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) {
  auto* out = static_cast<std::uint8_t*>(dst);
  for (std::uint64_t done = 0; done < bytes;) {
    if (!open_) return false;
    const std::uint32_t n = std::uint32_t(std::min<std::uint64_t>(wire::kMaxDmaBytes, bytes - done));
    const std::uint32_t id = next_dma_id_++;
    ++result_.dma_requests;
    wire::Writer w;
    w.u64(iova + done).u32(n).u32(0);
    if (!sendMessage(Type::DmaRead, id, w.data())) return false;
    wire::Message reply;
    if (!receiveDmaReply(id, Type::DmaReadReply, n, reply)) return false;
    wire::Reader in(reply.payload);
    const std::uint32_t status = in.u32();
    if (status == wire::kDmaRefused && in.remaining() == 0) return false;
    if (status != wire::kDmaOk || in.remaining() != n) {
      protocolError(ErrorCode::Malformed, fmt::format("DMA_READ_REPLY to request {}: status {} with {} bytes of data", id,
                                                      status, in.remaining()));
      return false;
    }
    std::memcpy(out + done, in.bytes(n), n);
    done += n;
  }
  return open_;
}

bool ServerSession::dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) {
  const auto* from = static_cast<const std::uint8_t*>(src);
  for (std::uint64_t done = 0; done < bytes;) {
    if (!open_) return false;
    const std::uint32_t n = std::uint32_t(std::min<std::uint64_t>(wire::kMaxDmaBytes, bytes - done));
    const std::uint32_t id = next_dma_id_++;
    ++result_.dma_requests;
    wire::Writer w;
    w.u64(iova + done).u32(n).u32(0).bytes(from + done, n);
    if (!sendMessage(Type::DmaWrite, id, w.data())) return false;
    wire::Message reply;
    if (!receiveDmaReply(id, Type::DmaWriteAck, 0, reply)) return false;
    const std::uint32_t status = wire::Reader(reply.payload).u32();
    if (status == wire::kDmaRefused) return false;
    if (status != wire::kDmaOk) {
      protocolError(ErrorCode::Malformed, fmt::format("DMA_WRITE_ACK to request {}: status {}", id, status));
      return false;
    }
    done += n;
  }
  return open_;
}

// ---- the server ---------------------------------------------------------------------------------

namespace {

std::string errnoText(int e) { return std::strerror(e); }

// Closes a descriptor when a constructor throws half-way.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    const int f = fd;
    fd = -1;
    return f;
  }
};

}  // namespace

SocketServer::SocketServer(const GpuConfig& config, const std::string& path, Mode mode) : path_(path) {
  device_ = std::make_unique<InProcessTransport>(config, mode);
  identity_ = readIdentity(*device_);
  device_->mmioWrite(SCGPU_REG_RESET, SCGPU_RESET_DEVICE_MASK);

  const sockaddr_un addr = wire::unixAddress(path);

  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      throw TransportError(fmt::format("{} exists and is not a socket: refusing to replace it", path));
    // A socket file: replace it only when nobody listens on it (a server that was killed). The
    // probe does not block: a listener whose queue is full answers EAGAIN.
    Fd probe{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
    if (probe.fd < 0) throw TransportError(fmt::format("socket(): {}", errnoText(errno)));
    const int rc = ::connect(probe.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    if (rc == 0 || errno == EAGAIN || errno == EINPROGRESS)
      throw TransportError(fmt::format("another server listens on {}", path));
    if (errno != ECONNREFUSED && errno != ENOENT)
      throw TransportError(fmt::format("{} is a socket that cannot be probed ({}): refusing to replace it", path,
                                       errnoText(errno)));
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      throw TransportError(fmt::format("cannot remove the stale socket {}: {}", path, errnoText(errno)));
  }

  Fd listener{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (listener.fd < 0) throw TransportError(fmt::format("socket(): {}", errnoText(errno)));
  if (::bind(listener.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw TransportError(fmt::format("cannot bind {}: {}", path, errnoText(errno)));
  if (::stat(path.c_str(), &st) == 0) {
    socket_dev_ = st.st_dev;
    socket_ino_ = st.st_ino;
  }
  if (::listen(listener.fd, 8) != 0) {
    const int e = errno;
    ::unlink(path.c_str());
    throw TransportError(fmt::format("cannot listen on {}: {}", path, errnoText(e)));
  }
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int e = errno;
    ::unlink(path.c_str());
    throw TransportError(fmt::format("pipe(): {}", errnoText(e)));
  }
  listen_fd_ = listener.release();
  wake_read_ = wake[0];
  wake_write_ = wake[1];
}

SocketServer::~SocketServer() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && std::uint64_t(st.st_dev) == socket_dev_ && std::uint64_t(st.st_ino) == socket_ino_)
    ::unlink(path_.c_str());
  if (wake_read_ >= 0) ::close(wake_read_);
  if (wake_write_ >= 0) ::close(wake_write_);
}

void SocketServer::stop() noexcept {
  const char byte = 1;
  [[maybe_unused]] const ssize_t rc = ::write(wake_write_, &byte, 1);  // a full pipe is already a stop
}

void SocketServer::say(const std::string& line) {
  if (log_) log_(line);
}

void SocketServer::run() {
  for (;;) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      say(fmt::format("poll(): {}; stopping", errnoText(errno)));
      return;
    }
    if (p[1].revents) return;
    if (!(p[0].revents & POLLIN)) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) say(fmt::format("accept(): {}", errnoText(errno)));
      continue;
    }
    const std::uint64_t n = ++clients_;
    say(fmt::format("client {} connected", n));
    ServerSession::Result r;
    {
      wire::FdLink link(fd, wake_read_);
      link.setTimeoutMs(hello_timeout_ms_ > 0 ? hello_timeout_ms_ : -1);
      ServerSession session(*device_, identity_, link);
      r = session.run();
      if (r.end == ServerSession::End::Stopped)  // best effort: the wake byte makes a full socket fail at once
        (void)wire::send(link, Type::Error, 0, device_->deviceTimeNs(),
                         wire::errorPayload(ErrorCode::Shutdown, "the server is stopping"));
    }
    ::close(fd);
    device_->mmioWrite(SCGPU_REG_RESET, SCGPU_RESET_DEVICE_MASK);
    const char* how = "";
    switch (r.end) {
      case ServerSession::End::Goodbye: how = "said goodbye"; break;
      case ServerSession::End::Disconnected: how = "disconnected"; break;
      case ServerSession::End::ProtocolError: how = "broke the protocol"; break;
      case ServerSession::End::Stopped: how = "cut off: the server is stopping"; break;
    }
    say(fmt::format("client {} {}{}{} after {} MMIO accesses and {} DMA requests; device reset", n, how,
                    r.message.empty() ? "" : ": ", r.message, r.mmio_accesses, r.dma_requests));
    if (r.end == ServerSession::End::Stopped) return;
  }
}

}  // namespace scgpu::driver
