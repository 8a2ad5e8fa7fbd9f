#include "sm/timing/inst_class.h"

#include <map>

#include "ptx/ir.h"
#include "ptx/schedule.h"

namespace scgpu::sm::timing {

using ptx::Op;
using ptx::SubOp;
using ptx::Type;

const char* toString(Pipe p) {
  switch (p) {
    case Pipe::Int: return "int";
    case Pipe::Fp32: return "fp32";
    case Pipe::Fp64: return "fp64";
    case Pipe::Sfu: return "sfu";
    case Pipe::Lsu: return "lsu";
    case Pipe::Branch: return "branch";
    case Pipe::Tensor: return "tensor";
    case Pipe::Uniform: return "uniform";
    default: return "?";
  }
}

namespace {

Pipe floatPipe(Type t, Pipe otherwise) {
  if (t == Type::F64) return Pipe::Fp64;
  if (ptx::isFloat(t)) return Pipe::Fp32;
  return otherwise;
}

Pipe pipeOf(const ptx::DecodedInst& in) {
  // A call's parameters and a function's own: registers in SASS (ptx::kParamSpace), moves that
  // register coalescing removes (kFree below).
  if ((in.op == Op::Ld || in.op == Op::St) && (in.flags & ptx::kParamSpace)) return Pipe::Int;
  switch (in.op) {
    case Op::Ld: case Op::St: case Op::Atom: case Op::Red: case Op::Ldmatrix: case Op::Stmatrix: case Op::CpAsync:
    case Op::CpBulk:
    case Op::Tex: case Op::Tld4: case Op::Txq: case Op::Suld: case Op::Sust: case Op::Suq:  // texture: through the LSU/L1
      return Pipe::Lsu;
    case Op::Mma: case Op::Wgmma:
      return Pipe::Tensor;
    case Op::WgmmaFence: case Op::WgmmaCommit: case Op::WgmmaWait:
      return Pipe::Branch;
    case Op::Wmma:  // wmma.load/store have an address (a state space); wmma.mma does not
      return in.space == ptx::Space::None ? Pipe::Tensor : Pipe::Lsu;
    case Op::Bra: case Op::BrxIdx: case Op::Call: case Op::Ret: case Op::Exit: case Op::Trap: case Op::Brkpt:
    case Op::Bar: case Op::Fence: case Op::Prefetch: case Op::Nanosleep: case Op::BarCluster:
      return Pipe::Branch;
    // Multi-function unit; f64 versions are DFMA-based sequences on the FP64 pipe.
    case Op::Rcp: case Op::Sqrt: case Op::Rsqrt: case Op::Sin: case Op::Cos: case Op::Lg2: case Op::Ex2:
    case Op::Tanh: case Op::Div: case Op::Rem:
      if ((in.op == Op::Div || in.op == Op::Rem) && !ptx::isFloat(in.type)) return Pipe::Int;  // SmCore::opTiming
      return in.type == Type::F64 ? Pipe::Fp64 : Pipe::Sfu;
    // Arithmetic that exists for integers and floats: the type decides (setp/set/testp: `type` is
    // the compared type).
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Mad: case Op::Fma: case Op::Min: case Op::Max:
    case Op::Abs: case Op::Neg: case Op::Copysign: case Op::Testp: case Op::Setp: case Op::Set:
      return floatPipe(in.type, Pipe::Int);
    case Op::Cvt: case Op::CvtPack:
      if (in.type == Type::F64 || in.type2 == Type::F64) return Pipe::Fp64;
      if (ptx::isFloat(in.type) || ptx::isFloat(in.type2)) return Pipe::Fp32;
      return Pipe::Int;
    // Everything else (logic, shifts, mov, selp, cvta, shfl, vote, match, redux, activemask) runs on
    // the integer pipe.
    default:
      return Pipe::Int;
  }
}

}  // namespace

bool lgQueue(const ptx::DecodedInst& in) {
  switch (in.op) {
    case Op::CpAsync:
      return true;
    case Op::Ld: case Op::St: case Op::Atom: case Op::Red: case Op::Wmma:
      return in.space == ptx::Space::Global || in.space == ptx::Space::Local || in.space == ptx::Space::Generic;
    default:
      return false;
  }
}

Sequence sequenceOf(const ptx::DecodedInst& in) {
  const bool f32 = in.type == Type::F32, f64 = in.type == Type::F64;
  const bool ftz = in.flags & ptx::kFtz, approx = in.flags & ptx::kApprox, rn = in.round == ptx::Round::Rn;
  switch (in.op) {
    case Op::Rsqrt:
      if (f32 && !ftz) return Sequence::RsqrtApproxF32;  // denormal inputs scaled around MUFU.RSQ
      if (f64) return Sequence::RsqrtApproxF64;
      break;
    case Op::Ex2:
      if (f32 && !ftz) return Sequence::Ex2ApproxF32;  // inputs below -126 halved, the result squared
      break;
    case Op::Div: case Op::Rem:
      if (!ptx::isFloat(in.type)) return ptx::sizeOf(in.type) == 8 ? Sequence::IntDiv64 : Sequence::IntDiv32;
      if (in.op == Op::Rem) break;
      if (f32 && approx) return Sequence::DivApproxF32;
      if (f32 && rn) return Sequence::DivRnF32;
      if (f64 && rn) return Sequence::DivRnF64;
      break;
    case Op::Sqrt:
      if (f32 && rn) return Sequence::SqrtRnF32;
      if (f64 && rn) return Sequence::SqrtRnF64;
      break;
    case Op::Rcp:
      if (f32 && rn) return Sequence::RcpRnF32;
      if (f64 && rn) return Sequence::RcpRnF64;
      break;
    default:
      break;
  }
  return Sequence::None;
}

namespace {

// The SASS shape of a 64-bit integer ALU instruction (Int64Form); `imm`: one source is a constant.
Int64Form int64FormOf(const ptx::DecodedInst& in, bool imm) {
  auto wide_int = [](Type t) { return t != Type::None && t != Type::Pred && !ptx::isFloat(t) && ptx::sizeOf(t) == 8; };
  const bool wide = in.op == Op::Setp ? wide_int(in.type) || wide_int(in.type2) : wide_int(in.type);
  if (!wide) return Int64Form::None;
  switch (in.op) {
    case Op::And: case Op::Or: case Op::Xor:
      return imm ? Int64Form::None : Int64Form::Pair;  // an immediate: one LOP3
    case Op::Add: case Op::Sub: case Op::Not: case Op::Neg: case Op::Shl: case Op::Shr: case Op::Setp: case Op::Selp:
      return Int64Form::Pair;
    case Op::Mul: case Op::Mad:
      return (in.flags & ptx::kWide) ? Int64Form::None : Int64Form::Mul;
    case Op::Min: case Op::Max:
      return Int64Form::MinMax;
    default:
      return Int64Form::None;
  }
}

}  // namespace

InstInfo classify(const ptx::Program& program, std::uint32_t pc, const std::vector<std::uint8_t>& const_slots) {
  const ptx::DecodedInst& in = program.code[pc];
  InstInfo info;
  info.pipe = pipeOf(in);
  // A kernel parameter at a fixed offset is an operand in SASS (c[0x0][offset], or ULDC into a
  // uniform register), read from the constant bank by the instruction that uses it: no load goes
  // through the LSU. Queued behind other warps' stores there, a new block's parameter loads held
  // its start back by tens of thousands of cycles (scatter_st_*: blocks 3 and 4 of an SM).
  const bool param_operand = in.op == Op::Ld && in.space == ptx::Space::KernelParam &&
                             (in.aux == ptx::kNoSlot || (in.aux < const_slots.size() && const_slots[in.aux]));
  if (param_operand) info.pipe = Pipe::Int;
  info.result = info.pipe == Pipe::Sfu ? DepKind::Short : DepKind::Wait;
  if (info.pipe == Pipe::Lsu) info.flags |= kMemory;
  info.lg = info.pipe == Pipe::Lsu && lgQueue(in);
  if ((in.op == Op::Add || in.op == Op::Sub) && info.pipe == Pipe::Int && !(in.flags & (ptx::kCcIn | ptx::kCcOut)) &&
      (in.type == Type::S32 || in.type == Type::U32 || in.type == Type::B32))
    info.flags |= kIntAddFlex;
  switch (in.op) {
    case Op::Nop:  // what ptx::scheduleLikePtxas leaves of an if-converted branch: no SASS
      info.flags |= kFree;
      break;
    case Op::Ld: case Op::St:
      if ((in.flags & ptx::kParamSpace) || param_operand) info.flags |= kFree;
      break;
    case Op::Bra: case Op::BrxIdx: case Op::Call: case Op::Ret: case Op::Exit:
      info.flags |= kControl;
      break;
    default: break;
  }
  if (in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red || in.op == Op::Mbarrier ||
      info.pipe == Pipe::Lsu) {
    if (in.aux != ptx::kNoSlot && !param_operand) info.flags |= kReadsAux;  // a parameter's address is a constant
  } else {
    if (in.flags & ptx::kCcIn) info.flags |= kReadsAux;
    if (in.flags & ptx::kCcOut) info.flags |= kWritesAux;
  }
  // Predicate operands (see sm/exec/README.md, "Operand conventions").
  switch (in.op) {
    case Op::Setp:
      info.pred_dst = in.ndst >= 2 ? 0x3 : 0x1;
      if (in.sub != SubOp::None) info.pred_src |= 0x4;
      break;
    case Op::Set:
      if (in.sub != SubOp::None) info.pred_src |= 0x4;
      break;
    case Op::Selp: info.pred_src |= 0x4; break;
    case Op::Testp: case Op::Isspacep: info.pred_dst = 0x1; break;
    case Op::Mbarrier:
      if (in.sub == SubOp::MbarTestWait || in.sub == SubOp::MbarTryWait) info.pred_dst = 0x1;
      break;
    case Op::Vote:
      info.pred_src |= 0x1;
      if (in.sub != SubOp::VoteBallot) info.pred_dst = 0x1;
      break;
    case Op::Shfl: case Op::Match:
      if (in.flags & ptx::kDualPred) info.pred_dst = 0x2;
      break;
    case Op::Bar:
      if (in.sub == SubOp::BarRed) {
        info.pred_src |= 0x4;
        if (in.type == Type::Pred) info.pred_dst = 0x1;
      }
      break;
    default:
      // and/or/xor/not/mov on .pred work on predicate slots only.
      if (in.type == Type::Pred) {
        info.pred_src = 0xF;
        info.pred_dst = 0x3;
      }
      break;
  }
  for (int i = 0; i < in.nsrc && i < 4; ++i) {
    const std::uint32_t s = in.src[i];
    if (s == ptx::kNoSlot || (info.pred_src >> i & 1)) continue;
    if (s < const_slots.size() && const_slots[s]) info.const_src |= std::uint8_t(1u << i);
  }
  info.int64 = int64FormOf(in, info.const_src != 0);
  (void)program;
  return info;
}

namespace {

// A load that can join a group: ld.shared of one 32-bit register, unguarded, not volatile.
bool groupableLoad(const ptx::DecodedInst& in) {
  const std::uint32_t size = ptx::sizeOf(in.type);
  return in.op == Op::Ld && in.space == ptx::Space::Shared && in.vec == 1 && (size == 4 || size == 8) &&
         in.guard == ptx::kNoSlot && !(in.flags & ptx::kVolatile) && in.aux != ptx::kNoSlot &&
         in.dst[0] != ptx::kNoSlot;
}

// Basic-block starts of [entry, end): branch targets and reconvergence points.
std::vector<std::uint8_t> blockStarts(const ptx::Program& program, std::uint32_t entry, std::uint32_t end) {
  std::vector<std::uint8_t> starts(end > entry ? end - entry : 0, 0);
  for (std::uint32_t pc = entry; pc < end; ++pc) {
    const ptx::DecodedInst& in = program.code[pc];
    if (in.op == Op::Bra || in.op == Op::BrxIdx) {
      if (in.target >= entry && in.target < end) starts[in.target - entry] = 1;
      if (in.reconverge >= entry && in.reconverge < end) starts[in.reconverge - entry] = 1;
    }
  }
  return starts;
}

// The register slots of function f that hold a special register SASS reads with S2R/S2UR: a
// thread's or block's index (not the launch's sizes, which are constant-bank operands).
std::vector<std::uint8_t> s2rSlots(const ptx::DecodedFunction& f) {
  std::vector<std::uint8_t> s2r(f.num_regs, 0);
  for (const auto& init : f.inits) {
    if (init.kind != ptx::SlotInit::Kind::Special || init.slot >= s2r.size()) continue;
    switch (ptx::specialOf(init.value)) {
      case ptx::SpecialReg::TidX: case ptx::SpecialReg::TidY: case ptx::SpecialReg::TidZ:
      case ptx::SpecialReg::CtaidX: case ptx::SpecialReg::CtaidY: case ptx::SpecialReg::CtaidZ:
      case ptx::SpecialReg::LaneId: case ptx::SpecialReg::WarpId: case ptx::SpecialReg::SmId:
      case ptx::SpecialReg::ClusterCtarank: case ptx::SpecialReg::ClusterCtaidX: case ptx::SpecialReg::ClusterCtaidY:
      case ptx::SpecialReg::ClusterCtaidZ: case ptx::SpecialReg::ClusteridX: case ptx::SpecialReg::ClusteridY:
      case ptx::SpecialReg::ClusteridZ:
        s2r[init.slot] = 1;
        break;
      default: break;
    }
  }
  return s2r;
}

// Marks the instructions that ptxas folds away (kFused, kFree) in function [entry, end), given
// its block starts, how many instructions read each register (a fused producer's result must
// have one reader) and the slots read with S2R (s2rSlots: a copy of one is no free copy).
void findFusedInstructions(const ptx::Program& program, std::uint32_t entry, std::uint32_t end,
                           const std::vector<std::uint8_t>& starts, const std::vector<std::uint32_t>& readers,
                           const std::vector<std::uint8_t>& s2r, std::vector<InstInfo>& info) {
  Operands ops;
  auto plain = [](const ptx::DecodedInst& in) {  // unguarded, no carry, one register result
    return in.guard == ptx::kNoSlot && !(in.flags & (ptx::kCcIn | ptx::kCcOut)) && in.ndst == 1 &&
           in.dst[0] != ptx::kNoSlot;
  };
  for (std::uint32_t pc = entry; pc < end; ++pc) {
    const ptx::DecodedInst& j = program.code[pc];
    InstInfo& ji = info[pc];
    if (!plain(j) || ji.pipe != Pipe::Int) continue;
    // Copies and constants; a read of a thread's or block's index is an S2R (S2UR) of its own.
    if (j.op == Op::Mov && j.nsrc == 1 && j.src[0] < s2r.size() && s2r[j.src[0]]) continue;
    // A zero extension (cvt.u64.u32 and the like) is the register pair with RZ as its high word: SASS
    // has no instruction for it (validation/micro dsmem_read: cvt.u64.u32, and.b64, add.s64 are
    // LOP3, IADD3, IADD3.X).
    const bool zero_extend = j.op == Op::Cvt && ptx::sizeOf(j.type) == 8 && ptx::sizeOf(j.type2) <= 4 &&
                             (j.type2 == Type::U32 || j.type2 == Type::U16 || j.type2 == Type::U8 ||
                              j.type2 == Type::B32 || j.type2 == Type::B16 || j.type2 == Type::B8) &&
                             !ptx::isFloat(j.type) && j.type != Type::Pred;
    if ((j.op == Op::Mov && j.type != Type::Pred && j.nsrc == 1) || j.op == Op::Cvta || zero_extend) {
      ji.flags |= kFree;
      continue;
    }
    if (pc == entry || starts[pc - entry]) continue;
    const ptx::DecodedInst& i = program.code[pc - 1];
    const InstInfo& ii = info[pc - 1];
    if (ii.pipe != Pipe::Int || (ii.flags & (kFused | kFree)) || !ptx::fusablePair(i, j)) continue;
    const std::uint32_t r = i.dst[0];
    if (r >= readers.size() || readers[r] != 1) continue;
    operands(program, j, ji, ops);
    bool reads = false;
    for (std::uint32_t k = 0; k < ops.n_reg_src; ++k) reads |= ops.reg_src[k] == r;
    if (!reads) continue;
    ji.flags |= kFused;
    ji.fused_src = r;
  }
}

// Marks the shared-load groups (InstInfo::merge_n) of function [entry, end); a group never spans
// one of its block starts.
void findSharedLoadGroups(const ptx::Program& program, std::uint32_t entry, std::uint32_t end,
                          const std::vector<std::uint8_t>& starts, std::vector<InstInfo>& info) {
  std::vector<std::uint8_t> taken(starts.size(), 0);
  Operands ops;
  constexpr std::uint32_t kWindow = 48;  // instructions searched after the first load
  for (std::uint32_t h = entry; h < end; ++h) {
    const ptx::DecodedInst& head = program.code[h];
    if (taken[h - entry] || !groupableLoad(head) || head.dst[0] == head.aux) continue;
    // Candidates: the loads of the same size at offsets +4, +8, +12 (32-bit: LDS.64, LDS.128) or +8
    // (64-bit: LDS.128) before the block ends, a store, a barrier or anything that changes the base
    // register.
    const std::int64_t size = ptx::sizeOf(head.type), most = size == 4 ? 3 : 1;
    std::uint32_t member_pc[3] = {};
    for (std::uint32_t pc = h + 1; pc < end && pc <= h + kWindow; ++pc) {
      if (starts[pc - entry]) break;
      const ptx::DecodedInst& in = program.code[pc];
      if (in.op == Op::St || in.op == Op::Atom || in.op == Op::Red || in.op == Op::Bar || in.op == Op::BarCluster || in.op == Op::Fence ||
          (info[pc].flags & kControl))
        break;
      const std::int64_t d = in.imm - head.imm;
      if (groupableLoad(in) && std::int64_t(ptx::sizeOf(in.type)) == size && in.aux == head.aux && d > 0 &&
          d % size == 0 && d / size <= most && !member_pc[d / size - 1] && !taken[pc - entry]) {
        member_pc[d / size - 1] = pc;
        if (member_pc[0] && (most == 1 || (member_pc[1] && member_pc[2]))) break;
        continue;
      }
      operands(program, in, info[pc], ops);
      bool writes_base = false;
      for (std::uint32_t i = 0; i < ops.n_reg_dst; ++i) writes_base |= ops.reg_dst[i] == head.aux;
      if (writes_base) break;
    }
    // A member is valid when no other instruction between the first load and it reads or writes
    // its register (the group makes that register wait for the merged load from the first load
    // on), and the members' registers are distinct from each other and from the base.
    auto valid = [&](std::uint32_t mpc) {
      const std::uint32_t r = program.code[mpc].dst[0];
      if (r == head.aux || r == head.dst[0]) return false;
      for (std::uint32_t pc = h + 1; pc < mpc; ++pc) {
        operands(program, program.code[pc], info[pc], ops);
        for (std::uint32_t i = 0; i < ops.n_reg_dst; ++i)
          if (ops.reg_dst[i] == r) return false;
        for (std::uint32_t i = 0; i < ops.n_reg_src; ++i)
          if (ops.reg_src[i] == r) return false;
      }
      return true;
    };
    for (std::uint32_t& m : member_pc)
      if (m && !valid(m)) m = 0;
    const auto reg = [&](int i) { return program.code[member_pc[i]].dst[0]; };
    const bool four = member_pc[0] && member_pc[1] && member_pc[2] && reg(0) != reg(1) && reg(0) != reg(2) &&
                      reg(1) != reg(2);
    const std::uint32_t n = four ? 4 : member_pc[0] ? 2 : 0;
    if (!n) continue;
    info[h].merge_n = std::uint8_t(n);
    for (std::uint32_t i = 0; i + 1 < n; ++i) {
      info[h].merge_delta[i] = std::uint8_t(member_pc[i] - h);
      taken[member_pc[i] - entry] = 1;
    }
  }
}

}  // namespace

namespace {

// The warp-uniform registers of a kernel (markUniformity): seeded non-uniform by the thread
// and lane registers, spread through every instruction whose sources, guard or kind (a load of
// memory that is not constant, an atomic, a warp-wide or matrix op, a read of the clock) make its
// results differ between lanes; a register written more than once is non-uniform where one of its
// definitions lies in code a divergent branch may skip (it may run for some lanes only). Then kUniformAtomic on the qualifying atomics,
// kUniformOp on integer instructions of uniform values and kAddressFold* on adds into shared
// addresses.
void markUniformity(const ptx::Program& program, const ptx::DecodedFunction& f, std::uint32_t end,
                        const std::vector<std::uint32_t>& readers, std::vector<InstInfo>& out) {
  std::vector<std::uint8_t> reg(f.num_regs, 0), pred(f.num_preds, 0);  // 1: not provably uniform
  std::vector<std::uint16_t> reg_defs(f.num_regs, 0), pred_defs(f.num_preds, 0);
  auto bad = [](std::vector<std::uint8_t>& v, std::uint32_t s) {
    if (s >= v.size()) v.resize(s + 1, 0);
    const bool changed = !v[s];
    v[s] = 1;
    return changed;
  };
  auto isBad = [](const std::vector<std::uint8_t>& v, std::uint32_t s) { return s < v.size() && v[s]; };
  for (const auto& init : f.inits) {
    if (init.kind != ptx::SlotInit::Kind::Special) continue;
    switch (ptx::specialOf(init.value)) {
      case ptx::SpecialReg::TidX: case ptx::SpecialReg::TidY: case ptx::SpecialReg::TidZ:
      case ptx::SpecialReg::LaneId: case ptx::SpecialReg::LanemaskEq: case ptx::SpecialReg::LanemaskLe:
      case ptx::SpecialReg::LanemaskLt: case ptx::SpecialReg::LanemaskGe: case ptx::SpecialReg::LanemaskGt:
        bad(reg, init.slot);
        break;
      default: break;
    }
  }
  Operands ops;
  for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
    operands(program, program.code[pc], out[pc], ops);
    for (std::uint32_t i = 0; i < ops.n_reg_dst; ++i)
      if (ops.reg_dst[i] < reg_defs.size()) ++reg_defs[ops.reg_dst[i]];
    for (std::uint32_t i = 0; i < ops.n_pred_dst; ++i)
      if (ops.pred_dst[i] < pred_defs.size()) ++pred_defs[ops.pred_dst[i]];
  }
  // The instructions a divergent branch may run for some lanes only: from the branch to its
  // target (forward), or the loop it closes (backward); a forward branch out of a loop takes the
  // loop's earlier part too (later trips run it with fewer lanes). An indirect one: everything.
  std::vector<std::uint8_t> partial(end - f.entry_pc, 0), split(end - f.entry_pc, 0);
  auto markDivergent = [&](std::uint32_t b) {
    const ptx::DecodedInst& br = program.code[b];
    std::uint32_t lo = f.entry_pc, hi = end;
    if (br.op == Op::Bra && br.target >= f.entry_pc && br.target < end) {
      lo = std::min(b, br.target);
      hi = std::max(b + 1, br.target);
      if (br.target > b)
        for (std::uint32_t pc = b + 1; pc < hi; ++pc) {
          const ptx::DecodedInst& in = program.code[pc];
          if (in.op == Op::Bra && in.target < lo && in.target >= f.entry_pc) lo = in.target;
        }
    }
    for (std::uint32_t pc = lo; pc < hi; ++pc) partial[pc - f.entry_pc] = 1;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
      const ptx::DecodedInst& in = program.code[pc];
      operands(program, in, out[pc], ops);
      bool varies = false;
      switch (in.op) {
        case Op::Ld: varies = in.space != ptx::Space::KernelParam && in.space != ptx::Space::Const; break;
        case Op::Atom: case Op::Shfl: case Op::Vote: case Op::Match: case Op::Activemask: case Op::Call:
        case Op::Mma: case Op::Wmma: case Op::Ldmatrix: case Op::Movmatrix: case Op::Mbarrier: case Op::Bar:
          varies = true;
          break;
        case Op::Mov: varies = in.nsrc == 0 && in.src[0] == ptx::kNoSlot; break;  // %clock and friends
        default: break;
      }
      for (std::uint32_t i = 0; i < ops.n_reg_src && !varies; ++i) varies = isBad(reg, ops.reg_src[i]);
      for (std::uint32_t i = 0; i < ops.n_pred_src && !varies; ++i) varies = isBad(pred, ops.pred_src[i]);
      if ((in.op == Op::Bra || in.op == Op::BrxIdx) && varies && !split[pc - f.entry_pc]) {
        split[pc - f.entry_pc] = 1;
        markDivergent(pc);
        changed = true;
      }
      const bool maybe_partial = partial[pc - f.entry_pc] != 0;
      for (std::uint32_t i = 0; i < ops.n_reg_dst; ++i) {
        const std::uint32_t d = ops.reg_dst[i];
        if ((varies || (maybe_partial && d < reg_defs.size() && reg_defs[d] > 1)) && bad(reg, d)) changed = true;
      }
      for (std::uint32_t i = 0; i < ops.n_pred_dst; ++i) {
        const std::uint32_t d = ops.pred_dst[i];
        if ((varies || (maybe_partial && d < pred_defs.size() && pred_defs[d] > 1)) && bad(pred, d)) changed = true;
      }
    }
  }
  for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
    const ptx::DecodedInst& in = program.code[pc];
    if (in.op != Op::Atom && in.op != Op::Red) continue;
    if (in.space != ptx::Space::Global && in.space != ptx::Space::Generic) continue;
    if (in.type != ptx::Type::U32 && in.type != ptx::Type::S32 && in.type != ptx::Type::B32) continue;
    if (in.sub != SubOp::AAdd && in.sub != SubOp::AMin && in.sub != SubOp::AMax && in.sub != SubOp::AAnd &&
        in.sub != SubOp::AOr && in.sub != SubOp::AXor)
      continue;
    if (in.aux != ptx::kNoSlot && isBad(reg, in.aux)) continue;
    out[pc].flags |= kUniformAtomic;  // (a guard only selects the lanes whose values REDUX sums)
  }
  // Integer instructions on uniform values (the uniform datapath), and adds that SASS folds into a
  // shared-memory address: every reader of their result uses it as a shared address, and the
  // other operand is an immediate or uniform.
  std::vector<std::uint8_t> address_only(f.num_regs, 1);
  for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
    const ptx::DecodedInst& in = program.code[pc];
    operands(program, in, out[pc], ops);
    const bool shared_address = (out[pc].flags & kMemory) && in.space == ptx::Space::Shared &&
                                (out[pc].flags & kReadsAux) && in.aux != ptx::kNoSlot;
    for (std::uint32_t i = 0; i < ops.n_reg_src; ++i) {
      const std::uint32_t r = ops.reg_src[i];
      if (r < address_only.size() && !(shared_address && r == in.aux)) address_only[r] = 0;
    }
    if (shared_address) {  // a data operand that is also the address base is no address-only use
      for (int i = 0; i < in.nsrc && i < 4; ++i)
        if (in.src[i] == in.aux && in.aux < address_only.size()) address_only[in.aux] = 0;
    }
  }
  for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
    const ptx::DecodedInst& in = program.code[pc];
    InstInfo& ii = out[pc];
    if (ii.pipe != Pipe::Int || (ii.flags & (kFused | kFree))) continue;
    if (in.op == Op::Div || in.op == Op::Rem) continue;  // a sequence through MUFU and F2I: vector registers
    operands(program, in, ii, ops);
    if (ops.n_reg_dst + ops.n_pred_dst == 0) continue;
    bool uniform = true;
    for (std::uint32_t i = 0; i < ops.n_reg_src && uniform; ++i) uniform = !isBad(reg, ops.reg_src[i]);
    for (std::uint32_t i = 0; i < ops.n_pred_src && uniform; ++i) uniform = !isBad(pred, ops.pred_src[i]);
    for (std::uint32_t i = 0; i < ops.n_reg_dst && uniform; ++i) uniform = !isBad(reg, ops.reg_dst[i]);
    for (std::uint32_t i = 0; i < ops.n_pred_dst && uniform; ++i) uniform = !isBad(pred, ops.pred_dst[i]);
    if (uniform) {
      ii.flags |= kUniformOp;
      continue;
    }
    // add r, a, b: r read only as shared addresses, a or b an immediate or uniform.
    if (in.op != Op::Add || in.guard != ptx::kNoSlot || (in.flags & (ptx::kCcIn | ptx::kCcOut)) || in.ndst != 1 ||
        ptx::isFloat(in.type) || ops.n_reg_dst != 1)
      continue;
    const std::uint32_t r = ops.reg_dst[0];
    if (r >= address_only.size() || !address_only[r] || r >= readers.size() || readers[r] == 0) continue;
    if (ops.n_reg_src == 1 && ii.const_src) {
      ii.flags |= kAddressFoldImm;
    } else if (ops.n_reg_src == 2 && (!isBad(reg, ops.reg_src[0]) || !isBad(reg, ops.reg_src[1]))) {
      ii.flags |= kAddressFoldUniform;
    }
  }
}

