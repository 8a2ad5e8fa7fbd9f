// Cooperative launches (LAUNCH_DESC.GRID_SYNC_ADDR, scgpu_launch_cooperative): every block of the
// grid runs side by side and they synchronise through the bytes the kernel finds in %envreg1 and
// %envreg2, as cooperative groups' grid.sync() does; in functional and in timing mode. The kernel
// is what nvcc 13 emits for grid.sync() (its envreg read, null check with trap, and the
// arrive-and-spin on the barrier word), written out by hand. Without a cooperative launch the
// address reads 0 and the kernel traps, as on a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "driver/driver_internal.h"
#include "driver/inprocess_transport.h"
#include "driver/scgpu_driver.h"
#include "tlm/gpu_config.h"
#include "tlm/host/scgpu_regs.h"

namespace {

using scgpu::GpuConfig;
using scgpu::TraceOptions;
using scgpu::driver::InProcessTransport;
using scgpu::driver::Mode;

// Each block's thread 0 counts the block in, then the grid synchronises; after it, thread 0 reads
// the count (all blocks must have arrived) into seen[block].
const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry grid_count(.param .u64 counter, .param .u64 seen) {
  .reg .pred %p<6>; .reg .b32 %r<30>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [counter]; ld.param.u64 %rd4, [seen];
  mov.u32 %r3, %envreg2; cvt.u64.u32 %rd6, %r3;
  mov.u32 %r4, %envreg1; cvt.u64.u32 %rd7, %r4;
  bfi.b64 %rd2, %rd7, %rd6, 32, 32;
  mov.u32 %r1, %tid.x;
  setp.ne.s32 %p1, %r1, 0;
  @%p1 bra COUNTED;
  atom.global.add.u32 %r5, [%rd1], 1;
COUNTED:
  setp.ne.s64 %p2, %rd2, 0;
  @%p2 bra HAVE_BARRIER;
  trap;
HAVE_BARRIER:
  barrier.sync 0;
  @%p1 bra SYNCED;
  add.s64 %rd8, %rd2, 4;
  mov.u32 %r12, %nctaid.x;
  mov.u32 %r18, %ctaid.x;
  setp.eq.s32 %p4, %r18, 0;
  mov.u32 %r22, -2147483647;
  sub.s32 %r23, %r22, %r12;
  selp.b32 %r11, %r23, 1, %p4;
  atom.add.release.gpu.u32 %r10, [%rd8], %r11;
SPIN:
  ld.acquire.gpu.u32 %r24, [%rd8];
  xor.b32 %r25, %r24, %r10;
  setp.gt.s32 %p5, %r25, -1;
  @%p5 bra SPIN;
SYNCED:
  barrier.sync 0;
  @%p1 bra DONE;
  atom.global.add.u32 %r26, [%rd1], 0;
  mov.u32 %r27, %ctaid.x;
  mul.wide.u32 %rd9, %r27, 4;
  add.s64 %rd9, %rd4, %rd9;
  st.global.u32 [%rd9], %r26;
DONE:
  ret;
}
)";

class GridSync : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    auto t = std::make_unique<InProcessTransport>(GpuConfig::loadDefault(), GetParam(), TraceOptions{});
    ASSERT_EQ(scgpu_open_transport(std::move(t), &dev), SCGPU_SUCCESS) << scgpu_last_error(nullptr);
    ASSERT_EQ(scgpu_module_load(dev, kPtx, std::strlen(kPtx), &mod), SCGPU_SUCCESS) << scgpu_last_error(dev);
    ASSERT_EQ(scgpu_stream_create(dev, 0, &s), SCGPU_SUCCESS);
  }
  void TearDown() override { scgpu_close(dev); }
  scgpu_device* dev = nullptr;
  scgpu_module mod = 0;
  scgpu_stream* s = nullptr;
};

TEST_P(GridSync, EveryBlockSeesEveryOtherBlockAfterTheGridBarrier) {
  const std::uint32_t blocks = 6;
  scgpu_devptr counter = 0, seen = 0;
  ASSERT_EQ(scgpu_mem_alloc(dev, 4, &counter), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_mem_alloc(dev, 4 * blocks, &seen), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memset(dev, counter, 0, 4), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_memset(dev, seen, 0, 4 * blocks), SCGPU_SUCCESS);
  const std::uint64_t params[2] = {counter, seen};
  const std::uint32_t grid[3] = {blocks, 1, 1}, block[3] = {64, 1, 1};
  // Twice on one stream: the second launch gets fresh barrier bytes.
  for (int round = 1; round <= 2; ++round) {
    ASSERT_EQ(scgpu_launch_cooperative(s, mod, "grid_count", grid, block, 0, params, sizeof params), SCGPU_SUCCESS);
    ASSERT_EQ(scgpu_stream_synchronize(s), SCGPU_SUCCESS) << scgpu_last_error(dev);
    std::vector<std::uint32_t> got(blocks);
    ASSERT_EQ(scgpu_memcpy_dtoh(dev, got.data(), seen, 4 * blocks), SCGPU_SUCCESS);
    for (std::uint32_t b = 0; b < blocks; ++b) EXPECT_EQ(got[b], blocks * round) << "round " << round << " block " << b;
  }
}

TEST_P(GridSync, WithoutACooperativeLaunchTheKernelTraps) {
  scgpu_devptr counter = 0, seen = 0;
  ASSERT_EQ(scgpu_mem_alloc(dev, 4, &counter), SCGPU_SUCCESS);
  ASSERT_EQ(scgpu_mem_alloc(dev, 8, &seen), SCGPU_SUCCESS);
  const std::uint64_t params[2] = {counter, seen};
  const std::uint32_t grid[3] = {2, 1, 1}, block[3] = {32, 1, 1};
  ASSERT_EQ(scgpu_launch(s, mod, "grid_count", grid, block, 0, params, sizeof params), SCGPU_SUCCESS);
  EXPECT_EQ(scgpu_stream_synchronize(s), SCGPU_ERROR_FAULT);
  scgpu_error_info info;
  scgpu_error_info_get(dev, &info);
  EXPECT_EQ(info.kind, SCGPU_ERROR_KIND_TRAP);
}

INSTANTIATE_TEST_SUITE_P(Modes, GridSync, ::testing::Values(Mode::Functional, Mode::Timing),
                         [](const auto& info) { return info.param == Mode::Functional ? "functional" : "timing"; });

}  // namespace
