// Concurrency through the host interface in timing mode: kernels of two streams run side by side on
// the SMs, a copy runs beside a kernel, and the timeline shows both - with every result checked
// against a CPU reference and every overlap read from the device's own event timestamps.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/driver_internal.h"
#include "driver/inprocess_transport.h"
#include "driver/scgpu_driver.h"
#include "testbench/test_util.h"
#include "tlm/gpu_config.h"

namespace scgpu::driver {
namespace {

// Each thread steps a linear congruential generator `iters` times from its global index and
// stores the result: a kernel whose length is set by one parameter, with a result that checks
// every thread ran every step.
const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 iters) {
  .reg .u64 %a<3>; .reg .u32 %r<8>; .reg .pred %p;
  ld.param.u64 %a0, [out]; ld.param.u32 %r1, [iters];
  mov.u32 %r0, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r6, %ntid.x; mad.lo.u32 %r3, %r2, %r6, %r0;
  mov.u32 %r4, %r3;
  mov.u32 %r5, 0;
loop:
  mad.lo.u32 %r4, %r4, 1664525, 1013904223;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p, %r5, %r1;
  @%p bra loop;
  mul.wide.u32 %a1, %r3, 4; add.u64 %a2, %a0, %a1; st.global.u32 [%a2], %r4;
  ret;
}
)";

