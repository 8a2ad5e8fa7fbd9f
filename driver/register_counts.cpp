#include "driver/register_counts.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#ifndef SCGPU_SOURCE_DIR
#error "SCGPU_SOURCE_DIR must name the source tree (set by CMake)"
#endif

namespace scgpu::driver {
namespace {

using ptx::DecodedFunction;
using ptx::DecodedInst;
using ptx::kNoSlot;
using ptx::Op;
using ptx::Type;

using Table = std::map<std::string, RecordedResources>;

Table readTable(const std::string& path) {
  Table table;
  std::ifstream in(path);
  if (!in) return table;  // no regs.json: every kernel gets the estimate
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
    if (!j.is_object()) throw std::runtime_error("the top level is not an object");
    for (const auto& [name, e] : j.items()) {
      RecordedResources r;
      r.registers = e.at("registers").get<std::uint32_t>();
      r.shared_bytes = e.value("shared_bytes", 0u);
      r.local_bytes = e.value("local_bytes", 0u);
      r.arch = e.value("arch", std::string());
      table.emplace(name, std::move(r));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a valid register table ({}); regenerate it with scripts/gen_ptx.sh",
                                         path, e.what()));
  }
  return table;
}

const Table& table(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, Table> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, readTable(path)).first;
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Register pressure of one function.

// 32-bit registers a value of type `t` takes.
std::uint32_t units(Type t) {
  const std::uint32_t bytes = ptx::sizeOf(t);
  return bytes <= 4 ? 1 : (bytes + 3) / 4;
}

// Register operands of an instruction (predicates, constants and specials left out later).
struct Operands {
  std::uint32_t defs[16];  // a wmma fragment has 8 registers; mma.sync's at most 8
  std::uint32_t def_units[16];
  std::uint32_t ndefs = 0;
  std::uint32_t uses[48];  // wmma.mma reads 24 registers
  std::uint32_t nuses = 0;
};

