// The functional SIMT core on hand-written PTX: divergence and reconvergence, loops, calls and
// recursion, barriers and shared memory, warp-wide operations, atomics, local memory, and the
// decoder's load-time errors. Expectations are computed here on the CPU.
#include <cmath>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "driver/module.h"
#include "driver/runtime.h"
#include "ptx/parse_error.h"
#include "tlm/gpu_config.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Runtime;

const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

std::string ptx(const std::string& body) { return std::string(kHeader) + body; }

TEST(Simt, NestedDivergenceReconvergesWithTheRightMasks) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry diverge(.param .u64 out, .param .u64 masks)
{
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd5, [masks];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.s32 %p1, %r2, 0;
  @%p1 bra EVEN;
  rem.u32 %r3, %r1, 3;
  setp.eq.s32 %p2, %r3, 0;
  @!%p2 bra NOT3;
  add.s32 %r4, %r1, 100;
  activemask.b32 %r5;
  bra.uni JOIN;
NOT3:
  sub.s32 %r4, %r1, 1;
  activemask.b32 %r5;
  bra.uni JOIN;
EVEN:
  shl.b32 %r4, %r1, 1;
  activemask.b32 %r5;
JOIN:
  add.s32 %r4, %r4, 1000;
  activemask.b32 %r6;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd6, %rd5, %rd2;
  st.global.v2.u32 [%rd6], {%r5, %r6};
  ret;
}
)"),
                                "diverge.ptx");
  const int n = 64;
  DevicePtr out = rt.malloc(n * 4), masks = rt.malloc(n * 8);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "diverge"), Dim3(1), Dim3(n), 0, KernelArgs().add(out).add(masks)),
            Error::Success);
  auto got = rt.download<std::uint32_t>(out, n);
  auto gotm = rt.download<std::uint32_t>(masks, 2 * n);
  // The lanes of a warp that took the same path as thread t: its activemask on that path.
  auto path = [](int t) { return t % 2 == 0 ? 0 : (t % 3 == 0 ? 1 : 2); };
  for (int t = 0; t < n; ++t) {
    std::uint32_t want = (t % 2 == 0) ? 2 * t : (t % 3 == 0 ? t + 100 : t - 1);
    EXPECT_EQ(got[t], want + 1000) << t;
    std::uint32_t wantmask = 0;
    for (int l = 0; l < 32; ++l)
      if (path(t / 32 * 32 + l) == path(t)) wantmask |= 1u << l;
    EXPECT_EQ(gotm[2 * t], wantmask) << t;
    EXPECT_EQ(gotm[2 * t + 1], 0xFFFFFFFFu) << "reconverged at JOIN, thread " << t;
  }
}

TEST(Simt, LoopsWithPerThreadTripCounts) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry tri(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
LOOP:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  add.u32 %r3, %r3, %r2;
  add.u32 %r2, %r2, 1;
  bra.uni LOOP;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)"),
                                "tri.ptx");
  const int n = 100;  // a partial last warp: 100 = 3 * 32 + 4
  DevicePtr out = rt.malloc(n * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "tri"), Dim3(1), Dim3(n), 0, KernelArgs().add(out)), Error::Success);
  auto got = rt.download<std::uint32_t>(out, n);
  for (std::uint32_t t = 0; t < std::uint32_t(n); ++t) EXPECT_EQ(got[t], t * (t - (t ? 1 : 0)) / 2) << t;
}

TEST(Simt, RecursiveCallsWithDivergentReturns) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.func (.param .b32 ret) fib(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  ld.param.b32 %r1, [n];
  setp.lt.s32 %p1, %r1, 2;
  @%p1 bra BASE;
  add.s32 %r2, %r1, -1;
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r2;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r3, [r0];
  }
  add.s32 %r4, %r1, -2;
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r4;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r5, [r0];
  }
  add.s32 %r6, %r3, %r5;
  st.param.b32 [ret], %r6;
  ret;
BASE:
  st.param.b32 [ret], %r1;
  ret;
}
.visible .entry fibk(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 13;
  {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r2;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r3, [r0];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)"),
                                "fib.ptx");
  const int n = 64;
  DevicePtr out = rt.malloc(n * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "fibk"), Dim3(1), Dim3(n), 0, KernelArgs().add(out)), Error::Success);
  auto got = rt.download<std::uint32_t>(out, n);
  std::vector<std::uint32_t> fib(13);
  for (int i = 0; i < 13; ++i) fib[i] = i < 2 ? i : fib[i - 1] + fib[i - 2];
  for (int t = 0; t < n; ++t) EXPECT_EQ(got[t], fib[t % 13]) << t;
}

