// The executable form of a kernel: every instruction decoded once at module load into a fixed-size
// record whose operands are register slots, so executing it needs no string, map or operand-kind
// test. Immediates and symbol addresses become constant slots filled when a frame is created, and
// special registers that do not change during a frame (%tid, %ctaid, ...) become initialised slots.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ptx/ir.h"

namespace scgpu::sm { struct ExecContext; }

namespace scgpu::ptx {

struct DecodedInst;
// The functional semantics of one instruction for one warp; chosen once at decode time.
using ExecFn = void (*)(sm::ExecContext&, const DecodedInst&);

enum class Op : std::uint8_t {
  // integer and bit
  Add, Sub, Mul, Mad, Mul24, Mad24, Sad, Div, Rem, Abs, Neg, Min, Max,
  Popc, Clz, Bfind, Brev, Bfe, Bfi, Prmt, Lop3, Shf, Shl, Shr, And, Or, Xor, Not, Cnot,
  Dp4a, Dp2a, Fns,
  // floating point only
  Fma, Rcp, Sqrt, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh, Copysign, Testp,
  // comparison and selection
  Setp, Set, Selp, Slct,
  // data movement and conversion
  Mov, Cvt, CvtPack, Cvta, Isspacep,
  // memory
  Ld, St, Atom, Red, Prefetch, Fence,
  // control
  Bra, BrxIdx, Call, Ret, Exit, Trap, Brkpt, Bar, Nanosleep,
  // thread-block clusters: barrier.cluster.arrive (sub BarArrive) / .wait (BarSync), mapa, getctarank
  BarCluster, Mapa, Getctarank,
  // warp-wide
  Shfl, Vote, Match, Redux, Activemask,
  // matrix (tensor-core) instructions; the operands are in Program::tensor_ops[target]
  Mma, Wmma, Ldmatrix, Stmatrix, Movmatrix,
  // asynchronous copies global -> shared (cp.async), cp.async.commit_group, cp.async.wait_group/_all
  CpAsync, CpAsyncCommit, CpAsyncWait,
  // mbarrier.* (sub says which); the barrier object's address in aux/imm
  Mbarrier,
  // bulk asynchronous copies (cp.async.bulk[.tensor], cp.reduce.async.bulk[.tensor], their L2
  // prefetches; operands in Program::bulk_ops[target]), cp.async.bulk.commit_group, .wait_group[.read]
  CpBulk, CpBulkCommit, CpBulkWait,
  // wgmma (sm_90a warpgroup MMA, sm/exec/wgmma.cpp): mma_async (operands in Program::tensor_ops), fence, commit_group, wait_group N (imm)
  Wgmma, WgmmaFence, WgmmaCommit, WgmmaWait,
  // texture and surface objects (sm/exec/texture.cpp); operands in Program::tensor_ops[target], form in imm
  Tex, Tld4, Txq, Suld, Sust, Suq,
  // what scheduleLikePtxas leaves of a branch it if-converted: nothing to do (no PTX of its own)
  Nop,
  Count
};
const char* toString(Op op);

// Rounding modifiers (.rn .rz .rm .rp and the integer .rni .rzi .rmi .rpi).
enum class Round : std::uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi, Rna };

enum class Cmp : std::uint8_t {
  None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan
};

// Sub-operation for atom/red/redux/shfl/vote/bar/testp/setp combine, by op.
enum class SubOp : std::uint8_t {
  None,
  // atom, red, redux
  AAdd, AMin, AMax, AInc, ADec, AAnd, AOr, AXor, AExch, ACas,
  // shfl
  ShflUp, ShflDown, ShflBfly, ShflIdx,
  // vote
  VoteAll, VoteAny, VoteUni, VoteBallot,
  // setp combine (setp.lt.and)
  BoolAnd, BoolOr, BoolXor,
  // bar
  BarSync, BarArrive, BarRed,
  // testp
  TestFinite, TestInfinite, TestNumber, TestNotANumber, TestNormal, TestSubnormal,
  // match
  MatchAny, MatchAll,
  // mbarrier
  MbarInit, MbarArrive, MbarArriveDrop, MbarExpectTx, MbarCompleteTx, MbarTestWait, MbarTryWait, MbarInval,
  MbarPendingCount,
};

