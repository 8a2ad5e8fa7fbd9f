#include "ptx/decoder.h"
#include "ptx/wgmma_decode.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ptx/texture_decode.h"

namespace scgpu::ptx {
namespace {

// Function addresses for indirect calls; mirrors sm/address_space.h (ptx may not include sm).
constexpr std::uint64_t kFunctionAddressBase = 0x0003'0000'0000'0000ull;
// WARP_SZ, the PTX predefined identifier: threads per warp on every architecture PTX targets.
constexpr std::uint64_t kPtxWarpSize = 32;

// Sizes and offsets are 64-bit and checked: a user's array dimensions must not wrap to a small
// size. Every size the decoder keeps is bounded by a device ceiling (ptx/limits.h) far below 2^63,
// so aligning one never overflows.
std::uint64_t alignUp(std::uint64_t v, std::uint64_t a) { return a ? (v + a - 1) / a * a : v; }

// Bytes of a declaration; false when the product of its dimensions overflows 64 bits.
bool declBytes(const VarDecl& d, std::uint64_t& bytes) {
  std::uint64_t n = std::uint64_t(sizeOf(d.type)) * d.vector;
  for (auto dim : d.array_dims)
    if (__builtin_mul_overflow(n, dim, &n)) return false;
  bytes = n;
  return true;
}
// The size of a declaration, or a ParseError at it when its dimensions overflow 64 bits.
std::uint64_t declBytesOrFail(const VarDecl& d, const std::string& file) {
  std::uint64_t bytes = 0;
  if (!declBytes(d, bytes))
    throw ParseError(file, d.loc.line, d.loc.col,
                     fmt::format("the size of '{}' overflows 64 bits (its dimensions multiply to more than 2^64 bytes)",
                                 d.name));
  return bytes;
}

// a + b, saturating instead of wrapping (for messages about sizes that are too large anyway).
std::uint64_t satAdd(std::uint64_t a, std::uint64_t b) { return a + b < a ? ~std::uint64_t{0} : a + b; }

std::uint32_t declAlign(const VarDecl& d) {
  return d.align ? d.align : std::max<std::uint32_t>(1, sizeOf(d.type) * d.vector);
}

// What the modifiers of an instruction say, classified once.
struct Mods {
  std::vector<Type> types;
  Round round = Round::None;
  Cmp cmp = Cmp::None;
  StateSpace space = StateSpace::None;
  std::uint32_t vec = 1;
  std::uint32_t flags = 0;
  std::vector<std::string> words;  // everything else, in order
  bool cluster = false;            // .shared::cluster
  bool has(const char* w) const { return std::find(words.begin(), words.end(), w) != words.end(); }
};

const std::map<std::string, Round>& roundNames() {
  static const std::map<std::string, Round> m = {
      {"rn", Round::Rn},   {"rz", Round::Rz},   {"rm", Round::Rm},   {"rp", Round::Rp},  {"rni", Round::Rni},
      {"rzi", Round::Rzi}, {"rmi", Round::Rmi}, {"rpi", Round::Rpi}, {"rna", Round::Rna}};
  return m;
}
const std::map<std::string, Cmp>& cmpNames() {
  static const std::map<std::string, Cmp> m = {
      {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},
      {"ge", Cmp::Ge},   {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},   {"hs", Cmp::Hs},
      {"equ", Cmp::Equ}, {"neu", Cmp::Neu}, {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
      {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
  return m;
}

Mods classify(const std::string& opcode, const std::vector<std::string>& modifiers) {
  Mods m;
  // `hi`/`lo` are comparisons for setp/set but halves for mul/mad.
  const bool compares = opcode == "setp" || opcode == "set";
  for (const auto& w : modifiers) {
    Type t = typeFromName(w);
    if (t != Type::None) { m.types.push_back(t); continue; }
    if (auto it = roundNames().find(w); it != roundNames().end()) { m.round = it->second; continue; }
    if (compares && m.cmp == Cmp::None) {
      if (auto it = cmpNames().find(w); it != cmpNames().end()) { m.cmp = it->second; continue; }
    }
    // .shared::cluster: a shared address of any block of the cluster (sm/address_space.h); the
    // block's own shared::cta addresses are valid ones, so it decodes as .shared.
    if (w == "shared::cluster") { m.space = StateSpace::Shared; m.cluster = true; continue; }
    StateSpace s = spaceFromName(w);
    if (s != StateSpace::None && s != StateSpace::Reg && s != StateSpace::Sreg) { m.space = s; continue; }
    if (w == "v2") { m.vec = 2; continue; }
    if (w == "v4") { m.vec = 4; continue; }
    if (w == "v8") { m.vec = 8; continue; }
    if (w == "ftz") { m.flags |= kFtz; continue; }
    if (w == "sat" || w == "satfinite") { m.flags |= kSat; continue; }
    if (w == "approx") { m.flags |= kApprox; continue; }
    if (w == "full") { m.flags |= kFull; continue; }
    if (w == "hi") { m.flags |= kHi; continue; }
    if (w == "lo") { m.flags |= kLo; continue; }
    if (w == "wide") { m.flags |= kWide; continue; }
    if (w == "cc") { m.flags |= kCcOut; continue; }
    if (w == "uni") { m.flags |= kUni; continue; }
    if (w == "nc") { m.flags |= kNc; continue; }
    if (w == "volatile") { m.flags |= kVolatile; continue; }
    if (w == "cg" || w == "cv") { m.flags |= kL1Bypass; continue; }
    if (w == "relu") { m.flags |= kRelu; continue; }
    if (w == "NaN") { m.flags |= kNaN; continue; }
    if (w == "clamp") { m.flags |= kClamp; continue; }
    if (w == "aligned") { m.flags |= kAligned; continue; }
    m.words.push_back(w);
  }
  return m;
}

// Modifiers that change nothing in a functional model: memory-ordering semantics and scopes,
// cache operators and eviction hints, `.sync` on warp-wide ops (under SIMT the warp is converged).
bool isIgnorable(const std::string& w) {
  static const std::set<std::string> s = {
      "relaxed", "acquire", "release", "acq_rel", "sc", "weak", "mmio", "cta", "gpu", "sys", "cluster",
      "ca", "cg", "cs", "lu", "cv", "wb", "wt", "sync", "to", "shiftamt", "wrap", "l", "r", "unified",
      "level", "mem", "proxy", "async", "alias"};
  return s.count(w) || w.rfind("L1::", 0) == 0 || w.rfind("L2::", 0) == 0;
}

struct RegDecl {
  Type type;
  std::uint64_t range;  // 0 = single register
};

class FunctionDecoder;

// What every kernel of a module looks up by name, built once per module: decoding many kernels
// must not scan the module's functions, variables or files once per kernel (or per reference).
struct ModuleIndex {
  explicit ModuleIndex(const Module& m) {
    for (const auto& f : m.functions) {
      // A later definition replaces an earlier declaration of the same name.
      auto it = functions.find(f.name);
      if (it == functions.end() || (!it->second->has_body && f.has_body)) functions[f.name] = &f;
    }
    for (const auto& g : m.globals) {
      if (g.space == StateSpace::Shared) shared[g.name] = &g;  // the last declaration, as before
      if (g.space == StateSpace::Const) const_names.insert(g.name);
    }
    auto by_index = std::make_shared<std::map<std::uint32_t, std::string>>();
    // By index, in a map: an index is a number the text chose, not a count of files.
    for (const auto& [idx, name] : m.files) (*by_index)[idx] = name;
    files = std::move(by_index);
  }
  std::unordered_map<std::string, const Function*> functions;
  std::unordered_map<std::string, const VarDecl*> shared;  // module-scope .shared variables
  std::unordered_set<std::string> const_names;              // module-scope .const variables
  std::shared_ptr<const std::map<std::uint32_t, std::string>> files;
};

class KernelLinker {
 public:
  KernelLinker(const Module& m, const DecodeEnv& env, const ModuleIndex& index) : m_(m), env_(env), index_(index) {}
  Program link(const std::string& kernel_name);

  const Module& module() const { return m_; }
  const DecodeEnv& env() const { return env_; }
  Program& program() { return prog_; }

  // Index of a function in the program, decoding it on first use.
  std::uint32_t functionIndex(const std::string& name, const SourceLoc& loc);
  bool isFunction(const std::string& name) const { return index_.functions.count(name) != 0; }
  bool isConst(const std::string& name) const { return index_.const_names.count(name) != 0; }
  // Offset of a module-scope (or function-scope) .shared variable in the block's shared memory.
  bool sharedOffset(const std::string& name, std::uint64_t& offset);
  bool isExternShared(const std::string& name) const { return extern_shared_.count(name) != 0; }
  bool globalAddress(const std::string& name, std::uint64_t& addr) const {
    return env_.symbol_address && env_.symbol_address(name, addr);
  }
  [[noreturn]] void fail(const SourceLoc& loc, const std::string& msg) const {
    throw ParseError(m_.source_name, loc.line, loc.col, msg);
  }
  std::uint32_t addSharedVar(const VarDecl& d);
  const Program::Param* kernelParam(const std::string& name) const {
    auto it = param_by_name_.find(name);
    return it == param_by_name_.end() ? nullptr : &prog_.params[it->second];
  }

 private:
  const Module& m_;
  const DecodeEnv& env_;
  const ModuleIndex& index_;
  Program prog_;
  std::map<std::string, std::uint32_t> func_index_;
  std::vector<const Function*> pending_;
  std::unordered_map<std::string, std::size_t> param_by_name_;
  std::map<std::string, std::uint64_t> shared_offsets_;
  std::set<std::string> extern_shared_;
  std::uint64_t shared_end_ = 0;  // at most env_.max_shared_bytes
  std::uint32_t extern_align_ = 16;
};

// Decodes one function body into the program's code array.
class FunctionDecoder {
 public:
  FunctionDecoder(KernelLinker& linker, const Function& f, std::uint32_t index)
      : L_(linker), f_(f), index_(index) {}
  void decode();

 private:
  struct Scope {
    std::map<std::string, RegDecl> regs;          // by name (single) or prefix (range)
    std::map<std::string, std::uint32_t> locals;  // .local/.param declared here -> frame offset
    std::map<std::string, std::uint32_t> local_sizes;
  };

  DecodedFunction& fn() { return L_.program().functions[index_]; }
  [[noreturn]] void fail(const SourceLoc& loc, const std::string& msg) { L_.fail(loc, msg); }
  // An error in the text of a matrix, cp.async or mbarrier instruction: the module does not load
  // (fail() there would only refuse the kernel, as for forms the core does not implement).
  [[noreturn]] void failMalformed(const SourceLoc& loc, const std::string& msg) {
    ParseError e(L_.module().source_name, loc.line, loc.col, msg);
    e.markMalformed();
    throw e;
  }

  void declare(const VarDecl& d, const SourceLoc& loc);
  bool lookupReg(const std::string& name, RegDecl& out) const;
  bool lookupLocal(const std::string& name, std::uint32_t& offset, std::uint32_t* size = nullptr) const;
  std::uint32_t regSlot(const Operand& op);
  std::uint32_t predSlot(const Operand& op);
  // A predicate source: a predicate register, or 0/1 as a constant predicate slot.
  std::uint32_t predSource(const Operand& op);
  std::uint32_t constSlot(std::uint64_t bits);
  std::uint32_t localAddressSlot(std::uint32_t offset);
  // The slot a special register is read into once per frame; `index` tells %envreg0..31 apart.
  std::uint32_t specialSlot(SpecialReg r, std::uint32_t index = 0);
  std::uint32_t carrySlot();
  // A source operand as a slot: register, immediate (converted to `type`), symbol address.
  std::uint32_t source(const Operand& op, Type type);
  // Address operand of ld/st/atom: sets inst.aux (base slot) and inst.imm (offset), returns the
  // space the symbol lives in (or the explicit one).
  Space address(const Operand& op, StateSpace explicit_space, DecodedInst& inst, bool is_param_op);
  std::uint32_t symbolAddressSlot(const std::string& name, const SourceLoc& loc, Space* space);
  void decodeInstruction(const Instruction& in, DecodedInst& out);
  // Records valid PTX the core does not implement (Program::unsupported) and puts a trap in its place.
  void recordUnsupported(const SourceLoc& loc, const std::string& text, const std::string& why, DecodedInst& out);
  void decodeCall(const Instruction& in, DecodedInst& out);
  // mma.sync, wmma.*, ldmatrix, stmatrix, movmatrix (Program::tensor_ops); false for other opcodes.
  bool decodeTensor(const Instruction& in, DecodedInst& out);
  // cp.async.bulk{.tensor}, cp.reduce.async.bulk{.tensor}, their prefetches and bulk groups
  // (Program::bulk_ops); false for other opcodes.
  bool decodeBulk(const Instruction& in, DecodedInst& out);
  void computeReconvergence(std::uint32_t begin, std::uint32_t end);

  KernelLinker& L_;
  const Function& f_;
  std::uint32_t index_;
  std::vector<Scope> scopes_;
  std::map<std::string, std::uint32_t> reg_slots_, pred_slots_;
  std::map<std::uint64_t, std::uint32_t> const_slots_;
  std::map<std::uint32_t, std::uint32_t> local_addr_slots_;
  std::map<std::pair<SpecialReg, std::uint32_t>, std::uint32_t> special_slots_;
  std::uint32_t carry_slot_ = kNoSlot;
  std::map<std::string, std::uint32_t> labels_;  // -> absolute pc
  std::map<std::string, std::vector<std::string>> branch_tables_;
  std::uint64_t local_top_ = 0;  // at most kMaxLocalBytesPerThread
  std::vector<std::pair<std::uint32_t, const Instruction*>> fixups_;  // pc, instruction
};

// ---------------------------------------------------------------------------------------------
// Special registers

bool specialRegister(const std::string& name, SpecialReg& r, std::uint32_t* index = nullptr) {
  static const std::map<std::string, SpecialReg> m = {
      {"%tid.x", SpecialReg::TidX},         {"%tid.y", SpecialReg::TidY},
      {"%tid.z", SpecialReg::TidZ},         {"%ntid.x", SpecialReg::NtidX},
      {"%ntid.y", SpecialReg::NtidY},       {"%ntid.z", SpecialReg::NtidZ},
      {"%ctaid.x", SpecialReg::CtaidX},     {"%ctaid.y", SpecialReg::CtaidY},
      {"%ctaid.z", SpecialReg::CtaidZ},     {"%nctaid.x", SpecialReg::NctaidX},
      {"%nctaid.y", SpecialReg::NctaidY},   {"%nctaid.z", SpecialReg::NctaidZ},
      {"%laneid", SpecialReg::LaneId},      {"%warpid", SpecialReg::WarpId},
      {"%nwarpid", SpecialReg::NWarpId},    {"%smid", SpecialReg::SmId},
      {"%nsmid", SpecialReg::NSmId},        {"%gridid", SpecialReg::GridId},
      {"%lanemask_eq", SpecialReg::LanemaskEq}, {"%lanemask_le", SpecialReg::LanemaskLe},
      {"%lanemask_lt", SpecialReg::LanemaskLt}, {"%lanemask_ge", SpecialReg::LanemaskGe},
      {"%lanemask_gt", SpecialReg::LanemaskGt}, {"%dynamic_smem_size", SpecialReg::DynamicSmemSize},
      {"%total_smem_size", SpecialReg::TotalSmemSize},
      {"%cluster_ctarank", SpecialReg::ClusterCtarank}, {"%cluster_nctarank", SpecialReg::ClusterNctarank},
      {"%cluster_ctaid.x", SpecialReg::ClusterCtaidX}, {"%cluster_ctaid.y", SpecialReg::ClusterCtaidY},
      {"%cluster_ctaid.z", SpecialReg::ClusterCtaidZ}, {"%cluster_nctaid.x", SpecialReg::ClusterNctaidX},
      {"%cluster_nctaid.y", SpecialReg::ClusterNctaidY}, {"%cluster_nctaid.z", SpecialReg::ClusterNctaidZ},
      {"%clusterid.x", SpecialReg::ClusteridX}, {"%clusterid.y", SpecialReg::ClusteridY},
      {"%clusterid.z", SpecialReg::ClusteridZ}, {"%nclusterid.x", SpecialReg::NclusteridX},
      {"%nclusterid.y", SpecialReg::NclusteridY}, {"%nclusterid.z", SpecialReg::NclusteridZ},
      {"%clock", SpecialReg::Clock},        {"%clock64", SpecialReg::Clock64},
      {"%globaltimer", SpecialReg::GlobalTimer}, {"%globaltimer_lo", SpecialReg::GlobalTimerLo},
  };
  auto it = m.find(name);
  if (it == m.end()) {
    // %envreg0 .. %envreg31
    if (name.rfind("%envreg", 0) == 0 && name.size() > 7 && name.size() <= 9 &&
        std::all_of(name.begin() + 7, name.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        std::stoi(name.substr(7)) < 32) {
      r = SpecialReg::EnvReg;
      if (index) *index = std::uint32_t(std::stoi(name.substr(7)));
      return true;
    }
    return false;
  }
  r = it->second;
  return true;
}
bool isDynamic(SpecialReg r) { return r >= SpecialReg::Clock; }

// A register operand by name (for the decoder's own hidden registers).
Operand named(const std::string& name, SourceLoc loc = {}) {
  Operand op;
  op.kind = Operand::Kind::Register;
  op.name = name;
  op.loc = loc;
  return op;
}

// ---------------------------------------------------------------------------------------------
// Immediates: an operand written as an integer or float literal, converted to the bits of `type`.

std::uint64_t immediateBits(const Operand& op, Type type) {
  if (op.kind == Operand::Kind::IntImmediate) {
    std::int64_t v = op.int_value;
    switch (type) {
      case Type::F32: { float f = float(v); std::uint32_t b; std::memcpy(&b, &f, 4); return b; }
      case Type::F64: { double d = double(v); std::uint64_t b; std::memcpy(&b, &d, 8); return b; }
      default: {
        std::uint32_t bytes = sizeOf(type);
        if (bytes >= 8 || bytes == 0) return std::uint64_t(v);
        return std::uint64_t(v) & ((1ull << (bytes * 8)) - 1);
      }
    }
  }
  // Float literal: 0f is single bits, 0d double bits, decimals are doubles.
  double d = op.float_value;
  if (op.float_is_single) {
    if (type == Type::F64) {
      float f; std::uint32_t b = std::uint32_t(op.float_bits); std::memcpy(&f, &b, 4);
      double dd = f; std::uint64_t out; std::memcpy(&out, &dd, 8); return out;
    }
    return op.float_bits & 0xFFFFFFFFull;
  }
  if (type == Type::F32 || type == Type::B32 || type == Type::U32 || type == Type::S32) {
    if (op.float_bits >> 32 || op.kind == Operand::Kind::FloatImmediate) {
      float f = float(d); std::uint32_t b; std::memcpy(&b, &f, 4); return b;
    }
  }
  return op.float_bits;
}

}  // namespace

// =============================================================================================
// Linker

Program KernelLinker::link(const std::string& kernel_name) {
  auto it = index_.functions.find(kernel_name);
  if (it == index_.functions.end() || !it->second->is_entry)
    throw ParseError(m_.source_name, 0, 0, fmt::format("no kernel (.entry) named '{}' in the module", kernel_name));
  const Function& kernel = *it->second;
  prog_.kernel_name = kernel_name;
  prog_.module_name = m_.source_name;
  prog_.files = index_.files;
  for (int i = 0; i < 3; ++i) {
    prog_.reqntid[i] = kernel.reqntid[i];
    prog_.maxntid[i] = kernel.maxntid[i];
    prog_.reqnctapercluster[i] = kernel.reqnctapercluster[i];
  }
  prog_.maxclusterrank = kernel.maxclusterrank;
  prog_.maxnreg = kernel.maxnreg;
  prog_.minnctapersm = kernel.minnctapersm;

  // Kernel parameters: laid out in order with their alignment, as the CUDA ABI does.
  std::uint64_t off = 0;
  for (const auto& p : kernel.params) {
    const std::uint64_t size = declBytesOrFail(p, m_.source_name);
    const std::uint32_t align = declAlign(p);
    off = alignUp(off, align);
    const std::uint64_t end = satAdd(off, size);
    if (end > kMaxKernelParamBytes)
      fail(p.loc, fmt::format("the parameters of kernel '{}' take {} bytes up to and including '{}' ({} bytes), more "
                              "than the {} bytes a kernel's parameters may take",
                              kernel_name, end, p.name, size, kMaxKernelParamBytes));
    param_by_name_.emplace(p.name, prog_.params.size());  // the first of a name, as a scan found it
    prog_.params.push_back({p.name, std::uint32_t(off), std::uint32_t(size), align});
    off = end;
  }
  prog_.param_buffer_bytes = std::uint32_t(off);

  functionIndex(kernel_name, kernel.loc);
  // Callees are decoded after the function that calls them, each once.
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    FunctionDecoder d(*this, *pending_[i], std::uint32_t(i));
    d.decode();
  }
  prog_.static_shared_bytes = std::uint32_t(shared_end_);
  prog_.dynamic_shared_align = extern_align_;
  return std::move(prog_);
}

std::uint32_t KernelLinker::functionIndex(const std::string& name, const SourceLoc& loc) {
  if (auto it = func_index_.find(name); it != func_index_.end()) return it->second;
  auto fit = index_.functions.find(name);
  if (fit == index_.functions.end()) fail(loc, fmt::format("call to undeclared function '{}'", name));
  const Function& f = *fit->second;
  DecodedFunction df;
  df.name = name;
  df.is_entry = f.is_entry;
  if (!f.has_body) {
    if (name == "vprintf") df.builtin = DecodedFunction::Builtin::Vprintf;
    else if (name == "__assertfail") df.builtin = DecodedFunction::Builtin::AssertFail;
    else if (name == "malloc") df.builtin = DecodedFunction::Builtin::Malloc;
    else if (name == "free") df.builtin = DecodedFunction::Builtin::Free;
    else fail(loc, fmt::format("call to function '{}', which is declared but never defined (only vprintf, "
                               "__assertfail, malloc and free are provided by the model)", name));
  }
  std::uint32_t idx = std::uint32_t(prog_.functions.size());
  prog_.functions.push_back(std::move(df));
  func_index_[name] = idx;
  pending_.push_back(&f);
  return idx;
}

std::uint32_t KernelLinker::addSharedVar(const VarDecl& d) {
  const std::uint64_t max = env_.max_shared_bytes;
  if (d.is_extern || (!d.array_dims.empty() && d.array_dims.back() == 0)) {
    // Dynamic shared memory starts after the static variables, aligned to this.
    if (declAlign(d) > max)
      fail(d.loc, fmt::format(".align {} of extern .shared variable '{}' is more than the device's {} bytes of shared "
                              "memory per block",
                              declAlign(d), d.name, max));
    extern_shared_.insert(d.name);
    extern_align_ = std::max(extern_align_, declAlign(d));
    shared_offsets_[d.name] = ~0ull;
    return 0;
  }
  const std::uint64_t off = alignUp(shared_end_, declAlign(d));
  const std::uint64_t size = declBytesOrFail(d, m_.source_name);
  const std::uint64_t end = satAdd(off, size);
  if (end > max)
    fail(d.loc, fmt::format("static shared memory takes {} bytes up to and including .shared variable '{}' ({} bytes), "
                            "more than the device's {} bytes of shared memory per block",
                            end, d.name, size, max));
  shared_offsets_[d.name] = off;
  shared_end_ = end;
  return std::uint32_t(off);
}

bool KernelLinker::sharedOffset(const std::string& name, std::uint64_t& offset) {
  auto it = shared_offsets_.find(name);
  if (it == shared_offsets_.end()) {
    auto decl = index_.shared.find(name);
    if (decl == index_.shared.end()) return false;
    addSharedVar(*decl->second);
    it = shared_offsets_.find(name);
  }
  offset = it->second;
  return true;
}

// =============================================================================================
// Function decoder

void FunctionDecoder::declare(const VarDecl& d, const SourceLoc& loc) {
  Scope& s = scopes_.back();
  switch (d.space) {
    case StateSpace::Reg:
      s.regs[d.name] = RegDecl{d.type, d.reg_range};
      break;
    case StateSpace::Local:
    case StateSpace::Param: {
      const std::uint64_t off = alignUp(local_top_, declAlign(d));
      const std::uint64_t size = declBytesOrFail(d, L_.module().source_name);
      const std::uint64_t end = satAdd(off, size);
      // The frame is per thread and allocated for every thread of a block: bound it by what a
      // device thread may have.
      if (end > kMaxLocalBytesPerThread)
        fail(loc, fmt::format("the frame of '{}' takes {} bytes per thread up to and including .{} variable '{}' ({} "
                              "bytes), more than the {} bytes of local memory a thread may have",
                              f_.name, end, toString(d.space), d.name, size, kMaxLocalBytesPerThread));
      s.locals[d.name] = std::uint32_t(off);
      s.local_sizes[d.name] = std::uint32_t(size);
      local_top_ = end;
      break;
    }
    case StateSpace::Shared:
      L_.addSharedVar(d);
      break;
    default:
      fail(loc, fmt::format("a {} variable cannot be declared inside a function", toString(d.space)));
  }
}

bool FunctionDecoder::lookupReg(const std::string& name, RegDecl& out) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (auto it = s->regs.find(name); it != s->regs.end() && it->second.range == 0) {
      out = it->second;
      return true;
    }
    // %r12 against a `%r<N>` range: split the trailing digits.
    std::size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
    if (digits < name.size() && digits > 0) {
      auto it = s->regs.find(name.substr(0, digits));
      if (it != s->regs.end() && it->second.range > 0) {
        // Leading zeros (%r01) are a different name, as in ptxas.
        if (name.size() - digits > 1 && name[digits] == '0') continue;
        // An index too large for 64 bits is outside every range (the caller reports the name).
        std::uint64_t idx = 0;
        bool fits = true;
        for (std::size_t i = digits; i < name.size() && fits; ++i) {
          const auto digit = static_cast<std::uint64_t>(name[i] - '0');
          fits = idx <= (~std::uint64_t{0} - digit) / 10;
          idx = idx * 10 + digit;
        }
        if (fits && idx < it->second.range) {
          out = it->second;
          return true;
        }
      }
    }
  }
  return false;
}

bool FunctionDecoder::lookupLocal(const std::string& name, std::uint32_t& offset, std::uint32_t* size) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (auto it = s->locals.find(name); it != s->locals.end()) {
      offset = it->second;
      if (size) *size = s->local_sizes.at(name);
      return true;
    }
  }
  return false;
}