TEST(Simt, BarrierOrdersSharedMemoryAcrossWarps) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry rev(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 buf[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mov.u64 %rd5, buf;
  add.s64 %rd6, %rd5, %rd3;
  st.shared.u32 [%rd6], %r2;
  bar.sync 0;
  sub.u32 %r3, 127, %r1;
  mul.wide.u32 %rd7, %r3, 4;
  add.s64 %rd6, %rd5, %rd7;
  ld.shared.u32 %r4, [%rd6];
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)"),
                                "rev.ptx");
  std::vector<std::uint32_t> in(256);
  std::iota(in.begin(), in.end(), 5000);
  DevicePtr din = rt.upload(in), dout = rt.malloc(256 * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "rev"), Dim3(2), Dim3(128), 0, KernelArgs().add(din).add(dout)),
            Error::Success);
  auto got = rt.download<std::uint32_t>(dout, 256);
  // Each block reads its own input? No: both blocks read in[0..127] (no block offset).
  for (int t = 0; t < 128; ++t) EXPECT_EQ(got[t], in[127 - t]) << t;
}

TEST(Simt, WarpWideOperations) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry warpops(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<14>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %r1;
  shfl.sync.down.b32 %r3, %r2, 16, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.down.b32 %r3, %r2, 8, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.down.b32 %r3, %r2, 4, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.down.b32 %r3, %r2, 2, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.down.b32 %r3, %r2, 1, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.idx.b32 %r4, %r2, 0, 31, -1;
  and.b32 %r5, %r1, 1;
  setp.eq.u32 %p1, %r5, 1;
  vote.sync.ballot.b32 %r6, %p1, -1;
  shr.u32 %r7, %r1, 2;
  match.any.sync.b32 %r8, %r7, -1;
  redux.sync.max.u32 %r9, %r1, -1;
  shfl.sync.up.b32 %r10|%p2, %r1, 1, 0, -1;
  selp.u32 %r11, 1, 0, %p2;
  shfl.sync.bfly.b32 %r12, %r1, 5, 31, -1;
  mul.lo.u32 %r13, %r1, 8;
  mul.wide.u32 %rd2, %r13, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r4, %r6, %r8, %r9};
  st.global.v4.u32 [%rd3+16], {%r10, %r11, %r12, %r1};
  ret;
}
)"),
                                "warpops.ptx");
  const int n = 64;
  DevicePtr out = rt.malloc(n * 32);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "warpops"), Dim3(1), Dim3(n), 0, KernelArgs().add(out)), Error::Success);
  auto got = rt.download<std::uint32_t>(out, n * 8);
  for (std::uint32_t t = 0; t < std::uint32_t(n); ++t) {
    std::uint32_t w = t / 32, l = t % 32;
    const std::uint32_t* g = &got[t * 8];
    EXPECT_EQ(g[0], 32 * 32 * w + 496) << t;       // warp sum broadcast from lane 0
    EXPECT_EQ(g[1], 0xAAAAAAAAu) << t;             // ballot of odd lanes
    EXPECT_EQ(g[2], 0xFu << (l & ~3u)) << t;       // lanes with equal tid/4
    EXPECT_EQ(g[3], 32 * w + 31) << t;             // redux max
    EXPECT_EQ(g[4], l > 0 ? t - 1 : t) << t;       // shfl up by one, lane 0 keeps its own
    EXPECT_EQ(g[5], l > 0 ? 1u : 0u) << t;         // its predicate
    EXPECT_EQ(g[6], 32 * w + (l ^ 5)) << t;        // butterfly
  }
}

// WARP_SZ is PTX's predefined identifier for the threads of a warp (nvcc emits it for warpSize):
// an operand like an immediate 32.
TEST(Simt, WarpSizeIdentifierReadsAsThirtyTwo) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry warpsz(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, WARP_SZ;
  rem.u32 %r3, %r1, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)"),
                                "warpsz.ptx");
  const int n = 96;
  DevicePtr out = rt.malloc(n * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "warpsz"), Dim3(1), Dim3(n), 0, KernelArgs().add(out)), Error::Success);
  auto got = rt.download<std::uint32_t>(out, n);
  for (std::uint32_t t = 0; t < std::uint32_t(n); ++t) EXPECT_EQ(got[t], t % 32) << t;
}

// A shuffle whose source lane does not take part reads 0, as the H200 does
// (scripts/h100/shfl_inactive.cu: lanes 0-7 under mask 0xff shuffling down by 16 got 0, whatever
// lanes 16-23 held).
TEST(Simt, ShuffleFromALaneNotTakingPartReadsZero) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry shfl_inactive(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1000;
  setp.ge.u32 %p1, %r1, 8;
  @%p1 bra DONE;
  shfl.sync.down.b32 %r3|%p2, %r2, 16, 31, 255;
  shfl.sync.down.b32 %r4, %r2, 4, 31, 255;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r3, %r4};
