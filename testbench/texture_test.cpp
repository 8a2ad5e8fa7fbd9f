// Texture and surface objects: the texture unit's arithmetic against silicon (the probe's recorded
// results), and tex / tld4 / txq / suld / sust / suq in PTX against CPU references written here.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <algorithm>
#include <random>

#include "driver/runtime.h"
#include "driver/texture_objects.h"
#include "sm/exec/texture_sample.h"
#include "sm/texture_desc.h"
#include "tlm/gpu_config.h"

namespace scgpu {
namespace {

using sm::ChannelKind;
using sm::TexAddressMode;
using sm::TextureDesc;

// ---------------------------------------------------------------------------------------------
// Replaying docs/data/tex_probe/tex_probe.cu: the same textures and coordinates through the model's
// sampler, every result compared bit for bit with what the GPU returned.

using Probe = std::map<std::string, std::vector<std::array<std::uint32_t, 4>>>;

const Probe& probe() {
  static const Probe p = [] {
    Probe out;
    std::ifstream in(std::string(SCGPU_SOURCE_DIR) + "/docs/data/tex_probe/h200_tex_probe.txt");
    std::string name;
    int index;
    std::array<std::uint32_t, 4> v;
    while (in >> name >> index >> std::hex >> v[0] >> v[1] >> v[2] >> v[3] >> std::dec) {
      auto& list = out[name];
      if (std::size_t(index) != list.size()) break;  // a malformed file fails the tests below
      list.push_back(v);
    }
    return out;
  }();
  return p;
}

// A texture over host bytes at device address kBase.
struct HostTexture {
  static constexpr std::uint64_t kBase = 0x10000;
  std::vector<std::uint8_t> bytes;
  TextureDesc d;
  sm::TexelReadFn reader() const {
    return [this](std::uint64_t addr, std::uint32_t n, std::uint8_t* out) {
      ASSERT_GE(addr, kBase);
      ASSERT_LE(addr - kBase + n, bytes.size());
      std::memcpy(out, bytes.data() + (addr - kBase), n);
    };
  }
};

template <typename T>
HostTexture makeArray(const T* data, std::size_t count, ChannelKind kind, std::uint8_t bits, std::uint8_t channels,
                      std::uint32_t w, std::uint32_t h = 1, std::uint32_t depth = 1, std::uint8_t dims = 1) {
  HostTexture t;
  t.bytes.resize(count * sizeof(T));
  std::memcpy(t.bytes.data(), data, t.bytes.size());
  t.d.kind = kind;
  t.d.bits = bits;
  t.d.channels = channels;
  t.d.base = HostTexture::kBase;
  t.d.width = w;
  t.d.height = h;
  t.d.depth = depth;
  t.d.dims = dims;
  t.d.pitch = std::uint64_t(w) * t.d.texelBytes();
  t.d.slice_pitch = t.d.pitch * h;
  return t;
}

void configure(HostTexture& t, TexAddressMode m, bool linear, bool read_normalized, bool normalized_coords) {
  for (auto& a : t.d.addr) a = m;
  t.d.flags = std::uint8_t((linear ? sm::kTexLinearFilter : 0) | (read_normalized ? sm::kTexReadNormalized : 0) |
                           (normalized_coords ? sm::kTexNormalizedCoords : 0));
  ASSERT_EQ(TextureDesc::validate(t.d), "");
}

std::string hex4(const std::uint32_t* v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%08x %08x %08x %08x", v[0], v[1], v[2], v[3]);
  return buf;
}

// Compares one probe case: `sample(i)` gives the model's result for sample i.
template <typename F>
void expectProbe(const std::string& name, std::size_t count, F sample, std::size_t at_least = 0) {
  const auto it = probe().find(name);
  ASSERT_NE(it, probe().end()) << name << " is missing from h200_tex_probe.txt";
  ASSERT_EQ(it->second.size(), count) << name;
  std::size_t equal = 0;
  std::string first_diff;
  for (std::size_t i = 0; i < count; ++i) {
    const sm::TexResult r = sample(i);
    if (std::memcmp(r.v, it->second[i].data(), 16) == 0) {
      ++equal;
    } else if (first_diff.empty()) {
      first_diff = "sample " + std::to_string(i) + ": model " + hex4(r.v) + ", GPU " + hex4(it->second[i].data());
    }
  }
  if (at_least == 0) at_least = count;
  EXPECT_GE(equal, at_least) << name << ": " << equal << " of " << count << " equal; first difference at " << first_diff;
  if (equal < count)
    std::printf("%s: %zu of %zu equal to the GPU's bits; first difference at %s\n", name.c_str(), equal, count,
                first_diff.c_str());
}

sm::TexResult sample1(const HostTexture& t, float x) {
  sm::TexCoords c;
  c.dims = 1;
  c.f[0] = x;
  return sm::sampleTexture(t.d, c, t.reader());
}
sm::TexResult sample2(const HostTexture& t, float x, float y) {
  sm::TexCoords c;
  c.dims = 2;
  c.f[0] = x;
  c.f[1] = y;
  return sm::sampleTexture(t.d, c, t.reader());
}

const char* const kModeNames[4] = {"wrap", "clamp", "mirror", "border"};

TEST(TexVsGpu, LinearWeightsAre1Point8FixedPointRoundedToNearest) {
  const float v[4] = {0.0f, 1.0f, 0.0f, 1000.0f};
  HostTexture t = makeArray(v, 4, ChannelKind::Float, 32, 1, 4);
  configure(t, TexAddressMode::Clamp, true, false, false);
  expectProbe("lin1d_f32", 4097, [&](std::size_t k) { return sample1(t, 1.5f + float(k) / 4096.0f); });
  expectProbe("lin1d_f32_big", 4097, [&](std::size_t k) { return sample1(t, 2.5f + float(k) / 4096.0f); });
}

TEST(TexVsGpu, EveryAddressModeWithNormalizedAndUnnormalizedCoordinates) {
  const float v[4] = {0.0f, 1.0f, 0.0f, 1000.0f};
  for (int m = 0; m < 4; ++m) {
    for (int linear = 0; linear < 2; ++linear) {
      HostTexture t = makeArray(v, 4, ChannelKind::Float, 32, 1, 4);
      configure(t, TexAddressMode(m), linear, false, true);
      expectProbe(std::string("norm_") + (linear ? "linear_" : "point_") + kModeNames[m], 512, [&](std::size_t k) {
        return sample1(t, -2.0f + float(k) / 128.0f + 1.0f / 1024.0f);
      });
    }
    HostTexture u = makeArray(v, 4, ChannelKind::Float, 32, 1, 4);
    configure(u, TexAddressMode(m), true, false, false);
    expectProbe(std::string("unnorm_linear_") + kModeNames[m], 64,
                [&](std::size_t k) { return sample1(u, -6.0f + float(k) * 0.25f + 0.125f); });
  }
}

TEST(TexVsGpu, BilinearAndGathersOnNormalizedEightBitTexels) {
  const int W = 5, H = 3;
  unsigned char img[H][W][4];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c) img[y][x][c] = (unsigned char)((x * 53 + y * 101 + c * 67) * 7 % 256);
  auto xy = [](std::size_t k) {
    return std::pair<float, float>(-0.7f + float(k % 32) * 0.2137f, -0.4f + float(k / 32) * 0.1173f);
  };
  HostTexture t = makeArray(&img[0][0][0], sizeof img, ChannelKind::Unsigned, 8, 4, W, H, 1, 2);
  configure(t, TexAddressMode::Clamp, true, true, false);
  expectProbe("bilin_u8n_clamp", 1024, [&](std::size_t k) { auto [x, y] = xy(k); return sample2(t, x, y); });
  configure(t, TexAddressMode::Border, false, true, false);
  expectProbe("point_u8n_border", 1024, [&](std::size_t k) { auto [x, y] = xy(k); return sample2(t, x, y); });
  configure(t, TexAddressMode::Clamp, false, true, false);
  expectProbe("gather_r", 1024, [&](std::size_t k) {
    auto [x, y] = xy(k);
    return sm::gatherTexture(t.d, x, y, 0, 0, t.reader());
  });
  configure(t, TexAddressMode::Clamp, false, false, false);
  expectProbe("gather_g_elem", 1024, [&](std::size_t k) {
    auto [x, y] = xy(k);
    return sm::gatherTexture(t.d, x, y, 0, 1, t.reader());
  });
}

TEST(TexVsGpu, BilinearOnSigned16BitNormalizedAndHalfTexels) {
  const int W = 4, H = 4;
  short img[H][W][2];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      img[y][x][0] = (short)((x * 9000 - y * 7000) % 32768);
      img[y][x][1] = (short)(-32768 + x * 300 + y);
    }
  auto xy = [](std::size_t k) {
    return std::pair<float, float>(-0.3f + float(k % 16) * 0.3011f, -0.6f + float(k / 16) * 0.3333f);
  };
  HostTexture t = makeArray(&img[0][0][0], W * H * 2, ChannelKind::Signed, 16, 2, W, H, 1, 2);
  configure(t, TexAddressMode::Border, true, true, false);
  expectProbe("bilin_s16n_border", 256, [&](std::size_t k) { auto [x, y] = xy(k); return sample2(t, x, y); });
  unsigned short hv[H][W];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) hv[y][x] = (unsigned short)(0x3c00 + x * 0x155 + y * 0x301);
  HostTexture h = makeArray(&hv[0][0], W * H, ChannelKind::Float, 16, 1, W, H, 1, 2);
  configure(h, TexAddressMode::Wrap, true, false, true);
  expectProbe("bilin_f16_wrapnorm", 256, [&](std::size_t k) { auto [x, y] = xy(k); return sample2(h, x, y); });
}

