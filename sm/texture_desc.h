// Texture and surface objects as the SM finds them: a handle (cudaTextureObject_t,
// cudaSurfaceObject_t, a launch file's texture argument) is the device address of a 128-byte
// descriptor in global memory, written by whoever creates the object (cudart, the launch-file
// loader, a driver) and read by tex/tld4/txq/suld/sust/suq (sm/exec/texture.cpp). A handle that
// is not 128-byte aligned, not mapped, or whose descriptor has the wrong magic word faults the
// kernel ("invalid texture handle"). Layout, little-endian (docs: sm/exec/README.md):
//
//   offset size  field
//        0    4  magic: kTextureMagic ('TEXD') or kSurfaceMagic ('SURD'); 0 once destroyed
//        4    1  channel kind: 0 signed integer, 1 unsigned integer, 2 float (cudaChannelFormatKind)
//        5    1  bits per channel: 8, 16 or 32 (16 with float kind: f16)
//        6    1  channels: 1, 2 or 4
//        7    1  flags: bit 0 normalized coordinates, bit 1 linear filtering, bit 2 read integers
//                as normalized floats (cudaReadModeNormalizedFloat), bit 3 layered (array index),
//                bit 4 cube map (6 square 2D faces a cube, layers counts cubes)
//        8    8  base: device address of texel (0, 0, 0) of layer 0
//       16    4  width (texels)
//       20    4  height (1 for 1D)
//       24    4  depth (1 unless 3D)
//       28    4  layers (0 unless layered; cubes for a layered cube map)
//       32    8  pitch: bytes from one row to the next
//       40    8  slice pitch: bytes from one 2D slice (3D) or layer to the next
//       48    3  address mode of each dimension (cudaTextureAddressMode: 0 wrap, 1 clamp, 2 mirror, 3 border)
//       51    1  resource type (cudaResourceType: 0 array, 2 linear, 3 pitch 2D)
//       52    1  dimensions: 1, 2 or 3
//       53    3  reserved (0)
//       56   16  border colour: 4 x f32 (R, G, B, A)
//       72    1  mipmap levels (1 ... floor(log2(largest dimension)) + 1; 0 reads as 1)
//       73    1  mipmap flags: bit 0 linear mipmap filter (blend two levels), else nearest level
//       74    1  log2 of the row alignment (bytes) of levels 1 and up
//       75    1  reserved (0)
//       76    4  mipmap level bias, f32 (added to the level of detail, tex.level's too)
//       80    4  min mipmap level clamp, f32
//       84    4  max mipmap level clamp, f32
//       88   40  reserved (0)
//
// Slices: a 3D texture's depth slices, a layered texture's layers, a cube map's faces (face f of
// cube c at slice 6c + f, faces in cudaGraphicsCubeFace order +x -x +y -y +z -z), each
// `slice pitch` bytes after the last. Mipmap levels: level 0 is the geometry above; level l halves
// width, height and (3D) depth of level l-1 (rounded down, at least 1; layers and faces stay), and
// starts right after level l-1's last slice; its rows are width x texel bytes rounded up to the
// row alignment, its slices rows x height bytes. So a descriptor needs no table of levels
// (levelGeometry computes one), and whoever fills the levels (cudart's mipmapped arrays, the
// launch-file loader) lays them out the same way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace scgpu::sm {

constexpr std::uint32_t kTextureMagic = 0x44584554u;  // "TEXD"
constexpr std::uint32_t kSurfaceMagic = 0x44525553u;  // "SURD"
constexpr std::uint32_t kTexDescBytes = 128;          // size and alignment of a descriptor

enum class ChannelKind : std::uint8_t { Signed = 0, Unsigned = 1, Float = 2 };  // as cudaChannelFormatKind
enum class TexAddressMode : std::uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };
enum TexDescFlag : std::uint8_t {
  kTexNormalizedCoords = 1, kTexLinearFilter = 2, kTexReadNormalized = 4, kTexLayered = 8, kTexCubemap = 16
};
enum TexMipFlag : std::uint8_t { kTexMipLinear = 1 };
enum class TexResource : std::uint8_t { Array = 0, Linear = 2, Pitch2D = 3 };
constexpr std::uint32_t kTexMaxLevels = 32;  // enough for any 32-bit extent

// One mipmap level's place in memory (TextureDesc::levelGeometry).
struct TexLevel {
  std::uint64_t base = 0, pitch = 0, slice_pitch = 0;
  std::uint32_t width = 1, height = 1, depth = 1;
};