DONE:
  ret;
}
)"),
                                "shfl_inactive.ptx");
  DevicePtr out = rt.malloc(8 * 8);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "shfl_inactive"), Dim3(1), Dim3(32), 0, KernelArgs().add(out)),
            Error::Success);
  auto got = rt.download<std::uint32_t>(out, 16);
  for (std::uint32_t l = 0; l < 8; ++l) {
    EXPECT_EQ(got[2 * l], 0u) << l;                                   // lanes 16-23: not taking part
    EXPECT_EQ(got[2 * l + 1], l + 4 < 8 ? 1000 + l + 4 : 0u) << l;  // lanes 4-7 take part, 8-11 not
  }
}

TEST(Simt, SharedAndGlobalAtomics) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry atomics(.param .u64 counter, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 4 .u32 scount;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  st.shared.u32 [scount], 0;
SKIP:
  bar.sync 0;
  atom.shared.add.u32 %r2, [scount], 1;
  bar.sync 0;
  ld.shared.u32 %r3, [scount];
  atom.global.add.u32 %r4, [%rd1], 1;
  red.global.max.u32 [%rd1+4], %r1;
  atom.global.cas.b32 %r5, [%rd1+8], %r1, 7;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ntid.x;
  mad.lo.u32 %r6, %r6, %r7, %r1;
  mul.wide.u32 %rd3, %r6, 8;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v2.u32 [%rd4], {%r4, %r3};
  ret;
}
)"),
                                "atomics.ptx");
  const int blocks = 3, threads = 96, n = blocks * threads;
  DevicePtr counter = rt.malloc(12), out = rt.malloc(n * 8);
  rt.memset(counter, 0, 12);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "atomics"), Dim3(blocks), Dim3(threads), 0, KernelArgs().add(counter).add(out)),
            Error::Success);
  auto c = rt.download<std::uint32_t>(counter, 3);
  EXPECT_EQ(c[0], std::uint32_t(n));
  EXPECT_EQ(c[1], std::uint32_t(threads - 1));
  EXPECT_EQ(c[2], 7u);  // thread 0 of block 0 swapped 0 -> 7; nobody else matched
  auto got = rt.download<std::uint32_t>(out, 2 * n);
  std::vector<std::uint32_t> olds;
  for (int t = 0; t < n; ++t) {
    olds.push_back(got[2 * t]);
    EXPECT_EQ(got[2 * t + 1], std::uint32_t(threads)) << t;
  }
  std::sort(olds.begin(), olds.end());
  for (int t = 0; t < n; ++t) EXPECT_EQ(olds[t], std::uint32_t(t));
}

TEST(Simt, LocalMemoryThroughLocalAndGenericAddresses) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry localarr(.param .u64 out)
{
  .local .align 4 .b8 depot[64];
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd5, [out];
  mov.u64 %rd1, depot;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
L:
  setp.ge.u32 %p1, %r2, 16;
  @%p1 bra D;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  mul.lo.u32 %r3, %r2, %r1;
  st.local.u32 [%rd3], %r3;
  add.u32 %r2, %r2, 1;
  bra.uni L;
D:
  cvta.local.u64 %rd4, %rd1;
  ld.u32 %r4, [%rd4+60];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd5, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)"),
                                "local.ptx");
  DevicePtr out = rt.malloc(64 * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "localarr"), Dim3(1), Dim3(64), 0, KernelArgs().add(out)), Error::Success);
  auto got = rt.download<std::uint32_t>(out, 64);
  for (std::uint32_t t = 0; t < 64; ++t) EXPECT_EQ(got[t], 15 * t) << t;
}

TEST(Simt, ParameterCountAndSizeAreChecked) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(".visible .entry k(.param .u64 a, .param .u32 b)\n{\n  ret;\n}\n"), "k.ptx");
  auto& f = rt.getFunction(m, "k");
  EXPECT_THROW(rt.launch(f, Dim3(1), Dim3(1), 0, KernelArgs().add(DevicePtr(0))), driver::RuntimeError);
  EXPECT_THROW(rt.launch(f, Dim3(1), Dim3(1), 0, KernelArgs().add(DevicePtr(0)).add(DevicePtr(0))),
               driver::RuntimeError);
  EXPECT_EQ(rt.launch(f, Dim3(1), Dim3(1), 0, KernelArgs().add(DevicePtr(0)).add(1u)), Error::Success);
  EXPECT_EQ(rt.launch(f, Dim3(1), Dim3(2048), 0, KernelArgs().add(DevicePtr(0)).add(1u)),
            Error::InvalidConfiguration);
}

// ---- load-time errors ----------------------------------------------------------------------

