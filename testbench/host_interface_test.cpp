// Conformance of the host interface (tlm/host/registers.yaml): reset values, access semantics of
// every register, undefined offsets, rings and doorbells, semaphores across channels, interrupts,
// error registers after each kind of error, recovery by channel reset. Every case runs through each
// Transport of kTransports: in-process, and the socket protocol to a server in a thread of this
// process (testbench/socket_test_util.h).
#define SCGPU_REGS_TABLE
#include "tlm/host/scgpu_regs.h"

#include <gtest/gtest.h>

#include "testbench/test_util.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "driver/inprocess_transport.h"
#include "driver/transport.h"
#include "testbench/socket_test_util.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"
#include "memsys/page_table.h"
#include "tlm/host/buffer_host_memory.h"

namespace scgpu::driver {
namespace {

// Host memory the device reaches by DMA: one buffer at a fixed IOVA.
using TestHostMemory = host::BufferHostMemory;

using TransportFactory = std::function<std::unique_ptr<Transport>(const GpuConfig&)>;
const std::vector<std::pair<std::string, TransportFactory>> kTransports = {
    {"inprocess", [](const GpuConfig& c) { return makeInProcessTransport(c); }},
    {"socket", [](const GpuConfig& c) { return std::make_unique<testing_socket::ThreadServedTransport>(c); }},
};

// Layout of the test's host memory.
constexpr std::uint64_t kRingOff = 0;           // channel c's ring at kRingOff + c * 4096
constexpr std::uint64_t kBufOff = 0x40000;      // command buffers, bump-allocated
constexpr std::uint64_t kSemOff = 0xF0000;      // semaphores
constexpr std::uint64_t kVa = 0x7000'0000'0000ull;

std::uint32_t lo(std::uint64_t v) { return std::uint32_t(v); }
std::uint32_t hi(std::uint64_t v) { return std::uint32_t(v >> 32); }

class Device {
 public:
  explicit Device(const TransportFactory& make, const std::vector<std::string>& overrides = {})
      : config(GpuConfig::loadDefault(overrides)), t(make(config)) {
    t->attachHostMemory(&mem);
  }
  std::uint32_t rd(std::uint32_t off) { return t->mmioRead(off); }
  void wr(std::uint32_t off, std::uint32_t v) { t->mmioWrite(off, v); }

  // Channel c with a ring of `entries` in host memory, enabled.
  void openChannel(std::uint32_t c, std::uint32_t entries = 16, std::uint32_t priority = 0) {
    const std::uint64_t ring = TestHostMemory::kBase + kRingOff + c * 4096;
    wr(SCGPU_REG_CH_GPFIFO_BASE_LO(c), lo(ring));
    wr(SCGPU_REG_CH_GPFIFO_BASE_HI(c), hi(ring));
    wr(SCGPU_REG_CH_GPFIFO_ENTRIES(c), entries);
    wr(SCGPU_REG_CH_CONTROL(c), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK |
                                    (priority << SCGPU_CH_CONTROL_PRIORITY_SHIFT));
    entries_[c] = entries;
  }
  // Writes a command buffer and a ring entry for it without ringing the doorbell; returns the new put.
  std::uint32_t queue(std::uint32_t c, const std::vector<std::uint32_t>& words, std::uint32_t flags = 1) {
    const std::uint64_t buf = kBufOff + buf_used_;
    std::memcpy(mem.bytes.data() + buf, words.data(), words.size() * 4);
    buf_used_ += (words.size() * 4 + 15) / 16 * 16;
    scgpu_gpfifo_entry e{};
    e.buffer_addr = TestHostMemory::kBase + buf;
    e.length_words = std::uint32_t(words.size());
    e.flags = flags;
    std::memcpy(mem.bytes.data() + kRingOff + c * 4096 + put_[c] * 16, &e, sizeof e);
    put_[c] = (put_[c] + 1) % entries_[c];
    return put_[c];
  }
  // MMIO writes are posted: the device runs the work they start when the host next reads. A test
  // reads SCRATCH (no side effects) where a driver would read something it needs anyway.
  void flush() { (void)rd(SCGPU_REG_SCRATCH); }
  // Rings the doorbell for the new entry, and lets the device run it.
  void submit(std::uint32_t c, const std::vector<std::uint32_t>& words) {
    wr(SCGPU_REG_CH_GP_PUT(c), queue(c, words));
    flush();
  }
  static std::vector<std::uint32_t> cmd(std::uint32_t method, std::vector<std::uint32_t> args) {
    std::vector<std::uint32_t> w{SCGPU_CMD_HEADER(method, args.size())};
    w.insert(w.end(), args.begin(), args.end());
    return w;
  }
  static std::vector<std::uint32_t> join(std::vector<std::vector<std::uint32_t>> parts) {
    std::vector<std::uint32_t> w;
    for (auto& p : parts) w.insert(w.end(), p.begin(), p.end());
    return w;
  }
  static std::vector<std::uint32_t> release(std::uint64_t sem_off, std::uint32_t value, std::uint32_t flags = 2) {
    const std::uint64_t a = TestHostMemory::kBase + sem_off;
    return cmd(SCGPU_METHOD_SEM_RELEASE, {lo(a), hi(a), value, flags});
  }
  static std::vector<std::uint32_t> acquire(std::uint64_t sem_off, std::uint32_t value) {
    const std::uint64_t a = TestHostMemory::kBase + sem_off;
    return cmd(SCGPU_METHOD_SEM_ACQUIRE, {lo(a), hi(a), value, 2u});
  }
  static std::vector<std::uint32_t> map(std::uint64_t va, std::uint64_t bytes) {
    return cmd(SCGPU_METHOD_MAP, {lo(va), hi(va), lo(bytes), hi(bytes)});
  }
  static std::vector<std::uint32_t> copy(std::uint64_t src, std::uint64_t dst, std::uint32_t bytes, std::uint32_t flags) {
    return cmd(SCGPU_METHOD_COPY, {lo(src), hi(src), lo(dst), hi(dst), bytes, 1u, 0u, 0u, flags});
  }
  // Loads PTX text into `slot` via device memory at kVa + 0x100000 (mapped here).
  void loadModule(std::uint32_t c, std::uint32_t slot, const std::string& ptx, std::uint64_t globals = 0) {
    const std::uint64_t staging = kBufOff + 0x80000;
    std::memcpy(mem.bytes.data() + staging, ptx.data(), ptx.size());
    const std::uint64_t image = kVa + 0x100000;
    submit(c, join({map(image, 0x10000),
                    copy(TestHostMemory::kBase + staging, image, std::uint32_t(ptx.size()), 1u),
                    cmd(SCGPU_METHOD_LOAD_MODULE, {lo(image), hi(image), std::uint32_t(ptx.size()), slot, lo(globals), hi(globals)})}));
  }
  // Launches `kernel` of `slot` with the given parameter bytes: descriptor at kVa + 0x200000.
  void launch(std::uint32_t c, std::uint32_t slot, const std::string& kernel, std::uint32_t grid, std::uint32_t block,
              const std::vector<std::uint8_t>& params) {
    const std::uint64_t staging = kBufOff + 0x90000;
    const std::uint64_t desc_va = kVa + 0x200000 + launches_ * 0x1000;
    scgpu_launch_desc d{};
    d.module_slot = slot;
    d.entry_name_bytes = std::uint32_t(kernel.size());
    d.entry_name_addr = desc_va + 128;  // after the 80-byte descriptor
    d.grid_x = grid; d.grid_y = 1; d.grid_z = 1;
    d.block_x = block; d.block_y = 1; d.block_z = 1;
    d.param_bytes = std::uint32_t(params.size());
    d.param_addr = desc_va + 512;
    std::uint8_t* s = mem.bytes.data() + staging + launches_ * 0x1000;
    std::memcpy(s, &d, sizeof d);
    std::memcpy(s + 128, kernel.data(), kernel.size());
    std::memcpy(s + 512, params.data(), params.size());
    std::vector<std::vector<std::uint32_t>> parts;
    if (launches_ == 0) parts.push_back(map(kVa + 0x200000, 0x10000));
    parts.push_back(copy(TestHostMemory::kBase + staging + launches_ * 0x1000, desc_va, 0x1000, 1u));
    parts.push_back(cmd(SCGPU_METHOD_LAUNCH, {lo(desc_va), hi(desc_va)}));
    ++launches_;
    submit(c, join(parts));
  }

