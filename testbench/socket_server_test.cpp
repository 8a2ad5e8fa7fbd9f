// `scgpu serve` and its socket protocol (docs/host-protocol.md) as a separate process drives them:
// the real binary (SCGPU_BINARY) started with an argument vector, clients that are killed
// mid-run, malformed and oversized messages, signals, socket files that must not be replaced; and
// the socket transport under the C driver. The register-level conformance cases run over the socket
// in host_interface_test.cpp.
#define SCGPU_REGS_TABLE
#include "tlm/host/buffer_host_memory.h"
#include "tlm/host/scgpu_regs.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "testbench/test_util.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/spawn.h"
#include "driver/scgpu_driver.h"
#include "driver/socket_protocol.h"
#include "driver/transport.h"
#include "testbench/socket_test_util.h"
#include "tlm/gpu_config.h"

extern char** environ;

namespace scgpu::driver {
namespace {

using testing_socket::TempDir;
using wire::ErrorCode;
using wire::Type;

constexpr int kWaitSeconds = 30;

// ---- the server process ---------------------------------------------------------------------------

using scgpu::test::readFile;

// `scgpu serve --socket DIR/s ARGS...` (`--config tiny` unless ARGS name a config), output in
// DIR/log; ready when it says it listens.
class ServeProcess {
 public:
  explicit ServeProcess(const TempDir& dir, const std::vector<std::string>& extra = {}) : dir_(dir) {
    std::vector<std::string> args = {SCGPU_BINARY, "serve", "--socket", dir.socket()};
    if (std::find(extra.begin(), extra.end(), "--config") == extra.end()) args.insert(args.end(), {"--config", "tiny"});
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = dir.path() + "/log";
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " SCGPU_BINARY);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kWaitSeconds);
    while (readFile(log).find("listening on") == std::string::npos) {
      if (!alive() || std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("scgpu serve did not start listening: " + readFile(log));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~ServeProcess() {
    if (pid_ > 0 && status_ < 0) {
      ::kill(pid_, SIGKILL);
      int st;
      ::waitpid(pid_, &st, 0);
    }
  }
  bool alive() {
    if (status_ >= 0) return false;
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == 0) return true;
    status_ = r == pid_ ? st : 0;
    return false;
  }
  // Sends `sig` and waits: the exit status, or 128 + the signal that ended it.
  int stop(int sig) {
    if (alive()) {
      ::kill(pid_, sig);
      int st = 0;
      ::waitpid(pid_, &st, 0);
      status_ = st;
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }
  // Waits for the process to end by itself: the exit status, or 128 + the signal that ended it.
  int wait() {
    if (alive()) {
      int st = 0;
      ::waitpid(pid_, &st, 0);
      status_ = st;
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }
  std::string log() const { return readFile(dir_.path() + "/log"); }
  // True when the log says `text` within kWaitSeconds (the server logs a client's end after it).
  bool logSays(const std::string& text) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kWaitSeconds);
    while (log().find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }
  // Resident memory in KiB (VmRSS of /proc/PID/status).
  long rssKiB() const {
    std::istringstream in(readFile("/proc/" + std::to_string(pid_) + "/status"));
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
  }
  pid_t pid() const { return pid_; }

 private:
  const TempDir& dir_;
  pid_t pid_ = -1;
  int status_ = -1;
};

// ---- a raw protocol client ---------------------------------------------------------------------

// A link whose reads give up after kWaitSeconds, so that a server that misbehaves fails the test
// instead of hanging it.
class TimedLink : public wire::Link {
 public:
  explicit TimedLink(int fd) : fd_(fd) {}
  bool read(void* dst, std::size_t n) override {
    auto* p = static_cast<std::uint8_t*>(dst);
    while (n) {
      pollfd pfd{fd_, POLLIN, 0};
      if (::poll(&pfd, 1, kWaitSeconds * 1000) <= 0) return false;
      const ssize_t got = ::recv(fd_, p, n, 0);
      if (got <= 0) return false;
      p += got;
      n -= std::size_t(got);
    }
    return true;
  }
  bool write(const void* src, std::size_t n) override {
    return ::send(fd_, src, n, MSG_NOSIGNAL) == ssize_t(n);
  }

 private:
  int fd_;
};

class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.data(), path.size());
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      throw std::runtime_error("cannot connect to " + path);
    }
    link_ = TimedLink(fd_);
  }
  ~RawClient() { ::close(fd_); }
  bool send(Type type, std::uint32_t id, const std::vector<std::uint8_t>& payload) {
    return wire::send(link_, type, id, 0, payload);
  }
  bool sendHeader(std::uint16_t type, std::uint32_t length, std::uint32_t id = 1, std::uint16_t flags = 0,
                  std::uint32_t reserved = 0) {
    wire::Header h;
    h.type = type;
    h.length = length;
    h.id = id;
    h.flags = flags;
    h.reserved = reserved;
    std::uint8_t raw[wire::kHeaderBytes];
    wire::encodeHeader(h, raw);
    return link_.write(raw, sizeof raw);
  }
  bool sendBytes(const std::string& bytes) { return link_.write(bytes.data(), bytes.size()); }
  // The next message (false: EOF, timeout or a header no message of version 1 has).
  bool receive(wire::Message& m) { return wire::receive(link_, m, {}).status == wire::ReceiveStatus::Ok; }
  // The server's ERROR and then the end of the connection.
  void expectErrorAndClose(ErrorCode code) {
    wire::Message m;
    ASSERT_TRUE(receive(m)) << "no ERROR message";
    ASSERT_EQ(m.header.type, std::uint16_t(Type::Error)) << wire::typeName(m.header.type);
    std::uint32_t got = 0;
    std::string text;
    ASSERT_TRUE(wire::parseError(m.payload, &got, &text));
    EXPECT_EQ(got, std::uint32_t(code)) << wire::errorCodeName(got) << ": " << text;
    EXPECT_FALSE(text.empty());
    char byte;
    pollfd pfd{fd_, POLLIN, 0};
    ASSERT_EQ(::poll(&pfd, 1, kWaitSeconds * 1000), 1);
    // The end of the stream; or ECONNRESET when the server closed with bytes of ours unread (the
    // payload of a header it refused).
    const ssize_t end = ::recv(fd_, &byte, 1, 0);
    EXPECT_TRUE(end == 0 || (end < 0 && errno == ECONNRESET)) << "the server closes the connection after ERROR";
  }
  wire::Identity hello() {
    wire::Identity id;
    EXPECT_TRUE(send(Type::Hello, 1, wire::helloPayload()));
    wire::Message m;
    EXPECT_TRUE(receive(m));
    EXPECT_EQ(m.header.type, std::uint16_t(Type::HelloReply));
    EXPECT_EQ(m.header.id, 1u);
    std::uint32_t magic = 0;
    std::uint16_t major = 0, minor = 0;
    EXPECT_TRUE(wire::parseHelloReply(m.payload, &magic, &major, &minor, &id));
    EXPECT_EQ(magic, wire::kMagic);
    EXPECT_EQ(major, wire::kVersionMajor);
    return id;
  }
  // An MMIO access that makes no DMA; returns the value read (0 for a write).
  std::uint32_t mmio(bool write, std::uint32_t offset, std::uint32_t value = 0) {
    wire::Writer w;
    w.u32(offset).u32(4);
    if (write) w.u64(value);
    const std::uint32_t id = next_id_++;
    EXPECT_TRUE(send(write ? Type::MmioWrite : Type::MmioRead, id, w.data()));
    wire::Message m;
    while (receive(m)) {
      if (m.header.type == std::uint16_t(Type::Interrupt)) continue;
      EXPECT_EQ(m.header.type, std::uint16_t(write ? Type::MmioWriteAck : Type::MmioReadReply));
      EXPECT_EQ(m.header.id, id);
      return write ? 0 : std::uint32_t(wire::Reader(m.payload).u64());
    }
    ADD_FAILURE() << "no reply to the MMIO access";
    return 0;
  }
  // Sets up channel 1 with a ring in host memory at 0x10000000, rings its doorbell (a posted write)
  // and reads SCRATCH: before it answers the read the server runs the channel, and asks for the
  // ring entry with DMA_READ (returned in `request`).
  void doorbellUntilDmaRead(wire::Message& request) {
    mmio(true, SCGPU_REG_CH_GPFIFO_BASE_LO(1), 0x10000000u);
    mmio(true, SCGPU_REG_CH_GPFIFO_ENTRIES(1), 16);
    mmio(true, SCGPU_REG_CH_CONTROL(1), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK);
    mmio(true, SCGPU_REG_CH_GP_PUT(1), 1);
    wire::Writer w;
    w.u32(SCGPU_REG_SCRATCH).u32(4);
    ASSERT_TRUE(send(Type::MmioRead, next_id_++, w.data()));
    ASSERT_TRUE(receive(request));
    ASSERT_EQ(request.header.type, std::uint16_t(Type::DmaRead));
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  TimedLink link_{-1};
  std::uint32_t next_id_ = 100;
};

std::unique_ptr<RawClient> rawClient(const std::string& path) { return std::make_unique<RawClient>(path); }

// ---- host memory for transports ----------------------------------------------------------------

using HostMemory = host::BufferHostMemory;

std::uint32_t lo(std::uint64_t v) { return std::uint32_t(v); }
std::uint32_t hi(std::uint64_t v) { return std::uint32_t(v >> 32); }
std::vector<std::uint32_t> cmd(std::uint32_t method, std::vector<std::uint32_t> args) {
  std::vector<std::uint32_t> w{SCGPU_CMD_HEADER(method, args.size())};
  w.insert(w.end(), args.begin(), args.end());
  return w;
}

// Channel 1 of `t`, ring of 16 entries at host offset 0, command buffers from host offset 0x1000.
class Ring {
 public:
  Ring(Transport& t, HostMemory& mem) : t_(t), mem_(mem) {
    t.mmioWrite(SCGPU_REG_CH_GPFIFO_BASE_LO(1), lo(HostMemory::kBase));
    t.mmioWrite(SCGPU_REG_CH_GPFIFO_BASE_HI(1), hi(HostMemory::kBase));
    t.mmioWrite(SCGPU_REG_CH_GPFIFO_ENTRIES(1), 16);
    t.mmioWrite(SCGPU_REG_CH_CONTROL(1), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK);
  }
  void submit(const std::vector<std::uint32_t>& words) {
    const std::uint64_t buf = 0x1000 + used_;
    std::memcpy(mem_.bytes.data() + buf, words.data(), words.size() * 4);
    used_ += (words.size() * 4 + 15) / 16 * 16;
    scgpu_gpfifo_entry e{};
    e.buffer_addr = HostMemory::kBase + buf;
    e.length_words = std::uint32_t(words.size());
    e.flags = 1;
    std::memcpy(mem_.bytes.data() + put_ * 16, &e, sizeof e);
    put_ = (put_ + 1) % 16;
    t_.mmioWrite(SCGPU_REG_CH_GP_PUT(1), put_);
    (void)t_.mmioRead(SCGPU_REG_SCRATCH);  // the write is posted: the read lets the work run
  }

