// The user-mode driver (driver/scgpu_driver.h) against the device through the host interface:
// memory, copies (1D and 2D), memsets, modules and their variables, launches checked against a CPU
// reference, streams ordered by semaphores, events with device timestamps, faults and refusals
// reported from the error registers, and recovery.
#include "driver/scgpu_driver.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"
#include "tlm/host/scgpu_regs.h"

namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .global .align 4 .u32 bias = 7;
.visible .entry add_bias(.param .u64 p, .param .u32 n) {
  .reg .u64 %a<4>; .reg .u32 %r<7>; .reg .pred %p;
  ld.param.u64 %a0, [p]; ld.param.u32 %r5, [n];
  mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mad.lo.u32 %r3, %r1, %r2, %r0;
  setp.ge.u32 %p, %r3, %r5; @%p bra done;
  mul.wide.u32 %a1, %r3, 4; add.u64 %a2, %a0, %a1;
  ld.global.u32 %r4, [%a2]; ld.global.u32 %r6, [bias]; add.u32 %r4, %r4, %r6; st.global.u32 [%a2], %r4;
done:
  ret;
}
.visible .entry misaligned(.param .u64 p) {
  .reg .u64 %a<2>; .reg .u32 %r<2>;
  ld.param.u64 %a0, [p]; add.u64 %a1, %a0, 2; ld.global.u32 %r0, [%a1];
  ret;
}
)";

struct Params {
  std::uint64_t ptr;
  std::uint32_t n;
  std::uint32_t pad;
};

class DriverApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(scgpu_open(nullptr, &dev), SCGPU_SUCCESS) << scgpu_last_error(nullptr);
    ASSERT_EQ(scgpu_module_load(dev, kPtx, std::strlen(kPtx), &mod), SCGPU_SUCCESS) << scgpu_last_error(dev);
    ASSERT_EQ(scgpu_stream_create(dev, 0, &s1), SCGPU_SUCCESS);
    ASSERT_EQ(scgpu_stream_create(dev, 0, &s2), SCGPU_SUCCESS);
  }
  void TearDown() override { scgpu_close(dev); }
  scgpu_status launchAddBias(scgpu_stream* s, scgpu_devptr p, std::uint32_t n) {
    const Params prm{p, n, 0};
    const std::uint32_t grid[3] = {(n + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
    return scgpu_launch(s, mod, "add_bias", grid, block, 0, &prm, 12);
  }
  scgpu_device* dev = nullptr;
  scgpu_module mod = 0;
  scgpu_stream *s1 = nullptr, *s2 = nullptr;
};

TEST_F(DriverApi, KernelResultMatchesCpuAndModuleVariableIsVisible) {
  std::vector<std::uint32_t> host(1000), out(1000);
  for (std::uint32_t i = 0; i < host.size(); ++i) host[i] = i * 3;
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, host.size() * 4, &p), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memcpy_htod_async(s1, p, host.data(), host.size() * 4), SCGPU_SUCCESS);
  ASSERT_EQ(launchAddBias(s1, p, 1000), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memcpy_dtoh_async(s1, out.data(), p, out.size() * 4), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS) << scgpu_last_error(dev);
  for (std::uint32_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], i * 3 + 7) << i;
  // Change the module variable through its address, run again.
  scgpu_devptr bias;
  size_t bytes = 0;
  ASSERT_EQ(scgpu_module_symbol(dev, mod, "bias", &bias, &bytes), SCGPU_SUCCESS);
  EXPECT_EQ(bytes, 4u);
  const std::uint32_t ten = 10;
  ASSERT_EQ(scgpu_memcpy_htod(dev, bias, &ten, 4), SCGPU_SUCCESS);
  ASSERT_EQ(launchAddBias(s1, p, 1000), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memcpy_dtoh(dev, out.data(), p, 4000), SCGPU_SUCCESS);
  EXPECT_EQ(out[999], 999u * 3 + 17);
  EXPECT_EQ(scgpu_module_symbol(dev, mod, "nope", &bias, nullptr), SCGPU_ERROR_INVALID_VALUE);
}