  GpuConfig config;
  TestHostMemory mem;
  std::unique_ptr<Transport> t;

 private:
  std::uint32_t entries_[64] = {};
  std::uint32_t put_[64] = {};
  std::uint64_t buf_used_ = 0;
  std::uint32_t launches_ = 0;
};

std::vector<std::uint8_t> u64Params(std::initializer_list<std::uint64_t> values) {
  std::vector<std::uint8_t> p(values.size() * 8);
  std::size_t at = 0;
  for (std::uint64_t v : values) {
    std::memcpy(p.data() + at, &v, 8);
    at += 8;
  }
  return p;
}

// ---- per-register cases, generated from the register table ------------------------------------

struct RegCase {
  const scgpu_reg_info* reg;
  std::uint32_t instance;  // channel for array registers
  std::string transport;
  std::uint32_t offset() const { return reg->offset + instance * reg->array_stride; }
};
// How gtest prints a case in the test list ctest reads (gtest_discover_tests): without it, a byte
// dump holding a pointer, so the ctest names changed from build to build.
void PrintTo(const RegCase& c, std::ostream* os) { *os << c.transport << ' ' << c.reg->name << ' ' << c.instance; }

std::vector<RegCase> regCases() {
  std::vector<RegCase> cases;
  for (const auto& [tname, make] : kTransports)
    for (const scgpu_reg_info& r : scgpu_registers) {
      cases.push_back({&r, 0, tname});
      if (r.array_stride) cases.push_back({&r, 7, tname});  // the last channel of the default 8
    }
  return cases;
}
const TransportFactory& factory(const std::string& name) {
  for (const auto& [n, f] : kTransports)
    if (n == name) return f;
  throw std::logic_error("no transport " + name);
}

std::vector<std::string> transportNames() {
  std::vector<std::string> names;
  for (const auto& t : kTransports) names.push_back(t.first);
  return names;
}

class RegisterConformance : public ::testing::TestWithParam<RegCase> {};

TEST_P(RegisterConformance, ResetValue) {
  const RegCase& c = GetParam();
  Device d(factory(c.transport));
  if (c.reg->reset_from_config) GTEST_SKIP() << c.reg->name << " resets from the config: see IdentityMatchesConfig";
  if (std::string(c.reg->name) == "TIMER_LO") GTEST_SKIP() << "the timer runs: see TimerRunsAndLatchesHighWord";
  EXPECT_EQ(d.rd(c.offset()), c.reg->reset) << c.reg->name;
}

TEST_P(RegisterConformance, AccessSemantics) {
  const RegCase& c = GetParam();
  Device d(factory(c.transport));
  const std::uint32_t off = c.offset();
  const std::string name = c.reg->name;
  // Registers whose write has side effects have cases of their own.
  if (name == "RESET" || name == "CH_RESET" || name == "ERR_CLEAR" || name == "CH_GP_PUT")
    GTEST_SKIP() << name << " has side effects: see its own test";
  if (name == "TIMER_LO") GTEST_SKIP() << "the timer runs: see TimerRunsAndLatchesHighWord";
  const std::uint32_t before = d.rd(off);
  switch (c.reg->access) {
    case SCGPU_ACCESS_RO:
      d.wr(off, ~before);
      EXPECT_EQ(d.rd(off), before) << name << " is read-only";
      break;
    case SCGPU_ACCESS_RW:
      for (std::uint32_t pattern : {0xFFFFFFFFu, 0xA5A5A5A5u, 0x5A5A5A5Au, 0u}) {
        d.wr(off, pattern);
        EXPECT_EQ(d.rd(off), pattern & c.reg->writable_mask) << name << " after writing 0x" << std::hex << pattern;
      }
      break;
    case SCGPU_ACCESS_W1C:
      d.wr(off, 0xFFFFFFFFu);  // clearing what is clear leaves it clear
      EXPECT_EQ(d.rd(off), 0u) << name;
      break;
    case SCGPU_ACCESS_WO:
      EXPECT_EQ(d.rd(off), 0u) << name << " is write-only and reads 0";
      break;
  }
  EXPECT_EQ(d.rd(SCGPU_REG_STATUS) & SCGPU_STATUS_BAD_ACCESS_MASK, 0u) << name << " is a defined register";
}

INSTANTIATE_TEST_SUITE_P(HostInterface, RegisterConformance, ::testing::ValuesIn(regCases()),
                         [](const ::testing::TestParamInfo<RegCase>& i) {
                           return i.param.transport + "_" + i.param.reg->name +
                                  (i.param.reg->array_stride ? "_ch" + std::to_string(i.param.instance) : "");
                         });

// ---- undefined offsets ----------------------------------------------------------------------------

struct UndefinedCase {
  std::uint32_t offset;
  const char* what;
};
void PrintTo(const UndefinedCase& c, std::ostream* os) { *os << c.what; }
class UndefinedOffsets : public ::testing::TestWithParam<std::tuple<UndefinedCase, std::string>> {};

TEST_P(UndefinedOffsets, ReadBadValueWriteDroppedFlagged) {
  Device d(factory(std::get<1>(GetParam())));
  const std::uint32_t off = std::get<0>(GetParam()).offset;
  EXPECT_EQ(d.rd(off), SCGPU_UNDEFINED_READ_VALUE);
  EXPECT_TRUE(d.rd(SCGPU_REG_STATUS) & SCGPU_STATUS_BAD_ACCESS_MASK);
  d.wr(SCGPU_REG_ERR_CLEAR, SCGPU_ERR_CLEAR_CLEAR_MASK);
  EXPECT_FALSE(d.rd(SCGPU_REG_STATUS) & SCGPU_STATUS_BAD_ACCESS_MASK);
  d.wr(off, 0x12345678u);
  EXPECT_TRUE(d.rd(SCGPU_REG_STATUS) & SCGPU_STATUS_BAD_ACCESS_MASK);
  EXPECT_EQ(d.rd(SCGPU_REG_SCRATCH), 0u) << "a dropped write touches no register";
}

INSTANTIATE_TEST_SUITE_P(
    HostInterface, UndefinedOffsets,
    ::testing::Combine(::testing::Values(UndefinedCase{0x02C, "after_identification"}, UndefinedCase{0x03C, "gap_before_control"},
                      UndefinedCase{0x050, "after_quiesce"}, UndefinedCase{0x094, "after_interrupts"},
                      UndefinedCase{0x0C8, "after_timer"}, UndefinedCase{0x144, "after_errors"},
                      UndefinedCase{0x800, "hole"}, UndefinedCase{0x1028, "channel_gap"},
                      UndefinedCase{0x103C, "channel_end"}, UndefinedCase{0x1000 + 8 * 0x40, "channel_past_count"},
                      UndefinedCase{0xFFFC, "bar_end"}, UndefinedCase{0x10000, "past_bar"},
                      UndefinedCase{0x002, "unaligned"}, UndefinedCase{0x1001, "unaligned_channel"}),
                       ::testing::ValuesIn(transportNames())),
    [](const ::testing::TestParamInfo<std::tuple<UndefinedCase, std::string>>& i) {
      return std::get<1>(i.param) + "_" + std::get<0>(i.param).what;
    });

// ---- identification, timer, reset ---------------------------------------------------------------

// The cases below run once per transport.
class OnEachTransport : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(HostInterface, OnEachTransport, ::testing::ValuesIn(transportNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST_P(OnEachTransport, IdentityMatchesConfig) {
  Device d(factory(GetParam()), {"host.channels=12"});
  const GpuParams p = GpuParams::fromConfig(d.config);
  EXPECT_EQ(d.rd(SCGPU_REG_ARCH), p.cc_major << 8 | p.cc_minor);
  EXPECT_EQ(d.rd(SCGPU_REG_NUM_SMS), p.sm.count);
  EXPECT_EQ(d.rd(SCGPU_REG_NUM_CHANNELS), 12u);
  EXPECT_EQ(std::uint64_t(d.rd(SCGPU_REG_MEM_SIZE_HI)) << 32 | d.rd(SCGPU_REG_MEM_SIZE_LO), p.global_size_bytes);
  EXPECT_EQ(d.rd(SCGPU_REG_CORE_CLOCK_MHZ), std::uint32_t(p.clocks.core_clock_mhz + 0.5));
  EXPECT_EQ(d.rd(SCGPU_REG_CAPS) & SCGPU_CAPS_COPY_2D_MASK, SCGPU_CAPS_COPY_2D_MASK);
  // Channel 11 exists, 12 does not.
  EXPECT_EQ(d.rd(SCGPU_REG_CH_STATUS(11)), SCGPU_REG_CH_STATUS_RESET);
  EXPECT_EQ(d.rd(SCGPU_REG_CH_STATUS(12)), SCGPU_UNDEFINED_READ_VALUE);
}

TEST_P(OnEachTransport, TimerRunsAndLatchesHighWord) {
  Device d(factory(GetParam()));
  const std::uint32_t a = d.rd(SCGPU_REG_TIMER_LO);
  const std::uint32_t b = d.rd(SCGPU_REG_TIMER_LO);
  EXPECT_GT(b, a) << "each access takes device time";
  EXPECT_EQ(d.rd(SCGPU_REG_TIMER_HI), 0u);
  const GpuParams p = GpuParams::fromConfig(d.config);
  EXPECT_EQ(b - a, p.host.mmio_latency_ns);
}

TEST_P(OnEachTransport, DeviceResetRestoresEveryRegister) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.wr(SCGPU_REG_SCRATCH, 77);
  d.wr(SCGPU_REG_INTR_ENABLE, 7);
  d.submit(1, Device::cmd(0x7777, {}));  // an error: ERR_* set
  ASSERT_NE(d.rd(SCGPU_REG_ERR_KIND), 0u);
  d.wr(SCGPU_REG_RESET, SCGPU_RESET_DEVICE_MASK);
  for (const scgpu_reg_info& r : scgpu_registers) {
    if (r.reset_from_config || std::string(r.name) == "TIMER_LO") continue;
    for (std::uint32_t c : {0u, 1u}) {
      if (!r.array_stride && c) continue;
      EXPECT_EQ(d.rd(r.offset + c * r.array_stride), r.reset) << r.name << " " << c;
    }
  }
}

// ---- rings, doorbells, ordering ---------------------------------------------------------------

TEST_P(OnEachTransport, DoorbellStartsFetchAndEntriesRunInOrder) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  const std::uint32_t put1 = d.queue(1, Device::release(kSemOff, 1));
  d.queue(1, Device::release(kSemOff, 2));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_GP_GET(1)), 0u);
  EXPECT_EQ(d.mem.u32(kSemOff), 0u) << "nothing runs before the doorbell";
  d.wr(SCGPU_REG_CH_GP_PUT(1), put1);
  EXPECT_EQ(d.mem.u32(kSemOff), 0u) << "the doorbell write is posted: the work runs at the next read";
  EXPECT_EQ(d.rd(SCGPU_REG_CH_GP_GET(1)), 1u);
  EXPECT_EQ(d.mem.u32(kSemOff), 1u) << "only the entries before GP_PUT run";
  d.wr(SCGPU_REG_CH_GP_PUT(1), 2);
  d.flush();
  EXPECT_EQ(d.mem.u32(kSemOff), 2u);
  EXPECT_TRUE(d.rd(SCGPU_REG_CH_STATUS(1)) & SCGPU_CH_STATUS_IDLE_MASK);
}

