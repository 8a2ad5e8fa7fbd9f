// Fuzz target `wire_client`: the client side of the socket protocol (docs/host-protocol.md), the
// transport under scgpu_open_socket(). The input is what a server sends after a correct
// HELLO_REPLY (which the harness sends first): replies, DMA requests, INTERRUPT, ERROR, GOODBYE,
// in any order and shape. The client runs on one end of a socketpair: it says HELLO, then makes
// 32 MMIO accesses (reads and writes in turn, checking the interrupt line after each) with 64 KiB
// of host memory at IOVA 0x10000000 attached for the DMA requests; a thread drains what it sends.
//
// Nothing the server sends may crash or hang the client or make it allocate without bound (findings:
// crashes, sanitizer reports, timeouts, memory over -rss_limit_mb). A correct HELLO_REPLY that the
// client refuses is a finding too.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "driver/socket_protocol.h"
#include "driver/transport.h"
#include "fuzz/harness.h"
#include "tlm/host/host_interface.h"
#include "tlm/host/buffer_host_memory.h"
#include "tlm/host/scgpu_regs.h"

namespace {

using namespace scgpu::driver;

using HostMemory = scgpu::host::BufferHostMemory;

bool writeAll(int fd, const std::uint8_t* p, std::size_t n) {
  while (n) {
    const ssize_t put = ::send(fd, p, n, MSG_NOSIGNAL);
    if (put <= 0) return false;
    p += put;
    n -= std::size_t(put);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // What the server sends must fit the socket's buffer: nobody reads the server's end before the
  // client starts.
  if (size > (64u << 10)) return 0;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) scgpu::fuzz::finding("socketpair failed");
  int big = 1 << 20;
  ::setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);

  wire::Identity id;
  id.boot_id = SCGPU_REG_BOOT_ID_RESET;
  id.regmap_version = SCGPU_REG_REGMAP_VERSION_RESET;
  id.num_channels = 8;
  std::vector<std::uint8_t> stream(wire::kHeaderBytes);
  const std::vector<std::uint8_t> hello = wire::helloReplyPayload(id);
  wire::Header h;
  h.type = std::uint16_t(wire::Type::HelloReply);
  h.length = std::uint32_t(hello.size());
  h.id = 1;  // the client's HELLO is its request 1
  wire::encodeHeader(h, stream.data());
  stream.insert(stream.end(), hello.begin(), hello.end());
  stream.insert(stream.end(), data, data + size);
  if (!writeAll(sv[1], stream.data(), stream.size())) scgpu::fuzz::finding("cannot write the server's bytes");
  ::shutdown(sv[1], SHUT_WR);

  // Drains what the client sends (DMA replies may be large) until it closes.
  std::thread drain([fd = sv[1]] {
    std::vector<char> sink(1 << 16);
    while (::recv(fd, sink.data(), sink.size(), 0) > 0) {
    }
  });
  {
    HostMemory memory(64 << 10);
    std::unique_ptr<Transport> t;
    try {
      t = adoptSocketTransport(sv[0]);
    } catch (const TransportError& e) {
      scgpu::fuzz::finding(std::string("a correct HELLO_REPLY was refused: ") + e.what());
    }
    t->attachHostMemory(&memory);
    for (std::uint32_t i = 0; i < 32; ++i) {
      if (i % 2) t->mmioWrite(SCGPU_REG_SCRATCH, i);
      else (void)t->mmioRead(SCGPU_REG_SCRATCH);
      (void)t->interruptPending();
    }
  }  // closes the client's end: the drain ends
  drain.join();
  ::close(sv[1]);
  return 0;
}
