// The wire protocol between `scgpu serve` (the device) and a driver in another process (the
// client), over a Unix stream socket: docs/host-protocol.md is its specification. This file is
// shared by both ends: message framing, the limits, encoding and decoding of every field, and the
// byte stream under it (Link). Everything is little-endian, assembled byte by byte, so that neither
// end depends on the other's struct layout or byte order.
//
// Every message is a 24-byte header and a payload whose length the header gives. A receiver
// checks the header (known type, flags and reserved 0, a length within the type's bounds and the
// bounds of what it expects now) before it reads or allocates a byte of the payload; a header that
// fails is a protocol error that closes the connection with an ERROR message.
#pragma once

#include <sys/un.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace scgpu::driver::wire {

constexpr std::uint32_t kMagic = 0x55504753;  // "SGPU" as its four bytes on the wire
constexpr std::uint16_t kVersionMajor = 1;
constexpr std::uint16_t kVersionMinor = 0;
constexpr std::size_t kHeaderBytes = 24;
// The most data one DMA message carries; the device splits larger transfers.
constexpr std::uint32_t kMaxDmaBytes = 1u << 20;
// The longest text of an ERROR message.
constexpr std::uint32_t kMaxErrorTextBytes = 1024;
// The largest payload of any message (DMA_WRITE: 16 bytes of address and length, then the data).
constexpr std::uint32_t kMaxPayloadBytes = 16 + kMaxDmaBytes;
// The only MMIO access width of version 1.
constexpr std::uint32_t kMmioWidth = 4;

enum class Type : std::uint16_t {
  Hello = 1,          // client -> server: magic, version
  HelloReply = 2,     // server -> client: magic, version, the device's identity
  Goodbye = 3,        // either way: the sender closes after it
  Error = 4,          // either way: a protocol error; the sender closes after it
  MmioRead = 5,       // client -> server
  MmioReadReply = 6,  // server -> client
  MmioWrite = 7,      // client -> server
  MmioWriteAck = 8,   // server -> client
  DmaRead = 9,        // server -> client: the device reads host memory
  DmaReadReply = 10,  // client -> server: status, then the data
  DmaWrite = 11,      // server -> client: the device writes host memory
  DmaWriteAck = 12,   // client -> server: status
  Interrupt = 13,     // server -> client: the interrupt line changed level
};

// The codes of ERROR messages.
enum class ErrorCode : std::uint32_t {
  Version = 1,     // HELLO with a wrong magic or an unsupported major version
  Malformed = 2,   // a field out of range: unknown type, nonzero flags or reserved, a wrong length
  TooLarge = 3,    // a length field above the limit of its type
  Unexpected = 4,  // a message that is not valid now (MMIO before HELLO, a reply nobody asked for)
  Shutdown = 5,    // the server is stopping
  Timeout = 6,     // no complete HELLO within the server's handshake timeout
};

// DMA_READ_REPLY and DMA_WRITE_ACK status.
constexpr std::uint32_t kDmaOk = 0;
constexpr std::uint32_t kDmaRefused = 1;

struct Header {
  std::uint16_t type = 0;
  std::uint16_t flags = 0;     // 0 in version 1
  std::uint32_t length = 0;    // payload bytes after the header
  std::uint32_t id = 0;        // request id; a reply carries its request's
  std::uint32_t reserved = 0;  // 0 in version 1
  std::uint64_t time_ns = 0;   // device time (server); 0 from the client in version 1
};

// What HELLO_REPLY says about the device (the identification registers, and the protocol's limit).
struct Identity {
  std::uint32_t boot_id = 0, regmap_version = 0, arch = 0, num_sms = 0, num_channels = 0, caps = 0;
  std::uint64_t memory_bytes = 0;
  std::uint32_t core_clock_mhz = 0;
  std::uint32_t max_dma_bytes = kMaxDmaBytes;
};

const char* typeName(std::uint16_t type);
const char* errorCodeName(std::uint32_t code);

// The smallest and largest payload of a type; false for a type version 1 does not define.
bool payloadBounds(std::uint16_t type, std::uint32_t* min, std::uint32_t* max);

void encodeHeader(const Header& h, std::uint8_t out[kHeaderBytes]);
Header decodeHeader(const std::uint8_t in[kHeaderBytes]);

// Little-endian payload building and parsing.
class Writer {
 public:
  Writer& u16(std::uint16_t v);
  Writer& u32(std::uint32_t v);
  Writer& u64(std::uint64_t v);
  Writer& bytes(const void* p, std::size_t n);
  std::vector<std::uint8_t>& data() { return b_; }