TEST(TexVsGpu, TrilinearMatchesForMostSamples) {
  const int W = 3, H = 3, D = 3;
  float v[D][H][W];
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) v[z][y][x] = x * 1.5f + y * y * 3.25f - z * 7.0f + (x * y * z) * 0.1f;
  HostTexture t = makeArray(&v[0][0][0], W * H * D, ChannelKind::Float, 32, 1, W, H, D, 3);
  configure(t, TexAddressMode::Clamp, true, false, false);
  expectProbe("trilin_f32", 256, [&](std::size_t k) {
    sm::TexCoords c;
    c.dims = 3;
    c.f[0] = 0.1f + float(k % 8) * 0.377f;
    c.f[1] = 0.2f + float(k / 8 % 8) * 0.351f;
    c.f[2] = 0.05f + float(k / 64) * 0.91f;
    return sm::sampleTexture(t.d, c, t.reader());
  });  // every sample since the slices-first split (texture_sample.cpp; 228 of 256 with the products rule)
}

TEST(TexVsGpu, IntegerFetchesFromLinearMemoryReadZeroOutOfRangeAndMissingChannelsReadZero) {
  float v[16];
  for (int i = 0; i < 16; ++i) v[i] = float(i) + 0.5f;
  for (int m = 0; m < 2; ++m) {
    HostTexture t = makeArray(v, 16, ChannelKind::Float, 32, 2, 8);
    t.d.resource = sm::TexResource::Linear;
    configure(t, m ? TexAddressMode::Border : TexAddressMode::Clamp, false, false, false);
    expectProbe(m ? "fetch_linear_border" : "fetch_linear_clamp", 16, [&](std::size_t k) {
      sm::TexCoords c;
      c.integer = true;
      c.dims = 1;
      c.i[0] = std::int32_t(k) - 4;
      return sm::sampleTexture(t.d, c, t.reader());
    });
  }
  HostTexture a = makeArray(v, 16, ChannelKind::Float, 32, 1, 16);
  configure(a, TexAddressMode::Border, false, false, false);
  const float xs[4] = {0.5f, 3.5f, 20.0f, -3.0f};
  expectProbe("missing_channels_border", 4, [&](std::size_t k) { return sample1(a, xs[k]); });
}

// ---------------------------------------------------------------------------------------------
// PTX: tex / tld4 / txq / suld / sust / suq through the runtime, against references written here
// from the CUDA programming guide's formulas. Texel values are small integers, so that every
// filtered sum is exact in f32 whatever the order of its terms.

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Mode;
using driver::Runtime;

std::string ptxModule(const std::string& body) { return ".version 8.0\n.target sm_90\n.address_size 64\n" + body; }

