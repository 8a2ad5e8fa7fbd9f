// Bulk asynchronous copies (sm_90, the TMA unit), in functional and timing mode: cp.async.bulk
// between global and shared memory with mbarrier and bulk-group completion, cp.reduce.async.bulk,
// and tiled tensor copies (cp.async.bulk.tensor) through a tensor map passed as a __grid_constant__
// parameter: out-of-bound fills, the shared-memory swizzles, element strides, stores that clip at
// the tensor's edge, reductions; faults on a bad tensor map and a misaligned size. Expectations are
// computed here on the CPU from the PTX ISA's and CUDA's descriptions.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "driver/module.h"
#include "driver/runtime.h"
#include "sm/tensor_map.h"
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

// Each block copies 1024 floats of `in` into shared memory (mbarrier completion), adds 1 to each,
// and copies them back to `out` (bulk group); then it adds the same shared array into `sum` with
// cp.reduce.async.bulk.add.f32. Thread 0 writes the cycles it waited on the mbarrier to clk[block].
const char* kBulk = R"(
.visible .entry bulk(.param .u64 in, .param .u64 out, .param .u64 sum, .param .u64 clk) {
  .reg .b32 %r<30>; .reg .b64 %rd<20>; .reg .f32 %f<4>; .reg .pred %p<4>;
  .shared .align 128 .b8 buf[4096];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [sum]; ld.param.u64 %rd4, [clk];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
  mul.wide.u32 %rd5, %r2, 4096;
  add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5;
  mov.u32 %r3, bar; mov.u32 %r4, buf; mov.u32 %r5, 4096;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra WAITALL;
  mov.u32 %r6, 1;
  mbarrier.init.shared.b64 [%r3], %r6;
  fence.proxy.async.shared::cta;
  mov.u32 %r20, %clock;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd6], %r5, [%r3];
  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd8, [%r3], %r5;
SPIN:
  mbarrier.try_wait.shared.b64 %p2, [%r3], %rd8;
  @!%p2 bra SPIN;
  mov.u32 %r21, %clock;
  sub.u32 %r22, %r21, %r20;
  mul.wide.u32 %rd9, %r2, 4; add.s64 %rd10, %rd4, %rd9;
  st.global.u32 [%rd10], %r22;
WAITALL:
  bar.sync 0;
  mov.u32 %r7, %r1;
ADD:
  setp.ge.u32 %p3, %r7, 1024;
  @%p3 bra ADDED;
  shl.b32 %r8, %r7, 2; add.u32 %r9, %r4, %r8;
  ld.shared.f32 %f1, [%r9]; add.f32 %f1, %f1, 0f3F800000; st.shared.f32 [%r9], %f1;
  add.u32 %r7, %r7, 128;
  bra ADD;
ADDED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 bra DONE;
  cp.async.bulk.global.shared::cta.bulk_group [%rd7], [%r4], %r5;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd3], [%r4], %r5;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
DONE:
  ret;
}
)";

// Thread 0 loads a box of the 2-D tensor map at (x0, y0) into `tile` (1024-byte aligned); then the
// block copies the tile's raw bytes to `out` (so that the test sees the swizzled layout), and thread 0
// stores the tile back through `store_map` at (sx, sy) and reduces it (add) through `red_map` at (sx, sy).
const char* kTile = R"(
.visible .entry tile2d(.param .align 64 .b8 tmap[128], .param .align 64 .b8 store_map[128],
                       .param .align 64 .b8 red_map[128], .param .u64 out, .param .s32 x0, .param .s32 y0,
                       .param .u32 bytes, .param .s32 sx, .param .s32 sy) {
  .reg .b32 %r<30>; .reg .b64 %rd<20>; .reg .pred %p<4>;
  .shared .align 1024 .b8 tile[16384];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  ld.param.s32 %r2, [x0]; ld.param.s32 %r3, [y0]; ld.param.u32 %r4, [bytes];
  ld.param.s32 %r12, [sx]; ld.param.s32 %r13, [sy];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, bar; mov.u32 %r7, tile;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra LOADED;
  mov.u32 %r6, 1;
  mbarrier.init.shared.b64 [%r5], %r6;
  fence.proxy.async.shared::cta;
  mov.b64 %rd2, tmap; cvta.param.u64 %rd3, %rd2;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r7], [%rd3, {%r2, %r3}], [%r5];
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r5], %r4;
SPIN:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;
  @!%p2 bra SPIN;
