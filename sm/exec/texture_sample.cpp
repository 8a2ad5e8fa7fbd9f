// The texture unit's arithmetic (texture_sample.h). The rules, as the CUDA programming guide's
// "Texture Fetching" appendix gives them and as the H100/H200 computes them (docs/data/tex_probe):
// - point sampling takes texel floor(u) (u = x, or x * size with normalized coordinates);
// - linear filtering takes texels i = floor(xB) and i + 1 with xB = u - 0.5 and the weight
//   alpha = frac(xB) in 9-bit fixed point with 8 fractional bits (rounded to nearest, ties up), so
//   alpha is a multiple of 1/256; 2D and 3D weigh 4 and 8 texels by weights in 1/256 split slice,
//   column, row in turn (filterWeights, mipFilterWeights); clamp addressing clamps xB to
//   [0, size - 1] first; a 1D fetch filters rows -1 and 0 at y = 0 too;
// - mipmaps: lambda (tex.level's operand, or tex.grad's from a length estimate and a log2 table)
//   truncated to 1/256; the point mipmap filter rounds half-way up; the linear one weighs both
//   levels' footprints in one sum, split like a 3D footprint's slices; a cube map's face by the
//   major axis, ties to z then y;
// - the weighted sum: exact, rounded once to f32 (f32 texels) or to f16 (f16 texels); integers read
//   as normalized floats are filtered in fixed point: 8-bit unorm sums widened to 16-bit unorm,
//   16-bit sums rounded to the format's integers, then normalized;
// - each texel index is addressed on its own: clamp to [0, size-1]; border reads the border
//   colour; wrap (index mod size) and mirror only with normalized coordinates (otherwise clamp);
// - integers read as normalized floats are v / (2^8-1) or v / (2^16-1), and v / 127 or v / 32767
//   clamped to -1 for signed ones; f16 is widened to f32; channels the format lacks read 0;
// - .s32 coordinates address texels directly, unfiltered; out of range they read 0 from linear
//   memory (whatever the address mode) and are addressed as point samples otherwise.
#include "sm/exec/texture_sample.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sm/exec/float_util.h"