const char* const kTexKernels = R"(
.visible .entry tex2d(.param .u64 tex, .param .u64 coords, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [coords];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r1, %r2, %r3, %r1;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v2.f32 {%f1, %f2}, [%rd5];
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.f32 [%rd7], {%f3, %f4, %f5, %f6};
  ret;
}
.visible .entry tld4(.param .u64 tex, .param .u64 coords, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [coords];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v2.f32 {%f1, %f2}, [%rd5];
  tld4.g.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.f32 [%rd7], {%f3, %f4, %f5, %f6};
  ret;
}
.visible .entry tex3d_layered(.param .u64 tex3, .param .u64 texa, .param .u64 coords, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [tex3];
  ld.param.u64 %rd8, [texa];
  ld.param.u64 %rd2, [coords];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
  tex.3d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f3}];
  cvt.rzi.u32.f32 %r2, %f4;
  tex.level.a2d.v4.f32.f32 {%f9, %f10, %f11, %f12}, [%rd8, {%r2, %f1, %f2, %f2}], 0f00000000;
  mul.wide.u32 %rd6, %r1, 32;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.f32 [%rd7], {%f5, %f6, %f7, %f8};
  st.global.v4.f32 [%rd7+16], {%f9, %f10, %f11, %f12};
  ret;
}
.visible .entry fetch1d(.param .u64 tex, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  sub.s32 %r2, %r1, 4;
  tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [%rd1, {%r2}];
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.u32 [%rd7], {%r3, %r4, %r5, %r6};
  ret;
}
.visible .entry query(.param .u64 tex, .param .u64 surf, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [surf];
  ld.param.u64 %rd3, [out];
  txq.width.b32 %r1, [%rd1];
  txq.height.b32 %r2, [%rd1];
  txq.depth.b32 %r3, [%rd1];
  txq.channel_data_type.b32 %r4, [%rd1];
  txq.channel_order.b32 %r5, [%rd1];
  txq.normalized_coords.b32 %r6, [%rd1];
  txq.filter_mode.b32 %r7, [%rd1];
  txq.addr_mode_0.b32 %r8, [%rd1];
  txq.addr_mode_1.b32 %r9, [%rd1];
  txq.addr_mode_2.b32 %r10, [%rd1];
  txq.num_mipmap_levels.b32 %r11, [%rd1];
  txq.num_samples.b32 %r12, [%rd1];
  suq.width.b32 %r13, [%rd2];
  suq.height.b32 %r14, [%rd2];
  suq.depth.b32 %r15, [%rd2];
  suq.channel_data_type.b32 %r16, [%rd2];
  suq.channel_order.b32 %r17, [%rd2];
  suq.array_size.b32 %r18, [%rd2];
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd3+48], {%r13, %r14, %r15, %r16};
  st.global.v2.u32 [%rd3+64], {%r17, %r18};
  ret;
}
)";

const char* const kSurfKernels = R"(
.visible .entry suld2d(.param .u64 surf, .param .u64 coords, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [surf];
  ld.param.u64 %rd2, [coords];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v2.u32 {%r2, %r3}, [%rd5];
  suld.b.2d.b32.clamp {%r4}, [%rd1, {%r2, %r3}];
  suld.b.2d.b32.zero {%r5}, [%rd1, {%r2, %r3}];
  add.s64 %rd7, %rd3, %rd4;
  st.global.v2.u32 [%rd7], {%r4, %r5};
  ret;
}
.visible .entry sust2d(.param .u64 surf, .param .u64 coords, .param .u32 zero)
{
  .reg .pred %p<2>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [surf];
  ld.param.u64 %rd2, [coords];
  ld.param.u32 %r6, [zero];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v2.u32 {%r2, %r3}, [%rd5];
  cvt.u16.u32 %rs1, %r1;
  add.u16 %rs2, %rs1, 1000;
  setp.ne.u32 %p1, %r6, 0;
  @%p1 sust.b.2d.v2.b16.zero [%rd1, {%r2, %r3}], {%rs1, %rs2};
  @!%p1 sust.b.2d.v2.b16.clamp [%rd1, {%r2, %r3}], {%rs1, %rs2};
  ret;
}
.visible .entry trap1d(.param .u64 surf, .param .u32 x)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [surf];
  ld.param.u32 %r1, [x];
  suld.b.1d.b32.trap {%r2}, [%rd1, {%r1}];
  ret;
}
.visible .entry roundtrip(.param .u64 s3, .param .u64 sa, .param .u64 s1, .param .u64 out)
{
  .reg .b16 %rs<8>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [s3];
  ld.param.u64 %rd2, [sa];
  ld.param.u64 %rd3, [s1];
  ld.param.u64 %rd4, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  shr.u32 %r3, %r1, 2;
  and.b32 %r4, %r3, 1;
  shr.u32 %r5, %r1, 3;
  suld.b.3d.b8.trap {%rs1}, [%rd1, {%r2, %r4, %r5, %r5}];
  add.u16 %rs2, %rs1, 7;
  sust.b.3d.b8.trap [%rd1, {%r2, %r4, %r5, %r5}], {%rs2};
  shl.b32 %r6, %r2, 2;
  cvt.u16.u32 %rs3, %r1;
  sust.b.a2d.v4.b8.trap [%rd2, {%r5, %r6, %r4, %r4}], {%rs3, %rs2, %rs1, %rs3};
  shl.b32 %r7, %r1, 3;
  suld.b.1d.b64.trap {%rd5}, [%rd3, {%r7}];
  add.s64 %rd6, %rd5, 1;
  sust.b.1d.b64.trap [%rd3, {%r7}], {%rd6};
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd4, %rd7;
  cvt.u32.u16 %r8, %rs1;
  st.global.u32 [%rd8], %r8;
  ret;
}
.visible .entry sustp(.param .u64 surf)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  mul.f32 %f2, %f1, 0f3EAAAAAB;
  ld.param.u64 %rd1, [surf];
  sust.p.1d.b32.trap [%rd1, {%r1}], {%f2};
  ret;
}
)";

// An array in device memory with its descriptor.
struct DeviceTexture {
  DevicePtr data = 0, handle = 0;
  sm::TextureDesc d;
};

