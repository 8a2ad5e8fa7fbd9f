// Cube maps and mipmapped textures in PTX (tex.cube, tex.acube, tex.level, tex.grad, txq.level)
// against CPU references written here, not from the model's sampler: the CUDA programming guide's
// rules (cube-map face table, level of detail from gradients, nearest or linear between levels)
// with the details the H200 showed (docs/validation.md, "Cube maps and mipmaps against the H200":
// ties between axes, lambda's truncation, the weight split, tex.grad's length estimate and log2
// table). Texel values name their level, slice and position, so a wrong level or face shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "driver/runtime.h"
#include "sm/exec/texture_sample.h"
#include "driver/texture_objects.h"
#include "sm/texture_desc.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Runtime;
using sm::ChannelKind;
using sm::TexAddressMode;

// Every kernel reads 12 floats a thread (in[12 i ...]: %f1..%f12, %r2 = (u32)%f4) and writes the
// four results at out[4 i].
std::string kernel(const std::string& name, const std::string& body) {
  return ".visible .entry " + name + R"((.param .u64 tex, .param .u64 in, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<24>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [in];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r1, %r3, %r4, %r1;
  mul.wide.u32 %rd4, %r1, 48;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
  ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd5+16];
  ld.global.v4.f32 {%f9, %f10, %f11, %f12}, [%rd5+32];
  cvt.rzi.u32.f32 %r2, %f4;
  )" + body + R"(
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.f32 [%rd7], {%f13, %f14, %f15, %f16};
  ret;
}
)";
}

std::string module() {
  const std::string d = "{%f13, %f14, %f15, %f16}";
  return ".version 8.0\n.target sm_90\n.address_size 64\n" +
         kernel("tex2d", "tex.2d.v4.f32.f32 " + d + ", [%rd1, {%f1, %f2}];") +
         kernel("level2d", "tex.level.2d.v4.f32.f32 " + d + ", [%rd1, {%f1, %f2}], %f3;") +
         kernel("grad2d", "tex.grad.2d.v4.f32.f32 " + d + ", [%rd1, {%f1, %f2}], {%f5, %f6}, {%f7, %f8};") +
         kernel("level3d", "tex.level.3d.v4.f32.f32 " + d + ", [%rd1, {%f1, %f2, %f3, %f3}], %f5;") +
         kernel("levela2d", "tex.level.a2d.v4.f32.f32 " + d + ", [%rd1, {%r2, %f1, %f2, %f2}], %f3;") +
         kernel("cube", "tex.cube.v4.f32.f32 " + d + ", [%rd1, {%f1, %f2, %f3, %f3}];") +
         kernel("acube", "tex.acube.v4.f32.f32 " + d + ", [%rd1, {%r2, %f1, %f2, %f3}];") +
         kernel("levelcube", "tex.level.cube.v4.f32.f32 " + d + ", [%rd1, {%f1, %f2, %f3, %f3}], %f5;") +
         kernel("gradcube", "tex.grad.cube.v4.f32.f32 " + d +
                                ", [%rd1, {%f1, %f2, %f3, %f3}], {%f5, %f6, %f7, %f7}, {%f9, %f10, %f11, %f11};") +
         R"(
.visible .entry query(.param .u64 tex, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  txq.level.width.b32 %r2, [%rd1], %r1;
  txq.level.height.b32 %r3, [%rd1], %r1;
  txq.level.depth.b32 %r4, [%rd1], %r1;
  txq.num_mipmap_levels.b32 %r5, [%rd1];
  txq.array_size.b32 %r6, [%rd1];
  txq.width.b32 %r7, [%rd1];
  mul.wide.u32 %rd3, %r1, 32;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v4.u32 [%rd4], {%r2, %r3, %r4, %r5};
  st.global.v2.u32 [%rd4+16], {%r6, %r7};
  ret;
}
)";
}

// ---------------------------------------------------------------------------------------------
// The reference. Texel values: 4096 level + 256 slice + 16 y + x (exact in f32 for the sizes here).

float texelValue(int level, int slice, int x, int y) { return float(4096 * level + 256 * slice + 16 * y + x); }

struct MipTex {
  int w = 1, h = 1, levels = 1, slices = 1;  // level 0; slices per level (layers, 6 x cubes)
  TexAddressMode mode = TexAddressMode::Clamp;
  bool linear = false, mip_linear = false;
  float bias = 0, min_clamp = 0, max_clamp = 0;
  int lw(int l) const { return std::max(1, w >> l); }
  int lh(int l) const { return std::max(1, h >> l); }
};

long refAddress(long i, long n, TexAddressMode m) {
  if (m == TexAddressMode::Wrap) return ((i % n) + n) % n;
  return std::clamp(i, 0L, n - 1);  // clamp (the tests use clamp and wrap)
}

