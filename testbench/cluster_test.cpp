// Thread-block clusters (sm_90), in functional and timing mode: the %cluster_* special registers,
// distributed shared memory (mapa, ld/st/atom.shared::cluster and generic pointers to another
// block's shared memory), the cluster barrier, the launch's cluster dimensions (launch argument
// or .reqnctapercluster) and the refusals of bad ones. Expectations are computed here on the CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "driver/module.h"
#include "driver/runtime.h"
#include "tlm/gpu_config.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Mode;
using driver::Runtime;

const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

// Every block writes its cluster registers: out[block * 8 + k] for ctarank, nctarank,
// cluster_ctaid.x/.y, cluster_nctaid.x, clusterid.x/.y, nclusterid.y.
const char* kRegs = R"(
.visible .entry regs(.param .u64 out) {
  .reg .b32 %r<20>; .reg .b64 %rd<6>; .reg .pred %p;
  mov.u32 %r1, %tid.x; setp.ne.u32 %p, %r1, 0; @%p bra DONE;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ctaid.y; mov.u32 %r4, %nctaid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mul.wide.u32 %rd2, %r5, 32; add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r10, %cluster_ctarank; st.global.u32 [%rd3], %r10;
  mov.u32 %r11, %cluster_nctarank; st.global.u32 [%rd3+4], %r11;
  mov.u32 %r12, %cluster_ctaid.x; st.global.u32 [%rd3+8], %r12;
  mov.u32 %r13, %cluster_ctaid.y; st.global.u32 [%rd3+12], %r13;
  mov.u32 %r14, %cluster_nctaid.x; st.global.u32 [%rd3+16], %r14;
  mov.u32 %r15, %clusterid.x; st.global.u32 [%rd3+20], %r15;
  mov.u32 %r16, %clusterid.y; st.global.u32 [%rd3+24], %r16;
  mov.u32 %r17, %nclusterid.y; st.global.u32 [%rd3+28], %r17;
DONE:
  ret;
}
)";

