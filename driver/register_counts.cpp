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
  std::uint32_t defs[4];
  std::uint32_t def_units[4];
  std::uint32_t ndefs = 0;
  std::uint32_t uses[5];
  std::uint32_t nuses = 0;
};

Operands operands(const DecodedInst& in) {
  Operands o;
  const bool pred_type = in.type == Type::Pred;
  // Which operand positions hold predicate slots rather than register slots.
  bool dst_pred[4] = {false, false, false, false};
  bool src_pred[4] = {false, false, false, false};
  switch (in.op) {
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
  if ((in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red) && in.aux != kNoSlot)
    o.uses[o.nuses++] = in.aux;
  return o;
}

using Bits = std::vector<std::uint64_t>;

std::uint32_t functionPressure(const ptx::Program& p, const DecodedFunction& f) {
  if (f.end_pc <= f.entry_pc || f.num_regs == 0) return 0;
  const std::uint32_t n = f.end_pc - f.entry_pc;
  const std::size_t words = (f.num_regs + 63) / 64;

  // Slots that are not registers: constants, special registers, local addresses.
  std::vector<bool> real(f.num_regs, true);
  for (const auto& init : f.inits)
    if (init.kind != ptx::SlotInit::Kind::PredicateTrue && init.slot < f.num_regs) real[init.slot] = false;

  std::vector<Operands> ops(n);
  std::vector<std::uint32_t> width(f.num_regs, 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    Operands o = operands(p.code[f.entry_pc + i]);
    // Keep register slots only.
    std::uint32_t nd = 0, nu = 0;
    for (std::uint32_t k = 0; k < o.ndefs; ++k)
      if (o.defs[k] < f.num_regs && real[o.defs[k]]) {
        width[o.defs[k]] = std::max(width[o.defs[k]], o.def_units[k]);
        o.defs[nd] = o.defs[k];
        o.def_units[nd++] = o.def_units[k];
      }
    for (std::uint32_t k = 0; k < o.nuses; ++k)
      if (o.uses[k] < f.num_regs && real[o.uses[k]]) o.uses[nu++] = o.uses[k];
    o.ndefs = nd;
    o.nuses = nu;
    ops[i] = o;
  }

  // Successors within the function.
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

  // Backward liveness to a fixed point: live_in(i) = uses(i) | (live_out(i) - defs(i)).
  std::vector<Bits> live_in(n, Bits(words, 0));
  Bits out(words);
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::uint32_t i = n; i-- > 0;) {
      std::fill(out.begin(), out.end(), 0);
      for (std::uint32_t s : succ[i])
        for (std::size_t w = 0; w < words; ++w) out[w] |= live_in[s][w];
      for (std::uint32_t k = 0; k < ops[i].ndefs; ++k) out[ops[i].defs[k] / 64] &= ~(1ull << (ops[i].defs[k] % 64));
      for (std::uint32_t k = 0; k < ops[i].nuses; ++k) out[ops[i].uses[k] / 64] |= 1ull << (ops[i].uses[k] % 64);
      if (out != live_in[i]) {
        live_in[i].swap(out);
        changed = true;
      }
    }
  }

  // Pressure: the live set before each instruction, and after it with its results (a result
  // nobody reads still needs a register when it is written).
  auto weight = [&](const Bits& b) {
    std::uint32_t sum = 0;
    for (std::size_t w = 0; w < words; ++w)
      for (std::uint64_t x = b[w]; x; x &= x - 1) sum += width[w * 64 + std::size_t(__builtin_ctzll(x))];
    return sum;
  };
  std::uint32_t best = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    best = std::max(best, weight(live_in[i]));
    std::fill(out.begin(), out.end(), 0);
    for (std::uint32_t s : succ[i])
      for (std::size_t w = 0; w < words; ++w) out[w] |= live_in[s][w];
    for (std::uint32_t k = 0; k < ops[i].ndefs; ++k) out[ops[i].defs[k] / 64] |= 1ull << (ops[i].defs[k] % 64);
    best = std::max(best, weight(out));
  }
  return best;
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

std::uint32_t registerPressure(const ptx::Program& p) {
  std::uint32_t best = 0;
  for (const auto& f : p.functions) best = std::max(best, functionPressure(p, f));
  return best;
}

std::uint32_t estimateRegistersPerThread(const ptx::Program& p, std::uint32_t max_registers_per_thread) {
  std::uint32_t estimate = std::max<std::uint32_t>(8, registerPressure(p) + 3);
  // A call through the ABI (a .func, printf, assert) makes ptxas keep the call convention's
  // registers: every suite kernel that calls gets 24.
  const bool calls = std::any_of(p.code.begin(), p.code.end(), [](const DecodedInst& in) { return in.op == Op::Call; });
  if (calls) estimate = std::max<std::uint32_t>(estimate, 24);
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