TEST_F(DriverApi, ManyLaunchesWrapTheRingAndRecycleTheArena) {
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 64 * 4, &p), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memset(dev, p, 0, 256), SCGPU_SUCCESS);
  for (int i = 0; i < 600; ++i) ASSERT_EQ(launchAddBias(s1, p, 64), SCGPU_SUCCESS) << i;
  ASSERT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS) << scgpu_last_error(dev);
  std::vector<std::uint32_t> out(64);
  ASSERT_EQ(scgpu_memcpy_dtoh(dev, out.data(), p, 256), SCGPU_SUCCESS);
  for (std::uint32_t v : out) EXPECT_EQ(v, 600u * 7);
}

TEST_F(DriverApi, FullRingWaitsForTheFrontEndAndNeverWrapsOntoItself) {
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 4, &p), SCGPU_SUCCESS);
  // With fetch stopped the front end consumes nothing: 255 entries fit in the 256-entry ring (one
  // slot stays free, or GP_PUT would equal GP_GET and the ring would read as empty), the 256th
  // cannot be queued.
  scgpu_mmio_write(dev, SCGPU_REG_QUIESCE, SCGPU_QUIESCE_STOP_FETCH_MASK);
  for (int i = 0; i < 255; ++i) ASSERT_EQ(scgpu_memset32_async(s1, p, std::uint32_t(i), 1), SCGPU_SUCCESS) << i;
  EXPECT_EQ(scgpu_memset32_async(s1, p, 999, 1), SCGPU_ERROR_DEADLOCK);
  // Fetch resumes: the 255 run in order, the last value wins. (The copy back runs on another
  // channel, beside the stream: the stream is synchronised first.)
  scgpu_mmio_write(dev, SCGPU_REG_QUIESCE, 0);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS) << scgpu_last_error(dev);
  std::uint32_t v = 0;
  ASSERT_EQ(scgpu_memcpy_dtoh(dev, &v, p, 4), SCGPU_SUCCESS);
  EXPECT_EQ(v, 254u);
}

TEST_F(DriverApi, Copy2DAndMemset32) {
  // 5 rows of 12 bytes into a device buffer with a pitch of 64, and back with a pitch of 20.
  std::vector<std::uint8_t> src(5 * 16), back(5 * 20, 0xEE);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint8_t(i);
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 5 * 64, &p), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memset32_async(s1, p, 0x01020304u, 5 * 16), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memcpy_2d_htod_async(s1, p, 64, src.data(), 16, 12, 5), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memcpy_2d_dtoh_async(s1, back.data(), 20, p + 8, 64, 8, 5), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS) << scgpu_last_error(dev);
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 4; ++col) EXPECT_EQ(back[row * 20 + col], src[row * 16 + 8 + col]) << row;
    // Bytes 12..15 of the device row kept the memset's pattern (little-endian 04 03 02 01).
    EXPECT_EQ(back[row * 20 + 4], 0x04);
    EXPECT_EQ(back[row * 20 + 7], 0x01);
    EXPECT_EQ(back[row * 20 + 8], 0xEE) << "beyond the width: untouched";
  }
}

TEST_F(DriverApi, StreamWaitOrdersWorkAcrossChannels) {
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 4, &p), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memset(dev, p, 0, 4), SCGPU_SUCCESS);
  // s2 must not add its bias before s1 has set the value to 100: s2 waits on s1.
  std::uint32_t hundred = 100, out = 0;
  ASSERT_EQ(scgpu_stream_wait_stream(s2, s1), SCGPU_SUCCESS);  // s1 has nothing yet: released at once
  ASSERT_EQ(scgpu_memcpy_htod_async(s1, p, &hundred, 4), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_stream_wait_stream(s2, s1), SCGPU_SUCCESS);
  ASSERT_EQ(launchAddBias(s2, p, 1), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memcpy_dtoh_async(s2, &out, p, 4), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_stream_synchronize(s2), SCGPU_SUCCESS) << scgpu_last_error(dev);
  EXPECT_EQ(out, 107u);
}