// f64 arithmetic's immediates that SASS cannot encode (InstInfo::wide_imm) in function
// [entry, end): a DFMA, DADD, DMUL or DSETP takes only a double's high 32 bits as an immediate
// (docs/data/h100_suite_sass.txt, f64_math: libdevice's polynomial coefficients each built with two
// UMOV or IMAD.MOV.U32 before their DFMA). Not in a loop (between a backward branch and its
// target), where ptxas builds the constant once before the loop.
void markWideImmediates(const ptx::Program& program, const ptx::DecodedFunction& f, std::uint32_t end,
                        std::vector<InstInfo>& info) {
  std::vector<std::uint8_t> in_loop(end - f.entry_pc, 0);
  for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
    const ptx::DecodedInst& in = program.code[pc];
    if ((in.op == Op::Bra || in.op == Op::BrxIdx) && in.target >= f.entry_pc && in.target <= pc)
      for (std::uint32_t q = in.target; q <= pc; ++q) in_loop[q - f.entry_pc] = 1;
  }
  std::map<std::uint32_t, std::uint64_t> constants;
  for (const auto& init : f.inits)
    if (init.kind == ptx::SlotInit::Kind::Constant) constants[init.slot] = init.value;
  for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
    const ptx::DecodedInst& in = program.code[pc];
    const bool f64_op = (in.type == ptx::Type::F64 && (in.op == Op::Fma || in.op == Op::Add || in.op == Op::Sub ||
                                                        in.op == Op::Mul || in.op == Op::Min || in.op == Op::Max)) ||
                        (in.op == Op::Setp && in.type2 == ptx::Type::F64);
    if (!f64_op || in_loop[pc - f.entry_pc]) continue;
    std::uint8_t n = 0;
    for (int i = 0; i < in.nsrc && i < 4; ++i) {
      if (!(info[pc].const_src >> i & 1)) continue;
      const auto it = constants.find(in.src[i]);
      if (it != constants.end() && (it->second & 0xFFFFFFFFu) != 0) ++n;
    }
    info[pc].wide_imm = n;
  }
}

}  // namespace