namespace scgpu::sm {
namespace {

// One texel's channels: as floats (returnsFloat) or as 32-bit integers.
struct Texel {
  float f[4] = {0, 0, 0, 0};
  std::uint32_t u[4] = {0, 0, 0, 0};
  std::int64_t raw[4] = {0, 0, 0, 0};  // integer formats: the channel's value (filtering in fixed point)
};

Texel decodeTexel(const TextureDesc& d, const std::uint8_t* p) {
  Texel t;
  for (std::uint32_t c = 0; c < d.channels; ++c) {
    std::int64_t iv = 0;
    float fv = 0;
    switch (d.bits) {
      case 8:
        iv = d.kind == ChannelKind::Signed ? std::int64_t(std::int8_t(p[c])) : std::int64_t(p[c]);
        break;
      case 16: {
        std::uint16_t h;
        std::memcpy(&h, p + 2 * c, 2);
        if (d.kind == ChannelKind::Float) fv = fp::halfToFloat(h);
        else iv = d.kind == ChannelKind::Signed ? std::int64_t(std::int16_t(h)) : std::int64_t(h);
        break;
      }
      default: {
        std::uint32_t w;
        std::memcpy(&w, p + 4 * c, 4);
        if (d.kind == ChannelKind::Float) std::memcpy(&fv, &w, 4);
        else iv = d.kind == ChannelKind::Signed ? std::int64_t(std::int32_t(w)) : std::int64_t(w);
        break;
      }
    }
    t.raw[c] = iv;
    if (d.kind == ChannelKind::Float) {
      t.f[c] = fv;
    } else if (d.readNormalized()) {
      const float scale = d.kind == ChannelKind::Signed ? (d.bits == 8 ? 127.0f : 32767.0f)
                                                        : (d.bits == 8 ? 255.0f : 65535.0f);
      t.f[c] = std::max(float(iv) / scale, -1.0f);
    } else {
      t.u[c] = std::uint32_t(iv);
    }
  }
  return t;
}

// The largest value of a normalized integer format (255, 127, 65535, 32767).
double normScale(const TextureDesc& d) {
  return d.kind == ChannelKind::Signed ? (d.bits == 8 ? 127.0 : 32767.0) : (d.bits == 8 ? 255.0 : 65535.0);
}

Texel borderTexel(const TextureDesc& d) {
  Texel t;
  for (int c = 0; c < 4; ++c) {
    t.f[c] = d.border[c];
    const float bc = d.border[c];  // integer reads: the colour truncated, inside the int32 range
    t.u[c] = std::isnan(bc) ? 0u : std::uint32_t(std::int32_t(std::clamp(double(bc), -2147483648.0, 2147483647.0)));
    // (a border colour outside [-1, 1], or not a number, is clamped for the fixed-point sum)
    const double b = std::isnan(d.border[c]) ? 0.0 : std::clamp(double(d.border[c]), -1.0, 1.0);
    t.raw[c] = d.kind == ChannelKind::Float ? 0 : std::int64_t(std::lround(b * normScale(d)));
  }
  return t;
}

// A texel index after addressing, or -1 for the border.
std::int64_t addressIndex(std::int64_t i, std::uint32_t n, TexAddressMode m, bool normalized) {
  if (!normalized && (m == TexAddressMode::Wrap || m == TexAddressMode::Mirror)) m = TexAddressMode::Clamp;
  const std::int64_t N = n;
  switch (m) {
    case TexAddressMode::Border: return i < 0 || i >= N ? -1 : i;
    case TexAddressMode::Wrap: return ((i % N) + N) % N;
    case TexAddressMode::Mirror: {
      const std::int64_t k = ((i % (2 * N)) + 2 * N) % (2 * N);
      return k < N ? k : 2 * N - 1 - k;
    }
    default: return std::clamp<std::int64_t>(i, 0, N - 1);
  }
}

// The texel coordinate u of a float coordinate (finite and bounded, so that indices fit).
double texelCoord(float x, std::uint32_t n, bool normalized) {
  double u = std::isnan(x) ? 0.0 : double(x);
  if (normalized) u *= n;
  return std::clamp(u, -double(1 << 30), double(1 << 30));
}

// Linear filtering's first texel and its weight in 1/256 (the other texel weighs 256 - alpha... of
// the next): xB = u - 0.5 in fixed point with 8 fractional bits, rounded to nearest.
void linearSplit(double u, std::int64_t* i0, std::uint32_t* alpha) {
  const std::int64_t q = std::int64_t(std::floor((u - 0.5) * 256.0 + 0.5));
  *i0 = q >> 8;  // floor division (arithmetic shift)
  *alpha = std::uint32_t(q & 255);
}

// The 4 weights (in 1/256) of a 2D linear footprint, texel t at offsets (t & 1, t >> 1), when the
// level weighs m of 256 (linear mipmap filtering: 256 - f for the lower level, f for the upper;
// m = 256 gives filterWeights' 2D rule). As the H200 splits it (tex_mip_probe.cu, every weight of
// 6846 level footprints read one by one through texels that are powers of two, and lod_var_lin_lin):
// first the columns, column i+1 getting a*m/256 rounded half up; then each column by b, row j+1
// getting b*column/256 rounded half up in column i+1 and half down in column i.
void mipFilterWeights(std::int64_t a, std::int64_t b, std::int64_t m, std::int64_t w[4]) {
  const std::int64_t col1 = (a * m + 128) >> 8, col0 = m - col1;
  w[3] = (b * col1 + 128) >> 8;
  w[1] = col1 - w[3];
  w[2] = (b * col0 + 127) >> 8;
  w[0] = col0 - w[2];
}

// The weights (in 1/256, summing to 256) of the 4 (2D) or 8 (3D) texels of a linear footprint,
// texel t at offsets (t & 1, t >> 1 & 1, t >> 2 & 1), from the per-dimension fractions a, b, c
// (in 1/256): a 3D footprint is two 2D ones, slice k+1 weighing c and slice k 256 - c, each split
// as a mipmap level's (mipFilterWeights; h200_tex_probe.txt's trilin_f32: 256 of 256, where
// rounding the products of fractions matched 228). With m = 256 the 2D split is: alpha x beta
// rounded to 1/256 (ties up), the other three weights keeping the exact row and column totals.
void filterWeights(std::uint32_t dims, std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t w[8]) {
  if (dims < 3) {
    mipFilterWeights(a, b, 256, w);
    return;
  }
  mipFilterWeights(a, b, 256 - c, w);
  mipFilterWeights(a, b, c, w + 4);
}

// The weighted texel sums of one or two levels (linear mipmap filtering), turned into the result
// once: f32 channels summed exactly (weights of 9 bits, 24-bit significands: exact in double),
// normalized integers in fixed point.
struct TexelSums {
  double f[4] = {0, 0, 0, 0};
  std::int64_t i[4] = {0, 0, 0, 0};
};

class Fetcher {
 public:
  Fetcher(const TextureDesc& d, std::uint32_t layer, const TexelReadFn& read) : d_(d), read_(read) {
    layer_ = d.layered() ? std::min(layer, d.layers ? d.layers - 1 : 0) : 0;
  }
  // The texel at addressed indices (any -1: the border colour).
  Texel at(std::int64_t x, std::int64_t y, std::int64_t z) {
    if (x < 0 || y < 0 || z < 0) return borderTexel(d_);
    const std::uint64_t addr = d_.base + std::uint64_t(layer_) * d_.slice_pitch + std::uint64_t(z) * d_.slice_pitch +
                               std::uint64_t(y) * d_.pitch + std::uint64_t(x) * d_.texelBytes();
    std::uint8_t bytes[16];
    read_(addr, d_.texelBytes(), bytes);
    if (!first_) first_ = addr;
    ++count_;
    return decodeTexel(d_, bytes);
  }
  std::uint64_t first() const { return first_; }
  std::uint32_t count() const { return count_; }