struct TextureDesc {
  std::uint32_t magic = kTextureMagic;
  ChannelKind kind = ChannelKind::Float;
  std::uint8_t bits = 32;
  std::uint8_t channels = 1;
  std::uint8_t flags = 0;
  std::uint64_t base = 0;
  std::uint32_t width = 1, height = 1, depth = 1, layers = 0;
  std::uint64_t pitch = 0, slice_pitch = 0;
  TexAddressMode addr[3] = {TexAddressMode::Clamp, TexAddressMode::Clamp, TexAddressMode::Clamp};
  TexResource resource = TexResource::Array;
  std::uint8_t dims = 1;
  float border[4] = {0, 0, 0, 0};
  std::uint8_t levels = 1;  // mipmap levels
  std::uint8_t mip_flags = 0;
  std::uint8_t level_align_log2 = 0;
  float lod_bias = 0, min_lod_clamp = 0, max_lod_clamp = 0;

  std::uint32_t texelBytes() const { return std::uint32_t(bits) / 8 * channels; }
  bool normalizedCoords() const { return flags & kTexNormalizedCoords; }
  bool linearFilter() const { return flags & kTexLinearFilter; }
  bool readNormalized() const { return flags & kTexReadNormalized; }
  bool layered() const { return flags & kTexLayered; }
  bool cubemap() const { return flags & kTexCubemap; }
  bool mipLinear() const { return mip_flags & kTexMipLinear; }
  // 2D slices per level: depth (3D), layers, faces (6 a cube), or 1.
  std::uint64_t slicesAt(std::uint32_t depth_at_level) const {
    if (cubemap()) return 6ull * (layered() ? layers : 1);
    if (layered()) return layers;
    return depth_at_level;
  }
  // The largest number of levels the extent allows: floor(log2(largest dimension)) + 1.
  std::uint32_t maxLevels() const {
    std::uint32_t m = std::max(width, dims >= 2 ? height : 1u);
    if (dims == 3) m = std::max(m, depth);
    std::uint32_t n = 1;
    while (m >>= 1) ++n;
    return n;
  }
  // Where level l lies (l < levels), by the rule in the header comment.
  TexLevel levelGeometry(std::uint32_t l) const {
    TexLevel g;
    g.base = base;
    g.pitch = pitch;
    g.slice_pitch = slice_pitch;
    g.width = width;
    g.height = height;
    g.depth = depth;
    const std::uint64_t align = std::uint64_t(1) << std::min<std::uint32_t>(level_align_log2, 30);
    for (std::uint32_t k = 0; k < l; ++k) {
      g.base += g.slice_pitch * slicesAt(g.depth);
      g.width = std::max(1u, g.width >> 1);
      g.height = std::max(1u, g.height >> 1);
      g.depth = std::max(1u, g.depth >> 1);
      g.pitch = (std::uint64_t(g.width) * texelBytes() + align - 1) / align * align;
      g.slice_pitch = g.pitch * g.height;
    }
    return g;
  }
  // Bytes from base to the end of the last level's last slice.
  std::uint64_t footprintBytes() const {
    const TexLevel g = levelGeometry(std::uint32_t(levels ? levels - 1 : 0));
    return g.base - base + g.slice_pitch * slicesAt(g.depth);
  }
  // Whether a fetch returns floats (float formats, or integers read as normalized floats).
  bool returnsFloat() const { return kind == ChannelKind::Float || readNormalized(); }

