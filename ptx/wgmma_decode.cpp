#include "ptx/wgmma_decode.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <fmt/format.h>

#include "ptx/parse_error.h"

namespace scgpu::ptx {
namespace {

MatElem elemOf(const std::string& w) {
  if (w == "f16") return MatElem::F16;
  if (w == "bf16") return MatElem::BF16;
  if (w == "tf32") return MatElem::TF32;
  if (w == "f32") return MatElem::F32;
  if (w == "e4m3") return MatElem::E4M3;
  if (w == "e5m2") return MatElem::E5M2;
  if (w == "s8") return MatElem::S8;
  if (w == "u8") return MatElem::U8;
  if (w == "s32") return MatElem::S32;
  if (w == "b1") return MatElem::B1;
  return MatElem::None;
}

bool fp8(MatElem e) { return e == MatElem::E4M3 || e == MatElem::E5M2; }
bool int8(MatElem e) { return e == MatElem::S8 || e == MatElem::U8; }

}  // namespace

bool wgmmaValidN(MatElem a, unsigned n) {
  if (n < 8 || n > 256 || n % 8) return false;
  // Integer and .b1 forms: 8, 16, 24, 32, then multiples of 16 up to 256.
  if (int8(a) || a == MatElem::B1) return n <= 32 || n % 16 == 0;
  return true;
}

bool decodeWgmma(const Instruction& in, DecodedInst& out, TensorOp& t, bool* has_operands, const WgmmaDecodeHooks& h) {
  if (in.opcode != "wgmma") return false;
  *has_operands = false;
  auto malformed = [&](const SourceLoc& loc, const std::string& msg) {
    ParseError e(h.file, loc.line, loc.col, msg);
    e.markMalformed();
    throw e;
  };
  auto unsupported = [&](const SourceLoc& loc, const std::string& msg) { throw ParseError(h.file, loc.line, loc.col, msg); };
  const auto& mods = in.modifiers;
  const auto& ops = in.operands;
  auto has = [&](const char* w) { return std::find(mods.begin(), mods.end(), w) != mods.end(); };
  if (mods.empty()) malformed(in.loc, "wgmma needs an operation (.mma_async, .fence, .commit_group or .wait_group)");
  const std::string& what = mods[0];
  if (!has("sync") || !has("aligned")) malformed(in.loc, fmt::format("'wgmma.{}' needs .sync.aligned", what));
  auto count = [&](std::size_t n) {
    if (ops.size() != n)
      malformed(in.loc, fmt::format("'wgmma.{}' takes {} operand{}, found {}", what, n, n == 1 ? "" : "s", ops.size()));
  };
  auto onlyWords = [&](std::initializer_list<const char*> extra) {
    for (std::size_t i = 1; i < mods.size(); ++i) {
      const std::string& w = mods[i];
      bool ok = w == "sync" || w == "aligned";
      for (const char* e : extra) ok |= w == e;
      if (!ok) return &w;
    }
    return static_cast<const std::string*>(nullptr);
  };
  if (what == "fence" || what == "commit_group" || what == "wait_group") {
    if (const std::string* w = onlyWords({})) malformed(in.loc, fmt::format("unknown modifier '.{}' on 'wgmma.{}'", *w, what));
    if (what == "wait_group") {
      count(1);
      if (ops[0].kind != Operand::Kind::IntImmediate || ops[0].int_value < 0)
        malformed(ops[0].loc, "wgmma.wait_group takes a non-negative integer constant");
      out.imm = ops[0].int_value;
      out.op = Op::WgmmaWait;
    } else {
      count(0);
      out.op = what == "fence" ? Op::WgmmaFence : Op::WgmmaCommit;
    }
    return true;
  }
  if (what != "mma_async") malformed(in.loc, fmt::format("unknown wgmma operation '.{}'", what));
  if (has("sp")) unsupported(in.loc, "wgmma.mma_async.sp (sparse A) is not implemented");

  // .shape.dtype.atype.btype {.satfinite} {.and.popc}
  unsigned m = 0, n = 0, k = 0;
  bool shape = false;
  std::vector<MatElem> types;
  for (std::size_t i = 1; i < mods.size(); ++i) {
    const std::string& w = mods[i];
    if (w == "sync" || w == "aligned" || w == "satfinite" || w == "and" || w == "popc") continue;
    char tail = 0;
    if (!shape && std::sscanf(w.c_str(), "m%un%uk%u%c", &m, &n, &k, &tail) == 3) { shape = true; continue; }
    if (MatElem e = elemOf(w); e != MatElem::None) { types.push_back(e); continue; }
    malformed(in.loc, fmt::format("unknown modifier '.{}' on 'wgmma.mma_async'", w));
  }
  if (!shape) malformed(in.loc, "wgmma.mma_async needs a shape such as .m64n128k16");
  if (types.size() != 3) malformed(in.loc, "wgmma.mma_async needs the types .dtype.atype.btype");
  const MatElem d = types[0], a = types[1], b = types[2];
  // The type combinations of the ISA, with the K each takes.
  unsigned want_k = 0;
  bool float_form = true;
  if (a == MatElem::F16 && b == a && (d == MatElem::F16 || d == MatElem::F32)) want_k = 16;
  else if (a == MatElem::BF16 && b == a && d == MatElem::F32) want_k = 16;
  else if (a == MatElem::TF32 && b == a && d == MatElem::F32) want_k = 8;
  else if (fp8(a) && fp8(b) && (d == MatElem::F16 || d == MatElem::F32)) want_k = 32;
  else if (int8(a) && int8(b) && d == MatElem::S32) want_k = 32, float_form = false;
  else if (a == MatElem::B1 && b == a && d == MatElem::S32) want_k = 256, float_form = false;
  else malformed(in.loc, "wgmma.mma_async: this combination of .dtype.atype.btype is not in the PTX ISA");
  if (m != 64 || k != want_k || !wgmmaValidN(a, n))
    malformed(in.loc, fmt::format("wgmma.mma_async: shape m{}n{}k{} is not valid for these types (m64nNk{})", m, n, k, want_k));
  if (has("satfinite") && !int8(a)) malformed(in.loc, "wgmma.mma_async: .satfinite is for the integer forms only");
  if (a == MatElem::B1 && (!has("and") || !has("popc"))) malformed(in.loc, "wgmma.mma_async with .b1 needs .and.popc");
  if (a != MatElem::B1 && (has("and") || has("popc"))) malformed(in.loc, "wgmma.mma_async: .and.popc is for .b1 only");

  // d, a | a-desc, b-desc, scale-d {, imm-scale-a, imm-scale-b {, imm-trans-a}, imm-trans-b}
  if (ops.size() < 2) malformed(in.loc, fmt::format("wgmma.mma_async takes at least 4 operands, found {}", ops.size()));
  const bool a_regs = ops[1].kind == Operand::Kind::Vector;
  const bool trans_form = a == MatElem::F16 || a == MatElem::BF16;
  const std::size_t n_ops = !float_form ? 4 : trans_form ? (a_regs ? 7 : 8) : 6;
  count(n_ops);
  t.kind = TensorOp::Kind::Wgmma;
  t.m = 64, t.n = std::uint16_t(n), t.k = std::uint16_t(k);
  t.a = a, t.b = b, t.c = d, t.d = d;
  t.satfinite = has("satfinite");
  t.b1_and = a == MatElem::B1;
  t.a_desc = !a_regs;
  const unsigned d_regs = d == MatElem::F16 ? n / 4 : n / 2;
  if (ops[0].kind != Operand::Kind::Vector || ops[0].elements.size() != d_regs)
    malformed(ops[0].loc, fmt::format("wgmma.mma_async.m64n{}k{}: D is a vector of {} registers", n, k, d_regs));
  for (const Operand& e : ops[0].elements) t.dst.push_back(h.dst(e));
  if (a_regs) {
    if (ops[1].elements.size() != 4) malformed(ops[1].loc, "wgmma.mma_async: A in registers is a vector of 4 registers");
    for (const Operand& e : ops[1].elements) t.src_a.push_back(h.source(e, Type::B32));
  } else {
    if (ops[1].kind != Operand::Kind::Register) malformed(ops[1].loc, "wgmma.mma_async: a-desc is a 64-bit register");
    t.src_a.push_back(h.source(ops[1], Type::B64));
  }
  if (ops[2].kind != Operand::Kind::Register) malformed(ops[2].loc, "wgmma.mma_async: b-desc is a 64-bit register");
  t.src_b.push_back(h.source(ops[2], Type::B64));
  if (ops[3].kind == Operand::Kind::IntImmediate && ops[3].int_value != 0 && ops[3].int_value != 1)
    malformed(ops[3].loc, "wgmma.mma_async: scale-d is a predicate (or 0 or 1)");
  t.scale_d = h.pred(ops[3]);
  auto imm = [&](std::size_t i, std::int64_t x, std::int64_t y, const char* name) {
    if (ops[i].kind != Operand::Kind::IntImmediate || (ops[i].int_value != x && ops[i].int_value != y))
      malformed(ops[i].loc, fmt::format("wgmma.mma_async: {} is the constant {} or {}", name, x, y));
    return ops[i].int_value;
  };
  if (float_form) {
    t.neg_a = imm(4, 1, -1, "imm-scale-a") == -1;
    t.neg_b = imm(5, 1, -1, "imm-scale-b") == -1;
  }
  if (trans_form) {
    if (!a_regs) t.a_row = imm(6, 0, 1, "imm-trans-a") == 0;
    t.b_row = imm(a_regs ? 6 : 7, 0, 1, "imm-trans-b") == 1;
  } else {
    t.a_row = true, t.b_row = false;
  }
  out.op = Op::Wgmma;
  *has_operands = true;
  return true;
}

}  // namespace scgpu::ptx