TEST_P(OnEachTransport, RingWrapsAround) {
  Device d(factory(GetParam()));
  d.openChannel(2, 4);
  for (std::uint32_t i = 1; i <= 11; ++i) {
    d.submit(2, Device::release(kSemOff + 16, i));
    EXPECT_EQ(d.mem.u32(kSemOff + 16), i);
    EXPECT_EQ(d.rd(SCGPU_REG_CH_GP_GET(2)), i % 4);
  }
}

TEST_P(OnEachTransport, DisabledChannelDoesNotFetch) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.wr(SCGPU_REG_CH_CONTROL(1), SCGPU_CH_CONTROL_RING_IN_HOST_MASK);
  d.submit(1, Device::release(kSemOff, 5));
  EXPECT_EQ(d.mem.u32(kSemOff), 0u);
  d.wr(SCGPU_REG_CH_CONTROL(1), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK);
  d.flush();
  EXPECT_EQ(d.mem.u32(kSemOff), 5u);
}

TEST_P(OnEachTransport, QuiesceStopsFetchUntilCleared) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.wr(SCGPU_REG_QUIESCE, SCGPU_QUIESCE_STOP_FETCH_MASK);
  d.submit(1, Device::release(kSemOff, 9));
  EXPECT_EQ(d.mem.u32(kSemOff), 0u);
  EXPECT_FALSE(d.rd(SCGPU_REG_STATUS) & SCGPU_STATUS_IDLE_MASK);
  d.wr(SCGPU_REG_QUIESCE, 0);
  d.flush();
  EXPECT_EQ(d.mem.u32(kSemOff), 9u);
  EXPECT_TRUE(d.rd(SCGPU_REG_STATUS) & SCGPU_STATUS_IDLE_MASK);
}