LOADED:
  bar.sync 0;
  shr.u32 %r8, %r4, 2;
  mov.u32 %r9, %r1;
COPY:
  setp.ge.u32 %p3, %r9, %r8;
  @%p3 bra COPIED;
  shl.b32 %r10, %r9, 2; add.u32 %r11, %r7, %r10;
  ld.shared.u32 %r14, [%r11];
  mul.wide.u32 %rd5, %r10, 1; add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r14;
  add.u32 %r9, %r9, 128;
  bra COPY;
COPIED:
  @%p1 bra DONE;
  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [store_map, {%r12, %r13}], [%r7];
  cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [red_map, {%r12, %r13}], [%r7];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
DONE:
  ret;
}
)";

// A copy of 40 bytes (not a multiple of 16): a misaligned-address fault.
const char* kBadSize = R"(
.visible .entry badsize(.param .u64 in) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  .shared .align 128 .b8 buf[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [in];
  mov.u32 %r1, bar; mov.u32 %r2, buf; mov.u32 %r3, 40; mov.u32 %r4, 1;
  mbarrier.init.shared.b64 [%r1], %r4;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], %r3, [%r1];
  ret;
}
)";

// A 3-d tensor load with element strides and a 3-d im2col load, each started by thread 0 and then
// waited for and copied out of shared memory as it lies there by every thread (kWaitAndCopyOut),
// and an im2col store (not implemented: refused at launch).
const std::string kWaitAndCopyOut = R"(  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r5], %r4;
SPIN:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;
  @!%p2 bra SPIN;
LOADED:
  bar.sync 0;
  shr.u32 %r8, %r4, 2;
  mov.u32 %r9, %r1;
COPY:
  setp.ge.u32 %p3, %r9, %r8;
  @%p3 bra DONE;
  shl.b32 %r10, %r9, 2; add.u32 %r11, %r7, %r10;
  ld.shared.u32 %r14, [%r11];
  mul.wide.u32 %rd5, %r10, 1; add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r14;
  add.u32 %r9, %r9, 128;
  bra COPY;
DONE:
  ret;
}
)";
const std::string kStrided = R"(
.visible .entry strided3d(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 bytes) {
  .reg .b32 %r<30>; .reg .b64 %rd<20>; .reg .pred %p<4>;
  .shared .align 128 .b8 tile[8192];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r4, [bytes];
  mov.u32 %r1, %tid.x; mov.u32 %r5, bar; mov.u32 %r7, tile;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra LOADED;
  mov.u32 %r6, 1; mov.u32 %r20, 1; mov.u32 %r21, 0; mov.u32 %r22, -1;
  mbarrier.init.shared.b64 [%r5], %r6;
  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r7], [tmap, {%r21, %r20, %r22}], [%r5];
)" + kWaitAndCopyOut + R"(.visible .entry im2col3d(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 bytes, .param .u32 w,
                         .param .u16 offset) {
  .reg .b32 %r<30>; .reg .b64 %rd<20>; .reg .pred %p<4>; .reg .b16 %h<4>;
  .shared .align 128 .b8 tile[8192];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r4, [bytes]; ld.param.u32 %r20, [w]; ld.param.u16 %h1, [offset];
  mov.u32 %r1, %tid.x; mov.u32 %r5, bar; mov.u32 %r7, tile;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra LOADED;
  mov.u32 %r6, 1; mov.u32 %r21, 0;
  mbarrier.init.shared.b64 [%r5], %r6;
  cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r7], [tmap, {%r21, %r20, %r21}], [%r5], {%h1};
)" + kWaitAndCopyOut + R"(.visible .entry im2colstore(.param .align 64 .b8 tmap[128]) {
  .reg .b32 %r<8>;
  .shared .align 128 .b8 tile[8192];
  mov.u32 %r2, tile; mov.u32 %r3, 0;
  cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [tmap, {%r3, %r3, %r3}], [%r2];
  ret;
}
)";

