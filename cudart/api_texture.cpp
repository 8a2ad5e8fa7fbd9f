// CUDA arrays, texture objects and surface objects. An array (cudaArray_t) is a host-side record
// of a pitch-linear allocation in device memory (rows kArrayPitchAlignBytes-aligned; CUDA's own
// layout is opaque, so any layout serves); a texture or surface object is the device address of
// the 128-byte descriptor the SM reads (sm/texture_desc.h), which this file writes at creation
// and kills at destruction. A cube-map array is a layered one of 6 faces a cube (cudaArrayCubemap
// [+ cudaArrayLayered], faces in cudaGraphicsCubeFace order). A mipmapped array is one allocation
// holding its levels as the descriptor lays them out (sm/texture_desc.h: level after level, rows of
// levels >= 1 kArrayPitchAlignBytes-aligned like level 0's); each level is also an array (a view
// into it, freed with it) that cudaGetMipmappedArrayLevel returns and the copies fill. Resource
// views, sRGB and seamless cube-map filtering are not supported (cudaErrorNotSupported with a message).
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "cudart/api_common.h"
#include "sm/texture_desc.h"

using scgpu::cudart::State;
using scgpu::cudart::onDevice;
namespace abi = scgpu::cudart::abi;
using Error = abi::Error;

namespace {

constexpr std::size_t kArrayPitchAlignBytes = 128;  // row alignment of an array's storage
constexpr std::uint8_t kLevelAlignLog2 = 7;           // the same for levels >= 1 of mipmapped arrays
static_assert(std::size_t(1) << kLevelAlignLog2 == kArrayPitchAlignBytes);

struct ArrayObject {
  void* data = nullptr;
  abi::ChannelFormatDesc desc{};
  scgpu::sm::ChannelKind kind = scgpu::sm::ChannelKind::Float;
  std::uint8_t bits = 32, channels = 1;
  std::size_t width = 0, height = 0, depth = 0;  // as created (0: the dimension is absent)
  unsigned flags = 0;
  std::size_t pitch = 0, slice_pitch = 0;
  bool view = false;  // a level of a mipmapped array: its data belong to that
  std::size_t texelBytes() const { return std::size_t(bits) / 8 * channels; }
  std::size_t rows() const { return height ? height : 1; }
  std::size_t slices() const { return depth ? depth : 1; }
};

struct MipmappedObject {
  ArrayObject top;  // level 0's format, extent and flags; data: the whole allocation
  std::uint32_t levels = 1;
  std::vector<ArrayObject*> level_arrays;
};

struct Object {
  abi::ResourceDesc res{};
  abi::TextureDesc tex{};
  bool surface = false;
};

// Under the runtime's lock (every entry point runs in onDevice).
std::set<ArrayObject*>& arrays() {
  static std::set<ArrayObject*> a;
  return a;
}
std::map<std::uint64_t, Object>& objects() {
  static std::map<std::uint64_t, Object> o;
  return o;
}

std::set<MipmappedObject*>& mipmappedArrays() {
  static std::set<MipmappedObject*> m;
  return m;
}
MipmappedObject* findMipmapped(const void* m) {
  auto* p = static_cast<MipmappedObject*>(const_cast<void*>(m));
  return mipmappedArrays().count(p) ? p : nullptr;
}

ArrayObject* findArray(const void* a) {
  auto* p = static_cast<ArrayObject*>(const_cast<void*>(a));
  return arrays().count(p) ? p : nullptr;
}

// A channel description as the descriptor's format; false when scgpu has no such format.
bool formatOf(const abi::ChannelFormatDesc& d, scgpu::sm::ChannelKind* kind, std::uint8_t* bits, std::uint8_t* channels) {
  const int c[4] = {d.x, d.y, d.z, d.w};
  int n = 0;
  while (n < 4 && c[n] != 0) ++n;
  for (int i = n; i < 4; ++i)
    if (c[i] != 0) return false;
  for (int i = 1; i < n; ++i)
    if (c[i] != c[0]) return false;
  if (n != 1 && n != 2 && n != 4) return false;
  if (c[0] != 8 && c[0] != 16 && c[0] != 32) return false;
  if (d.f != abi::kChannelSigned && d.f != abi::kChannelUnsigned && d.f != abi::kChannelFloat) return false;
  if (d.f == abi::kChannelFloat && c[0] == 8) return false;
  *kind = scgpu::sm::ChannelKind(d.f);
  *bits = std::uint8_t(c[0]);
  *channels = std::uint8_t(n);
  return true;
}

// The checks of an array's extent and flags that plain and mipmapped arrays share.
Error checkExtent(State& s, std::size_t w, std::size_t h, std::size_t d, unsigned flags, const char* what) {
  if (flags & ~unsigned(abi::kArrayLayered | abi::kArraySurfaceLoadStore | abi::kArrayTextureGather | abi::kArrayCubemap))
    return s.fail(abi::kNotSupported, fmt::format("{}: array flags {:#x} are not supported", what, flags));
  if (w == 0 || (d && !h && !(flags & abi::kArrayLayered)) || w > (1u << 30) || h > (1u << 30) || d > (1u << 30))
    return s.fail(abi::kInvalidValue, fmt::format("{}: bad extent {} x {} x {}", what, w, h, d));
  if ((flags & abi::kArrayLayered) && d == 0)
    return s.fail(abi::kInvalidValue, fmt::format("{}: a layered array needs a depth (its layers)", what));
  if (flags & abi::kArrayCubemap) {
    if (w != h)
      return s.fail(abi::kInvalidValue, fmt::format("{}: cube-map faces must be square, found {} x {}", what, w, h));
    const bool layered = flags & abi::kArrayLayered;
    if (layered ? (d == 0 || d % 6) : d != 6)
      return s.fail(abi::kInvalidValue, fmt::format("{}: a cube map's depth is {}, found {}", what,
                                                    layered ? "a multiple of 6 (6 faces a cube)" : "6 (its faces)", d));
  }
  return abi::kSuccess;
}

Error makeArray(State& s, void** out, const abi::ChannelFormatDesc* desc, std::size_t w, std::size_t h, std::size_t d,
                unsigned flags, const char* what) {
  if (!out || !desc) return s.fail(abi::kInvalidValue);
  ArrayObject a;
  if (!formatOf(*desc, &a.kind, &a.bits, &a.channels))
    return s.fail(abi::kInvalidChannelDescriptor,
                  fmt::format("{}: channel format ({}, {}, {}, {}) of kind {} is not supported (1, 2 or 4 equal channels "
                              "of 8, 16 or 32 bits; signed, unsigned or float)",
                              what, desc->x, desc->y, desc->z, desc->w, desc->f));
  if (const Error e = checkExtent(s, w, h, d, flags, what)) return e;
  a.desc = *desc;
  a.width = w;
  a.height = h;
  a.depth = d;
  a.flags = flags;
  a.pitch = (w * a.texelBytes() + kArrayPitchAlignBytes - 1) / kArrayPitchAlignBytes * kArrayPitchAlignBytes;
  a.slice_pitch = a.pitch * a.rows();
  if (const Error e = s.malloc(&a.data, a.slice_pitch * a.slices())) return e;
  auto* p = new ArrayObject(a);
  arrays().insert(p);
  *out = p;
  return abi::kSuccess;
}

// Copies `height` rows of `width` bytes between an array (at byte wOffset of row hOffset, slice z)
// and pitched memory.
Error arrayCopy(State& s, ArrayObject& a, bool to_array, std::size_t w_off, std::size_t h_off, std::size_t z,
                void* mem, std::size_t mem_pitch, std::size_t width, std::size_t height, abi::MemcpyKind kind,
                void* stream, bool async, const char* what) {
  const std::size_t row = a.width * a.texelBytes();
  if (w_off > row || width > row - w_off || h_off > a.rows() || height > a.rows() - h_off || z >= a.slices())
    return s.fail(abi::kInvalidValue, fmt::format("{}: the copy leaves the array ({} x {} bytes, {} slices)", what, row,
                                                  a.rows(), a.slices()));
  char* base = static_cast<char*>(a.data) + z * a.slice_pitch + h_off * a.pitch + w_off;
  return to_array ? s.memcpy2D(base, a.pitch, mem, mem_pitch, width, height, kind, stream, async)
                  : s.memcpy2D(mem, mem_pitch, base, a.pitch, width, height, kind, stream, async);
}

// `count` bytes starting at byte wOffset of row hOffset, row after row (cudaMemcpyToArray).
Error arrayLinearCopy(State& s, ArrayObject& a, bool to_array, std::size_t w_off, std::size_t h_off, void* mem,
                      std::size_t count, abi::MemcpyKind kind, void* stream, bool async, const char* what) {
  const std::size_t row = a.width * a.texelBytes();
  char* m = static_cast<char*>(mem);
  while (count) {
    if (h_off >= a.rows()) return s.fail(abi::kInvalidValue, fmt::format("{}: the copy leaves the array", what));
    const std::size_t n = std::min(count, row - std::min(row, w_off));
    if (n == 0) return s.fail(abi::kInvalidValue, fmt::format("{}: offset beyond the row", what));
    if (const Error e = arrayCopy(s, a, to_array, w_off, h_off, 0, m, n, n, 1, kind, stream, async, what)) return e;
    m += n;
    count -= n;
    w_off = 0;
    ++h_off;
  }
  return abi::kSuccess;
}

// A texture or surface descriptor's format and geometry from an array. A cube map's faces are 2D
// slices: a cube-map texture, or (a surface, which PTX addresses as .a2d) a layered array of faces.
void describeArray(const ArrayObject& a, bool surface, scgpu::sm::TextureDesc* d) {
  d->kind = a.kind;
  d->bits = a.bits;
  d->channels = a.channels;
  d->base = reinterpret_cast<std::uint64_t>(a.data);
  d->width = std::uint32_t(a.width);
  d->height = std::uint32_t(a.rows());
  d->pitch = a.pitch;
  d->slice_pitch = a.slice_pitch;
  if ((a.flags & abi::kArrayCubemap) && !surface) {
    d->flags |= scgpu::sm::kTexCubemap;
    d->dims = 2;
    if (a.flags & abi::kArrayLayered) {
      d->flags |= scgpu::sm::kTexLayered;
      d->layers = std::uint32_t(a.slices() / 6);
    }
  } else if (a.flags & (abi::kArrayLayered | abi::kArrayCubemap)) {
    d->flags |= scgpu::sm::kTexLayered;
    d->layers = std::uint32_t(a.slices());
    d->dims = a.height ? 2 : 1;
  } else {
    d->depth = std::uint32_t(a.slices());
    d->dims = a.depth ? 3 : a.height ? 2 : 1;
  }
}

Error createObject(State& s, std::uint64_t* out, const abi::ResourceDesc* res, const abi::TextureDesc* tex,
                   bool surface, const char* what) {
  if (!out || !res || (!surface && !tex)) return s.fail(abi::kInvalidValue);
  scgpu::sm::TextureDesc d;
  d.magic = surface ? scgpu::sm::kSurfaceMagic : scgpu::sm::kTextureMagic;
  switch (res->resType) {
    case abi::kResourceArray: {
      ArrayObject* a = findArray(res->res.array.array);
      if (!a) return s.fail(abi::kInvalidResourceHandle, fmt::format("{}: not a CUDA array", what));
      if (surface && !(a->flags & abi::kArraySurfaceLoadStore))
        return s.fail(abi::kInvalidValue, fmt::format("{}: the array was not created with cudaArraySurfaceLoadStore", what));
      describeArray(*a, surface, &d);
      break;
    }
    case abi::kResourceMipmappedArray: {
      MipmappedObject* m = findMipmapped(res->res.mipmap.mipmap);
      if (!m) return s.fail(abi::kInvalidResourceHandle, fmt::format("{}: not a CUDA mipmapped array", what));
      if (surface)
        return s.fail(abi::kInvalidValue,
                      fmt::format("{}: a surface takes one level (cudaGetMipmappedArrayLevel), not a mipmapped array", what));
      describeArray(m->top, false, &d);
      d.levels = std::uint8_t(m->levels);
      d.level_align_log2 = kLevelAlignLog2;
      break;
    }
    case abi::kResourceLinear:
    case abi::kResourcePitch2D: {
      if (surface) return s.fail(abi::kInvalidValue, fmt::format("{}: surfaces take CUDA arrays only", what));
      const bool linear = res->resType == abi::kResourceLinear;
      const abi::ChannelFormatDesc& cd = linear ? res->res.linear.desc : res->res.pitch2D.desc;
      if (!formatOf(cd, &d.kind, &d.bits, &d.channels))
        return s.fail(abi::kInvalidChannelDescriptor, fmt::format("{}: channel format not supported", what));
      void* p = linear ? res->res.linear.devPtr : res->res.pitch2D.devPtr;
      const std::size_t texel = d.texelBytes();
      std::size_t w, h, pitch;
      if (linear) {
        w = res->res.linear.sizeInBytes / texel;
        h = 1;
        pitch = w * texel;
      } else {
        w = res->res.pitch2D.width;
        h = res->res.pitch2D.height;
        pitch = res->res.pitch2D.pitchInBytes;
      }
      if (w == 0 || h == 0 || w > (1u << 30) || h > (1u << 30) || pitch < w * texel || !s.isDevice(p, pitch * (h - 1) + w * texel))
        return s.fail(abi::kInvalidValue, fmt::format("{}: the resource is not {} x {} texels of device memory", what, w, h));
      d.base = reinterpret_cast<std::uint64_t>(p);
      d.width = std::uint32_t(w);
      d.height = std::uint32_t(h);
      d.pitch = pitch;
      d.slice_pitch = pitch * h;
      d.dims = linear ? 1 : 2;
      d.resource = linear ? scgpu::sm::TexResource::Linear : scgpu::sm::TexResource::Pitch2D;
      break;
    }
    default:
      return s.fail(abi::kInvalidValue, fmt::format("{}: resource type {} is not a cudaResourceType", what,
                                                    int(res->resType)));
  }
  if (!surface) {
    for (int i = 0; i < 3; ++i) {
      if (tex->addressMode[i] < 0 || tex->addressMode[i] > 3)
        return s.fail(abi::kInvalidValue, fmt::format("{}: address mode {} is not a cudaTextureAddressMode", what,
                                                      tex->addressMode[i]));
      d.addr[i] = scgpu::sm::TexAddressMode(tex->addressMode[i]);
    }
    if (tex->filterMode != 0 && tex->filterMode != 1) return s.fail(abi::kInvalidFilterSetting);
    if (tex->readMode != 0 && tex->readMode != 1) return s.fail(abi::kInvalidValue);
    if (tex->sRGB) return s.fail(abi::kNotSupported, fmt::format("{}: sRGB textures are not supported", what));
    if (tex->normalizedCoords) d.flags |= scgpu::sm::kTexNormalizedCoords;
    if (tex->readMode == 1 && d.kind != scgpu::sm::ChannelKind::Float) {
      if (d.bits == 32)
        return s.fail(abi::kInvalidValue,
                      fmt::format("{}: cudaReadModeNormalizedFloat takes 8- or 16-bit integer formats", what));
      d.flags |= scgpu::sm::kTexReadNormalized;
    }
    if (tex->filterMode == 1) {
      if (!d.returnsFloat())
        return s.fail(abi::kInvalidFilterSetting,
                      fmt::format("{}: linear filtering of integers needs cudaReadModeNormalizedFloat", what));
      d.flags |= scgpu::sm::kTexLinearFilter;
    }
    std::memcpy(d.border, tex->borderColor, sizeof d.border);
    if (d.cubemap() && tex->seamlessCubemap)
      return s.fail(abi::kNotSupported,
                    fmt::format("{}: seamless cube-map filtering is not supported (faces clamp at their edges)", what));
    // The mipmap fields count for mipmapped arrays only (CUDA ignores them for the others).
    if (d.levels > 1) {
      if (tex->mipmapFilterMode != 0 && tex->mipmapFilterMode != 1)
        return s.fail(abi::kInvalidFilterSetting,
                      fmt::format("{}: mipmap filter mode {} is not a cudaTextureFilterMode", what, tex->mipmapFilterMode));
      if (tex->mipmapFilterMode == 1) {
        if (!d.returnsFloat())
          return s.fail(abi::kInvalidFilterSetting,
                        fmt::format("{}: linear mipmap filtering of integers needs cudaReadModeNormalizedFloat", what));
        d.mip_flags |= scgpu::sm::kTexMipLinear;
      }
      d.lod_bias = tex->mipmapLevelBias;
      d.min_lod_clamp = tex->minMipmapLevelClamp;
      d.max_lod_clamp = tex->maxMipmapLevelClamp;
    }
  }
  const std::string why = scgpu::sm::TextureDesc::validate(d);
  if (!why.empty()) return s.fail(abi::kInvalidValue, fmt::format("{}: {}", what, why));
  std::uint8_t bytes[scgpu::sm::kTexDescBytes];
  d.encode(bytes);
  void* p = nullptr;
  if (const Error e = s.malloc(&p, sizeof bytes)) return e;
  if (const Error e = s.memcpy(p, bytes, sizeof bytes, abi::kHostToDevice, nullptr, false)) return e;
  Object o;
  o.res = *res;
  if (tex) o.tex = *tex;
  o.surface = surface;
  *out = reinterpret_cast<std::uint64_t>(p);
  objects()[*out] = o;
  return abi::kSuccess;
}

Error destroyObject(State& s, std::uint64_t h, bool surface) {
  if (h == 0) return abi::kSuccess;
  auto it = objects().find(h);
  if (it == objects().end() || it->second.surface != surface) return s.fail(abi::kInvalidValue);
  objects().erase(it);
  const std::uint32_t dead = 0;  // a later use of the handle faults (sm/texture_desc.h)
  void* p = reinterpret_cast<void*>(h);
  if (const Error e = s.memcpy(p, &dead, sizeof dead, abi::kHostToDevice, nullptr, false)) return e;
  return s.free(p);
}

Error memcpy3D(State& s, const abi::Memcpy3DParms* p, void* stream, bool async) {
  if (!p) return s.fail(abi::kInvalidValue);
  if ((p->srcArray != nullptr) == (p->srcPtr.ptr != nullptr) || (p->dstArray != nullptr) == (p->dstPtr.ptr != nullptr))
    return s.fail(abi::kInvalidValue, "cudaMemcpy3D: give exactly one of srcArray/srcPtr and of dstArray/dstPtr");
  ArrayObject* src = p->srcArray ? findArray(p->srcArray) : nullptr;
  ArrayObject* dst = p->dstArray ? findArray(p->dstArray) : nullptr;
  if ((p->srcArray && !src) || (p->dstArray && !dst)) return s.fail(abi::kInvalidResourceHandle);
  // With an array on either side, widths and x positions are in elements of that array.
  const std::size_t elem = src ? src->texelBytes() : dst ? dst->texelBytes() : 1;
  const std::size_t width = p->extent.width * elem;
  for (std::size_t z = 0; z < p->extent.depth; ++z) {
    if (src && dst) {
      for (std::size_t y = 0; y < p->extent.height; ++y) {
        const char* from = static_cast<const char*>(src->data) + (p->srcPos.z + z) * src->slice_pitch +
                           (p->srcPos.y + y) * src->pitch + p->srcPos.x * elem;
        if (const Error e = arrayCopy(s, *dst, true, p->dstPos.x * elem, p->dstPos.y + y, p->dstPos.z + z,
                                      const_cast<char*>(from), width, width, 1, abi::kDeviceToDevice, stream, async,
                                      "cudaMemcpy3D"))
          return e;
      }
    } else if (src || dst) {
      ArrayObject& a = src ? *src : *dst;
      const abi::PitchedPtr& m = src ? p->dstPtr : p->srcPtr;
      const abi::Pos& mp = src ? p->dstPos : p->srcPos;
      const abi::Pos& ap = src ? p->srcPos : p->dstPos;
      char* mem = static_cast<char*>(m.ptr) + ((mp.z + z) * m.ysize + mp.y) * m.pitch + mp.x;
      if (const Error e = arrayCopy(s, a, dst != nullptr, ap.x * elem, ap.y, ap.z + z, mem, m.pitch, width,
                                    p->extent.height, p->kind, stream, async, "cudaMemcpy3D"))
        return e;
    } else {
      char* from = static_cast<char*>(p->srcPtr.ptr) + ((p->srcPos.z + z) * p->srcPtr.ysize + p->srcPos.y) * p->srcPtr.pitch + p->srcPos.x;
      char* to = static_cast<char*>(p->dstPtr.ptr) + ((p->dstPos.z + z) * p->dstPtr.ysize + p->dstPos.y) * p->dstPtr.pitch + p->dstPos.x;
      if (const Error e = s.memcpy2D(to, p->dstPtr.pitch, from, p->srcPtr.pitch, p->extent.width, p->extent.height,
                                     p->kind, stream, async))
        return e;
    }
  }
  return abi::kSuccess;
}

}  // namespace