 private:
  Transport& t_;
  HostMemory& mem_;
  std::uint32_t put_ = 0;
  std::uint64_t used_ = 0;
};

// The device behind `path` is as after reset: every register at its reset value, no mapping (the
// child's VA maps again) and fresh memory there (reads zero).
void expectFreshDevice(const std::string& path, std::uint64_t va_in_use) {
  auto t = connectSocketTransport(path);
  HostMemory mem;
  t->attachHostMemory(&mem);
  for (const scgpu_reg_info& r : scgpu_registers) {
    if (r.reset_from_config || std::string(r.name) == "TIMER_LO") continue;
    for (std::uint32_t c = 0; c < (r.array_stride ? 8u : 1u); ++c)
      EXPECT_EQ(t->mmioRead(r.offset + c * r.array_stride), r.reset) << r.name << " instance " << c;
  }
  EXPECT_LT(t->mmioRead(SCGPU_REG_TIMER_LO), 1'000'000u) << "the timer restarted at reset";
  EXPECT_FALSE(t->interruptPending());
  Ring ring(*t, mem);
  ring.submit([&] {
    std::vector<std::uint32_t> w = cmd(SCGPU_METHOD_MAP, {lo(va_in_use), hi(va_in_use), 4096, 0});
    const std::uint64_t back = HostMemory::kBase + 0x80000;
    for (auto part : {cmd(SCGPU_METHOD_COPY, {lo(va_in_use), hi(va_in_use), lo(back), hi(back), 4, 1, 0, 0, 2}),
                      cmd(SCGPU_METHOD_SEM_RELEASE, {lo(HostMemory::kBase + 0x90000), 0, 1, 2})})
      w.insert(w.end(), part.begin(), part.end());
    return w;
  }());
  EXPECT_EQ(t->mmioRead(SCGPU_REG_CH_ERROR(1)), 0u) << "MAP of the previous client's VA succeeds: its mapping is gone";
  EXPECT_EQ(mem.u32(0x90000), 1u);
  std::memset(mem.bytes.data() + 0x80000, 0xAB, 4);
  EXPECT_EQ(mem.u32(0x80000), 0xABABABABu);
  ring.submit(cmd(SCGPU_METHOD_COPY, {lo(va_in_use), hi(va_in_use), lo(HostMemory::kBase + 0x80000),
                                      hi(HostMemory::kBase + 0x80000), 4, 1, 0, 0, 2}));
  EXPECT_EQ(mem.u32(0x80000), 0u) << "the previous client's data is gone";
}

const char* kKernels = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry add_one(.param .u64 p, .param .u64 n) {
  .reg .u64 %a<6>; .reg .u32 %r<4>; .reg .pred %p;
  ld.param.u64 %a0, [p]; ld.param.u64 %a1, [n];
  mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mad.lo.u32 %r0, %r1, %r2, %r0;
  cvt.u64.u32 %a2, %r0; setp.ge.u64 %p, %a2, %a1; @%p bra done;
  shl.b64 %a3, %a2, 2; add.u64 %a3, %a0, %a3; ld.global.u32 %r3, [%a3]; add.u32 %r3, %r3, 1; st.global.u32 [%a3], %r3;
done:
  ret;
}
.visible .entry spin(.param .u64 p, .param .u64 n) {
  .reg .u64 %a<3>; .reg .pred %p;
  ld.param.u64 %a0, [n]; mov.u64 %a1, 0;
again:
  add.u64 %a1, %a1, 1; setp.lt.u64 %p, %a1, %a0; @%p bra again;
  ret;
}
)";

// The first allocation of the C driver (its allocator starts there).
constexpr std::uint64_t kDriverVaBase = 0x0000'7000'0000'0000ull;

// ---- tests ------------------------------------------------------------------------------------------

TEST(SocketServe, HelloReplyCarriesTheIdentityOfTheRegisters) {
  TempDir dir;
  ServeProcess server(dir, {"--set", "host.channels=12"});
  auto c = rawClient(dir.socket());
  const wire::Identity id = c->hello();
  EXPECT_EQ(id.boot_id, SCGPU_REG_BOOT_ID_RESET);
  EXPECT_EQ(id.boot_id, c->mmio(false, SCGPU_REG_BOOT_ID));
  EXPECT_EQ(id.regmap_version, c->mmio(false, SCGPU_REG_REGMAP_VERSION));
  EXPECT_EQ(id.arch, c->mmio(false, SCGPU_REG_ARCH));
  EXPECT_EQ(id.num_sms, c->mmio(false, SCGPU_REG_NUM_SMS));
  EXPECT_EQ(id.num_channels, 12u);
  EXPECT_EQ(id.caps, c->mmio(false, SCGPU_REG_CAPS));
  EXPECT_EQ(id.memory_bytes, std::uint64_t(c->mmio(false, SCGPU_REG_MEM_SIZE_HI)) << 32 | c->mmio(false, SCGPU_REG_MEM_SIZE_LO));
  EXPECT_EQ(id.core_clock_mhz, c->mmio(false, SCGPU_REG_CORE_CLOCK_MHZ));
  EXPECT_EQ(id.max_dma_bytes, wire::kMaxDmaBytes);
  // Replies carry the device time: it advances by an MMIO latency per access.
  wire::Writer w;
  w.u32(SCGPU_REG_SCRATCH).u32(4);
  ASSERT_TRUE(c->send(Type::MmioRead, 7, w.data()));
  wire::Message a, b;
  ASSERT_TRUE(c->receive(a));
  ASSERT_TRUE(c->send(Type::MmioRead, 8, w.data()));
  ASSERT_TRUE(c->receive(b));
  EXPECT_EQ(a.header.id, 7u);
  EXPECT_GT(b.header.time_ns, a.header.time_ns);
}

// The watchdog of the server in KilledClient: at about 50 million warp instructions a second, the
// spinning kernel runs for a second or two.
constexpr std::uint64_t kKillWatchdog = 80'000'000;

// How a client goes away in the middle of its work.
struct KillCase {
  const char* name;
  // Runs in the forked child; writes one byte to `ready` when the parent may kill it; returns the
  // child's exit status if it gets that far.
  std::function<int(const std::string& socket, int ready)> child;
  bool parent_kills;  // SIGKILL after `ready`; otherwise the child _exit()s by itself
};

int driverClientWithState(const std::string& socket, scgpu_device** out, scgpu_stream** stream, scgpu_module* module) {
  if (scgpu_open_socket(socket.c_str(), out) != SCGPU_SUCCESS) return 10;
  scgpu_device* d = *out;
  scgpu_devptr p = 0;
  if (scgpu_mem_alloc(d, 4096, &p) != SCGPU_SUCCESS || p != kDriverVaBase) return 11;
  const std::uint32_t pattern[4] = {0xDEADBEEF, 1, 2, 3};
  if (scgpu_memcpy_htod(d, p, pattern, sizeof pattern) != SCGPU_SUCCESS) return 12;
  if (scgpu_module_load(d, kKernels, std::strlen(kKernels), module) != SCGPU_SUCCESS) return 13;
  if (scgpu_stream_create(d, 3, stream) != SCGPU_SUCCESS) return 14;
  scgpu_mmio_write(d, SCGPU_REG_SCRATCH, 0x1234);
  scgpu_mmio_write(d, SCGPU_REG_QUIESCE, 0);
  return 0;
}

std::vector<KillCase> killCases() {
  return {
      {"driver_exits_without_closing",
       [](const std::string& socket, int) {
         scgpu_device* d = nullptr;
         scgpu_stream* s = nullptr;
         scgpu_module m = 0;
         if (int rc = driverClientWithState(socket, &d, &s, &m)) return rc;
         // Work queued and not synchronised; then the process ends without GOODBYE.
         const std::uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
         const std::uint64_t params[2] = {kDriverVaBase, 4};
         if (scgpu_launch(s, m, "add_one", grid, block, 0, params, sizeof params) != SCGPU_SUCCESS) return 15;
         return 0;
       },
       false},
      {"sigkill_while_the_server_waits_for_a_dma_reply",
       [](const std::string& socket, int ready) {
         auto c = rawClient(socket);
         c->hello();
         c->mmio(true, SCGPU_REG_SCRATCH, 0x1234);
         c->mmio(true, SCGPU_REG_INTR_ENABLE, 7);
         wire::Message dma;
         c->doorbellUntilDmaRead(dma);
         if (::testing::Test::HasFailure()) return 20;
         // The server is inside the doorbell write, waiting for this DMA reply.
         [[maybe_unused]] auto w = ::write(ready, "x", 1);
         for (;;) ::pause();
       },
       true},
      {"sigkill_while_a_kernel_runs",
       [](const std::string& socket, int ready) {
         scgpu_device* d = nullptr;
         scgpu_stream* s = nullptr;
         scgpu_module m = 0;
         if (int rc = driverClientWithState(socket, &d, &s, &m)) return rc;
         [[maybe_unused]] auto w = ::write(ready, "x", 1);
         // One warp spinning until the server's watchdog stops it (kKillWatchdog warp
         // instructions, a second or two of the functional engine): the doorbell's MMIO write runs
         // it, so the client waits inside that write when it is killed.
         const std::uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
         const std::uint64_t params[2] = {0, ~0ull};
         scgpu_launch(s, m, "spin", grid, block, 0, params, sizeof params);
         scgpu_stream_synchronize(s);
         return 30;  // killed before this
       },
       true},
  };
}

class KilledClient : public ::testing::TestWithParam<KillCase> {};

TEST_P(KilledClient, LeavesTheServerAliveAndTheNextClientGetsAResetDevice) {
  TempDir dir;
  ServeProcess server(dir, {"--set", "limits.watchdog_warp_instructions_per_block=" + std::to_string(kKillWatchdog)});
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  std::cout.flush();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipefd[0]);
    ::_exit(GetParam().child(dir.socket(), pipefd[1]));
  }
  ::close(pipefd[1]);
  int status = 0;
  if (GetParam().parent_kills) {
    pollfd pfd{pipefd[0], POLLIN, 0};
    char byte = 0;
    const bool ready = ::poll(&pfd, 1, kWaitSeconds * 1000) == 1 && ::read(pipefd[0], &byte, 1) == 1;
    if (ready) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(ready) << "the child failed before it was ready: exit status "
                       << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  } else {
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "the child crashed";
    ASSERT_EQ(WEXITSTATUS(status), 0) << "the child failed before it left";
  }
  ::close(pipefd[0]);
  EXPECT_TRUE(server.alive()) << server.log();
  expectFreshDevice(dir.socket(), kDriverVaBase);
  EXPECT_TRUE(server.alive());
  EXPECT_TRUE(server.logSays("client 1 disconnected")) << server.log();
  EXPECT_TRUE(server.logSays("client 2 said goodbye")) << server.log();
  EXPECT_EQ(server.stop(SIGTERM), 0) << server.log();
}