// Each block fills its shared array with in[block * 64 + t]; after the cluster barrier, thread t
// of every block reads word t of the NEXT rank's array (mapa + ld.shared::cluster) and word t of
// the previous rank's (mapa.u64 on a generic address + ld), adds both to its own, and writes the
// sum; then it adds its rank + 1 into rank 0's `total` (atom.shared::cluster); after a second
// barrier rank 0 writes total. A third barrier keeps every block's shared memory alive until the
// others are done with it.
const char* kDsmem = R"(
.visible .entry neighbours(.param .u64 in, .param .u64 out, .param .u64 totals) {
  .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<4>;
  .shared .align 4 .b32 arr[64];
  .shared .align 4 .b32 total;
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [totals];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd4, %r4, 4; add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r5, [%rd5];
  mov.u32 %r6, arr; shl.b32 %r7, %r1, 2; add.u32 %r8, %r6, %r7;
  st.shared.u32 [%r8], %r5;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra FILLED;
  mov.u32 %r30, 0; st.shared.u32 [total], %r30;
FILLED:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  mov.u32 %r10, %cluster_ctarank; mov.u32 %r11, %cluster_nctarank;
  add.u32 %r12, %r10, 1; rem.u32 %r12, %r12, %r11;
  add.u32 %r13, %r10, %r11; sub.u32 %r13, %r13, 1; rem.u32 %r13, %r13, %r11;
  mapa.shared::cluster.u32 %r14, %r8, %r12;
  ld.shared::cluster.u32 %r15, [%r14];
  cvta.shared.u64 %rd6, arr; cvt.u64.u32 %rd7, %r7; add.s64 %rd8, %rd6, %rd7;
  mapa.u64 %rd9, %rd8, %r13;
  ld.u32 %r16, [%rd9];
  add.u32 %r17, %r5, %r15; add.u32 %r17, %r17, %r16;
  add.s64 %rd10, %rd2, %rd4;
  st.global.u32 [%rd10], %r17;
  mov.u32 %r18, total;
  mov.u32 %r19, 0;
  mapa.shared::cluster.u32 %r20, %r18, %r19;
  @%p1 bra ADDED;
  add.u32 %r25, %r10, 1;
  atom.shared::cluster.add.u32 %r21, [%r20], %r25;
  getctarank.shared::cluster.u32 %r22, %r20;
  setp.ne.u32 %p2, %r22, 0;
  @%p2 trap;
ADDED:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  setp.ne.u32 %p3, %r10, 0;
  or.pred %p3, %p3, %p1;
  @%p3 bra DONE;
  ld.shared.u32 %r23, [total];
  mov.u32 %r24, %clusterid.x;
  mul.wide.u32 %rd11, %r24, 4; add.s64 %rd12, %rd3, %rd11;
  st.global.u32 [%rd12], %r23;
DONE:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";

// Clusters of 2 blocks stacked in y (rank = %cluster_ctaid.y): thread 0 of each block writes
// the linear id of its partner block (rank ^ 1), read from the partner's shared memory after the
// cluster barrier; a last barrier keeps both alive until both have read.
const char* kPairs = R"(
.visible .entry pairs(.param .u64 out) {
  .reg .b32 %r<20>; .reg .b64 %rd<6>; .reg .pred %p;
  .shared .align 4 .b32 mine;
  mov.u32 %r1, %tid.x; setp.ne.u32 %p, %r1, 0;
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ctaid.y; mov.u32 %r4, %nctaid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  @!%p st.shared.u32 [mine], %r5;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  @%p bra DONE;
  mov.u32 %r6, %cluster_ctarank; xor.b32 %r7, %r6, 1;
  mov.u32 %r8, mine; mapa.shared::cluster.u32 %r9, %r8, %r7;
  ld.shared::cluster.u32 %r10, [%r9];
  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r5, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
DONE:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";

class Cluster : public ::testing::TestWithParam<Mode> {
 protected:
  Runtime rt{GpuConfig::load(GpuConfig::resolve("hopper")), GetParam()};
};

TEST_P(Cluster, SpecialRegistersDescribeTheBlocksPlaceInItsCluster) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kRegs, "regs.ptx");
  const std::uint32_t gx = 4, gy = 6, cx = 2, cy = 3;
  DevicePtr out = rt.malloc(gx * gy * 32);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "regs"), Dim3(gx, gy), Dim3(32), 0, KernelArgs().add(out), Dim3(cx, cy, 1)),
            Error::Success);
  const auto got = rt.download<std::uint32_t>(out, gx * gy * 8);
  for (std::uint32_t y = 0; y < gy; ++y)
    for (std::uint32_t x = 0; x < gx; ++x) {
      const std::uint32_t* r = &got[(y * gx + x) * 8];
      EXPECT_EQ(r[0], x % cx + (y % cy) * cx) << x << "," << y;
      EXPECT_EQ(r[1], cx * cy);
      EXPECT_EQ(r[2], x % cx);
      EXPECT_EQ(r[3], y % cy);
      EXPECT_EQ(r[4], cx);
      EXPECT_EQ(r[5], x / cx);
      EXPECT_EQ(r[6], y / cy);
      EXPECT_EQ(r[7], gy / cy);
    }
}