DeviceTexture upload(Runtime& rt, const void* bytes, sm::TextureDesc d, std::uint32_t magic = sm::kTextureMagic) {
  DeviceTexture t;
  d.magic = magic;
  if (!d.pitch) d.pitch = std::uint64_t(d.width) * d.texelBytes();
  if (!d.slice_pitch) d.slice_pitch = d.pitch * d.height;
  const std::uint64_t size = d.slice_pitch * std::max<std::uint32_t>(d.depth, std::max<std::uint32_t>(d.layers, 1));
  t.data = rt.malloc(size);
  rt.memcpyHtoD(t.data, bytes, size);
  d.base = t.data;
  t.d = d;
  t.handle = driver::createTextureObject(rt, d);
  return t;
}

sm::TextureDesc desc(ChannelKind kind, std::uint8_t bits, std::uint8_t channels, std::uint32_t w, std::uint32_t h = 1,
                     std::uint32_t depth = 1, std::uint8_t dims = 2) {
  sm::TextureDesc d;
  d.kind = kind;
  d.bits = bits;
  d.channels = channels;
  d.width = w;
  d.height = h;
  d.depth = depth;
  d.dims = dims;
  return d;
}

// The guide's texture addressing of a texel index; -1 for the border.
long refIndex(long i, long n, TexAddressMode m, bool normalized) {
  if (!normalized && (m == TexAddressMode::Wrap || m == TexAddressMode::Mirror)) m = TexAddressMode::Clamp;
  if (m == TexAddressMode::Border) return (i < 0 || i >= n) ? -1 : i;
  if (m == TexAddressMode::Clamp) return i < 0 ? 0 : i >= n ? n - 1 : i;
  long r = i % n;
  if (r < 0) r += n;
  if (m == TexAddressMode::Wrap) return r;
  const long period = (i >= 0 ? i : -i - 1) / n;  // which copy of the texture: mirrored when odd
  const long k = i >= 0 ? i % n : (-i - 1) % n;
  const bool mirrored = period % 2 == 1;
  return mirrored ? n - 1 - k : k;
}

// tex2D of a one-channel float texture, as the programming guide defines it (weights in 1/256),
// with the rounding the H200 applies to the products of the two fractions (h200_tex_probe.txt):
// the weight of texel (i+1, j+1) is alpha * beta rounded to 1/256, the others keep the exact row
// and column totals.
float refTex2D(const std::vector<float>& img, long W, long H, TexAddressMode m, bool linear, bool norm, float x,
               float y) {
  const double u = norm ? double(x) * W : x, v = norm ? double(y) * H : y;
  auto T = [&](long i, long j) {
    const long a = refIndex(i, W, m, norm), b = refIndex(j, H, m, norm);
    return a < 0 || b < 0 ? 0.0 : double(img[std::size_t(b * W + a)]);
  };
  if (!linear) return float(T(long(std::floor(u)), long(std::floor(v))));
  const double xb = u - 0.5, yb = v - 0.5;
  long i = long(std::floor(xb)), j = long(std::floor(yb));
  const long A = long(std::floor((xb - i) * 256 + 0.5)), B = long(std::floor((yb - j) * 256 + 0.5));
  // A fraction of 256 is the next texel at fraction 0: same weights either way.
  const long w11 = long(std::floor(double(A * B) / 256 + 0.5)), w10 = A - w11, w01 = B - w11, w00 = 256 - A - B + w11;
  return float((w00 * T(i, j) + w10 * T(i + 1, j) + w01 * T(i, j + 1) + w11 * T(i + 1, j + 1)) / 256.0);
}

TEST(TexPtx, RefIndexMirrorsAsTheGuideSays) {
  // The reference's own mirror: ... 1 0 | 0 1 2 3 | 3 2 1 0 | 0 1 ...
  const long want[] = {1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1};
  for (long i = -2; i < 10; ++i) EXPECT_EQ(refIndex(i, 4, TexAddressMode::Mirror, true), want[i + 2]) << i;
}

class TexPtxModes : public ::testing::TestWithParam<std::tuple<int, bool, bool>> {};

TEST_P(TexPtxModes, FilteredFetchesEqualTheGuidesFormula) {
  const auto [mode, linear, norm] = GetParam();
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
  const long W = 7, H = 5;
  std::mt19937 rng(1234 + mode * 4 + linear * 2 + norm);
  std::vector<float> img(std::size_t(W * H));
  for (auto& v : img) v = float(int(rng() % 2001) - 1000);
  sm::TextureDesc d = desc(ChannelKind::Float, 32, 1, std::uint32_t(W), std::uint32_t(H));
  for (auto& a : d.addr) a = TexAddressMode(mode);
  d.flags = std::uint8_t((linear ? sm::kTexLinearFilter : 0) | (norm ? sm::kTexNormalizedCoords : 0));
  const DeviceTexture t = upload(rt, img.data(), d);
  const int n = 256;
  std::vector<float> xy(2 * n);
  std::uniform_real_distribution<float> ux(norm ? -1.7f : -3.0f, norm ? 2.3f : float(W) + 3.0f),
      uy(norm ? -1.7f : -3.0f, norm ? 2.3f : float(H) + 3.0f);
  for (int i = 0; i < n; ++i) {
    xy[2 * i] = ux(rng);
    xy[2 * i + 1] = uy(rng);
  }
  const DevicePtr coords = rt.upload(xy), out = rt.malloc(16 * n);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "tex2d"), Dim3(1), Dim3(n), 0, KernelArgs().add(t.handle).add(coords).add(out)),
            Error::Success);
  const auto got = rt.download<float>(out, 4 * n);
  for (int i = 0; i < n; ++i) {
    const float want = refTex2D(img, W, H, TexAddressMode(mode), linear, norm, xy[2 * i], xy[2 * i + 1]);
    ASSERT_EQ(got[4 * i], want) << "sample " << i << " at (" << xy[2 * i] << ", " << xy[2 * i + 1] << ")";
    ASSERT_EQ(got[4 * i + 1], 0.0f);  // channels the format lacks
    ASSERT_EQ(got[4 * i + 3], 0.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(AddressFilterCoords, TexPtxModes,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3), ::testing::Bool(), ::testing::Bool()));