// One level, one slice, normalized coordinates: the level's texels weighted in 1/256 so that
// the weights total `weight` (256 alone; 256 - f and f for the two levels of a linear mipmap
// blend). Point: all of it on one texel. Bilinear: the fractions A and B in 1/256, the H200's
// split (docs/validation.md): column i+1 gets A weight / 256 (rounded half up), then row j+1
// gets B column / 256 of each column, half up in column i+1 and half down in column i (with
// weight 256: the product A B rounded, the other three keeping the exact row and column totals).
// Clamp addressing clamps the coordinate to the first and last texels' centres first.
double refLevelSum(const MipTex& t, int l, int slice, float x, float y, TexAddressMode m, long weight) {
  const long W = t.lw(l), H = t.lh(l);
  double u = double(x) * W, v = double(y) * H;
  auto T = [&](long i, long j) { return double(texelValue(l, slice, int(refAddress(i, W, m)), int(refAddress(j, H, m)))); };
  if (!t.linear) return double(weight) * T(long(std::floor(u)), long(std::floor(v)));
  if (m == TexAddressMode::Clamp) {
    u = std::clamp(u, 0.5, double(W) - 0.5);
    v = std::clamp(v, 0.5, double(H) - 0.5);
  }
  const double xb = u - 0.5, yb = v - 0.5;
  long i = long(std::floor(xb)), j = long(std::floor(yb));
  long A = long(std::floor((xb - double(i)) * 256 + 0.5)), B = long(std::floor((yb - double(j)) * 256 + 0.5));
  if (A == 256) { ++i; A = 0; }
  if (B == 256) { ++j; B = 0; }
  const long col1 = (A * weight + 128) / 256, col0 = weight - col1;
  const long w11 = (B * col1 + 128) / 256, w01 = (B * col0 + 127) / 256;
  return double(col0 - w01) * T(i, j) + double(col1 - w11) * T(i + 1, j) + double(w01) * T(i, j + 1) +
         double(w11) * T(i + 1, j + 1);
}

double refLevel(const MipTex& t, int l, int slice, float x, float y, TexAddressMode m) {
  return double(float(refLevelSum(t, l, slice, x, y, m, 256) / 256.0));
}

// lambda (before bias and clamps) to the sample: bias, the texture's clamps, [0, levels - 1],
// truncated to 1/256 of a level, then the nearest level (half-way: the level above) or both
// levels' texels in one sum, weighted 256 - f and f (sum_at(level, weight): refLevelSum's).
float refMip(const MipTex& t, double lambda, const std::function<double(int, long)>& sum_at) {
  if (t.levels > 1) {
    lambda += t.bias;
    lambda = std::min(lambda, double(t.max_clamp));
    lambda = std::max(lambda, double(t.min_clamp));
    lambda = std::min(std::max(lambda, 0.0), double(t.levels - 1));
  } else {
    lambda = 0;
  }
  const long q = long(std::floor(lambda * 256));  // in 1/256 of a level
  if (!t.mip_linear) return float(sum_at(std::min(int((q + 128) / 256), t.levels - 1), 256) / 256.0);
  int l = int(q / 256);
  long f = q % 256;
  if (l >= t.levels - 1) {
    l = t.levels - 1;
    f = 0;
  }
  if (f == 0) return float(sum_at(l, 256) / 256.0);
  return float((sum_at(l, 256 - f) + sum_at(l + 1, f)) / 256.0);
}

// tex.grad's lambda as the H200 computes it (docs/validation.md): each gradient's length in
// level-0 texels estimated as max + 11/32 min of its components' magnitudes (the larger cut to
// 10 significant bits), the longer of the two or 11/16 of the longer diagonal, and log2 read from the H200's table by the top 8
// bits of the significand (sm::kTexLodLog2Table: the level-of-detail fraction, in 1/256, the H200 returned
// across each 1/256 of an octave).

double refGradLength(double x, double y) {
  const double mx = std::max(std::fabs(x), std::fabs(y)), mn = std::min(std::fabs(x), std::fabs(y));
  if (mx == 0) return 0;
  int e;
  const double fr = std::frexp(mx, &e);
  return std::ldexp(std::floor(std::ldexp(fr, 10)), e - 10) + mn * 11.0 / 32.0;
}

// The longer gradient, or 11/16 of the longer diagonal (dx + dy, dx - dy) of their parallelogram.
double refFootprint(float x0, float x1, float y0, float y1) {
  const double diag = std::max(refGradLength(double(x0 + y0), double(x1 + y1)), refGradLength(double(x0 - y0), double(x1 - y1)));
  return std::max({refGradLength(x0, x1), refGradLength(y0, y1), diag * 11.0 / 16.0});
}