INSTANTIATE_TEST_SUITE_P(SocketServe, KilledClient, ::testing::ValuesIn(killCases()),
                         [](const ::testing::TestParamInfo<KillCase>& i) { return std::string(i.param.name); });

// A client that breaks the protocol gets an ERROR with this code and loses its connection; the
// server goes on with the next client.
struct BadClientCase {
  const char* name;
  std::function<void(RawClient&)> send;
  ErrorCode code;
};

std::vector<BadClientCase> badClients() {
  auto helloThen = [](std::function<void(RawClient&)> f) {
    return [f](RawClient& c) {
      c.hello();
      f(c);
    };
  };
  auto afterDmaRequest = [](std::function<void(RawClient&, const wire::Message&)> f) {
    return [f](RawClient& c) {
      c.hello();
      wire::Message dma;
      c.doorbellUntilDmaRead(dma);
      f(c, dma);
    };
  };
  return {
      {"http_request", [](RawClient& c) { c.sendBytes("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"); }, ErrorCode::Malformed},
      {"unknown_type", [](RawClient& c) { c.sendHeader(99, 0); }, ErrorCode::Malformed},
      {"nonzero_flags", [](RawClient& c) { c.sendHeader(std::uint16_t(Type::Hello), 8, 1, 0x8000); }, ErrorCode::Malformed},
      {"nonzero_reserved", [](RawClient& c) { c.sendHeader(std::uint16_t(Type::Hello), 8, 1, 0, 5); }, ErrorCode::Malformed},
      {"short_hello", [](RawClient& c) { c.sendHeader(std::uint16_t(Type::Hello), 4); }, ErrorCode::Malformed},
      {"mmio_before_hello",
       [](RawClient& c) {
         wire::Writer w;
         w.u32(0).u32(4);
         c.send(Type::MmioRead, 1, w.data());
       },
       ErrorCode::Unexpected},
      {"wrong_magic", [](RawClient& c) { c.send(Type::Hello, 1, wire::helloPayload(0x12345678)); }, ErrorCode::Version},
      {"newer_major_version", [](RawClient& c) { c.send(Type::Hello, 1, wire::helloPayload(wire::kMagic, 2, 0)); },
       ErrorCode::Version},
      {"hello_twice", helloThen([](RawClient& c) { c.send(Type::Hello, 2, wire::helloPayload()); }), ErrorCode::Unexpected},
      {"mmio_width_8", helloThen([](RawClient& c) {
         wire::Writer w;
         w.u32(0).u32(8);
         c.send(Type::MmioRead, 2, w.data());
       }),
       ErrorCode::Malformed},
      {"write_value_wider_than_the_access", helloThen([](RawClient& c) {
         wire::Writer w;
         w.u32(SCGPU_REG_SCRATCH).u32(4).u64(0x100000000ull);
         c.send(Type::MmioWrite, 2, w.data());
       }),
       ErrorCode::Malformed},
      {"dma_reply_nobody_asked_for", helloThen([](RawClient& c) {
         wire::Writer w;
         w.u32(wire::kDmaRefused);
         c.send(Type::DmaReadReply, 2, w.data());
       }),
       ErrorCode::Unexpected},
      {"server_message_from_the_client", helloThen([](RawClient& c) {
         wire::Writer w;
         w.u32(0).u32(1);
         c.send(Type::Interrupt, 2, w.data());
       }),
       ErrorCode::Unexpected},
      {"dma_reply_to_another_request", afterDmaRequest([](RawClient& c, const wire::Message& dma) {
         wire::Writer w;
         w.u32(wire::kDmaRefused);
         c.send(Type::DmaReadReply, dma.header.id + 1, w.data());
       }),
       ErrorCode::Unexpected},
      {"dma_reply_of_the_wrong_length", afterDmaRequest([](RawClient& c, const wire::Message& dma) {
         wire::Writer w;
         w.u32(wire::kDmaOk).u32(0);  // 4 bytes of data for a 16-byte read
         c.send(Type::DmaReadReply, dma.header.id, w.data());
       }),
       ErrorCode::Unexpected},
      {"dma_reply_with_a_bad_status", afterDmaRequest([](RawClient& c, const wire::Message& dma) {
         wire::Writer w;
         w.u32(7);
         c.send(Type::DmaReadReply, dma.header.id, w.data());
       }),
       ErrorCode::Malformed},
      {"mmio_instead_of_the_dma_reply", afterDmaRequest([](RawClient& c, const wire::Message&) {
         wire::Writer w;
         w.u32(0).u32(4);
         c.send(Type::MmioRead, 3, w.data());
       }),
       ErrorCode::Unexpected},
  };
}

