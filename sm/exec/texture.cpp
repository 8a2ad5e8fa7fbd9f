// tex, tld4, txq, suld.b, sust.b, sust.p, suq on texture and surface objects. A handle is the
// device address of a descriptor (sm/texture_desc.h); each lane reads its handle's descriptor
// from global memory (once per distinct handle in the warp), then its texels. Operands are in
// Program::tensor_ops[target] (ptx/texture_decode.h): dst, src_a = handle, src_b = coordinates
// (array index first), src_c = lod/gradients (tex), the level (txq.level) or the values (sust).
// Cube maps and mipmap levels are the sampler's (texture_sample.cpp): tex.cube/.acube take a
// direction, tex.level a level of detail, tex.grad gradients; plain tex samples level 0.
//
// Faults: a handle that is not a live object of the right kind ("illegal address", naming the
// handle and why), a texel or surface address outside any allocation, a surface access that is
// not aligned to its size ("misaligned address", as the H100 reports it) and, with .trap, a
// surface access out of range ("illegal address", naming the coordinates and the size).
//
// Timing: in timing mode each lane's access is traced as one global access (c.trace) at the
// first texel it reads, of the bytes of one footprint row (two texels when filtering linearly);
// the LSU and L1 time it like a load. sust's writes are held back like st's (c.effects).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "ptx/texture_decode.h"
#include "sm/exec/float_util.h"
#include "sm/exec/handlers.h"
#include "sm/exec/mem_access.h"
#include "sm/exec/texture_sample.h"
#include "sm/texture_desc.h"