std::vector<std::uint8_t> mapBytes(const sm::TensorMap& m) {
  EXPECT_EQ(sm::checkTensorMap(m), "");
  std::vector<std::uint8_t> b(sm::kTensorMapBytes);
  sm::encodeTensorMap(m, b.data());
  return b;
}

sm::TensorMap map2d(DevicePtr base, sm::TmaType type, std::uint64_t w, std::uint64_t h, std::uint64_t pitch_bytes,
                    std::uint32_t bw, std::uint32_t bh, sm::TmaSwizzle swizzle) {
  sm::TensorMap m;
  m.global_address = base;
  m.rank = 2;
  m.type = type;
  m.swizzle = swizzle;
  m.size[0] = w;
  m.size[1] = h;
  m.stride_bytes[0] = sm::tmaTypeBytes(type);
  m.stride_bytes[1] = pitch_bytes;
  m.box[0] = bw;
  m.box[1] = bh;
  return m;
}

// The swizzles as CUDA describes them: 16-byte chunk c of 128-byte row r of a span goes to chunk
// c ^ (r mod (span / 16)).
std::uint32_t swizzled(std::uint32_t offset, sm::TmaSwizzle s) {
  const std::uint32_t chunks = s == sm::TmaSwizzle::B32 ? 2 : s == sm::TmaSwizzle::B64 ? 4 : s == sm::TmaSwizzle::B128 ? 8 : 1;
  const std::uint32_t row = offset / 128, chunk = (offset / 16) % 8;
  return (offset & ~0x70u) | (((chunk ^ (row % chunks)) & 7) << 4);
}

class BulkCopy : public ::testing::TestWithParam<Mode> {
 protected:
  Runtime rt{GpuConfig::load(GpuConfig::resolve("hopper")), GetParam()};
};

TEST_P(BulkCopy, CopiesInAndOutOfSharedMemoryAndReducesIntoGlobal) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kBulk, "bulk.ptx");
  const std::uint32_t blocks = 4;
  std::vector<float> in(blocks * 1024), sum(1024);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(int(i * 7919 % 1000) - 500) * 0.25f;
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = float(i);
  DevicePtr din = rt.upload(in), dout = rt.malloc(in.size() * 4), dsum = rt.upload(sum), dclk = rt.malloc(blocks * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "bulk"), Dim3(blocks), Dim3(128), 0, KernelArgs().add(din).add(dout).add(dsum).add(dclk)),
            Error::Success)
      << rt.lastLaunchError() << (rt.lastFault() ? rt.lastFault()->toString() : "");
  const auto out = rt.download<float>(dout, in.size());
  const auto got_sum = rt.download<float>(dsum, 1024);
  for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i] + 1.0f) << i;
  for (std::size_t i = 0; i < 1024; ++i) {
    float expect = float(i);  // the blocks' adds in block order (each is exact: quarters below 2^20)
    for (std::uint32_t b = 0; b < blocks; ++b) expect += in[b * 1024 + i] + 1.0f;
    ASSERT_EQ(got_sum[i], expect) << i;
  }
  if (GetParam() == Mode::Timing) {
    // The wait covers a trip to memory and back (an L2 hit alone is over 200 core cycles on hopper).
    const auto clk = rt.download<std::uint32_t>(dclk, blocks);
    for (std::uint32_t b = 0; b < blocks; ++b) EXPECT_GT(clk[b], 200u) << "block " << b;
  }
}