class BadClient : public ::testing::TestWithParam<BadClientCase> {};

TEST_P(BadClient, GetsAnErrorAndOnlyItsConnectionCloses) {
  TempDir dir;
  ServeProcess server(dir);
  {
    auto bad = rawClient(dir.socket());
    GetParam().send(*bad);
    ASSERT_FALSE(::testing::Test::HasFailure());
    bad->expectErrorAndClose(GetParam().code);
  }
  EXPECT_TRUE(server.alive());
  // The next client is served, on a reset device.
  auto good = rawClient(dir.socket());
  good->hello();
  EXPECT_EQ(good->mmio(false, SCGPU_REG_SCRATCH), 0u);
  EXPECT_EQ(good->mmio(false, SCGPU_REG_CH_CONTROL(1)), 0u);
  good->mmio(true, SCGPU_REG_SCRATCH, 5);
  EXPECT_EQ(good->mmio(false, SCGPU_REG_SCRATCH), 5u);
  EXPECT_TRUE(server.logSays("client 1 broke the protocol")) << server.log();
}

INSTANTIATE_TEST_SUITE_P(SocketServe, BadClient, ::testing::ValuesIn(badClients()),
                         [](const ::testing::TestParamInfo<BadClientCase>& i) { return std::string(i.param.name); });