namespace scgpu::sm {
namespace {

using ptx::DecodedInst;
using ptx::TexForm;
using ptx::TexGeom;

const ptx::TensorOp& opsOf(const ExecContext& c, const DecodedInst& in) { return c.program->tensor_ops[in.target]; }

std::string instText(const ExecContext& c) {
  return c.pc < c.program->text.size() ? c.program->text[c.pc] : std::string("texture instruction");
}

std::uint64_t reg(const ExecContext& c, std::uint32_t slot, int lane) {
  return c.R[std::size_t(slot) * kWarpSize + lane];
}
void setReg(ExecContext& c, std::uint32_t slot, int lane, std::uint64_t v) {
  if (slot != ptx::kNoSlot) c.R[std::size_t(slot) * kWarpSize + lane] = v;
}

// Global memory as the texture unit reads it (translated, checked, through the timing model's view).
TexelReadFn globalReader(ExecContext& c, int lane) {
  return [&c, lane](std::uint64_t addr, std::uint32_t bytes, std::uint8_t* out) {
    std::memcpy(out, resolve<ptx::Space::Global>(c, lane, addr, bytes, false), bytes);
  };
}

// The descriptor behind lane's handle; faults when there is none of the kind wanted.
TextureDesc loadDescriptor(ExecContext& c, int lane, std::uint64_t handle, std::uint32_t magic) {
  const char* what = magic == kTextureMagic ? "texture" : "surface";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: invalid %s handle 0x%016" PRIx64, instText(c).c_str(), what, handle);
  if (handle == 0 || handle % kTexDescBytes)
    throw FaultSignal{"illegal address", std::string(buf) + " (not a " + what + " object)", std::uint32_t(lane), handle};
  std::uint8_t bytes[kTexDescBytes];
  try {
    for (std::uint32_t i = 0; i < kTexDescBytes; i += 8)
      std::memcpy(bytes + i, resolve<ptx::Space::Global>(c, lane, handle + i, 8, false), 8);
  } catch (FaultSignal& f) {
    f.message = std::string(buf) + " (no descriptor there: " + f.message + ")";
    throw;
  }
  TextureDesc d;
  std::string why;
  if (!TextureDesc::decode(bytes, magic, &d, &why))
    throw FaultSignal{"illegal address", std::string(buf) + " (" + why + ")", std::uint32_t(lane), handle};
  return d;
}

// Descriptors by handle for one warp instruction (handles are nearly always uniform).
struct DescCache {
  std::uint64_t handle = 0;
  bool valid = false;
  TextureDesc d;
  const TextureDesc& get(ExecContext& c, int lane, std::uint64_t h, std::uint32_t magic) {
    if (!valid || h != handle) {
      d = loadDescriptor(c, lane, h, magic);
      handle = h;
      valid = true;
    }
    return d;
  }
};

// Adds the instruction's text to a fault raised while reading texels or surface bytes.
template <typename F>
void withContext(ExecContext& c, F&& f) {
  try {
    f();
  } catch (FaultSignal& e) {
    const std::string text = instText(c);
    if (e.message.compare(0, text.size(), text) != 0) e.message = text + ": " + e.message;
    throw;
  }
}

void tex(ExecContext& c, const DecodedInst& in) {
  const ptx::TensorOp& t = opsOf(c, in);
  const TexForm form = TexForm::unpack(in.imm);
  const bool arr = ptx::isArrayGeom(form.geom);
  const std::uint32_t nd = ptx::coordCount(form.geom);
  DescCache cache;
  withContext(c, [&] {
    forLanes(c.mask, [&](int lane) {
      const TextureDesc& d = cache.get(c, lane, reg(c, t.src_a[0], lane), kTextureMagic);
      TexCoords tc;
      tc.dims = nd;
      tc.integer = in.type2 == ptx::Type::S32;
      if (arr) tc.layer = std::uint32_t(reg(c, t.src_b[0], lane));
      for (std::uint32_t k = 0; k < nd; ++k) {
        const std::uint32_t bits = std::uint32_t(reg(c, t.src_b[k + (arr ? 1 : 0)], lane));
        tc.i[k] = std::int32_t(bits);
        std::memcpy(&tc.f[k], &bits, 4);
      }
      tc.cube = ptx::isCubeGeom(form.geom);
      if (form.level) {
        tc.lod = TexLod::Level;
        const std::uint32_t bits = std::uint32_t(reg(c, t.src_c[0], lane));
        if (tc.integer) tc.level = float(std::int32_t(bits));  // .s32 fetches take an integer level
        else std::memcpy(&tc.level, &bits, 4);
      } else if (form.grad) {
        // src_c: the x gradient's elements, then the y gradient's (vectors of 1, 2 or 4; the
        // coordinates' count of them count).
        tc.lod = TexLod::Grad;
        const std::size_t half = t.src_c.size() / 2;
        for (std::size_t k = 0; k < half && k < 3; ++k) {
          const std::uint32_t gx = std::uint32_t(reg(c, t.src_c[k], lane));
          const std::uint32_t gy = std::uint32_t(reg(c, t.src_c[half + k], lane));
          std::memcpy(&tc.ddx[k], &gx, 4);
          std::memcpy(&tc.ddy[k], &gy, 4);
        }
      }
      std::uint64_t first = 0;
      std::uint32_t texels = 0;
      TexResult r;
      if (in.op == ptx::Op::Tld4) {
        r = gatherTexture(d, tc.f[0], tc.f[1], tc.layer, form.component, globalReader(c, lane), &first);
        texels = 4;
      } else {
        r = sampleTexture(d, tc, globalReader(c, lane), &first, &texels);
      }
      for (int k = 0; k < 4 && k < int(t.dst.size()); ++k) setReg(c, t.dst[k], lane, r.v[k]);
      if (c.trace && first) {
        const std::uint32_t row = d.texelBytes() * (texels > 1 ? 2 : 1);
        // The trace wants a naturally aligned access: the row's bytes rounded to a power of two.
        std::uint32_t bytes = 1;
        while (bytes < row) bytes <<= 1;
        traceAccess<ptx::Space::Global>(c, lane, first & ~std::uint64_t(bytes - 1), bytes, false, false);
      }
    });
  });
}

void query(ExecContext& c, const DecodedInst& in) {
  const ptx::TensorOp& t = opsOf(c, in);
  const TexForm form = TexForm::unpack(in.imm);
  const std::uint32_t magic = in.op == ptx::Op::Txq ? kTextureMagic : kSurfaceMagic;
  DescCache cache;
  forLanes(c.mask, [&](int lane) {
    const std::uint64_t h = reg(c, t.src_a[0], lane);
    const TextureDesc& d = cache.get(c, lane, h, magic);
    const std::int64_t level = form.level ? std::int64_t(std::int32_t(std::uint32_t(reg(c, t.src_c[0], lane)))) : 0;
    setReg(c, t.dst[0], lane, queryTexture(d, form.query, level, magic == kSurfaceMagic));
    if (c.trace) traceAccess<ptx::Space::Global>(c, lane, h, 8, false, false);
  });
}

// suld.b / sust.b / sust.p: the byte address of lane's access, or false when it is dropped (.zero
// out of range). x is a byte offset for .b and a texel index for .p.
bool surfaceAddress(ExecContext& c, const DecodedInst& in, const TextureDesc& d, int lane, std::uint32_t size,
                    std::uint64_t* addr) {
  const ptx::TensorOp& t = opsOf(c, in);
  const TexForm form = TexForm::unpack(in.imm);
  const bool arr = ptx::isArrayGeom(form.geom);
  const std::uint32_t nd = ptx::coordCount(form.geom);
  std::int64_t coord[3] = {0, 0, 0};
  std::int64_t layer = 0;
  if (arr) layer = std::int64_t(std::uint32_t(reg(c, t.src_b[0], lane)));
  for (std::uint32_t k = 0; k < nd; ++k) coord[k] = std::int32_t(std::uint32_t(reg(c, t.src_b[k + (arr ? 1 : 0)], lane)));
  const std::int64_t width_bytes = std::int64_t(d.width) * d.texelBytes();
  std::int64_t x = form.formatted ? coord[0] * d.texelBytes() : coord[0];
  if (x % size) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s: x = %" PRId64 " bytes is not a multiple of the %u-byte access",
                  instText(c).c_str(), x, size);
    throw FaultSignal{"misaligned address", buf, std::uint32_t(lane), d.base};
  }
  const std::int64_t lim[3] = {width_bytes - std::int64_t(size), std::int64_t(d.height) - 1, std::int64_t(d.depth) - 1};
  const std::int64_t layers = d.layered() ? std::int64_t(d.layers) : 1;
  bool outside = x < 0 || x > lim[0] || layer >= layers;
  for (std::uint32_t k = 1; k < nd; ++k) outside |= coord[k] < 0 || coord[k] > lim[k];
  if (outside) {
    if (form.clamp == ptx::SurfClamp::Zero) return false;
    if (form.clamp == ptx::SurfClamp::Trap) {
      char buf[300];
      std::snprintf(buf, sizeof buf,
                    "%s: out of range: x = %" PRId64 " bytes (+%u) of %" PRId64 ", y = %" PRId64 " of %u, z = %" PRId64
                    " of %u%s",
                    instText(c).c_str(), x, size, width_bytes, coord[1], d.height, coord[2], d.depth,
                    arr ? (", layer " + std::to_string(layer) + " of " + std::to_string(layers)).c_str() : "");
      throw FaultSignal{"illegal address", buf, std::uint32_t(lane), d.base};
    }
    x = std::clamp<std::int64_t>(x, 0, std::max<std::int64_t>(lim[0], 0)) / size * size;  // (an access wider
    // than a row reads from the row's start; the allocation check still applies)
    for (std::uint32_t k = 1; k < nd; ++k) coord[k] = std::clamp<std::int64_t>(coord[k], 0, lim[k]);
    layer = std::min(layer, layers - 1);
  }
  *addr = d.base + std::uint64_t(layer) * d.slice_pitch + std::uint64_t(coord[2]) * d.slice_pitch +
          std::uint64_t(coord[1]) * d.pitch + std::uint64_t(x);
  return true;
}