TEST_P(BulkCopy, TensorTilesFillOutOfBoundsSwizzleStoreClippedAndReduce) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kTile, "tile.ptx");
  // A 100 x 70 tensor of u32 with a pitch of 512 bytes; boxes 32 high, their rows as wide as the swizzle allows.
  const std::uint32_t W = 100, H = 70, pitch = 512;
  std::vector<std::uint32_t> src(pitch / 4 * H);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint32_t(i * 2654435761u + 17);
  const std::vector<std::uint32_t> dst0(src.size(), 0x55555555), red0 = src;
  for (sm::TmaSwizzle sw : {sm::TmaSwizzle::None, sm::TmaSwizzle::B32, sm::TmaSwizzle::B64, sm::TmaSwizzle::B128}) {
    // The swizzles allow a box row of at most their span.
    const std::uint32_t bw = sw == sm::TmaSwizzle::B32 ? 8 : sw == sm::TmaSwizzle::B64 ? 16 : 32, bh = 32;
    for (auto [x0, y0] : {std::pair<int, int>{-8, -4}, {60, 50}, {8, 1}}) {
      DevicePtr dsrc = rt.upload(src), ddst = rt.upload(dst0), dred = rt.upload(red0);
      const std::uint32_t bytes = bw * bh * 4;
      DevicePtr dout = rt.malloc(bytes);
      const auto load = mapBytes(map2d(dsrc, sm::TmaType::U32, W, H, pitch, bw, bh, sw));
      const auto store = mapBytes(map2d(ddst, sm::TmaType::U32, W, H, pitch, bw, bh, sw));
      const auto red = mapBytes(map2d(dred, sm::TmaType::U32, W, H, pitch, bw, bh, sw));
      // Stores and reductions go to (x0 + 3 * 8, y0 + 5): a different place, partly outside too.
      const int sx = x0 + 24, sy = y0 + 5;
      ASSERT_EQ(rt.launch(rt.getFunction(m, "tile2d"), Dim3(1), Dim3(128), 0,
                          KernelArgs()
                              .addBytes(load.data(), load.size())
                              .addBytes(store.data(), store.size())
                              .addBytes(red.data(), red.size())
                              .add(dout).add(x0).add(y0).add(bytes).add(sx).add(sy)),
                Error::Success)
          << rt.lastLaunchError() << (rt.lastFault() ? rt.lastFault()->toString() : "");
      const auto raw = rt.download<std::uint8_t>(dout, bytes);
      std::vector<std::uint32_t> box(bw * bh);
      for (std::uint32_t j = 0; j < bh; ++j)
        for (std::uint32_t i = 0; i < bw; ++i) {
          const int x = x0 + int(i), y = y0 + int(j);
          const std::uint32_t expect = x >= 0 && y >= 0 && x < int(W) && y < int(H) ? src[y * pitch / 4 + x] : 0;
          const std::uint32_t at = swizzled((j * bw + i) * 4, sw);
          std::uint32_t got;
          std::memcpy(&got, &raw[at], 4);
          ASSERT_EQ(got, expect) << "swizzle " << int(sw) << " box at " << x0 << "," << y0 << " element " << i << "," << j;
          box[j * bw + i] = expect;
        }
      const auto stored = rt.download<std::uint32_t>(ddst, src.size());
      const auto reduced = rt.download<std::uint32_t>(dred, src.size());
      for (std::uint32_t y = 0; y < H; ++y)
        for (std::uint32_t x = 0; x < pitch / 4; ++x) {
          const int i = int(x) - sx, j = int(y) - sy;
          const bool in_box = x < W && i >= 0 && j >= 0 && i < int(bw) && j < int(bh);
          const std::size_t k = y * pitch / 4 + x;
          ASSERT_EQ(stored[k], in_box ? box[j * bw + i] : 0x55555555u) << "store at " << x << "," << y;
          ASSERT_EQ(reduced[k], in_box ? src[k] + box[j * bw + i] : src[k]) << "reduce at " << x << "," << y;
        }
    }
  }
}

TEST_P(BulkCopy, ElementStridesSkipElementsOfOuterDimensions) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kStrided, "strided.ptx");
  // A 16 x 10 x 6 tensor of u32 (planes 1024 bytes apart), box 8 x 6 x 5 with element strides
  // 1, 2, 2: 8 x 3 x 3 elements from (0, 1, -1).
  std::vector<std::uint32_t> src(16 * 16 * 6);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint32_t(i * 2654435761u);
  DevicePtr dsrc = rt.upload(src);
  sm::TensorMap t;
  t.global_address = dsrc;
  t.rank = 3;
  t.type = sm::TmaType::U32;
  t.size[0] = 16, t.size[1] = 10, t.size[2] = 6;
  t.stride_bytes[0] = 4, t.stride_bytes[1] = 64, t.stride_bytes[2] = 1024;
  t.box[0] = 8, t.box[1] = 6, t.box[2] = 5;
  t.element_stride[1] = 2, t.element_stride[2] = 2;
  const auto map = mapBytes(t);
  const std::uint32_t bytes = 8 * 3 * 3 * 4;
  ASSERT_EQ(t.boxBytes(), bytes);
  DevicePtr dout = rt.malloc(bytes);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "strided3d"), Dim3(1), Dim3(128), 0,
                      KernelArgs().addBytes(map.data(), map.size()).add(dout).add(bytes)),
            Error::Success)
      << rt.lastLaunchError() << (rt.lastFault() ? rt.lastFault()->toString() : "");
  const auto got = rt.download<std::uint32_t>(dout, bytes / 4);
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 8; ++i) {
        const int y = 1 + 2 * j, z = -1 + 2 * k;
        const std::uint32_t expect = z >= 0 && y < 10 ? src[z * 256 + y * 16 + i] : 0;
        ASSERT_EQ(got[(k * 3 + j) * 8 + i], expect) << i << "," << j << "," << k;
      }
}