// Length fields above the limits are refused from the header alone: the server answers at once,
// without waiting for (or allocating) the payload the header announces.
struct OversizedCase {
  const char* name;
  std::function<void(RawClient&)> send;
};

std::vector<OversizedCase> oversized() {
  auto afterDmaRequest = [](std::uint32_t length) {
    return [length](RawClient& c) {
      c.hello();
      wire::Message dma;
      c.doorbellUntilDmaRead(dma);
      c.sendHeader(std::uint16_t(Type::DmaReadReply), length, dma.header.id);
    };
  };
  return {
      {"hello_of_4GiB", [](RawClient& c) { c.sendHeader(std::uint16_t(Type::Hello), 0xFFFFFFFFu); }},
      {"mmio_write_of_4GiB", [](RawClient& c) {
         c.hello();
         c.sendHeader(std::uint16_t(Type::MmioWrite), 0xFFFFFFFFu, 2);
       }},
      {"error_text_over_1KiB", [](RawClient& c) { c.sendHeader(std::uint16_t(Type::Error), 4 + wire::kMaxErrorTextBytes + 1); }},
      {"dma_reply_of_1GiB", afterDmaRequest(1u << 30)},
      {"dma_reply_one_byte_over_the_limit", afterDmaRequest(4 + wire::kMaxDmaBytes + 1)},
  };
}

class OversizedLength : public ::testing::TestWithParam<OversizedCase> {};

TEST_P(OversizedLength, IsRefusedFromTheHeader) {
  TempDir dir;
  ServeProcess server(dir);
  const long rss_before = server.rssKiB();
  {
    auto c = rawClient(dir.socket());
    GetParam().send(*c);
    ASSERT_FALSE(::testing::Test::HasFailure());
    c->expectErrorAndClose(ErrorCode::TooLarge);
  }
  EXPECT_TRUE(server.alive());
  EXPECT_LT(server.rssKiB() - rss_before, 16 * 1024) << "KiB of resident memory grew";
  auto good = rawClient(dir.socket());
  good->hello();
  EXPECT_EQ(good->mmio(false, SCGPU_REG_BOOT_ID), SCGPU_REG_BOOT_ID_RESET);
}

INSTANTIATE_TEST_SUITE_P(SocketServe, OversizedLength, ::testing::ValuesIn(oversized()),
                         [](const ::testing::TestParamInfo<OversizedCase>& i) { return std::string(i.param.name); });

