#include "ptx/texture_decode.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace scgpu::ptx {

const char* toString(TexGeom g) {
  switch (g) {
    case TexGeom::D1: return "1d";
    case TexGeom::D2: return "2d";
    case TexGeom::D3: return "3d";
    case TexGeom::A1D: return "a1d";
    case TexGeom::A2D: return "a2d";
    case TexGeom::Cube: return "cube";
    case TexGeom::ACube: return "acube";
  }
  return "?";
}

namespace {

bool geomFromName(const std::string& w, TexGeom& g) {
  static const std::map<std::string, TexGeom> m = {
      {"1d", TexGeom::D1}, {"2d", TexGeom::D2}, {"3d", TexGeom::D3}, {"a1d", TexGeom::A1D}, {"a2d", TexGeom::A2D},
      {"cube", TexGeom::Cube}, {"acube", TexGeom::ACube}};
  auto it = m.find(w);
  if (it == m.end()) return false;
  g = it->second;
  return true;
}

bool queryFromName(const std::string& w, TexQuery& q) {
  static const std::map<std::string, TexQuery> m = {
      {"width", TexQuery::Width},
      {"height", TexQuery::Height},
      {"depth", TexQuery::Depth},
      {"channel_data_type", TexQuery::ChannelDataType},
      {"channel_order", TexQuery::ChannelOrder},
      {"normalized_coords", TexQuery::NormalizedCoords},
      {"filter_mode", TexQuery::FilterMode},
      {"addr_mode_0", TexQuery::AddrMode0},
      {"addr_mode_1", TexQuery::AddrMode1},
      {"addr_mode_2", TexQuery::AddrMode2},
      {"num_mipmap_levels", TexQuery::NumMipmapLevels},
      {"num_samples", TexQuery::NumSamples},
      {"array_size", TexQuery::ArraySize},
  };
  auto it = m.find(w);
  if (it == m.end()) return false;
  q = it->second;
  return true;
}

// Cache operators and other words that change nothing here.
bool ignorable(const std::string& w) {
  return w == "ca" || w == "cg" || w == "cs" || w == "cv" || w == "wb" || w == "wt" || w == "L1::evict_normal" ||
         w == "L1::evict_unchanged" || w == "L1::no_allocate";
}

}  // namespace