std::uint32_t FunctionDecoder::regSlot(const Operand& op) {
  if (op.kind == Operand::Kind::Sink) {
    // Writes to `_` go to a scratch slot nobody reads.
    return regSlot(named("%%sink"));
  }
  if (op.kind != Operand::Kind::Register) fail(op.loc, fmt::format("expected a register, found '{}'", op.name));
  if (op.name != "%%sink" && op.name != "%%cc") {
    RegDecl d;
    if (!lookupReg(op.name, d)) {
      SpecialReg r;
      if (specialRegister(op.name, r)) fail(op.loc, fmt::format("special register '{}' cannot be written", op.name));
      fail(op.loc, fmt::format("undeclared register '{}'", op.name));
    }
    if (d.type == Type::Pred) fail(op.loc, fmt::format("'{}' is a predicate; expected a data register", op.name));
  }
  auto [it, inserted] = reg_slots_.try_emplace(op.name, fn().num_regs);
  if (inserted) fn().num_regs++;
  return it->second;
}

std::uint32_t FunctionDecoder::predSlot(const Operand& op) {
  if (op.kind == Operand::Kind::Sink) return predSlot(named("%%psink"));
  if (op.kind != Operand::Kind::Register) fail(op.loc, "expected a predicate register");
  if (op.name != "%%psink") {
    RegDecl d;
    if (!lookupReg(op.name, d)) fail(op.loc, fmt::format("undeclared predicate '{}'", op.name));
    if (d.type != Type::Pred) fail(op.loc, fmt::format("'{}' is not a predicate register", op.name));
  }
  auto [it, inserted] = pred_slots_.try_emplace(op.name, fn().num_preds);
  if (inserted) fn().num_preds++;
  return it->second;
}