TEST(TexPtx, NormalizedFloatReadsOfEightAndSixteenBitIntegers) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
  const std::uint32_t W = 6, H = 4;
  std::vector<std::int8_t> s8(W * H * 4);
  std::vector<std::uint16_t> u16(W * H * 2);
  std::mt19937 rng(7);
  for (auto& v : s8) v = std::int8_t(rng());
  s8[0] = -128;  // reads -1, not -128/127
  for (auto& v : u16) v = std::uint16_t(rng());
  sm::TextureDesc ds = desc(ChannelKind::Signed, 8, 4, W, H);
  ds.flags = sm::kTexReadNormalized;
  sm::TextureDesc du = desc(ChannelKind::Unsigned, 16, 2, W, H);
  du.flags = sm::kTexReadNormalized;
  const DeviceTexture ts = upload(rt, s8.data(), ds), tu = upload(rt, u16.data(), du);
  std::vector<float> xy;
  for (std::uint32_t y = 0; y < H; ++y)
    for (std::uint32_t x = 0; x < W; ++x) {
      xy.push_back(float(x) + 0.5f);
      xy.push_back(float(y) + 0.5f);
    }
  const int n = int(W * H);
  const DevicePtr coords = rt.upload(xy), out = rt.malloc(16 * n);
  for (int which = 0; which < 2; ++which) {
    ASSERT_EQ(rt.launch(rt.getFunction(m, "tex2d"), Dim3(1), Dim3(n), 0,
                        KernelArgs().add(which ? tu.handle : ts.handle).add(coords).add(out)),
              Error::Success);
    const auto got = rt.download<float>(out, 4 * n);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 4; ++c) {
        float want;
        if (which == 0) want = std::max(float(s8[std::size_t(4 * i + c)]) / 127.0f, -1.0f);
        else want = c < 2 ? float(u16[std::size_t(2 * i + c)]) / 65535.0f : 0.0f;
        ASSERT_EQ(got[std::size_t(4 * i + c)], want) << (which ? "u16" : "s8") << " texel " << i << " channel " << c;
      }
  }
}

TEST(TexPtx, Tld4GathersOneChannelOfTheBilinearFootprintCounterClockwiseFromLowerLeft) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
  const std::uint32_t W = 4, H = 3;
  std::vector<std::uint32_t> img(W * H * 2);  // two u32 channels: x*10+y and 100+...
  for (std::uint32_t y = 0; y < H; ++y)
    for (std::uint32_t x = 0; x < W; ++x) {
      img[2 * (y * W + x)] = x * 10 + y;
      img[2 * (y * W + x) + 1] = 1000 + x * 10 + y;
    }
  sm::TextureDesc d = desc(ChannelKind::Unsigned, 32, 2, W, H);
  const DeviceTexture t = upload(rt, img.data(), d);
  const std::vector<float> xy = {1.6f, 1.7f, 0.2f, 0.1f, 3.9f, 2.9f};
  const DevicePtr coords = rt.upload(xy), out = rt.malloc(16 * 3);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "tld4"), Dim3(1), Dim3(3), 0, KernelArgs().add(t.handle).add(coords).add(out)),
            Error::Success);
  const auto got = rt.download<std::uint32_t>(out, 12);
  for (int s = 0; s < 3; ++s) {
    const long i = long(std::floor(xy[2 * s] - 0.5f)), j = long(std::floor(xy[2 * s + 1] - 0.5f));
    auto g = [&](long a, long b) {
      a = std::clamp(a, 0L, long(W) - 1);
      b = std::clamp(b, 0L, long(H) - 1);
      return std::uint32_t(1000 + a * 10 + b);
    };
    const std::uint32_t want[4] = {g(i, j + 1), g(i + 1, j + 1), g(i + 1, j), g(i, j)};
    for (int k = 0; k < 4; ++k) EXPECT_EQ(got[std::size_t(4 * s + k)], want[k]) << "sample " << s << " element " << k;
  }
}

TEST(TexPtx, TrilinearAndLayeredFetches) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
  const long W = 4, H = 3, D = 3;
  std::vector<float> vol(std::size_t(W * H * D));
  for (std::size_t i = 0; i < vol.size(); ++i) vol[i] = float((i * 37) % 101);
  sm::TextureDesc d3 = desc(ChannelKind::Float, 32, 1, W, H, D, 3);
  d3.flags = sm::kTexLinearFilter;
  sm::TextureDesc da = desc(ChannelKind::Float, 32, 1, W, H);
  da.flags = sm::kTexLayered;
  da.layers = 3;
  const DeviceTexture t3 = upload(rt, vol.data(), d3), ta = upload(rt, vol.data(), da);
  const int n = 32;
  std::vector<float> c(4 * n);
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> u(-1.0f, 5.0f);
  for (int i = 0; i < n; ++i) {
    c[std::size_t(4 * i)] = u(rng);
    c[std::size_t(4 * i + 1)] = u(rng);
    c[std::size_t(4 * i + 2)] = u(rng);
    c[std::size_t(4 * i + 3)] = float(i % 5);  // layer; 3 and 4 clamp to the last
  }
  const DevicePtr coords = rt.upload(c), out = rt.malloc(32 * n);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "tex3d_layered"), Dim3(1), Dim3(n), 0,
                      KernelArgs().add(t3.handle).add(ta.handle).add(coords).add(out)),
            Error::Success);
  const auto got = rt.download<float>(out, 8 * n);
  auto T = [&](long x, long y, long z) {
    x = std::clamp(x, 0L, W - 1);
    y = std::clamp(y, 0L, H - 1);
    z = std::clamp(z, 0L, D - 1);
    return double(vol[std::size_t((z * H + y) * W + x)]);
  };
  for (int s = 0; s < n; ++s) {
    double xb[3];
    long i[3], f[3];
    const long size[3] = {W, H, D};
    for (int k = 0; k < 3; ++k) {
      // Clamp addressing clamps the coordinate to the edge texels' centres first.
      xb[k] = std::clamp(double(c[std::size_t(4 * s + k)]), 0.5, double(size[k]) - 0.5) - 0.5;
      i[k] = long(std::floor(xb[k]));
      f[k] = long(std::floor((xb[k] - i[k]) * 256 + 0.5));  // the fraction in 1/256
      if (f[k] == 256) {
        ++i[k];
        f[k] = 0;
      }
    }
    // The H200's split (docs/validation.md): slice k+1 weighs c, slice k 256 - c; each slice's
    // weight m goes to column i+1 as a m / 256 (rounded half up), then to row j+1 as b times the
    // column's weight / 256, half up in column i+1 and half down in column i.
    double want = 0;
    for (int dz = 0; dz < 2; ++dz) {
      const long mw = dz ? f[2] : 256 - f[2];
      const long col1 = (f[0] * mw + 128) / 256, col0 = mw - col1;
      const long w11 = (f[1] * col1 + 128) / 256, w01 = (f[1] * col0 + 127) / 256;
      const long w[2][2] = {{col0 - w01, w01}, {col1 - w11, w11}};  // [dx][dy]
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) want += double(w[dx][dy]) * T(i[0] + dx, i[1] + dy, i[2] + dz);
    }
    EXPECT_EQ(got[std::size_t(8 * s)], float(want / 256.0)) << "trilinear sample " << s;
    const long layer = std::min(long(c[std::size_t(4 * s + 3)]), 2L);
    const long px = std::clamp(long(std::floor(c[std::size_t(4 * s)])), 0L, W - 1),
               py = std::clamp(long(std::floor(c[std::size_t(4 * s + 1)])), 0L, H - 1);
    EXPECT_EQ(got[std::size_t(8 * s + 4)], vol[std::size_t((layer * H + py) * W + px)]) << "layered sample " << s;
  }
}