void suld(ExecContext& c, const DecodedInst& in) {
  const ptx::TensorOp& t = opsOf(c, in);
  const std::uint32_t elem = ptx::sizeOf(in.type), size = elem * in.vec;
  DescCache cache;
  withContext(c, [&] {
    forLanes(c.mask, [&](int lane) {
      const TextureDesc& d = cache.get(c, lane, reg(c, t.src_a[0], lane), kSurfaceMagic);
      std::uint64_t addr;
      std::uint8_t bytes[32] = {};
      if (surfaceAddress(c, in, d, lane, size, &addr)) {
        std::memcpy(bytes, resolve<ptx::Space::Global>(c, lane, addr, size, false), size);
        if (c.trace) traceAccess<ptx::Space::Global>(c, lane, addr, size, false, false);
      }
      for (std::uint32_t e = 0; e < in.vec && e < t.dst.size(); ++e) {
        std::uint64_t v = 0;
        std::memcpy(&v, bytes + e * elem, elem);
        setReg(c, t.dst[e], lane, v);
      }
    });
  });
}

// sust.p: a value of the surface's format from a 32-bit register (f32 for float and normalized
// formats is not told apart here: .p stores integers' low bits and floats converted to f16/f32).
void packFormatted(const TextureDesc& d, std::uint32_t v, std::uint8_t* out) {
  if (d.kind == ChannelKind::Float) {
    float f;
    std::memcpy(&f, &v, 4);
    if (d.bits == 32) {
      std::memcpy(out, &v, 4);
    } else {
      const std::uint16_t h = fp::toHalfRn<fp::FmtF16>(double(f));
      std::memcpy(out, &h, 2);
    }
    return;
  }
  std::memcpy(out, &v, d.bits / 8);
}