std::uint32_t FunctionDecoder::predSource(const Operand& op) {
  if (op.kind != Operand::Kind::IntImmediate) return predSlot(op);
  // Frames start with every predicate false; a true constant gets an initialised slot.
  const bool value = op.int_value != 0;
  auto [it, inserted] = pred_slots_.try_emplace(value ? "%%ptrue" : "%%pfalse", fn().num_preds);
  if (inserted) {
    if (value) fn().inits.push_back({SlotInit::Kind::PredicateTrue, fn().num_preds, 0});
    fn().num_preds++;
  }
  return it->second;
}

std::uint32_t FunctionDecoder::constSlot(std::uint64_t bits) {
  auto [it, inserted] = const_slots_.try_emplace(bits, fn().num_regs);
  if (inserted) {
    fn().inits.push_back({SlotInit::Kind::Constant, fn().num_regs, bits});
    fn().num_regs++;
  }
  return it->second;
}

std::uint32_t FunctionDecoder::localAddressSlot(std::uint32_t offset) {
  auto [it, inserted] = local_addr_slots_.try_emplace(offset, fn().num_regs);
  if (inserted) {
    fn().inits.push_back({SlotInit::Kind::LocalAddress, fn().num_regs, offset});
    fn().num_regs++;
  }
  return it->second;
}

std::uint32_t FunctionDecoder::specialSlot(SpecialReg r, std::uint32_t index) {
  auto [it, inserted] = special_slots_.try_emplace({r, index}, fn().num_regs);
  if (inserted) {
    fn().inits.push_back({SlotInit::Kind::Special, fn().num_regs, specialInitValue(r, index)});
    fn().num_regs++;
  }
  return it->second;
}

std::uint32_t FunctionDecoder::carrySlot() {
  if (carry_slot_ == kNoSlot) carry_slot_ = regSlot(named("%%cc"));
  return carry_slot_;
}

std::uint32_t FunctionDecoder::symbolAddressSlot(const std::string& name, const SourceLoc& loc, Space* space) {
  std::uint32_t off;
  if (lookupLocal(name, off)) {
    if (space) *space = Space::Local;
    return localAddressSlot(off);
  }
  if (f_.is_entry) {
    if (const Program::Param* p = L_.kernelParam(name)) {
      if (space) *space = Space::KernelParam;
      return constSlot(p->offset);
    }
  }
  std::uint64_t addr;
  if (L_.sharedOffset(name, addr)) {
    if (space) *space = Space::Shared;
    if (addr == ~0ull) {
      // Extern (dynamic) shared memory starts after the static variables; resolved at the end.
      return specialSlot(SpecialReg::ExternSharedBase);
    }
    return constSlot(addr);
  }
  if (L_.globalAddress(name, addr)) {
    if (space) {
      *space = L_.isConst(name) ? Space::Const : Space::Global;
    }
    return constSlot(addr);
  }
  if (L_.isFunction(name)) {
    if (space) *space = Space::None;
    return constSlot(kFunctionAddressBase + L_.functionIndex(name, loc));
  }
  // PTX's predefined identifier for the threads in a warp (PTX ISA, "Predefined identifiers");
  // nvcc emits it for warpSize.
  if (name == "WARP_SZ") {
    if (space) *space = Space::None;
    return constSlot(kPtxWarpSize);
  }
  fail(loc, fmt::format("undefined symbol '{}'", name));
}

std::uint32_t FunctionDecoder::source(const Operand& op, Type type) {
  switch (op.kind) {
    case Operand::Kind::Register: {
      SpecialReg r;
      std::uint32_t index = 0;
      if (specialRegister(op.name, r, &index)) {
        if (isDynamic(r)) fail(op.loc, fmt::format("'{}' can only be read by mov", op.name));
        return specialSlot(r, index);
      }
      return regSlot(op);
    }
    case Operand::Kind::IntImmediate:
    case Operand::Kind::FloatImmediate:
      return constSlot(immediateBits(op, type));
    case Operand::Kind::Symbol: {
      std::uint32_t base = symbolAddressSlot(op.name, op.loc, nullptr);
      if (op.int_value == 0) return base;
      fail(op.loc, "a symbol with an offset is only allowed in an address");
    }
    default:
      fail(op.loc, "expected a register, immediate or symbol operand");
  }
}

Space FunctionDecoder::address(const Operand& op, StateSpace explicit_space, DecodedInst& inst, bool is_param_op) {
  if (op.kind != Operand::Kind::Address) fail(op.loc, "expected an address operand [reg+offset] or [symbol]");
  inst.imm = op.int_value;
  Space sym_space = Space::None;
  if (op.name.empty()) {
    inst.aux = kNoSlot;
  } else if (RegDecl d; lookupReg(op.name, d) || (op.name[0] == '%' && !L_.isFunction(op.name))) {
    inst.aux = source(named(op.name, op.loc), Type::U64);
  } else {
    inst.aux = symbolAddressSlot(op.name, op.loc, &sym_space);
  }
  switch (explicit_space) {
    case StateSpace::Global: return Space::Global;
    case StateSpace::Shared: return Space::Shared;
    case StateSpace::Local: return Space::Local;
    case StateSpace::Const: return Space::Const;
    case StateSpace::Param:
      if (sym_space == Space::KernelParam || sym_space == Space::Local) return sym_space;
      // A register holding a parameter address: kernel parameters in a kernel, frame otherwise.
      return f_.is_entry && !is_param_op ? Space::KernelParam : (f_.is_entry ? Space::KernelParam : Space::Local);
    case StateSpace::None:
    case StateSpace::Generic:
      return Space::Generic;
    default:
      fail(op.loc, fmt::format("state space .{} is not supported here", toString(explicit_space)));
  }
}


// ---------------------------------------------------------------------------------------------
// Matrix (tensor-core) instructions

MatElem matElemFromName(const std::string& w) {
  static const std::map<std::string, MatElem> m = {
      {"f16", MatElem::F16}, {"bf16", MatElem::BF16}, {"tf32", MatElem::TF32}, {"f32", MatElem::F32},
      {"f64", MatElem::F64}, {"e4m3", MatElem::E4M3}, {"e5m2", MatElem::E5M2}, {"s8", MatElem::S8},
      {"u8", MatElem::U8},   {"s4", MatElem::S4},     {"u4", MatElem::U4},     {"b1", MatElem::B1},
      {"s32", MatElem::S32}};
  auto it = m.find(w);
  return it == m.end() ? MatElem::None : it->second;
}

// "m16n8k16" -> 16, 8, 16 ("m8n8" for ldmatrix: k = 0).
bool parseShape(const std::string& w, std::uint16_t& m, std::uint16_t& n, std::uint16_t& k) {
  unsigned a = 0, b = 0, c = 0;
  char tail = 0;
  if (std::sscanf(w.c_str(), "m%un%uk%u%c", &a, &b, &c, &tail) == 3 && a && b && c && a <= 64 && b <= 64 && c <= 256) {
    m = std::uint16_t(a), n = std::uint16_t(b), k = std::uint16_t(c);
    return true;
  }
  if (std::sscanf(w.c_str(), "m%un%u%c", &a, &b, &tail) == 2 && a == 8 && b == 8) {
    m = 8, n = 8, k = 0;
    return true;
  }
  return false;
}

// Puts a trap in the place of an instruction the core cannot run, keeping where it came from: it
// never executes (a launch of its kernel is refused), but the program stays well formed.
void replaceWithTrap(DecodedInst& d) {
  const std::uint32_t line = d.ptx_line, debug_file = d.debug_file, debug_line = d.debug_line;
  const std::uint16_t col = d.ptx_col;
  d = DecodedInst{};
  d.op = Op::Trap;
  d.ptx_line = line;
  d.ptx_col = col;
  d.debug_file = debug_file;
  d.debug_line = debug_line;
}

// PTX instructions (ISA 8.x) that the functional core implements in no form, and forms of
// implemented ones that it lacks: a kernel using one loads and is refused at launch. tex, tld4,
// txq, suld, sust and suq decode in the forms ptx/texture_decode.cpp implements; their other
// valid forms (cube maps, texel offsets, .texref operands, ...) stay here.
bool isValidButUnimplemented(const Instruction& in) {
  static const std::set<std::string> opcodes = {
      "wmma", "mma", "wgmma", "ldmatrix", "stmatrix", "movmatrix", "cp", "mbarrier", "tex", "tld4", "txq", "suld",
      "sust", "sured", "suq", "multimem", "tensormap", "elect", "setmaxnreg",
      "griddepcontrol", "applypriority", "discard", "createpolicy", "istypep", "stackrestore", "stacksave",
      "alloca", "szext", "bmsk", "ldu", "pmevent", "clusterlaunchcontrol", "tcgen05", "barrier", "fence", "red",
      "st", "ld", "cvt", "cvt.pack", "prefetchu", "vabsdiff", "vadd", "vsub", "vmad", "vmax", "vmin", "vset",
      "vshl", "vshr", "vabsdiff2", "vabsdiff4", "vadd2", "vadd4", "vavrg2", "vavrg4", "vmax2", "vmax4", "vmin2",
      "vmin4", "vset2", "vset4", "vsub2", "vsub4"};
  if (!opcodes.count(in.opcode)) return false;
  // Implemented opcodes count only in the forms that are not: asynchronous and cluster-scope
  // variants, and conversions with two sources (packed results).
  static const std::set<std::string> partly = {"barrier", "fence", "red", "st", "ld", "cvt"};
  if (!partly.count(in.opcode)) return true;
  const bool cluster_barrier = in.opcode == "barrier" && std::find(in.modifiers.begin(), in.modifiers.end(),
                                                                   "cluster") != in.modifiers.end();
  for (const auto& m : in.modifiers)
    if (m == "async" || (m == "cluster" && !cluster_barrier && in.opcode != "fence") || m == "proxy" || m == "bulk" ||
        m == "f16x2" || m == "bf16x2" || m == "e4m3x2" || m == "e5m2x2" || m == "satfinite" || m == "tf32" ||
        m == "e4m3" || m == "e5m2" || m == "relu" || m == "mbarrier" || m == "multicast::cluster")
      return true;
  return in.opcode == "cvt" && in.operands.size() == 3;
}