  // The descriptor's bytes in device memory.
  void encode(std::uint8_t out[kTexDescBytes]) const {
    std::memset(out, 0, kTexDescBytes);
    std::memcpy(out + 0, &magic, 4);
    out[4] = std::uint8_t(kind);
    out[5] = bits;
    out[6] = channels;
    out[7] = flags;
    std::memcpy(out + 8, &base, 8);
    std::memcpy(out + 16, &width, 4);
    std::memcpy(out + 20, &height, 4);
    std::memcpy(out + 24, &depth, 4);
    std::memcpy(out + 28, &layers, 4);
    std::memcpy(out + 32, &pitch, 8);
    std::memcpy(out + 40, &slice_pitch, 8);
    for (int i = 0; i < 3; ++i) out[48 + i] = std::uint8_t(addr[i]);
    out[51] = std::uint8_t(resource);
    out[52] = dims;
    std::memcpy(out + 56, border, 16);
    out[72] = levels;
    out[73] = mip_flags;
    out[74] = level_align_log2;
    std::memcpy(out + 76, &lod_bias, 4);
    std::memcpy(out + 80, &min_lod_clamp, 4);
    std::memcpy(out + 84, &max_lod_clamp, 4);
  }
  // Reads a descriptor; false (with *why) when the bytes are not one of `magic`'s kind.
  static bool decode(const std::uint8_t in[kTexDescBytes], std::uint32_t want_magic, TextureDesc* d, std::string* why) {
    std::memcpy(&d->magic, in, 4);
    if (d->magic != want_magic) {
      *why = d->magic == (want_magic == kTextureMagic ? kSurfaceMagic : kTextureMagic)
                 ? (want_magic == kTextureMagic ? "it is a surface object, not a texture object"
                                                : "it is a texture object, not a surface object")
                 : "no live object there (never created, or destroyed)";
      return false;
    }
    d->kind = ChannelKind(in[4]);
    d->bits = in[5];
    d->channels = in[6];
    d->flags = in[7];
    std::memcpy(&d->base, in + 8, 8);
    std::memcpy(&d->width, in + 16, 4);
    std::memcpy(&d->height, in + 20, 4);
    std::memcpy(&d->depth, in + 24, 4);
    std::memcpy(&d->layers, in + 28, 4);
    std::memcpy(&d->pitch, in + 32, 8);
    std::memcpy(&d->slice_pitch, in + 40, 8);
    for (int i = 0; i < 3; ++i) d->addr[i] = TexAddressMode(in[48 + i]);
    d->resource = TexResource(in[51]);
    d->dims = in[52];
    std::memcpy(d->border, in + 56, 16);
    d->levels = in[72] ? in[72] : 1;
    d->mip_flags = in[73];
    d->level_align_log2 = in[74];
    std::memcpy(&d->lod_bias, in + 76, 4);
    std::memcpy(&d->min_lod_clamp, in + 80, 4);
    std::memcpy(&d->max_lod_clamp, in + 84, 4);
    *why = validate(*d);
    return why->empty();
  }
  // What is wrong with a descriptor's fields, or "" (the creators check the same before writing one).
  static std::string validate(const TextureDesc& d) {
    if (d.kind > ChannelKind::Float) return "bad channel kind";
    if (!(d.bits == 8 || d.bits == 16 || d.bits == 32)) return "bits per channel must be 8, 16 or 32";
    if (d.kind == ChannelKind::Float && d.bits == 8) return "8-bit floats are not a texture format";
    if (!(d.channels == 1 || d.channels == 2 || d.channels == 4)) return "channels must be 1, 2 or 4";
    if (d.width == 0 || d.height == 0 || d.depth == 0) return "zero width, height or depth";
    if (d.dims < 1 || d.dims > 3) return "dimensions must be 1, 2 or 3";
    for (auto a : d.addr)
      if (std::uint8_t(a) > 3) return "bad address mode";
    if (d.readNormalized() && (d.kind == ChannelKind::Float || d.bits == 32))
      return "normalized-float reads take 8- or 16-bit integer formats";
    if (d.linearFilter() && !d.returnsFloat())
      return "linear filtering needs a float format or normalized-float reads";
    if (d.base % d.texelBytes()) return "base address not a multiple of the texel size";
    if (d.pitch % d.texelBytes() || d.slice_pitch % d.texelBytes()) return "pitch not a multiple of the texel size";
    if (d.pitch < std::uint64_t(d.width) * d.texelBytes()) return "pitch smaller than a row";
    if (d.cubemap()) {
      if (d.dims != 2) return "a cube map has 2D faces";
      if (d.width != d.height) return "cube map faces must be square (width " + std::to_string(d.width) +
                                      ", height " + std::to_string(d.height) + ")";
      if (d.layered() && d.layers == 0) return "a layered cube map needs at least one cube";
    }
    if (d.magic == kSurfaceMagic && (d.levels > 1 || d.cubemap()))
      return "a surface is one level of 2D slices (a cube map's faces are its layers)";
    if (d.levels == 0 || d.levels > d.maxLevels())
      return "mipmap levels must be 1 to " + std::to_string(d.maxLevels()) + " (floor(log2(" +
             std::to_string(std::max({d.width, d.dims >= 2 ? d.height : 1u, d.dims == 3 ? d.depth : 1u})) +
             ")) + 1), found " + std::to_string(d.levels);
    if (d.mip_flags & ~kTexMipLinear) return "bad mipmap flags";
    if (d.mipLinear() && !d.returnsFloat())
      return "linear mipmap filtering needs a float format or normalized-float reads";
    if (d.level_align_log2 > 12) return "level row alignment above 4096 bytes";
    if (d.lod_bias != d.lod_bias || d.min_lod_clamp != d.min_lod_clamp || d.max_lod_clamp != d.max_lod_clamp)
      return "mipmap bias or clamp is not a number";
    return "";
  }
};

// CUDA's CUarray_format code of a format (what txq/suq .channel_data_type return).
inline std::uint32_t cuArrayFormat(ChannelKind k, std::uint8_t bits) {
  if (k == ChannelKind::Float) return bits == 16 ? 0x10 : 0x20;
  const std::uint32_t size = bits == 8 ? 0 : bits == 16 ? 1 : 2;
  return (k == ChannelKind::Unsigned ? 0x01 : 0x08) + size;
}

}  // namespace scgpu::sm