SCGPU_CUDART_API abi::ChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int kind) {
  return abi::ChannelFormatDesc{x, y, z, w, kind};
}

SCGPU_CUDART_API Error cudaMallocArray(void** array, const abi::ChannelFormatDesc* desc, std::size_t width,
                                       std::size_t height, unsigned flags) {
  return onDevice("cudaMallocArray", [&](State& s) {
    if (flags & abi::kArrayLayered) return s.fail(abi::kInvalidValue, "cudaMallocArray: layered arrays come from cudaMalloc3DArray");
    return makeArray(s, array, desc, width, height, 0, flags, "cudaMallocArray");
  });
}

SCGPU_CUDART_API Error cudaMalloc3DArray(void** array, const abi::ChannelFormatDesc* desc, abi::Extent extent,
                                         unsigned flags) {
  return onDevice("cudaMalloc3DArray", [&](State& s) {
    return makeArray(s, array, desc, extent.width, extent.height, extent.depth, flags, "cudaMalloc3DArray");
  });
}

SCGPU_CUDART_API Error cudaFreeArray(void* array) {
  return onDevice("cudaFreeArray", [&](State& s) {
    if (!array) return abi::kSuccess;
    ArrayObject* a = findArray(array);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    if (a->view)
      return s.fail(abi::kInvalidValue,
                    "cudaFreeArray: the array is a level of a mipmapped array (cudaFreeMipmappedArray frees it)");
    const Error e = s.free(a->data);
    arrays().erase(a);
    delete a;
    return e;
  });
}