Operands operands(const ptx::Program& p, const DecodedInst& in) {
  Operands o;
  if (in.op == Op::Wgmma) {  // descriptors or A's registers; D (read and written) as far as it fits
    const ptx::TensorOp& t = p.tensor_ops[in.target];
    for (const auto* list : {&t.src_a, &t.src_b, &t.dst})
      for (std::uint32_t s : *list)
        if (o.nuses < 46) o.uses[o.nuses++] = s;
    return o;
  }
  if (ptx::isMatrixOp(in.op)) {
    // Fragments: one 32-bit register per slot (two for f64 elements).
    const ptx::TensorOp& t = p.tensor_ops[in.target];
    const std::uint32_t du = t.d == ptx::MatElem::F64 || (t.kind == ptx::TensorOp::Kind::WmmaLoad &&
                                                          t.a == ptx::MatElem::F64) ? 2 : 1;
    // A wmma fragment's registers beyond its distinct elements repeat them (sm/exec/tensor.cpp);
    // ptxas allocates only the distinct ones on sm_80 and later.
    const bool wmma = in.op == Op::Wmma;
    auto distinct = [&](std::uint32_t rows, std::uint32_t cols, ptx::MatElem e, std::size_t given) {
      if (!wmma || given == 0 || ptx::bitsOf(e) == 0) return given;
      return std::min<std::size_t>(given, ptx::fragmentSlots(rows * cols / 32, e));
    };
    const std::uint32_t rows = t.rows(), cols = t.cols();
    const bool mma = t.kind == ptx::TensorOp::Kind::WmmaMma || in.op == Op::Mma;
    const std::size_t nd = mma ? distinct(t.m, t.n, t.d, t.dst.size()) : distinct(rows, cols, t.a, t.dst.size());
    const std::size_t na = mma ? distinct(t.m, t.k, t.a, t.src_a.size()) : distinct(rows, cols, t.a, t.src_a.size());
    const std::size_t nb = distinct(t.k, t.n, t.b, t.src_b.size()), nc = distinct(t.m, t.n, t.c, t.src_c.size());
    for (std::size_t i = 0; i < nd && o.ndefs < 16; ++i) {
      o.defs[o.ndefs] = t.dst[i];
      o.def_units[o.ndefs++] = du;
    }
    for (std::size_t i = 0; i < na && o.nuses < 46; ++i) o.uses[o.nuses++] = t.src_a[i];
    for (std::size_t i = 0; i < nb && o.nuses < 46; ++i) o.uses[o.nuses++] = t.src_b[i];
    for (std::size_t i = 0; i < nc && o.nuses < 46; ++i) o.uses[o.nuses++] = t.src_c[i];
    if (t.stride != kNoSlot) o.uses[o.nuses++] = t.stride;
    if (in.aux != kNoSlot && in.op != Op::Mma && in.op != Op::Movmatrix) o.uses[o.nuses++] = in.aux;
    return o;
  }
  const bool pred_type = in.type == Type::Pred;
  // Which operand positions hold predicate slots rather than register slots.
  bool dst_pred[4] = {false, false, false, false};
  bool src_pred[4] = {false, false, false, false};
  switch (in.op) {
    case Op::Mbarrier:
      dst_pred[0] = in.sub == ptx::SubOp::MbarTestWait || in.sub == ptx::SubOp::MbarTryWait;
      if (in.aux != kNoSlot) o.uses[o.nuses++] = in.aux;
      break;
    case Op::Setp:
    case Op::Testp:
    case Op::Isspacep:
      dst_pred[0] = dst_pred[1] = true;
      src_pred[2] = in.nsrc == 3;
      break;
    case Op::Set:
      src_pred[2] = in.nsrc == 3;
      break;
    case Op::Selp:
      src_pred[2] = true;
      break;
    case Op::Bar:
      dst_pred[0] = pred_type;
      src_pred[2] = in.sub == ptx::SubOp::BarRed;
      break;
    case Op::Shfl:
    case Op::Match:
      dst_pred[1] = (in.flags & ptx::kDualPred) != 0;
      break;
    case Op::Vote:
      dst_pred[0] = in.sub != ptx::SubOp::VoteBallot;
      src_pred[0] = true;
      break;
    default:
      if (pred_type) {  // and/or/xor/not/mov .pred
        for (bool& b : dst_pred) b = true;
        for (bool& b : src_pred) b = true;
      }
      break;
  }
  // Width of a destination: the instruction type (the destination type for cvt; set keeps it in
  // type2), doubled by .wide; a vector split over several destinations shares it.
  Type dt = in.op == Op::Set ? in.type2 : in.type;
  std::uint32_t u = units(dt);
  if (in.flags & ptx::kWide) u *= 2;
  if (in.op == Op::Mov && in.ndst > 1) u = std::max<std::uint32_t>(1, u / in.ndst);
  if (in.op == Op::Shfl || in.op == Op::Match || in.op == Op::Vote || in.op == Op::Activemask || in.op == Op::Bar ||
      in.op == Op::Popc || in.op == Op::Clz || in.op == Op::Bfind)
    u = 1;  // 32-bit results whatever the source type
  for (std::uint32_t i = 0; i < in.ndst && i < 4; ++i) {
    if (dst_pred[i] || in.dst[i] == kNoSlot) continue;
    o.defs[o.ndefs] = in.dst[i];
    o.def_units[o.ndefs++] = u;
  }
  for (std::uint32_t i = 0; i < in.nsrc && i < 4; ++i)
    if (!src_pred[i] && in.src[i] != kNoSlot) o.uses[o.nuses++] = in.src[i];
  // The address register of a memory access.
  if ((in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red || in.op == Op::CpAsync) &&
      in.aux != kNoSlot)
    o.uses[o.nuses++] = in.aux;
  return o;
}

// One register referenced in one basic block: whether the block reads it before writing it
// (upward exposed), whether it writes it, and whether it is live when the block ends.
struct BlockRef {
  std::uint32_t reg;
  bool exposed = false, defines = false, live_out = false;
};