void expectLoadError(const std::string& body, unsigned line, const std::string& needle) {
  Runtime rt;
  try {
    rt.loadModuleString(ptx(body), "bad.ptx");
    FAIL() << "expected a load error containing '" << needle << "'";
  } catch (const ptx::ParseError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.ptx:" + std::to_string(line) + ":"), std::string::npos) << e.what();
  }
}

TEST(Decode, UnsupportedInstructionsRefuseTheirKernelAtLaunchAndTheOthersRun) {
  // Valid PTX the core does not implement (a cube-map texture fetch, a performance-monitor event, a setmaxnreg in a
  // called function) loads; the kernel that uses it is refused at
  // launch with every such instruction and its place, and the module's other kernel runs.
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.func helper(.param .b64 p)
{
  .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [p];
  setmaxnreg.inc.sync.aligned.u32 240;
  ret;
}
.visible .entry uses(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b16 %rs<2>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  tld4.r.cube.v4.f32.f32 {%f0,%f1,%f2,%f3}, [%rd1, {%f0,%f1,%f2,%f3}];
  pmevent 1;
  { .param .b64 a; st.param.b64 [a], %rd1; call.uni helper, (a); }
  ret;
}
.visible .entry plain(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 42;
  st.global.u32 [%rd2], %r1;
  ret;
}
)"), "mixed.ptx");
  const DevicePtr out = rt.malloc(4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "plain"), Dim3(1), Dim3(1), 0, KernelArgs().add(out)), Error::Success);
  EXPECT_EQ(rt.download<std::uint32_t>(out, 1)[0], 42u);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "uses"), Dim3(1), Dim3(32), 0, KernelArgs().add(out)),
            Error::InvalidConfiguration);
  const std::string why = rt.lastLaunchError();
  EXPECT_NE(why.find("3 PTX instructions that scgpu does not implement"), std::string::npos) << why;
  for (const char* place : {"mixed.ptx:19:3: 'tld4.r.cube.v4.f32.f32'", "mixed.ptx:20:3: 'pmevent'",
                            "mixed.ptx:9:3: 'setmaxnreg.inc.sync.aligned.u32'"})
    EXPECT_NE(why.find(place), std::string::npos) << place << " in " << why;
}

TEST(Schedule, LoadsWhoseAddressArithmeticFollowsAnFmaStillGoFirst) {
  // nvcc's unrolled dot-product body: ld b; ld a; fma; add (next b's address); ld b; ld a; fma.
  // The second pair's address add sits behind the first fma, which waits for the first pair; ptxas
  // issues all four loads before either fma (validation/heldout sgemm_naive's SASS: 32 LDG ahead of
  // their FFMAs). An IEEE division (a branch to a slow path in SASS) keeps its place: the load after
  // it stays there. What every thread computes is the PTX order's.
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
  .reg .f32 %f<12>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  mov.f32 %f1, 0f00000000;
  ld.global.f32 %f2, [%rd8];
  ld.global.f32 %f3, [%rd9];
  fma.rn.f32 %f4, %f2, %f3, %f1;
  add.s64 %rd10, %rd8, 128;
  ld.global.f32 %f5, [%rd10];
  ld.global.f32 %f6, [%rd9+4];
  fma.rn.f32 %f7, %f5, %f6, %f4;
  div.rn.f32 %f8, %f7, %f2;
  add.s64 %rd11, %rd9, 8;
  ld.global.f32 %f9, [%rd11];
  add.f32 %f10, %f8, %f9;
  add.s64 %rd11, %rd6, %rd7;
  st.global.f32 [%rd11], %f10;
  ret;
}
)"), "hoist.ptx");
  const ptx::Program& p = rt.getFunction(m, "k").timingProgram();
  std::vector<std::string> order;
  for (std::uint32_t pc = 0; pc < p.code.size(); ++pc)
    if (p.text[pc].rfind("ld.global", 0) == 0 || p.text[pc].rfind("fma", 0) == 0 || p.text[pc].rfind("div", 0) == 0)
      order.push_back(p.text[pc]);
  const std::vector<std::string> want = {"ld.global.f32", "ld.global.f32", "ld.global.f32", "ld.global.f32",
                                         "fma.rn.f32",    "fma.rn.f32",    "div.rn.f32",    "ld.global.f32"};
  EXPECT_EQ(order, want);
  std::vector<float> a(64), b(64);
  for (std::uint32_t i = 0; i < 64; ++i) a[i] = 1.0f + float(i), b[i] = 0.5f * float(i) - 3.0f;
  const DevicePtr da = rt.upload(a), db = rt.upload(b), dc = rt.malloc(32 * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "k"), Dim3(1), Dim3(32), 0, KernelArgs().add(da).add(db).add(dc)),
            Error::Success);
  const auto got = rt.download<float>(dc, 32);
  for (std::uint32_t i = 0; i < 32; ++i) {
    const float f4 = std::fma(a[i], b[i], 0.0f), f7 = std::fma(a[i + 32], b[i + 1], f4);
    EXPECT_EQ(got[i], f7 / a[i] + b[i + 2]) << i;
  }
}