std::vector<InstInfo> classifyProgram(const ptx::Program& program) {
  std::vector<InstInfo> out(program.code.size());
  std::vector<std::uint8_t> consts;
  std::vector<std::uint32_t> readers;
  Operands ops;
  for (const auto& f : program.functions) {
    if (f.end_pc <= f.entry_pc) continue;
    const std::uint32_t end = std::min<std::uint32_t>(f.end_pc, std::uint32_t(program.code.size()));
    consts.assign(f.num_regs, 0);
    for (const auto& init : f.inits)
      if ((init.kind == ptx::SlotInit::Kind::Constant || init.kind == ptx::SlotInit::Kind::LocalAddress) &&
          init.slot < consts.size())
        consts[init.slot] = 1;
    for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) out[pc] = classify(program, pc, consts);
    // How many instructions of the function read each register: an atom whose result none reads is
    // a red, and a fused pair's first result has exactly one reader.
    readers.assign(f.num_regs, 0);
    for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
      operands(program, program.code[pc], out[pc], ops);
      for (std::uint32_t i = 0; i < ops.n_reg_src; ++i) {
        if (ops.reg_src[i] >= readers.size()) readers.resize(ops.reg_src[i] + 1, 0);
        ++readers[ops.reg_src[i]];
      }
    }
    const std::vector<std::uint8_t> starts = blockStarts(program, f.entry_pc, end);
    findSharedLoadGroups(program, f.entry_pc, end, starts, out);
    findFusedInstructions(program, f.entry_pc, end, starts, readers, s2rSlots(f), out);
    markWideImmediates(program, f, end, out);
    for (std::uint32_t pc = f.entry_pc; pc < end; ++pc) {
      if (program.code[pc].op != Op::Atom) continue;
      operands(program, program.code[pc], out[pc], ops);
      bool used = ops.n_pred_dst > 0;
      for (std::uint32_t i = 0; i < ops.n_reg_dst; ++i) used |= ops.reg_dst[i] >= readers.size() || readers[ops.reg_dst[i]];
      if (!used) out[pc].flags |= kResultUnused;
    }
    if (&f == &program.functions.front()) markUniformity(program, f, end, readers, out);
  }
  return out;
}

