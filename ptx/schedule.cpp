#include "ptx/schedule.h"

#include <algorithm>
#include <vector>

namespace scgpu::ptx {
namespace {

// Register slots an instruction reads and writes, for the scheduling below: conservative (a
// predicate slot and a register slot with the same number count as the same).
void slotsOf(const Program& prog, const DecodedInst& in, std::vector<std::uint32_t>& reads,
             std::vector<std::uint32_t>& writes) {
  reads.clear();
  writes.clear();
  for (int i = 0; i < in.nsrc && i < 4; ++i)
    if (in.src[i] != kNoSlot) reads.push_back(in.src[i]);
  for (int i = 0; i < in.ndst && i < 4; ++i)
    if (in.dst[i] != kNoSlot) writes.push_back(in.dst[i]);
  if (in.op == Op::St)
    for (int i = 0; i < in.vec && i < 4; ++i)
      if (in.src[i] != kNoSlot) reads.push_back(in.src[i]);
  if (in.op == Op::Ld)
    for (int i = 0; i < in.vec && i < 4; ++i)
      if (in.dst[i] != kNoSlot) writes.push_back(in.dst[i]);
  const bool tensor = isMatrixOp(in.op);
  if (in.aux != kNoSlot &&
      (in.op == Op::Ld || in.op == Op::St || (tensor && in.op != Op::Mma && in.op != Op::Movmatrix) ||
       (in.flags & (kCcIn | kCcOut)))) {
    reads.push_back(in.aux);
    if (in.flags & kCcOut) writes.push_back(in.aux);
  }
  if (tensor) {
    const TensorOp& t = prog.tensor_ops[in.target];
    for (const auto* l : {&t.src_a, &t.src_b, &t.src_c}) reads.insert(reads.end(), l->begin(), l->end());
    if (t.stride != kNoSlot) reads.push_back(t.stride);
    writes.insert(writes.end(), t.dst.begin(), t.dst.end());
  }
  if (in.op == Op::CpBulk) {
    const auto r = prog.bulk_ops[in.target].reads();
    reads.insert(reads.end(), r.begin(), r.end());
  }
  if (in.guard != kNoSlot) reads.push_back(in.guard);
}

bool overlaps(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  for (std::uint32_t x : a)
    for (std::uint32_t y : b)
      if (x == y) return true;
  return false;
}

enum class Kind { Load, Store, Compute, Fixed };

// What the scheduling below may do with an instruction, and the state space it reads or writes.
Kind kindOf(const Program& prog, const DecodedInst& in, Space& space) {
  space = in.space;
  switch (in.op) {
    case Op::Ld:  // volatile and generic loads too: they pass arithmetic only (mayPass)
      return Kind::Load;
    case Op::St:
      return (in.flags & kVolatile) ? Kind::Fixed : Kind::Store;
    case Op::Ldmatrix: space = Space::Shared; return Kind::Load;
    case Op::Stmatrix: space = Space::Shared; return Kind::Store;
    case Op::Wmma: {
      const TensorOp& t = prog.tensor_ops[in.target];
      if (t.kind == TensorOp::Kind::WmmaMma) return Kind::Compute;
      if (in.space == Space::Generic) return Kind::Fixed;
      return t.kind == TensorOp::Kind::WmmaLoad ? Kind::Load : Kind::Store;
    }
    case Op::Mma: case Op::Movmatrix: return Kind::Compute;
    case Op::Atom: case Op::Red: case Op::Prefetch: case Op::Fence: case Op::Bra: case Op::BrxIdx: case Op::Call:
    case Op::Ret: case Op::Exit: case Op::Trap: case Op::Brkpt: case Op::Bar: case Op::Nanosleep: case Op::Shfl:
    case Op::BarCluster: case Op::Mapa: case Op::Getctarank:
    case Op::Vote: case Op::Match: case Op::Redux: case Op::Activemask: case Op::CpAsync: case Op::CpAsyncCommit:
    case Op::CpAsyncWait: case Op::Mbarrier: case Op::CpBulk: case Op::CpBulkCommit: case Op::CpBulkWait: case Op::Count:
    case Op::Wgmma: case Op::WgmmaFence: case Op::WgmmaCommit: case Op::WgmmaWait:
    case Op::Tex: case Op::Tld4: case Op::Txq: case Op::Suld: case Op::Sust: case Op::Suq:  // texture/surface: in place
      return Kind::Fixed;
    case Op::Mov:
      return in.nsrc == 0 && in.src[0] == kNoSlot ? Kind::Fixed : Kind::Compute;  // %clock, %globaltimer
    default:
      return Kind::Compute;
  }
}

// Whether a load of `load_space` and a store of `store_space` may be reordered: different
// windows cannot alias (generic stores may touch any), and a .nc global load reads data no store
// of the kernel writes.
bool independent(Space load_space, bool load_nc, Space store_space) {
  if (store_space == Space::Generic) return false;
  if (load_space == Space::Const || load_space == Space::KernelParam) return true;
  if (load_space == Space::Global && store_space == Space::Global) return load_nc;
  return load_space != store_space;
}

bool noRegisterHazard(const Program& prog, const DecodedInst& a, const DecodedInst& b) {
  std::vector<std::uint32_t> ar, aw, br, bw;
  slotsOf(prog, a, ar, aw);
  slotsOf(prog, b, br, bw);
  return !overlaps(aw, br) && !overlaps(ar, bw) && !overlaps(aw, bw);
}

// A volatile load keeps its place among memory accesses and a generic one may alias any store:
// both move past arithmetic only.
bool pinnedLoad(const DecodedInst& in, Space space) {
  return in.op == Op::Ld && ((in.flags & kVolatile) || space == Space::Generic);
}

// Whether a load may move above `prev`: arithmetic (tensor-core ops included) or a store it cannot
// alias, and no register dependence; never above another load (loads keep their order). Pinned
// loads pass arithmetic only: ptxas issues `ld.volatile` ahead of independent arithmetic as it
// does any load (validation/micro smem_load_*: eight volatile loads, then their adds).
bool mayPass(const Program& prog, const DecodedInst& load, const DecodedInst& prev) {
  Space ls, ps;
  kindOf(prog, load, ls);
  switch (kindOf(prog, prev, ps)) {
    case Kind::Compute: break;
    case Kind::Store:
      if (pinnedLoad(load, ls) || !independent(ls, load.op == Op::Ld && (load.flags & kNc), ps)) return false;
      break;
    default: return false;
  }
  return noRegisterHazard(prog, load, prev);
}

// Whether a store may move below `next`: arithmetic or a load it cannot alias, and `next` writes
// nothing the store reads; never below another store.
bool maySink(const Program& prog, const DecodedInst& store, const DecodedInst& next) {
  Space ss, ns;
  kindOf(prog, store, ss);
  switch (kindOf(prog, next, ns)) {
    case Kind::Compute: break;
    case Kind::Load:
      if (pinnedLoad(next, ns) || !independent(ns, next.op == Op::Ld && (next.flags & kNc), ss)) return false;
      break;
    default: return false;
  }
  return noRegisterHazard(prog, store, next);
}

// Reorders one function's code [begin, end): see scheduleLikePtxas.
void scheduleRange(Program& prog, const std::vector<std::uint8_t>& starts, std::uint32_t begin, std::uint32_t end) {
  auto block_start = [&](std::uint32_t i) { return starts[begin + i]; };
  auto move = [&](std::uint32_t from, std::uint32_t to) {  // the instruction at `from` to `to`
    if (from > to) {
      std::rotate(prog.code.begin() + to, prog.code.begin() + from, prog.code.begin() + from + 1);
      std::rotate(prog.text.begin() + to, prog.text.begin() + from, prog.text.begin() + from + 1);
    } else {
      std::rotate(prog.code.begin() + from, prog.code.begin() + from + 1, prog.code.begin() + to + 1);
      std::rotate(prog.text.begin() + from, prog.text.begin() + from + 1, prog.text.begin() + to + 1);
    }
  };
  Space space;
  for (std::uint32_t pc = begin + 1; pc < end; ++pc) {
    if (block_start(pc - begin) || kindOf(prog, prog.code[pc], space) != Kind::Load) continue;
    std::uint32_t to = pc;
    while (to > begin && !block_start(to - begin) && mayPass(prog, prog.code[pc], prog.code[to - 1])) --to;
    if (to != pc) move(pc, to);
  }
  for (std::uint32_t pc = end - 1; pc-- > begin;) {  // last store first, so that stores keep their order
    if (kindOf(prog, prog.code[pc], space) != Kind::Store || (space != Space::Shared && space != Space::Local))
      continue;
    std::uint32_t to = pc;
    while (to + 1 < end && !block_start(to + 1 - begin) && maySink(prog, prog.code[pc], prog.code[to + 1])) ++to;
    if (to != pc) move(pc, to);
  }
}


}  // namespace

// ptxas schedules loads as early as their operands allow, so that their latencies overlap:
// `A[i] -> shared; B[i] -> shared` runs as two loads, then two stores, and the fragments of the
// next k step are loaded while the tensor cores work on this one. The timing model issues PTX in
// order, so each load (global, shared, constant, parameter, ldmatrix, wmma.load) moves up its basic
// block past the instructions it may legally pass (mayPass), stopping at the previous load, and
// each store to shared or local memory moves down past the arithmetic and the loads it cannot
// alias (maySink), stopping at the next store. What every thread computes is unchanged.
Program scheduleLikePtxas(const Program& in) {
  Program prog = in;
  const std::size_t n = prog.code.size();
  // Basic-block starts: function entries, branch targets and reconvergence points, table targets,
  // and whatever follows a control instruction or a barrier.
  std::vector<std::uint8_t> starts(n + 1, 0);
  for (const auto& f : prog.functions) starts[std::min<std::size_t>(f.entry_pc, n)] = 1;
  for (std::uint32_t t : prog.branch_tables_flat) starts[std::min<std::size_t>(t, n)] = 1;
  for (std::size_t pc = 0; pc < n; ++pc) {
    const DecodedInst& in = prog.code[pc];
    if (in.op == Op::Bra || in.op == Op::BrxIdx) {
      starts[std::min<std::size_t>(in.target, n)] = 1;
      starts[std::min<std::size_t>(in.reconverge, n)] = 1;
    }
    if (in.op == Op::Bra || in.op == Op::BrxIdx || in.op == Op::Call || in.op == Op::Ret || in.op == Op::Exit ||
        in.op == Op::Trap || in.op == Op::Bar)
      starts[pc + 1] = 1;
  }
  for (const auto& f : prog.functions)
    if (f.end_pc > f.entry_pc && f.end_pc <= n) scheduleRange(prog, starts, f.entry_pc, f.end_pc);
  return prog;
}

}  // namespace scgpu::ptx