// Memory space of a decoded access, after symbol resolution.
enum class Space : std::uint8_t {
  None, Global, Shared, Local, KernelParam, Const, Generic,
};

// Flags: one bit each.
enum InstFlag : std::uint32_t {
  kFtz = 1u << 0, kSat = 1u << 1, kApprox = 1u << 2, kFull = 1u << 3,
  kHi = 1u << 4, kLo = 1u << 5, kWide = 1u << 6,
  kCcOut = 1u << 7,   // .cc: writes the carry flag
  kCcIn = 1u << 8,    // addc/subc/madc: reads the carry flag
  kVolatile = 1u << 9, kNc = 1u << 10, kUni = 1u << 11,
  kClamp = 1u << 12,  // shf.clamp / shfl clamp semantics
  kLeft = 1u << 13,   // shf.l
  kShiftAmountIsB32 = 1u << 14,
  kNegPredSrc = 1u << 15,  // predicate source operand 2 negated (and.pred p, q, !r)
  kNegPredSrc0 = 1u << 16,
  kNegPredSrc1 = 1u << 17,
  kRelu = 1u << 18, kNaN = 1u << 19,   // min/max .NaN, cvt .relu
  kAligned = 1u << 20,    // bar.sync / barrier.sync.aligned
  kHasCount = 1u << 21,   // bar with a thread count operand
  kDualPred = 1u << 22,   // setp p|q
  kHasMask = 1u << 23,    // shfl/vote/... with member mask operand
  kSignedShr = 1u << 24,
  kModeF4e = 1u << 25,    // prmt modes
  kL1Bypass = 1u << 26,   // ld.cg / ld.cv: cached in L2 only, not in the L1
  kMbarExpectTx = 1u << 27,  // mbarrier.arrive.expect_tx: src[0] is the transaction count
  kMbarParity = 1u << 28,    // mbarrier.test_wait/try_wait.parity: src[0] is a phase parity, not a state
  // An instruction of a short forward branch's body that scheduleLikePtxas predicated, as ptxas
  // if-converts such branches: it counts as executed for the lanes its guard selects only, as the
  // branch would have let through (so the counts stay those of the PTX).
  kPredicatedBody = 1u << 29,
  // ld/st of a device function's .param space or of a call's parameters (a callseq's .param
  // variables): frame memory here, registers in SASS's calling convention (ptxas passes
  // arguments and results in registers), so the timing model counts them as register moves.
  kParamSpace = 1u << 30,
};

constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