// The pressure of one function, min'd with `cap`, in time and memory near-linear in its size
// (the sum of its live ranges, measured in blocks): a function with a million registers and a
// million instructions must not need a live set per instruction. Steps:
//   1. basic blocks over the instruction successors, and per block the registers it references;
//   2. liveness register by register: from the blocks that read a register before writing it,
//      walk predecessors back until blocks that write it; each block a register is live out of
//      adds its width to that block's live-out weight (and marks the reference, if any);
//   3. each block walked backwards once from its live-out weight, tracking only the registers it
//      references (the others are live throughout or not at all).
// The result equals the fixed point of per-instruction dataflow (every path from a point to a
// read that passes no write), unreachable code included. Once one block's live-out weight reaches
// `cap` the answer is `cap`, which bounds the work to about blocks x cap.
std::uint32_t functionPressure(const ptx::Program& p, const DecodedFunction& f, std::uint32_t cap) {
  if (f.end_pc <= f.entry_pc || f.num_regs == 0) return 0;
  const std::uint32_t n = f.end_pc - f.entry_pc;
  const std::uint32_t regs = f.num_regs;

  // Slots that are not registers: constants, special registers, local addresses.
  std::vector<bool> real(regs, true);
  for (const auto& init : f.inits)
    if (init.kind != ptx::SlotInit::Kind::PredicateTrue && init.slot < regs) real[init.slot] = false;

  std::vector<Operands> ops(n);
  std::vector<std::uint32_t> width(regs, 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    Operands o = operands(p, p.code[f.entry_pc + i]);
    // Keep register slots only.
    std::uint32_t nd = 0, nu = 0;
    for (std::uint32_t k = 0; k < o.ndefs; ++k)
      if (o.defs[k] < regs && real[o.defs[k]]) {
        width[o.defs[k]] = std::max(width[o.defs[k]], o.def_units[k]);
        o.defs[nd] = o.defs[k];
        o.def_units[nd++] = o.def_units[k];
      }
    for (std::uint32_t k = 0; k < o.nuses; ++k)
      if (o.uses[k] < regs && real[o.uses[k]]) o.uses[nu++] = o.uses[k];
    o.ndefs = nd;
    o.nuses = nu;
    ops[i] = o;
  }

  // Successors within the function, as instruction offsets.
  std::vector<std::vector<std::uint32_t>> succ(n);
  auto add = [&](std::uint32_t i, std::uint32_t pc) {
    if (pc >= f.entry_pc && pc < f.end_pc) succ[i].push_back(pc - f.entry_pc);
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const DecodedInst& in = p.code[f.entry_pc + i];
    const bool guarded = in.guard != kNoSlot;
    switch (in.op) {
      case Op::Bra:
        add(i, in.target);
        if (guarded) add(i, f.entry_pc + i + 1);
        break;
      case Op::BrxIdx:
        for (std::uint32_t t = 0; t < in.aux && in.target + t < p.branch_tables_flat.size(); ++t)
          add(i, p.branch_tables_flat[in.target + t]);
        if (guarded) add(i, f.entry_pc + i + 1);
        break;
      case Op::Exit:
      case Op::Ret:
      case Op::Trap:
        if (guarded) add(i, f.entry_pc + i + 1);
        break;
      default:
        add(i, f.entry_pc + i + 1);
        break;
    }
  }

  // 1. Basic blocks: an instruction whose only successor is the next one continues its block.
  auto falls_through_only = [&](std::uint32_t i) { return succ[i].size() == 1 && succ[i][0] == i + 1; };
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (falls_through_only(i)) continue;
    leader[i + 1] = true;
    for (std::uint32_t s : succ[i]) leader[s] = true;
  }
  std::vector<std::uint32_t> block_of(n), starts;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (leader[i]) starts.push_back(i);
    block_of[i] = std::uint32_t(starts.size() - 1);
  }
  const auto blocks = std::uint32_t(starts.size());
  starts.push_back(n);  // starts[b + 1] ends block b
  // Predecessors of each block, in one array (pred_begin[b] .. pred_begin[b + 1]).
  std::vector<std::uint32_t> pred_begin(blocks + 1, 0), preds;
  for (std::uint32_t b = 0; b < blocks; ++b)
    for (std::uint32_t s : succ[starts[b + 1] - 1]) pred_begin[block_of[s] + 1]++;
  for (std::uint32_t b = 0; b < blocks; ++b) pred_begin[b + 1] += pred_begin[b];
  preds.resize(pred_begin[blocks]);
  {
    std::vector<std::uint32_t> fill(pred_begin.begin(), pred_begin.end() - 1);
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::uint32_t s : succ[starts[b + 1] - 1]) preds[fill[block_of[s]]++] = b;
  }
  succ.clear();
  succ.shrink_to_fit();

  // The registers each block references (ref_begin[b] .. ref_begin[b + 1] in `refs`).
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<BlockRef> refs;
  std::vector<std::uint32_t> ref_begin(blocks + 1, 0);
  std::vector<std::uint32_t> ref_in_block(regs, kNone), ref_block(regs, kNone);
  for (std::uint32_t b = 0; b < blocks; ++b) {
    ref_begin[b] = std::uint32_t(refs.size());
    auto ref = [&](std::uint32_t r) -> BlockRef& {
      if (ref_block[r] != b) {
        ref_block[r] = b;
        ref_in_block[r] = std::uint32_t(refs.size());
        refs.push_back(BlockRef{r});
      }
      return refs[ref_in_block[r]];
    };
    for (std::uint32_t i = starts[b]; i < starts[b + 1]; ++i) {
      // Within an instruction the reads come before the writes.
      for (std::uint32_t k = 0; k < ops[i].nuses; ++k) {
        BlockRef& r = ref(ops[i].uses[k]);
        if (!r.defines) r.exposed = true;
      }
      for (std::uint32_t k = 0; k < ops[i].ndefs; ++k) ref(ops[i].defs[k]).defines = true;
    }
  }
  ref_begin[blocks] = std::uint32_t(refs.size());
  // The same references by register (by_reg_begin[r] .. by_reg_begin[r + 1] in `by_reg`).
  std::vector<std::uint32_t> by_reg_begin(std::size_t(regs) + 1, 0), by_reg(refs.size()), ref_owner(refs.size());
  for (std::uint32_t b = 0; b < blocks; ++b)
    for (std::uint32_t k = ref_begin[b]; k < ref_begin[b + 1]; ++k) ref_owner[k] = b;
  for (const BlockRef& r : refs) by_reg_begin[r.reg + 1]++;
  for (std::uint32_t r = 0; r < regs; ++r) by_reg_begin[r + 1] += by_reg_begin[r];
  {
    std::vector<std::uint32_t> fill(by_reg_begin.begin(), by_reg_begin.end() - 1);
    for (std::uint32_t k = 0; k < refs.size(); ++k) by_reg[fill[refs[k].reg]++] = k;
  }

  // 2. Liveness, register by register. Stamps (the register + 1) mark this register's visits
  // without clearing arrays between registers.
  std::vector<std::uint64_t> out_weight(blocks, 0);
  std::vector<std::uint32_t> ref_here(blocks, kNone), ref_stamp(blocks, 0), in_stamp(blocks, 0),
      out_stamp(blocks, 0), work;
  for (std::uint32_t r = 0; r < regs; ++r) {
    if (by_reg_begin[r] == by_reg_begin[r + 1]) continue;
    const std::uint32_t stamp = r + 1;
    work.clear();
    for (std::uint32_t k = by_reg_begin[r]; k < by_reg_begin[r + 1]; ++k) {
      const std::uint32_t b = ref_owner[by_reg[k]];
      ref_stamp[b] = stamp;
      ref_here[b] = by_reg[k];
      if (refs[by_reg[k]].exposed) {
        in_stamp[b] = stamp;
        work.push_back(b);
      }
    }
    while (!work.empty()) {
      const std::uint32_t b = work.back();
      work.pop_back();
      for (std::uint32_t k = pred_begin[b]; k < pred_begin[b + 1]; ++k) {
        const std::uint32_t q = preds[k];
        if (out_stamp[q] == stamp) continue;
        out_stamp[q] = stamp;
        out_weight[q] += width[r];
        // Live when q ends, so at least this much pressure at q's last instruction.
        if (out_weight[q] >= cap) return cap;
        if (ref_stamp[q] == stamp) {
          refs[ref_here[q]].live_out = true;
          if (refs[ref_here[q]].defines) continue;  // written in q: not live into it through q
        }
        if (in_stamp[q] != stamp) {
          in_stamp[q] = stamp;
          work.push_back(q);
        }
      }
    }
  }

  // 3. Pressure: the live set before each instruction, and after it with its results (a result
  // nobody reads still needs a register when it is written).
  std::vector<bool> live(regs, false);
  std::uint64_t best = 0;
  for (std::uint32_t b = 0; b < blocks; ++b) {
    for (std::uint32_t k = ref_begin[b]; k < ref_begin[b + 1]; ++k) live[refs[k].reg] = refs[k].live_out;
    std::uint64_t weight = out_weight[b];
    for (std::uint32_t i = starts[b + 1]; i-- > starts[b];) {
      const Operands& o = ops[i];
      for (std::uint32_t k = 0; k < o.ndefs; ++k)
        if (!live[o.defs[k]]) {
          live[o.defs[k]] = true;
          weight += width[o.defs[k]];
        }
      best = std::max(best, weight);
      for (std::uint32_t k = 0; k < o.ndefs; ++k)
        if (live[o.defs[k]]) {
          live[o.defs[k]] = false;
          weight -= width[o.defs[k]];
        }
      for (std::uint32_t k = 0; k < o.nuses; ++k)
        if (!live[o.uses[k]]) {
          live[o.uses[k]] = true;
          weight += width[o.uses[k]];
        }
      best = std::max(best, weight);
    }
    for (std::uint32_t k = ref_begin[b]; k < ref_begin[b + 1]; ++k) live[refs[k].reg] = false;
  }
  return std::uint32_t(std::min<std::uint64_t>(best, cap));
}

}  // namespace