bool FunctionDecoder::decodeTensor(const Instruction& in, DecodedInst& out) {
  const std::string& opc = in.opcode;
  if (opc != "mma" && opc != "wmma" && opc != "ldmatrix" && opc != "stmatrix" && opc != "movmatrix") return false;
  TensorOp t;
  std::vector<MatElem> types;
  bool shape = false;
  std::vector<std::string> layouts, rest;
  StateSpace space = StateSpace::None;
  for (const auto& w : in.modifiers) {
    if (MatElem e = matElemFromName(w); e != MatElem::None) { types.push_back(e); continue; }
    if (!shape && parseShape(w, t.m, t.n, t.k)) { shape = true; continue; }
    if (w == "row" || w == "col") { layouts.push_back(w); continue; }
    if (w == "satfinite") { t.satfinite = true; continue; }
    if (w == "trans") { t.trans = true; continue; }
    if (w == "x1" || w == "x2" || w == "x4") { t.count = std::uint8_t(w[1] - '0'); continue; }
    if (w == "shared" || w == "shared::cta") { space = StateSpace::Shared; continue; }
    if (w == "global") { space = StateSpace::Global; continue; }
    if (w == "b16" && (opc == "ldmatrix" || opc == "stmatrix" || opc == "movmatrix")) continue;
    rest.push_back(w);
  }
  auto fragment = [&](const Operand& op, bool dst, std::vector<std::uint32_t>& slots) {
    if (op.kind != Operand::Kind::Vector) {
      slots.push_back(dst ? regSlot(op) : source(op, Type::B32));
      return;
    }
    for (const auto& e : op.elements) slots.push_back(dst ? regSlot(e) : source(e, Type::B32));
  };
  auto expect = [&](const std::vector<std::uint32_t>& slots, std::uint32_t elems, MatElem e, const char* what,
                    bool at_least) {
    const std::uint32_t need = fragmentSlots(elems, e);
    if (slots.size() < need || (!at_least && slots.size() != need))
      failMalformed(in.loc, fmt::format("'{}': the {} fragment takes {} registers, found {}", opc,
                               what, need, slots.size()));
  };
  const auto& ops = in.operands;
  auto words = [&](std::initializer_list<const char*> allowed) {
    for (const auto& w : rest) {
      if (isIgnorable(w) || w == "aligned") continue;
      bool ok = false;
      for (const char* a : allowed) ok |= (w == a);
      if (!ok) fail(in.loc, fmt::format("unsupported modifier '.{}' on '{}'", w, opc));
    }
  };
  if (opc == "mma" || (opc == "wmma" && std::find(rest.begin(), rest.end(), "mma") != rest.end())) {
    const bool wmma = opc == "wmma";
    words({"mma", "xor", "popc", "and", "rn"});
    t.kind = wmma ? TensorOp::Kind::WmmaMma : TensorOp::Kind::Mma;
    t.b1_and = std::find(rest.begin(), rest.end(), "and") != rest.end();
    if (!shape || t.k == 0) failMalformed(in.loc, fmt::format("'{}' needs a shape such as .m16n8k16", opc));
    if (layouts.size() != 2) failMalformed(in.loc, fmt::format("'{}' needs the layouts of A and B (.row.col)", opc));
    t.a_row = layouts[0] == "row";
    t.b_row = layouts[1] == "row";
    if (!wmma && (!t.a_row || t.b_row)) {
      fail(in.loc, "mma.sync supports .row.col only, except for the m8n8k4 .f16 form (not implemented)");
    }
    if (types.size() == 2) types = {types[0], MatElem::F16, MatElem::F16, types[1]};  // wmma .f16 inputs
    if (types.size() != 4) failMalformed(in.loc, fmt::format("'{}' needs the types .dtype.atype.btype.ctype", opc));
    t.d = types[0], t.a = types[1], t.b = types[2], t.c = types[3];
    if (ops.size() != 4) failMalformed(in.loc, fmt::format("'{}' takes 4 operands (d, a, b, c), found {}", opc, ops.size()));
    fragment(ops[0], true, t.dst);
    fragment(ops[1], false, t.src_a);
    fragment(ops[2], false, t.src_b);
    fragment(ops[3], false, t.src_c);
    for (std::uint32_t cells : {std::uint32_t(t.m) * t.k, std::uint32_t(t.k) * t.n, std::uint32_t(t.m) * t.n})
      if (cells < 32 || cells % 32) failMalformed(in.loc, fmt::format("'{}': shape m{}n{}k{} does not spread over 32 lanes", opc, t.m, t.n, t.k));
    const std::uint32_t mk = std::uint32_t(t.m) * t.k / 32, kn = std::uint32_t(t.k) * t.n / 32,
                        mn = std::uint32_t(t.m) * t.n / 32;
    expect(t.src_a, mk, t.a, "A", wmma);
    expect(t.src_b, kn, t.b, "B", wmma);
    expect(t.src_c, mn, t.c, "C", wmma);
    expect(t.dst, mn, t.d, "D", wmma);
    // The combinations the functional core computes (sm/exec/tensor.cpp).
    const bool fp = (t.a == MatElem::F16 || t.a == MatElem::BF16 || t.a == MatElem::TF32 || t.a == MatElem::E4M3 ||
                     t.a == MatElem::E5M2);
    const bool ints = t.a == MatElem::S8 || t.a == MatElem::U8 || t.a == MatElem::S4 || t.a == MatElem::U4;
    const bool ok = (fp && (t.c == MatElem::F32 || t.c == MatElem::F16) && t.c == t.d) ||
                    (ints && t.c == MatElem::S32 && t.d == MatElem::S32) ||
                    (t.a == MatElem::B1 && t.b == MatElem::B1 && t.c == MatElem::S32 && t.d == MatElem::S32) ||
                    (t.a == MatElem::F64 && t.b == MatElem::F64 && t.c == MatElem::F64 && t.d == MatElem::F64);
    if (!ok || (t.m != 8 && t.m != 16 && !wmma) || (t.m == 8 && t.n == 8 && t.k == 4 && t.a == MatElem::F16 && !wmma))
      fail(in.loc, fmt::format("'{}' with these shapes and types is not implemented", opc));
    out.op = wmma ? Op::Wmma : Op::Mma;
  } else if (opc == "wmma") {
    const bool load = std::find(rest.begin(), rest.end(), "load") != rest.end();
    const bool store = std::find(rest.begin(), rest.end(), "store") != rest.end();
    if (!load && !store) failMalformed(in.loc, "wmma needs .load, .store or .mma");
    t.kind = load ? TensorOp::Kind::WmmaLoad : TensorOp::Kind::WmmaStore;
    for (const auto& w : rest)
      if (w == "a" || w == "b" || w == "c" || w == "d") t.which = w[0];
    words({"load", "store", "a", "b", "c", "d"});
    if (!t.which || (load && t.which == 'd') || (store && t.which != 'd'))
      failMalformed(in.loc, "wmma.load takes .a, .b or .c and wmma.store takes .d");
    if (!shape || t.k == 0) failMalformed(in.loc, "wmma needs a shape such as .m16n16k16");
    if (layouts.size() != 1) failMalformed(in.loc, "wmma.load/store needs a layout (.row or .col)");
    t.mem_row = layouts[0] == "row";
    if (types.size() != 1) failMalformed(in.loc, "wmma.load/store needs one element type");
    t.a = types[0];
    if (ops.size() != 2 && ops.size() != 3) failMalformed(in.loc, fmt::format("wmma.{} takes 2 or 3 operands", load ? "load" : "store"));
    out.space = address(load ? ops[1] : ops[0], space, out, false);
    fragment(load ? ops[0] : ops[1], load, load ? t.dst : t.src_a);
    if (ops.size() == 3) t.stride = source(ops[2], Type::U32);
    const std::uint32_t rows = t.rows(), cols = t.cols();
    if (rows * cols < 32 || (rows * cols) % 32 || ptx::bitsOf(t.a) < 8)
      fail(in.loc, fmt::format("wmma.{}: a {}x{} matrix of .{} is not implemented", load ? "load" : "store", rows, cols,
                               in.modifiers.back()));
    expect(load ? t.dst : t.src_a, rows * cols / 32, t.a, "matrix", true);
    out.op = Op::Wmma;
  } else if (opc == "ldmatrix" || opc == "stmatrix") {
    words({});
    if (!shape || t.m != 8 || t.n != 8 || t.k != 0) fail(in.loc, fmt::format("{} supports .m8n8 with .b16 only", opc));
    t.kind = opc == "ldmatrix" ? TensorOp::Kind::Ldmatrix : TensorOp::Kind::Stmatrix;
    if (ops.size() != 2) failMalformed(in.loc, fmt::format("'{}' takes 2 operands", opc));
    const bool ld = t.kind == TensorOp::Kind::Ldmatrix;
    out.space = address(ld ? ops[1] : ops[0], space == StateSpace::None ? StateSpace::Shared : space, out, false);
    if (out.space != Space::Shared) fail(in.loc, fmt::format("{} reads and writes shared memory only", opc));
    fragment(ld ? ops[0] : ops[1], ld, ld ? t.dst : t.src_a);
    if ((ld ? t.dst : t.src_a).size() != t.count)
      failMalformed(in.loc, fmt::format("'{}.x{}' takes {} registers", opc, t.count, t.count));
    out.op = ld ? Op::Ldmatrix : Op::Stmatrix;
  } else {  // movmatrix
    words({});
    if (!shape || t.m != 8 || t.n != 8 || !t.trans) fail(in.loc, "movmatrix supports .m8n8.trans.b16 only");
    if (ops.size() != 2) failMalformed(in.loc, "movmatrix takes 2 operands");
    t.kind = TensorOp::Kind::Movmatrix;
    fragment(ops[0], true, t.dst);
    fragment(ops[1], false, t.src_a);
    if (t.dst.size() != 1 || t.src_a.size() != 1) failMalformed(in.loc, "movmatrix takes one register each");
    out.op = Op::Movmatrix;
  }
  out.target = std::uint32_t(L_.program().tensor_ops.size());
  L_.program().tensor_ops.push_back(std::move(t));
  return true;
}

void FunctionDecoder::recordUnsupported(const SourceLoc& loc, const std::string& text, const std::string& why,
                                        DecodedInst& out) {
  ptx::Program::Unsupported u;
  u.line = loc.line;
  u.col = loc.col;
  u.text = text;
  // The decoder's message without its own "file:line:col: error: " prefix.
  const std::string::size_type at = why.find("error: ");
  u.reason = at == std::string::npos ? why : why.substr(at + 7);
  L_.program().unsupported.push_back(std::move(u));
  replaceWithTrap(out);
}

void FunctionDecoder::decode() {
  Program& prog = L_.program();
  DecodedFunction& self = fn();
  self.entry_pc = std::uint32_t(prog.code.size());
  scopes_.emplace_back();
  // Formal parameters and return values of a .func live in the frame's local storage.
  if (!f_.is_entry) {
    for (const auto& p : f_.returns) {
      if (p.space == StateSpace::Reg) fail(p.loc, "register return values of .func are not supported");
      VarDecl as_param = p;
      as_param.space = StateSpace::Param;
      declare(as_param, p.loc);
      std::uint32_t off, size;
      lookupLocal(p.name, off, &size);
      fn().return_offsets.push_back(off);
      fn().return_sizes.push_back(size);
    }
    for (const auto& p : f_.params) {
      if (p.space == StateSpace::Reg) fail(p.loc, "register parameters of .func are not supported");
      VarDecl as_param = p;
      as_param.space = StateSpace::Param;
      declare(as_param, p.loc);
      std::uint32_t off, size;
      lookupLocal(p.name, off, &size);
      fn().param_offsets.push_back(off);
      fn().param_sizes.push_back(size);
    }
  }
  if (!f_.has_body) {
    // A built-in: one instruction that the runtime implements, then return.
    fn().end_pc = fn().entry_pc;
    fn().local_frame_bytes = std::uint32_t(local_top_);
    return;
  }

  // Pass 1: label PCs and branch tables, with scopes only for counting instructions.
  std::uint32_t pc = self.entry_pc;
  for (const auto& st : f_.body) {
    if (st.kind == Statement::Kind::Instruction) {
      ++pc;
    } else if (st.kind == Statement::Kind::Label) {
      if (labels_.count(st.label)) fail(st.loc, fmt::format("label '{}' defined twice", st.label));
      labels_[st.label] = pc;
    } else if (st.kind == Statement::Kind::BranchTargets) {
      labels_[st.label] = pc;
      branch_tables_[st.label] = st.targets;
    }
  }
  // One implicit `ret` after the body: a body whose last instruction falls through (nvcc never
  // writes one, hand-written PTX may) returns instead of running past its code, and a label after
  // the last instruction names a real instruction.
  const std::uint32_t implicit_ret = pc;
  const std::uint32_t end = pc + 1;
  prog.code.resize(end);
  prog.text.resize(end);

  // Pass 2: declarations in scope order, then each instruction.
  pc = self.entry_pc;
  for (const auto& st : f_.body) {
    switch (st.kind) {
      case Statement::Kind::ScopeOpen: scopes_.emplace_back(); break;
      case Statement::Kind::ScopeClose:
        if (scopes_.size() <= 1) fail(st.loc, "unbalanced '}'");
        scopes_.pop_back();
        break;
      case Statement::Kind::Declaration: declare(st.decl, st.decl.loc.line ? st.decl.loc : st.loc); break;
      case Statement::Kind::Instruction: {
        DecodedInst& out = L_.program().code[pc];
        out.ptx_line = st.inst.loc.line;
        out.ptx_col = std::uint16_t(std::min<std::uint32_t>(st.inst.loc.col, 0xFFFF));
        out.debug_file = st.inst.debug_file;
        out.debug_line = st.inst.debug_line;
        std::string text = st.inst.opcode;
        for (const auto& m : st.inst.modifiers) text += "." + m;
        L_.program().text[pc] = std::move(text);
        try {
          decodeInstruction(st.inst, out);
        } catch (const ParseError& e) {
          // Valid PTX the functional core does not implement: the kernel is refused at launch,
          // the module (and its other kernels) still load. Anything else is an error in the PTX.
          if (!isValidButUnimplemented(st.inst) || e.malformed()) throw;
          recordUnsupported(st.inst.loc, L_.program().text[pc], e.what(), out);
        }
        ++pc;
        break;
      }
      default: break;
    }
  }
  if (implicit_ret == fn().entry_pc) fail(f_.loc, fmt::format("function '{}' has no instructions", f_.name));
  {
    Instruction ret;
    ret.opcode = "ret";
    ret.loc = f_.body.back().loc;
    DecodedInst& out = L_.program().code[implicit_ret];
    out.ptx_line = ret.loc.line;
    out.ptx_col = std::uint16_t(std::min<std::uint32_t>(ret.loc.col, 0xFFFF));
    L_.program().text[implicit_ret] = "ret (implicit, after the last instruction)";
    decodeInstruction(ret, out);
  }
  DecodedFunction& done = fn();
  done.end_pc = end;
  done.local_frame_bytes = std::uint32_t(alignUp(local_top_, 16));
  computeReconvergence(done.entry_pc, end);
}

// ---------------------------------------------------------------------------------------------