TEST_P(BulkCopy, ASizeNotAMultipleOf16Faults) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kBadSize, "badsize.ptx");
  DevicePtr din = rt.malloc(256);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "badsize"), Dim3(1), Dim3(32), 0, KernelArgs().add(din)), Error::MisalignedAddress);
  ASSERT_TRUE(rt.lastFault());
  EXPECT_EQ(rt.lastFault()->kind, "misaligned address");
  EXPECT_NE(rt.lastFault()->message.find("40 bytes"), std::string::npos) << rt.lastFault()->message;
  EXPECT_EQ(rt.lastFault()->kernel, "badsize");
}

TEST_P(BulkCopy, BytesNoEncoderWroteAreNotATensorMap) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kStrided, "strided.ptx");
  std::vector<std::uint8_t> junk(128, 0xAB);
  DevicePtr dout = rt.malloc(4096);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "strided3d"), Dim3(1), Dim3(32), 0,
                      KernelArgs().addBytes(junk.data(), junk.size()).add(dout).add(std::uint32_t(64))),
            Error::IllegalInstruction);
  ASSERT_TRUE(rt.lastFault());
  EXPECT_NE(rt.lastFault()->message.find("not a tensor map"), std::string::npos) << rt.lastFault()->message;
  EXPECT_NE(rt.lastFault()->instruction.find("cp.async.bulk.tensor"), std::string::npos);
}

// An NWC tensor (8 channels of u32, W = 9, 2 images) with the bounding box of a 3-wide filter and
// padding 2 (lower -2, upper -2: base positions -2 .. 6): 20 pixels from w = -2 with im2col offset 3
// run over image 0's 9 base positions, then image 1's, then two of image 2, which does not exist.
// The elements are at base + 3; outside the tensor they read as zero. (The same rules the H200
// follows in cuda_programs/api/tma_im2col.)
TEST_P(BulkCopy, Im2colLoadsWalkTheBoundingBoxPixelByPixel) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kStrided, "strided.ptx");
  constexpr int kC = 8, kW = 9, kN = 2, kPixels = 20;
  std::vector<std::uint32_t> src(kC * kW * kN);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint32_t(i * 2654435761u) | 1u;
  DevicePtr dsrc = rt.upload(src);
  sm::TensorMap t;
  t.global_address = dsrc;
  t.rank = 3;
  t.type = sm::TmaType::U32;
  t.im2col = true;
  t.size[0] = kC, t.size[1] = kW, t.size[2] = kN;
  t.stride_bytes[0] = 4, t.stride_bytes[1] = kC * 4, t.stride_bytes[2] = kC * kW * 4;
  t.lower_corner[0] = -2, t.upper_corner[0] = -2;
  t.channels_per_pixel = kC, t.pixels_per_column = kPixels;
  const auto map = mapBytes(t);
  const std::uint32_t bytes = kC * kPixels * 4;
  ASSERT_EQ(t.boxBytes(), bytes);
  DevicePtr dout = rt.malloc(bytes);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "im2col3d"), Dim3(1), Dim3(128), 0,
                      KernelArgs().addBytes(map.data(), map.size()).add(dout).add(bytes).add(std::int32_t(-2)).add(std::uint16_t(3))),
            Error::Success)
      << rt.lastLaunchError() << (rt.lastFault() ? rt.lastFault()->toString() : "");
  const auto got = rt.download<std::uint32_t>(dout, bytes / 4);
  for (int p = 0; p < kPixels; ++p) {
    const int image = p / 9, w = -2 + p % 9 + 3;  // nine base positions an image
    for (int ch = 0; ch < kC; ++ch) {
      const bool inside = image < kN && w >= 0 && w < kW;
      ASSERT_EQ(got[p * kC + ch], inside ? src[(image * kW + w) * kC + ch] : 0u) << "pixel " << p << " channel " << ch;
    }
  }
  // The same map in a .tile copy is an illegal instruction.
  EXPECT_EQ(rt.launch(rt.getFunction(m, "strided3d"), Dim3(1), Dim3(32), 0,
                      KernelArgs().addBytes(map.data(), map.size()).add(dout).add(bytes)),
            Error::IllegalInstruction);
  ASSERT_TRUE(rt.lastFault());
  EXPECT_NE(rt.lastFault()->message.find("im2col tensor map"), std::string::npos) << rt.lastFault()->message;
}