std::string regsJsonPath() {
  const char* env = std::getenv("SCGPU_KERNELS_DIR");
  const std::string dir = (env != nullptr && *env != '\0') ? env : SCGPU_SOURCE_DIR "/kernels/ptx";
  return dir + "/regs.json";
}

std::optional<RecordedResources> recordedResources(const std::string& kernel) {
  const Table& t = table(regsJsonPath());
  auto it = t.find(kernel);
  if (it == t.end()) return std::nullopt;
  return it->second;
}

std::uint32_t registerPressure(const ptx::Program& p, std::uint32_t cap) {
  std::uint32_t best = 0;
  for (const auto& f : p.functions) best = std::max(best, functionPressure(p, f, cap));
  return best;
}

std::uint32_t estimateRegistersPerThread(const ptx::Program& p, std::uint32_t max_registers_per_thread) {
  // Pressure beyond the SM's limit changes nothing below, so it need not be computed exactly.
  std::uint32_t estimate = std::max<std::uint32_t>(8, registerPressure(p, max_registers_per_thread) + 3);
  // A call through the ABI (a .func, printf, assert) makes ptxas keep the call convention's
  // registers: every suite kernel that calls gets 24.
  const bool calls = std::any_of(p.code.begin(), p.code.end(), [](const DecodedInst& in) { return in.op == Op::Call; });
  if (calls) estimate = std::max<std::uint32_t>(estimate, 24);
  // ptxas loads a k step's matrix fragments (ldmatrix, wmma.load) while the previous step's mma
  // run, so one step's fragments are live twice: the largest run of fragment loads between two
  // mma adds its registers once more (hgemm_tensor: 43 -> 51 for ptxas's 62, 44 -> 52 for 54).
  std::uint32_t run = 0, largest = 0;
  for (const DecodedInst& in : p.code) {
    if (in.op == Op::Mma || (in.op == Op::Wmma && in.space == ptx::Space::None)) {
      run = 0;
    } else if (in.op == Op::Ldmatrix || (in.op == Op::Wmma && p.tensor_ops[in.target].kind == ptx::TensorOp::Kind::WmmaLoad)) {
      const Operands o = operands(p, in);
      for (std::uint32_t i = 0; i < o.ndefs; ++i) run += o.def_units[i];
      largest = std::max(largest, run);
    }
  }
  estimate += largest;
  return std::min(max_registers_per_thread, estimate);
}

std::uint32_t registersPerThread(const ptx::Program& p, std::uint32_t max_registers_per_thread) {
  std::uint32_t regs = 0;
  auto rec = recordedResources(p.kernel_name);
  if (rec && rec->shared_bytes == p.static_shared_bytes) regs = rec->registers;
  else regs = estimateRegistersPerThread(p, max_registers_per_thread);
  if (p.maxnreg != 0) regs = std::min(regs, p.maxnreg);
  return std::min(regs, max_registers_per_thread);
}

std::uint32_t registersPerThread(const ptx::Program& p, const std::string& arch) {
  (void)arch;  // regs.json holds sm_90 counts; see the header
  return registersPerThread(p, 255u);
}

}  // namespace scgpu::driver