TEST(Schedule, GlobalLoadsMoveUpAndSharedStoresDownAsPtxasSchedulesThem) {
  // ld A; st.shared A; (address of B); ld B; st.shared B  ->  ld A; (address of B); ld B; st; st:
  // the second load no longer waits behind the first load's store (the timing model's order,
  // ptx/schedule.h). A global load never passes a global store it may alias (not .nc), and what
  // every thread computes stays the same (functional mode runs the PTX order).
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
  .shared .align 4 .b8 s[256];
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd4, %rd7;
  ld.global.nc.u32 %r5, [%rd8];
  st.shared.u32 [%r4], %r5;
  add.s64 %rd9, %rd5, %rd7;
  ld.global.nc.u32 %r6, [%rd9];
  st.shared.u32 [%r4+128], %r6;
  st.global.u32 [%rd9], %r1;
  ld.global.u32 %r7, [%rd9];
  bar.sync 0;
  ld.shared.u32 %r8, [%r4];
  ld.shared.u32 %r9, [%r4+128];
  add.s32 %r10, %r8, %r9;
  add.s32 %r11, %r10, %r7;
  add.s64 %rd9, %rd6, %rd7;
  st.global.u32 [%rd9], %r11;
  ret;
}
)"), "order.ptx");
  const ptx::Program& p = rt.getFunction(m, "k").timingProgram();
  std::vector<std::string> order;
  for (std::uint32_t pc = 0; pc < p.code.size(); ++pc)
    if (p.text[pc].rfind("ld.global", 0) == 0 || p.text[pc].rfind("st.", 0) == 0 || p.text[pc] == "add.s64")
      order.push_back(p.text[pc]);
  const std::vector<std::string> want = {"add.s64", "ld.global.nc.u32", "add.s64", "ld.global.nc.u32",
                                         "st.shared.u32", "st.shared.u32", "st.global.u32", "ld.global.u32",
                                         "add.s64", "st.global.u32"};
  EXPECT_EQ(order, want);
  std::vector<std::uint32_t> a(32), b(32);
  for (std::uint32_t i = 0; i < 32; ++i) a[i] = 1000 + i, b[i] = 5000 + 7 * i;
  const DevicePtr da = rt.upload(a), db = rt.upload(b), dc = rt.malloc(32 * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "k"), Dim3(1), Dim3(32), 0, KernelArgs().add(da).add(db).add(dc)),
            Error::Success);
  const auto got = rt.download<std::uint32_t>(dc, 32);
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(got[i], a[i] + b[i] + i) << i;  // the load after the store reads i
}

TEST(Decode, PackedConversionsTakeTwoSources) {
  // cvt to a packed pair converts two f32 sources, the first into the upper half (PTX ISA,
  // "cvt"). 1.5 and -2.25 are exact in binary16 (0x3E00, 0xC080) and bfloat16 (0x3FC0, 0xC010);
  // .relu makes the negative half +0.
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry pk(.param .u64 p, .param .f32 a, .param .f32 b)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.f32 %f1, [a];
  ld.param.f32 %f2, [b];
  cvt.rn.f16x2.f32 %r1, %f1, %f2;
  cvt.rn.bf16x2.f32 %r2, %f1, %f2;
  cvt.rn.relu.f16x2.f32 %r3, %f1, %f2;
  st.global.u32 [%rd2], %r1;
  st.global.u32 [%rd2+4], %r2;
  st.global.u32 [%rd2+8], %r3;
  ret;
}
)"), "pack.ptx");
  const DevicePtr out = rt.malloc(12);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "pk"), Dim3(1), Dim3(1), 0, KernelArgs().add(out).add(1.5f).add(-2.25f)),
            Error::Success);
  const auto got = rt.download<std::uint32_t>(out, 3);
  EXPECT_EQ(got[0], 0x3E00C080u);
  EXPECT_EQ(got[1], 0x3FC0C010u);
  EXPECT_EQ(got[2], 0x3E000000u);
}