TEST_P(OnEachTransport, SemaphoreAcquireWaitsForAnotherChannel) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.openChannel(2);
  // Channel 1 waits for semaphore A >= 1, then releases B = 7; channel 2 releases A later.
  d.submit(1, Device::join({Device::acquire(kSemOff, 1), Device::release(kSemOff + 16, 7)}));
  EXPECT_TRUE(d.rd(SCGPU_REG_CH_STATUS(1)) & SCGPU_CH_STATUS_WAITING_MASK);
  EXPECT_EQ(d.mem.u32(kSemOff + 16), 0u);
  d.submit(2, Device::release(kSemOff, 1));
  EXPECT_EQ(d.mem.u32(kSemOff + 16), 7u);
  EXPECT_FALSE(d.rd(SCGPU_REG_CH_STATUS(1)) & SCGPU_CH_STATUS_WAITING_MASK);
}

TEST_P(OnEachTransport, SemaphoreAcquireSatisfiedByHostWrite) {
  Device d(factory(GetParam()));
  d.openChannel(3);
  d.submit(3, Device::join({Device::acquire(kSemOff, 3), Device::release(kSemOff + 16, 1)}));
  std::uint32_t v = 3;
  std::memcpy(d.mem.bytes.data() + kSemOff, &v, 4);
  d.rd(SCGPU_REG_STATUS);  // the device polls on every access
  EXPECT_EQ(d.mem.u32(kSemOff + 16), 1u);
}

TEST_P(OnEachTransport, SemaphoreReleaseWithTimestamp) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.submit(1, Device::release(kSemOff, 4, 3u));
  d.submit(1, Device::release(kSemOff + 32, 5, 3u));
  std::uint64_t t1, t2;
  std::memcpy(&t1, d.mem.bytes.data() + kSemOff + 8, 8);
  std::memcpy(&t2, d.mem.bytes.data() + kSemOff + 40, 8);
  EXPECT_EQ(d.mem.u32(kSemOff), 4u);
  EXPECT_EQ(d.mem.u32(kSemOff + 4), 0u);
  EXPECT_GT(t2, t1);
  EXPECT_LE(t2, std::uint64_t(d.rd(SCGPU_REG_TIMER_LO)));
}

TEST_P(OnEachTransport, PriorityOrdersCompetingChannels) {
  Device d(factory(GetParam()));
  d.openChannel(1, 16, 0);
  d.openChannel(2, 16, 9);
  d.wr(SCGPU_REG_QUIESCE, 1);
  d.submit(1, Device::release(kSemOff, 1));  // low priority writes 1
  d.submit(2, Device::release(kSemOff, 2));  // high priority writes 2
  d.wr(SCGPU_REG_QUIESCE, 0);
  d.flush();
  EXPECT_EQ(d.mem.u32(kSemOff), 1u) << "the high-priority channel ran first, the low one last";
}

// ---- interrupts ---------------------------------------------------------------------------------

TEST_P(OnEachTransport, InterruptStatusEnableMaskAndW1C) {
  Device d(factory(GetParam()));
  d.openChannel(5);
  d.submit(5, Device::cmd(SCGPU_METHOD_INTERRUPT, {0xCAFE}));
  EXPECT_EQ(d.rd(SCGPU_REG_INTR_STATUS), SCGPU_INTR_STATUS_CHANNEL_MASK);
  EXPECT_EQ(d.rd(SCGPU_REG_INTR_CHANNEL), 1u << 5);
  EXPECT_EQ(d.rd(SCGPU_REG_CH_INTR_PAYLOAD(5)), 0xCAFEu);
  EXPECT_FALSE(d.t->interruptPending()) << "not enabled";
  EXPECT_EQ(d.rd(SCGPU_REG_INTR_PENDING), 0u);
  d.wr(SCGPU_REG_INTR_ENABLE, SCGPU_INTR_STATUS_CHANNEL_MASK);
  EXPECT_TRUE(d.t->interruptPending());
  EXPECT_EQ(d.rd(SCGPU_REG_INTR_PENDING), SCGPU_INTR_STATUS_CHANNEL_MASK);
  d.wr(SCGPU_REG_INTR_MASK, SCGPU_INTR_MASK_ALL_MASK);
  EXPECT_FALSE(d.t->interruptPending()) << "masked";
  EXPECT_EQ(d.rd(SCGPU_REG_INTR_STATUS), SCGPU_INTR_STATUS_CHANNEL_MASK) << "masking keeps the status";
  d.wr(SCGPU_REG_INTR_MASK, 0);
  EXPECT_TRUE(d.t->interruptPending());
  d.wr(SCGPU_REG_INTR_STATUS, SCGPU_INTR_STATUS_ERROR_MASK);  // W1C of another bit
  EXPECT_TRUE(d.t->interruptPending());
  d.wr(SCGPU_REG_INTR_STATUS, SCGPU_INTR_STATUS_CHANNEL_MASK);
  EXPECT_FALSE(d.t->interruptPending());
  EXPECT_EQ(d.rd(SCGPU_REG_INTR_CHANNEL), 1u << 5) << "INTR_CHANNEL is cleared separately";
  d.wr(SCGPU_REG_INTR_CHANNEL, 1u << 5);
  EXPECT_EQ(d.rd(SCGPU_REG_INTR_CHANNEL), 0u);
}

// ---- malformed commands ------------------------------------------------------------------------

struct BadCommandCase {
  const char* name;
  std::function<void(Device&)> send;  // on channel 1
  std::uint32_t kind;
};
void PrintTo(const BadCommandCase& c, std::ostream* os) { *os << c.name; }

class MalformedCommands : public ::testing::TestWithParam<std::tuple<BadCommandCase, std::string>> {
 protected:
  const BadCommandCase& bad() const { return std::get<0>(GetParam()); }
};

TEST_P(MalformedCommands, StopOnlyTheirChannelAndReportWhere) {
  Device d(factory(std::get<1>(GetParam())));
  d.openChannel(1);
  d.openChannel(2);
  d.wr(SCGPU_REG_INTR_ENABLE, SCGPU_INTR_STATUS_ERROR_MASK);
  d.submit(1, Device::release(kSemOff, 1));  // entry 0 is fine
  bad().send(d);                         // entry 1 is not
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_KIND), bad().kind);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_CHANNEL), 1u);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_GP_ENTRY), 1u);
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), bad().kind);
  EXPECT_TRUE(d.rd(SCGPU_REG_CH_STATUS(1)) & SCGPU_CH_STATUS_ERROR_MASK);
  EXPECT_TRUE(d.rd(SCGPU_REG_STATUS) & SCGPU_STATUS_ERROR_MASK);
  EXPECT_TRUE(d.t->interruptPending());
  // The other channel goes on.
  d.submit(2, Device::release(kSemOff + 16, 3));
  EXPECT_EQ(d.mem.u32(kSemOff + 16), 3u);
  // A later error does not overwrite the first.
  d.submit(2, Device::cmd(0x7777, {}));
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_CHANNEL), 1u);
  // Recovery: reset the channel, clear the error, and it runs again.
  d.wr(SCGPU_REG_CH_RESET(1), SCGPU_CH_RESET_CHANNEL_MASK);
  d.wr(SCGPU_REG_ERR_CLEAR, SCGPU_ERR_CLEAR_CLEAR_MASK);
  EXPECT_EQ(d.rd(SCGPU_REG_CH_STATUS(1)), SCGPU_REG_CH_STATUS_RESET);
  EXPECT_EQ(d.rd(SCGPU_REG_CH_GP_GET(1)), 0u);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_KIND), 0u);
  EXPECT_FALSE(d.t->interruptPending() && (d.rd(SCGPU_REG_INTR_STATUS) & SCGPU_INTR_STATUS_ERROR_MASK) == 0);
}

