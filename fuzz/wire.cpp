// Fuzz target `wire`: the server side of the socket protocol of `scgpu serve`
// (docs/host-protocol.md). The input is the byte stream a client sends: HELLO, MMIO accesses, and
// the replies to the device's DMA requests, in the order the server reads them. One
// driver::ServerSession serves it, on the small device of harness.h behind the host interface, as
// `scgpu serve` does; when the input runs out the client has "disconnected". The device is then
// reset, as the server resets it between clients.
//
// Nothing the client sends may crash, hang or make the server allocate without bound (every
// length is checked against the protocol's limits before a payload is read). Findings besides
// crashes, sanitizer reports, timeouts and memory over -rss_limit_mb:
// - what the server sent does not parse as messages of the protocol (an unknown type, a length
//   outside its type's bounds, nonzero flags or reserved fields);
// - a session that ended on a protocol error whose last message is not ERROR;
// - a session that says it was stopped (nothing stops it here).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "driver/socket_protocol.h"
#include "driver/socket_server.h"
#include "driver/transport.h"
#include "fuzz/harness.h"
#include "tlm/host/scgpu_regs.h"

namespace {

using namespace scgpu::driver;

// Reads the fuzzer's bytes; keeps what the server writes (up to a bound, then only counts it).
class BufferLink : public wire::Link {
 public:
  static constexpr std::size_t kKeepBytes = 8u << 20;
  BufferLink(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool read(void* dst, std::size_t n) override {
    if (n > size_ - at_) {
      at_ = size_;
      return false;
    }
    if (n) std::memcpy(dst, data_ + at_, n);
    at_ += n;
    return true;
  }
  bool write(const void* src, std::size_t n) override {
    if (out.size() + n <= kKeepBytes) out.append(static_cast<const char*>(src), n);
    else overflowed = true;
    return true;
  }
  std::string out;
  bool overflowed = false;

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

// Checks that `bytes` is a sequence of well-formed messages; returns the type of the last one.
std::uint16_t checkServerOutput(const std::string& bytes) {
  BufferLink in(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  std::uint16_t last = 0;
  std::size_t parsed = 0;
  for (;;) {
    wire::Message m;
    const wire::Received r = wire::receive(in, m, {});
    if (r.status == wire::ReceiveStatus::Closed) break;
    if (r.status == wire::ReceiveStatus::Refused)
      scgpu::fuzz::finding("the server sent a malformed message: " + r.why);
    const auto t = wire::Type(m.header.type);
    if (t == wire::Type::Hello || t == wire::Type::MmioRead || t == wire::Type::MmioWrite ||
        t == wire::Type::DmaReadReply || t == wire::Type::DmaWriteAck)
      scgpu::fuzz::finding(std::string("the server sent a client's message: ") + wire::typeName(m.header.type));
    last = m.header.type;
    parsed += wire::kHeaderBytes + m.payload.size();
  }
  if (parsed != bytes.size()) scgpu::fuzz::finding("the server's output ends inside a message");
  return last;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::unique_ptr<Transport> device = makeInProcessTransport(scgpu::fuzz::smallConfig());
  static const wire::Identity identity = readIdentity(*device);

  BufferLink link(data, size);
  ServerSession session(*device, identity, link);
  const ServerSession::Result result = session.run();
  device->mmioWrite(SCGPU_REG_RESET, SCGPU_RESET_DEVICE_MASK);

  // SCGPU_FUZZ_VERBOSE=1: how each session ended (to check seeds: fuzz/make_wire_seeds.py).
  static const bool verbose = std::getenv("SCGPU_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "wire: end %d after %llu MMIO, %llu DMA%s%s\n", int(result.end),
                 static_cast<unsigned long long>(result.mmio_accesses), static_cast<unsigned long long>(result.dma_requests),
                 result.message.empty() ? "" : ": ", result.message.c_str());
  if (result.end == ServerSession::End::Stopped) scgpu::fuzz::finding("a session over a buffer says it was stopped");
  if (!link.overflowed) {
    const std::uint16_t last = checkServerOutput(link.out);
    if (result.end == ServerSession::End::ProtocolError && last != std::uint16_t(wire::Type::Error))
      scgpu::fuzz::finding("a protocol error (" + result.message + ") without an ERROR message last");
  }
  if (result.end == ServerSession::End::ProtocolError && result.message.empty())
    scgpu::fuzz::finding("a protocol error without a message");
  return 0;
}
