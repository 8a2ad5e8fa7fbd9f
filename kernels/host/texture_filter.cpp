// texture_filter: a rotated (0.3 rad) and scaled bilinear resample of a 96 x 80 RGBA8 image (x
// scale) into a 128 x 112 float4 image, through a texture object (normalized coordinates, wrap,
// linear filtering, normalized-float reads) and a surface object (surf2Dwrite). Reference: the
// kernel's coordinates repeated in f32, then the texture unit's filter as the CUDA programming
// guide gives it and the H200 computes it (docs/data/tex_probe): xB = x * W - 0.5, the fraction
// frac(xB) in 1.8 fixed point (rounded to nearest), texels wrapped, the 2D weights and the 8-bit
// sum in fixed point, widened to a 16-bit unorm and normalized. Bit-exact.
#include <cmath>
#include <cstring>

#include "driver/texture_objects.h"
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

// f32 products and sums rounded once each, as __fmul_rn / __fadd_rn (a product of two floats is
// exact in double, so rounding it to float is the one rounding; no multiply-add can fuse here).
float mulRn(float a, float b) { return float(double(a) * double(b)); }
float addRn(float a, float b) { return a + b; }

struct Image {
  int w = 0, h = 0;
  std::vector<std::uint8_t> rgba;  // row-major, 4 bytes a texel
};

// tex2D<float4> of the texture: normalized coordinates, wrap, linear, normalized-float reads.
void bilinear(const Image& img, float u, float v, float out[4]) {
  long idx[2][2];
  long wgt[2][2];
  const float c[2] = {u, v};
  const long size[2] = {img.w, img.h};
  for (int k = 0; k < 2; ++k) {
    const double xb = double(c[k]) * double(size[k]) - 0.5;
    const long q = long(std::floor(xb * 256.0 + 0.5));  // 1.8 fixed point, rounded to nearest
    const long i = q >> 8, a = q & 255;
    idx[k][0] = ((i % size[k]) + size[k]) % size[k];
    idx[k][1] = ((i + 1) % size[k] + size[k]) % size[k];
    wgt[k][0] = 256 - a;
    wgt[k][1] = a;
  }
  // The four texels' weights in 1/256: alpha * beta rounded (ties up), the others keeping the exact
  // row and column totals. 8-bit texels are summed in fixed point; the 8.8 sum becomes a 16-bit
  // unorm by repeating its byte (x 257/256, rounded) and is normalized by 65535.
  const long a = wgt[0][1], b = wgt[1][1];
  const long w11 = (a * b + 128) >> 8;
  const long w[2][2] = {{256 - a - b + w11, a - w11}, {b - w11, w11}};  // [dy][dx]
  for (int ch = 0; ch < 4; ++ch) {
    long sum = 0;
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) sum += w[dy][dx] * long(img.rgba[std::size_t((idx[1][dy] * img.w + idx[0][dx]) * 4 + ch)]);
    out[ch] = float(double((sum * 257 + 128) >> 8) / 65535.0);
  }
}

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int s = scaleOf(opt);
  Image src;
  src.w = 96 * s;
  src.h = 80;
  const int w = 128 * s, h = 112;
  Rng rng(opt.seed);
  src.rgba.resize(std::size_t(src.w) * src.h * 4);
  for (int y = 0; y < src.h; ++y)
    for (int x = 0; x < src.w; ++x)
      for (int c = 0; c < 4; ++c)  // smooth gradients plus noise: filtering matters
        src.rgba[std::size_t((y * src.w + x) * 4 + c)] =
            std::uint8_t((x * (3 + c) + y * (5 - c) + int(rng.u32() % 32)) & 255);
  const float angle = 0.3f, zoom = 0.8f;
  const float cos_a = std::cos(angle), sin_a = std::sin(angle);
  const float inv_w = 1.0f / (zoom * float(w)), inv_h = 1.0f / (zoom * float(h));

  DeviceArena mem(rt);
  const driver::DevicePtr dsrc = mem.upload(src.rgba), ddst = mem.alloc(std::size_t(w) * h * 16);
  sm::TextureDesc t;
  t.kind = sm::ChannelKind::Unsigned;
  t.bits = 8;
  t.channels = 4;
  t.base = dsrc;
  t.width = std::uint32_t(src.w);
  t.height = std::uint32_t(src.h);
  t.dims = 2;
  t.pitch = std::uint64_t(src.w) * 4;
  t.slice_pitch = t.pitch * std::uint64_t(src.h);
  t.flags = sm::kTexNormalizedCoords | sm::kTexLinearFilter | sm::kTexReadNormalized;
  for (auto& a : t.addr) a = sm::TexAddressMode::Wrap;
  sm::TextureDesc surf;
  surf.magic = sm::kSurfaceMagic;
  surf.kind = sm::ChannelKind::Float;
  surf.bits = 32;
  surf.channels = 4;
  surf.base = ddst;
  surf.width = std::uint32_t(w);
  surf.height = std::uint32_t(h);
  surf.dims = 2;
  surf.pitch = std::uint64_t(w) * 16;
  surf.slice_pitch = surf.pitch * std::uint64_t(h);
  const driver::DevicePtr htex = driver::createTextureObject(rt, t), hsurf = driver::createTextureObject(rt, surf);

  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "texture_filter", opt), "texture_filter");
  const driver::Error e =
      rt.launch(fn, driver::Dim3(blocksFor(std::uint64_t(w), 16), blocksFor(std::uint64_t(h), 16)), driver::Dim3(16, 16),
                0, driver::KernelArgs().add(htex).add(hsurf).add(w).add(h).add(cos_a).add(sin_a).add(inv_w).add(inv_h));
  if (e != driver::Error::Success) return launchFailed("texture_filter", e);
  const std::vector<float> got = rt.download<float>(ddst, std::size_t(w) * h * 4);
  driver::destroyTextureObject(rt, htex);
  driver::destroyTextureObject(rt, hsurf);

  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float cx = addRn(float(x), mulRn(0.5f, float(1 - w))), cy = addRn(float(y), mulRn(0.5f, float(1 - h)));
      const float rx = addRn(mulRn(cx, cos_a), -mulRn(cy, sin_a)), ry = addRn(mulRn(cx, sin_a), mulRn(cy, cos_a));
      const float u = addRn(mulRn(rx, inv_w), 0.5f), v = addRn(mulRn(ry, inv_h), 0.5f);
      float want[4];
      bilinear(src, u, v, want);
      for (int c = 0; c < 4; ++c) {
        const float g = got[std::size_t((y * w + x) * 4 + c)];
        if (std::memcmp(&g, &want[c], 4) != 0)
          return failed("pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(c) +
                        ": got " + formatValue(g) + ", want " + formatValue(want[c]) + " (u " + formatValue(u) +
                        ", v " + formatValue(v) + ")");
      }
    }
  return passed(std::to_string(w) + " x " + std::to_string(h) + " pixels resampled bilinearly from a " +
                std::to_string(src.w) + " x " + std::to_string(src.h) + " RGBA8 texture: bit-exact");
}

const WorkloadRegistrar reg({"texture_filter",
                             "rotated, scaled bilinear resample through a texture object, written through a surface",
                             "texture_filter", {"sm_90", "sm_80", "sm_75"}, run});

}  // namespace
}  // namespace scgpu::kernels