std::uint32_t spinReference(std::uint32_t id, std::uint32_t iters) {
  std::uint32_t x = id;
  for (std::uint32_t i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  return x;
}

struct Interval {
  std::uint64_t start, end;
  std::uint64_t length() const { return end - start; }
};
std::uint64_t overlap(const Interval& a, const Interval& b) {
  const std::uint64_t s = std::max(a.start, b.start), e = std::min(a.end, b.end);
  return e > s ? e - s : 0;
}

class Bench {
 public:
  Bench(const std::string& timeline, const std::string& host_trace) {
    TraceOptions trace;
    trace.timeline_path = timeline;
    trace.host_trace_path = host_trace;
    auto t = std::make_unique<InProcessTransport>(GpuConfig::loadDefault(), Mode::Timing, trace);
    transport = t.get();
    EXPECT_EQ(scgpu_open_transport(std::move(t), &dev), SCGPU_SUCCESS) << scgpu_last_error(nullptr);
    EXPECT_EQ(scgpu_module_load(dev, kPtx, std::strlen(kPtx), &mod), SCGPU_SUCCESS) << scgpu_last_error(dev);
    // The origin of every interval: an event that has completed before anything below starts.
    EXPECT_EQ(scgpu_stream_create(dev, 0, &s1), SCGPU_SUCCESS);
    EXPECT_EQ(scgpu_stream_create(dev, 0, &s2), SCGPU_SUCCESS);
    origin = event();
    EXPECT_EQ(scgpu_event_record(origin, s1), SCGPU_SUCCESS);
    EXPECT_EQ(scgpu_stream_synchronize(s1), SCGPU_SUCCESS);
  }
  ~Bench() { scgpu_close(dev); }
  scgpu_event* event() {
    scgpu_event* e = nullptr;
    EXPECT_EQ(scgpu_event_create(dev, &e), SCGPU_SUCCESS);
    return e;
  }
  // Launches spin on `s` with one block of 32 threads per entry of `out` / 32, between two events.
  std::pair<scgpu_event*, scgpu_event*> spin(scgpu_stream* s, scgpu_devptr out, std::uint32_t blocks,
                                             std::uint32_t iters) {
    scgpu_event *a = event(), *b = event();
    struct {
      std::uint64_t out;
      std::uint32_t iters;
    } prm{out, iters};
    const std::uint32_t grid[3] = {blocks, 1, 1}, block[3] = {32, 1, 1};
    EXPECT_EQ(scgpu_event_record(a, s), SCGPU_SUCCESS);
    EXPECT_EQ(scgpu_launch(s, mod, "spin", grid, block, 0, &prm, 12), SCGPU_SUCCESS) << scgpu_last_error(dev);
    EXPECT_EQ(scgpu_event_record(b, s), SCGPU_SUCCESS);
    return {a, b};
  }
  Interval interval(std::pair<scgpu_event*, scgpu_event*> ev) {
    std::uint64_t s = 0, e = 0;
    EXPECT_EQ(scgpu_event_elapsed_ns(origin, ev.first, &s), SCGPU_SUCCESS) << scgpu_last_error(dev);
    EXPECT_EQ(scgpu_event_elapsed_ns(origin, ev.second, &e), SCGPU_SUCCESS) << scgpu_last_error(dev);
    return {s, e};
  }
  void expectSpun(scgpu_devptr out, std::uint32_t threads, std::uint32_t iters) {
    std::vector<std::uint32_t> got(threads);
    ASSERT_EQ(scgpu_memcpy_dtoh(dev, got.data(), out, threads * 4), SCGPU_SUCCESS) << scgpu_last_error(dev);
    for (std::uint32_t i = 0; i < threads; ++i) ASSERT_EQ(got[i], spinReference(i, iters)) << "thread " << i;
  }
  scgpu_devptr alloc(std::uint64_t bytes) {
    scgpu_devptr p = 0;
    EXPECT_EQ(scgpu_mem_alloc(dev, bytes, &p), SCGPU_SUCCESS);
    return p;
  }

  InProcessTransport* transport = nullptr;
  scgpu_device* dev = nullptr;
  scgpu_module mod{};
  scgpu_stream *s1 = nullptr, *s2 = nullptr;
  scgpu_event* origin = nullptr;
};

// One test (one timing model per process): tiny has 2 SMs, so two one-block kernels fit side by
// side; the host-to-device copy of 1 MiB takes about 21 us of PCIe at tiny's 54.8 bytes/ns.
TEST(Concurrency, KernelsOfTwoStreamsAndACopyOverlapAKernel) {
  const std::string base =
      (std::filesystem::temp_directory_path() / ("scgpu_concurrency_" + std::to_string(::getpid()))).string();
  const std::string timeline = base + ".json", host_trace = base + ".vcd";
  constexpr std::uint32_t kIters = 3000;
  {
    Bench b(timeline, host_trace);
    const scgpu_devptr o1 = b.alloc(4096), o2 = b.alloc(4096), o3 = b.alloc(4096);

    // The kernel alone, for scale.
    const auto alone_ev = b.spin(b.s1, o1, 1, kIters);
    ASSERT_EQ(scgpu_stream_synchronize(b.s1), SCGPU_SUCCESS) << scgpu_last_error(b.dev);
    const Interval alone = b.interval(alone_ev);
    b.expectSpun(o1, 32, kIters);

    // Two streams, one kernel each, queued before either is waited for.
    const auto k1 = b.spin(b.s1, o2, 1, kIters);
    const auto k2 = b.spin(b.s2, o3, 1, kIters + 1);
    ASSERT_EQ(scgpu_stream_synchronize(b.s1), SCGPU_SUCCESS) << scgpu_last_error(b.dev);
    ASSERT_EQ(scgpu_stream_synchronize(b.s2), SCGPU_SUCCESS) << scgpu_last_error(b.dev);
    const Interval i1 = b.interval(k1), i2 = b.interval(k2);
    b.expectSpun(o2, 32, kIters);
    b.expectSpun(o3, 32, kIters + 1);
    EXPECT_GT(overlap(i1, i2), std::min(i1.length(), i2.length()) * 8 / 10)
        << "kernel 1 [" << i1.start << ", " << i1.end << "), kernel 2 [" << i2.start << ", " << i2.end << ")";
    const Interval both{std::min(i1.start, i2.start), std::max(i1.end, i2.end)};
    EXPECT_LT(both.length(), alone.length() * 3 / 2) << "one kernel alone takes " << alone.length() << " ns";

    // A copy on one stream beside a kernel on the other.
    constexpr std::uint32_t kCopyBytes = 1 << 20;
    std::vector<std::uint8_t> src(kCopyBytes);
    for (std::uint32_t i = 0; i < kCopyBytes; ++i) src[i] = std::uint8_t(i * 7 + 3);
    const scgpu_devptr dst = b.alloc(kCopyBytes);
    const auto k3 = b.spin(b.s1, o2, 1, 4 * kIters);
    scgpu_event *c0 = b.event(), *c1 = b.event();
    ASSERT_EQ(scgpu_event_record(c0, b.s2), SCGPU_SUCCESS);
    ASSERT_EQ(scgpu_memcpy_htod_async(b.s2, dst, src.data(), kCopyBytes), SCGPU_SUCCESS);
    ASSERT_EQ(scgpu_event_record(c1, b.s2), SCGPU_SUCCESS);
    ASSERT_EQ(scgpu_stream_synchronize(b.s2), SCGPU_SUCCESS) << scgpu_last_error(b.dev);
    ASSERT_EQ(scgpu_stream_synchronize(b.s1), SCGPU_SUCCESS) << scgpu_last_error(b.dev);
    const Interval kernel = b.interval(k3), copy = b.interval({c0, c1});
    b.expectSpun(o2, 32, 4 * kIters);
    std::vector<std::uint8_t> back(kCopyBytes);
    ASSERT_EQ(scgpu_memcpy_dtoh(b.dev, back.data(), dst, kCopyBytes), SCGPU_SUCCESS);
    EXPECT_EQ(back, src);
    EXPECT_GT(copy.length(), 1u << 14) << "a 1 MiB copy over PCIe takes microseconds";
    EXPECT_GT(overlap(kernel, copy), copy.length() * 8 / 10)
        << "kernel [" << kernel.start << ", " << kernel.end << "), copy [" << copy.start << ", " << copy.end << ")";
    b.transport->device().closeTraces();
    // The host interface's waveform takes the channels' events in device time, although the
    // channels ran side by side (the front end delivers them sorted).
    EXPECT_FALSE(b.transport->closeHostTrace().empty());
  }
  const std::string vcd = test::readFile(host_trace);
  EXPECT_NE(vcd.find("sLAUNCH"), std::string::npos);
  EXPECT_NE(vcd.find("sCOPY"), std::string::npos);
  std::filesystem::remove(host_trace);
  std::filesystem::remove(base + ".gtkw");

  // The timeline: two kernels on two channels' rows that overlap, and a copy that overlaps a kernel.
  const nlohmann::json tl = nlohmann::json::parse(test::readFile(timeline));
  struct Span {
    std::string cat;
    std::uint64_t tid;
    double start, end;
  };
  std::vector<Span> kernels, copies;
  for (const auto& e : tl["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const Span s{e["cat"], e["tid"], e["ts"], double(e["ts"]) + double(e["dur"])};
    if (s.cat == "kernel") kernels.push_back(s);
    if (s.cat == "copy") copies.push_back(s);
  }
  auto overlaps = [](const Span& a, const Span& b) { return std::min(a.end, b.end) > std::max(a.start, b.start); };
  bool kernels_overlap = false, copy_overlaps = false;
  for (const Span& a : kernels)
    for (const Span& b : kernels) kernels_overlap |= a.tid != b.tid && overlaps(a, b);
  for (const Span& c : copies)
    for (const Span& k : kernels) copy_overlaps |= c.tid != k.tid && overlaps(c, k);
  EXPECT_EQ(kernels.size(), 4u);
  EXPECT_TRUE(kernels_overlap);
  EXPECT_TRUE(copy_overlaps);
  std::filesystem::remove(timeline);
}

}  // namespace
}  // namespace scgpu::driver