TEST(SocketServe, SignalsStopItCleanlyAndRemoveTheSocket) {
  for (int sig : {SIGTERM, SIGINT}) {
    TempDir dir;
    ServeProcess server(dir);
    // A connected client is told, and the server does not wait for it.
    auto c = rawClient(dir.socket());
    c->hello();
    ASSERT_EQ(::kill(server.pid(), sig), 0);
    c->expectErrorAndClose(ErrorCode::Shutdown);
    EXPECT_EQ(server.wait(), 0) << "one signal stops it, with exit status 0\n" << server.log();
    struct stat st {};
    EXPECT_NE(::lstat(dir.socket().c_str(), &st), 0) << "the socket file is removed";
    EXPECT_NE(server.log().find("stopped after 1 client"), std::string::npos) << server.log();
  }
}

TEST(SocketServe, RefusesToReplaceAFileThatIsNotASocket) {
  TempDir dir;
  const std::string file = dir.path() + "/file";
  std::ofstream(file) << "precious";
  EXPECT_EQ(cli::spawnAndWait({SCGPU_BINARY, "serve", "--socket", file}, true), 3);
  EXPECT_EQ(readFile(file), "precious");
  ::unlink(file.c_str());
  // A directory neither.
  EXPECT_EQ(cli::spawnAndWait({SCGPU_BINARY, "serve", "--socket", dir.path()}, true), 3);
}

TEST(SocketServe, RefusesASocketAnotherServerListensOnAndReplacesAStaleOne) {
  TempDir dir;
  {
    ServeProcess first(dir);
    EXPECT_EQ(cli::spawnAndWait({SCGPU_BINARY, "serve", "--socket", dir.socket()}, true), 3);
    EXPECT_TRUE(first.alive());
    // Killed: its socket file stays behind, and nobody listens on it.
    EXPECT_EQ(first.stop(SIGKILL), 128 + SIGKILL);
  }
  struct stat st {};
  ASSERT_EQ(::lstat(dir.socket().c_str(), &st), 0);
  ASSERT_TRUE(S_ISSOCK(st.st_mode));
  ServeProcess second(dir);
  auto c = rawClient(dir.socket());
  c->hello();
}

// A connection that never completes HELLO cannot hold the device: it is cut off after the
// handshake timeout, and the client queued behind it is served.
TEST(SocketServe, SilentClientsAreCutOffAfterTheHelloTimeout) {
  TempDir dir;
  ServeProcess server(dir, {"--hello-timeout", "0.5"});
  auto silent = rawClient(dir.socket());
  auto half = rawClient(dir.socket());  // queued; sends half a HELLO header
  ASSERT_TRUE(half->sendBytes(std::string("\x01\x00\x00\x00", 4)));
  auto queued = rawClient(dir.socket());
  const auto start = std::chrono::steady_clock::now();
  silent->expectErrorAndClose(ErrorCode::Timeout);
  half->expectErrorAndClose(ErrorCode::Timeout);
  queued->hello();
  EXPECT_EQ(queued->mmio(false, SCGPU_REG_BOOT_ID), SCGPU_REG_BOOT_ID_RESET);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(kWaitSeconds));
  // After HELLO, idling is allowed: longer than the timeout, and the client is still served.
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_EQ(queued->mmio(false, SCGPU_REG_SCRATCH), 0u);
  EXPECT_TRUE(server.alive());
  if (::testing::Test::HasFailure()) std::cout << server.log();
}

TEST(SocketServe, ClientsAreServedOneAtATime) {
  TempDir dir;
  ServeProcess server(dir);
  auto first = rawClient(dir.socket());
  first->hello();
  // The second connects (the listen queue) but hears nothing until the first leaves.
  auto second = rawClient(dir.socket());
  ASSERT_TRUE(second->send(Type::Hello, 1, wire::helloPayload()));
  pollfd pfd{second->fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&pfd, 1, 200), 0) << "the second client was answered while the first is connected";
  first->mmio(true, SCGPU_REG_SCRATCH, 9);
  ASSERT_TRUE(first->send(Type::Goodbye, 0, {0, 0, 0, 0}));
  wire::Message m;
  ASSERT_TRUE(second->receive(m));
  EXPECT_EQ(m.header.type, std::uint16_t(Type::HelloReply));
  EXPECT_EQ(second->mmio(false, SCGPU_REG_SCRATCH), 0u) << "reset between clients";
}

TEST(SocketServe, UnreachableServerIsNoDevice) {
  TempDir dir;
  scgpu_device* d = nullptr;
  EXPECT_EQ(scgpu_open_socket(dir.socket().c_str(), &d), SCGPU_ERROR_NO_DEVICE);
  EXPECT_EQ(d, nullptr);
  EXPECT_NE(std::string(scgpu_last_error(nullptr)).find("cannot connect"), std::string::npos) << scgpu_last_error(nullptr);
  EXPECT_THROW(connectSocketTransport(dir.socket()), TransportError);
}

TEST(SocketServe, DeadLinkReadsAllOnes) {
  TempDir dir;
  auto server = std::make_unique<ServeProcess>(dir);
  auto t = connectSocketTransport(dir.socket());
  EXPECT_EQ(t->mmioRead(SCGPU_REG_BOOT_ID), SCGPU_REG_BOOT_ID_RESET);
  EXPECT_EQ(server->stop(SIGKILL), 128 + SIGKILL);
  EXPECT_EQ(t->mmioRead(SCGPU_REG_BOOT_ID), 0xFFFFFFFFu);
  t->mmioWrite(SCGPU_REG_SCRATCH, 1);  // dropped, no crash, no SIGPIPE
  EXPECT_EQ(t->mmioRead(SCGPU_REG_SCRATCH), 0xFFFFFFFFu);
  EXPECT_FALSE(t->interruptPending());
}