void operands(const ptx::Program& program, const ptx::DecodedInst& in, const InstInfo& info, Operands& o) {
  o.n_reg_src = o.n_reg_dst = o.n_pred_src = o.n_pred_dst = 0;
  if (in.guard != ptx::kNoSlot) o.pred_src[o.n_pred_src++] = in.guard;
  for (int i = 0; i < in.nsrc && i < 4; ++i) {
    const std::uint32_t s = in.src[i];
    if (s == ptx::kNoSlot) continue;
    if (info.pred_src >> i & 1) o.pred_src[o.n_pred_src++] = s;
    else if (!(info.const_src >> i & 1)) o.reg_src[o.n_reg_src++] = s;
  }
  for (int i = 0; i < in.ndst && i < 4 && !(info.flags & kResultUnused); ++i) {
    const std::uint32_t d = in.dst[i];
    if (d == ptx::kNoSlot) continue;
    if (info.pred_dst >> i & 1) {
      if (o.n_pred_dst < 2) o.pred_dst[o.n_pred_dst++] = d;
    } else {
      o.reg_dst[o.n_reg_dst++] = d;
    }
  }
  if (ptx::isMatrixOp(in.op)) {
    const ptx::TensorOp& t = program.tensor_ops[in.target];
    for (const auto* list : {&t.src_a, &t.src_b, &t.src_c})
      for (std::uint32_t s : *list)
        if (o.n_reg_src < kMaxRegSrc - 2) o.reg_src[o.n_reg_src++] = s;
    if (t.stride != ptx::kNoSlot) o.reg_src[o.n_reg_src++] = t.stride;
    for (std::uint32_t d : t.dst)
      if (o.n_reg_dst < kMaxRegDst - 1) o.reg_dst[o.n_reg_dst++] = d;
  }
  if (in.op == Op::CpBulk)
    for (std::uint32_t s : program.bulk_ops[in.target].reads())
      if (o.n_reg_src < kMaxRegSrc - 2) o.reg_src[o.n_reg_src++] = s;
  if (in.op == Op::Wgmma) {  // descriptors or A's registers, scale-d; D is tracked by its group (sm_core.cpp)
    const ptx::TensorOp& t = program.tensor_ops[in.target];
    for (const auto* list : {&t.src_a, &t.src_b})
      for (std::uint32_t s : *list)
        if (o.n_reg_src < kMaxRegSrc - 2) o.reg_src[o.n_reg_src++] = s;
    if (o.n_pred_src < 6) o.pred_src[o.n_pred_src++] = t.scale_d;
  }
  if (info.flags & kReadsAux) o.reg_src[o.n_reg_src++] = in.aux;
  if (info.flags & kWritesAux) o.reg_dst[o.n_reg_dst++] = in.aux;
  if (in.op == Op::Call && in.aux < program.calls.size()) {
    const std::uint32_t callee = program.calls[in.aux].callee_slot;
    if (callee != ptx::kNoSlot) o.reg_src[o.n_reg_src++] = callee;
  }
}

