// Parameters of a streaming multiprocessor, filled from YAML by tlm/gpu_params.cpp. Field names
// are the YAML keys; units are in the names.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "memsys/memsys_params.h"

namespace scgpu {

// One execution pipeline class of a sub-core.
struct PipeParams {
  std::uint32_t latency_cycles = 4;              // issue to result available
  std::uint32_t initiation_interval_cycles = 1;  // cycles before the pipe takes the next warp instruction
};

// A PTX instruction that ptxas expands into a sequence of SASS instructions: the IEEE-rounded
// division, reciprocal and square root, and the MUFU approximations without .ftz (which scale
// denormal inputs around the MUFU). The sequence takes issue_cycles of its sub-core's issue slots
// (no other warp issues there meanwhile), holds its pipe (the SFU for f32, FP64 for f64, the integer pipe for integer division) for
// pipe_cycles, and has its result latency_cycles after issue. All zero: a single instruction on
// its pipe, as before these were measured.
struct SequenceParams {
  std::uint32_t issue_cycles = 0, pipe_cycles = 0, latency_cycles = 0;
};
enum class Sequence : std::uint8_t {
  RsqrtApproxF32, Ex2ApproxF32, DivApproxF32, SqrtRnF32, DivRnF32, RcpRnF32,
  DivRnF64, SqrtRnF64, RcpRnF64, RsqrtApproxF64,
  IntDiv32, IntDiv64,  // integer div/rem by a run-time divisor (64 bits: a called subroutine)
  Count, None = Count,
};
// The config key of each (sm.sequences.<name>), in the order of Sequence.
inline constexpr const char* kSequenceNames[] = {
    "rsqrt_approx_f32", "ex2_approx_f32", "div_approx_f32", "sqrt_rn_f32", "div_rn_f32", "rcp_rn_f32",
    "div_rn_f64",       "sqrt_rn_f64",    "rcp_rn_f64",     "rsqrt_approx_f64", "int_div32", "int_div64"};

struct SmParams {
  std::uint32_t count = 2;
  std::uint32_t sub_cores = 4;                   // processing blocks, one warp scheduler each
  std::uint32_t max_threads_per_sm = 2048;
  std::uint32_t max_warps_per_sm = 64;
  std::uint32_t max_blocks_per_sm = 32;
  std::uint32_t max_threads_per_block = 1024;
  std::uint32_t registers_per_sm = 65536;
  std::uint32_t max_registers_per_block = 65536;
  std::uint32_t max_registers_per_thread = 255;
  std::uint32_t register_allocation_unit_size = 256;  // registers, per warp
  std::uint64_t shared_memory_per_sm_bytes = 233472;
  std::uint64_t shared_memory_per_block_bytes = 49152;
  std::uint64_t shared_memory_per_block_optin_bytes = 232448;
  std::uint32_t shared_memory_allocation_unit_bytes = 128;
  std::uint32_t reserved_shared_memory_per_block_bytes = 1024;  // the CUDA runtime's per-block reserve (cc >= 8.0)
  std::uint32_t block_launch_latency_cycles = 8;

  // Warp scheduling, one scheduler per sub-core.
  std::string scheduler_policy = "gto";          // lrr | gto | two_level
  std::uint32_t scheduler_issue_per_cycle = 1;
  std::uint32_t two_level_active_warps = 8;      // two_level: size of the active set

  // Which implementation of each carved-out block runs: "model" (C++), "rtl" (the Verilated
  // SystemVerilog in rtl/) or "cosim" (both, compared on every transaction).
  std::string coalescer_impl = "model";
  std::string scheduler_impl = "model";
  // Per-instance choices (`sm[3].coalescer.impl`, `sm[3].scheduler.impl`: SM 3's coalescer, all of
  // SM 3's schedulers), by SM index; an SM not in a map takes the block kind's impl above.
  std::map<std::uint32_t, std::string> coalescer_impl_of, scheduler_impl_of;
  const std::string& coalescerImpl(std::uint32_t sm) const {
    auto it = coalescer_impl_of.find(sm);
    return it == coalescer_impl_of.end() ? coalescer_impl : it->second;
  }
  const std::string& schedulerImpl(std::uint32_t sm) const {
    auto it = scheduler_impl_of.find(sm);
    return it == scheduler_impl_of.end() ? scheduler_impl : it->second;
  }