std::vector<BadCommandCase> badCommands() {
  auto on1 = [](std::vector<std::uint32_t> w) { return [w](Device& d) { d.submit(1, w); }; };
  const std::uint64_t unmapped = kVa + 0x5000'0000;
  return {
      {"unknown_method", on1(Device::cmd(0x0123, {1, 2})), SCGPU_ERROR_KIND_BAD_METHOD},
      {"too_few_words", on1(Device::cmd(SCGPU_METHOD_SEM_RELEASE, {1, 2})), SCGPU_ERROR_KIND_BAD_ARGUMENT},
      {"too_many_words", on1(Device::cmd(SCGPU_METHOD_INTERRUPT, {1, 2})), SCGPU_ERROR_KIND_BAD_ARGUMENT},
      {"count_past_buffer", on1({SCGPU_CMD_HEADER(SCGPU_METHOD_NOP, 9), 0}), SCGPU_ERROR_KIND_BAD_ARGUMENT},
      {"copy_bad_flags", on1(Device::copy(0, 0, 4, 8)), SCGPU_ERROR_KIND_BAD_ARGUMENT},
      {"copy_unmapped", on1(Device::copy(unmapped, unmapped + 64, 4, 0)), SCGPU_ERROR_KIND_BAD_ADDRESS},
      {"memset_bad_element", on1(Device::cmd(SCGPU_METHOD_MEMSET, {0, 0, 4, 1, 0, 0, 3})), SCGPU_ERROR_KIND_BAD_ARGUMENT},
      {"map_unaligned", on1(Device::map(kVa + 8, 256)), SCGPU_ERROR_KIND_BAD_ARGUMENT},
      {"map_overlap", on1(Device::join({Device::map(kVa, 4096), Device::map(kVa + 256, 256)})), SCGPU_ERROR_KIND_BAD_ADDRESS},
      {"unmap_nothing", on1(Device::cmd(SCGPU_METHOD_UNMAP, {lo(kVa), hi(kVa)})), SCGPU_ERROR_KIND_BAD_ADDRESS},
      {"launch_unmapped_desc", on1(Device::cmd(SCGPU_METHOD_LAUNCH, {lo(unmapped), hi(unmapped)})), SCGPU_ERROR_KIND_BAD_ADDRESS},
      {"load_module_past_its_mapping",
       on1(Device::join({Device::map(kVa, 4096),
                         Device::cmd(SCGPU_METHOD_LOAD_MODULE, {lo(kVa), hi(kVa), 200u << 20, 0, 0, 0})})),
       SCGPU_ERROR_KIND_BAD_ADDRESS},
      {"load_bad_ptx",
       [](Device& d) { d.loadModule(1, 0, ".version 8.0\n.target sm_90\n.address_size 64\n.entry k( {\n"); },
       SCGPU_ERROR_KIND_MODULE_LOAD},
      {"sem_release_unaligned", on1(Device::cmd(SCGPU_METHOD_SEM_RELEASE, {lo(TestHostMemory::kBase + 2), 0, 1, 2})),
       SCGPU_ERROR_KIND_BAD_ARGUMENT},
      {"sem_release_host_refuses", on1(Device::cmd(SCGPU_METHOD_SEM_RELEASE, {0x40, 0, 1, 2})), SCGPU_ERROR_KIND_BAD_ADDRESS},
      {"entry_zero_length", [](Device& d) {
         std::vector<std::uint32_t> w{0};
         d.queue(1, w);
         // Patch the entry's length to 0.
         std::uint32_t zero = 0;
         std::memcpy(d.mem.bytes.data() + kRingOff + 4096 + 16 + 8, &zero, 4);
         d.wr(SCGPU_REG_CH_GP_PUT(1), 2);
       }, SCGPU_ERROR_KIND_BAD_GPFIFO_ENTRY},
      {"entry_reserved_flags", [](Device& d) { d.wr(SCGPU_REG_CH_GP_PUT(1), d.queue(1, {0}, 0x81)); },
       SCGPU_ERROR_KIND_BAD_GPFIFO_ENTRY},
      {"entry_buffer_unmapped", [](Device& d) { d.wr(SCGPU_REG_CH_GP_PUT(1), d.queue(1, {0}, 0)); },
       SCGPU_ERROR_KIND_BAD_ADDRESS},
      {"gp_put_outside_ring", [](Device& d) { d.wr(SCGPU_REG_CH_GP_PUT(1), 99); }, SCGPU_ERROR_KIND_BAD_RING},
  };
}

INSTANTIATE_TEST_SUITE_P(HostInterface, MalformedCommands,
                         ::testing::Combine(::testing::ValuesIn(badCommands()), ::testing::ValuesIn(transportNames())),
                         [](const ::testing::TestParamInfo<std::tuple<BadCommandCase, std::string>>& i) {
                           return std::get<1>(i.param) + "_" + std::get<0>(i.param).name;
                         });

TEST_P(OnEachTransport, RingSizeNotPowerOfTwoIsBadRing) {
  Device d(factory(GetParam()));
  d.openChannel(1, 3);
  d.submit(1, Device::release(kSemOff, 1));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), SCGPU_ERROR_KIND_BAD_RING);
  EXPECT_EQ(d.mem.u32(kSemOff), 0u);
}

// ---- copies, memsets and kernels -----------------------------------------------------------------

TEST_P(OnEachTransport, Copy2DHostToDeviceAndBack) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  // 4 rows of 8 bytes, source pitch 16, device pitch 32; back with pitch 12.
  for (int i = 0; i < 64; ++i) d.mem.bytes[0x80000 + i] = std::uint8_t(i + 1);
  const std::uint64_t src = TestHostMemory::kBase + 0x80000, back = TestHostMemory::kBase + 0x81000;
  d.submit(1, Device::join({Device::map(kVa, 4096),
                            Device::cmd(SCGPU_METHOD_COPY, {lo(src), hi(src), lo(kVa), hi(kVa), 8, 4, 16, 32, 1}),
                            Device::cmd(SCGPU_METHOD_COPY, {lo(kVa), hi(kVa), lo(back), hi(back), 8, 4, 32, 12, 2})}));
  ASSERT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), 0u);
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 8; ++col)
      EXPECT_EQ(d.mem.bytes[0x81000 + row * 12 + col], std::uint8_t(row * 16 + col + 1)) << row << "," << col;
  EXPECT_EQ(d.mem.bytes[0x81000 + 8], 0) << "bytes between rows are untouched";
}