void FunctionDecoder::decodeInstruction(const Instruction& in, DecodedInst& out) {
  const std::string& opc = in.opcode;
  Mods m = classify(opc, in.modifiers);
  auto type = [&](std::size_t i) { return i < m.types.size() ? m.types[i] : Type::None; };
  out.type = type(0);
  out.type2 = type(1);
  out.round = m.round;
  out.cmp = m.cmp;
  out.flags = m.flags;
  out.vec = std::uint8_t(m.vec);
  if (in.guard) {
    out.guard = predSlot(*in.guard);
    out.guard_negated = in.guard->negated;
  }
  const auto& ops = in.operands;
  auto need = [&](std::size_t lo, std::size_t hi) {
    if (ops.size() < lo || ops.size() > hi)
      fail(in.loc, fmt::format("'{}' takes {} operands, found {}", opc,
                               lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi), ops.size()));
  };
  auto words_ok = [&](std::initializer_list<const char*> allowed) {
    for (const auto& w : m.words) {
      if (isIgnorable(w)) continue;
      bool ok = false;
      for (const char* a : allowed) ok |= (w == a);
      if (!ok) fail(in.loc, fmt::format("unsupported modifier '.{}' on '{}'", w, opc));
    }
  };
  auto dst_reg = [&](std::size_t i) { return regSlot(ops.at(i)); };
  auto src_all = [&](std::size_t first, Type t) {
    for (std::size_t i = first; i < ops.size(); ++i) out.src[out.nsrc++] = source(ops[i], t);
  };
  // An ALU instruction: dst, then sources converted to the instruction type. Predicate-typed
  // logic works on predicate slots.
  auto alu = [&](Op op, std::size_t lo, std::size_t hi) {
    out.op = op;
    need(lo, hi);
    if (out.type == Type::Pred) {
      out.dst[0] = predSlot(ops[0]);
      out.ndst = 1;
      for (std::size_t i = 1; i < ops.size(); ++i) {
        out.src[out.nsrc] = predSource(ops[i]);
        if (ops[i].negated) out.flags |= (out.nsrc == 0 ? kNegPredSrc0 : kNegPredSrc1);
        out.nsrc++;
      }
      return;
    }
    out.dst[0] = dst_reg(0);
    out.ndst = 1;
    Type st = out.type;
    // Sources of .wide instructions, and shift amounts, have their own widths.
    src_all(1, st);
  };

  static const std::map<std::string, Op> simple = {
      {"add", Op::Add},   {"sub", Op::Sub},     {"mul", Op::Mul},     {"mad", Op::Mad},     {"mul24", Op::Mul24},
      {"mad24", Op::Mad24}, {"sad", Op::Sad},   {"div", Op::Div},     {"rem", Op::Rem},     {"abs", Op::Abs},
      {"neg", Op::Neg},   {"min", Op::Min},     {"max", Op::Max},     {"popc", Op::Popc},   {"clz", Op::Clz},
      {"bfind", Op::Bfind}, {"brev", Op::Brev}, {"bfe", Op::Bfe},     {"bfi", Op::Bfi},     {"prmt", Op::Prmt},
      {"shf", Op::Shf},   {"shl", Op::Shl},     {"shr", Op::Shr},     {"and", Op::And},     {"or", Op::Or},
      {"xor", Op::Xor},   {"not", Op::Not},     {"cnot", Op::Cnot},   {"dp4a", Op::Dp4a},   {"dp2a", Op::Dp2a},
      {"fma", Op::Fma},   {"rcp", Op::Rcp},     {"sqrt", Op::Sqrt},   {"rsqrt", Op::Rsqrt}, {"sin", Op::Sin},
      {"cos", Op::Cos},   {"lg2", Op::Lg2},     {"ex2", Op::Ex2},     {"tanh", Op::Tanh},   {"copysign", Op::Copysign},
      {"fns", Op::Fns},   {"addc", Op::Add},    {"subc", Op::Sub},    {"madc", Op::Mad},    {"selp", Op::Selp},
      {"slct", Op::Slct}};

  if (auto it = simple.find(opc); it != simple.end()) {
    Op op = it->second;
    std::size_t n = 3;
    switch (op) {
      case Op::Mad: case Op::Mad24: case Op::Sad: case Op::Fma: case Op::Bfe: case Op::Prmt: case Op::Shf:
      case Op::Dp4a: case Op::Dp2a: case Op::Selp: case Op::Slct: case Op::Fns:
        n = 4; break;
      case Op::Bfi: n = 5; break;
      case Op::Abs: case Op::Neg: case Op::Popc: case Op::Clz: case Op::Bfind: case Op::Brev: case Op::Not:
      case Op::Cnot: case Op::Rcp: case Op::Sqrt: case Op::Rsqrt: case Op::Sin: case Op::Cos: case Op::Lg2:
      case Op::Ex2: case Op::Tanh:
        n = 2; break;
      default: break;
    }
    if (opc == "addc" || opc == "subc" || opc == "madc") out.flags |= kCcIn;
    if (out.flags & (kCcIn | kCcOut)) out.aux = carrySlot();
    if (op == Op::Shf) {
      if (std::find(in.modifiers.begin(), in.modifiers.end(), "l") != in.modifiers.end()) out.flags |= kLeft;
    }
    if (op == Op::Prmt) {
      static const std::map<std::string, std::uint32_t> modes = {{"f4e", 1}, {"b4e", 2}, {"rc8", 3},
                                                                 {"ecl", 4}, {"ecr", 5}, {"rc16", 6}};
      std::vector<std::string> rest;
      for (const auto& w : m.words) {
        if (auto mi = modes.find(w); mi != modes.end()) out.aux = mi->second;
        else rest.push_back(w);
      }
      m.words = rest;
    }
    if (op == Op::Bfind && m.has("shiftamt")) out.flags |= kShiftAmountIsB32;  // bfind.shiftamt
    words_ok({"xorsign", "abs"});
    if (op == Op::Selp) {
      need(4, 4);
      out.op = op;
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
      out.src[0] = source(ops[1], out.type);
      out.src[1] = source(ops[2], out.type);
      out.src[2] = predSlot(ops[3]);
      if (ops[3].negated) out.flags |= kNegPredSrc;
      out.nsrc = 3;
    } else if (op == Op::Slct) {
      need(4, 4);
      out.op = op;
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
      out.src[0] = source(ops[1], out.type);
      out.src[1] = source(ops[2], out.type);
      out.src[2] = source(ops[3], out.type2);
      out.nsrc = 3;
    } else {
      alu(op, n, n);
      // Operands whose type differs from the instruction type: shift amounts and bfe/bfi
      // positions are .u32; .wide sources are half the destination width; cvt-like dp4a.
      auto retype = [&](std::size_t opi, Type t) {
        if (opi < ops.size() && ops[opi].kind != Operand::Kind::Register) out.src[opi - 1] = source(ops[opi], t);
      };
      if (op == Op::Shl || op == Op::Shr) retype(2, Type::U32);
      if (op == Op::Shf) retype(3, Type::U32);
      if (op == Op::Bfe) { retype(2, Type::U32); retype(3, Type::U32); }
      if (op == Op::Bfi) { retype(3, Type::U32); retype(4, Type::U32); }
      if (op == Op::Lop3) {}
    }
    return;
  }

  if (opc == "lop3") {
    need(5, 5);
    out.op = Op::Lop3;
    out.dst[0] = dst_reg(0);
    out.ndst = 1;
    for (int i = 1; i <= 3; ++i) out.src[out.nsrc++] = source(ops[i], out.type);
    if (ops[4].kind != Operand::Kind::IntImmediate) fail(ops[4].loc, "lop3 expects an immediate lookup table");
    out.aux = std::uint32_t(ops[4].int_value & 0xFF);
    words_ok({});
    return;
  }
  if (opc == "testp") {
    need(2, 2);
    out.op = Op::Testp;
    static const std::map<std::string, SubOp> kinds = {
        {"finite", SubOp::TestFinite}, {"infinite", SubOp::TestInfinite}, {"number", SubOp::TestNumber},
        {"notanumber", SubOp::TestNotANumber}, {"normal", SubOp::TestNormal}, {"subnormal", SubOp::TestSubnormal}};
    for (const auto& w : m.words)
      if (auto k = kinds.find(w); k != kinds.end()) out.sub = k->second;
    if (out.sub == SubOp::None) fail(in.loc, "testp needs one of .finite .infinite .number .notanumber .normal .subnormal");
    out.dst[0] = predSlot(ops[0]);
    out.ndst = 1;
    out.src[0] = source(ops[1], out.type);
    out.nsrc = 1;
    return;
  }
  if (opc == "setp" || opc == "set") {
    out.op = opc == "setp" ? Op::Setp : Op::Set;
    if (out.cmp == Cmp::None) fail(in.loc, fmt::format("{} needs a comparison (.eq .lt ...)", opc));
    for (const auto& w : m.words) {
      if (w == "and") out.sub = SubOp::BoolAnd;
      else if (w == "or") out.sub = SubOp::BoolOr;
      else if (w == "xor") out.sub = SubOp::BoolXor;
      else if (!isIgnorable(w)) fail(in.loc, fmt::format("unsupported modifier '.{}' on '{}'", w, opc));
    }
    need(out.sub == SubOp::None ? 3 : 4, out.sub == SubOp::None ? 3 : 4);
    Type cmp_type;
    if (out.op == Op::Set) {
      // set.CmpOp.dtype.stype: first type is the destination.
      cmp_type = out.type2;
      std::swap(out.type, out.type2);  // type = compared, type2 = destination
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
    } else {
      cmp_type = out.type;
      if (ops[0].kind == Operand::Kind::Vector) {
        if (ops[0].elements.size() != 2) fail(ops[0].loc, "setp p|q takes two predicates");
        out.dst[0] = predSlot(ops[0].elements[0]);
        out.dst[1] = predSlot(ops[0].elements[1]);
        out.ndst = 2;
        out.flags |= kDualPred;
      } else {
        out.dst[0] = predSlot(ops[0]);
        out.ndst = 1;
      }
    }
    out.src[0] = source(ops[1], cmp_type);
    out.src[1] = source(ops[2], cmp_type);
    out.nsrc = 2;
    if (out.sub != SubOp::None) {
      out.src[2] = predSlot(ops[3]);
      if (ops[3].negated) out.flags |= kNegPredSrc;
      out.nsrc = 3;
    }
    return;
  }
  if (opc == "mov") {
    need(2, 2);
    out.op = Op::Mov;
    words_ok({});
    if (out.type == Type::Pred) {
      out.dst[0] = predSlot(ops[0]);
      out.ndst = 1;
      out.src[0] = predSource(ops[1]);
      if (ops[1].negated) out.flags |= kNegPredSrc0;
      out.nsrc = 1;
      return;
    }
    if (ops[0].kind == Operand::Kind::Vector) {
      for (const auto& e : ops[0].elements) out.dst[out.ndst++] = regSlot(e);
    } else {
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
    }
    if (ops[1].kind == Operand::Kind::Vector) {
      for (const auto& e : ops[1].elements) out.src[out.nsrc++] = source(e, Type::None);
    } else {
      SpecialReg r;
      if (ops[1].kind == Operand::Kind::Register && specialRegister(ops[1].name, r) && isDynamic(r)) {
        out.src[0] = kNoSlot;  // read when executed
        out.aux = std::uint32_t(r);
        out.nsrc = 0;
      } else {
        out.src[0] = source(ops[1], out.type);
        out.nsrc = 1;
      }
    }
    return;
  }
  if (opc == "cvt") {
    out.op = Op::Cvt;
    words_ok({});
    if (std::find(in.modifiers.begin(), in.modifiers.end(), "pack") != in.modifiers.end()) {
      out.op = Op::CvtPack;
      alu(Op::CvtPack, 3, 4);
      return;
    }
    // A packed destination (f16x2, bf16x2, e4m3x2, e5m2x2) converts two sources: d = {cvt(a) : cvt(b)}.
    const bool pair = out.type == Type::F16x2 || out.type == Type::BF16x2 || out.type == Type::E4M3x2 ||
                      out.type == Type::E5M2x2;
    need(2, pair ? 3 : 2);
    if (out.type2 == Type::None) fail(in.loc, "cvt needs a destination and a source type");
    out.dst[0] = dst_reg(0);
    out.ndst = 1;
    out.src[0] = source(ops[1], out.type2);
    out.nsrc = 1;
    if (ops.size() == 3) {
      out.src[1] = source(ops[2], out.type2);
      out.nsrc = 2;
    }
    return;
  }
  if (opc == "cvta" || opc == "isspacep") {
    need(2, 2);
    out.op = opc == "cvta" ? Op::Cvta : Op::Isspacep;
    switch (m.space) {
      case StateSpace::Global: out.space = Space::Global; break;
      case StateSpace::Shared: out.space = Space::Shared; break;
      case StateSpace::Local: out.space = Space::Local; break;
      case StateSpace::Const: out.space = Space::Const; break;
      case StateSpace::Param: out.space = Space::KernelParam; break;
      default: fail(in.loc, fmt::format("{} needs a state space", opc));
    }
    if (std::find(in.modifiers.begin(), in.modifiers.end(), "to") != in.modifiers.end()) out.aux = 1;
    if (out.op == Op::Isspacep) {
      out.dst[0] = predSlot(ops[0]);
      out.type = Type::U64;
    } else {
      out.dst[0] = dst_reg(0);
    }
    out.ndst = 1;
    out.src[0] = source(ops[1], out.type == Type::None ? Type::U64 : out.type);
    out.nsrc = 1;
    return;
  }
  if (opc == "ld" || opc == "ldu" || opc == "st") {
    const bool load = opc != "st";
    need(2, 2);
    out.op = load ? Op::Ld : Op::St;
    words_ok({});
    const Operand& addr = load ? ops[1] : ops[0];
    const Operand& val = load ? ops[0] : ops[1];
    out.space = address(addr, m.space, out, true);
    if (m.space == StateSpace::Param && out.space == Space::Local) out.flags |= kParamSpace;
    if (out.type == Type::None) fail(in.loc, fmt::format("{} needs a type", opc));
    if (m.vec > 4) fail(in.loc, "vectors wider than .v4 are not supported");
    std::vector<const Operand*> elems;
    if (val.kind == Operand::Kind::Vector) {
      for (const auto& e : val.elements) elems.push_back(&e);
    } else {
      elems.push_back(&val);
    }
    if (elems.size() != m.vec)
      fail(val.loc, fmt::format("{} .v{} needs {} registers, found {}", opc, m.vec, m.vec, elems.size()));
    for (std::size_t i = 0; i < elems.size(); ++i) {
      if (load) out.dst[i] = regSlot(*elems[i]);
      else out.src[i] = source(*elems[i], out.type);
    }
    if (load) out.ndst = std::uint8_t(elems.size());
    else out.nsrc = std::uint8_t(elems.size());
    return;
  }
  if (opc == "atom" || opc == "red") {
    const bool atom = opc == "atom";
    out.op = atom ? Op::Atom : Op::Red;
    static const std::map<std::string, SubOp> aops = {
        {"add", SubOp::AAdd}, {"min", SubOp::AMin}, {"max", SubOp::AMax}, {"inc", SubOp::AInc},
        {"dec", SubOp::ADec}, {"and", SubOp::AAnd}, {"or", SubOp::AOr},   {"xor", SubOp::AXor},
        {"exch", SubOp::AExch}, {"cas", SubOp::ACas}};
    for (const auto& w : m.words) {
      if (auto a = aops.find(w); a != aops.end()) out.sub = a->second;
      else if (!isIgnorable(w)) fail(in.loc, fmt::format("unsupported modifier '.{}' on '{}'", w, opc));
    }
    if (out.sub == SubOp::None) fail(in.loc, fmt::format("{} needs an operation (.add .cas ...)", opc));
    if (m.vec != 1) fail(in.loc, "vector atomics are not supported");
    std::size_t n = (atom ? 3 : 2) + (out.sub == SubOp::ACas ? 1 : 0);
    need(n, n);
    std::size_t a = atom ? 1 : 0;
    out.space = address(ops[a], m.space, out, false);
    if (atom) {
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
    }
    for (std::size_t i = a + 1; i < ops.size(); ++i) out.src[out.nsrc++] = source(ops[i], out.type);
    return;
  }
  if (opc == "prefetch" || opc == "prefetchu" || opc == "membar" || opc == "fence" || opc == "nanosleep" ||
      opc == "griddepcontrol" || opc == "discard" || opc == "applypriority" || opc == "createpolicy") {
    out.op = opc == "nanosleep" ? Op::Nanosleep : (opc.rfind("pre", 0) == 0 ? Op::Prefetch : Op::Fence);
    if (opc == "createpolicy") {
      // The policy register gets a value nobody interprets.
      out.op = Op::Mov;
      out.type = Type::B64;
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
      out.src[0] = constSlot(0);
      out.nsrc = 1;
    }
    return;
  }
  if (opc == "bra") {
    need(1, 1);
    out.op = Op::Bra;
    words_ok({});
    if (ops[0].kind != Operand::Kind::Symbol) fail(ops[0].loc, "bra expects a label");
    auto it = labels_.find(ops[0].name);
    if (it == labels_.end()) fail(ops[0].loc, fmt::format("undefined label '{}'", ops[0].name));
    out.target = it->second;
    return;
  }
  if (opc == "brx") {
    need(2, 2);
    out.op = Op::BrxIdx;
    if (ops[1].kind != Operand::Kind::Symbol) fail(ops[1].loc, "brx.idx expects a .branchtargets label");
    auto bt = branch_tables_.find(ops[1].name);
    if (bt == branch_tables_.end()) fail(ops[1].loc, fmt::format("'{}' is not a .branchtargets list", ops[1].name));
    out.src[0] = source(ops[0], Type::U32);
    out.nsrc = 1;
    out.target = std::uint32_t(L_.program().branch_tables_flat.size());
    out.aux = std::uint32_t(bt->second.size());
    for (const auto& t : bt->second) {
      auto it = labels_.find(t);
      if (it == labels_.end()) fail(ops[1].loc, fmt::format("undefined label '{}' in branch table", t));
      L_.program().branch_tables_flat.push_back(it->second);
    }
    return;
  }
  if (opc == "call") {
    decodeCall(in, out);
    return;
  }
  if (opc == "ret" || opc == "exit" || opc == "trap" || opc == "brkpt") {
    need(0, 0);
    out.op = opc == "ret" ? Op::Ret : opc == "exit" ? Op::Exit : opc == "trap" ? Op::Trap : Op::Brkpt;
    // `ret` in a kernel ends the thread, as exit does.
    if (out.op == Op::Ret && f_.is_entry) out.op = Op::Exit;
    return;
  }
  if (opc == "barrier" && m.has("cluster")) {
    // barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}{.aligned}:
    // every non-exited thread of the cluster arrives; a wait returns once the phase the thread
    // arrived in has completed.
    need(0, 0);
    out.op = Op::BarCluster;
    if (m.has("arrive")) out.sub = SubOp::BarArrive;
    else if (m.has("wait")) out.sub = SubOp::BarSync;
    else fail(in.loc, "barrier.cluster needs .arrive or .wait");
    return;
  }
  if (opc == "mapa" || opc == "getctarank") {
    // mapa{.shared::cluster}.u32/.u64 d, a, rank: a's location in the shared memory of block `rank`
    // of the cluster; getctarank{.shared::cluster}.u32 d, a: the rank of the block a belongs to.
    // Without .shared::cluster the addresses are generic.
    const bool mapa = opc == "mapa";
    need(mapa ? 3 : 2, mapa ? 3 : 2);
    out.op = mapa ? Op::Mapa : Op::Getctarank;
    out.space = m.cluster ? Space::Shared : Space::Generic;
    if (out.type == Type::None) fail(in.loc, fmt::format("{} needs a type (.u32 or .u64)", opc));
    out.dst[0] = dst_reg(0);
    out.ndst = 1;
    out.src[0] = source(ops[1], out.type);
    out.nsrc = 1;
    if (mapa) {
      out.src[1] = source(ops[2], Type::U32);
      out.nsrc = 2;
    }
    return;
  }
  if (opc == "bar" || opc == "barrier") {
    out.op = Op::Bar;
    out.sub = SubOp::BarSync;
    if (m.has("warp")) {  // bar.warp.sync: a converged SIMT warp is already synchronised
      need(1, 1);
      out.op = Op::Fence;
      return;
    }
    if (m.has("arrive")) out.sub = SubOp::BarArrive;
    if (m.has("red")) {
      out.sub = SubOp::BarRed;
      for (const auto& w : m.words) {
        if (w == "popc") out.aux = 1;
        else if (w == "and") out.aux = 2;
        else if (w == "or") out.aux = 3;
      }
      need(3, 4);
      out.dst[0] = ops[0].kind == Operand::Kind::Register && out.type == Type::Pred ? predSlot(ops[0]) : dst_reg(0);
      out.ndst = 1;
      out.src[0] = source(ops[1], Type::U32);
      if (ops.size() == 4) {
        out.src[1] = source(ops[2], Type::U32);
        out.flags |= kHasCount;
      }
      const Operand& p = ops.back();
      out.src[2] = predSlot(p);
      if (p.negated) out.flags |= kNegPredSrc;
      out.nsrc = 3;
      return;
    }
    need(1, 2);
    out.src[0] = source(ops[0], Type::U32);
    out.nsrc = 1;
    if (ops.size() == 2) {
      out.src[1] = source(ops[1], Type::U32);
      out.nsrc = 2;
      out.flags |= kHasCount;
    }
    if (out.sub == SubOp::BarArrive && !(out.flags & kHasCount)) fail(in.loc, "bar.arrive needs a thread count");
    return;
  }
  if (opc == "shfl") {
    out.op = Op::Shfl;
    for (const auto& w : m.words) {
      if (w == "up") out.sub = SubOp::ShflUp;
      else if (w == "down") out.sub = SubOp::ShflDown;
      else if (w == "bfly") out.sub = SubOp::ShflBfly;
      else if (w == "idx") out.sub = SubOp::ShflIdx;
      else if (!isIgnorable(w)) fail(in.loc, fmt::format("unsupported modifier '.{}' on shfl", w));
    }
    if (out.sub == SubOp::None) fail(in.loc, "shfl needs a mode (.up .down .bfly .idx)");
    need(4, 5);
    if (ops[0].kind == Operand::Kind::Vector) {
      out.dst[0] = regSlot(ops[0].elements.at(0));
      out.dst[1] = predSlot(ops[0].elements.at(1));
      out.flags |= kDualPred;
      out.ndst = 2;
    } else {
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
    }
    for (std::size_t i = 1; i < ops.size(); ++i) out.src[out.nsrc++] = source(ops[i], Type::U32);
    if (ops.size() == 5) out.flags |= kHasMask;
    return;
  }
  if (opc == "vote") {
    out.op = Op::Vote;
    for (const auto& w : m.words) {
      if (w == "all") out.sub = SubOp::VoteAll;
      else if (w == "any") out.sub = SubOp::VoteAny;
      else if (w == "uni") out.sub = SubOp::VoteUni;
      else if (w == "ballot") out.sub = SubOp::VoteBallot;
      else if (!isIgnorable(w)) fail(in.loc, fmt::format("unsupported modifier '.{}' on vote", w));
    }
    if (out.flags & kUni) { out.sub = SubOp::VoteUni; out.flags &= ~kUni; }
    if (out.sub == SubOp::None) fail(in.loc, "vote needs a mode (.all .any .uni .ballot)");
    need(2, 3);
    out.dst[0] = out.sub == SubOp::VoteBallot ? dst_reg(0) : predSlot(ops[0]);
    out.ndst = 1;
    out.src[0] = predSlot(ops[1]);
    if (ops[1].negated) out.flags |= kNegPredSrc0;
    out.nsrc = 1;
    if (ops.size() == 3) {
      out.src[1] = source(ops[2], Type::U32);
      out.nsrc = 2;
      out.flags |= kHasMask;
    }
    return;
  }
  if (opc == "match") {
    out.op = Op::Match;
    out.sub = m.has("all") ? SubOp::MatchAll : SubOp::MatchAny;
    need(3, 3);
    if (ops[0].kind == Operand::Kind::Vector) {
      out.dst[0] = regSlot(ops[0].elements.at(0));
      out.dst[1] = predSlot(ops[0].elements.at(1));
      out.flags |= kDualPred;
      out.ndst = 2;
    } else {
      out.dst[0] = dst_reg(0);
      out.ndst = 1;
    }
    out.src[0] = source(ops[1], out.type);
    out.src[1] = source(ops[2], Type::U32);
    out.nsrc = 2;
    return;
  }
  if (opc == "redux") {
    out.op = Op::Redux;
    static const std::map<std::string, SubOp> rops = {{"add", SubOp::AAdd}, {"min", SubOp::AMin},
                                                      {"max", SubOp::AMax}, {"and", SubOp::AAnd},
                                                      {"or", SubOp::AOr},   {"xor", SubOp::AXor}};
    for (const auto& w : m.words)
      if (auto r = rops.find(w); r != rops.end()) out.sub = r->second;
    if (out.sub == SubOp::None) fail(in.loc, "redux needs an operation (.add .min .max .and .or .xor)");
    need(3, 3);
    out.dst[0] = dst_reg(0);
    out.ndst = 1;
    out.src[0] = source(ops[1], out.type);
    out.src[1] = source(ops[2], Type::U32);
    out.nsrc = 2;
    return;
  }
  if (opc == "wgmma") {  // sm_90a warpgroup MMA: ptx/wgmma_decode.cpp
    TensorOp t;
    bool has_operands = false;
    // An operand the decoder rejects (an undeclared register, say) is malformed text here.
    auto malformedOnError = [](auto&& f) {
      try {
        return f();
      } catch (ParseError& e) {
        e.markMalformed();
        throw;
      }
    };
    const WgmmaDecodeHooks hooks{
        L_.module().source_name, [&](const Operand& o) { return malformedOnError([&] { return regSlot(o); }); },
        [&](const Operand& o, Type ty) { return malformedOnError([&] { return source(o, ty); }); },
        [&](const Operand& o) { return malformedOnError([&] { return predSource(o); }); }};
    decodeWgmma(in, out, t, &has_operands, hooks);
    if (has_operands) {
      out.target = std::uint32_t(L_.program().tensor_ops.size());
      L_.program().tensor_ops.push_back(std::move(t));
    }
    return;
  }
  if (decodeTensor(in, out)) return;
  if (decodeBulk(in, out)) return;
  {  // tex, tld4, txq, suld, sust, suq: ptx/texture_decode.cpp
    TensorOp t;
    const TexDecodeHooks hooks{[&](const Operand& o) { return regSlot(o); },
                               [&](const Operand& o, Type ty) { return source(o, ty); },
                               [&](const SourceLoc& l, const std::string& msg) { fail(l, msg); },
                               [&](const SourceLoc& l, const std::string& msg) { failMalformed(l, msg); }};
    if (decodeTextureInst(in, hooks, out, t)) {
      out.target = std::uint32_t(L_.program().tensor_ops.size());
      L_.program().tensor_ops.push_back(std::move(t));
      return;
    }
  }
  // Operand counts of the mbarrier and cp.async forms: malformed text when they do not match.
  auto needForm = [&](std::size_t lo, std::size_t hi) {
    if (ops.size() < lo || ops.size() > hi)
      failMalformed(in.loc, fmt::format("'{}' takes {} operands, found {}", opc,
                                        lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi), ops.size()));
  };
  if (opc == "mbarrier") {
    // The barrier object is 8 bytes of shared memory (sm/exec/mbarrier.cpp gives its layout).
    static const std::map<std::string, SubOp> kinds = {
        {"init", SubOp::MbarInit},          {"arrive", SubOp::MbarArrive},     {"arrive_drop", SubOp::MbarArriveDrop},
        {"expect_tx", SubOp::MbarExpectTx}, {"complete_tx", SubOp::MbarCompleteTx},
        {"test_wait", SubOp::MbarTestWait}, {"try_wait", SubOp::MbarTryWait}, {"inval", SubOp::MbarInval},
        {"pending_count", SubOp::MbarPendingCount}};
    for (const auto& w : m.words) {
      auto k = kinds.find(w);
      if (k == kinds.end()) continue;
      if (w == "expect_tx" && (out.sub == SubOp::MbarArrive || out.sub == SubOp::MbarArriveDrop)) {
        out.flags |= kMbarExpectTx;  // arrive.expect_tx
        continue;
      }
      if (out.sub == SubOp::None) out.sub = k->second;
    }
    if (out.sub == SubOp::None) failMalformed(in.loc, "mbarrier needs an operation (.init, .arrive, .test_wait, ...)");
    for (const auto& w : m.words)
      if (!kinds.count(w) && !isIgnorable(w) && w != "parity" && w != "b64" && w != "shared::cta" && w != "noComplete")
        fail(in.loc, fmt::format("unsupported modifier '.{}' on 'mbarrier'", w));
    if (m.has("noComplete")) fail(in.loc, "mbarrier.arrive.noComplete is not implemented");
    if (m.has("parity")) out.flags |= kMbarParity;
    if (std::find(in.modifiers.begin(), in.modifiers.end(), "shared::cluster") != in.modifiers.end())
      fail(in.loc, "mbarrier on .shared::cluster is not implemented");
    out.op = Op::Mbarrier;
    out.type = Type::B64;
    const StateSpace space = std::find(in.modifiers.begin(), in.modifiers.end(), "shared") != in.modifiers.end() ||
                                     std::find(in.modifiers.begin(), in.modifiers.end(), "shared::cta") != in.modifiers.end()
                                 ? StateSpace::Shared
                                 : StateSpace::None;
    auto state_dst = [&](const Operand& op) {  // a register, or `_` (no state wanted)
      if (op.kind == Operand::Kind::Sink) return kNoSlot;
      return regSlot(op);
    };
    switch (out.sub) {
      case SubOp::MbarInit: case SubOp::MbarExpectTx: case SubOp::MbarCompleteTx:
        needForm(2, 2);
        out.space = address(ops[0], space, out, false);
        out.src[0] = source(ops[1], Type::U32);
        out.nsrc = 1;
        break;
      case SubOp::MbarInval:
        needForm(1, 1);
        out.space = address(ops[0], space, out, false);
        break;
      case SubOp::MbarArrive: case SubOp::MbarArriveDrop:
        needForm(2, 3);
        out.dst[0] = state_dst(ops[0]);
        out.ndst = out.dst[0] == kNoSlot ? 0 : 1;
        out.space = address(ops[1], space, out, false);
        if (ops.size() == 3) {  // a count, or expect_tx's transaction count
          out.src[0] = source(ops[2], Type::U32);
          out.nsrc = 1;
          if (!(out.flags & kMbarExpectTx)) out.flags |= kHasCount;
        } else if (out.flags & kMbarExpectTx) {
          failMalformed(in.loc, "mbarrier.arrive.expect_tx needs a transaction count");
        }
        break;
      case SubOp::MbarTestWait: case SubOp::MbarTryWait:
        needForm(3, 4);
        out.dst[0] = predSlot(ops[0]);
        out.ndst = 1;
        out.space = address(ops[1], space, out, false);
        out.src[0] = source(ops[2], (out.flags & kMbarParity) ? Type::U32 : Type::B64);
        out.nsrc = 1;
        break;
      case SubOp::MbarPendingCount:
        needForm(2, 2);
        out.dst[0] = regSlot(ops[0]);
        out.ndst = 1;
        out.src[0] = source(ops[1], Type::B64);
        out.nsrc = 1;
        break;
      default: break;
    }
    return;
  }
  if (opc == "cp" && m.has("async") && !m.has("bulk") && !m.has("mbarrier") && !m.has("reduce")) {
    // cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}{, cache-policy};
    // cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all.
    if (m.has("commit_group")) {
      needForm(0, 0);
      out.op = Op::CpAsyncCommit;
      return;
    }
    if (m.has("wait_group") || m.has("wait_all")) {
      out.op = Op::CpAsyncWait;
      if (m.has("wait_all")) {
        needForm(0, 0);
        out.aux = 1;  // commits the open group first
        out.imm = 0;
        return;
      }
      needForm(1, 1);
      if (ops[0].kind != Operand::Kind::IntImmediate || ops[0].int_value < 0)
        failMalformed(ops[0].loc, "cp.async.wait_group takes a non-negative integer constant");
      out.imm = ops[0].int_value;
      out.aux = 0;
      return;
    }
    const bool hint = std::find(in.modifiers.begin(), in.modifiers.end(), "L2::cache_hint") != in.modifiers.end();
    needForm(3, hint ? 5 : 4);

    const auto has_mod = [&](const char* w) {
      return std::find(in.modifiers.begin(), in.modifiers.end(), w) != in.modifiers.end();
    };
    if (!(has_mod("shared") || has_mod("shared::cta")) || !has_mod("global"))
      failMalformed(in.loc, "cp.async copies from .global to .shared (::cta) memory only");
    out.op = Op::CpAsync;
    out.space = address(ops[0], StateSpace::Shared, out, false);
    if (ops[2].kind != Operand::Kind::IntImmediate ||
        (ops[2].int_value != 4 && ops[2].int_value != 8 && ops[2].int_value != 16))
      failMalformed(ops[2].loc, "cp.async's cp-size is 4, 8 or 16");
    out.vec = std::uint8_t(ops[2].int_value);
    if (has_mod("cg") && out.vec != 16) failMalformed(ops[2].loc, "cp.async.cg copies 16 bytes");
    if (has_mod("cg")) out.flags |= kL1Bypass;
    // The global source: its base register (or symbol address) and its offset, as two sources.
    DecodedInst src_addr;
    address(ops[1], StateSpace::Global, src_addr, false);
    out.src[0] = src_addr.aux;
    out.src[1] = constSlot(std::uint64_t(src_addr.imm));
    out.src[2] = kNoSlot;
    if (ops.size() >= 4 && !(hint && ops.size() == 4)) {
      RegDecl d;
      if (ops[3].kind == Operand::Kind::Register && lookupReg(ops[3].name, d) && d.type == Type::Pred)
        fail(ops[3].loc, "cp.async with an ignore-src predicate is not implemented");
      out.src[2] = source(ops[3], Type::U32);
    }
    out.nsrc = out.src[2] == kNoSlot ? 2 : 3;
    return;
  }
  if (opc == "activemask") {
    need(1, 1);
    out.op = Op::Activemask;
    out.dst[0] = dst_reg(0);
    out.ndst = 1;
    return;
  }
  fail(in.loc, fmt::format("unsupported instruction '{}' (not implemented by the scgpu functional core)", opc));
}

