#include "ptx/schedule.h"

#include <algorithm>
#include <string>
#include <unordered_map>
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
    case Op::Div: case Op::Rem: case Op::Sqrt: case Op::Rcp:
      // IEEE-rounded f32/f64 division, square root and reciprocal, and 64-bit integer division:
      // ptxas expands them into a fast path and a branch to a slow-path subroutine (FCHK or a range
      // test, BRA, CALL.REL), so they end its basic block and nothing moves across them (heldout
      // black_scholes' SASS loads x[i] and s[i] after sqrtf's branch, not at the top).
      if (isFloat(in.type) ? in.round != Round::None : sizeOf(in.type) == 8) return Kind::Fixed;
      return Kind::Compute;
    default:  // arithmetic, and Op::Nop
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

// Whether ptxas may predicate `in` in place of branching around it: it stays in line and does the
// same for the lanes its guard selects (no control flow, barrier, warp-wide or asynchronous
// operation, no guard of its own).
bool predicable(const DecodedInst& in) {
  if (in.guard != kNoSlot) return false;
  switch (in.op) {
    case Op::Bra: case Op::BrxIdx: case Op::Call: case Op::Ret: case Op::Exit: case Op::Trap: case Op::Brkpt:
    case Op::Bar: case Op::BarCluster: case Op::Fence: case Op::Nanosleep: case Op::Shfl: case Op::Vote:
    case Op::Match: case Op::Redux: case Op::Activemask: case Op::Mma: case Op::Wmma: case Op::Ldmatrix:
    case Op::Stmatrix: case Op::Movmatrix: case Op::Mbarrier: case Op::CpAsync: case Op::CpAsyncCommit:
    case Op::CpAsyncWait: case Op::CpBulk: case Op::CpBulkCommit: case Op::CpBulkWait: case Op::Wgmma:
    case Op::WgmmaFence: case Op::WgmmaCommit: case Op::WgmmaWait: case Op::Mapa: case Op::Getctarank:
    case Op::Count:
      return false;
    case Op::Mov:
      return !(in.nsrc == 0 && in.src[0] == kNoSlot);  // not %clock and friends
    default:
      return true;
  }
}

// The handler of Op::Nop.
void doNothing(sm::ExecContext&, const DecodedInst&) {}