TEST(Decode, ClusterAndEnvironmentRegistersOfALaunchWithoutClusters) {
  // Without cluster dimensions every block is a cluster of one: rank 0 of 1, cluster id = block
  // id, cluster count = grid; the driver sets no %envreg (0).
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(R"(
.visible .entry cl(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd3, %r1, 20;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mov.u32 %r4, %clusterid.x;
  mov.u32 %r5, %nclusterid.x;
  mov.u32 %r6, %envreg3;
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd4+4], %r3;
  st.global.u32 [%rd4+8], %r4;
  st.global.u32 [%rd4+12], %r5;
  st.global.u32 [%rd4+16], %r6;
  ret;
}
)"), "cl.ptx");
  const DevicePtr out = rt.malloc(3 * 20);
  rt.memset(out, 0xFF, 3 * 20);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "cl"), Dim3(3), Dim3(1), 0, KernelArgs().add(out)), Error::Success);
  const auto got = rt.download<std::uint32_t>(out, 15);
  for (std::uint32_t b = 0; b < 3; ++b) {
    EXPECT_EQ(got[5 * b + 0], 0u) << "rank, block " << b;
    EXPECT_EQ(got[5 * b + 1], 1u) << "ranks";
    EXPECT_EQ(got[5 * b + 2], b) << "cluster id";
    EXPECT_EQ(got[5 * b + 3], 3u) << "clusters";
    EXPECT_EQ(got[5 * b + 4], 0u) << "envreg";
  }
}

TEST(Decode, AnUnknownInstructionIsStillALoadError) {
  expectLoadError(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  addd.s32 %r1, %r2, %r3;\n  ret;\n}\n", 7, "addd");
}

TEST(Decode, UndeclaredRegisterAndUndefinedLabel) {
  expectLoadError(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  add.s32 %r1, %r2, %q9;\n  ret;\n}\n", 7,
                  "undeclared register '%q9'");
  expectLoadError(".visible .entry k()\n{\n  bra.uni NOWHERE;\n  ret;\n}\n", 6, "undefined label 'NOWHERE'");
}

TEST(Decode, WrongOperandCount) {
  expectLoadError(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  add.s32 %r1, %r2;\n  ret;\n}\n", 7,
                  "takes 3 operands");
}

TEST(Decode, CallToUndefinedFunction) {
  expectLoadError(".extern .func foo();\n.visible .entry k()\n{\n  call.uni foo;\n  ret;\n}\n", 7,
                  "never defined");
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

TEST(CpAsync, CopiesWithZeroFillAndGroupsDecode) {
  // cp.async copies src-size bytes and zero-fills the rest of cp-size; commit/wait groups decode
  // (their timing: the timing tests). Lane i copies 16 bytes of word i with src-size (i % 17).
  driver::Runtime rt;
  auto& m = rt.loadModuleString(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .shared .align 16 .b8 s[512];
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd3, %rd5;
  rem.u32 %r5, %r1, 17;
  cp.async.cg.shared.global [%r4], [%rd6], 16, %r5;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4];
  add.s64 %rd7, %rd4, %rd5;
  st.global.v4.u32 [%rd7], {%r6, %r7, %r8, %r9};
  ret;
}
)", "cp.ptx");
  std::vector<std::uint8_t> in(32 * 16);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::uint8_t(i * 7 + 1);
  const driver::DevicePtr din = rt.upload(in), dout = rt.malloc(in.size());
  ASSERT_EQ(rt.launch(rt.getFunction(m, "k"), driver::Dim3(1), driver::Dim3(32), 0,
                      driver::KernelArgs().add(din).add(dout)),
            driver::Error::Success);
  const auto got = rt.download<std::uint8_t>(dout, in.size());
  for (std::size_t lane = 0; lane < 32; ++lane)
    for (std::size_t b = 0; b < 16; ++b)
      EXPECT_EQ(got[lane * 16 + b], b < lane % 17 ? in[lane * 16 + b] : 0) << lane << " " << b;
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

// mbarrier: 64 threads arrive on a barrier initialised for 64 and spin on try_wait until their
// phase completes, then read what the others wrote before arriving; a second barrier's phase
// also waits for its transaction bytes (arrive.expect_tx by thread 0, complete_tx by thread 32),
// observed with the parity form. Runs in both modes (the timing model spins on the integer pipe).
const char* kMbarrierPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pout)
{
  .shared .align 8 .b64 bar[2];
  .shared .align 4 .b32 data[64];
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r2], 64;
  mbarrier.init.shared::cta.b64 [%r2+8], 1;
$INIT_DONE:
  bar.sync 0;
  mov.u32 %r3, data;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  add.s32 %r6, %r1, 1;
  st.shared.u32 [%r5], %r6;
  mbarrier.arrive.release.cta.shared::cta.b64 %rd3, [%r2];
$WAIT:
  mbarrier.try_wait.shared::cta.b64 %p2, [%r2], %rd3;
  @!%p2 bra $WAIT;
  add.s32 %r7, %r1, 1;
  and.b32 %r8, %r7, 63;
  shl.b32 %r9, %r8, 2;
  add.s32 %r10, %r3, %r9;
  ld.shared.u32 %r11, [%r10];
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5], %r11;
  // the transaction barrier: phase 0 completes when thread 0 has arrived and 16 bytes are done
  @%p1 bra $NOT0;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2+8], 16;