TEST_P(BulkCopy, Im2colStoresAreRefusedAtLaunchWithTheirPlace) {
  auto& m = rt.loadModuleString(std::string(kHeader) + kStrided, "strided.ptx");
  std::vector<std::uint8_t> map(128, 0);
  EXPECT_NE(rt.launch(rt.getFunction(m, "im2colstore"), Dim3(1), Dim3(32), 0, KernelArgs().addBytes(map.data(), map.size())),
            Error::Success);
  EXPECT_NE(rt.lastLaunchError().find("strided.ptx:"), std::string::npos) << rt.lastLaunchError();
  EXPECT_NE(rt.lastLaunchError().find("im2col"), std::string::npos) << rt.lastLaunchError();
}

TEST(TensorMap, EncoderRefusesWhatCudaRefuses) {
  sm::TensorMap m = map2d(0x7000'0000'0000ull, sm::TmaType::F32, 100, 100, 400, 32, 8, sm::TmaSwizzle::B128);
  EXPECT_EQ(sm::checkTensorMap(m), "");
  auto bad = m;
  bad.swizzle = sm::TmaSwizzle::B64;  // 128-byte rows do not fit a 64-byte span
  EXPECT_NE(sm::checkTensorMap(bad).find("swizzle"), std::string::npos);
  bad = m;
  bad.stride_bytes[1] = 404;
  EXPECT_NE(sm::checkTensorMap(bad).find("globalStrides"), std::string::npos);
  bad = m;
  bad.box[0] = 3;  // 12 bytes
  EXPECT_NE(sm::checkTensorMap(bad).find("multiple of 16"), std::string::npos);
  bad = m;
  bad.box[1] = 257;
  EXPECT_NE(sm::checkTensorMap(bad).find("boxDim[1]"), std::string::npos);
  bad = m;
  bad.global_address += 8;
  EXPECT_NE(sm::checkTensorMap(bad).find("global address"), std::string::npos);
  // What is written reads back the same.
  std::uint8_t bytes[sm::kTensorMapBytes];
  sm::encodeTensorMap(m, bytes);
  sm::TensorMap back;
  std::string why;
  ASSERT_TRUE(sm::decodeTensorMap(bytes, back, &why)) << why;
  EXPECT_EQ(back.global_address, m.global_address);
  EXPECT_EQ(back.size[1], 100u);
  EXPECT_EQ(back.stride_bytes[1], 400u);
  EXPECT_EQ(back.box[0], 32u);
  EXPECT_EQ(back.swizzle, sm::TmaSwizzle::B128);
  EXPECT_EQ(back.boxBytes(), 32u * 8 * 4);
}