// ptxas's if-conversion: `@p bra L; <a few instructions>; L:` becomes those instructions under
// `@!p`, with no branch; and the diamond `@p bra E; <then>; bra.uni J; E: <else>; J:` becomes
// <then> under `@!p` and <else> under `@p`. A removed branch becomes an Op::Nop so that no pc
// moves (the timing model does not issue it, sm/timing/inst_class.cpp); the predicated
// instructions, and the then-part's closing Nop, carry kPredicatedBody, so that they count as the
// lanes that the branches let through (the counts stay those of the PTX). Only parts nothing else
// branches into, of at most kMaxPredicatedBody instructions in all, every one predicable and
// leaving the branch's predicate alone.
void predicateShortBranches(Program& prog, std::uint32_t begin, std::uint32_t end) {
  constexpr std::uint32_t kMaxPredicatedBody = 12;
  // How many branches, reconvergence points and table entries lead to each pc of the function.
  std::vector<std::uint32_t> refs(end - begin + 1, 0);
  for (std::uint32_t pc = begin; pc < end; ++pc) {
    const DecodedInst& in = prog.code[pc];
    if (in.op == Op::Bra || in.op == Op::BrxIdx) {
      if (in.target >= begin && in.target < end) ++refs[in.target - begin];
      if (in.reconverge >= begin && in.reconverge < end) ++refs[in.reconverge - begin];
    }
  }
  for (std::uint32_t t : prog.branch_tables_flat)
    if (t >= begin && t < end) ++refs[t - begin];
  std::vector<std::uint32_t> reads, writes;
  // The instruction at pc can run under the branch's guard: predicable, the guard untouched.
  auto underGuard = [&](const DecodedInst& br, std::uint32_t pc) {
    slotsOf(prog, prog.code[pc], reads, writes);
    return predicable(prog.code[pc]) && std::find(writes.begin(), writes.end(), br.guard) == writes.end();
  };
  // ... and so can all of [from, to), which nothing branches into.
  auto predicableRange = [&](const DecodedInst& br, std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t pc = from; pc < to; ++pc)
      if (refs[pc - begin] || !underGuard(br, pc)) return false;
    return true;
  };
  auto predicate = [&](std::uint32_t from, std::uint32_t to, std::uint32_t guard, bool negated) {
    for (std::uint32_t pc = from; pc < to; ++pc) {
      DecodedInst& in = prog.code[pc];
      in.guard = guard;
      in.guard_negated = negated;
      in.flags |= kPredicatedBody;
    }
  };
  auto toNop = [&](std::uint32_t pc) {
    DecodedInst nop;
    nop.op = Op::Nop;
    nop.fn = &doNothing;
    nop.ptx_line = prog.code[pc].ptx_line;
    nop.ptx_col = prog.code[pc].ptx_col;
    prog.code[pc] = nop;
    if (pc < prog.text.size()) prog.text[pc] = "// if-converted: " + prog.text[pc];
  };
  for (std::uint32_t b = begin; b < end; ++b) {
    const DecodedInst br = prog.code[b];
    if (br.op != Op::Bra || br.guard == kNoSlot || br.target <= b + 1 || br.target > end) continue;
    const std::uint32_t e = br.target;
    if (br.reconverge == e && e - b - 1 <= kMaxPredicatedBody && predicableRange(br, b + 1, e)) {
      predicate(b + 1, e, br.guard, !br.guard_negated);  // the body runs where the branch is not taken
      toNop(b);
      continue;
    }
    // A diamond: the then-part ends in an unconditional branch over the else-part to the join.
    const std::uint32_t u = e - 1;  // the then-part's closing branch
    if (u <= b || e >= end) continue;
    const DecodedInst& ub = prog.code[u];
    const std::uint32_t j = ub.target;
    if (ub.op != Op::Bra || ub.guard != kNoSlot || j <= e || j > end || br.reconverge != j ||
        (u - b - 1) + (j - e) > kMaxPredicatedBody || refs[e - begin] != 1 || refs[u - begin] ||
        !predicableRange(br, b + 1, u) || !underGuard(br, e) || !predicableRange(br, e + 1, j))
      continue;  // (the else-part's first instruction is the branch's own target: refs 1)
    predicate(b + 1, u, br.guard, !br.guard_negated);
    predicate(e, j, br.guard, br.guard_negated);
    toNop(b);
    toNop(u);
    prog.code[u].guard = br.guard;  // counts as the then-part's lanes' branch did
    prog.code[u].guard_negated = !br.guard_negated;
    prog.code[u].flags |= kPredicatedBody;
  }
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

// The weight, in instructions, of the path through a load that an instruction feeding it heads: about
// the latency of a shared-memory load in issue slots, so that address arithmetic goes first.
constexpr std::uint32_t kLoadPathLength = 16;

// A unit of the arithmetic list scheduling below: one instruction, or a pair ptxas fuses into one
// SASS instruction (kept adjacent so that the timing model still folds the second away).
struct Unit {
  std::uint32_t first = 0, size = 1;  // offsets in the run
  std::uint32_t height = 0;           // issue slots on the longest dependent path from here to the run's end
  std::uint32_t waiting = 0;          // unscheduled predecessors
  std::uint64_t earliest = 0;         // the first slot its operands are ready in
  // Dependent units, and whether each reads a result (else it only must come later: a register
  // this one reads or writes is overwritten).
  std::vector<std::pair<std::uint32_t, bool>> succ;
};

// The latency, in issue slots, ptxas plans a result of fixed-latency arithmetic to take. Only the
// order depends on it: the timing model times what it issues with the configured pipes.
constexpr std::uint64_t kArithmeticLatency = 4;