$NOT0:
  setp.ne.u32 %p3, %r1, 32;
  @%p3 bra $WAIT2;
  mbarrier.complete_tx.shared::cta.b64 [%r2+8], 16;
$WAIT2:
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2+8], 0;
  @!%p2 bra $WAIT2;
  st.global.u32 [%rd5+256], %r6;
  ret;
}
)";

void checkMbarrier(driver::Runtime& rt) {
  auto& m = rt.loadModuleString(kMbarrierPtx, "mbar.ptx");
  const driver::DevicePtr out = rt.malloc(128 * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "k"), driver::Dim3(1), driver::Dim3(64), 0, driver::KernelArgs().add(out)),
            driver::Error::Success)
      << rt.lastLaunchError();
  const auto got = rt.download<std::uint32_t>(out, 128);
  for (std::uint32_t t = 0; t < 64; ++t) {
    EXPECT_EQ(got[t], (t + 1) % 64 + 1) << t;
    EXPECT_EQ(got[64 + t], t + 1) << t;
  }
}

TEST(Mbarrier, ArrivalsAndTransactionsCompleteAPhaseFunctional) {
  driver::Runtime rt;
  checkMbarrier(rt);
}

TEST(Mbarrier, ArrivalsAndTransactionsCompleteAPhaseTiming) {
  driver::Runtime rt(GpuConfig::load(GpuConfig::resolve("hopper")), driver::Mode::Timing);
  checkMbarrier(rt);
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

// FP8 pair conversions against hand-encoded values (e4m3: bias 7, largest 448 = 0x7E, NaN 0x7F;
// e5m2: bias 15, largest finite 57344 = 0x7B): rounding to nearest even (ties 1.0625 -> 1.0,
// 1.1875 -> 1.25, 2^-10 -> 0, 3 x 2^-10 -> 2^-8), saturation of large values and infinities,
// NaN, relu, and the exact way back to f16x2.
TEST(Convert, Fp8PairsRoundSaturateAndComeBack) {
  driver::Runtime rt;
  auto& m = rt.loadModuleString(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .b16 %rs<4>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.f32 %f1, [%rd6];
  ld.global.f32 %f2, [%rd6+4];
  cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;
  cvt.rn.satfinite.e5m2x2.f32 %rs2, %f1, %f2;
  cvt.rn.satfinite.relu.e4m3x2.f32 %rs3, %f1, %f2;
  cvt.rn.f16x2.e4m3x2 %r2, %rs1;
  mul.wide.u32 %rd5, %r1, 12;
  add.s64 %rd7, %rd4, %rd5;
  st.global.u16 [%rd7], %rs1;
  st.global.u16 [%rd7+2], %rs2;
  st.global.u16 [%rd7+4], %rs3;
  st.global.u32 [%rd7+8], %r2;
  ret;
}
)", "fp8.ptx");
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {1.0f,    -0.5f,   500.0f, -1e9f, inf,    nan,       1.0625f, 1.1875f,
                                 0x1p-10f, 0x3p-10f, 57344.0f, -inf};
  struct Want { std::uint16_t e4, e5, e4relu; std::uint32_t back; };
  const Want want[] = {
      {0x38B0, 0x3CB8, 0x3800, 0x3C00B800},  // 1.0, -0.5
      {0x7EFE, 0x60FB, 0x7E00, 0x5F00DF00},  // 500 -> 448 (e5m2: 512), -1e9 -> -448 (e5m2: -57344)
      {0x7E7F, 0x7B7F, 0x7E7F, 0x5F007FFF},  // inf -> largest finite, NaN -> 0x7F (f16: 0x7FFF)
      {0x383A, 0x3C3D, 0x383A, 0x3C003D00},  // ties to even: 1.0625 -> 1.0, 1.1875 -> 1.25
      {0x0002, 0x141A, 0x0002, 0x00001C00},  // e4m3 subnormals: 2^-10 -> 0, 3 x 2^-10 -> 2^-8
      {0x7EFE, 0x7BFB, 0x7E00, 0x5F00DF00},  // 57344, -inf
  };
  const driver::DevicePtr din = rt.upload(in), dout = rt.malloc(6 * 12);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "k"), driver::Dim3(1), driver::Dim3(6), 0, driver::KernelArgs().add(din).add(dout)),
            driver::Error::Success);
  const auto got = rt.download<std::uint8_t>(dout, 6 * 12);
  for (int t = 0; t < 6; ++t) {
    std::uint16_t e4, e5, e4r;
    std::uint32_t back;
    std::memcpy(&e4, &got[t * 12], 2);
    std::memcpy(&e5, &got[t * 12 + 2], 2);
    std::memcpy(&e4r, &got[t * 12 + 4], 2);
    std::memcpy(&back, &got[t * 12 + 8], 4);
    EXPECT_EQ(e4, want[t].e4) << t;
    EXPECT_EQ(e5, want[t].e5) << t;
    EXPECT_EQ(e4r, want[t].e4relu) << t;
    EXPECT_EQ(back, want[t].back) << t;
  }
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

