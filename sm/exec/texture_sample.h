// The texture unit's arithmetic, apart from the SM so that tests can drive it on host memory:
// addressing (wrap, clamp, mirror, border), point and linear filtering with the weights in 1.8
// fixed point, format conversion (normalized-float reads, f16), gathers (tld4). Identified
// against an H200 (docs/data/tex_probe/: every case of h200_tex_probe.txt is reproduced bit for
// bit but 28 of 256 trilinear samples; testbench/texture_test.cpp replays them).
#pragma once

#include <cstdint>
#include <functional>

#include "sm/texture_desc.h"

namespace scgpu::sm {

// Reads `bytes` bytes of device memory at `addr` into `out` (may throw a FaultSignal).
using TexelReadFn = std::function<void(std::uint64_t addr, std::uint32_t bytes, std::uint8_t* out)>;

struct TexCoords {
  bool integer = false;               // .s32 coordinates: texel indices, no filtering
  float f[3] = {0, 0, 0};             // .f32 coordinates
  std::int32_t i[3] = {0, 0, 0};      // .s32 coordinates
  std::uint32_t layer = 0;            // the array index of .a1d/.a2d
  std::uint32_t dims = 1;             // coordinates given: 1, 2 or 3
};

// Four 32-bit results: floats' bits when d.returnsFloat(), else integers (sign- or zero-extended).
struct TexResult {
  std::uint32_t v[4] = {0, 0, 0, 0};
};

// tex: one sample. *first_texel (optional) receives the address of the footprint's first texel
// in memory (or 0 when every texel was outside and none was read), *texels the texels read.
TexResult sampleTexture(const TextureDesc& d, const TexCoords& c, const TexelReadFn& read,
                        std::uint64_t* first_texel = nullptr, std::uint32_t* texels = nullptr);
// tld4: component `comp` of the four texels bilinear filtering at (x, y) would use, in the order
// (i, j+1), (i+1, j+1), (i+1, j), (i, j).
TexResult gatherTexture(const TextureDesc& d, float x, float y, std::uint32_t layer, int comp, const TexelReadFn& read,
                        std::uint64_t* first_texel = nullptr);

}  // namespace scgpu::sm