TEST(TexPtx, IntegerFetchFromLinearMemoryReadsZeroOutOfRange) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
  std::vector<std::int16_t> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::int16_t(-300 + 37 * int(i));
  sm::TextureDesc d = desc(ChannelKind::Signed, 16, 2, 12, 1, 1, 1);
  d.resource = sm::TexResource::Linear;
  const DeviceTexture t = upload(rt, v.data(), d);
  const DevicePtr out = rt.malloc(16 * 20);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "fetch1d"), Dim3(1), Dim3(20), 0, KernelArgs().add(t.handle).add(out)),
            Error::Success);
  const auto got = rt.download<std::int32_t>(out, 80);
  for (int lane = 0; lane < 20; ++lane) {
    const int i = lane - 4;
    const bool in = i >= 0 && i < 12;
    EXPECT_EQ(got[std::size_t(4 * lane)], in ? v[std::size_t(2 * i)] : 0) << lane;      // sign-extended
    EXPECT_EQ(got[std::size_t(4 * lane + 1)], in ? v[std::size_t(2 * i + 1)] : 0) << lane;
    EXPECT_EQ(got[std::size_t(4 * lane + 2)], 0);
    EXPECT_EQ(got[std::size_t(4 * lane + 3)], 0);
  }
}

TEST(TexPtx, TxqAndSuqReportTheDescriptor) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
  std::vector<std::uint8_t> bytes(16 * 8 * 5 * 2 * 2, 0);
  sm::TextureDesc d = desc(ChannelKind::Float, 16, 2, 16, 8, 5, 3);
  d.flags = sm::kTexLinearFilter | sm::kTexNormalizedCoords;
  d.addr[0] = TexAddressMode::Wrap;
  d.addr[1] = TexAddressMode::Mirror;
  d.addr[2] = TexAddressMode::Border;
  const DeviceTexture t = upload(rt, bytes.data(), d);
  sm::TextureDesc s = desc(ChannelKind::Signed, 8, 4, 7, 3);
  s.flags = sm::kTexLayered;
  s.layers = 2;
  const DeviceTexture su = upload(rt, bytes.data(), s, sm::kSurfaceMagic);
  const DevicePtr out = rt.malloc(72);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "query"), Dim3(1), Dim3(1), 0, KernelArgs().add(t.handle).add(su.handle).add(out)),
            Error::Success);
  const auto got = rt.download<std::uint32_t>(out, 18);
  const std::vector<std::uint32_t> want = {16, 8, 5, 0x10 /* CU_AD_FORMAT_HALF */, 2, 1, 1, 0, 2, 3, 1, 0,
                                           7,  3, 1, 0x08 /* SIGNED_INT8 */,      4, 2};
  EXPECT_EQ(got, want);
}

TEST(TexPtx, InvalidHandlesFaultNamingTheHandle) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
  std::vector<float> img(16, 1.0f);
  const DeviceTexture t = upload(rt, img.data(), desc(ChannelKind::Float, 32, 1, 4, 4));
  const DeviceTexture s = upload(rt, img.data(), desc(ChannelKind::Float, 32, 1, 4, 4), sm::kSurfaceMagic);
  const DevicePtr coords = rt.upload(std::vector<float>(64, 0.5f)), out = rt.malloc(16 * 32);
  const DevicePtr junk = rt.upload(std::vector<std::uint32_t>(64, 0x12345678u));
  struct Case { DevicePtr handle; const char* why; };
  const DevicePtr destroyed = driver::createTextureObject(rt, t.d);
  driver::destroyTextureObject(rt, destroyed);
  for (const Case& c : {Case{0, "not a texture object"}, Case{t.handle + 8, "not a texture object"},
                        Case{junk, "no live object there"}, Case{s.handle, "it is a surface object"},
                        Case{destroyed, "invalid texture handle"}}) {
    ASSERT_EQ(rt.launch(rt.getFunction(m, "tex2d"), Dim3(1), Dim3(32), 0, KernelArgs().add(c.handle).add(coords).add(out)),
              Error::IllegalAddress)
        << c.why;
    ASSERT_TRUE(rt.lastFault().has_value());
    EXPECT_NE(rt.lastFault()->message.find(c.why), std::string::npos) << rt.lastFault()->message;
    EXPECT_NE(rt.lastFault()->message.find("tex.2d.v4.f32.f32"), std::string::npos) << rt.lastFault()->message;
    rt.getLastError();
  }
  // The good handle still works afterwards.
  EXPECT_EQ(rt.launch(rt.getFunction(m, "tex2d"), Dim3(1), Dim3(32), 0, KernelArgs().add(t.handle).add(coords).add(out)),
            Error::Success);
}