bool FunctionDecoder::decodeBulk(const Instruction& in, DecodedInst& out) {
  const auto& mods = in.modifiers;
  const auto has = [&](const char* w) { return std::find(mods.begin(), mods.end(), w) != mods.end(); };
  if (in.opcode != "cp" || !has("bulk")) return false;
  const auto& ops = in.operands;
  const auto needForm = [&](std::size_t lo, std::size_t hi) {
    if (ops.size() < lo || ops.size() > hi)
      failMalformed(in.loc, fmt::format("'cp{}' takes {} operands, found {}", has("reduce") ? ".reduce.async.bulk" : ".async.bulk",
                                        lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi), ops.size()));
  };
  if (has("commit_group")) {
    needForm(0, 0);
    out.op = Op::CpBulkCommit;
    return true;
  }
  if (has("wait_group")) {
    needForm(1, 1);
    if (ops[0].kind != Operand::Kind::IntImmediate || ops[0].int_value < 0 || ops[0].int_value > 63)
      failMalformed(ops[0].loc, "cp.async.bulk.wait_group takes an integer constant from 0 to 63");
    out.op = Op::CpBulkWait;
    out.imm = ops[0].int_value;
    out.aux = has("read") ? 1 : 0;  // .read: only until the sources have been read
    return true;
  }
  BulkOp b;
  b.kind = has("reduce") ? BulkOp::Kind::Reduce : has("prefetch") ? BulkOp::Kind::Prefetch : BulkOp::Kind::Copy;
  b.tensor = has("tensor");
  b.im2col = std::any_of(mods.begin(), mods.end(), [](const std::string& w) { return w.rfind("im2col", 0) == 0; });
  if (b.im2col && !has("im2col")) fail(in.loc, "only the .im2col load mode of cp.async.bulk.tensor is implemented");
  b.multicast = has("multicast::cluster");
  const bool cache_hint = has("L2::cache_hint");
  // The state spaces in the order written: destination, then source.
  std::vector<std::string> spaces;
  for (const auto& w : mods)
    if (w == "shared::cluster" || w == "shared::cta" || w == "shared" || w == "global") spaces.push_back(w);
  const bool to_mbarrier = has("mbarrier::complete_tx::bytes");
  const bool to_group = has("bulk_group");
  if (b.kind == BulkOp::Kind::Prefetch) {
    if (!has("L2") || spaces != std::vector<std::string>{"global"})
      failMalformed(in.loc, "cp.async.bulk.prefetch prefetches .global memory into the .L2");
    b.dir = BulkOp::Dir::GlobalToL2;
  } else if (spaces.size() == 2 && spaces[1] == "global" && spaces[0] != "global") {
    b.dir = BulkOp::Dir::GlobalToShared;
  } else if (spaces.size() == 2 && spaces[0] == "global" && spaces[1] != "global") {
    b.dir = BulkOp::Dir::SharedToGlobal;
  } else if (spaces.size() == 2 && spaces[0] == "shared::cluster" && spaces[1] == "shared::cta") {
    b.dir = BulkOp::Dir::SharedToCluster;
  } else {
    failMalformed(in.loc, "a bulk copy names its destination and source state spaces (.shared::cluster.global, "
                          ".global.shared::cta or .shared::cluster.shared::cta)");
  }
  if (b.kind != BulkOp::Kind::Prefetch) {
    const bool wants_mbarrier = b.dir != BulkOp::Dir::SharedToGlobal;
    if (wants_mbarrier ? !to_mbarrier : !to_group)
      failMalformed(in.loc, wants_mbarrier ? "a bulk copy into shared memory completes on an mbarrier "
                                             "(.mbarrier::complete_tx::bytes)"
                                           : "a bulk copy into global memory completes in a bulk group (.bulk_group)");
    b.has_mbar = wants_mbarrier;
  }
  if (b.multicast && b.dir != BulkOp::Dir::GlobalToShared)
    failMalformed(in.loc, ".multicast::cluster is for copies from global memory into shared memory");
  if (b.tensor) {
    for (const auto& w : mods)
      if (w.size() == 2 && w[1] == 'd' && w[0] >= '1' && w[0] <= '5') b.rank = std::uint8_t(w[0] - '0');
    if (!b.rank) failMalformed(in.loc, "cp.async.bulk.tensor needs its dimension (.1d to .5d)");
    if (b.im2col && b.rank < 3) failMalformed(in.loc, "the .im2col mode needs a tensor of 3 to 5 dimensions");
    if (b.im2col && (b.kind == BulkOp::Kind::Reduce || b.dir == BulkOp::Dir::SharedToGlobal))
      fail(in.loc, "cp.async.bulk.tensor stores and reductions in an im2col mode are not implemented (only loads and "
                   "prefetches)");
  }
  if (b.kind == BulkOp::Kind::Reduce) {
    static const std::map<std::string, SubOp> red_ops = {{"add", SubOp::AAdd}, {"min", SubOp::AMin}, {"max", SubOp::AMax},
                                                         {"inc", SubOp::AInc}, {"dec", SubOp::ADec}, {"and", SubOp::AAnd},
                                                         {"or", SubOp::AOr},   {"xor", SubOp::AXor}};
    for (const auto& w : mods)
      if (auto it = red_ops.find(w); it != red_ops.end()) b.red = it->second;
    if (b.red == SubOp::None) failMalformed(in.loc, "cp.reduce.async.bulk needs a reduction (.add, .min, .max, ...)");
    for (const auto& w : mods)
      if (Type t = typeFromName(w); t != Type::None) b.red_type = t;
    if (!b.tensor && b.red_type == Type::None) failMalformed(in.loc, "cp.reduce.async.bulk needs an element type");
    if (b.dir == BulkOp::Dir::GlobalToShared) failMalformed(in.loc, "cp.reduce.async.bulk reduces into global memory or another block's shared memory");
  }
  for (const auto& w : mods) {
    static const std::set<std::string> known = {
        "async", "bulk", "reduce", "tensor", "prefetch", "L2", "shared::cluster", "shared::cta", "shared", "global",
        "mbarrier::complete_tx::bytes", "bulk_group", "multicast::cluster", "L2::cache_hint", "tile", "im2col",
        "add", "min", "max", "inc", "dec", "and", "or", "xor", "noftz", "1d", "2d", "3d", "4d", "5d"};
    if (!known.count(w) && typeFromName(w) == Type::None)
      fail(in.loc, fmt::format("unsupported modifier '.{}' on a bulk copy", w));
  }
  // An address operand as base slot + offset, in the given space.
  const auto addr = [&](const Operand& op, StateSpace space, BulkOp::Addr& a) {
    DecodedInst tmp;
    address(op, space, tmp, false);
    a.base = tmp.aux;
    a.offset = tmp.imm;
  };
  const auto coords = [&](const Operand& op) {
    if (op.kind != Operand::Kind::Address || op.elements.empty())
      failMalformed(op.loc, fmt::format("a {}-d tensor copy takes [tensor-map, {{{} coordinates}}]", b.rank, b.rank));
    DecodedInst tmp;
    Operand base = op;
    base.elements.clear();
    address(base, StateSpace::None, tmp, false);
    b.tmap.base = tmp.aux;
    b.tmap.offset = tmp.imm;
    // [param_name, {...}]: the parameter's generic address (sm/address_space.h's parameter window).
    b.tmap_param = !op.name.empty() && op.name[0] != '%';
    const Operand& v = op.elements.size() == 1 && op.elements[0].kind == Operand::Kind::Vector ? op.elements[0] : op;
    const auto& elems = &v == &op ? op.elements : v.elements;
    if (elems.size() != b.rank)
      failMalformed(op.loc, fmt::format("a {}-d tensor copy takes {} coordinates, found {}", b.rank, b.rank, elems.size()));
    for (std::size_t i = 0; i < elems.size(); ++i) b.coords[i] = source(elems[i], Type::S32);
  };
  const std::size_t extra = (cache_hint ? 1 : 0) + (b.multicast ? 1 : 0);
  std::size_t next = 0;
  if (b.kind == BulkOp::Kind::Prefetch) {
    if (b.tensor) {
      needForm(b.im2col ? 2 : 1, 2 + extra + (b.im2col ? 1 : 0));
      coords(ops[0]);
      next = 1;
    } else {
      needForm(2, 2 + extra);
      addr(ops[0], StateSpace::Global, b.src);
      b.size = source(ops[1], Type::U32);
      next = 2;
    }
  } else if (b.tensor) {
    if (b.dir == BulkOp::Dir::GlobalToShared) {
      needForm(b.im2col ? 4 : 3, 3 + extra + (b.im2col ? 1 : 0));
      addr(ops[0], StateSpace::Shared, b.dst);
      coords(ops[1]);
      addr(ops[2], StateSpace::Shared, b.mbar);
      next = 3;
    } else {
      if (b.dir != BulkOp::Dir::SharedToGlobal) failMalformed(in.loc, "a tensor copy moves between global and shared memory");
      needForm(2, 2 + extra);
      coords(ops[0]);
      addr(ops[1], StateSpace::Shared, b.src);
      next = 2;
    }
  } else {
    needForm(b.has_mbar ? 4 : 3, (b.has_mbar ? 4 : 3) + extra);
    addr(ops[0], b.dir == BulkOp::Dir::SharedToGlobal ? StateSpace::Global : StateSpace::Shared, b.dst);
    addr(ops[1], b.dir == BulkOp::Dir::GlobalToShared ? StateSpace::Global : StateSpace::Shared, b.src);
    b.size = source(ops[2], Type::U32);
    if (b.has_mbar) addr(ops[3], StateSpace::Shared, b.mbar);
    next = b.has_mbar ? 4 : 3;
  }
  if (b.im2col && (b.dir == BulkOp::Dir::GlobalToShared || b.kind == BulkOp::Kind::Prefetch)) {
    if (next >= ops.size() || ops[next].kind != Operand::Kind::Vector || ops[next].elements.size() != std::size_t(b.rank - 2))
      failMalformed(in.loc, fmt::format("a {}-d .im2col copy takes {} im2col offsets {{...}} after the mbarrier", b.rank, b.rank - 2));
    for (std::size_t i = 0; i < ops[next].elements.size(); ++i) b.im2col_offsets[i] = source(ops[next].elements[i], Type::U16);
    ++next;
  }
  if (b.multicast) {
    if (next >= ops.size()) failMalformed(in.loc, ".multicast::cluster needs a cta mask operand");
    b.cta_mask = source(ops[next++], Type::U16);
  }
  if (cache_hint && next >= ops.size()) failMalformed(in.loc, ".L2::cache_hint needs a cache-policy operand");
  out.op = Op::CpBulk;
  out.aux = kNoSlot;  // the operands are all in the BulkOp
  out.target = std::uint32_t(L_.program().bulk_ops.size());
  L_.program().bulk_ops.push_back(std::move(b));
  return true;
}