// The C driver over the socket: a copy, a module, a launch, an interrupt; a second open after close.
TEST(SocketServe, DriverRunsAKernelOverTheSocket) {
  TempDir dir;
  ServeProcess server(dir, {"--config", "hopper"});
  for (int round = 0; round < 2; ++round) {
    scgpu_device* d = nullptr;
    ASSERT_EQ(scgpu_open_socket(dir.socket().c_str(), &d), SCGPU_SUCCESS) << scgpu_last_error(nullptr);
    EXPECT_EQ(scgpu_mmio_read(d, SCGPU_REG_ARCH), 9u << 8) << "the hopper config";
    std::vector<std::uint32_t> data(1000);
    for (std::uint32_t i = 0; i < data.size(); ++i) data[i] = i * 3;
    scgpu_devptr p = 0;
    ASSERT_EQ(scgpu_mem_alloc(d, data.size() * 4, &p), SCGPU_SUCCESS);
    ASSERT_EQ(scgpu_memcpy_htod(d, p, data.data(), data.size() * 4), SCGPU_SUCCESS) << scgpu_last_error(d);
    scgpu_module m = 0;
    ASSERT_EQ(scgpu_module_load(d, kKernels, std::strlen(kKernels), &m), SCGPU_SUCCESS) << scgpu_last_error(d);
    scgpu_stream* s = nullptr;
    ASSERT_EQ(scgpu_stream_create(d, 0, &s), SCGPU_SUCCESS);
    const std::uint32_t grid[3] = {8, 1, 1}, block[3] = {128, 1, 1};
    const std::uint64_t params[2] = {p, data.size()};
    ASSERT_EQ(scgpu_launch(s, m, "add_one", grid, block, 0, params, sizeof params), SCGPU_SUCCESS) << scgpu_last_error(d);
    ASSERT_EQ(scgpu_stream_synchronize(s), SCGPU_SUCCESS) << scgpu_last_error(d);
    std::vector<std::uint32_t> back(data.size());
    ASSERT_EQ(scgpu_memcpy_dtoh(d, back.data(), p, back.size() * 4), SCGPU_SUCCESS) << scgpu_last_error(d);
    for (std::uint32_t i = 0; i < data.size(); ++i) ASSERT_EQ(back[i], i * 3 + 1) << i;
    // The interrupt line follows the device: the driver enables channel interrupts at open.
    scgpu_mmio_write(d, SCGPU_REG_INTR_STATUS, 0xFFFFFFFFu);
    EXPECT_FALSE(scgpu_interrupt_pending(d));
    scgpu_stream_destroy(s);
    scgpu_close(d);
  }
  EXPECT_TRUE(server.logSays("client 2 said goodbye")) << server.log();
}

// `--mode timing`: the chip's cycle-level model behind the socket. The kernel gives the same
// results, CAPS.TIMING reads 1, and the kernel's simulated time shows in the device's timer: the
// events around it span more than the same launch's on a functional server.
std::uint64_t launchSpanOverTheSocket(const std::string& mode) {
  TempDir dir;
  ServeProcess server(dir, {"--config", "tiny", "--mode", mode});
  scgpu_device* d = nullptr;
  EXPECT_EQ(scgpu_open_socket(dir.socket().c_str(), &d), SCGPU_SUCCESS) << scgpu_last_error(nullptr);
  if (!d) return 0;
  EXPECT_EQ(scgpu_mmio_read(d, SCGPU_REG_CAPS) & SCGPU_CAPS_TIMING_MASK,
            mode == "timing" ? SCGPU_CAPS_TIMING_MASK : 0u);
  std::vector<std::uint32_t> data(4096, 5);
  scgpu_devptr p = 0;
  EXPECT_EQ(scgpu_mem_alloc(d, data.size() * 4, &p), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_memcpy_htod(d, p, data.data(), data.size() * 4), SCGPU_SUCCESS);
  scgpu_module m = 0;
  EXPECT_EQ(scgpu_module_load(d, kKernels, std::strlen(kKernels), &m), SCGPU_SUCCESS) << scgpu_last_error(d);
  scgpu_stream* s = nullptr;
  EXPECT_EQ(scgpu_stream_create(d, 0, &s), SCGPU_SUCCESS);
  scgpu_event *a = nullptr, *b = nullptr;
  scgpu_event_create(d, &a);
  scgpu_event_create(d, &b);
  const std::uint32_t grid[3] = {32, 1, 1}, block[3] = {128, 1, 1};
  const std::uint64_t params[2] = {p, data.size()};
  scgpu_event_record(a, s);
  EXPECT_EQ(scgpu_launch(s, m, "add_one", grid, block, 0, params, sizeof params), SCGPU_SUCCESS);
  scgpu_event_record(b, s);
  EXPECT_EQ(scgpu_stream_synchronize(s), SCGPU_SUCCESS) << scgpu_last_error(d);
  std::uint64_t ns = 0;
  EXPECT_EQ(scgpu_event_elapsed_ns(a, b, &ns), SCGPU_SUCCESS);
  std::vector<std::uint32_t> back(data.size());
  EXPECT_EQ(scgpu_memcpy_dtoh(d, back.data(), p, back.size() * 4), SCGPU_SUCCESS);
  for (std::uint32_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], 6u) << i;
  scgpu_close(d);
  return ns;
}

TEST(SocketServe, TimingModeRunsKernelsOnTheCycleLevelModel) {
  const std::uint64_t functional = launchSpanOverTheSocket("functional");
  const std::uint64_t timing = launchSpanOverTheSocket("timing");
  EXPECT_GT(timing, functional) << "the kernel's simulated time counts in timing mode";
}