  // Instruction supply.
  CacheParams icache;                            // hit_latency_cycles, miss latency below
  std::uint32_t icache_miss_latency_cycles = 20;
  // Sequential instruction prefetch: a fetch from a line brings in the whole line and starts
  // fills of the next icache_prefetch_lines lines not yet present (0: only the sectors fetched).
  std::uint32_t icache_prefetch_lines = 0;
  std::uint32_t instruction_bytes = 16;          // one decoded instruction's footprint in the icache
  std::uint32_t instruction_buffer_entries = 2;  // per warp

  // Register file and operand collection.
  std::uint32_t register_banks = 2;              // per sub-core
  std::uint32_t operand_collectors = 2;          // per sub-core
  // Operand reuse cache (Maxwell and later): a source register that the same warp's previous
  // instruction also read is not read from its bank again, so it adds no bank conflict.
  bool operand_reuse = false;
  // Time instructions as ptxas compiles them: integer op pairs it fuses (IADD3, LOP3, LEA, IMAD)
  // and copies and constants it folds away issue free (InstInfo kFused, kFree).
  bool fuse_like_ptxas = false;
  // A uniform datapath (Turing and later): integer instructions on warp-uniform values issue to
  // pipe_uniform instead of pipe_int, and adds of a uniform value into a shared-memory address fold
  // into the address (InstInfo kUniformOp, kAddressFoldUniform).
  bool uniform_datapath = false;
  // Integer multiplies and multiply-adds (IMAD) run on the FP32 (FMA) pipe, holding it
  // pipe_int.initiation_interval_cycles, and a plain 32-bit integer add or subtract issues to
  // whichever of the integer and FP32 pipes is free first (ptxas's IMAD.IADD, VIADD): Volta and later.
  bool imad_on_fp32_pipe = false;

  // Execution pipelines per sub-core.
  PipeParams pipe_int, pipe_fp32, pipe_fp64, pipe_sfu, pipe_lsu, pipe_tensor, pipe_branch, pipe_uniform;

  // Tensor cores (pipe_tensor: latency and initiation interval of an mma with no work). An mma of
  // m*n*k multiply-adds on b-bit inputs (work = m*n*k*b/16, 2048 for m16n8k16 .f16) holds the pipe
  // work / tensor_work_per_cycle cycles more, and its result comes that many cycles times
  // tensor_latency_cycles_per_work_cycle later. FP64 (DMMA) has its own rate and latency.
  double tensor_work_per_cycle = 512;
  double tensor_latency_cycles_per_work_cycle = 1;
  double tensor_fp64_fma_per_cycle = 16;
  std::uint32_t tensor_fp64_latency_cycles = 16;
  // wgmma.mma_async (sm_90a): each warp of the warpgroup runs its 16 rows on its sub-core's tensor
  // pipe, holding it wgmma_issue_cycles + max(work / wgmma_work_per_cycle, its shared-memory
  // operand bytes / (wgmma_smem_bytes_per_cycle / sub_cores)) cycles (work = 16*n*k*b/16; bytes:
  // its A rows when A comes from shared memory, and a quarter of B); its group completes
  // wgmma_latency_cycles after the pipe lets it go.
  double wgmma_work_per_cycle = 512;
  double wgmma_smem_bytes_per_cycle = 128;
  std::uint32_t wgmma_issue_cycles = 2;
  std::uint32_t wgmma_latency_cycles = 20;

