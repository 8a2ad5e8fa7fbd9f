// Texture and surface instructions in unified mode (the handle is a .u64 register holding a
// texture or surface object): tex, tld4, txq, suld.b, sust.b, sust.p, suq. Decoded into a
// DecodedInst (op, type = data type, type2 = coordinate type, vec, imm = TexForm::pack) and a
// TensorOp of Kind::Texture holding the register slots (decoded.h, isTextureOp). The semantics
// are in sm/exec/texture.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ptx/decoded.h"
#include "ptx/ir.h"

namespace scgpu::ptx {

// Geometry of a texture or surface instruction (.1d .2d .3d .a1d .a2d; tex also .cube .acube).
enum class TexGeom : std::uint8_t { D1, D2, D3, A1D, A2D, Cube, ACube };
// Out-of-range handling of suld/sust (.trap .clamp .zero).
enum class SurfClamp : std::uint8_t { Trap, Clamp, Zero };
// What txq/suq return.
enum class TexQuery : std::uint8_t {
  None, Width, Height, Depth, ChannelDataType, ChannelOrder, NormalizedCoords, FilterMode, AddrMode0, AddrMode1,
  AddrMode2, NumMipmapLevels, NumSamples, ArraySize,
};

// The constant part of a texture/surface instruction, packed into DecodedInst::imm.
struct TexForm {
  TexGeom geom = TexGeom::D2;
  SurfClamp clamp = SurfClamp::Trap;
  TexQuery query = TexQuery::None;
  std::uint8_t component = 0;  // tld4: 0 r, 1 g, 2 b, 3 a
  bool level = false;          // tex.level, txq.level (the lod or level operand is in src_c)
  bool grad = false;           // tex.grad (the gradients are in src_c)
  bool formatted = false;      // sust.p
  std::int64_t pack() const {
    return std::int64_t(geom) | std::int64_t(clamp) << 8 | std::int64_t(query) << 16 | std::int64_t(component) << 24 |
           std::int64_t(level) << 32 | std::int64_t(grad) << 33 | std::int64_t(formatted) << 34;
  }
  static TexForm unpack(std::int64_t v) {
    TexForm f;
    f.geom = TexGeom(v & 0xFF);
    f.clamp = SurfClamp((v >> 8) & 0xFF);
    f.query = TexQuery((v >> 16) & 0xFF);
    f.component = std::uint8_t((v >> 24) & 0xFF);
    f.level = (v >> 32) & 1;
    f.grad = (v >> 33) & 1;
    f.formatted = (v >> 34) & 1;
    return f;
  }
};
const char* toString(TexGeom g);
// Coordinates of a geometry: 1, 2 or 3 (the array index of .a1d/.a2d/.acube not counted; a cube
// map's are a direction x, y, z).
inline std::uint32_t coordCount(TexGeom g) {
  return g == TexGeom::D1 || g == TexGeom::A1D ? 1 : g == TexGeom::D3 || g == TexGeom::Cube || g == TexGeom::ACube ? 3 : 2;
}
inline bool isArrayGeom(TexGeom g) { return g == TexGeom::A1D || g == TexGeom::A2D || g == TexGeom::ACube; }
inline bool isCubeGeom(TexGeom g) { return g == TexGeom::Cube || g == TexGeom::ACube; }

// What the decoder lends the texture decoder: operand slots and its two kinds of error (fail: a
// form scgpu does not implement, the kernel is refused at launch; malformed: the module does not load).
struct TexDecodeHooks {
  std::function<std::uint32_t(const Operand&)> reg;           // a destination register
  std::function<std::uint32_t(const Operand&, Type)> source;  // a source operand (immediates converted)
  std::function<void(const SourceLoc&, const std::string&)> fail, malformed;  // both throw
};

// Decodes tex/tld4/txq/suld/sust/suq into `out` and `t`; false for any other opcode.
bool decodeTextureInst(const Instruction& in, const TexDecodeHooks& hooks, DecodedInst& out, TensorOp& t);

}  // namespace scgpu::ptx