double refGradLambda(double rho) {
  if (rho == 0) return -1e9;
  int e;
  const double fr = std::frexp(rho, &e);
  return double(e - 1) + double(sm::kTexLodLog2Table[int((fr * 2 - 1) * 256)]) / 256.0;
}

// The guide's cube-map table; ties between equal magnitudes go to z, then y (the H200's choice,
// docs/validation.md).
int refCubeFace(float x, float y, float z, double* s, double* t, double* m) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  if (az >= ax && az >= ay) {
    if (z >= 0) { *m = z; *s = x; *t = -y; return 4; }
    *m = -z; *s = -x; *t = -y; return 5;
  }
  if (ay >= ax) {
    if (y >= 0) { *m = y; *s = x; *t = z; return 2; }
    *m = -y; *s = x; *t = -z; return 3;
  }
  if (x >= 0) { *m = x; *s = -z; *t = -y; return 0; }
  *m = -x; *s = z; *t = -y; return 1;
}

// ---------------------------------------------------------------------------------------------
// The device side: levels laid out as sm/texture_desc.h documents (level after level, every
// level's slices together, rows of levels >= 1 aligned to 2^align_log2 bytes).

struct Uploaded {
  DevicePtr data = 0, handle = 0;
};

Uploaded upload(Runtime& rt, const MipTex& t, bool cube, bool layered, int dims = 2, int align_log2 = 0) {
  const std::size_t align = std::size_t(1) << align_log2;
  std::vector<float> bytes;
  std::size_t pitch0 = 0;
  for (int l = 0; l < t.levels; ++l) {
    // Level 0: rows of exactly width texels; others: rounded up to the alignment.
    std::size_t pitch = std::size_t(t.lw(l)) * 4;
    if (l > 0) pitch = (pitch + align - 1) / align * align;
    else pitch0 = pitch;
    for (int s = 0; s < t.slices; ++s)
      for (int y = 0; y < t.lh(l); ++y) {
        const std::size_t row = bytes.size();
        bytes.resize(row + pitch / 4, -1.0f);
        for (int x = 0; x < t.lw(l); ++x) bytes[row + std::size_t(x)] = texelValue(l, s, x, y);
      }
  }
  Uploaded u;
  u.data = rt.upload(bytes);
  sm::TextureDesc d;
  d.kind = ChannelKind::Float;
  d.bits = 32;
  d.channels = 1;
  d.base = u.data;
  d.width = std::uint32_t(t.w);
  d.height = std::uint32_t(t.h);
  d.dims = std::uint8_t(dims);
  d.pitch = pitch0;
  d.slice_pitch = pitch0 * std::uint64_t(t.h);
  d.flags = std::uint8_t(sm::kTexNormalizedCoords | (t.linear ? sm::kTexLinearFilter : 0) |
                         (cube ? sm::kTexCubemap : 0) | (layered ? sm::kTexLayered : 0));
  if (layered) d.layers = std::uint32_t(cube ? t.slices / 6 : t.slices);
  for (auto& a : d.addr) a = t.mode;
  d.levels = std::uint8_t(t.levels);
  d.mip_flags = t.mip_linear ? sm::kTexMipLinear : 0;
  d.level_align_log2 = std::uint8_t(align_log2);
  d.lod_bias = t.bias;
  d.min_lod_clamp = t.min_clamp;
  d.max_lod_clamp = t.max_clamp;
  u.handle = driver::createTextureObject(rt, d);
  return u;
}

// Runs `fn` over `in` (12 floats a sample); the first result channel of each.
std::vector<float> run(Runtime& rt, const std::string& fn, DevicePtr tex, const std::vector<float>& in) {
  static thread_local std::string text = module();
  auto& m = rt.loadModuleString(text, "mip.ptx");
  const std::size_t n = in.size() / 12, blocks = (n + 63) / 64;
  std::vector<float> padded = in;  // whole blocks of 64 samples
  padded.resize(blocks * 64 * 12, 0.5f);
  const DevicePtr din = rt.upload(padded), out = rt.malloc(16 * 64 * blocks);
  EXPECT_EQ(rt.launch(rt.getFunction(m, fn), Dim3(std::uint32_t(blocks)), Dim3(64), 0,
                      KernelArgs().add(tex).add(din).add(out)),
            Error::Success);
  const auto all = rt.download<float>(out, 4 * n);
  std::vector<float> r(n);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = all[4 * i];
    EXPECT_EQ(all[4 * i + 1], 0.0f);  // channels a one-channel format lacks
  }
  return r;
}