std::vector<std::uint32_t> savedRegistersPerFunction(const ptx::Program& program, const std::vector<InstInfo>& info) {
  std::vector<std::uint32_t> saved(program.functions.size(), 0);
  Operands ops;
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const ptx::DecodedFunction& fn = program.functions[f];
    if (fn.is_entry) continue;
    std::vector<std::uint32_t> calls;
    for (std::uint32_t pc = fn.entry_pc; pc < fn.end_pc; ++pc)
      if (program.code[pc].op == Op::Call) calls.push_back(pc);
    if (calls.empty()) continue;
    // Per register: its first write and last read in code order.
    std::vector<std::uint32_t> first_write(fn.num_regs, ~0u), last_read(fn.num_regs, 0);
    for (std::uint32_t pc = fn.entry_pc; pc < fn.end_pc; ++pc) {
      operands(program, program.code[pc], info[pc], ops);
      for (std::uint32_t k = 0; k < ops.n_reg_dst; ++k)
        if (ops.reg_dst[k] < fn.num_regs) first_write[ops.reg_dst[k]] = std::min(first_write[ops.reg_dst[k]], pc);
      for (std::uint32_t k = 0; k < ops.n_reg_src; ++k)
        if (ops.reg_src[k] < fn.num_regs) last_read[ops.reg_src[k]] = std::max(last_read[ops.reg_src[k]], pc + 1);
    }
    std::uint32_t live = 0;
    for (std::uint32_t r = 0; r < fn.num_regs; ++r)
      for (std::uint32_t c : calls)
        if (first_write[r] < c && last_read[r] > c + 1) {
          ++live;
          break;
        }
    saved[f] = 2 + live;
  }
  return saved;
}

}  // namespace scgpu::sm::timing