// stmatrix is ldmatrix's inverse (the same fragment layout, checked against the H100 for ldmatrix
// in tensor_test.cpp): each lane's four registers stored with stmatrix.x4 (.trans) and loaded back
// with ldmatrix.x4 (.trans) from the same row addresses come back unchanged, and the rows in shared
// memory hold the fragment where ldmatrix's layout puts it.
TEST(Matrix, StmatrixIsTheInverseOfLdmatrix) {
  driver::Runtime rt;
  auto& m = rt.loadModuleString(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pout)
{
  .shared .align 16 .b8 s[512];
  .reg .b32 %r<24>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  // lane l gives row l of the 32 rows of 16 bytes (matrix l / 8, row l % 8)
  shl.b32 %r3, %r1, 4;
  add.s32 %r4, %r2, %r3;
  mad.lo.u32 %r5, %r1, 4, 1000;
  add.u32 %r6, %r5, 1;
  add.u32 %r7, %r5, 2;
  add.u32 %r8, %r5, 3;
  stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r4], {%r5, %r6, %r7, %r8};
  bar.sync 0;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r9, %r10, %r11, %r12}, [%r4];
  bar.sync 0;
  stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r4], {%r5, %r6, %r7, %r8};
  bar.sync 0;
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r13, %r14, %r15, %r16}, [%r4];
  ld.shared.u32 %r17, [%r3];
  mul.wide.u32 %rd3, %r1, 48;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v4.u32 [%rd4], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd4+16], {%r13, %r14, %r15, %r16};
  st.global.u32 [%rd4+32], %r17;
  ret;
}
)", "stm.ptx");
  const driver::DevicePtr out = rt.malloc(32 * 48);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "k"), driver::Dim3(1), driver::Dim3(32), 0, driver::KernelArgs().add(out)),
            driver::Error::Success)
      << rt.lastLaunchError();
  const auto got = rt.download<std::uint32_t>(out, 32 * 12);
  for (std::uint32_t l = 0; l < 32; ++l)
    for (std::uint32_t j = 0; j < 4; ++j) {
      const std::uint32_t want = 1000 + 4 * l + j;
      EXPECT_EQ(got[l * 12 + j], want) << "lane " << l << " register " << j;
      EXPECT_EQ(got[l * 12 + 4 + j], want) << "lane " << l << " register " << j << " (.trans)";
    }
  // After the .trans store, matrix 0's row 0 holds column 0 of the fragment: element (c, 0) of
  // matrix 0 is held by lane 4c (its low half), so the first word is {lane 4's, lane 0's} low halves.
  EXPECT_EQ(got[0 * 12 + 8], ((1000u + 16) & 0xFFFFu) << 16 | ((1000u + 0) & 0xFFFFu));
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

// Malformed matrix, cp.async and mbarrier text is a load error at its place (like any malformed
// PTX), while a valid form scgpu does not implement only refuses its kernel at launch.
TEST(Decode, MalformedMatrixAndAsyncInstructionsAreLoadErrors) {
  const std::string head = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
                           "  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<4>;\n";
  const char* malformed[] = {
      "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};\n",
      "  cp.async.ca.shared.global [%r1], [%rd1], 3;\n",
      "  mbarrier.arrive.shared.b64 %rd1;\n",
      "  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1,%r2}, [%r3];\n",
  };
  for (const char* line : malformed) {
    driver::Runtime rt;
    try {
      rt.loadModuleString(head + line + "  ret;\n}\n", "bad.ptx");
      ADD_FAILURE() << "loaded: " << line;
    } catch (const ptx::ParseError& e) {
      EXPECT_EQ(e.line(), 9u) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.ptx:9:"), std::string::npos) << e.what();
    }
  }
  driver::Runtime rt;  // a valid form not implemented: loads, the launch is refused
  auto& m = rt.loadModuleString(head + "  mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, "
                                       "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};\n  ret;\n}\n",
                                "valid.ptx");
  EXPECT_EQ(rt.launch(rt.getFunction(m, "k"), driver::Dim3(1), driver::Dim3(32), 0, driver::KernelArgs()),
            driver::Error::InvalidConfiguration);
}

}  // namespace
}  // namespace scgpu
