// Crossbar: unloaded latency, output-port saturation and round-robin fairness, back-pressure,
// per-(input, output) ordering, response routing. Expectations are formulas in the parameters.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <vector>

#include "memsys/crossbar.h"
#include "base/stats.h"

namespace scgpu::memsys {
namespace {

constexpr std::uint32_t kFlit = 32, kLatency = 8, kHeader = 8, kInBuf = 16, kOutBuf = 16;
constexpr std::uint32_t kSlices = 2, kSms = 4;

std::uint32_t flitsOf(std::uint32_t payload) { return (kHeader + payload + kFlit - 1) / kFlit; }

CrossbarParams xbarParams(const char* arbitration = "round_robin") {
  CrossbarParams p;
  p.flit_bytes = kFlit;
  p.latency_cycles = kLatency;
  p.input_buffer_flits = kInBuf;
  p.output_buffer_flits = kOutBuf;
  p.arbitration = arbitration;
  p.request_header_bytes = kHeader;
  return p;
}

AddressMap linearMap() {
  L2Params l2;
  l2.slices = kSlices;
  l2.hash = "linear";
  l2.interleave_bytes = 256;
  DramParams d;
  d.channels = 1;
  d.channel_interleave_bytes = 256;
  return AddressMap(l2, d);
}
// Linear map, 256-byte interleave: slice s owns addr 256 * s (+ k * 256 * kSlices).
std::uint64_t addrOfSlice(std::uint32_t s, std::uint32_t k = 0) { return (std::uint64_t(k) * kSlices + s) * 256; }

MemRequest read(std::uint64_t id, std::uint16_t sm, std::uint64_t addr) {
  MemRequest r;
  r.id = id;
  r.op = MemOp::Read;
  r.addr = addr;
  r.sector_mask = 0xF;
  r.sm = sm;
  return r;
}
MemRequest write(std::uint64_t id, std::uint16_t sm, std::uint64_t addr, std::uint32_t bytes) {
  MemRequest r = read(id, sm, addr);
  r.op = MemOp::Write;
  r.bytes = bytes;
  return r;
}

struct Bench {
  explicit Bench(const char* arb = "round_robin") : Bench(xbarParams(arb)) {}
  explicit Bench(const CrossbarParams& p) : xbar(p, kSms, kSlices, linearMap(), stats, "gpu.xbar") {}
  StatsRegistry stats;
  Crossbar xbar;
  std::uint64_t cycle = 0;
  bool drain = true;  // pop every output each cycle
  std::vector<std::pair<std::uint64_t, MemRequest>> at_l2[kSlices], at_sm[kSms];

