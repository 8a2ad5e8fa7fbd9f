// The texture unit's arithmetic, apart from the SM so that tests can drive it on host memory:
// addressing (wrap, clamp, mirror, border), point and linear filtering with the weights in 1.8
// fixed point, format conversion (normalized-float reads, f16), gathers (tld4), cube-map face
// selection and mipmap level selection (tex.level, tex.grad). Identified
// against an H200 (docs/data/tex_probe/: every case of h200_tex_probe.txt is reproduced bit for
// bit, testbench/texture_test.cpp replays them; h200_tex_mip_probe.txt's cases as
// testbench/texture_mip_probe_test.cpp and docs/validation.md list them).
#pragma once

#include <cstdint>
#include <functional>

#include "ptx/texture_decode.h"
#include "sm/texture_desc.h"

namespace scgpu::sm {

// tex.grad's log2, as measured on an H200: the level-of-detail fraction (in 1/256 of a level) for
// each 1/256 of an octave of the footprint, indexed by the top 8 bits of its significand
// (texture_sample.cpp says how it was found). Data, shared with the tests' CPU reference.
extern const std::uint8_t kTexLodLog2Table[256];

// Reads `bytes` bytes of device memory at `addr` into `out` (may throw a FaultSignal).
using TexelReadFn = std::function<void(std::uint64_t addr, std::uint32_t bytes, std::uint8_t* out)>;

// How a fetch picks its mipmap level: level 0 (plain tex: compute shaders have no implicit
// derivatives), an explicit level of detail (tex.level), or one computed from gradients (tex.grad).
enum class TexLod : std::uint8_t { Base, Level, Grad };

struct TexCoords {
  bool integer = false;               // .s32 coordinates: texel indices, no filtering
  float f[3] = {0, 0, 0};             // .f32 coordinates (a cube map: the direction x, y, z)
  std::int32_t i[3] = {0, 0, 0};      // .s32 coordinates
  std::uint32_t layer = 0;            // the array index of .a1d/.a2d, the cube of .acube
  std::uint32_t dims = 1;             // coordinates given: 1, 2 or 3
  bool cube = false;                  // .cube/.acube: f is a direction
  TexLod lod = TexLod::Base;
  float level = 0;                    // TexLod::Level: the level of detail
  float ddx[3] = {0, 0, 0}, ddy[3] = {0, 0, 0};  // TexLod::Grad: d(coordinates)/dx and /dy
};

// A cube map's face for a direction, as the CUDA programming guide's cube-map table gives it
// (the major axis m; s and t; face coordinates ((s/|m| + 1) / 2, (t/|m| + 1) / 2)). Ties between
// axes of equal magnitude go to z, then y (the guide leaves them open; the H200 chose so in
// tex_mip_probe.cu's cube_* cases).
struct CubeFace {
  std::uint32_t face = 0;  // 0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z
  int s_axis = 0, t_axis = 0, m_axis = 0;
  float s_sign = 1, t_sign = 1, m_sign = 1;  // s = s_sign * v[s_axis], ..., m = |v[m_axis]|
  float u = 0, v = 0;                        // face coordinates in [0, 1]
};
CubeFace cubeFace(const float dir[3]);

// The level of detail a fetch uses, in 1/256 of a level, clamped to [0, levels - 1] (texture_sample.cpp).
std::int64_t levelOfDetail(const TextureDesc& d, const TexCoords& c);

// Four 32-bit results: floats' bits when d.returnsFloat(), else integers (sign- or zero-extended).
struct TexResult {
  std::uint32_t v[4] = {0, 0, 0, 0};
};

// tex: one sample. *first_texel (optional) receives the address of the footprint's first texel
// in memory (or 0 when every texel was outside and none was read), *texels the texels read.
TexResult sampleTexture(const TextureDesc& d, const TexCoords& c, const TexelReadFn& read,
                        std::uint64_t* first_texel = nullptr, std::uint32_t* texels = nullptr);
// txq/suq: query q of d; `level` is txq.level's mipmap level (0 otherwise): its width, height or
// depth, 0 for a level the texture does not have. `surface`: suq (surfaces keep depth 1 unless 3D).
std::uint32_t queryTexture(const TextureDesc& d, ptx::TexQuery q, std::int64_t level, bool surface = false);
// tld4: component `comp` of the four texels bilinear filtering at (x, y) would use, in the order
// (i, j+1), (i+1, j+1), (i+1, j), (i, j).
TexResult gatherTexture(const TextureDesc& d, float x, float y, std::uint32_t layer, int comp, const TexelReadFn& read,
                        std::uint64_t* first_texel = nullptr);

}  // namespace scgpu::sm
