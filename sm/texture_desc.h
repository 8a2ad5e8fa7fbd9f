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
//                as normalized floats (cudaReadModeNormalizedFloat), bit 3 layered (array index)
//        8    8  base: device address of texel (0, 0, 0) of layer 0
//       16    4  width (texels)
//       20    4  height (1 for 1D)
//       24    4  depth (1 unless 3D)
//       28    4  layers (0 unless layered)
//       32    8  pitch: bytes from one row to the next
//       40    8  slice pitch: bytes from one 2D slice (3D) or layer to the next
//       48    3  address mode of each dimension (cudaTextureAddressMode: 0 wrap, 1 clamp, 2 mirror, 3 border)
//       51    1  resource type (cudaResourceType: 0 array, 2 linear, 3 pitch 2D)
//       52    1  dimensions: 1, 2 or 3
//       53    3  reserved (0)
//       56   16  border colour: 4 x f32 (R, G, B, A)
//       72   56  reserved (0)
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace scgpu::sm {

constexpr std::uint32_t kTextureMagic = 0x44584554u;  // "TEXD"
constexpr std::uint32_t kSurfaceMagic = 0x44525553u;  // "SURD"
constexpr std::uint32_t kTexDescBytes = 128;          // size and alignment of a descriptor

enum class ChannelKind : std::uint8_t { Signed = 0, Unsigned = 1, Float = 2 };  // as cudaChannelFormatKind
enum class TexAddressMode : std::uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };
enum TexDescFlag : std::uint8_t { kTexNormalizedCoords = 1, kTexLinearFilter = 2, kTexReadNormalized = 4, kTexLayered = 8 };
enum class TexResource : std::uint8_t { Array = 0, Linear = 2, Pitch2D = 3 };

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

  std::uint32_t texelBytes() const { return std::uint32_t(bits) / 8 * channels; }
  bool normalizedCoords() const { return flags & kTexNormalizedCoords; }
  bool linearFilter() const { return flags & kTexLinearFilter; }
  bool readNormalized() const { return flags & kTexReadNormalized; }
  bool layered() const { return flags & kTexLayered; }
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