TEST_P(OnEachTransport, Memset32AndDeviceToDeviceCopy) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  const std::uint64_t back = TestHostMemory::kBase + 0x81000;
  d.submit(1, Device::join({Device::map(kVa, 4096),
                            Device::cmd(SCGPU_METHOD_MEMSET, {lo(kVa), hi(kVa), 64, 1, 0, 0xDEADBEEF, 4}),
                            Device::copy(kVa, kVa + 1024, 64, 0), Device::copy(kVa + 1024, back, 64, 2)}));
  ASSERT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), 0u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(d.mem.u32(0x81000 + 4 * i), 0xDEADBEEFu);
}

// A copy or memset of no bytes completes at once, however many rows it names (2^32 - 1 empty rows
// once took minutes: found by the `wire` fuzz target, fuzz/regressions/wire/).
TEST_P(OnEachTransport, EmptyCopiesAndMemsetsAreDoneAtOnce) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  const auto start = std::chrono::steady_clock::now();
  d.submit(1, Device::join({Device::map(kVa, 4096),
                            Device::cmd(SCGPU_METHOD_COPY, {lo(kVa), hi(kVa), lo(kVa + 64), hi(kVa + 64), 0, 0xFFFFFFFFu, 0, 0, 0}),
                            Device::cmd(SCGPU_METHOD_MEMSET, {lo(kVa), hi(kVa), 0, 0xFFFFFFFFu, 0, 7, 1}),
                            Device::cmd(SCGPU_METHOD_COPY, {lo(kVa), hi(kVa), lo(kVa + 64), hi(kVa + 64), 16, 0, 16, 16, 0}),
                            Device::release(kSemOff, 1)}));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), 0u);
  EXPECT_EQ(d.mem.u32(kSemOff), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// Copies on two channels run side by side on the copy engines, in device time. Host to device and
// device to host at once share the link: each moves its bytes at pcie_duplex_bandwidth_fraction of
// the link's bandwidth (here 0.5: 5 bytes/ns against 10 alone), the one in flight stretched from the moment the other starts moving
// data. Hand-derived: 20000 bytes take 1000 + 20000 / 10 = 3000 ns alone; side by side both start
// their data at once and take 1000 + 20000 / 5 = 5000 ns: 2000 ns more, on each channel.
TEST_P(OnEachTransport, CopiesInBothDirectionsShareTheLink) {
  const std::vector<std::string> link = {"host.pcie_latency_ns=1000", "host.pcie_bandwidth_bytes_per_ns=10",
                                         "host.pcie_duplex_bandwidth_fraction=0.5"};
  constexpr std::uint32_t kBytes = 20000;
  const std::uint64_t host_src = TestHostMemory::kBase + 0x20000, host_dst = TestHostMemory::kBase + 0xA0000;
  // The time each channel's copy takes, between two timestamped releases around it: channel 1 copies
  // host to device, channel 2 (if `both`) device to host, released together by QUIESCE.
  auto copyTimes = [&](bool both) {
    Device d(factory(GetParam()), link);
    d.openChannel(1);
    d.openChannel(2);
    d.submit(1, Device::map(kVa, 0x10000));
    d.wr(SCGPU_REG_QUIESCE, SCGPU_QUIESCE_STOP_FETCH_MASK);
    d.submit(1, Device::join({Device::release(kSemOff, 1, 3u), Device::copy(host_src, kVa, kBytes, 1u),
                              Device::release(kSemOff + 16, 2, 3u)}));
    if (both)
      d.submit(2, Device::join({Device::release(kSemOff + 32, 1, 3u), Device::copy(kVa, host_dst, kBytes, 2u),
                                Device::release(kSemOff + 48, 2, 3u)}));
    d.wr(SCGPU_REG_QUIESCE, 0);
    d.flush();
    EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)) | d.rd(SCGPU_REG_CH_ERROR(2)), 0u);
    auto stamp = [&](std::uint64_t off) {
      std::uint64_t t;
      std::memcpy(&t, d.mem.bytes.data() + off + 8, 8);
      return t;
    };
    return std::make_pair(stamp(kSemOff + 16) - stamp(kSemOff), both ? stamp(kSemOff + 48) - stamp(kSemOff + 32) : 0);
  };
  const auto alone = copyTimes(false), both = copyTimes(true);
  EXPECT_EQ(both.first, alone.first + 2000) << "host to device";
  EXPECT_EQ(both.second, alone.first + 2000) << "device to host";
}

const char* kKernels = R"(.version 8.0
.target sm_90
.address_size 64
.visible .global .u32 counter = 5;
.visible .entry add_one(.param .u64 p, .param .u64 n) {
  .reg .u64 %a<6>; .reg .u32 %r<4>; .reg .pred %p;
  ld.param.u64 %a0, [p]; ld.param.u64 %a1, [n];
  mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mad.lo.u32 %r0, %r1, %r2, %r0;
  cvt.u64.u32 %a2, %r0; setp.ge.u64 %p, %a2, %a1; @%p bra done;
  shl.b64 %a3, %a2, 2; add.u64 %a3, %a0, %a3; ld.global.u32 %r3, [%a3]; add.u32 %r3, %r3, 1; st.global.u32 [%a3], %r3;
done:
  ret;
}
.visible .entry oob(.param .u64 p, .param .u64 n) {
  .reg .u64 %a<2>; .reg .u32 %r<2>; .reg .pred %p0;
  ld.param.u64 %a0, [p]; mov.u32 %r0, %tid.x; setp.eq.u32 %p0, %r0, 3;
  @%p0 st.global.u32 [%a0+64], %r0;
  ret;
}
)";

TEST_P(OnEachTransport, LaunchRunsKernelAndCompletesInOrder) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  const std::uint64_t globals = kVa + 0x300000, data = kVa + 0x400000;
  d.submit(1, Device::map(globals, 4096));
  d.loadModule(1, 0, kKernels, globals);
  ASSERT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), 0u);
  // 100 words 0..99 up, the kernel adds one, back down; then a release says it all completed.
  for (std::uint32_t i = 0; i < 100; ++i) std::memcpy(d.mem.bytes.data() + 0x80000 + 4 * i, &i, 4);
  d.submit(1, Device::join({Device::map(data, 4096), Device::copy(TestHostMemory::kBase + 0x80000, data, 400, 1)}));
  d.launch(1, 0, "add_one", 4, 32, u64Params({data, 100}));
  d.submit(1, Device::join({Device::copy(data, TestHostMemory::kBase + 0x82000, 400, 2), Device::release(kSemOff, 1)}));
  ASSERT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), 0u);
  EXPECT_EQ(d.mem.u32(kSemOff), 1u);
  for (std::uint32_t i = 0; i < 100; ++i) EXPECT_EQ(d.mem.u32(0x82000 + 4 * i), i + 1) << i;
  // The module variable was placed at the start of the globals region with its initial value.
  d.submit(1, Device::copy(globals, TestHostMemory::kBase + 0x83000, 4, 2));
  EXPECT_EQ(d.mem.u32(0x83000), 5u);
}