struct DecodedInst {
  ExecFn fn = nullptr;
  Op op = Op::Count;
  Type type = Type::None;       // the instruction type (.s32, .f32, ...); for cvt the destination
  Type type2 = Type::None;      // second type (cvt source, setp/set source, ld/st element for vectors)
  Round round = Round::None;
  Cmp cmp = Cmp::None;
  SubOp sub = SubOp::None;
  Space space = Space::None;
  std::uint8_t vec = 1;         // vector width of ld/st/mov, 1..4(8)
  std::uint8_t ndst = 0, nsrc = 0;
  std::uint32_t flags = 0;
  // Guard predicate slot (kNoSlot when unconditional) and its sense.
  std::uint32_t guard = kNoSlot;
  bool guard_negated = false;
  std::uint16_t ptx_col = 0;    // (here, where it packs beside guard_negated)
  // Destination and source slots. Register slots index the frame's register file; predicate
  // operands index the frame's predicate file. ld/st vectors use dst/src 0..vec-1.
  std::uint32_t dst[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  std::uint32_t src[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  std::int64_t imm = 0;         // address offset for ld/st/atom; misc constants
  std::uint32_t target = 0;     // branch target PC; call: callee function index
  std::uint32_t reconverge = 0; // immediate post-dominator PC of a branch
  std::uint32_t aux = 0;        // prmt mode, lop3 immLut, bar id slot etc.
  // Where it came from.
  std::uint32_t ptx_line = 0;   // and ptx_col above
  std::uint32_t debug_file = 0; // the .file index of the .loc (any 32-bit index)
  std::uint32_t debug_line = 0;
};

// Element types of matrix instructions (PTX types plus the sub-byte ones, which have no Type).
enum class MatElem : std::uint8_t { None, F16, BF16, TF32, F32, F64, E4M3, E5M2, S8, U8, S4, U4, B1, S32 };
// Bits of one element (inline: matrix instructions ask it per element).
inline std::uint32_t bitsOf(MatElem e) {
  switch (e) {
    case MatElem::F16: case MatElem::BF16: return 16;
    case MatElem::TF32: case MatElem::F32: case MatElem::S32: return 32;
    case MatElem::F64: return 64;
    case MatElem::E4M3: case MatElem::E5M2: case MatElem::S8: case MatElem::U8: return 8;
    case MatElem::S4: case MatElem::U4: return 4;
    case MatElem::B1: return 1;
    default: return 0;
  }
}
// Elements of type e in one register slot: one f64, else 32 bits' worth (2 f16, 4 s8, 32 b1).
inline std::uint32_t elementsPerSlot(MatElem e) { return e == MatElem::F64 ? 1 : 32 / bitsOf(e); }
// Register slots of a fragment of `elems` elements of type e per lane.
inline std::uint32_t fragmentSlots(std::uint32_t elems, MatElem e) {
  const std::uint32_t per = elementsPerSlot(e);
  return (elems + per - 1) / per;
}

// The operands of one matrix instruction (mma.sync, wmma.*, ldmatrix, stmatrix, movmatrix): more
// registers than DecodedInst holds, so they live beside the code (Program::tensor_ops, indexed by
// DecodedInst::target). Each list holds register slots in operand order; an f64 element takes a
// whole 64-bit slot, narrower ones are packed 32 bits per slot (two f16, four s8, ...).
struct TensorOp {
  enum class Kind : std::uint8_t { Mma, WmmaLoad, WmmaStore, WmmaMma, Ldmatrix, Stmatrix, Movmatrix, Wgmma,
                                   Texture };  // Texture: tex/tld4/txq/suld/sust/suq (ptx/texture_decode.h)
  Kind kind = Kind::Mma;
  std::uint16_t m = 0, n = 0, k = 0;
  MatElem a = MatElem::None, b = MatElem::None, c = MatElem::None, d = MatElem::None;
  bool a_row = true, b_row = false;  // mma.sync is always .row.col; wmma names its layouts
  bool satfinite = false;
  bool b1_and = false;               // .and.popc (else .xor.popc) for .b1
  // wmma.load/store: which matrix ('a', 'b', 'c', 'd'), its layout in memory (row-major?), and
  // the stride register (kNoSlot: the matrix's own width). ldmatrix/stmatrix: .x1/.x2/.x4 and .trans.
  char which = 0;
  bool mem_row = true;
  std::uint32_t stride = 0xFFFFFFFFu;
  std::uint8_t count = 1;
  bool trans = false;
  std::vector<std::uint32_t> dst, src_a, src_b, src_c;  // register slots
  // wgmma.mma_async (m = 64): dst is D (also its accumulator input), src_a A's four registers or
  // its descriptor (a_desc), src_b B's descriptor; scale_d a predicate slot (D = A*B where false);
  // imm-scale-a/b of -1 negate A/B; imm-trans-a/b read A/B MN-major (a_row false / b_row true).
  bool a_desc = false, neg_a = false, neg_b = false;
  std::uint32_t scale_d = 0xFFFFFFFFu;
  // The matrix a wmma.load/store moves: A is m x k, B k x n, C and D m x n.
  std::uint32_t rows() const { return which == 'b' ? k : m; }
  std::uint32_t cols() const { return which == 'a' ? k : n; }
};

// A bulk asynchronous copy (Op::CpBulk): the copy engine (TMA) moves `size` bytes, or a box of a
// tensor described by a tensor map (sm/tensor_map.h), between global and shared memory, or
// between shared memories of a cluster; completion is signalled to an mbarrier (complete_tx) or
// counted in the thread's bulk async-group. An address is a base register slot (kNoSlot: none)
// plus a byte offset.
struct BulkOp {
  enum class Kind : std::uint8_t { Copy, Reduce, Prefetch };
  enum class Dir : std::uint8_t { GlobalToShared, SharedToGlobal, SharedToCluster, GlobalToL2 };
  struct Addr {
    std::uint32_t base = 0xFFFFFFFFu;
    std::int64_t offset = 0;
  };
  Kind kind = Kind::Copy;
  Dir dir = Dir::GlobalToShared;
  bool tensor = false;      // .tensor: a box of a tensor map, else `size` contiguous bytes
  bool im2col = false;      // .im2col load mode (else .tile)
  bool multicast = false;   // .multicast::cluster: to the blocks of cta_mask
  std::uint8_t rank = 0;    // tensor: .1d .. .5d
  SubOp red = SubOp::None;  // reduce: add/min/max/inc/dec/and/or/xor
  Type red_type = Type::None;
  Addr dst, src, mbar;      // mbar.base == kNoSlot and mbar.offset == -1: a bulk_group completion
  bool has_mbar = false;
  Addr tmap;                // tensor: the tensor map's generic (or .param) address
  bool tmap_param = false;  // the tensor map operand names a kernel parameter directly
  std::uint32_t size = 0xFFFFFFFFu;  // register/constant slot of the byte count (not tensor)
  std::uint32_t coords[5] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::uint32_t im2col_offsets[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::uint32_t cta_mask = 0xFFFFFFFFu;  // multicast: slot of the 16-bit mask
  // Register slots it reads (for the scoreboard and the scheduling passes).
  std::vector<std::uint32_t> reads() const {
    std::vector<std::uint32_t> r;
    for (std::uint32_t s : {dst.base, src.base, mbar.base, tmap.base, size, cta_mask}) if (s != 0xFFFFFFFFu) r.push_back(s);
    for (std::uint32_t s : coords) if (s != 0xFFFFFFFFu) r.push_back(s);
    for (std::uint32_t s : im2col_offsets) if (s != 0xFFFFFFFFu) r.push_back(s);
    return r;
  }
};

// Texture and surface instructions: their operands are in Program::tensor_ops too (Kind::Texture:
// dst = destinations, src_a = the handle, src_b = coordinates, src_c = lod/gradients or sust's values).
inline bool isTextureOp(Op op) { return op >= Op::Tex && op <= Op::Suq; }
// The instructions whose operands are in Program::tensor_ops.
inline bool isMatrixOp(Op op) {
  return op == Op::Mma || op == Op::Wmma || op == Op::Ldmatrix || op == Op::Stmatrix || op == Op::Movmatrix ||
         isTextureOp(op);
}

// A special register that a frame initialises once per thread.
enum class SpecialReg : std::uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, SmId, NSmId, GridId, LanemaskEq, LanemaskLe, LanemaskLt, LanemaskGe,
  LanemaskGt, DynamicSmemSize, TotalSmemSize,
  ExternSharedBase,  // offset of `extern .shared` arrays: the end of static shared memory, aligned
  // Thread-block clusters. A launch without cluster dimensions runs every block as a cluster of
  // one (PTX ISA: an implicit 1x1x1 cluster).
  ClusterCtarank, ClusterNctarank, ClusterCtaidX, ClusterCtaidY, ClusterCtaidZ, ClusterNctaidX,
  ClusterNctaidY, ClusterNctaidZ, ClusteridX, ClusteridY, ClusteridZ, NclusteridX, NclusteridY,
  NclusteridZ,
  // %envreg0..31: values the driver sets for a launch (LaunchState::envreg): %envreg1 and %envreg2
  // hold a cooperative launch's grid synchronisation address; the others read 0.
  EnvReg,
  // dynamic: read when the instruction executes
  Clock, Clock64, GlobalTimer, GlobalTimerLo,
};

struct SlotInit {
  enum class Kind : std::uint8_t { Constant, Special, LocalAddress, PredicateTrue } kind;
  std::uint32_t slot;       // register slot, or predicate slot for PredicateTrue
  std::uint64_t value;      // Constant bits; Special: specialInitValue; LocalAddress: offset in frame
};

// A Special SlotInit's value: the SpecialReg in bits 7:0 and, for %envregN, N above them.
inline std::uint64_t specialInitValue(SpecialReg r, std::uint32_t index = 0) {
  return std::uint64_t(r) | std::uint64_t(index) << 8;
}
inline SpecialReg specialOf(std::uint64_t init_value) { return SpecialReg(init_value & 0xFF); }
inline std::uint32_t specialIndexOf(std::uint64_t init_value) { return std::uint32_t(init_value >> 8); }

// One function in linked, decoded form. Functions of a kernel's program share one PC space.
struct DecodedFunction {
  std::string name;
  bool is_entry = false;
  std::uint32_t entry_pc = 0, end_pc = 0;
  std::uint32_t num_regs = 0;        // register slots (64-bit) per thread, constants included
  std::uint32_t num_preds = 0;       // predicate slots
  std::uint32_t local_frame_bytes = 0;  // .local and .param storage per thread per frame
  std::vector<SlotInit> inits;        // constants and specials set when a frame is created
  // Formal parameters and return values of a .func: offsets of their storage in the frame.
  std::vector<std::uint32_t> param_offsets, param_sizes, return_offsets, return_sizes;
  // Built-in callee handled by the runtime instead of by code (vprintf, __assertfail, malloc).
  enum class Builtin : std::uint8_t { None, Vprintf, AssertFail, Malloc, Free } builtin = Builtin::None;
};

// Which registers a call passes: offsets of the caller's argument and return .param storage.
struct CallSite {
  std::uint32_t callee = 0;          // function index in Program::functions; kNoSlot = indirect
  std::uint32_t callee_slot = kNoSlot;  // register slot holding a function address (indirect)
  std::vector<std::uint32_t> arg_offsets, arg_sizes, ret_offsets, ret_sizes;
};

// A kernel with every function it can reach, linked into one instruction array.
struct Program {
  std::string kernel_name;
  std::string module_name;
  std::vector<DecodedInst> code;
  std::vector<DecodedFunction> functions;   // [0] is the kernel
  std::vector<CallSite> calls;              // indexed by DecodedInst::aux of Op::Call
  // .file index -> name (debug lines); one map shared by the kernels of a module.
  std::shared_ptr<const std::map<std::uint32_t, std::string>> files;
  std::vector<std::uint32_t> branch_tables_flat;  // brx.idx target PCs
  // Kernel parameters: offset and size in the parameter buffer, in PTX order.
  struct Param { std::string name; std::uint32_t offset, size, align; };
  std::vector<Param> params;
  std::uint32_t param_buffer_bytes = 0;
  std::uint32_t static_shared_bytes = 0;
  std::uint32_t dynamic_shared_align = 16;
  std::uint32_t reqntid[3] = {0, 0, 0};
  std::uint32_t maxntid[3] = {0, 0, 0};
  std::uint32_t reqnctapercluster[3] = {0, 0, 0};  // 0: not given
  std::uint32_t maxclusterrank = 0;
  std::uint32_t maxnreg = 0, minnctapersm = 0;
  // Registers per thread as ptxas would allocate (from regs.json when known, else an estimate).
  std::uint32_t registers_per_thread = 0;

  // Source location of a PC, for fault reports: "file.ptx:123" and "kernel.cu:45".
  std::string ptxLocation(std::uint32_t pc) const;
  std::string sourceLocation(std::uint32_t pc) const;
  // The PTX text of the instruction at a PC (for reports), kept from the parse.
  std::vector<std::string> text;
  // Valid PTX that scgpu does not implement, in this kernel or a function it calls (each one a
  // trap placeholder in `code`). The module still loads; a launch of this kernel is refused
  // with the list (driver::setupLaunch).
  struct Unsupported {
    std::uint32_t line = 0, col = 0;
    std::string text;    // the instruction's opcode and modifiers
    std::string reason;  // what is missing
  };
  std::vector<Unsupported> unsupported;
  std::vector<TensorOp> tensor_ops;  // matrix instructions' operands (DecodedInst::target)
  std::vector<BulkOp> bulk_ops;      // bulk copies' operands (Op::CpBulk, DecodedInst::target)
};

}  // namespace scgpu::ptx