TEST(SurfPtx, LoadsClampOrReadZeroOutOfRange) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kSurfKernels), "surf.ptx");
  const int W = 8, H = 4;
  std::vector<std::uint32_t> v(W * H);
  for (int i = 0; i < W * H; ++i) v[std::size_t(i)] = 0xA0000u + std::uint32_t(i);
  const DeviceTexture s = upload(rt, v.data(), desc(ChannelKind::Unsigned, 32, 1, W, H), sm::kSurfaceMagic);
  std::vector<std::int32_t> xy;
  for (int y = -2; y < H + 2; ++y)
    for (int x = -2; x < W + 2; x += 2) {
      xy.push_back(x * 4);
      xy.push_back(y);
    }
  const int n = int(xy.size() / 2);
  const DevicePtr coords = rt.upload(xy), out = rt.malloc(8 * std::size_t(n));
  ASSERT_EQ(rt.launch(rt.getFunction(m, "suld2d"), Dim3(1), Dim3(n), 0, KernelArgs().add(s.handle).add(coords).add(out)),
            Error::Success);
  const auto got = rt.download<std::uint32_t>(out, 2 * std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const int x = xy[std::size_t(2 * i)] / 4, y = xy[std::size_t(2 * i + 1)];
    const bool in = x >= 0 && x < W && y >= 0 && y < H;
    const std::uint32_t clamped = v[std::size_t(std::clamp(y, 0, H - 1) * W + std::clamp(x, 0, W - 1))];
    EXPECT_EQ(got[std::size_t(2 * i)], clamped) << "clamp at " << x << "," << y;
    EXPECT_EQ(got[std::size_t(2 * i + 1)], in ? clamped : 0u) << "zero at " << x << "," << y;
  }
}

TEST(SurfPtx, StoresClampOrAreDroppedOutOfRange) {
  for (int zero = 0; zero < 2; ++zero) {
    Runtime rt;
    auto& m = rt.loadModuleString(ptxModule(kSurfKernels), "surf.ptx");
    const int W = 6, H = 3;  // texels of 2 x u16
    std::vector<std::uint16_t> v(W * H * 2, 0xEEEE);
    const DeviceTexture s = upload(rt, v.data(), desc(ChannelKind::Unsigned, 16, 2, W, H), sm::kSurfaceMagic);
    // One lane per texel row/column edge: inside, left of, right of, above, below (distinct targets).
    const std::vector<std::int32_t> xy = {4, 1, -4, 0, 4 * W, 2, 8, -1, 12, H, 20, 2};
    const int n = int(xy.size() / 2);
    ASSERT_EQ(rt.launch(rt.getFunction(m, "sust2d"), Dim3(1), Dim3(n), 0,
                        KernelArgs().add(s.handle).add(rt.upload(xy)).add(std::uint32_t(zero))),
              Error::Success);
    std::vector<std::uint16_t> want = v;
    for (int i = 0; i < n; ++i) {
      int x = xy[std::size_t(2 * i)] / 4, y = xy[std::size_t(2 * i + 1)];
      const bool in = x >= 0 && x < W && y >= 0 && y < H;
      if (!in && zero) continue;
      x = std::clamp(x, 0, W - 1);
      y = std::clamp(y, 0, H - 1);
      want[std::size_t(2 * (y * W + x))] = std::uint16_t(i);
      want[std::size_t(2 * (y * W + x) + 1)] = std::uint16_t(i + 1000);
    }
    EXPECT_EQ(rt.download<std::uint16_t>(s.data, want.size()), want) << (zero ? ".zero" : ".clamp");
  }
}

TEST(SurfPtx, TrapFaultsOutOfRangeAndMisalignedAccessesFault) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kSurfKernels), "surf.ptx");
  std::vector<std::uint32_t> v(10, 1);
  const DeviceTexture s = upload(rt, v.data(), desc(ChannelKind::Unsigned, 32, 1, 10, 1, 1, 1), sm::kSurfaceMagic);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "trap1d"), Dim3(1), Dim3(1), 0, KernelArgs().add(s.handle).add(std::uint32_t(36))),
            Error::Success);
  EXPECT_EQ(rt.launch(rt.getFunction(m, "trap1d"), Dim3(1), Dim3(1), 0, KernelArgs().add(s.handle).add(std::uint32_t(40))),
            Error::IllegalAddress);
  ASSERT_TRUE(rt.lastFault().has_value());
  EXPECT_NE(rt.lastFault()->message.find("suld.b.1d.b32.trap: out of range: x = 40 bytes (+4) of 40"), std::string::npos)
      << rt.lastFault()->message;
  rt.getLastError();
  EXPECT_EQ(rt.launch(rt.getFunction(m, "trap1d"), Dim3(1), Dim3(1), 0, KernelArgs().add(s.handle).add(std::uint32_t(-4))),
            Error::IllegalAddress);
  rt.getLastError();
  EXPECT_EQ(rt.launch(rt.getFunction(m, "trap1d"), Dim3(1), Dim3(1), 0, KernelArgs().add(s.handle).add(std::uint32_t(6))),
            Error::MisalignedAddress);
  ASSERT_TRUE(rt.lastFault().has_value());
  EXPECT_NE(rt.lastFault()->message.find("not a multiple of the 4-byte access"), std::string::npos);
}