  // Memory instructions.
  std::uint32_t lsu_queue_entries = 16;          // per SM: memory instructions waiting for the L1/shared pipe
  std::uint32_t shared_memory_banks = 32;
  std::uint32_t shared_memory_bank_width_bytes = 4;
  // Lanes per phase of a wide shared access at least (1: banks x width / bytes, the programming
  // guide's half warps for 64-bit and quarter warps for 128-bit accesses).
  std::uint32_t shared_memory_min_phase_lanes = 1;
  // Cycles per lane of the most-loaded bank for a shared-memory atomic (lanes to one word do not
  // combine); at least one cycle per phase.
  double shared_atomic_cycles_per_lane = 1.0;
  // Cycles from a call or a return (CALL.REL, RET.REL) to its warp's next issue; 0: the branch
  // pipe's latency, as any other branch.
  std::uint32_t call_latency_cycles = 0;
  // A function that calls saves the registers ptxas's calling convention makes it keep
  // (timing::savedRegistersPerFunction) in its frame: the call pays an issue slot for each store
  // and for the stack pointer, the return one for each load and the stack pointer and waits an L1
  // hit (l1.hit_latency_cycles) for the reloaded return address.
  bool call_frame_saves = false;
  // With call_frame_saves: cycles a call into such a function holds its warp beyond those, for what
  // the frame's SASS waits on besides its stores and loads (BMOV of the convergence barrier B6 to
  // and from a register, BSSY/BSYNC around the body, the stores' register reads).
  std::uint32_t call_frame_extra_cycles = 0;
  // Issue slots an f64 arithmetic instruction (fma, add, sub, mul, min, max, setp) pays for each
  // immediate operand whose low 32 bits are not zero, outside loops: SASS's DFMA/DADD/DMUL/DSETP
  // encode only a double's high word, so ptxas builds such a constant in a register pair first
  // (two UMOV or IMAD.MOV.U32); in a loop it builds it once before the loop. 0: free.
  std::uint32_t f64_immediate_issue_cycles = 0;
  // Issue slots of a 64-bit integer ALU instruction, as SASS's 32-bit integer datapath does it
  // (timing::Int64Form): add/sub/logic/shift/compare/select/neg/not take one instruction per half
  // (pair), mul.lo/mad.lo three (IMAD.WIDE.U32 and the cross products), min/max four (two
  // compares, two selects); a logic op with an immediate one. 0: one slot, as a 32-bit op.
  std::uint32_t int64_pair_issue_cycles = 0;
  std::uint32_t int64_mul_issue_cycles = 0;
  std::uint32_t int64_minmax_issue_cycles = 0;
  // A global or local store holds the L1 pipeline max(store_min_cycles_per_line, sectors x
  // store_cycles_per_sector) cycles per line it writes (at least one).
  std::uint32_t store_min_cycles_per_line = 1;
  std::uint32_t store_cycles_per_sector = 0;
  // A global atomic whose lanes update one address several times leaves the L1 as passes: pass k
  // carries the k-th lane of every address of the line (H100: one L2 request per lane on a shared
  // address). Off: one request per line, which tells the L2 how often its most-updated address is hit.
  bool atomic_same_address_passes = false;
  std::uint32_t shared_memory_latency_cycles = 23;
  // Distributed shared memory (another block of the cluster): cycles beyond a local shared access,
  // and the bytes a cycle the SM-to-SM network carries for one SM's accesses, to a block in the
  // same TPC (sms_per_tpc consecutive SMs) and to one in another; an atomic holds the pipe at least
  // dsmem_atomic_cycles_per_block for each other block its lanes address (one transaction each,
  // whatever its lanes), and a generic atomic on the block's own shared memory at least
  // generic_shared_atomic_cycles.
  std::uint32_t sms_per_tpc = 2;
  std::uint32_t dsmem_latency_cycles = 160;
  double dsmem_bytes_per_cycle = 16.0;
  std::uint32_t dsmem_far_latency_cycles = 170;
  double dsmem_far_bytes_per_cycle = 10.0;
  double dsmem_atomic_cycles_per_block = 0.0;
  std::uint32_t generic_shared_atomic_cycles = 0;
  // barrier.cluster: warps go on this many cycles after the last arrival, plus the second per
  // block of the cluster beyond the first.
  std::uint32_t cluster_barrier_latency_cycles = 0;
  double cluster_barrier_cycles_per_block = 0.0;
  // mbarrier.try_wait suspends the warp until its phase completes, for at most this many cycles
  // (PTX: "a system-dependent time limit"); then it returns false and the program's loop tries again.
  std::uint32_t mbarrier_try_wait_limit_cycles = 1000000;
  // Integer div/rem (on the integer pipe) default to the H100's costs as measured before the
  // sequences took their issue slots too.
  SequenceParams sequences[std::size_t(Sequence::Count)] = {
      {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {0, 7, 61}, {0, 108, 346}};
  // The copy engine (TMA): cycles from a bulk copy's issue to its first request (reading the
  // tensor map, generating addresses), beyond the LSU's own latency.
  std::uint32_t tma_setup_cycles = 0;
  CacheParams l1;                                // data cache part of L1/shared
  CacheParams constant_cache;
  std::uint32_t constant_miss_latency_cycles = 100;
};

}  // namespace scgpu
