// The device side of the socket protocol (docs/host-protocol.md): ServerSession serves one client
// over any Link (a socket, or a fuzzer's bytes), SocketServer owns a device and a listening Unix
// socket and serves one client after another (`scgpu serve`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "driver/socket_protocol.h"
#include "driver/runtime.h"
#include "driver/transport.h"

namespace scgpu {
class GpuConfig;
}

namespace scgpu::driver {

// The identity HELLO_REPLY gives, read from the device's identification registers.
wire::Identity readIdentity(Transport& device);

// One client's connection, as a dispatcher: reads the client's messages from the link, executes
// its MMIO accesses on the device and answers them. While an access runs, the device's DMA to host
// memory becomes DMA_READ/DMA_WRITE requests to the client, answered before the access completes;
// a change of the interrupt line is sent before the access's reply. Never trusts the peer: every
// header is checked before its payload is read (docs/host-protocol.md, "Errors"), and the first
// protocol error ends the session with an ERROR message. It does not reset the device: its owner
// does that after run() returns.
class ServerSession : public host::HostMemoryPort {
 public:
  enum class End {
    Goodbye,        // the client said GOODBYE
    Disconnected,   // the link ended (the client closed, or was killed)
    ProtocolError,  // the client broke the protocol: an ERROR was sent
    Stopped,        // the link's wake descriptor fired (the server is stopping)
  };
  struct Result {
    End end = End::Disconnected;
    std::string message;  // for ProtocolError: what was wrong
    std::uint64_t mmio_accesses = 0, dma_requests = 0;
  };

  ServerSession(Transport& device, const wire::Identity& identity, wire::Link& link);
  // Serves until the session ends; the device's host memory is attached to this session meanwhile.
  Result run();

  bool dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) override;
  bool dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) override;

 private:
  bool sendMessage(wire::Type type, std::uint32_t id, const std::vector<std::uint8_t>& payload);
  void protocolError(wire::ErrorCode code, const std::string& why);
  void linkLost();
  // The client sent ERROR: the session ends, and its reason is the client's.
  void clientReportedError(const wire::Message& m);
  // Receives the reply of DMA request `id` (`type`, payload length checked by `check`).
  bool receiveDmaReply(std::uint32_t id, wire::Type type, std::uint32_t data_bytes, wire::Message& reply);
  void notifyInterrupt();

  Transport& device_;
  wire::Identity identity_;
  wire::Link& link_;
  bool open_ = true;
  bool greeted_ = false;
  bool line_ = false;  // the interrupt level the client was last told
  std::uint32_t next_dma_id_ = 1;
  Result result_;
};

// `scgpu serve`: a device and a listening Unix socket at `path`. One client at a time; others wait
// in the listen queue. After each client (goodbye, disconnect, kill, protocol error) the device is
// reset (RESET.DEVICE), so the next client finds it as after power-on.
class SocketServer {
 public:
  // Builds the device (in-process transport) from `config`, then binds and listens. Refuses, with
  // TransportError, a path that exists and is not a socket, or a socket another server listens on;
  // a stale socket file (nobody listening) is replaced.
  // The device is the host interface in front of the device model, in `mode` (functional or the
  // cycle-level timing model, of which a process holds one).
  SocketServer(const GpuConfig& config, const std::string& path, Mode mode = Mode::Functional);
  // Closes and removes the socket file (if it is still the one this server made).
  ~SocketServer();
  SocketServer(const SocketServer&) = delete;
  SocketServer& operator=(const SocketServer&) = delete;

  // Serves clients until stop().
  void run();
  // Ends run() (at the next message boundary of the current client, or while it waits for one).
  // Async-signal-safe: it writes one byte to a pipe.
  void stop() noexcept;

  // A client that has not completed HELLO this many ms after it connected gets ERROR TIMEOUT and
  // loses its connection, so that a silent connection cannot hold the device (0: no limit).
  void setHelloTimeoutMs(int ms) { hello_timeout_ms_ = ms; }
  // Where the server reports clients coming and going (none: silent).
  void setLog(std::function<void(const std::string&)> log) { log_ = std::move(log); }
  const wire::Identity& identity() const { return identity_; }
  std::uint64_t clientsServed() const { return clients_; }

 private:
  void say(const std::string& line);
  std::unique_ptr<Transport> device_;
  wire::Identity identity_;
  std::string path_;
  int listen_fd_ = -1;
  int wake_read_ = -1, wake_write_ = -1;
  std::uint64_t socket_dev_ = 0, socket_ino_ = 0;  // the socket file this server made
  std::uint64_t clients_ = 0;
  int hello_timeout_ms_ = 10000;
  std::function<void(const std::string&)> log_;
};

}  // namespace scgpu::driver