TEST(SurfPtx, ThreeDLayeredAndSixtyFourBitRoundTrips) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kSurfKernels), "surf.ptx");
  // 3D: 4 x 2 x 4 bytes; layered 2D: 4 texels of uchar4 x 2 rows x 4 layers; 1D: 32 x u64.
  std::vector<std::uint8_t> vol(32);
  for (int i = 0; i < 32; ++i) vol[std::size_t(i)] = std::uint8_t(3 * i + 1);
  std::vector<std::uint8_t> lay(4 * 4 * 2 * 4, 0);
  std::vector<std::uint64_t> wide(32);
  for (int i = 0; i < 32; ++i) wide[std::size_t(i)] = 0x1234567800000000ull * std::uint64_t(i + 1) + 0xFFFFFFFFull;
  const DeviceTexture s3 = upload(rt, vol.data(), desc(ChannelKind::Unsigned, 8, 1, 4, 2, 4, 3), sm::kSurfaceMagic);
  sm::TextureDesc dl = desc(ChannelKind::Unsigned, 8, 4, 4, 2);
  dl.flags = sm::kTexLayered;
  dl.layers = 4;
  const DeviceTexture sa = upload(rt, lay.data(), dl, sm::kSurfaceMagic);
  const DeviceTexture s1 = upload(rt, wide.data(), desc(ChannelKind::Unsigned, 32, 2, 32, 1, 1, 1), sm::kSurfaceMagic);
  const DevicePtr out = rt.malloc(4 * 32);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "roundtrip"), Dim3(1), Dim3(32), 0,
                      KernelArgs().add(s3.handle).add(sa.handle).add(s1.handle).add(out)),
            Error::Success);
  const auto read = rt.download<std::uint32_t>(out, 32);
  std::vector<std::uint8_t> vol_want = vol, lay_want = lay;
  std::vector<std::uint64_t> wide_want = wide;
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    const std::uint32_t x = lane & 3, y = (lane >> 2) & 1, z = lane >> 3;
    const std::size_t at = (z * 2 + y) * 4 + x;
    EXPECT_EQ(read[lane], vol[at]) << lane;
    vol_want[at] = std::uint8_t(vol[at] + 7);
    const std::size_t la = ((z * 2 + y) * 4 + x) * 4;  // layer z, row y, texel x
    const std::uint8_t l[4] = {std::uint8_t(lane), std::uint8_t(vol[at] + 7), vol[at], std::uint8_t(lane)};
    for (int k = 0; k < 4; ++k) lay_want[la + std::size_t(k)] = l[k];
    wide_want[lane] = wide[lane] + 1;
  }
  EXPECT_EQ(rt.download<std::uint8_t>(s3.data, 32), vol_want);
  EXPECT_EQ(rt.download<std::uint8_t>(sa.data, lay.size()), lay_want);
  EXPECT_EQ(rt.download<std::uint64_t>(s1.data, 32), wide_want);
}

TEST(SurfPtx, FormattedStoreConvertsToTheSurfaceFormat) {
  Runtime rt;
  auto& m = rt.loadModuleString(ptxModule(kSurfKernels), "surf.ptx");
  std::vector<std::uint16_t> h(32, 0);
  const DeviceTexture s = upload(rt, h.data(), desc(ChannelKind::Float, 16, 1, 32, 1, 1, 1), sm::kSurfaceMagic);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "sustp"), Dim3(1), Dim3(32), 0, KernelArgs().add(s.handle)), Error::Success);
  const auto got = rt.download<std::uint16_t>(s.data, 32);
  for (int i = 0; i < 32; ++i) {
    const float f = float(i) * 0.333333343f;  // 0f3EAAAAAB
    // f32 -> f16, round to nearest even, for the normal range these values span.
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    std::uint16_t want = 0;
    if (f != 0.0f) {
      const int e = int((b >> 23) & 0xFF) - 127 + 15;
      std::uint32_t mant = b & 0x7FFFFF;
      std::uint32_t hm = mant >> 13, rest = mant & 0x1FFF;
      std::uint32_t hv = (std::uint32_t(e) << 10) | hm;
      if (rest > 0x1000 || (rest == 0x1000 && (hm & 1))) ++hv;
      want = std::uint16_t(hv);
    }
    EXPECT_EQ(got[std::size_t(i)], want) << i;
  }
}

// The same kernels in timing mode: the same results (textures read through the LSU and L1).
TEST(TexTiming, FetchesAndSurfaceStoresMatchFunctionalMode) {
  auto run = [](Mode mode) {
    Runtime rt(GpuConfig::loadDefault(), mode);
    auto& m = rt.loadModuleString(ptxModule(kTexKernels), "tex.ptx");
    auto& ms = rt.loadModuleString(ptxModule(kSurfKernels), "surf.ptx");
    std::vector<float> img(64 * 64);
    for (std::size_t i = 0; i < img.size(); ++i) img[i] = float(i % 97);
    sm::TextureDesc d = desc(ChannelKind::Float, 32, 1, 64, 64);
    d.flags = sm::kTexLinearFilter | sm::kTexNormalizedCoords;
    for (auto& a : d.addr) a = TexAddressMode::Wrap;
    const DeviceTexture t = upload(rt, img.data(), d);
    std::vector<float> xy(2 * 1024);
    for (std::size_t i = 0; i < 1024; ++i) {
      xy[2 * i] = float(i % 32) / 29.0f - 0.1f;
      xy[2 * i + 1] = float(i / 32) / 31.0f + 0.37f;
    }
    const DevicePtr coords = rt.upload(xy), out = rt.malloc(16 * 1024);
    EXPECT_EQ(rt.launch(rt.getFunction(m, "tex2d"), Dim3(8), Dim3(128), 0, KernelArgs().add(t.handle).add(coords).add(out)),
              Error::Success);
    std::vector<float> result = rt.download<float>(out, 4 * 1024);
    std::vector<std::uint16_t> v(6 * 3 * 2, 0x1111);
    const DeviceTexture s = upload(rt, v.data(), desc(ChannelKind::Unsigned, 16, 2, 6, 3), sm::kSurfaceMagic);
    const std::vector<std::int32_t> sxy = {4, 1, -4, 0, 24, 2, 8, -1, 12, 3, 20, 2};
    EXPECT_EQ(rt.launch(rt.getFunction(ms, "sust2d"), Dim3(1), Dim3(6), 0,
                        KernelArgs().add(s.handle).add(rt.upload(sxy)).add(std::uint32_t(0))),
              Error::Success);
    for (std::uint16_t w : rt.download<std::uint16_t>(s.data, v.size())) result.push_back(float(w));
    const std::uint64_t cycles = mode == Mode::Timing ? rt.launches().back().core_cycles : 0;
    return std::make_pair(result, cycles);
  };
  const auto functional = run(Mode::Functional);
  const auto timed = run(Mode::Timing);
  EXPECT_EQ(timed.first, functional.first);
  EXPECT_GT(timed.second, 0u);
}

}  // namespace
}  // namespace scgpu