TEST_F(DriverApi, EventsMeasureDeviceTime) {
  scgpu_event *a, *b;
  ASSERT_EQ(scgpu_event_create(dev, &a), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_event_create(dev, &b), SCGPU_SUCCESS);
  std::vector<std::uint8_t> big(1 << 20, 1);
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, big.size(), &p), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_event_record(a, s1), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memcpy_htod_async(s1, p, big.data(), big.size()), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_event_record(b, s1), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS);
  std::uint64_t ns = 0;
  ASSERT_EQ(scgpu_event_elapsed_ns(a, b, &ns), SCGPU_SUCCESS);
  // 1 MiB over the default config's PCIe link (host.pcie_latency_ns + bytes at
  // host.pcie_bandwidth_bytes_per_ns), plus the front end's per-command costs.
  const scgpu::host::HostParams link = scgpu::GpuParams::fromConfig(scgpu::GpuConfig::loadDefault()).host;
  const double transfer = link.pcie_latency_ns + double(big.size()) / link.pcie_bandwidth_bytes_per_ns;
  EXPECT_GE(double(ns), transfer);
  EXPECT_LT(double(ns), transfer + 20000);
  EXPECT_EQ(scgpu_event_destroy(a), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_event_destroy(b), SCGPU_SUCCESS);
}

TEST_F(DriverApi, KernelFaultIsReportedAndTheStreamRecovers) {
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 64, &p), SCGPU_SUCCESS);
  const std::uint32_t one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};
  ASSERT_EQ(scgpu_launch(s1, mod, "misaligned", one, warp, 0, &p, 8), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_ERROR_FAULT);
  scgpu_error_info info;
  scgpu_error_info_get(dev, &info);
  EXPECT_EQ(info.kind, SCGPU_ERROR_KIND_MISALIGNED_ADDRESS);
  EXPECT_EQ(info.address, p + 2);
  EXPECT_EQ(info.lane, 0u);
  EXPECT_NE(std::string(scgpu_last_error(dev)).find("misaligned address"), std::string::npos) << scgpu_last_error(dev);
  // The stream works again, and the other stream never noticed.
  ASSERT_EQ(launchAddBias(s1, p, 16), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS) << scgpu_last_error(dev);
  EXPECT_EQ(scgpu_stream_synchronize(s2), SCGPU_SUCCESS);
}

// The driver's page tables map the 2 MiB pages its allocations touch: a kernel reaching outside
// them takes a page fault (cudaErrorIllegalAddress on silicon), one inside a mapped page but
// outside any allocation an illegal address.
TEST_F(DriverApi, AddressesOutsideTheMappedPagesArePageFaults) {
  EXPECT_TRUE(scgpu_mmio_read(dev, SCGPU_REG_CAPS) & SCGPU_CAPS_MMU_MASK);
  EXPECT_NE(std::uint64_t(scgpu_mmio_read(dev, SCGPU_REG_CH_PAGE_TABLE_HI(0))) << 32 |
                scgpu_mmio_read(dev, SCGPU_REG_CH_PAGE_TABLE_LO(0)),
            0u);
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 64, &p), SCGPU_SUCCESS);
  const scgpu_devptr wild = p + (1ull << 32);  // 4 GiB on: no allocation's page
  ASSERT_EQ(launchAddBias(s1, wild, 1), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_ERROR_FAULT);
  scgpu_error_info info;
  scgpu_error_info_get(dev, &info);
  EXPECT_EQ(info.kind, SCGPU_ERROR_KIND_PAGE_FAULT);
  EXPECT_EQ(info.address, wild);
  EXPECT_EQ((info.mmu_fault & SCGPU_ERR_MMU_FAULT_REASON_MASK) >> SCGPU_ERR_MMU_FAULT_REASON_SHIFT,
            SCGPU_MMU_FAULT_REASON_NOT_PRESENT);
  EXPECT_NE(std::string(scgpu_last_error(dev)).find("page fault"), std::string::npos) << scgpu_last_error(dev);
  // In a mapped page, past the allocation (the page is 2 MiB, the allocation 256 bytes).
  ASSERT_EQ(launchAddBias(s1, p + 4096, 1), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_ERROR_FAULT);
  scgpu_error_info_get(dev, &info);
  EXPECT_EQ(info.kind, SCGPU_ERROR_KIND_ILLEGAL_ADDRESS);
}