TEST_P(OnEachTransport, KernelFaultFillsErrorRegisters) {
  Device d(factory(GetParam()));
  d.openChannel(2);
  d.wr(SCGPU_REG_INTR_ENABLE, SCGPU_INTR_STATUS_FAULT_MASK);
  const std::uint64_t globals = kVa + 0x300000, data = kVa + 0x400000;
  d.submit(2, Device::join({Device::map(globals, 4096), Device::map(data, 64)}));
  d.loadModule(2, 0, kKernels, globals);
  d.launch(2, 0, "oob", 1, 32, u64Params({data, 0}));
  d.submit(2, Device::release(kSemOff, 1));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(2)), SCGPU_ERROR_KIND_ILLEGAL_ADDRESS);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_KIND), SCGPU_ERROR_KIND_ILLEGAL_ADDRESS);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_CHANNEL), 2u);
  EXPECT_EQ(std::uint64_t(d.rd(SCGPU_REG_ERR_ADDR_HI)) << 32 | d.rd(SCGPU_REG_ERR_ADDR_LO), data + 64);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_LANE), 3u);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_WARP), 0u);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_BLOCK_X), 0u);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_LAUNCH), 1u);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_PTX_LINE), 17u) << "the st.global line of kKernels";
  EXPECT_GT(d.rd(SCGPU_REG_ERR_PC), 0u);
  EXPECT_TRUE(d.rd(SCGPU_REG_INTR_STATUS) & SCGPU_INTR_STATUS_FAULT_MASK);
  EXPECT_TRUE(d.t->interruptPending());
  EXPECT_EQ(d.mem.u32(kSemOff), 0u) << "the work after the fault did not run";
}

// ---- address translation ----------------------------------------------------------------------

// Page tables for channel `c`: built in the test's host memory (at 0xC0000) with `maps` of 2 MiB
// pages (va, pa), copied by channel 1 (which does not translate) into physical device memory at
// kTables, and installed in CH_PAGE_TABLE(c). Returns the root.
constexpr std::uint64_t kTables = 0x6000'0000'0000ull, kTablesHostOff = 0xC0000, kTablesBytes = 0x10000;
constexpr std::uint64_t kPage = 2ull << 20;
std::uint64_t installTables(Device& d, std::uint32_t c, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& maps,
                            bool map_pool = true) {
  std::uint64_t used = 0;
  std::uint8_t* pool = d.mem.bytes.data() + kTablesHostOff;
  std::memset(pool, 0, kTablesBytes);
  memsys::PageTableBuilder b(
      [&](std::uint64_t bytes) {
        const std::uint64_t at = (used + 4095) / 4096 * 4096;
        used = at + bytes;
        return kTables + at;
      },
      [&](std::uint64_t pa, std::uint64_t* v) {
        std::memcpy(v, pool + (pa - kTables), 8);
        return true;
      },
      [&](std::uint64_t pa, std::uint64_t v) { std::memcpy(pool + (pa - kTables), &v, 8); });
  for (const auto& [va, pa] : maps) b.map(va, pa, kPage, kPage, true);
  if (map_pool) d.submit(1, Device::map(kTables, kTablesBytes));
  d.submit(1, Device::copy(TestHostMemory::kBase + kTablesHostOff, kTables, std::uint32_t(kTablesBytes), 1u));
  d.wr(SCGPU_REG_CH_PAGE_TABLE_LO(c), lo(b.root()));
  d.wr(SCGPU_REG_CH_PAGE_TABLE_HI(c), hi(b.root()));
  return b.root();
}

// A channel with a page table reaches physical memory through it: bytes copied to a virtual page
// land at the physical page it maps to, read back by a channel without translation.
TEST_P(OnEachTransport, PageTablesTranslateCommandAddresses) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.openChannel(2);
  EXPECT_TRUE(d.rd(SCGPU_REG_CAPS) & SCGPU_CAPS_MMU_MASK);
  const std::uint64_t va = 0x5000'0000'0000ull, pa = 0x4000'0040'0000ull;
  d.submit(1, Device::map(pa, kPage));
  const std::uint64_t root = installTables(d, 2, {{va, pa}});
  EXPECT_EQ(std::uint64_t(d.rd(SCGPU_REG_CH_PAGE_TABLE_HI(2))) << 32 | d.rd(SCGPU_REG_CH_PAGE_TABLE_LO(2)), root);
  std::memcpy(d.mem.bytes.data() + kBufOff + 0x70000, "translated!", 12);
  d.submit(2, Device::copy(TestHostMemory::kBase + kBufOff + 0x70000, va + 0x1234, 12, 1u));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(2)), 0u);
  d.submit(1, Device::copy(pa + 0x1234, TestHostMemory::kBase + kSemOff + 0x100, 12, 2u));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(d.mem.bytes.data() + kSemOff + 0x100)), "translated!");
}

// A command touching a virtual address no entry maps stops its channel with PAGE_FAULT: the
// address, the level and reason of the walk, the FAULT interrupt; other channels go on.
TEST_P(OnEachTransport, UnmappedAddressOfACommandIsAPageFault) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.openChannel(2);
  d.wr(SCGPU_REG_INTR_ENABLE, SCGPU_INTR_STATUS_FAULT_MASK);
  const std::uint64_t va = 0x5000'0000'0000ull, pa = 0x4000'0040'0000ull;
  d.submit(1, Device::map(pa, kPage));
  installTables(d, 2, {{va, pa}});
  const std::uint64_t hole = va + kPage + 0x40;  // the next 2 MiB page: its level-2 entry is empty
  d.submit(2, Device::join({Device::copy(TestHostMemory::kBase, hole, 8, 1u), Device::release(kSemOff, 9)}));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(2)), SCGPU_ERROR_KIND_PAGE_FAULT);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_KIND), SCGPU_ERROR_KIND_PAGE_FAULT);
  EXPECT_EQ(std::uint64_t(d.rd(SCGPU_REG_ERR_ADDR_HI)) << 32 | d.rd(SCGPU_REG_ERR_ADDR_LO), hole);
  const std::uint32_t mmu = d.rd(SCGPU_REG_ERR_MMU_FAULT);
  EXPECT_EQ(mmu & SCGPU_ERR_MMU_FAULT_LEVEL_MASK, 2u);
  EXPECT_EQ((mmu & SCGPU_ERR_MMU_FAULT_REASON_MASK) >> SCGPU_ERR_MMU_FAULT_REASON_SHIFT,
            std::uint32_t(memsys::FaultReason::NotPresent));
  EXPECT_TRUE(mmu & SCGPU_ERR_MMU_FAULT_WRITE_MASK);
  EXPECT_TRUE(d.rd(SCGPU_REG_INTR_STATUS) & SCGPU_INTR_STATUS_FAULT_MASK);
  EXPECT_EQ(d.mem.u32(kSemOff), 0u);
  d.submit(1, Device::release(kSemOff + 16, 3));
  EXPECT_EQ(d.mem.u32(kSemOff + 16), 3u) << "the channel without the fault goes on";
}