TEST_P(Cluster, BlocksReadAndUpdateEachOthersSharedMemory) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kDsmem, "dsmem.ptx");
  for (std::uint32_t c : {1u, 2u, 4u, 8u}) {
    const std::uint32_t blocks = 16, threads = 64;
    std::vector<std::uint32_t> in(blocks * threads);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::uint32_t(i * 2654435761u >> 8);
    DevicePtr din = rt.upload(in), dout = rt.malloc(in.size() * 4), dtot = rt.malloc(blocks / c * 4);
    ASSERT_EQ(rt.launch(rt.getFunction(m, "neighbours"), Dim3(blocks), Dim3(threads), 0,
                        KernelArgs().add(din).add(dout).add(dtot), Dim3(c, 1, 1)),
              Error::Success)
        << rt.lastLaunchError() << " cluster " << c;
    const auto out = rt.download<std::uint32_t>(dout, in.size());
    const auto tot = rt.download<std::uint32_t>(dtot, blocks / c);
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const std::uint32_t base = b / c * c, rank = b % c;
      const std::uint32_t next = base + (rank + 1) % c, prev = base + (rank + c - 1) % c;
      for (std::uint32_t t = 0; t < threads; ++t)
        ASSERT_EQ(out[b * threads + t], in[b * threads + t] + in[next * threads + t] + in[prev * threads + t])
            << "cluster " << c << " block " << b << " thread " << t;
    }
    for (std::uint32_t k = 0; k < blocks / c; ++k) EXPECT_EQ(tot[k], c * (c + 1) / 2) << "cluster " << c;
  }
}

// More blocks than the GPU holds at once (2 blocks of 1024 threads per SM: 264 on hopper), in
// clusters whose blocks are a row apart in linear order: the blocks of a cluster must start
// together, or the first row fills the GPU and waits at the barrier for blocks that cannot start.
TEST_P(Cluster, ClustersTallerThanARowRunWhenTheGridExceedsTheGpu) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kPairs, "pairs.ptx");
  const std::uint32_t gx = 300, gy = 2;
  DevicePtr out = rt.malloc(gx * gy * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "pairs"), Dim3(gx, gy), Dim3(1024), 0, KernelArgs().add(out), Dim3(1, 2, 1)),
            Error::Success)
      << rt.lastLaunchError();
  const auto got = rt.download<std::uint32_t>(out, gx * gy);
  for (std::uint32_t y = 0; y < gy; ++y)
    for (std::uint32_t x = 0; x < gx; ++x) ASSERT_EQ(got[y * gx + x], (y ^ 1) * gx + x) << x << "," << y;
}

TEST_P(Cluster, TheKernelsReqnctaperclusterIsTheDefault) {
  std::string src = std::string(kHeader) + kRegs;
  src.replace(src.find("(.param .u64 out) {"), 19, "(.param .u64 out) .reqnctapercluster 2, 1, 1 {");
  auto& m = rt.loadModuleString(src, "regs.ptx");
  DevicePtr out = rt.malloc(4 * 32);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "regs"), Dim3(4), Dim3(32), 0, KernelArgs().add(out)), Error::Success);
  const auto got = rt.download<std::uint32_t>(out, 4 * 8);
  for (std::uint32_t b = 0; b < 4; ++b) {
    EXPECT_EQ(got[b * 8 + 0], b % 2);
    EXPECT_EQ(got[b * 8 + 1], 2u);
  }
}

TEST_P(Cluster, BadClusterDimensionsAreRefusedWithTheReason) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kRegs, "regs.ptx");
  DevicePtr out = rt.malloc(64 * 32);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "regs"), Dim3(6), Dim3(32), 0, KernelArgs().add(out), Dim3(4, 1, 1)),
            Error::InvalidConfiguration);
  EXPECT_NE(rt.lastLaunchError().find("divide the grid"), std::string::npos) << rt.lastLaunchError();
  EXPECT_EQ(rt.launch(rt.getFunction(m, "regs"), Dim3(64), Dim3(32), 0, KernelArgs().add(out), Dim3(32, 1, 1)),
            Error::InvalidConfiguration);
  EXPECT_NE(rt.lastLaunchError().find("maximum of 16"), std::string::npos) << rt.lastLaunchError();
}

INSTANTIATE_TEST_SUITE_P(Modes, Cluster, ::testing::Values(Mode::Functional, Mode::Timing),
                         [](const auto& info) { return info.param == Mode::Functional ? "Functional" : "Timing"; });

}  // namespace
}  // namespace scgpu