 private:
  std::vector<std::uint8_t> b_;
};

// Reads fields in order; a read past the end yields 0 and clears ok().
class Reader {
 public:
  Reader(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  explicit Reader(const std::vector<std::uint8_t>& v) : p_(v.data()), n_(v.size()) {}
  std::uint16_t u16();
  std::uint32_t u32();
  std::uint64_t u64();
  // The next n bytes (nullptr when fewer remain).
  const std::uint8_t* bytes(std::size_t n);
  std::size_t remaining() const { return n_ - at_; }
  bool ok() const { return ok_; }

 private:
  const std::uint8_t* p_;
  std::size_t n_, at_ = 0;
  bool ok_ = true;
};

// Payloads of the fixed-format messages.
std::vector<std::uint8_t> helloPayload(std::uint32_t magic = kMagic, std::uint16_t major = kVersionMajor,
                                       std::uint16_t minor = kVersionMinor);
std::vector<std::uint8_t> helloReplyPayload(const Identity& id);
bool parseHelloReply(const std::vector<std::uint8_t>& payload, std::uint32_t* magic, std::uint16_t* major,
                     std::uint16_t* minor, Identity* id);
std::vector<std::uint8_t> errorPayload(ErrorCode code, const std::string& text);
// The code and text of an ERROR payload (the text cut at kMaxErrorTextBytes).
bool parseError(const std::vector<std::uint8_t>& payload, std::uint32_t* code, std::string* text);

// The byte stream under the protocol: a socket, or a buffer (fuzzing). Both calls move exactly n
// bytes or fail; after a failure the link is dead.
class Link {
 public:
  virtual ~Link() = default;
  virtual bool read(void* dst, std::size_t n) = 0;
  virtual bool write(const void* src, std::size_t n) = 0;
  // True when a call failed because its owner asked it to stop (not because the peer went away).
  virtual bool stopped() const { return false; }
  // Bounds each wait for the peer to `ms` milliseconds (-1: no bound); a wait that runs out fails
  // the call and sets timedOut().
  virtual void setTimeoutMs(int ms) {}
  virtual bool timedOut() const { return false; }
};

// A connected stream socket. Writes never raise SIGPIPE (MSG_NOSIGNAL). With a wake descriptor,
// every wait also watches it: when it becomes readable (a byte written by a signal handler or
// another thread) the waiting call fails and stopped() is true. The descriptor is made
// non-blocking and is not closed here.
class FdLink : public Link {
 public:
  explicit FdLink(int fd, int wake_fd = -1);
  bool read(void* dst, std::size_t n) override;
  bool write(const void* src, std::size_t n) override;
  bool stopped() const override { return stopped_; }
  void setTimeoutMs(int ms) override { timeout_ms_ = ms; }
  bool timedOut() const override { return timed_out_; }

 private:
  bool wait(short events);
  int fd_, wake_fd_;
  int timeout_ms_ = -1;
  bool stopped_ = false, timed_out_ = false;
};

// One message as read.
struct Message {
  Header header;
  std::vector<std::uint8_t> payload;
};

enum class ReceiveStatus { Ok, Closed, Refused };
struct Received {
  ReceiveStatus status = ReceiveStatus::Ok;
  ErrorCode code = ErrorCode::Malformed;  // for Refused
  std::string why;                        // for Refused
};

// What the receiver expects now: returns an empty string to accept a header, else why not (the
// message is refused with `code`). Called only for headers that passed the generic checks.
struct Expectation {
  std::function<std::string(const Header&)> check;
  ErrorCode code = ErrorCode::Unexpected;
};

// Reads one message: the header, its generic checks (known type, flags and reserved 0, length
// within the type's bounds: ErrorCode::TooLarge above the maximum), then `expect`, and only then
// the payload. Closed: the link ended (cleanly before a header, or mid-message).
Received receive(Link& link, Message& out, const Expectation& expect);

// Sends one message (header and payload in one write).
bool send(Link& link, Type type, std::uint32_t id, std::uint64_t time_ns, const std::vector<std::uint8_t>& payload);

// The address of the Unix socket at `path`, for both ends. Throws TransportError for a path that
// is empty or longer than a Unix socket path may be.
sockaddr_un unixAddress(const std::string& path);

}  // namespace scgpu::driver::wire