// Directions for the cube tests: the six axes, edges and corners (ties) of both signs, points
// near the edges, and random ones.
std::vector<std::array<float, 3>> cubeDirections(std::mt19937& rng, int random) {
  std::vector<std::array<float, 3>> v;
  const float vals[] = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f};
  for (float x : vals)
    for (float y : vals)
      for (float z : vals)
        if (x != 0 || y != 0 || z != 0) v.push_back({x, y, z});
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  for (int i = 0; i < random; ++i) v.push_back({u(rng), u(rng), u(rng)});
  for (int i = 0; i < 40; ++i) {  // just past an edge: |x| a hair above or below |z|
    const float a = u(rng);
    v.push_back({a, u(rng) * 0.1f, std::nextafter(a, 0.0f)});
    v.push_back({std::nextafter(a, 10.0f * a), a * 0.3f, -a});
  }
  return v;
}

double refCubeSum(const MipTex& t, int l, int cube, float x, float y, float z, long weight) {
  double s, tt, m;
  const int face = refCubeFace(x, y, z, &s, &tt, &m);
  const float u = float((s / m + 1) / 2), v = float((tt / m + 1) / 2);
  return refLevelSum(t, l, 6 * cube + face, u, v, TexAddressMode::Clamp, weight);  // faces clamp at their edges
}

double refCube(const MipTex& t, int l, int cube, float x, float y, float z) {
  return double(float(refCubeSum(t, l, cube, x, y, z, 256) / 256.0));
}

TEST(TexCube, EverySixFacesEdgesAndCornersPointAndLinear) {
  Runtime rt;
  std::mt19937 rng(61);
  const auto dirs = cubeDirections(rng, 400);
  for (bool linear : {false, true}) {
    MipTex t;
    t.w = t.h = 4;
    t.slices = 6;
    t.linear = linear;
    t.mode = TexAddressMode::Wrap;  // ignored by cube maps: faces clamp
    const Uploaded u = upload(rt, t, true, false);
    std::vector<float> in;
    for (const auto& d : dirs) in.insert(in.end(), {d[0], d[1], d[2], 0, 0, 0, 0, 0, 0, 0, 0, 0});
    const auto got = run(rt, "cube", u.handle, in);
    for (std::size_t i = 0; i < dirs.size(); ++i) {
      const auto& d = dirs[i];
      ASSERT_EQ(got[i], float(refCube(t, 0, 0, d[0], d[1], d[2])))
          << (linear ? "linear" : "point") << " direction (" << d[0] << ", " << d[1] << ", " << d[2] << ")";
    }
  }
}

TEST(TexCube, EachFaceIsTheGuidesFaceWithItsOrientation) {
  // A direction straight at each face's texel (0, 0) corner region: s and t near -1 select x = 0,
  // y = 0 of that face; the texel's value names the face.
  Runtime rt;
  MipTex t;
  t.w = t.h = 8;
  t.slices = 6;
  const Uploaded u = upload(rt, t, true, false);
  // face: major axis direction, and the direction of -s and -t (texel (0, 0) lies at s = t = -1).
  const float dirs[6][3] = {{1, 0.9f, 0.9f}, {-1, 0.9f, -0.9f}, {-0.9f, 1, -0.9f},
                            {-0.9f, -1, 0.9f}, {-0.9f, 0.9f, 1}, {0.9f, 0.9f, -1}};
  std::vector<float> in;
  for (const auto& d : dirs) in.insert(in.end(), {d[0], d[1], d[2], 0, 0, 0, 0, 0, 0, 0, 0, 0});
  const auto got = run(rt, "cube", u.handle, in);
  for (int f = 0; f < 6; ++f) EXPECT_EQ(got[std::size_t(f)], texelValue(0, f, 0, 0)) << "face " << f;
}

TEST(TexCube, LayeredCubesAreSixLayersEachAndTheIndexClamps) {
  Runtime rt;
  std::mt19937 rng(62);
  const auto dirs = cubeDirections(rng, 100);
  MipTex t;
  t.w = t.h = 2;
  t.slices = 18;  // 3 cubes
  t.linear = true;
  const Uploaded u = upload(rt, t, true, true);
  std::vector<float> in;
  std::vector<int> cube;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    cube.push_back(int(i % 5));  // 3 and 4 read the last cube
    in.insert(in.end(), {dirs[i][0], dirs[i][1], dirs[i][2], float(cube.back()), 0, 0, 0, 0, 0, 0, 0, 0});
  }
  const auto got = run(rt, "acube", u.handle, in);
  for (std::size_t i = 0; i < dirs.size(); ++i)
    ASSERT_EQ(got[i], float(refCube(t, 0, std::min(cube[i], 2), dirs[i][0], dirs[i][1], dirs[i][2]))) << i;
}