 private:
  const TextureDesc& d_;
  const TexelReadFn& read_;
  std::uint32_t layer_ = 0;
  std::uint64_t first_ = 0;
  std::uint32_t count_ = 0;
};

std::uint32_t sizeOf(const TextureDesc& d, int dim) { return dim == 0 ? d.width : dim == 1 ? d.height : d.depth; }

TexResult fromTexel(const TextureDesc& d, const Texel& t) {
  TexResult r;
  for (int c = 0; c < 4; ++c) {
    if (d.returnsFloat()) std::memcpy(&r.v[c], &t.f[c], 4);
    else r.v[c] = t.u[c];
  }
  return r;
}

}  // namespace

namespace {

// The result of weighted sums whose weights total 256.
TexResult finishSums(const TextureDesc& d, const TexelSums& s) {
  TexResult r;
  const bool fixed = d.kind != ChannelKind::Float;
  const double* fsum = s.f;
  const std::int64_t* isum = s.i;
  for (int ch = 0; ch < 4; ++ch) {
    float v;
    if (!fixed) {
      const double exact = fsum[ch] / 256.0;  // exact in double (9-bit weights, 24-bit significands)
      v = d.bits == 16 ? fp::halfToFloat(fp::toHalfRn<fp::FmtF16>(exact)) : float(exact);
    } else if (d.bits == 8 && d.kind == ChannelKind::Unsigned) {
      // 8.8 fixed point widened to a 16-bit unorm by repeating the byte (x 257/256), rounded.
      v = float(double((isum[ch] * 257 + 128) >> 8) / 65535.0);
    } else if (d.bits == 8) {
      v = std::max(float(double(isum[ch]) / (256.0 * 127.0)), -1.0f);  // not measured: exact, then rounded
    } else {
      // 16-bit: the filtered value rounded to an integer of the format, then normalized.
      const std::int64_t q = (isum[ch] + 128) >> 8;
      v = std::max(float(double(q) / normScale(d)), -1.0f);
    }
    std::memcpy(&r.v[ch], &v, 4);
  }
  return r;
}

// One level's fetch: d describes that level alone (levelDesc), c its coordinates. With `sums`
// (linear mipmap filtering of 1D/2D levels and cube faces) the level's texels are added to *sums
// with weights totalling m of 256 instead, and the result is left to finishSums.
TexResult sampleOneLevel(const TextureDesc& d, const TexCoords& c, const TexelReadFn& read, std::uint64_t* first_texel,
                         std::uint32_t* texels, std::int64_t m = 256, TexelSums* sums = nullptr) {
  Fetcher f(d, c.layer, read);
  const std::uint32_t nd = std::min<std::uint32_t>(c.dims, 3);
  const bool norm = d.normalizedCoords();
  TexResult r;
  if (c.integer) {
    std::int64_t idx[3] = {0, 0, 0};
    bool outside = false;
    for (std::uint32_t k = 0; k < nd; ++k) {
      const std::uint32_t n = sizeOf(d, int(k));
      outside |= c.i[k] < 0 || std::uint32_t(c.i[k]) >= n;
      idx[k] = addressIndex(c.i[k], n, d.addr[k], false);
    }
    if (!(outside && d.resource == TexResource::Linear)) {
      const Texel t = f.at(idx[0], idx[1], idx[2]);
      if (sums) {
        for (int ch = 0; ch < 4; ++ch) {
          sums->f[ch] += double(m) * double(t.f[ch]);
          sums->i[ch] += m * t.raw[ch];
        }
      }
      r = fromTexel(d, t);
    }
  } else if (!d.linearFilter()) {
    std::int64_t idx[3] = {0, 0, 0};
    for (std::uint32_t k = 0; k < nd; ++k) {
      const std::uint32_t n = sizeOf(d, int(k));
      idx[k] = addressIndex(std::int64_t(std::floor(texelCoord(c.f[k], n, norm))), n, d.addr[k], norm);
    }
    const Texel t = f.at(idx[0], idx[1], idx[2]);
    if (sums) {
      for (int ch = 0; ch < 4; ++ch) {
        sums->f[ch] += double(m) * double(t.f[ch]);
        sums->i[ch] += m * t.raw[ch];
      }
    }
    r = fromTexel(d, t);
  } else {
    // Two texel indices per dimension and the weights of the 4 or 8 texels in 1/256 (they sum to
    // 256). A 1D fetch filters over y = 0 as well (rows -1 and 0, half each: it shows with border
    // addressing, where row -1 is the border, as on the H200).
    const std::uint32_t fd = std::max<std::uint32_t>(nd, 2);
    std::int64_t idx[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    std::int64_t a[3] = {0, 0, 0};
    for (std::uint32_t k = 0; k < fd; ++k) {
      const std::uint32_t n = sizeOf(d, int(k));
      std::int64_t i0;
      std::uint32_t frac;
      double u = texelCoord(k < nd ? c.f[k] : 0.0f, n, norm);
      // Clamp addressing clamps the coordinate first, to the first and last texels' centres, so
      // that the fraction is 0 beyond them: it shows where the weights are split unevenly
      // (mipFilterWeights), lod_var_lin_lin's coordinates outside [0, 1] (44 of 1024 samples).
      const bool clamped = d.addr[k] == TexAddressMode::Clamp ||
                           (!norm && (d.addr[k] == TexAddressMode::Wrap || d.addr[k] == TexAddressMode::Mirror));
      if (clamped) u = std::clamp(u, 0.5, double(n) - 0.5);
      linearSplit(u, &i0, &frac);
      idx[k][0] = addressIndex(i0, n, d.addr[k], norm);
      idx[k][1] = addressIndex(i0 + 1, n, d.addr[k], norm);
      a[k] = frac;
    }
    std::int64_t w[8];
    if (sums && fd == 2) mipFilterWeights(a[0], a[1], m, w);
    else filterWeights(fd, a[0], a[1], a[2], w);
    TexelSums local;
    TexelSums& acc = sums ? *sums : local;
    double* fsum = acc.f;
    std::int64_t* isum = acc.i;
    const bool fixed = d.kind != ChannelKind::Float;  // normalized integers: filtered in fixed point
    for (int t = 0; t < (fd == 3 ? 8 : 4); ++t) {
      if (w[t] == 0) continue;
      const Texel tx = f.at(idx[0][t & 1], idx[1][(t >> 1) & 1], idx[2][(t >> 2) & 1]);
      for (int ch = 0; ch < 4; ++ch) {
        if (fixed) isum[ch] += w[t] * tx.raw[ch];
        else fsum[ch] += double(w[t]) * double(tx.f[ch]);
      }
    }
    if (!sums) r = finishSums(d, local);
  }
  if (first_texel) *first_texel = f.first();
  if (texels) *texels = f.count();
  return r;
}

// Level l of d as a texture of one level. A cube map becomes the layered 2D texture of its faces
// (6 a cube), sampled with normalized coordinates and clamped at each face's edges: faces are
// filtered on their own, as cudaTextureDesc::seamlessCubemap = 0 has it (cudart refuses 1).
TextureDesc levelDesc(const TextureDesc& d, std::uint32_t l) {
  TextureDesc ld = d;
  const TexLevel g = d.levelGeometry(l);
  ld.base = g.base;
  ld.pitch = g.pitch;
  ld.slice_pitch = g.slice_pitch;
  ld.width = g.width;
  ld.height = g.height;
  ld.depth = g.depth;
  ld.levels = 1;
  if (d.cubemap()) {
    ld.flags = std::uint8_t((d.flags & ~kTexCubemap) | kTexLayered | kTexNormalizedCoords);
    ld.layers = std::uint32_t(d.slicesAt(1));
    for (auto& a : ld.addr) a = TexAddressMode::Clamp;
  }
  return ld;
}

// tex.grad.cube's gradients on the face, in face coordinates u, v in [0, 1], along one screen
// direction g. On sm_90 texCubemapGrad is a driver routine (the SASS calls
// __cuda_syscall_tex_grad_cube_v4_f32_f32), and what it computes is a forward difference, not
// the derivative: the face coordinates of dir + g minus those of dir, both on dir's face, a
// point past the face's edge unfolded onto the plane of the face (its coordinate across the edge
// 2 - m / |s|, along the edge t / |s|), in f32 (a second H200 run: gradients along each axis at
// the face's centre and off it; cubegrad_lin_lin). The level then follows the 2D rule.
void cubeGradient(const CubeFace& f, const float dir[3], const float g[3], double out[2]) {
  out[0] = out[1] = 0;
  const float m = f.m_sign * dir[f.m_axis], s = f.s_sign * dir[f.s_axis], t = f.t_sign * dir[f.t_axis];
  if (!(m > 0)) return;  // the zero direction
  const float s1 = s / m, t1 = t / m;
  const float p[3] = {dir[0] + g[0], dir[1] + g[1], dir[2] + g[2]};
  const float S = f.s_sign * p[f.s_axis], T = f.t_sign * p[f.t_axis], M = f.m_sign * p[f.m_axis];
  const float aS = std::fabs(S), aT = std::fabs(T);
  float s2, t2;
  if (M >= aS && M >= aT) {
    s2 = S / M;
    t2 = T / M;
  } else if (aS >= aT) {
    if (aS == 0) return;
    s2 = S > 0 ? 2.0f - M / aS : -(2.0f - M / aS);
    t2 = T / aS;
  } else {
    t2 = T > 0 ? 2.0f - M / aT : -(2.0f - M / aT);
    s2 = S / aT;
  }
  out[0] = 0.5 * double(s2 - s1);
  out[1] = 0.5 * double(t2 - t1);
}

}  // namespace

// tex.grad's level of detail as the H200 computes it (docs/data/tex_probe: a second probe run on
// the H200, 10,240 gradients on a 1024 x 1024 texture, and tex_mip_probe.cu's grad_* cases):
// - each gradient's length is estimated as max + 11/32 min of its components' magnitudes (in
//   level-0 texels), the larger one first cut to 10 significant bits (2026 of 2048 gradients at
//   512 angles; grad_const_aniso_lin's angles: 30 degrees reads 2^(14/256) longer, 45 degrees
//   2^(-19/256) shorter than the Euclidean length);
// - rho is the longest of the two gradients' estimates and 11/16 of the estimates of their sum
//   and difference (levelOfDetail);
// - lambda = log2(rho) from a table indexed by the top 8 bits of rho's significand (the level
//   of detail is constant across each 1/256 of an octave of rho: 4096 axis-aligned gradients
//   in 1/4096 steps of an octave), in 1/256 of a level.
const std::uint8_t kTexLodLog2Table[256] = {
    0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34, 35,
    36, 38, 39, 40, 42, 43, 44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63, 64, 65,
    66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82, 83, 84, 85, 86, 88, 89, 90, 91, 92, 93,
    94, 95, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115,
    116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 135,
    136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153,
    154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171,
    172, 173, 173, 174, 175, 176, 177, 178, 179, 180, 181, 181, 182, 183, 184, 185, 186, 187, 188,
    188, 189, 190, 191, 192, 193, 194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203, 204,
    205, 205, 206, 207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218, 219,
    220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232, 233, 233, 234,
    235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244, 245, 245, 246, 247, 248, 248,
    249, 250, 251, 251, 252, 253, 253, 254, 255, 255,
};

namespace {

double gradientLength(const double* g, std::uint32_t n) {
  double m[3] = {0, 0, 0};
  for (std::uint32_t k = 0; k < n; ++k) m[k] = std::fabs(g[k]);
  std::sort(m, m + 3, [](double a, double b) { return a > b; });
  if (!(m[0] > 0) || std::isinf(m[0])) return m[0];
  int e;
  const double frac = std::frexp(m[0], &e);                      // m[0] = frac 2^e, frac in [0.5, 1)
  const double major = std::ldexp(std::floor(std::ldexp(frac, 10)), e - 10);  // 10 significant bits
  // (a third component, of 3D textures, is added like the second: not measured)
  return major + (m[1] + m[2]) * (11.0 / 32.0);
}

// lambda in 1/256 of a level for rho > 0 (finite).
double log2Table(double rho) {
  int e;
  const double frac = std::frexp(rho, &e);  // rho = frac 2^e, frac in [0.5, 1)
  const int j = std::min(255, int(std::floor((frac * 2.0 - 1.0) * 256.0)));
  return double(e - 1) * 256.0 + double(kTexLodLog2Table[j]);
}

}  // namespace

CubeFace cubeFace(const float dir[3]) {
  const float ax = std::fabs(dir[0]), ay = std::fabs(dir[1]), az = std::fabs(dir[2]);
  CubeFace f;
  // Major axis, then s and t from the guide's table:
  //   +x: s = -z, t = -y   -x: s = +z, t = -y   +y: s = +x, t = +z
  //   -y: s = +x, t = -z   +z: s = +x, t = -y   -z: s = -x, t = -y
  // Ties between axes of equal magnitude go to z, then y (the H200: (2.5, 2.5, 2.5) reads face +z,
  // (2.5, 2.5, 0) face +y; cube_pt's edges and corners, 108 of its 1660 directions).
  if (az >= ax && az >= ay) {
    const bool pos = !(dir[2] < 0);
    f = {pos ? 4u : 5u, 0, 1, 2, pos ? 1.0f : -1.0f, -1.0f, pos ? 1.0f : -1.0f};
  } else if (ay >= ax) {
    const bool pos = !(dir[1] < 0);
    f = {pos ? 2u : 3u, 0, 2, 1, 1.0f, pos ? 1.0f : -1.0f, pos ? 1.0f : -1.0f};
  } else {
    const bool pos = !(dir[0] < 0);
    f = {pos ? 0u : 1u, 2, 1, 0, pos ? -1.0f : 1.0f, -1.0f, pos ? 1.0f : -1.0f};
  }
  const double m = double(f.m_sign) * dir[f.m_axis];
  const double s = double(f.s_sign) * dir[f.s_axis], t = double(f.t_sign) * dir[f.t_axis];
  // (a zero direction divides 0 by 0: NaN, which the sampler reads as coordinate 0)
  f.u = float((s / m + 1.0) * 0.5);
  f.v = float((t / m + 1.0) * 0.5);
  return f;
}

std::int64_t levelOfDetail(const TextureDesc& d, const TexCoords& c) {
  if (d.levels <= 1 || c.lod == TexLod::Base) return 0;
  double lambda;
  if (c.lod == TexLod::Level) {
    lambda = std::isnan(c.level) ? 0.0 : double(c.level);
  } else {
    double gx[3] = {0, 0, 0}, gy[3] = {0, 0, 0};
    std::uint32_t n = std::min<std::uint32_t>(c.dims, 3);
    if (c.cube) {
      const CubeFace f = cubeFace(c.f);
      cubeGradient(f, c.f, c.ddx, gx);
      cubeGradient(f, c.f, c.ddy, gy);
      n = 2;
      for (int k = 0; k < 2; ++k) {
        gx[k] *= d.width;
        gy[k] *= d.width;
      }
    } else {
      for (std::uint32_t k = 0; k < n; ++k) {
        // In level-0 texels: the f32 gradient times the size, rounded to f32.
        const float scale = d.normalizedCoords() ? float(sizeOf(d, int(k))) : 1.0f;
        gx[k] = double(c.ddx[k] * scale);
        gy[k] = double(c.ddy[k] * scale);
      }
    }
    // The footprint's extent: the longer gradient, or 11/16 of the longer diagonal of the
    // parallelogram they span (dx + dy, dx - dy), whichever is longer: two equal parallel
    // gradients read 2^(log2(11/8)) = 11/8 of one, perpendicular ones never more than the
    // longer (a second H200 run: dy = t dx and dy perpendicular to dx, t in 1/256 steps, and
    // equal gradients at 513 angles).
    double sum[3] = {0, 0, 0}, diff[3] = {0, 0, 0};
    for (std::uint32_t k = 0; k < n; ++k) {
      sum[k] = double(float(gx[k] + gy[k]));
      diff[k] = double(float(gx[k] - gy[k]));
    }
    const double diagonal = std::max(gradientLength(sum, n), gradientLength(diff, n)) * (11.0 / 16.0);
    const double rho = std::max({gradientLength(gx, n), gradientLength(gy, n), diagonal});
    if (std::isnan(rho)) lambda = 0.0;
    else if (rho == 0) lambda = -HUGE_VAL;  // clamped below
    else if (std::isinf(rho)) lambda = HUGE_VAL;
    else lambda = log2Table(rho) / 256.0;
  }
  // Bias, then the descriptor's clamps, then the levels there are.
  lambda += double(d.lod_bias);
  lambda = std::max(std::min(lambda, double(d.max_lod_clamp)), double(d.min_lod_clamp));
  lambda = std::clamp(lambda, 0.0, double(d.levels - 1));
  // In 1/256 of a level, truncated: on the H200 tex.level with lambda = k/512 returns 256 floor(k/2)/512
  // (lod_const_lin, 4096 steps of 1/512), and lambda 1.5 - 1/65536 the fraction 255/256
  // (lod_const_lin_fine, steps of 1/65536 around 1.5).
  return std::int64_t(std::floor(lambda * 256.0));
}

TexResult sampleTexture(const TextureDesc& d, const TexCoords& c, const TexelReadFn& read, std::uint64_t* first_texel,
                        std::uint32_t* texels) {
  TexCoords lc = c;
  if (d.cubemap()) {
    // The face's texels as a 2D fetch of layer 6 cube + face; a cube index past the last is clamped.
    const CubeFace f = cubeFace(c.f);
    const std::uint32_t cubes = d.layered() ? std::max(d.layers, 1u) : 1u;
    const std::uint32_t cube = d.layered() ? std::min(c.layer, cubes - 1) : 0u;
    lc.f[0] = f.u;
    lc.f[1] = f.v;
    lc.f[2] = 0;
    lc.dims = 2;
    lc.layer = cube * 6 + f.face;
  }
  const std::int64_t q = levelOfDetail(d, c);
  const std::int64_t last = std::int64_t(d.levels) - 1;
  std::int64_t l0, frac;
  if (d.mipLinear()) {
    l0 = std::min(q >> 8, last);
    frac = l0 == last ? 0 : (q & 255);
  } else {
    // The nearest level, half-way rounding up: lambda = 0.5, 1.5, ... take the level above on the
    // H200 (lod_const_pt; lod_const_pt_fine: 1.5 - 1/65536 takes level 1, 1.5 level 2), unlike
    // OpenGL's ceil(lambda + 1/2) - 1.
    l0 = std::min((q + 128) >> 8, last);
    frac = 0;
  }
  if (frac == 0) return sampleOneLevel(levelDesc(d, std::uint32_t(l0)), lc, read, first_texel, texels);
  std::uint32_t more = 0;
  if (d.dims < 3 || d.cubemap()) {
    // Linear between levels: one weighted sum over both levels' footprints, the lower level's
    // weights totalling 256 - frac and the upper's frac (mipFilterWeights), rounded once (only
    // float results get here: TextureDesc::validate).
    TexelSums sums;
    sampleOneLevel(levelDesc(d, std::uint32_t(l0)), lc, read, first_texel, texels, 256 - frac, &sums);
    sampleOneLevel(levelDesc(d, std::uint32_t(l0 + 1)), lc, read, nullptr, &more, frac, &sums);
    if (texels) *texels += more;
    return finishSums(d, sums);
  }
  // 3D levels (not measured): each level's filtered result, weighted (256 - frac) and frac,
  // summed exactly and rounded once to f32.
  const TexResult a = sampleOneLevel(levelDesc(d, std::uint32_t(l0)), lc, read, first_texel, texels);
  const TexResult b = sampleOneLevel(levelDesc(d, std::uint32_t(l0 + 1)), lc, read, nullptr, &more);
  if (texels) *texels += more;
  TexResult r;
  for (int ch = 0; ch < 4; ++ch) {
    float fa, fb;
    std::memcpy(&fa, &a.v[ch], 4);
    std::memcpy(&fb, &b.v[ch], 4);
    const float v = float((double(256 - frac) * fa + double(frac) * fb) / 256.0);
    std::memcpy(&r.v[ch], &v, 4);
  }
  return r;
}

std::uint32_t queryTexture(const TextureDesc& d, ptx::TexQuery q, std::int64_t level, bool surface) {
  if (level < 0 || level >= d.levels) {
    if (q == ptx::TexQuery::Width || q == ptx::TexQuery::Height || q == ptx::TexQuery::Depth) return 0;
    level = 0;
  }
  const TexLevel g = d.levelGeometry(std::uint32_t(level));
  switch (q) {
    case ptx::TexQuery::Width: return g.width;
    case ptx::TexQuery::Height: return g.height;
    // A texture that is not 3D has depth 0: the H200's txq.level.depth of 2D and cube textures
    // (tex_mip_probe.cu's txq_* lines; txq.depth compiles to the same TXQ TEX_HEADER_DIMENSION
    // query, at level 0). Surfaces' suq.depth is not measured and stays 1.
    case ptx::TexQuery::Depth: return d.dims == 3 || surface ? g.depth : 0;
    case ptx::TexQuery::ChannelDataType: return cuArrayFormat(d.kind, d.bits);
    case ptx::TexQuery::ChannelOrder: return d.channels;
    case ptx::TexQuery::NormalizedCoords: return d.normalizedCoords() ? 1 : 0;
    case ptx::TexQuery::FilterMode: return d.linearFilter() ? 1 : 0;
    case ptx::TexQuery::AddrMode0: return std::uint32_t(d.addr[0]);
    case ptx::TexQuery::AddrMode1: return std::uint32_t(d.addr[1]);
    case ptx::TexQuery::AddrMode2: return std::uint32_t(d.addr[2]);
    case ptx::TexQuery::NumMipmapLevels: return d.levels;
    case ptx::TexQuery::NumSamples: return 0;
    case ptx::TexQuery::ArraySize: return d.layered() ? d.layers : 0;
    default: return 0;
  }
}

TexResult gatherTexture(const TextureDesc& d, float x, float y, std::uint32_t layer, int comp, const TexelReadFn& read,
                        std::uint64_t* first_texel) {
  Fetcher f(d, layer, read);
  const bool norm = d.normalizedCoords();
  std::int64_t i0, j0;
  std::uint32_t a, b;
  linearSplit(texelCoord(x, d.width, norm), &i0, &a);
  linearSplit(texelCoord(y, d.height, norm), &j0, &b);
  const std::int64_t xi[2] = {addressIndex(i0, d.width, d.addr[0], norm), addressIndex(i0 + 1, d.width, d.addr[0], norm)};
  const std::int64_t yj[2] = {addressIndex(j0, d.height, d.addr[1], norm),
                              addressIndex(j0 + 1, d.height, d.addr[1], norm)};
  const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  TexResult r;
  comp &= 3;
  for (int k = 0; k < 4; ++k) {
    const Texel t = f.at(xi[order[k][0]], yj[order[k][1]], 0);
    if (d.returnsFloat()) std::memcpy(&r.v[k], &t.f[comp], 4);
    else r.v[k] = t.u[comp];
  }
  if (first_texel) *first_texel = f.first();
  return r;
}

}  // namespace scgpu::sm