// Reorders the run [a, b) of arithmetic (no block start inside, nothing but Kind::Compute) by
// list scheduling, one issue slot at a time: of the instructions whose operands are ready in the
// slot, the one with the longest dependent path to the run's end goes first (ties in PTX order);
// when none is ready the slot stays empty. nvcc writes an unrolled loop's independent chains one
// after another and a loop's counter update after its body; ptxas interleaves the chains and
// fills the slots a chain waits in with the rest, so that a lone warp issues FFMA at 0.85 a cycle
// on the H100 (validation/micro/warp_order.cu, case ffma_32) where PTX order waits out every
// dependent latency. `load_reads` are the registers loads later in the block read: what computes
// them heads a path through a load.
void interleaveRun(Program& prog, std::uint32_t a, std::uint32_t b, const std::vector<std::uint32_t>& load_reads) {
  const std::uint32_t n = b - a;
  // Units: fusable pairs stay together, as findFusedInstructions (sm/timing) pairs them.
  std::vector<Unit> units;
  std::vector<std::uint32_t> unit_of(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    const bool glue = k > 0 && units.back().size == 1 && units.back().first == k - 1 &&
                      fusablePair(prog.code[a + k - 1], prog.code[a + k]);
    if (glue) {
      ++units.back().size;
    } else {
      units.emplace_back();
      units.back().first = k;
    }
    unit_of[k] = std::uint32_t(units.size() - 1);
  }
  // Register dependences (true, anti and output) between units, in PTX order.
  std::unordered_map<std::uint32_t, std::uint32_t> last_writer;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> readers_since;
  std::vector<std::uint32_t> reads, writes;
  std::vector<std::uint32_t> feeds_load(units.size(), 0);
  auto edge = [&](std::uint32_t from, std::uint32_t to, bool data) {
    if (from == to) return;
    auto& s = units[from].succ;
    auto it = std::find_if(s.begin(), s.end(), [&](const auto& e) { return e.first == to; });
    if (it != s.end()) {
      it->second = it->second || data;
      return;
    }
    s.emplace_back(to, data);
    ++units[to].waiting;
  };
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t u = unit_of[k];
    slotsOf(prog, prog.code[a + k], reads, writes);
    for (std::uint32_t r : reads) {
      if (auto w = last_writer.find(r); w != last_writer.end()) edge(w->second, u, true);
      readers_since[r].push_back(u);
    }
    for (std::uint32_t w : writes) {
      if (auto p = last_writer.find(w); p != last_writer.end()) edge(p->second, u, false);
      for (std::uint32_t r : readers_since[w]) edge(r, u, false);
      readers_since[w].clear();
      last_writer[w] = u;
      if (std::find(load_reads.begin(), load_reads.end(), w) != load_reads.end()) feeds_load[u] = kLoadPathLength;
    }
  }
  for (std::uint32_t u = std::uint32_t(units.size()); u-- > 0;) {  // successors come later in PTX order
    std::uint32_t below = feeds_load[u];
    for (const auto& e : units[u].succ) below = std::max(below, units[e.first].height);
    units[u].height = units[u].size + below;
  }
  std::vector<std::uint32_t> ready;  // units whose predecessors are all placed
  for (std::uint32_t u = 0; u < units.size(); ++u)
    if (units[u].waiting == 0) ready.push_back(u);
  std::vector<DecodedInst> code;
  std::vector<std::string> text;
  code.reserve(n);
  text.reserve(n);
  std::uint64_t slot = 0;
  while (!ready.empty()) {
    // The best unit ready in this slot; else the slot stays empty and the first to be ready goes.
    std::size_t best = ready.size();
    std::uint64_t first_ready = ~std::uint64_t{0};
    for (std::size_t i = 0; i < ready.size(); ++i) {
      const Unit& c = units[ready[i]];
      first_ready = std::min(first_ready, c.earliest);
      if (c.earliest > slot) continue;
      if (best == ready.size() || c.height > units[ready[best]].height ||
          (c.height == units[ready[best]].height && ready[i] < ready[best]))
        best = i;
    }
    if (best == ready.size()) {
      slot = first_ready;
      continue;
    }
    const std::uint32_t u = ready[best];
    ready.erase(ready.begin() + long(best));
    for (std::uint32_t k = units[u].first; k < units[u].first + units[u].size; ++k) {
      code.push_back(prog.code[a + k]);
      text.push_back(std::move(prog.text[a + k]));
    }
    const std::uint64_t issued = slot;
    slot += units[u].size;
    for (const auto& [s, data] : units[u].succ) {
      Unit& next = units[s];
      next.earliest = std::max(next.earliest, data ? issued + kArithmeticLatency : slot);
      if (--next.waiting == 0) ready.push_back(s);
    }
  }
  std::copy(code.begin(), code.end(), prog.code.begin() + a);
  std::move(text.begin(), text.end(), prog.text.begin() + a);
}