TEST(TexCube, ZeroDirectionReadsAFaceWithoutFaulting) {
  Runtime rt;
  MipTex t;
  t.w = t.h = 2;
  t.slices = 6;
  const Uploaded u = upload(rt, t, true, false);
  const auto got = run(rt, "cube", u.handle, std::vector<float>(12, 0.0f));
  EXPECT_FALSE(std::isnan(got[0]));
}

// tex.level on a 2D texture: both texel filters, both mipmap filters, with and without bias and clamps.
TEST(TexMip, LevelSelectsNearestOrBlendsTwoLevelsAfterBiasAndClamps) {
  Runtime rt;
  std::mt19937 rng(63);
  std::uniform_real_distribution<float> xy(-0.3f, 1.3f), lod(-1.5f, 6.5f);
  struct Variant { bool linear, mip_linear; float bias, min_clamp, max_clamp; TexAddressMode mode; int align; };
  const Variant variants[] = {
      {false, false, 0, 0, 4, TexAddressMode::Clamp, 0},    {true, false, 0, 0, 4, TexAddressMode::Wrap, 7},
      {false, true, 0, 0, 4, TexAddressMode::Clamp, 0},     {true, true, 0, 0, 100, TexAddressMode::Wrap, 7},
      {true, true, 0.375f, 0.5f, 3.25f, TexAddressMode::Clamp, 4}, {false, false, -0.75f, 1, 2, TexAddressMode::Clamp, 0},
      {true, true, 0, 0, 0, TexAddressMode::Clamp, 0},  // max clamp 0: level 0 only, as a zeroed cudaTextureDesc
  };
  for (const Variant& v : variants) {
    MipTex t;
    t.w = 16;
    t.h = 8;
    t.levels = 5;  // 16x8, 8x4, 4x2, 2x1, 1x1
    t.linear = v.linear;
    t.mip_linear = v.mip_linear;
    t.bias = v.bias;
    t.min_clamp = v.min_clamp;
    t.max_clamp = v.max_clamp;
    t.mode = v.mode;
    const Uploaded u = upload(rt, t, false, false, 2, v.align);
    std::vector<float> in;
    const int n = 512;
    for (int i = 0; i < n; ++i) {
      float l = lod(rng);
      if (i < 64) l = float(i % 16) * 0.25f + 1.0f / 512;  // near quarter steps and half-way points
      in.insert(in.end(), {xy(rng), xy(rng), l, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    }
    const auto got = run(rt, "level2d", u.handle, in);
    for (int i = 0; i < n; ++i) {
      const float x = in[std::size_t(12 * i)], y = in[std::size_t(12 * i + 1)];
      const float want =
          refMip(t, in[std::size_t(12 * i + 2)], [&](int l, long w) { return refLevelSum(t, l, 0, x, y, t.mode, w); });
      ASSERT_EQ(got[std::size_t(i)], want) << "variant linear " << v.linear << " mip " << v.mip_linear << " bias "
                                           << v.bias << ": sample " << i << " lod " << in[std::size_t(12 * i + 2)];
    }
    // Plain tex on a mipmapped texture reads level 0 (no implicit derivatives outside fragment shaders).
    const auto base = run(rt, "tex2d", u.handle, in);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(base[std::size_t(i)], float(refLevel(t, 0, 0, in[std::size_t(12 * i)], in[std::size_t(12 * i + 1)], t.mode)));
  }
}

// tex.grad: lambda from the longer of the two gradients' estimated lengths in level-0 texels
// (refGradLength, refGradLambda: the H200's rule; anisotropy ignored).
TEST(TexMip, GradientsSelectTheLevelByTheLongerGradient) {
  Runtime rt;
  std::mt19937 rng(64);
  std::uniform_real_distribution<float> xy(0.0f, 1.0f), e(-7.0f, 1.0f), sgn(-1.0f, 1.0f);
  for (bool mip_linear : {false, true}) {
    MipTex t;
    t.w = 32;
    t.h = 16;
    t.levels = 6;
    t.linear = true;
    t.mip_linear = mip_linear;
    t.max_clamp = 5;
    t.bias = mip_linear ? 0.25f : 0.0f;
    const Uploaded u = upload(rt, t, false, false);
    std::vector<float> in;
    const int n = 512;
    for (int i = 0; i < n; ++i) {
      // Gradient lengths 2^-7 .. 2^1 of the texture, anisotropic ones (one axis much longer), zero ones.
      auto g = [&] { return sgn(rng) * std::exp2(e(rng)); };
      float g0 = g(), g1 = g(), g2 = g(), g3 = g();
      if (i % 7 == 0) g1 = g2 = g3 = 0;
      if (i % 11 == 0) g0 = g1 = g2 = g3 = 0;
      in.insert(in.end(), {xy(rng), xy(rng), 0, 0, g0, g1, g2, g3, 0, 0, 0, 0});
    }
    const auto got = run(rt, "grad2d", u.handle, in);
    for (int i = 0; i < n; ++i) {
      const float* s = &in[std::size_t(12 * i)];
      const float x0 = s[4] * float(t.w), x1 = s[5] * float(t.h), y0 = s[6] * float(t.w), y1 = s[7] * float(t.h);
      const double lambda = refGradLambda(refFootprint(x0, x1, y0, y1));
      const float want = refMip(t, lambda, [&](int l, long w) { return refLevelSum(t, l, 0, s[0], s[1], t.mode, w); });
      ASSERT_EQ(got[std::size_t(i)], want) << "mip linear " << mip_linear << " sample " << i << " lambda " << lambda;
    }
  }
}

TEST(TexMip, LayeredLevelsKeepTheirLayers) {
  Runtime rt;
  std::mt19937 rng(65);
  std::uniform_real_distribution<float> xy(0.0f, 1.0f), lod(0.0f, 3.0f);
  MipTex t;
  t.w = 8;
  t.h = 4;
  t.levels = 4;
  t.slices = 3;
  t.max_clamp = 3;
  const Uploaded u = upload(rt, t, false, true);
  std::vector<float> in;
  for (int i = 0; i < 128; ++i) in.insert(in.end(), {xy(rng), xy(rng), lod(rng), float(i % 4), 0, 0, 0, 0, 0, 0, 0, 0});
  const auto got = run(rt, "levela2d", u.handle, in);
  for (int i = 0; i < 128; ++i) {
    const float* s = &in[std::size_t(12 * i)];
    const int layer = std::min(int(s[3]), 2);
    ASSERT_EQ(got[std::size_t(i)], refMip(t, s[2], [&](int l, long w) { return refLevelSum(t, l, layer, s[0], s[1], t.mode, w); }))
        << i;
  }
}

TEST(TexMip, CubeMapLevelsAndGradients) {
  Runtime rt;
  std::mt19937 rng(66);
  const auto dirs = cubeDirections(rng, 200);
  std::uniform_real_distribution<float> lod(-0.5f, 4.5f), e(-6.0f, 1.0f), sgn(-1.0f, 1.0f);
  MipTex t;
  t.w = t.h = 8;
  t.levels = 4;
  t.slices = 6;
  t.linear = true;
  t.mip_linear = true;
  t.max_clamp = 3;
  const Uploaded u = upload(rt, t, true, false, 2, 7);
  std::vector<float> in;
  for (const auto& d : dirs) {
    auto g = [&] { return sgn(rng) * std::exp2(e(rng)); };
    in.insert(in.end(), {d[0], d[1], d[2], 0, lod(rng), 0, 0, 0, 0, 0, 0, 0});
    const float gx[3] = {g(), g(), g()}, gy[3] = {g(), g(), g()};
    std::copy(gx, gx + 3, &in[in.size() - 8]);
    std::copy(gy, gy + 3, &in[in.size() - 4]);
    in[in.size() - 8 + 3] = 0;
    in[in.size() - 4 + 3] = 0;
  }
  // (in: x y z 0 | lod-or-gx0 gx1 gx2 0 | gy0 gy1 gy2 0; levelcube reads the lod from %f5 = gx0)
  const auto by_level = run(rt, "levelcube", u.handle, in);
  const auto by_grad = run(rt, "gradcube", u.handle, in);
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const float* s = &in[12 * i];
    auto at = [&](int l, long w) { return refCubeSum(t, l, 0, s[0], s[1], s[2], w); };
    ASSERT_EQ(by_level[i], refMip(t, s[4], at)) << "tex.level.cube " << i;
    // Gradients of the face coordinates: d((s/m + 1) / 2) = (ds m - s dm) / (2 m^2), in face texels.
    double sc, tc, m;
    const int face = refCubeFace(s[0], s[1], s[2], &sc, &tc, &m);
    (void)face;
    // tex.grad.cube (a driver routine on sm_90, docs/validation.md): the face coordinates of
    // direction + gradient minus the direction's, on the direction's face, a point past an edge
    // unfolded onto the face's plane (across the edge 2 - m/|s|, along it t/|s|), in f32; then
    // the 2D rule in face texels.
    auto project = [&](const float* g) {
      const float p[3] = {s[0] + g[0], s[1] + g[1], s[2] + g[2]};
      // s, t, m of p on `face`, as the table writes them (sign and axis).
      float ps, pt, pm;
      switch (face) {
        case 0: ps = -p[2]; pt = -p[1]; pm = p[0]; break;
        case 1: ps = p[2]; pt = -p[1]; pm = -p[0]; break;
        case 2: ps = p[0]; pt = p[2]; pm = p[1]; break;
        case 3: ps = p[0]; pt = -p[2]; pm = -p[1]; break;
        case 4: ps = p[0]; pt = -p[1]; pm = p[2]; break;
        default: ps = -p[0]; pt = -p[1]; pm = -p[2]; break;
      }
      float u2, v2;
      if (pm >= std::fabs(ps) && pm >= std::fabs(pt)) {
        u2 = ps / pm;
        v2 = pt / pm;
      } else if (std::fabs(ps) >= std::fabs(pt)) {
        u2 = std::copysign(2.0f - pm / std::fabs(ps), ps);
        v2 = pt / std::fabs(ps);
      } else {
        v2 = std::copysign(2.0f - pm / std::fabs(pt), pt);
        u2 = ps / std::fabs(pt);
      }
      const float u1 = float(sc) / float(m), v1 = float(tc) / float(m);
      return std::array<double, 2>{double(u2 - u1) / 2 * t.w, double(v2 - v1) / 2 * t.w};
    };
    const auto px = project(s + 4), py = project(s + 8);
    const double diag = std::max(refGradLength(double(float(px[0] + py[0])), double(float(px[1] + py[1]))),
                                 refGradLength(double(float(px[0] - py[0])), double(float(px[1] - py[1]))));
    const double lambda = refGradLambda(
        std::max({refGradLength(px[0], px[1]), refGradLength(py[0], py[1]), diag * 11.0 / 16.0}));
    ASSERT_EQ(by_grad[i], refMip(t, lambda, at)) << "tex.grad.cube " << i << " lambda " << lambda;
  }
}

// A 3D texture's levels halve the depth too (8x4x4, 4x2x2, 2x1x1), slices of a level together.
TEST(TexMip, ThreeDimensionalLevelsHalveTheDepth) {
  Runtime rt;
  const int W = 8, H = 4, D = 4, L = 3;
  std::vector<float> bytes;
  for (int l = 0; l < L; ++l)
    for (int z = 0; z < std::max(1, D >> l); ++z)
      for (int y = 0; y < std::max(1, H >> l); ++y)
        for (int x = 0; x < std::max(1, W >> l); ++x) bytes.push_back(texelValue(l, z, x, y));
  sm::TextureDesc d;
  d.base = rt.upload(bytes);
  d.width = W;
  d.height = H;
  d.depth = D;
  d.dims = 3;
  d.pitch = W * 4;
  d.slice_pitch = W * H * 4;
  d.levels = L;
  d.flags = sm::kTexNormalizedCoords;
  d.max_lod_clamp = 10;
  const DevicePtr tex = driver::createTextureObject(rt, d);
  std::mt19937 rng(67);
  std::uniform_real_distribution<float> u(0.0f, 1.0f), lod(-0.4f, 3.0f);
  std::vector<float> in;
  for (int i = 0; i < 256; ++i) in.insert(in.end(), {u(rng), u(rng), u(rng), 0, lod(rng), 0, 0, 0, 0, 0, 0, 0});
  const auto got = run(rt, "level3d", tex, in);
  for (int i = 0; i < 256; ++i) {
    const float* s = &in[std::size_t(12 * i)];
    // Point sampling at the nearest level (lambda truncated to 1/256, half-way: the level above),
    // clamped to the last.
    const long q = long(std::floor(std::clamp(double(s[4]), 0.0, double(L - 1)) * 256));
    const int l = std::min(int((q + 128) / 256), L - 1);
    const int lw = std::max(1, W >> l), lh = std::max(1, H >> l), ld = std::max(1, D >> l);
    auto idx = [](float c, int n) { return std::min(int(std::floor(double(c) * n)), n - 1); };
    ASSERT_EQ(got[std::size_t(i)], texelValue(l, idx(s[2], ld), idx(s[0], lw), idx(s[1], lh))) << i << " lod " << s[4];
  }
}

TEST(TexMip, TxqReportsLevelsAndEachLevelsExtent) {
  Runtime rt;
  auto& m = rt.loadModuleString(module(), "mip.ptx");
  // A 3D texture 8 x 4 x 2 with 4 levels: 8x4x2, 4x2x1, 2x1x1, 1x1x1; levels 4 and 5 do not exist.
  std::vector<float> bytes(8 * 4 * 2 + 4 * 2 + 2 + 1, 0.0f);
  const DevicePtr data = rt.upload(bytes);
  sm::TextureDesc d;
  d.base = data;
  d.width = 8;
  d.height = 4;
  d.depth = 2;
  d.dims = 3;
  d.pitch = 32;
  d.slice_pitch = 128;
  d.levels = 4;
  const DevicePtr tex3 = driver::createTextureObject(rt, d);
  const DevicePtr out = rt.malloc(32 * 6);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "query"), Dim3(1), Dim3(6), 0, KernelArgs().add(tex3).add(out)), Error::Success);
  auto got = rt.download<std::uint32_t>(out, 48);
  const std::uint32_t w[6][3] = {{8, 4, 2}, {4, 2, 1}, {2, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}};
  for (int l = 0; l < 6; ++l) {
    for (int k = 0; k < 3; ++k) EXPECT_EQ(got[std::size_t(8 * l + k)], w[l][k]) << "level " << l << " dim " << k;
    EXPECT_EQ(got[std::size_t(8 * l + 3)], 4u);
    EXPECT_EQ(got[std::size_t(8 * l + 4)], 0u);
    EXPECT_EQ(got[std::size_t(8 * l + 5)], 8u);
  }
  // A layered cube map of 3 cubes: array_size counts cubes.
  MipTex t;
  t.w = t.h = 4;
  t.slices = 18;
  t.levels = 3;
  const Uploaded cube = upload(rt, t, true, true);
  ASSERT_EQ(rt.launch(rt.getFunction(m, "query"), Dim3(1), Dim3(2), 0, KernelArgs().add(cube.handle).add(out)),
            Error::Success);
  got = rt.download<std::uint32_t>(out, 16);
  got.erase(got.begin() + 14, got.end());
  got.erase(got.begin() + 6, got.begin() + 8);
  // (depth 0: a cube map is not 3D, as the H200's txq.level.depth reads)
  EXPECT_EQ(got, (std::vector<std::uint32_t>{4, 4, 0, 3, 3, 4, 2, 2, 0, 3, 3, 4}));
}