// The boxes scripts/h100/tma_probe.cu loaded on an H100 (docs/data/h100_tma_probe.txt: every
// word of shared memory after the copy), loaded again on the model by the same kernel
// (validation/micro/tma_micro.ptx, tma_box_dump) through the same tensor maps: swizzles (a 128-byte
// swizzle with 64-byte rows too), out-of-bound zeros and NaNs, element strides.
TEST(TmaVsH100, BoxesLandInSharedMemoryWordForWord) {
  std::ifstream f(std::string(SCGPU_SOURCE_DIR) + "/docs/data/h100_tma_probe.txt");
  ASSERT_TRUE(f.good());
  std::map<std::string, std::vector<std::uint32_t>> silicon;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("case ", 0) != 0) continue;
    std::istringstream h(line.substr(5));
    std::string name;
    std::size_t words = 0;
    h >> name >> words;
    std::vector<std::uint32_t>& v = silicon[name];
    while (v.size() < words && f >> std::hex >> v.emplace_back()) {
    }
    ASSERT_EQ(v.size(), words) << name;
  }
  ASSERT_EQ(silicon.size(), 17u);

  Runtime rt{GpuConfig::load(GpuConfig::resolve("hopper")), Mode::Functional};
  auto& m = rt.loadModuleFile(std::string(SCGPU_SOURCE_DIR) + "/validation/micro/tma_micro.ptx");
  std::vector<std::uint32_t> src(512 / 4 * 70), t3(16 * 16 * 6);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint32_t(i * 2654435761u + 17);
  for (std::size_t i = 0; i < t3.size(); ++i) t3[i] = std::uint32_t(i * 2654435761u);
  const DevicePtr dsrc = rt.upload(src), dt3 = rt.upload(t3), dout = rt.malloc(16384);
  std::size_t compared = 0;
  for (const auto& [name, want] : silicon) {
    sm::TensorMap t;
    int x = 0, y = 0, z = 0;
    if (name == "u32_3d_estride_at_0_1_-1") {
      t.global_address = dt3;
      t.rank = 3;
      t.type = sm::TmaType::U32;
      t.size[0] = 16, t.size[1] = 10, t.size[2] = 6;
      t.stride_bytes[0] = 4, t.stride_bytes[1] = 64, t.stride_bytes[2] = 1024;
      t.box[0] = 8, t.box[1] = 6, t.box[2] = 5;
      t.element_stride[1] = t.element_stride[2] = 2;
      y = 1, z = -1;
    } else {
      // u32_<swizzle>_bw<W>_at_<x>_<y> or f32_nanfill_at_<x>_<y>
      const bool nan = name.rfind("f32_nanfill", 0) == 0;
      sm::TmaSwizzle sw = sm::TmaSwizzle::None;
      if (name.find("_32B_") != std::string::npos) sw = sm::TmaSwizzle::B32;
      if (name.find("_64B_") != std::string::npos) sw = sm::TmaSwizzle::B64;
      if (name.find("_128B_") != std::string::npos) sw = sm::TmaSwizzle::B128;
      const std::size_t bw_at = name.find("_bw");
      const std::uint32_t bw = nan ? 32 : std::uint32_t(std::stoul(name.substr(bw_at + 3)));
      std::sscanf(name.c_str() + name.find("_at_") + 4, "%d_%d", &x, &y);
      t = map2d(dsrc, nan ? sm::TmaType::F32 : sm::TmaType::U32, 100, 70, 512, bw, 32, sw);
      t.oob_nan = nan;
    }
    const auto map = mapBytes(t);
    const std::uint32_t bytes = std::uint32_t(want.size() * 4);
    ASSERT_EQ(t.boxBytes(), bytes) << name;
    ASSERT_EQ(rt.launch(rt.getFunction(m, "tma_box_dump"), Dim3(1), Dim3(128), 0,
                        KernelArgs().addBytes(map.data(), map.size()).add(dout).add(int(t.rank)).add(x).add(y).add(z).add(bytes)),
              Error::Success)
        << name << ": " << rt.lastLaunchError() << (rt.lastFault() ? rt.lastFault()->toString() : "");
    const auto got = rt.download<std::uint32_t>(dout, want.size());
    // A 64-byte row under the 128-byte swizzle fills half of its 128-byte span; the other half kept
    // what an earlier launch left there on the H100 and is not compared. (The dump covers the first
    // `bytes` of shared memory: half of such a box.)
    const bool narrow = name.find("narrow") != std::string::npos;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const std::size_t row = i / 32, chunk = (i / 4) % 8;
      if (narrow && (chunk ^ (row % 8)) >= 4) continue;
      ASSERT_EQ(got[i], want[i]) << name << " word " << i;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 17u);
}

INSTANTIATE_TEST_SUITE_P(Modes, BulkCopy, ::testing::Values(Mode::Functional, Mode::Timing),
                         [](const auto& info) { return info.param == Mode::Functional ? "Functional" : "Timing"; });

}  // namespace
}  // namespace scgpu