void FunctionDecoder::decodeCall(const Instruction& in, DecodedInst& out) {
  out.op = Op::Call;
  const auto& ops = in.operands;
  std::size_t i = 0;
  CallSite site;
  const Operand* rets = nullptr;
  const Operand* args = nullptr;
  // Operands: [(rets)] callee [, (args)] [, prototype]. A parenthesised list is a Vector; the
  // return list comes before the callee.
  if (i < ops.size() && ops[i].kind == Operand::Kind::Vector) rets = &ops[i++];
  if (i >= ops.size()) fail(in.loc, "call expects a function");
  const Operand& callee = ops[i++];
  if (i < ops.size() && ops[i].kind == Operand::Kind::Vector) args = &ops[i++];
  if (callee.kind == Operand::Kind::Symbol) {
    site.callee = L_.functionIndex(callee.name, callee.loc);
  } else if (callee.kind == Operand::Kind::Register) {
    site.callee = kNoSlot;
    site.callee_slot = regSlot(callee);
  } else {
    fail(callee.loc, "call expects a function name or a register holding a function address");
  }
  auto param_list = [&](const Operand* list, std::vector<std::uint32_t>& offs, std::vector<std::uint32_t>& sizes) {
    if (!list) return;
    for (const auto& e : list->elements) {
      std::uint32_t off, size;
      if (e.kind != Operand::Kind::Symbol && e.kind != Operand::Kind::Register)
        fail(e.loc, "call arguments must be .param variables");
      if (!lookupLocal(e.name, off, &size))
        fail(e.loc, fmt::format("call argument '{}' is not a .param variable in scope", e.name));
      offs.push_back(off);
      sizes.push_back(size);
    }
  };
  param_list(rets, site.ret_offsets, site.ret_sizes);
  param_list(args, site.arg_offsets, site.arg_sizes);
  if (site.callee != kNoSlot) {
    const DecodedFunction& f = L_.program().functions[site.callee];
    (void)f;
  }
  out.aux = std::uint32_t(L_.program().calls.size());
  out.target = site.callee;
  L_.program().calls.push_back(std::move(site));
}