TEST(TexMip, BadDescriptorsAreRefusedWithAReason) {
  Runtime rt;
  const DevicePtr data = rt.malloc(1 << 16);
  auto refused = [&](sm::TextureDesc d, const std::string& why) {
    d.base = data;
    if (!d.pitch) d.pitch = std::uint64_t(d.width) * d.texelBytes();
    if (!d.slice_pitch) d.slice_pitch = d.pitch * d.height;
    try {
      driver::createTextureObject(rt, d);
      ADD_FAILURE() << "accepted; wanted: " << why;
    } catch (const driver::RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  sm::TextureDesc d;
  d.width = 16;
  d.height = 5;
  d.dims = 2;
  d.levels = 6;  // floor(log2(16)) + 1 = 5
  refused(d, "mipmap levels must be 1 to 5");
  d.levels = 2;
  d.flags = sm::kTexCubemap;
  refused(d, "cube map faces must be square");
  d.flags = 0;
  d.mip_flags = sm::kTexMipLinear;
  d.kind = ChannelKind::Unsigned;
  refused(d, "linear mipmap filtering needs a float format");
  d.kind = ChannelKind::Float;
  d.min_lod_clamp = std::nanf("");
  refused(d, "not a number");
  d.min_lod_clamp = 0;
  d.magic = sm::kSurfaceMagic;
  refused(d, "a surface is one level");
}

TEST(TexMip, DecoderAcceptsLevelQueriesAndRefusesFormsThatDoNotExist) {
  auto load = [](const std::string& inst) {
    Runtime rt;
    const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                             ".visible .entry k(.param .u64 t)\n{\n .reg .b32 %r<8>;\n .reg .f32 %f<8>;\n"
                             " .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [t];\n " + inst + "\n ret;\n}\n";
    try {
      auto& m = rt.loadModuleString(text, "k.ptx");
      rt.getFunction(m, "k");
      return std::string();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(load("txq.level.width.b32 %r1, [%rd1], %r2;"), "");
  EXPECT_EQ(load("txq.level.depth.b32 %r1, [%rd1], 3;"), "");
  EXPECT_NE(load("txq.level.channel_order.b32 %r1, [%rd1], %r2;").find("txq.level queries"), std::string::npos);
  EXPECT_NE(load("txq.level.width.b32 %r1, [%rd1];").find("takes 3 operands"), std::string::npos);
  EXPECT_EQ(load("tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f5, %f6}, {%f7, %f6};"), "");
  EXPECT_NE(load("tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f5, %f6}, {%f7};")
                .find("gradients of 2 elements, found 1"),
            std::string::npos);
  EXPECT_NE(load("tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r3}];").find(".f32 coordinates"),
            std::string::npos);
}

}  // namespace
}  // namespace scgpu