TEST_F(DriverApi, RefusedLaunchAndUnknownKernel) {
  const std::uint32_t one[3] = {1, 1, 1}, huge[3] = {2048, 1, 1};
  const Params prm{0, 0, 0};
  ASSERT_EQ(scgpu_launch(s1, mod, "add_bias", one, huge, 0, &prm, 12), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_ERROR_LAUNCH_REFUSED);
  ASSERT_EQ(scgpu_launch(s1, mod, "no_such_kernel", one, one, 0, &prm, 12), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_ERROR_LAUNCH_REFUSED);
  ASSERT_EQ(scgpu_launch(s1, mod, "add_bias", one, one, 0, &prm, 8), SCGPU_SUCCESS);  // wrong parameter size
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_ERROR_LAUNCH_REFUSED);
}

TEST_F(DriverApi, ModuleParseErrorNamesLineAndColumn) {
  const char* bad = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() {\n  frobnicate.u32 %r0;\n}\n";
  scgpu_module m;
  EXPECT_EQ(scgpu_module_load(dev, bad, std::strlen(bad), &m), SCGPU_ERROR_MODULE);
  EXPECT_NE(std::string(scgpu_last_error(dev)).find(":5:"), std::string::npos) << scgpu_last_error(dev);
}

TEST_F(DriverApi, MemoryErrors) {
  scgpu_devptr p;
  EXPECT_EQ(scgpu_mem_alloc(dev, std::size_t(1) << 50, &p), SCGPU_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(scgpu_mem_free(dev, 0x1234), SCGPU_ERROR_INVALID_VALUE);
  ASSERT_EQ(scgpu_mem_alloc(dev, 100, &p), SCGPU_SUCCESS);
  EXPECT_EQ(p % 256, 0u);
  ASSERT_EQ(scgpu_mem_free(dev, p), SCGPU_SUCCESS);
  // A copy into freed memory is a device error (BAD_ADDRESS), not a crash.
  std::uint32_t v = 1;
  EXPECT_EQ(scgpu_memcpy_htod(dev, p, &v, 4), SCGPU_ERROR_DEVICE);
  scgpu_error_info info;
  scgpu_error_info_get(dev, &info);
  EXPECT_EQ(info.kind, SCGPU_ERROR_KIND_BAD_ADDRESS);
  // Freed memory is reused.
  scgpu_devptr q;
  ASSERT_EQ(scgpu_mem_alloc(dev, 100, &q), SCGPU_SUCCESS);
  EXPECT_EQ(q, p);
}

TEST_F(DriverApi, WaitOnAStoppedStreamIsADeadlockNotAHang) {
  // s1 faults before it reaches the release that s2 waits for: s2 can never go on.
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 64, &p), SCGPU_SUCCESS);
  const std::uint32_t one[3] = {1, 1, 1};
  ASSERT_EQ(scgpu_launch(s1, mod, "misaligned", one, one, 0, &p, 8), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_stream_wait_stream(s2, s1), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s2), SCGPU_ERROR_DEADLOCK);
  EXPECT_NE(std::string(scgpu_last_error(dev)).find("waiting on a semaphore"), std::string::npos) << scgpu_last_error(dev);
  EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_ERROR_FAULT);
  // Both streams work again.
  ASSERT_EQ(launchAddBias(s2, p, 16), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s2), SCGPU_SUCCESS) << scgpu_last_error(dev);
}

TEST_F(DriverApi, ResetGivesAFreshDevice) {
  scgpu_devptr p;
  ASSERT_EQ(scgpu_mem_alloc(dev, 4, &p), SCGPU_SUCCESS);
  scgpu_mmio_write(dev, SCGPU_REG_SCRATCH, 42);
  ASSERT_EQ(scgpu_reset(dev), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_mmio_read(dev, SCGPU_REG_SCRATCH), 0u);
  std::uint32_t v = 5;
  EXPECT_EQ(scgpu_memcpy_htod(dev, p, &v, 4), SCGPU_ERROR_DEVICE) << "the old mapping is gone";
  scgpu_devptr q;
  ASSERT_EQ(scgpu_mem_alloc(dev, 4, &q), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_memcpy_htod(dev, q, &v, 4), SCGPU_SUCCESS);
}