// A kernel's global store through an unmapped page faults as the kernel's fault, with the launch,
// lane and PC, and the walk's level and reason.
TEST_P(OnEachTransport, UnmappedAddressOfAKernelIsAPageFault) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.openChannel(2);
  // Identity pages for the module image, descriptors and globals (kVa's first 4 MiB); the data
  // page (kVa + 4 MiB) is physical memory but not in the tables.
  installTables(d, 2, {{kVa, kVa}, {kVa + kPage, kVa + kPage}});
  const std::uint64_t globals = kVa + 0x300000, data = kVa + 0x400000;
  d.submit(1, Device::join({Device::map(globals, 4096), Device::map(data, 64)}));
  d.loadModule(2, 0, kKernels, globals);
  d.launch(2, 0, "add_one", 1, 32, u64Params({data, 16}));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(2)), SCGPU_ERROR_KIND_PAGE_FAULT);
  EXPECT_EQ(std::uint64_t(d.rd(SCGPU_REG_ERR_ADDR_HI)) << 32 | d.rd(SCGPU_REG_ERR_ADDR_LO), data);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_LAUNCH), 1u);
  EXPECT_EQ(d.rd(SCGPU_REG_ERR_LANE), 0u);
  const std::uint32_t mmu = d.rd(SCGPU_REG_ERR_MMU_FAULT);
  EXPECT_EQ(mmu & SCGPU_ERR_MMU_FAULT_LEVEL_MASK, 2u);
  EXPECT_FALSE(mmu & SCGPU_ERR_MMU_FAULT_WRITE_MASK) << "add_one loads before it stores";
}

// Changed entries take effect after MMU_INVALIDATE, not before (the MMU keeps translations, as
// TLBs do).
TEST_P(OnEachTransport, MmuInvalidateMakesChangedEntriesTakeEffect) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  d.openChannel(2);
  const std::uint64_t va = 0x5000'0000'0000ull, pa_a = 0x4000'0000'0000ull, pa_b = 0x4000'0080'0000ull;
  d.submit(1, Device::join({Device::map(pa_a, kPage), Device::map(pa_b, kPage)}));
  installTables(d, 2, {{va, pa_a}});
  d.mem.bytes[kBufOff + 0x70000] = 0xA1;
  d.submit(2, Device::copy(TestHostMemory::kBase + kBufOff + 0x70000, va, 1, 1u));
  // Re-point the page at pa_b in the tables (channel 1 rewrites them), without and then with
  // MMU_INVALIDATE.
  installTables(d, 2, {{va, pa_b}}, /*map_pool=*/false);  // same layout: only the leaf differs
  d.mem.bytes[kBufOff + 0x70000] = 0xB2;
  d.submit(2, Device::copy(TestHostMemory::kBase + kBufOff + 0x70000, va + 1, 1, 1u));
  d.submit(2, Device::cmd(SCGPU_METHOD_MMU_INVALIDATE, {}));
  d.submit(2, Device::copy(TestHostMemory::kBase + kBufOff + 0x70000, va + 2, 1, 1u));
  d.submit(1, Device::join({Device::copy(pa_a, TestHostMemory::kBase + kSemOff + 0x200, 4, 2u),
                            Device::copy(pa_b, TestHostMemory::kBase + kSemOff + 0x300, 4, 2u)}));
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(2)), 0u);
  const std::uint8_t* a = d.mem.bytes.data() + kSemOff + 0x200;
  const std::uint8_t* b = d.mem.bytes.data() + kSemOff + 0x300;
  EXPECT_EQ(a[0], 0xA1);
  EXPECT_EQ(a[1], 0xB2) << "before MMU_INVALIDATE the old translation is used";
  EXPECT_EQ(b[2], 0xB2) << "after it the new one";
  EXPECT_EQ(a[2], 0);
}

TEST_P(OnEachTransport, RefusedLaunchIsAnErrorNotAFault) {
  Device d(factory(GetParam()));
  d.openChannel(1);
  const std::uint64_t globals = kVa + 0x300000;
  d.submit(1, Device::map(globals, 4096));
  d.loadModule(1, 0, kKernels, globals);
  d.launch(1, 0, "add_one", 1, 4096, u64Params({0, 0}));  // 4096 threads per block
  EXPECT_EQ(d.rd(SCGPU_REG_CH_ERROR(1)), SCGPU_ERROR_KIND_LAUNCH_REFUSED);
  EXPECT_TRUE(d.rd(SCGPU_REG_INTR_STATUS) & SCGPU_INTR_STATUS_ERROR_MASK);
  EXPECT_FALSE(d.rd(SCGPU_REG_INTR_STATUS) & SCGPU_INTR_STATUS_FAULT_MASK);
}

}  // namespace
}  // namespace scgpu::driver

namespace scgpu::driver {
namespace {

TEST(HostInterface, WaveformAndMmioLogShowDoorbellsMethodsAndInterrupts) {
  const std::string dir = ::testing::TempDir();
  TraceOptions t;
  t.host_trace_path = dir + "/host_iface.vcd";
  t.mmio_log_path = dir + "/host_iface.log";
  {
    auto transport = std::make_unique<InProcessTransport>(GpuConfig::loadDefault(), Mode::Functional, t);
    InProcessTransport* raw = transport.get();
    Device d([&](const GpuConfig&) { return std::move(transport); });
    d.openChannel(3);
    d.wr(SCGPU_REG_INTR_ENABLE, SCGPU_INTR_STATUS_CHANNEL_MASK);
    d.submit(3, Device::join({Device::map(kVa, 4096), Device::copy(TestHostMemory::kBase, kVa, 256, 1),
                              Device::cmd(SCGPU_METHOD_INTERRUPT, {1})}));
    d.wr(SCGPU_REG_INTR_STATUS, SCGPU_INTR_STATUS_CHANNEL_MASK);
    const auto files = raw->closeHostTrace();
    ASSERT_EQ(files.size(), 3u);
  }
  const std::string vcd = test::readFile(t.host_trace_path), log = test::readFile(t.mmio_log_path);
  for (const char* sig : {"gp_put", "gp_get", "method", "error", "offset", "value", "access", "status", "line"})
    EXPECT_NE(vcd.find(std::string(" ") + sig + " "), std::string::npos) << sig;
  EXPECT_NE(vcd.find("$scope module ch[3] $end"), std::string::npos);
  EXPECT_NE(vcd.find("sCOPY"), std::string::npos) << "the copy engine's method";
  EXPECT_NE(vcd.find("sINTERRUPT"), std::string::npos);
  // The log: every access, in device time, with its register's name.
  EXPECT_NE(log.find(" W 0x10cc CH_GP_PUT[3] 0x00000001\n"), std::string::npos) << log;
  EXPECT_NE(log.find(" W 0x0080 INTR_STATUS 0x00000001\n"), std::string::npos) << log;
  std::istringstream lines(log);
  std::string line;
  std::uint64_t last = 0, count = 0;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    const std::uint64_t time = std::stoull(line.substr(0, line.find(' ')));
    EXPECT_GE(time, last);
    last = time;
    ++count;
  }
  EXPECT_EQ(count, 8u) << "the channel set-up (4), INTR_ENABLE, the doorbell, the read that lets the work run and "
                          "the W1C";
}

}  // namespace
}  // namespace scgpu::driver