// Interleaves the arithmetic of one function's code [begin, end): each run of two or more
// Kind::Compute instructions inside one basic block, between its loads, stores and fixed
// instructions (after those have moved), is list-scheduled by interleaveRun.
void interleaveArithmetic(Program& prog, const std::vector<std::uint8_t>& starts, std::uint32_t begin,
                          std::uint32_t end) {
  Space space;
  std::vector<std::uint32_t> load_reads, reads, writes;
  std::uint32_t run = begin;  // start of the current run
  for (std::uint32_t pc = begin; pc <= end; ++pc) {
    const bool compute = pc < end && kindOf(prog, prog.code[pc], space) == Kind::Compute;
    if (compute && pc > run && !starts[pc]) continue;
    if (pc >= run + 2) {
      // The registers the loads after the run, up to the block's end, read.
      load_reads.clear();
      for (std::uint32_t q = pc; q < end && (q == pc || !starts[q]); ++q) {
        if (kindOf(prog, prog.code[q], space) != Kind::Load) continue;
        slotsOf(prog, prog.code[q], reads, writes);
        load_reads.insert(load_reads.end(), reads.begin(), reads.end());
      }
      interleaveRun(prog, run, pc, load_reads);
    }
    run = compute ? pc : pc + 1;
  }
}

}  // namespace

bool fusablePair(const DecodedInst& i, const DecodedInst& j) {
  auto plain = [](const DecodedInst& in) {  // unguarded, no carry, one register result
    return in.guard == kNoSlot && !(in.flags & (kCcIn | kCcOut)) && in.ndst == 1 && in.dst[0] != kNoSlot;
  };
  auto integer = [](Type t) { return t != Type::Pred && t != Type::None && !isFloat(t); };
  auto add_sub = [](Op op) { return op == Op::Add || op == Op::Sub; };
  auto logic = [](Op op) { return op == Op::And || op == Op::Or || op == Op::Xor || op == Op::Not; };
  if (!plain(i) || !plain(j) || !integer(i.type) || !integer(j.type)) return false;
  const bool pair = (add_sub(i.op) && add_sub(j.op)) ||                         // IADD3
                    (logic(i.op) && logic(j.op)) ||                             // LOP3
                    ((i.op == Op::Shl || i.op == Op::Mul) && j.op == Op::Add);  // LEA, IMAD(.WIDE)
  if (!pair) return false;
  for (int k = 0; k < j.nsrc && k < 4; ++k)
    if (j.src[k] == i.dst[0]) return true;
  return false;
}

// ptxas schedules loads as early as their operands allow, so that their latencies overlap:
// `A[i] -> shared; B[i] -> shared` runs as two loads, then two stores, and the fragments of the
// next k step are loaded while the tensor cores work on this one. The timing model issues PTX in
// order, so each load (global, shared, constant, parameter, ldmatrix, wmma.load) moves up its basic
// block past the instructions it may legally pass (mayPass), stopping at the previous load, and
// each store to shared or local memory moves down past the arithmetic and the loads it cannot
// alias (maySink), stopping at the next store; then the arithmetic between them is interleaved
// (interleaveArithmetic). What every thread computes is unchanged.
Program scheduleLikePtxas(const Program& in) {
  Program prog = in;
  const std::size_t n = prog.code.size();
  for (const auto& f : prog.functions)
    if (f.end_pc > f.entry_pc && f.end_pc <= n) predicateShortBranches(prog, f.entry_pc, f.end_pc);
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
  // The two passes repeat until nothing moves: the arithmetic a load's address needs may sit
  // behind an instruction the load cannot pass until the list scheduling lifted it (a loop
  // unrolled by nvcc: `ld a[k]; ld b[k]; fma; add p, p, n; ld b[k+1]; ...`, where ptxas issues
  // every load of the body before the first fma: heldout sgemm_naive's SASS, 32 LDG ahead of
  // their FFMAs). Each round lifts at least one more load, so a block of n instructions settles
  // within n rounds; kMaxRounds bounds the work on huge blocks.
  constexpr int kMaxRounds = 16;
  for (const auto& f : prog.functions)
    if (f.end_pc > f.entry_pc && f.end_pc <= n) {
      for (int round = 0; round < kMaxRounds; ++round) {
        const std::vector<std::string> before(prog.text.begin() + f.entry_pc, prog.text.begin() + f.end_pc);
        scheduleRange(prog, starts, f.entry_pc, f.end_pc);
        interleaveArithmetic(prog, starts, f.entry_pc, f.end_pc);
        if (std::equal(before.begin(), before.end(), prog.text.begin() + f.entry_pc)) break;
      }
    }
  return prog;
}

}  // namespace scgpu::ptx