bool decodeTextureInst(const Instruction& in, const TexDecodeHooks& h, DecodedInst& out, TensorOp& t) {
  const std::string& opc = in.opcode;
  if (opc != "tex" && opc != "tld4" && opc != "txq" && opc != "suld" && opc != "sust" && opc != "suq") return false;
  TexForm form;
  bool have_geom = false, have_clamp = false, binary = false, formatted = false;
  std::vector<Type> types;
  std::uint32_t vec = 1;
  std::vector<std::string> rest;
  for (const auto& w : in.modifiers) {
    TexGeom g;
    TexQuery q;
    if (geomFromName(w, g)) { form.geom = g; have_geom = true; continue; }
    if (Type ty = typeFromName(w); ty != Type::None) { types.push_back(ty); continue; }
    if (w == "v2") { vec = 2; continue; }
    if (w == "v4") { vec = 4; continue; }
    if (w == "trap" || w == "clamp" || w == "zero") {
      form.clamp = w == "trap" ? SurfClamp::Trap : w == "clamp" ? SurfClamp::Clamp : SurfClamp::Zero;
      have_clamp = true;
      continue;
    }
    if (opc == "tld4" && (w == "r" || w == "g" || w == "b" || w == "a")) {
      form.component = std::uint8_t(w == "r" ? 0 : w == "g" ? 1 : w == "b" ? 2 : 3);
      continue;
    }
    if ((opc == "suld" || opc == "sust") && w == "b") { binary = true; continue; }
    if (opc == "sust" && w == "p") { formatted = true; continue; }
    if ((opc == "txq" || opc == "suq") && queryFromName(w, q)) { form.query = q; continue; }
    if ((opc == "tex" || opc == "txq") && w == "level") { form.level = true; continue; }
    if (opc == "tex" && w == "grad") { form.grad = true; continue; }
    if (opc == "tex" && w == "base") continue;  // the default: level 0
    if (ignorable(w)) continue;
    rest.push_back(w);
  }
  for (const auto& w : rest) h.fail(in.loc, fmt::format("unsupported modifier '.{}' on '{}'", w, opc));
  const auto& ops = in.operands;
  t.kind = TensorOp::Kind::Texture;
  out.flags = 0;
  out.round = Round::None;
  out.space = Space::Global;
  out.aux = kNoSlot;  // no base register: the timing model and the register counts read none
  out.vec = std::uint8_t(vec);
  // [handle, {coordinates}]: the handle register, then the coordinates (array index first).
  auto handle_and_coords = [&](const Operand& a, std::size_t want, Type ctype, bool index_first) {
    if (a.kind != Operand::Kind::Address)
      h.malformed(a.loc, fmt::format("'{}' takes [handle, {{coordinates}}] here", opc));
    if (a.name.empty() || a.int_value != 0)
      h.malformed(a.loc, fmt::format("'{}': the handle is a register, without an offset", opc));
    if (a.name[0] != '%')
      h.fail(a.loc, fmt::format("'{}' on '{}': texture and surface references (.texref, .surfref) are not "
                                "implemented, only objects (a .u64 register)", opc, a.name));
    Operand handle;
    handle.kind = Operand::Kind::Register;
    handle.name = a.name;
    handle.loc = a.loc;
    t.src_a.push_back(h.source(handle, Type::U64));
    if (want == 0) {
      if (!a.elements.empty()) h.malformed(a.loc, fmt::format("'{}' takes [handle] only", opc));
      return;
    }
    std::vector<Operand> coords;
    for (const auto& e : a.elements) {
      if (e.kind == Operand::Kind::Vector) coords.insert(coords.end(), e.elements.begin(), e.elements.end());
      else coords.push_back(e);
    }
    // 3d, cube and a2d take a four-element vector whose last element is ignored (acube's four are
    // the index and the direction).
    const std::size_t written = want == 3 ? 4 : want;
    if (coords.size() != written && coords.size() != want)
      h.malformed(a.loc, fmt::format("'{}.{}' takes {} coordinates, found {}", opc, toString(form.geom), written,
                                     coords.size()));
    for (std::size_t i = 0; i < want; ++i)
      t.src_b.push_back(h.source(coords[i], index_first && i == 0 ? Type::U32 : ctype));
  };
  auto dests = [&](const Operand& d, std::size_t n, Type ty) {
    std::vector<Operand> regs;
    if (d.kind == Operand::Kind::Vector) regs = d.elements;
    else regs.push_back(d);
    if (regs.size() != n)
      h.malformed(d.loc, fmt::format("'{}' writes {} register{}, found {}", opc, n, n == 1 ? "" : "s", regs.size()));
    for (const auto& r : regs) t.dst.push_back(r.kind == Operand::Kind::Sink ? kNoSlot : h.reg(r));
    (void)ty;
  };
  if (!have_geom && opc != "txq" && opc != "suq")
    h.malformed(in.loc, fmt::format("'{}' needs a geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube)", opc));
  if (have_geom && ptx::isCubeGeom(form.geom) && opc != "tex")
    h.fail(in.loc, fmt::format("'{}.{}': cube maps are implemented for tex only", opc, toString(form.geom)));
  const bool arr = isArrayGeom(form.geom);
  const std::size_t ncoord = coordCount(form.geom) + (arr ? 1 : 0);

  if (opc == "tex" || opc == "tld4") {
    if (types.size() != 2) h.malformed(in.loc, fmt::format("'{}' needs .v4.dtype.ctype", opc));
    if (vec != 4) h.fail(in.loc, fmt::format("'{}' without .v4 is not implemented", opc));
    const Type d = types[0], c = types[1];
    if (d != Type::F32 && d != Type::S32 && d != Type::U32)
      h.fail(in.loc, fmt::format("'{}' with destination type .{} is not implemented", opc, toString(d)));
    if (c != Type::F32 && c != Type::S32)
      h.malformed(in.loc, fmt::format("'{}' takes .s32 or .f32 coordinates", opc));
    if (opc == "tld4" && (form.geom != TexGeom::D2 && form.geom != TexGeom::A2D))
      h.fail(in.loc, "tld4 is implemented for .2d and .a2d");
    if (opc == "tld4" && c != Type::F32) h.malformed(in.loc, "tld4 takes .f32 coordinates");
    if (isCubeGeom(form.geom) && c != Type::F32)
      h.malformed(in.loc, fmt::format("'tex.{}' takes .f32 coordinates (a direction)", toString(form.geom)));
    if (form.level && form.grad) h.malformed(in.loc, "'tex' takes .level or .grad, not both");
    out.op = opc == "tex" ? Op::Tex : Op::Tld4;
    out.type = d;
    out.type2 = c;
    const std::size_t extra = form.level ? 1 : form.grad ? 2 : 0;
    if (ops.size() != 2 + extra)
      h.fail(in.loc, fmt::format("'{}' with {} operands (texel offsets, depth compare) is not implemented", opc,
                                 ops.size()));
    dests(ops[0], 4, d);
    handle_and_coords(ops[1], ncoord, c, arr);
    // A level of detail (the coordinates' type) or gradients (f32 vectors of the coordinates,
    // .v2 or .v4 with the last ignored) select the mipmap level (sm/exec/texture_sample.cpp).
    if (form.level) t.src_c.push_back(h.source(ops[2], c));
    if (form.grad) {
      // One element per coordinate (the array index has none); three are written as a .v4.
      const std::size_t n = coordCount(form.geom), written = n == 3 ? 4 : n;
      for (std::size_t i = 2; i < 4; ++i) {
        const std::size_t got = ops[i].kind == Operand::Kind::Vector ? ops[i].elements.size() : 1;
        if (got != n && got != written)
          h.malformed(ops[i].loc, fmt::format("'tex.grad.{}' takes gradients of {} elements, found {}",
                                              toString(form.geom), written, got));
        if (ops[i].kind == Operand::Kind::Vector)
          for (const auto& e : ops[i].elements) t.src_c.push_back(h.source(e, Type::F32));
        else
          t.src_c.push_back(h.source(ops[i], Type::F32));
      }
    }
  } else if (opc == "txq" || opc == "suq") {
    if (form.query == TexQuery::None)
      h.malformed(in.loc, fmt::format("'{}' needs a query (.width, .height, .depth, ...)", opc));
    if (opc == "suq" && form.query != TexQuery::Width && form.query != TexQuery::Height &&
        form.query != TexQuery::Depth && form.query != TexQuery::ChannelDataType &&
        form.query != TexQuery::ChannelOrder && form.query != TexQuery::ArraySize)
      h.malformed(in.loc, "suq queries .width .height .depth .channel_data_type .channel_order .array_size");
    if (types.size() != 1 || types[0] != Type::B32) h.malformed(in.loc, fmt::format("'{}' returns .b32", opc));
    // txq.level.{width,height,depth} d, [a], level: that mipmap level's extent.
    if (form.level && form.query != TexQuery::Width && form.query != TexQuery::Height &&
        form.query != TexQuery::Depth)
      h.malformed(in.loc, "txq.level queries .width, .height or .depth");
    if (ops.size() != (form.level ? 3u : 2u))
      h.malformed(in.loc, fmt::format("'{}' takes {} operands, found {}", opc, form.level ? 3 : 2, ops.size()));
    out.op = opc == "txq" ? Op::Txq : Op::Suq;
    out.type = Type::B32;
    dests(ops[0], 1, Type::B32);
    handle_and_coords(ops[1], 0, Type::None, false);
    if (form.level) t.src_c.push_back(h.source(ops[2], Type::S32));
  } else {  // suld, sust
    const bool load = opc == "suld";
    if (formatted && load) h.malformed(in.loc, "suld.p does not exist");
    if (!binary && !formatted) h.malformed(in.loc, fmt::format("'{}' needs .b (or, for sust, .p)", opc));
    if (!have_clamp) h.malformed(in.loc, fmt::format("'{}' needs .trap, .clamp or .zero", opc));
    if (types.size() != 1) h.malformed(in.loc, fmt::format("'{}' needs one data type", opc));
    const Type d = types[0];
    if (binary && d != Type::B8 && d != Type::B16 && d != Type::B32 && d != Type::B64)
      h.malformed(in.loc, fmt::format("'{}.b' moves .b8, .b16, .b32 or .b64", opc));
    if (formatted && d != Type::B32) h.malformed(in.loc, "sust.p stores .b32 values");
    out.op = load ? Op::Suld : Op::Sust;
    out.type = d;
    out.type2 = Type::S32;
    form.formatted = formatted;
    if (d == Type::B64) t.d = MatElem::F64;  // two 32-bit registers per element (driver/register_counts.cpp)
    if (ops.size() != 2) h.malformed(in.loc, fmt::format("'{}' takes 2 operands, found {}", opc, ops.size()));
    if (load) {
      dests(ops[0], vec, d);
      handle_and_coords(ops[1], ncoord, Type::S32, arr);
    } else {
      handle_and_coords(ops[0], ncoord, Type::S32, arr);
      const Operand& v = ops[1];
      std::vector<Operand> vals;
      if (v.kind == Operand::Kind::Vector) vals = v.elements;
      else vals.push_back(v);
      if (vals.size() != vec)
        h.malformed(v.loc, fmt::format("'{}' stores {} value{}, found {}", opc, vec, vec == 1 ? "" : "s", vals.size()));
      for (const auto& e : vals) t.src_c.push_back(h.source(e, d));
    }
  }
  out.imm = form.pack();
  return true;
}

}  // namespace scgpu::ptx