void sust(ExecContext& c, const DecodedInst& in) {
  const ptx::TensorOp& t = opsOf(c, in);
  const TexForm form = TexForm::unpack(in.imm);
  DescCache cache;
  withContext(c, [&] {
    forLanes(c.mask, [&](int lane) {
      const TextureDesc& d = cache.get(c, lane, reg(c, t.src_a[0], lane), kSurfaceMagic);
      std::uint8_t bytes[32] = {};
      std::uint32_t size;
      if (form.formatted) {
        size = d.texelBytes();
        for (std::uint32_t ch = 0; ch < d.channels; ++ch) {
          const std::uint32_t v = ch < t.src_c.size() ? std::uint32_t(reg(c, t.src_c[ch], lane)) : 0;
          packFormatted(d, v, bytes + ch * (d.bits / 8));
        }
      } else {
        const std::uint32_t elem = ptx::sizeOf(in.type);
        size = elem * in.vec;
        for (std::uint32_t e = 0; e < in.vec && e < t.src_c.size(); ++e) {
          const std::uint64_t v = reg(c, t.src_c[e], lane);
          std::memcpy(bytes + e * elem, &v, elem);
        }
      }
      std::uint64_t addr;
      if (!surfaceAddress(c, in, d, lane, size, &addr)) return;
      std::uint64_t pa;
      if (heldBackGlobal<ptx::Space::Global>(c, lane, addr, size, &pa)) {  // timing model: at the end of the cycle
        if (c.trace) traceAccess<ptx::Space::Global>(c, lane, addr, size, true, false);
        c.effects->store(pa, bytes, size);
        return;
      }
      std::memcpy(resolve<ptx::Space::Global>(c, lane, addr, size, true), bytes, size);
      if (c.trace) traceAccess<ptx::Space::Global>(c, lane, addr, size, true, false);
    });
  });
}

}  // namespace

ptx::ExecFn selectTextureHandler(const DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::Tex: case ptx::Op::Tld4: return tex;
    case ptx::Op::Txq: case ptx::Op::Suq: return query;
    case ptx::Op::Suld: return suld;
    case ptx::Op::Sust: return sust;
    default: return nullptr;
  }
}

}  // namespace scgpu::sm