  void step() {
    xbar.tick(cycle);
    if (drain) {
      for (std::uint32_t l = 0; l < kSlices; ++l)
        for (; xbar.hasRequest(l); xbar.popRequest(l)) at_l2[l].emplace_back(cycle, xbar.peekRequest(l));
      for (std::uint32_t s = 0; s < kSms; ++s)
        for (; xbar.hasResponse(s); xbar.popResponse(s)) at_sm[s].emplace_back(cycle, xbar.peekResponse(s));
    }
    ++cycle;
  }
  void runTo(std::uint64_t c) {
    while (cycle < c) step();
  }
};

TEST(Crossbar, PacketSizes) {
  Bench b;
  EXPECT_EQ(b.xbar.packetFlits(read(0, 0, 0), false), flitsOf(0));                 // header only
  EXPECT_EQ(b.xbar.packetFlits(write(0, 0, 0, 128), false), flitsOf(128));         // 5
  EXPECT_EQ(b.xbar.packetFlits(write(0, 0, 0, 32), false), flitsOf(32));           // 2
  EXPECT_EQ(b.xbar.packetFlits(read(0, 0, 0), true), flitsOf(4 * 32));             // 4 sectors of data
  EXPECT_EQ(b.xbar.packetFlits(write(0, 0, 0, 128), true), flitsOf(0));            // acknowledgement
}

TEST(Crossbar, UnloadedLatencyIsFlitsPlusTraversal) {
  Bench b;
  EXPECT_TRUE(b.xbar.idle());
  b.runTo(10);
  const std::uint64_t c = b.cycle;
  b.xbar.acceptRequest(2, read(1, 2, addrOfSlice(1)), c);
  EXPECT_FALSE(b.xbar.idle());
  b.runTo(c + 40);
  ASSERT_EQ(b.at_l2[1].size(), 1u);
  EXPECT_EQ(b.at_l2[1][0].first, c + flitsOf(0) + kLatency);
  EXPECT_EQ(b.at_l2[1][0].second.id, 1u);

  const std::uint64_t c2 = b.cycle;
  b.xbar.acceptRequest(0, write(2, 0, addrOfSlice(0), 128), c2);
  b.runTo(c2 + 40);
  ASSERT_EQ(b.at_l2[0].size(), 1u);
  EXPECT_EQ(b.at_l2[0][0].first, c2 + flitsOf(128) + kLatency);

  // Response network: a read response carrying 4 sectors back to SM 3.
  const std::uint64_t c3 = b.cycle;
  MemRequest resp = read(3, 3, addrOfSlice(1));
  resp.response = true;
  ASSERT_TRUE(b.xbar.canAcceptResponse(1));
  b.xbar.acceptResponse(1, resp, c3);
  b.runTo(c3 + 40);
  ASSERT_EQ(b.at_sm[3].size(), 1u);
  EXPECT_EQ(b.at_sm[3][0].first, c3 + flitsOf(128) + kLatency);
  EXPECT_TRUE(b.xbar.idle());

  EXPECT_EQ(b.stats.value("gpu.xbar.request_flits"), flitsOf(0) + flitsOf(128));
  EXPECT_EQ(b.stats.value("gpu.xbar.response_flits"), flitsOf(128));
  EXPECT_EQ(b.stats.value("gpu.xbar.l2[0].port_busy_cycles"), flitsOf(128));
  EXPECT_EQ(b.stats.value("gpu.xbar.l2[1].port_busy_cycles"), flitsOf(0));
  EXPECT_EQ(b.stats.value("gpu.xbar.sm[3].port_busy_cycles"), flitsOf(128));
}

// Two inputs keep their buffers full of packets for one output: the output switches one flit per
// cycle and round robin gives each input half of them.
void saturate(std::uint32_t payload) {
  Bench b;
  const std::uint32_t f = flitsOf(payload);
  const std::uint64_t warmup = 100, window = 2000;
  std::uint64_t id = 0;
  for (std::uint64_t c = 0; c < warmup + window; ++c) {
    for (std::uint16_t sm : {0, 1}) {
      MemRequest r = payload ? write(id, sm, addrOfSlice(0), payload) : read(id, sm, addrOfSlice(0));
      if (b.xbar.canAcceptRequest(sm, r)) {
        b.xbar.acceptRequest(sm, r, b.cycle);
        ++id;
      }
    }
    if (c == warmup) {
      b.at_l2[0].clear();
    }
    b.step();
  }
  // Delivered packets in the window: window flits / f per packet (one flit per cycle), split evenly.
  std::uint64_t per_sm[2] = {0, 0};
  for (const auto& [c, r] : b.at_l2[0]) per_sm[r.sm]++;
  const std::uint64_t packets = per_sm[0] + per_sm[1];
  EXPECT_NEAR(double(packets), double(window) / f, 1.0) << "payload " << payload;
  EXPECT_NEAR(double(per_sm[0]), double(packets) / 2, 1.0);
  EXPECT_NEAR(double(per_sm[1]), double(packets) / 2, 1.0);
  // The port switched a flit every cycle once the first packet arrived.
  EXPECT_GE(b.stats.value("gpu.xbar.l2[0].port_busy_cycles"), warmup + window - 2);
  EXPECT_GT(b.stats.value("gpu.xbar.request_conflict_cycles"), 0u);
  EXPECT_TRUE(b.at_l2[1].empty());
}

TEST(Crossbar, OnePortSaturatesAtOneFlitPerCycleSharedRoundRobin) {
  saturate(0);    // 1-flit reads
  saturate(128);  // 5-flit writes
}

TEST(Crossbar, FixedPriorityFavoursTheLowestInput) {
  Bench b("fixed_priority");
  std::uint64_t id = 0;
  for (std::uint64_t c = 0; c < 500; ++c) {
    for (std::uint16_t sm : {0, 1})
      if (b.xbar.canAcceptRequest(sm)) b.xbar.acceptRequest(sm, read(id++, sm, addrOfSlice(0)), b.cycle);
    b.step();
  }
  std::uint64_t per_sm[2] = {0, 0};
  for (const auto& [c, r] : b.at_l2[0]) per_sm[r.sm]++;
  EXPECT_GT(per_sm[0], 400u);
  EXPECT_LE(per_sm[1], 1u);  // at most the one packet granted before input 0 had one ready
}

TEST(Crossbar, BackPressureWhenBuffersFill) {
  Bench b;
  b.drain = false;  // the L2 takes nothing
  const std::uint32_t f = flitsOf(128);
  std::uint64_t accepted = 0;
  for (std::uint64_t c = 0; c < 200; ++c) {
    MemRequest r = write(accepted, 0, addrOfSlice(0), 128);
    if (b.xbar.canAcceptRequest(0, r)) {
      b.xbar.acceptRequest(0, r, b.cycle);
      ++accepted;
    }
    b.step();
  }
  // The output buffer is full, the input holds whatever no longer fits behind it.
  EXPECT_EQ(b.xbar.requestOutputFlits(0), kOutBuf);
  EXPECT_GT(b.xbar.requestInputFlits(0) + f, kInBuf);
  EXPECT_FALSE(b.xbar.canAcceptRequest(0, write(0, 0, addrOfSlice(0), 128)));
  EXPECT_FALSE(b.xbar.canAcceptRequest(0));
  EXPECT_EQ(accepted * f, b.xbar.requestOutputFlits(0) + b.xbar.requestInputFlits(0));
  EXPECT_EQ(accepted, std::uint64_t((kOutBuf + kInBuf) / f));
  EXPECT_GT(b.stats.value("gpu.xbar.request_stall_cycles"), 0u);
  EXPECT_THROW(b.xbar.acceptRequest(0, write(99, 0, addrOfSlice(0), 128), b.cycle), std::logic_error);
  // Another input to another output is not blocked.
  EXPECT_TRUE(b.xbar.canAcceptRequest(1));
  // Draining the output frees the input again.
  b.drain = true;
  b.runTo(b.cycle + 100);
  EXPECT_TRUE(b.xbar.canAcceptRequest(0));
  EXPECT_EQ(b.at_l2[0].size(), accepted);
  EXPECT_TRUE(b.xbar.idle());
}

TEST(Crossbar, InOrderPerInputOutputPair) {
  Bench b;
  std::uint32_t lcg = 12345;
  auto rnd = [&] { return (lcg = lcg * 1103515245u + 12345u) >> 16; };
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> sent;  // (sm, slice) -> count
  std::uint64_t id = 0;
  for (std::uint64_t c = 0; c < 3000; ++c) {
    for (std::uint16_t sm = 0; sm < kSms; ++sm) {
      if (rnd() % 3) continue;
      const std::uint32_t slice = rnd() % kSlices;
      const std::uint32_t k = rnd() % 64;
      MemRequest r = (rnd() % 2) ? read(0, sm, addrOfSlice(slice, k)) : write(0, sm, addrOfSlice(slice, k), 32 * (1 + rnd() % 4));
      r.tag = std::uint32_t(sent[{sm, slice}]);  // sequence number per pair
      r.id = id;
      if (!b.xbar.canAcceptRequest(sm, r)) continue;
      b.xbar.acceptRequest(sm, r, b.cycle);
      ++id;
      ++sent[{sm, slice}];
    }
    b.step();
  }
  b.runTo(b.cycle + 500);
  EXPECT_TRUE(b.xbar.idle());
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> got;
  std::uint64_t total = 0;
  for (std::uint32_t l = 0; l < kSlices; ++l)
    for (const auto& [c, r] : b.at_l2[l]) {
      std::uint64_t& n = got[std::make_pair(std::uint32_t(r.sm), l)];
      EXPECT_EQ(r.tag, n) << "sm " << r.sm << " slice " << l;
      ++n;
      ++total;
    }
  EXPECT_EQ(total, id);
  EXPECT_EQ(got, sent);
}

// input_window_packets: an output may take a packet behind its input's blocked head (one packet
// per input at a time), so a head waiting for a busy output no longer holds back a packet for an
// idle one; packets of one (input, output) pair still leave in order. Fixed priority: output 0
// serves input 0 first. One-flit reads, switchable from cycle 1, visible flits + latency later.
TEST(Crossbar, InputWindowLetsAPacketPassAHeadWaitingForABusyOutput) {
  auto run = [](std::uint32_t window) {
    CrossbarParams p = xbarParams("fixed_priority");
    p.input_window_packets = window;
    StatsRegistry stats;
    Crossbar x(p, kSms, kSlices, linearMap(), stats, "gpu.xbar");
    x.acceptRequest(0, read(1, 0, addrOfSlice(0)), 0);     // input 0 -> output 0
    x.acceptRequest(1, read(2, 1, addrOfSlice(0)), 0);     // input 1 -> output 0, behind input 0
    x.acceptRequest(1, read(3, 1, addrOfSlice(1)), 0);     // input 1 -> output 1
    x.acceptRequest(1, read(4, 1, addrOfSlice(1, 1)), 0);  // input 1 -> output 1 again
    std::map<std::uint64_t, std::uint64_t> seen;           // id -> cycle visible
    for (std::uint64_t c = 0; c < 40; ++c) {
      x.tick(c);
      for (std::uint32_t l = 0; l < kSlices; ++l)
        for (; x.hasRequest(l); x.popRequest(l)) seen[x.peekRequest(l).id] = c;
    }
    return seen;
  };
  const std::uint64_t t = flitsOf(0) + kLatency;  // switched at cycle k: visible at k - 1 + t
  const auto fifo = run(1);
  EXPECT_EQ(fifo.at(1), 1 - 1 + t);  // cycle 1: output 0 takes input 0
  EXPECT_EQ(fifo.at(2), 2 - 1 + t);  // cycle 2: output 0 takes input 1's head
  EXPECT_EQ(fifo.at(3), 3 - 1 + t);  // only then input 1's next packet, to output 1
  EXPECT_EQ(fifo.at(4), 4 - 1 + t);
  const auto window = run(2);
  EXPECT_EQ(window.at(1), 1 - 1 + t);
  EXPECT_EQ(window.at(3), 1 - 1 + t);  // output 1 takes it from behind the waiting head at cycle 1
  EXPECT_EQ(window.at(2), 2 - 1 + t);  // the head, once output 0 is free
  EXPECT_EQ(window.at(4), 3 - 1 + t);  // in order behind packet 3, one packet per input per cycle
  const auto wide = run(4);
  EXPECT_LT(wide.at(3), wide.at(4));   // per (input, output) order holds however wide the window
}

TEST(Crossbar, ResponsesRouteToTheirSmInOrder) {
  Bench b;
  std::uint32_t seq[kSms] = {};
  for (std::uint64_t c = 0; c < 400; ++c) {
    for (std::uint32_t l = 0; l < kSlices; ++l) {
      MemRequest r = read(c * kSlices + l, std::uint16_t((c + l) % kSms), addrOfSlice(l));
      r.response = true;
      r.tag = std::uint32_t(l);
      if (b.xbar.canAcceptResponse(l, r, b.cycle)) b.xbar.acceptResponse(l, r, b.cycle);
    }
    b.step();
  }
  b.runTo(b.cycle + 500);
  for (std::uint32_t s = 0; s < kSms; ++s) {
    std::uint64_t last[kSlices] = {0, 0};
    bool first[kSlices] = {true, true};
    for (const auto& [c, r] : b.at_sm[s]) {
      EXPECT_EQ(r.sm, s);
      if (!first[r.tag]) {
        EXPECT_GT(r.id, last[r.tag]);
      }
      first[r.tag] = false;
      last[r.tag] = r.id;
      ++seq[s];
    }
    EXPECT_GT(seq[s], 0u);
  }
  EXPECT_TRUE(b.xbar.idle());
}

// A read response whose line is still in its slice's output buffer, on its way to another SM, goes
// out from there too (crossbar.multicast_responses): it takes none of the slice's input time, so
// two SMs get the line in the same cycle; without it the second waits for the first's flits. Not
// copies: another line, or the same SM again.
TEST(Crossbar, MulticastResponsesShareTheSlicesPortForOneLine) {
  const std::uint32_t f = flitsOf(4 * 32);
  for (bool multicast : {false, true}) {
    CrossbarParams p = xbarParams();
    p.multicast_responses = multicast;
    Bench b(p);
    b.runTo(5);
    const std::uint64_t c = b.cycle;
    auto resp = [](std::uint64_t id, std::uint16_t sm, std::uint64_t addr) {
      MemRequest r = read(id, sm, addr);
      r.response = true;
      return r;
    };
    const MemRequest a = resp(1, 0, addrOfSlice(1)), same = resp(2, 1, addrOfSlice(1));
    const MemRequest other = resp(3, 2, addrOfSlice(1, 1)), again = resp(4, 0, addrOfSlice(1));
    EXPECT_EQ(b.xbar.responseInput(1, a, c), 1u);
    b.xbar.acceptResponse(1, a, c);
    EXPECT_EQ(b.xbar.responseInput(1, same, c), multicast ? kSlices + 1 : 1u);
    EXPECT_EQ(b.xbar.responseInput(1, other, c), 1u) << "another line";
    EXPECT_EQ(b.xbar.responseInput(1, again, c), 1u) << "the same SM";
    b.xbar.acceptResponse(1, same, c);
    b.runTo(c + 60);
    ASSERT_EQ(b.at_sm[0].size(), 1u);
    ASSERT_EQ(b.at_sm[1].size(), 1u);
    EXPECT_EQ(b.at_sm[0][0].first, c + f + kLatency);
    if (multicast)
      EXPECT_EQ(b.at_sm[1][0].first, c + f + kLatency) << "the copy goes out beside the first";
    else
      EXPECT_GE(b.at_sm[1][0].first, c + 2 * f + kLatency) << "after the first's flits";
    EXPECT_EQ(b.stats.value("gpu.xbar.response_copies"), multicast ? 1u : 0u);
    EXPECT_EQ(b.stats.value("gpu.xbar.response_flits"), 2u * f) << "each SM's port takes the whole line";
  }
}

TEST(Crossbar, RejectsBadParameters) {
  StatsRegistry st;
  CrossbarParams p = xbarParams();
  p.input_buffer_flits = flitsOf(128) - 1;
  EXPECT_THROW(Crossbar(p, kSms, kSlices, linearMap(), st, "a"), std::invalid_argument);
  p = xbarParams();
  p.arbitration = "lottery";
  EXPECT_THROW(Crossbar(p, kSms, kSlices, linearMap(), st, "b"), std::invalid_argument);
  EXPECT_THROW(Crossbar(xbarParams(), kSms, kSlices + 1, linearMap(), st, "c"), std::invalid_argument);
}

}  // namespace
}  // namespace scgpu::memsys
