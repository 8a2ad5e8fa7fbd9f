// What the timing model needs to know about a decoded instruction, computed once per program:
// which pipeline executes it, what kind of dependency its results create, and which of its
// operand slots are predicates, register reads and register writes. Semantics stay in sm/exec.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/decoded.h"
#include "sm/sm_params.h"

namespace scgpu::sm::timing {

// Execution pipelines of a sub-core (SmParams::pipe_*). Lsu is the dispatch port to the SM's LSU.
// Uniform: the uniform datapath of Turing and later (sm.uniform_datapath), which computes warp-
// uniform integer values in uniform registers beside the vector pipes.
enum class Pipe : std::uint8_t { Int, Fp32, Fp64, Sfu, Lsu, Branch, Tensor, Uniform, Count };
const char* toString(Pipe p);

// What a pending register waits for; it decides the stall reason of a dependent instruction.
enum class DepKind : std::uint8_t {
  None,
  Wait,   // fixed-latency pipeline result (Nsight "wait")
  Short,  // MIO result: shared memory, constant/parameter loads, SFU (Nsight "short_scoreboard")
  Long,   // L1TEX result: global and local memory (Nsight "long_scoreboard")
};

enum InstInfoFlag : std::uint16_t {
  kReadsAux = 1u << 0,   // `aux` is a register slot read (address base of ld/st/atom, carry in)
  kWritesAux = 1u << 1,  // `aux` is a register slot written (carry out)
  kControl = 1u << 2,    // changes the PC: the warp waits pipe_branch latency (branch_resolving)
  kMemory = 1u << 3,     // goes to the LSU
  // An atom whose result no instruction of its function reads: it issues as a reduction (red),
  // as ptxas compiles it (ATOM to RED), so nothing waits for its response.
  kResultUnused = 1u << 4,
  // ptxas's instruction selection (sm.fuse_like_ptxas): this integer add/sub/logic op and the
  // one before it, whose result only it reads, become one SASS instruction (IADD3, LOP3, LEA,
  // IMAD, IMAD.WIDE). It takes no issue slot and no pipe; its result is ready with the other's.
  kFused = 1u << 5,
  // A copy or a constant (mov of a register or an immediate/address, cvta) that SASS does not
  // need (register coalescing, immediate operands): no issue slot, no pipe, no latency.
  kFree = 1u << 6,
  // A 32-bit integer add/min/max/and/or/xor atomic on an address ptxas can prove the same for every
  // thread of a warp (kernel parameters, constants and block-wide special registers only): ptxas
  // sums the warp's values with REDUX and one lane sends the update, one L2 request a warp (H100:
  // validation/micro global_atomic_same_int_var; lanes that only happen to share an address leave
  // as passes, global_atomic_same_int).
  kUniformAtomic = 1u << 7,
  // An integer-pipe instruction whose sources are all warp-uniform (kernel parameters, constants,
  // block-wide special registers, uniform loop counters): with a uniform datapath
  // (sm.uniform_datapath) ptxas computes it in uniform registers (UIADD3, ULOP3, ...): it takes an
  // issue slot but not the vector integer pipe.
  kUniformOp = 1u << 8,
  // An add whose result only ever addresses shared memory, its other operand an immediate
  // (kAddressFoldImm) or a warp-uniform register (kAddressFoldUniform): SASS folds it into the
  // address ([R+imm], [R+UR+imm] on a uniform datapath), so it takes no issue slot.
  kAddressFoldImm = 1u << 9,
  kAddressFoldUniform = 1u << 10,
  // A plain 32-bit integer add or subtract: besides the integer pipe, ptxas can put it on the FMA
  // pipe as IMAD.IADD / VIADD (sm.imad_on_fp32_pipe), whichever the schedule leaves free.
  kIntAddFlex = 1u << 11,
};

// What a 64-bit integer ALU instruction becomes in SASS, whose integer datapath is 32 bits wide
// (sm.int64_*_issue_cycles): None (not one, or one instruction: a logic op with an immediate
// operand is one LOP3 on the half that changes), Pair (add/sub/logic/shift/compare/select/neg:
// one instruction per half, IADD3 + IADD3.X, SHF.L + SHF.L.HI, ISETP + ISETP.EX, ...), Mul
// (mul.lo/mad.lo: IMAD.WIDE.U32 and the two cross products) or MinMax (two compares, two selects).
enum class Int64Form : std::uint8_t { None, Pair, Mul, MinMax };

struct InstInfo {
  // Scalar 32-bit shared loads that ptxas merges into one 64- or 128-bit load (same base register,
  // consecutive offsets, one basic block, nothing in between touching their registers): on the
  // first (lowest offset) load of a group, the group's size (2 or 4) and the other loads' pc
  // distances; the merge happens when the lanes' addresses are aligned to the group's bytes.
  std::uint8_t merge_n = 0;
  std::uint8_t merge_delta[3] = {};
  std::uint32_t fused_src = 0;  // kFused: the source slot the instruction before it writes
  Pipe pipe = Pipe::Int;
  DepKind result = DepKind::Wait;  // dependency kind of fixed-pipe results
  std::uint8_t pred_src = 0;   // bit i: src[i] is a predicate slot
  std::uint8_t pred_dst = 0;   // bit i: dst[i] is a predicate slot
  std::uint8_t const_src = 0;  // bit i: src[i] is a constant slot (immediate): no register-file read
  // f64 arithmetic outside a loop: its immediate operands whose low 32 bits are not zero, which
  // SASS cannot encode (sm.f64_immediate_issue_cycles).
  std::uint8_t wide_imm = 0;
  Int64Form int64 = Int64Form::None;
  std::uint16_t flags = 0;
  // An LSU instruction of the local/global (LG) queue: a full LSU queue stalls it as lg_throttle
  // rather than mio_throttle (lgQueue()).
  bool lg = false;
};

// Whether an LSU instruction goes to the L1's local/global queue (Nsight's lg_throttle): loads,
// stores, atomics and wmma.load/store of global, local or generic memory (generic addresses are
// global far more often than shared), and cp.async, which reads global memory. Shared, constant
// and parameter accesses, ldmatrix/stmatrix, texture and bulk (TMA) copies are the MIO's.
bool lgQueue(const ptx::DecodedInst& in);

// The SASS sequence ptxas expands this instruction into, when it is one of those the config times
// as a sequence (sm.sequences, SequenceParams); Sequence::None otherwise.
Sequence sequenceOf(const ptx::DecodedInst& in);

InstInfo classify(const ptx::Program& program, std::uint32_t pc, const std::vector<std::uint8_t>& const_slots);
std::vector<InstInfo> classifyProgram(const ptx::Program& program);

// Operand slots of one instruction, frame-relative, without kNoSlot entries. Register reads
// exclude constant slots (they are never written and cost no bank read).
// Register operands an instruction can have at most: an mma's fragments (wmma.mma: 8 + 8 + 8
// sources, 8 destinations) and a load's merged group.
constexpr int kMaxRegSrc = 40;
constexpr int kMaxRegDst = 16;
struct Operands {
  std::uint32_t reg_src[kMaxRegSrc];
  std::uint32_t reg_dst[kMaxRegDst];
  std::uint32_t pred_src[6];
  std::uint32_t pred_dst[2];
  std::uint8_t n_reg_src = 0, n_reg_dst = 0, n_pred_src = 0, n_pred_dst = 0;
};
void operands(const ptx::Program& program, const ptx::DecodedInst& in, const InstInfo& info, Operands& out);

// Per function of the program: the registers ptxas's calling convention makes it save in its
// frame (STL in its prologue, LDL before its return) because it calls: the return address (two)
// and the values live across one of its calls (a register written before a call and read after
// it, in code order). 0 for a function that calls nothing (a leaf keeps everything in registers)
// and for the kernel.
std::vector<std::uint32_t> savedRegistersPerFunction(const ptx::Program& program, const std::vector<InstInfo>& info);

}  // namespace scgpu::sm::timing