// The intervals between events around two launches (1 block, then 32 blocks), on a device opened
// with `open`; checks the results.
std::pair<std::uint64_t, std::uint64_t> timeTwoLaunches(scgpu_status (*open)(const char*, scgpu_device**)) {
  scgpu_device* d = nullptr;
  EXPECT_EQ(open(nullptr, &d), SCGPU_SUCCESS) << scgpu_last_error(nullptr);
  if (!d) return {0, 0};
  scgpu_module m;
  EXPECT_EQ(scgpu_module_load(d, kPtx, std::strlen(kPtx), &m), SCGPU_SUCCESS) << scgpu_last_error(d);
  scgpu_stream* s;
  EXPECT_EQ(scgpu_stream_create(d, 0, &s), SCGPU_SUCCESS);
  scgpu_devptr p;
  EXPECT_EQ(scgpu_mem_alloc(d, 4096 * 4, &p), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_memset(d, p, 0, 4096 * 4), SCGPU_SUCCESS);
  scgpu_event *a, *b, *c;
  scgpu_event_create(d, &a);
  scgpu_event_create(d, &b);
  scgpu_event_create(d, &c);
  const Params small{p, 128, 0}, big{p, 4096, 0};
  const std::uint32_t block[3] = {128, 1, 1}, one[3] = {1, 1, 1}, many[3] = {32, 1, 1};
  scgpu_event_record(a, s);
  EXPECT_EQ(scgpu_launch(s, m, "add_bias", one, block, 0, &small, 12), SCGPU_SUCCESS);
  scgpu_event_record(b, s);
  EXPECT_EQ(scgpu_launch(s, m, "add_bias", many, block, 0, &big, 12), SCGPU_SUCCESS);
  scgpu_event_record(c, s);
  EXPECT_EQ(scgpu_stream_synchronize(s), SCGPU_SUCCESS) << scgpu_last_error(d);
  std::uint64_t t1 = 0, t2 = 0;
  EXPECT_EQ(scgpu_event_elapsed_ns(a, b, &t1), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_event_elapsed_ns(b, c, &t2), SCGPU_SUCCESS);
  std::vector<std::uint32_t> out(4096);
  EXPECT_EQ(scgpu_memcpy_dtoh(d, out.data(), p, out.size() * 4), SCGPU_SUCCESS);
  EXPECT_EQ(out[0], 14u);
  EXPECT_EQ(out[4095], 7u);
  scgpu_close(d);
  return {t1, t2};
}

TEST(DriverOpen, TimingModeKernelsTakeTheirSimulatedTime) {
  // The same work on a functional device (kernels take no time: the intervals are the launches'
  // staging copies and methods, the same for both) and a timing one (plus each kernel's simulated
  // time; 32 blocks over tiny's 2 SMs take longer than 1).
  const auto functional = timeTwoLaunches(&scgpu_open);
  const auto timing = timeTwoLaunches(&scgpu_open_timing);
  EXPECT_EQ(functional.first, functional.second);
  EXPECT_GT(timing.first, functional.first);
  EXPECT_GT(timing.second - functional.second, timing.first - functional.first);
}

TEST(DriverOpen, BadConfigIsNoDevice) {
  scgpu_device* d = nullptr;
  EXPECT_EQ(scgpu_open("/nonexistent/gpu.yaml", &d), SCGPU_ERROR_NO_DEVICE);
  EXPECT_EQ(d, nullptr);
  EXPECT_NE(std::string(scgpu_last_error(nullptr)).find("gpu.yaml"), std::string::npos);
}

TEST(DriverOpen, ChannelsRunOut) {
  scgpu_device* d = nullptr;
  ASSERT_EQ(scgpu_open(nullptr, &d), SCGPU_SUCCESS);
  const std::uint32_t channels = scgpu_mmio_read(d, SCGPU_REG_NUM_CHANNELS);
  std::vector<scgpu_stream*> streams;
  for (std::uint32_t i = 1; i < channels; ++i) {
    scgpu_stream* s;
    ASSERT_EQ(scgpu_stream_create(d, i % 16, &s), SCGPU_SUCCESS) << i;
    streams.push_back(s);
  }
  scgpu_stream* extra;
  EXPECT_EQ(scgpu_stream_create(d, 0, &extra), SCGPU_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(scgpu_stream_destroy(streams.back()), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_create(d, 0, &extra), SCGPU_SUCCESS);
  scgpu_close(d);
}

}  // namespace