// Transfers larger than one DMA message are split; a command buffer larger than it too.
TEST(SocketTransportLimits, LargeTransfersAreSplitIntoDmaMessages) {
  testing_socket::ThreadServedTransport t(GpuConfig::loadDefault());
  HostMemory mem(12 << 20);
  t.attachHostMemory(&mem);
  Ring ring(t, mem);
  const std::uint64_t va = 0x7000'0000'0000ull, n = 3 * wire::kMaxDmaBytes + 5;
  for (std::uint64_t i = 0; i < n; ++i) mem.bytes[0x200000 + i] = std::uint8_t(i * 7 + 1);
  const std::uint64_t src = HostMemory::kBase + 0x200000, dst = HostMemory::kBase + 0x600000;
  std::vector<std::uint32_t> w = cmd(SCGPU_METHOD_MAP, {lo(va), hi(va), lo(n + 256), 0});
  for (auto part : {cmd(SCGPU_METHOD_COPY, {lo(src), hi(src), lo(va), hi(va), std::uint32_t(n), 1, 0, 0, 1}),
                    cmd(SCGPU_METHOD_COPY, {lo(va), hi(va), lo(dst), hi(dst), std::uint32_t(n), 1, 0, 0, 2})})
    w.insert(w.end(), part.begin(), part.end());
  // Padding with NOPs makes the command buffer itself larger than one DMA message.
  w.insert(w.end(), wire::kMaxDmaBytes / 4 + 100, SCGPU_CMD_HEADER(SCGPU_METHOD_NOP, 0));
  const std::uint64_t reads_before = mem.reads;
  ring.submit(w);
  ASSERT_EQ(t.mmioRead(SCGPU_REG_CH_ERROR(1)), 0u);
  EXPECT_EQ(std::memcmp(mem.bytes.data() + 0x200000, mem.bytes.data() + 0x600000, n), 0);
  EXPECT_GE(mem.reads - reads_before, 1u + 2u + 4u) << "the ring entry, the buffer in 2, the copy in 4";
}

// MMIO round trips, in-process and over the socket (a server thread of this process), for the
// record: printed, and kept as test properties.
TEST(SocketTransportLimits, MmioRoundTripTime) {
  const GpuConfig config = GpuConfig::loadDefault();
  auto time = [](Transport& t, int n) {
    const auto start = std::chrono::steady_clock::now();
    std::uint32_t sum = 0;
    for (int i = 0; i < n; ++i) sum += t.mmioRead(SCGPU_REG_SCRATCH);
    EXPECT_EQ(sum, 0u);
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / n;
  };
  auto inprocess = makeInProcessTransport(config);
  testing_socket::ThreadServedTransport socket(config);
  const double a = time(*inprocess, 100000), b = time(socket, 20000);
  std::cout << "MMIO read round trip: in-process " << a << " ns, socket " << b << " ns\n";
  ::testing::Test::RecordProperty("mmio_inprocess_ns", std::to_string(a));
  ::testing::Test::RecordProperty("mmio_socket_ns", std::to_string(b));
  EXPECT_LT(b, 1e6) << "a round trip over a local socket takes well under a millisecond";
}

}  // namespace
}  // namespace scgpu::driver

namespace scgpu::driver {
namespace {

// Copies through the C driver, in-process and over the socket to `scgpu serve`, for the record:
// printed, and kept as test properties.
TEST(SocketServe, CopyThroughputForTheRecord) {
  TempDir dir;
  ServeProcess server(dir);
  constexpr std::size_t kBytes = 16 << 20;
  std::vector<std::uint8_t> data(kBytes), back(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) data[i] = std::uint8_t(i * 13 + 5);
  for (const bool socket : {false, true}) {
    scgpu_device* d = nullptr;
    ASSERT_EQ(socket ? scgpu_open_socket(dir.socket().c_str(), &d) : scgpu_open(nullptr, &d), SCGPU_SUCCESS)
        << scgpu_last_error(nullptr);
    scgpu_devptr p = 0;
    ASSERT_EQ(scgpu_mem_alloc(d, kBytes, &p), SCGPU_SUCCESS);
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(scgpu_memcpy_htod(d, p, data.data(), kBytes), SCGPU_SUCCESS) << scgpu_last_error(d);
    const auto t1 = std::chrono::steady_clock::now();
    ASSERT_EQ(scgpu_memcpy_dtoh(d, back.data(), p, kBytes), SCGPU_SUCCESS) << scgpu_last_error(d);
    const auto t2 = std::chrono::steady_clock::now();
    EXPECT_EQ(data, back);
    const double up = kBytes / std::chrono::duration<double>(t1 - t0).count() / 1e6;
    const double down = kBytes / std::chrono::duration<double>(t2 - t1).count() / 1e6;
    std::cout << (socket ? "socket" : "in-process") << ": 16 MiB host to device " << up << " MB/s, device to host "
              << down << " MB/s\n";
    ::testing::Test::RecordProperty(socket ? "socket_htod_mb_s" : "inprocess_htod_mb_s", std::to_string(up));
    ::testing::Test::RecordProperty(socket ? "socket_dtoh_mb_s" : "inprocess_dtoh_mb_s", std::to_string(down));
    scgpu_close(d);
  }
}

}  // namespace
}  // namespace scgpu::driver

namespace scgpu::driver {
namespace {

// The server never raises SIGPIPE: here it runs in a thread of this process, whose SIGPIPE is
// left at its default (terminate), and clients leave before the server writes its answer.
TEST(SocketServerInProcess, ClientsThatLeaveBeforeTheirReplyRaiseNoSigpipe) {
  struct sigaction current {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &current), 0);
  ASSERT_EQ(current.sa_handler, SIG_DFL) << "the test needs SIGPIPE's default action";
  TempDir dir;
  SocketServer server(GpuConfig::loadDefault(), dir.socket());
  std::thread thread([&] { server.run(); });
  for (int i = 0; i < 20; ++i) {
    auto c = rawClient(dir.socket());
    wire::Writer w;
    w.u32(SCGPU_REG_SCRATCH).u32(4);
    std::vector<std::uint8_t> bytes(wire::kHeaderBytes);
    wire::Header h;
    h.type = std::uint16_t(Type::Hello);
    h.length = 8;
    h.id = 1;
    wire::encodeHeader(h, bytes.data());
    const auto hello = wire::helloPayload();
    bytes.insert(bytes.end(), hello.begin(), hello.end());
    // HELLO and a request, then gone before the replies: the server writes to a closed socket.
    ASSERT_TRUE(c->sendBytes(std::string(bytes.begin(), bytes.end())));
    ASSERT_TRUE(c->send(Type::MmioRead, 2, w.data()));
  }
  auto good = connectSocketTransport(dir.socket());
  EXPECT_EQ(good->mmioRead(SCGPU_REG_BOOT_ID), SCGPU_REG_BOOT_ID_RESET);
  good.reset();
  server.stop();
  thread.join();
  EXPECT_GE(server.clientsServed(), 21u);
}

}  // namespace
}  // namespace scgpu::driver