// ---------------------------------------------------------------------------------------------
// Reconvergence: the immediate post-dominator of every branch, over the function's CFG.

void FunctionDecoder::computeReconvergence(std::uint32_t begin, std::uint32_t end) {
  auto& code = L_.program().code;
  const auto& tables = L_.program().branch_tables_flat;
  // Basic-block leaders.
  std::vector<bool> leader(end - begin + 1, false);
  leader[0] = true;
  auto is_terminator = [](const DecodedInst& d) {
    return d.op == Op::Bra || d.op == Op::BrxIdx || d.op == Op::Ret || d.op == Op::Exit || d.op == Op::Trap;
  };
  for (std::uint32_t pc = begin; pc < end; ++pc) {
    const DecodedInst& d = code[pc];
    if (d.op == Op::Bra) leader[d.target - begin] = true;
    if (d.op == Op::BrxIdx)
      for (std::uint32_t k = 0; k < d.aux; ++k) leader[tables[d.target + k] - begin] = true;
    if (is_terminator(d)) leader[pc + 1 - begin] = true;
  }
  std::vector<std::uint32_t> block_of(end - begin);
  std::vector<std::uint32_t> starts;
  for (std::uint32_t pc = begin; pc < end; ++pc) {
    if (leader[pc - begin]) starts.push_back(pc);
    block_of[pc - begin] = std::uint32_t(starts.size() - 1);
  }
  const std::size_t n = starts.size();
  const std::size_t exit_node = n;
  std::vector<std::vector<std::size_t>> succ(n + 1);
  for (std::size_t b = 0; b < n; ++b) {
    std::uint32_t last = (b + 1 < n ? starts[b + 1] : end) - 1;
    const DecodedInst& d = code[last];
    bool guarded = d.guard != kNoSlot;
    auto fallthrough = [&] { succ[b].push_back(last + 1 < end ? block_of[last + 1 - begin] : exit_node); };
    switch (d.op) {
      case Op::Bra:
        succ[b].push_back(block_of[d.target - begin]);
        if (guarded) fallthrough();
        break;
      case Op::BrxIdx:
        for (std::uint32_t k = 0; k < d.aux; ++k) succ[b].push_back(block_of[tables[d.target + k] - begin]);
        if (guarded) fallthrough();
        break;
      case Op::Ret: case Op::Exit: case Op::Trap:
        succ[b].push_back(exit_node);
        if (guarded) fallthrough();
        break;
      default:
        fallthrough();
    }
  }
  // Immediate post-dominators by Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast
  // Dominance Algorithm") on the reverse CFG rooted at the exit: memory linear in the blocks, where
  // a post-dominator set per block would be quadratic (a million branches, 10^12 bits).
  std::vector<std::vector<std::size_t>> pred(n + 1);
  for (std::size_t b = 0; b < n; ++b)
    for (auto s : succ[b]) pred[s].push_back(b);
  // Postorder of the reverse CFG from the exit, by an explicit stack (no recursion).
  constexpr std::size_t kUndef = ~std::size_t{0};
  std::vector<std::size_t> order(n + 1, kUndef), post;
  post.reserve(n + 1);
  {
    std::vector<bool> seen(n + 1, false);
    std::vector<std::pair<std::size_t, std::size_t>> stack{{exit_node, 0}};
    seen[exit_node] = true;
    while (!stack.empty()) {
      const std::size_t v = stack.back().first;
      const std::size_t i = stack.back().second;
      if (i < pred[v].size()) {
        stack.back().second++;
        const std::size_t u = pred[v][i];
        if (!seen[u]) {
          seen[u] = true;
          stack.emplace_back(u, 0);
        }
      } else {
        order[v] = post.size();
        post.push_back(v);
        stack.pop_back();
      }
    }
  }
  // Blocks with no path to the exit (endless loops) have no post-dominator here (kUndef).
  std::vector<std::size_t> ipdom(n + 1, kUndef);
  ipdom[exit_node] = exit_node;
  auto intersect = [&](std::size_t a, std::size_t b) {
    while (a != b) {
      while (order[a] < order[b]) a = ipdom[a];
      while (order[b] < order[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = post.size(); k-- > 0;) {
      const std::size_t b = post[k];
      if (b == exit_node) continue;
      std::size_t idom = kUndef;
      for (auto s : succ[b]) {
        if (ipdom[s] == kUndef) continue;
        idom = idom == kUndef ? s : intersect(s, idom);
      }
      if (ipdom[b] != idom) {
        ipdom[b] = idom;
        changed = true;
      }
    }
  }
  // Post-dominators of each block, itself and the exit included (the length of its ipdom chain).
  std::vector<std::size_t> chain(n + 1, 0);
  chain[exit_node] = 1;
  for (std::size_t k = post.size(); k-- > 0;)
    if (post[k] != exit_node) chain[post[k]] = chain[ipdom[post[k]]] + 1;
  // A block with no path to the exit is post-dominated by every block, as the fixed point over
  // post-dominator sets that this replaces had it; that computation then took the first block
  // whose own set was one smaller, n: kept so that every reconvergence point stays the same.
  std::size_t endless_target = kUndef;
  for (std::size_t c = 0; c <= n && endless_target == kUndef; ++c)
    if (order[c] != kUndef && chain[c] == n) endless_target = c;
  for (std::size_t b = 0; b < n; ++b) {
    std::uint32_t last = (b + 1 < n ? starts[b + 1] : end) - 1;
    DecodedInst& d = code[last];
    if (d.op != Op::Bra && d.op != Op::BrxIdx) continue;
    d.reconverge = 0xFFFFFFFFu;
    const std::size_t c = order[b] != kUndef ? ipdom[b] : endless_target;
    if (c != kUndef && c != exit_node) d.reconverge = starts[c];
  }
}

// =============================================================================================

namespace {

Program decodeWithIndex(const Module& module, const std::string& kernel_name, const DecodeEnv& env,
                        const ModuleIndex& index) {
  KernelLinker linker(module, env, index);
  Program p = linker.link(kernel_name);
  // Now every instruction has its final fields: pick handlers.
  for (std::size_t pc = 0; pc < p.code.size(); ++pc) {
    DecodedInst& d = p.code[pc];
    d.fn = env.select_handler ? env.select_handler(d) : nullptr;
    if (!d.fn) {
      // A decoded form without a handler: valid PTX the core lacks. The kernel is refused at
      // launch (with every such form listed); a trap stands in its place.
      p.unsupported.push_back({d.ptx_line, d.ptx_col, p.text[pc],
                               "unsupported instruction form (valid PTX, not yet implemented by the scgpu functional core)"});
      replaceWithTrap(d);
      d.fn = env.select_handler ? env.select_handler(d) : nullptr;
      if (!d.fn)
        throw ParseError(module.source_name, d.ptx_line, d.ptx_col,
                         fmt::format("unsupported instruction form '{}'", p.text[pc]));
    }
  }
  return p;
}

}  // namespace

Program decodeKernel(const Module& module, const std::string& kernel_name, const DecodeEnv& env) {
  return decodeWithIndex(module, kernel_name, env, ModuleIndex(module));
}

std::vector<Program> decodeKernels(const Module& module, const DecodeEnv& env, const Limits& limits) {
  const ModuleIndex index(module);
  std::vector<Program> out;
  std::uint64_t instructions = 0;
  for (const auto& f : module.functions) {
    if (!f.is_entry || !f.has_body) continue;
    out.push_back(decodeWithIndex(module, f.name, env, index));
    // Each kernel is linked with every function it calls: many kernels calling one large function
    // multiply it, so the decoded forms are bounded like the text.
    instructions += out.back().code.size();
    if (instructions > limits.statements)
      throw ParseError(module.source_name, f.loc.line, f.loc.col,
                       limitText("the number of instructions decoded for the module's kernels (each kernel with "
                                 "every function it calls)",
                                 instructions, "ptx_statements", limits.statements));
  }
  return out;
}

std::vector<GlobalLayout> moduleGlobals(const Module& module) {
  std::vector<GlobalLayout> out;
  for (const auto& g : module.globals) {
    if (g.space != StateSpace::Global && g.space != StateSpace::Const) continue;
    if (g.is_extern) continue;
    GlobalLayout l;
    l.name = g.name;
    l.space = g.space;
    l.size = declBytesOrFail(g, module.source_name);
    l.align = declAlign(g);
    l.decl = &g;
    out.push_back(l);
  }
  return out;
}

std::vector<std::uint8_t> initializerBytes(const VarDecl& decl, std::uint64_t size, const DecodeEnv& env,
                                           const std::string& file) {
  const std::uint32_t elem = sizeOf(decl.type);
  // The parser checked the count against the shape; the size bounds it again.
  const std::uint64_t initialized = std::min<std::uint64_t>(size, std::uint64_t(decl.init.size()) * elem);
  std::vector<std::uint8_t> bytes(initialized, 0);
  std::uint64_t pos = 0;
  for (const auto& e : decl.init) {
    if (pos + elem > size) throw ParseError(file, decl.loc.line, decl.loc.col, "initializer has more elements than the variable");
    std::uint64_t bits = e.bits;
    if (e.kind == InitElement::Kind::SymbolAddress) {
      std::uint64_t addr = 0;
      if (!env.symbol_address || !env.symbol_address(e.symbol, addr))
        throw ParseError(file, decl.loc.line, decl.loc.col, fmt::format("initializer names unknown symbol '{}'", e.symbol));
      bits = addr + std::uint64_t(e.offset);
    }
    std::memcpy(bytes.data() + pos, &bits, std::min<std::uint64_t>(elem, 8));
    pos += elem;
  }
  return bytes;
}

std::vector<std::uint8_t> initialBytes(const VarDecl& decl, std::uint64_t size, const DecodeEnv& env,
                                       const std::string& file) {
  std::vector<std::uint8_t> bytes = initializerBytes(decl, size, env, file);
  bytes.resize(size, 0);
  return bytes;
}

}  // namespace scgpu::ptx