SCGPU_CUDART_API Error cudaMallocMipmappedArray(void** out, const abi::ChannelFormatDesc* desc, abi::Extent extent,
                                                unsigned num_levels, unsigned flags) {
  return onDevice("cudaMallocMipmappedArray", [&](State& s) {
    const char* what = "cudaMallocMipmappedArray";
    if (!out || !desc) return s.fail(abi::kInvalidValue);
    MipmappedObject m;
    ArrayObject& a = m.top;
    if (!formatOf(*desc, &a.kind, &a.bits, &a.channels))
      return s.fail(abi::kInvalidChannelDescriptor,
                    fmt::format("{}: channel format ({}, {}, {}, {}) of kind {} is not supported", what, desc->x,
                                desc->y, desc->z, desc->w, desc->f));
    if (const Error e = checkExtent(s, extent.width, extent.height, extent.depth, flags, what)) return e;
    a.desc = *desc;
    a.width = extent.width;
    a.height = extent.height;
    a.depth = extent.depth;
    a.flags = flags;
    a.pitch = (a.width * a.texelBytes() + kArrayPitchAlignBytes - 1) / kArrayPitchAlignBytes * kArrayPitchAlignBytes;
    a.slice_pitch = a.pitch * a.rows();
    // The layout: the descriptor's (levelGeometry), over a descriptor of level 0.
    scgpu::sm::TextureDesc layout;
    layout.kind = a.kind;
    layout.bits = a.bits;
    layout.channels = a.channels;
    describeArray(a, false, &layout);
    layout.base = 0;
    layout.level_align_log2 = kLevelAlignLog2;
    // "clamped to the range [1, 1 + floor(log2(max(width, height, depth)))]" (cuda_runtime_api.h)
    m.levels = std::clamp<std::uint32_t>(num_levels, 1, layout.maxLevels());
    layout.levels = std::uint8_t(m.levels);
    if (const Error e = s.malloc(&a.data, layout.footprintBytes())) return e;
    auto* p = new MipmappedObject(m);
    for (std::uint32_t l = 0; l < p->levels; ++l) {
      const scgpu::sm::TexLevel g = layout.levelGeometry(l);
      auto* v = new ArrayObject(a);
      v->data = static_cast<char*>(a.data) + g.base;
      v->width = g.width;
      v->height = a.height ? g.height : 0;
      v->depth = a.depth == 0 ? 0 : layout.dims == 3 ? g.depth : a.depth;  // layers and faces stay
      v->pitch = g.pitch;
      v->slice_pitch = g.slice_pitch;
      v->view = true;
      arrays().insert(v);
      p->level_arrays.push_back(v);
    }
    mipmappedArrays().insert(p);
    *out = p;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaGetMipmappedArrayLevel(void** level_array, const void* mipmapped, unsigned level) {
  return onDevice("cudaGetMipmappedArrayLevel", [&](State& s) {
    MipmappedObject* m = findMipmapped(mipmapped);
    if (!m) return s.fail(abi::kInvalidResourceHandle);
    if (!level_array) return s.fail(abi::kInvalidValue);
    if (level >= m->levels)
      return s.fail(abi::kInvalidValue,
                    fmt::format("cudaGetMipmappedArrayLevel: level {} of a mipmapped array of {} levels", level, m->levels));
    *level_array = m->level_arrays[level];
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaFreeMipmappedArray(void* mipmapped) {
  return onDevice("cudaFreeMipmappedArray", [&](State& s) {
    if (!mipmapped) return abi::kSuccess;
    MipmappedObject* m = findMipmapped(mipmapped);
    if (!m) return s.fail(abi::kInvalidResourceHandle);
    for (ArrayObject* v : m->level_arrays) {
      arrays().erase(v);
      delete v;
    }
    const Error e = s.free(m->top.data);
    mipmappedArrays().erase(m);
    delete m;
    return e;
  });
}

SCGPU_CUDART_API Error cudaArrayGetInfo(abi::ChannelFormatDesc* desc, abi::Extent* extent, unsigned* flags, void* array) {
  return onDevice("cudaArrayGetInfo", [&](State& s) {
    ArrayObject* a = findArray(array);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    if (desc) *desc = a->desc;
    if (extent) *extent = abi::Extent{a->width, a->height, a->depth};
    if (flags) *flags = a->flags;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaGetChannelDesc(abi::ChannelFormatDesc* desc, const void* array) {
  return onDevice("cudaGetChannelDesc", [&](State& s) {
    ArrayObject* a = findArray(array);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    if (!desc) return s.fail(abi::kInvalidValue);
    *desc = a->desc;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaMemcpy2DToArray(void* dst, std::size_t w_off, std::size_t h_off, const void* src,
                                           std::size_t spitch, std::size_t width, std::size_t height,
                                           abi::MemcpyKind kind) {
  return onDevice("cudaMemcpy2DToArray", [&](State& s) {
    ArrayObject* a = findArray(dst);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayCopy(s, *a, true, w_off, h_off, 0, const_cast<void*>(src), spitch, width, height, kind, nullptr, false,
                     "cudaMemcpy2DToArray");
  });
}
SCGPU_CUDART_PTDS(cudaMemcpy2DToArray)

SCGPU_CUDART_API Error cudaMemcpy2DToArrayAsync(void* dst, std::size_t w_off, std::size_t h_off, const void* src,
                                                std::size_t spitch, std::size_t width, std::size_t height,
                                                abi::MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpy2DToArrayAsync", [&](State& s) {
    ArrayObject* a = findArray(dst);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayCopy(s, *a, true, w_off, h_off, 0, const_cast<void*>(src), spitch, width, height, kind, stream, true,
                     "cudaMemcpy2DToArrayAsync");
  });
}
SCGPU_CUDART_PTSZ(cudaMemcpy2DToArrayAsync)

SCGPU_CUDART_API Error cudaMemcpy2DFromArray(void* dst, std::size_t dpitch, const void* src, std::size_t w_off,
                                             std::size_t h_off, std::size_t width, std::size_t height,
                                             abi::MemcpyKind kind) {
  return onDevice("cudaMemcpy2DFromArray", [&](State& s) {
    ArrayObject* a = findArray(src);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayCopy(s, *a, false, w_off, h_off, 0, dst, dpitch, width, height, kind, nullptr, false,
                     "cudaMemcpy2DFromArray");
  });
}
SCGPU_CUDART_PTDS(cudaMemcpy2DFromArray)

SCGPU_CUDART_API Error cudaMemcpy2DFromArrayAsync(void* dst, std::size_t dpitch, const void* src, std::size_t w_off,
                                                  std::size_t h_off, std::size_t width, std::size_t height,
                                                  abi::MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpy2DFromArrayAsync", [&](State& s) {
    ArrayObject* a = findArray(src);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayCopy(s, *a, false, w_off, h_off, 0, dst, dpitch, width, height, kind, stream, true,
                     "cudaMemcpy2DFromArrayAsync");
  });
}
SCGPU_CUDART_PTSZ(cudaMemcpy2DFromArrayAsync)

SCGPU_CUDART_API Error cudaMemcpyToArray(void* dst, std::size_t w_off, std::size_t h_off, const void* src,
                                         std::size_t count, abi::MemcpyKind kind) {
  return onDevice("cudaMemcpyToArray", [&](State& s) {
    ArrayObject* a = findArray(dst);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayLinearCopy(s, *a, true, w_off, h_off, const_cast<void*>(src), count, kind, nullptr, false,
                           "cudaMemcpyToArray");
  });
}
SCGPU_CUDART_PTDS(cudaMemcpyToArray)

SCGPU_CUDART_API Error cudaMemcpyToArrayAsync(void* dst, std::size_t w_off, std::size_t h_off, const void* src,
                                              std::size_t count, abi::MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpyToArrayAsync", [&](State& s) {
    ArrayObject* a = findArray(dst);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayLinearCopy(s, *a, true, w_off, h_off, const_cast<void*>(src), count, kind, stream, true,
                           "cudaMemcpyToArrayAsync");
  });
}
SCGPU_CUDART_PTSZ(cudaMemcpyToArrayAsync)

SCGPU_CUDART_API Error cudaMemcpyFromArray(void* dst, const void* src, std::size_t w_off, std::size_t h_off,
                                           std::size_t count, abi::MemcpyKind kind) {
  return onDevice("cudaMemcpyFromArray", [&](State& s) {
    ArrayObject* a = findArray(src);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayLinearCopy(s, *a, false, w_off, h_off, dst, count, kind, nullptr, false, "cudaMemcpyFromArray");
  });
}
SCGPU_CUDART_PTDS(cudaMemcpyFromArray)

SCGPU_CUDART_API Error cudaMemcpyFromArrayAsync(void* dst, const void* src, std::size_t w_off, std::size_t h_off,
                                                std::size_t count, abi::MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpyFromArrayAsync", [&](State& s) {
    ArrayObject* a = findArray(src);
    if (!a) return s.fail(abi::kInvalidResourceHandle);
    return arrayLinearCopy(s, *a, false, w_off, h_off, dst, count, kind, stream, true, "cudaMemcpyFromArrayAsync");
  });
}
SCGPU_CUDART_PTSZ(cudaMemcpyFromArrayAsync)

SCGPU_CUDART_API Error cudaMemcpy3D(const abi::Memcpy3DParms* p) {
  return onDevice("cudaMemcpy3D", [&](State& s) { return memcpy3D(s, p, nullptr, false); });
}
SCGPU_CUDART_PTDS(cudaMemcpy3D)

SCGPU_CUDART_API Error cudaMemcpy3DAsync(const abi::Memcpy3DParms* p, void* stream) {
  return onDevice("cudaMemcpy3DAsync", [&](State& s) { return memcpy3D(s, p, stream, true); });
}
SCGPU_CUDART_PTSZ(cudaMemcpy3DAsync)

SCGPU_CUDART_API Error cudaCreateTextureObject(std::uint64_t* tex, const abi::ResourceDesc* res,
                                               const abi::TextureDesc* desc, const void* view) {
  return onDevice("cudaCreateTextureObject", [&](State& s) {
    if (view) return s.fail(abi::kNotSupported, "cudaCreateTextureObject: resource views are not supported");
    return createObject(s, tex, res, desc, false, "cudaCreateTextureObject");
  });
}

SCGPU_CUDART_API Error cudaDestroyTextureObject(std::uint64_t tex) {
  return onDevice("cudaDestroyTextureObject", [&](State& s) { return destroyObject(s, tex, false); });
}

SCGPU_CUDART_API Error cudaGetTextureObjectResourceDesc(abi::ResourceDesc* res, std::uint64_t tex) {
  return onDevice("cudaGetTextureObjectResourceDesc", [&](State& s) {
    auto it = objects().find(tex);
    if (!res || it == objects().end() || it->second.surface) return s.fail(abi::kInvalidValue);
    *res = it->second.res;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaGetTextureObjectTextureDesc(abi::TextureDesc* desc, std::uint64_t tex) {
  return onDevice("cudaGetTextureObjectTextureDesc", [&](State& s) {
    auto it = objects().find(tex);
    if (!desc || it == objects().end() || it->second.surface) return s.fail(abi::kInvalidValue);
    *desc = it->second.tex;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaCreateSurfaceObject(std::uint64_t* surf, const abi::ResourceDesc* res) {
  return onDevice("cudaCreateSurfaceObject",
                  [&](State& s) { return createObject(s, surf, res, nullptr, true, "cudaCreateSurfaceObject"); });
}

SCGPU_CUDART_API Error cudaDestroySurfaceObject(std::uint64_t surf) {
  return onDevice("cudaDestroySurfaceObject", [&](State& s) { return destroyObject(s, surf, true); });
}

SCGPU_CUDART_API Error cudaGetSurfaceObjectResourceDesc(abi::ResourceDesc* res, std::uint64_t surf) {
  return onDevice("cudaGetSurfaceObjectResourceDesc", [&](State& s) {
    auto it = objects().find(surf);
    if (!res || it == objects().end() || !it->second.surface) return s.fail(abi::kInvalidValue);
    *res = it->second.res;
    return abi::kSuccess;
  });
}
