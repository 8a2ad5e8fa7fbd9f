// The config schema: one table of keys (path, type, range, description, and the GpuParams field it
// fills), from which the check at load, the effective config and the reference in docs/config.md
// all come. Then the checks that involve more than one key.
#include "tlm/gpu_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "memsys/crossbar_arbiter.h"
#include "memsys/dram_presets.h"
#include "memsys/l2_tag_mshr.h"
#include "memsys/dram_scheduler.h"
#include "sm/timing/coalescer.h"
#include "sm/timing/warp_scheduler.h"
#include "tlm/gpu_config.h"

namespace scgpu {
namespace {

constexpr std::int64_t kNoMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kU32Max = std::numeric_limits<std::uint32_t>::max();

// ---------------------------------------------------------------------------------------------
// The schema.

enum class Type { Int, Number, String, Bool };

struct FieldRef {
  enum Kind { U32, U64, F64, Str, Bool } kind;
  void* ptr;
};
FieldRef ref(std::uint32_t& v) { return {FieldRef::U32, &v}; }
FieldRef ref(std::uint64_t& v) { return {FieldRef::U64, &v}; }
FieldRef ref(double& v) { return {FieldRef::F64, &v}; }
FieldRef ref(std::string& v) { return {FieldRef::Str, &v}; }
FieldRef ref(bool& v) { return {FieldRef::Bool, &v}; }
using Access = std::function<FieldRef(GpuParams&)>;

struct KeySpec {
  std::string path;
  Type type = Type::Int;
  Access field;
  std::int64_t imin = 0, imax = kNoMax;  // Int: imin <= v <= imax
  double dmax = 0;                       // Number: 0 < v <= dmax (0 <= v with zero_ok)
  bool zero_ok = false;                  // Number: 0 is allowed
  bool pow2 = false;                     // Int: a power of two
  std::vector<std::string> choices;      // String: one of these (empty: any non-empty string)
  std::string description;
  bool required = false;                 // no default: every config must give it
  bool preset = false;                   // the default comes from the DRAM preset
  std::string default_from;              // left out: the value of this key (an earlier one)

  KeySpec& powerOfTwo() { pow2 = true; return *this; }
  KeySpec& orZero() { zero_ok = true; return *this; }
  KeySpec& need() { required = true; return *this; }
  KeySpec& defaultFrom(const std::string& path) { default_from = path; return *this; }
};

struct Section {
  std::string path, description;
};

struct Schema {
  std::vector<KeySpec> keys;
  std::vector<Section> sections;                           // every mapping, in schema order
  std::map<std::string, std::size_t> key_index;
  std::map<std::string, std::size_t> section_index;
  std::map<std::string, std::vector<std::string>> children;  // section -> names of its keys and sections

  const KeySpec* key(const std::string& path) const {
    auto it = key_index.find(path);
    return it == key_index.end() ? nullptr : &keys[it->second];
  }
  bool isSection(const std::string& path) const { return section_index.count(path) != 0; }
};

std::string parentOf(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}
std::string leafOf(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

class Builder {
 public:
  void section(const std::string& path, const std::string& description) {
    addSection(path);
    s_.sections[s_.section_index[path]].description = description;
  }
  KeySpec& integer(const std::string& path, Access f, std::int64_t lo, std::int64_t hi, const std::string& desc) {
    KeySpec& k = add(path, Type::Int, std::move(f), desc);
    GpuParams probe;
    const FieldRef r = k.field(probe);
    k.imin = lo;
    k.imax = r.kind == FieldRef::U32 ? std::min(hi, kU32Max) : hi;
    return k;
  }
  KeySpec& number(const std::string& path, Access f, double hi, const std::string& desc) {
    KeySpec& k = add(path, Type::Number, std::move(f), desc);
    k.dmax = hi;
    return k;
  }
  KeySpec& string(const std::string& path, Access f, const std::string& desc) {
    return add(path, Type::String, std::move(f), desc);
  }
  KeySpec& choice(const std::string& path, Access f, std::vector<std::string> choices, const std::string& desc) {
    KeySpec& k = add(path, Type::String, std::move(f), desc);
    k.choices = std::move(choices);
    return k;
  }
  KeySpec& boolean(const std::string& path, Access f, const std::string& desc) {
    return add(path, Type::Bool, std::move(f), desc);
  }
  Schema take() { return std::move(s_); }

 private:
  void addSection(const std::string& path) {
    if (path.empty() || s_.isSection(path)) return;
    addSection(parentOf(path));
    s_.section_index[path] = s_.sections.size();
    s_.sections.push_back({path, ""});
    s_.children[parentOf(path)].push_back(leafOf(path));
  }
  KeySpec& add(const std::string& path, Type t, Access f, const std::string& desc) {
    addSection(parentOf(path));
    s_.children[parentOf(path)].push_back(leafOf(path));
    s_.key_index[path] = s_.keys.size();
    KeySpec k;
    k.path = path;
    k.type = t;
    k.field = std::move(f);
    k.description = desc;
    k.preset = path.rfind("dram.", 0) == 0 && path != "dram.standard" && path != "dram.impl";  // impl: no preset sets it
    s_.keys.push_back(std::move(k));
    return s_.keys.back();
  }
  Schema s_;
};

#define FIELD(expr) [](GpuParams& p) { return ref(p.expr); }

using CacheGet = CacheParams& (*)(GpuParams&);
void cacheKeys(Builder& b, const std::string& prefix, CacheGet get, const std::string& what,
               const std::string& latency_clock, bool optional_cache = false) {
  b.section(prefix, what + ": a sectored, set-associative cache");
  b.integer(prefix + ".size_bytes", [get](GpuParams& p) { return ref(get(p).size_bytes); }, optional_cache ? 0 : 1,
            1ll << 36,
            std::string("capacity; size_bytes / (line_bytes x associativity) sets, a power of two") +
                (optional_cache ? "; 0: no cache (accesses go to L2)" : ""))
      .need();
  b.integer(prefix + ".line_bytes", [get](GpuParams& p) { return ref(get(p).line_bytes); }, 16, 4096,
            "line (tag) size")
      .powerOfTwo();
  b.integer(prefix + ".sector_bytes", [get](GpuParams& p) { return ref(get(p).sector_bytes); }, 4, 4096,
            "sector size: the unit of valid/dirty bits and of fills; divides line_bytes, at most 32 per line")
      .powerOfTwo();
  b.integer(prefix + ".associativity", [get](GpuParams& p) { return ref(get(p).associativity); }, 1, 1024,
            "ways per set");
  b.integer(prefix + ".hit_latency_cycles", [get](GpuParams& p) { return ref(get(p).hit_latency_cycles); }, 1,
            100000, "tag look-up to data, in " + latency_clock + " cycles");
  b.integer(prefix + ".mshr_entries", [get](GpuParams& p) { return ref(get(p).mshr_entries); }, 1, 65536,
            "outstanding line misses");
  b.integer(prefix + ".mshr_max_merge", [get](GpuParams& p) { return ref(get(p).mshr_max_merge); }, 1, 65536,
            "requests merged into one MSHR entry");
  b.choice(prefix + ".replacement", [get](GpuParams& p) { return ref(get(p).replacement); }, {"lru", "fifo"},
           "replacement policy");
  b.choice(prefix + ".write_policy", [get](GpuParams& p) { return ref(get(p).write_policy); },
           {"write_through", "write_back"}, "write hits go through to the next level, or mark sectors dirty");
  b.boolean(prefix + ".allocate_on_write", [get](GpuParams& p) { return ref(get(p).allocate_on_write); },
            "a write miss allocates the line (write-allocate)");
}

using PipeGet = PipeParams& (*)(GpuParams&);
void pipeKeys(Builder& b, const std::string& name, PipeGet get, const std::string& what) {
  const std::string prefix = "sm.pipes." + name;
  b.section(prefix, what);
  b.integer(prefix + ".latency_cycles", [get](GpuParams& p) { return ref(get(p).latency_cycles); }, 1, 10000,
            "issue to result available (the dependent-issue latency)");
  b.integer(prefix + ".initiation_interval_cycles",
            [get](GpuParams& p) { return ref(get(p).initiation_interval_cycles); }, 1, 1024,
            "cycles before the sub-core's pipe takes the next warp instruction (32 / lanes per sub-core)");
}

// sm.sequences.<name>: a PTX instruction ptxas expands into a sequence (sm_params.h SequenceParams).
void sequenceKeys(Builder& b, std::size_t index) {
  const std::string prefix = std::string("sm.sequences.") + kSequenceNames[index];
  b.section(prefix, "the SASS sequence ptxas makes of this PTX instruction (all zero: one instruction on its pipe)");
  b.integer(prefix + ".issue_cycles", [index](GpuParams& p) { return ref(p.sm.sequences[index].issue_cycles); }, 0,
            10000, "issue slots of the sub-core the sequence takes (no other warp issues there meanwhile)");
  b.integer(prefix + ".pipe_cycles", [index](GpuParams& p) { return ref(p.sm.sequences[index].pipe_cycles); }, 0,
            10000, "cycles the sequence holds its pipe (SFU for f32, FP64 for f64): its throughput a sub-core");
  b.integer(prefix + ".latency_cycles", [index](GpuParams& p) { return ref(p.sm.sequences[index].latency_cycles); },
            0, 100000, "cycles from the instruction's issue to its result");
}

Schema buildSchema() {
  Builder b;
  b.string("name", FIELD(name), "device name; cudaGetDeviceProperties reports \"scgpu <name>\"").need();
  b.section("compute_capability", "the CUDA compute capability the device reports");
  b.integer("compute_capability.major", FIELD(cc_major), 1, 12, "major version").need();
  b.integer("compute_capability.minor", FIELD(cc_minor), 0, 9, "minor version").need();

  b.section("clocks", "clock domains");
  b.number("clocks.core_clock_mhz", FIELD(clocks.core_clock_mhz), 10000, "SMs and GigaThread engine");
  b.number("clocks.icnt_clock_mhz", FIELD(clocks.icnt_clock_mhz), 10000, "crossbar and L2 slices");
  b.number("clocks.dram_clock_mhz", FIELD(clocks.dram_clock_mhz), 10000,
           "DRAM command clock (tCK = 1 / dram_clock_mhz; data moves at transfers_per_clock per tCK)");

  b.section("sm", "streaming multiprocessors: limits, scheduling, pipelines, L1 and shared memory");
  b.integer("sm.count", FIELD(sm.count), 1, 1024, "number of SMs").need();
  b.integer("sm.sub_cores", FIELD(sm.sub_cores), 1, 16,
            "processing blocks per SM, one warp scheduler each; divides max_warps_per_sm");
  b.integer("sm.max_threads_per_sm", FIELD(sm.max_threads_per_sm), 32, 65536,
            "resident threads per SM; at most 32 x max_warps_per_sm");
  b.integer("sm.max_warps_per_sm", FIELD(sm.max_warps_per_sm), 1, 2048, "resident warps per SM");
  b.integer("sm.max_blocks_per_sm", FIELD(sm.max_blocks_per_sm), 1, 1024, "resident thread blocks per SM");
  b.integer("sm.max_threads_per_block", FIELD(sm.max_threads_per_block), 32, 65536,
            "threads per block; a multiple of 32, at most max_threads_per_sm");
  b.integer("sm.registers_per_sm", FIELD(sm.registers_per_sm), 1, 1 << 24, "32-bit registers per SM");
  b.integer("sm.max_registers_per_block", FIELD(sm.max_registers_per_block), 1, 1 << 24,
            "registers one block may hold; at most registers_per_sm");
  b.integer("sm.max_registers_per_thread", FIELD(sm.max_registers_per_thread), 1, 255, "registers per thread");
  b.integer("sm.register_allocation_unit_size", FIELD(sm.register_allocation_unit_size), 1, 65536,
            "registers are allocated per warp in units of this many; divides registers_per_sm")
      .powerOfTwo();
  b.integer("sm.shared_memory_per_sm_bytes", FIELD(sm.shared_memory_per_sm_bytes), 1, 1 << 24,
            "shared memory per SM (the carve-out the occupancy rules use)");
  b.integer("sm.shared_memory_per_block_bytes", FIELD(sm.shared_memory_per_block_bytes), 1, 1 << 24,
            "shared memory per block without opt-in");
  b.integer("sm.shared_memory_per_block_optin_bytes", FIELD(sm.shared_memory_per_block_optin_bytes), 1, 1 << 24,
            "shared memory per block with cudaFuncAttributeMaxDynamicSharedMemorySize; "
            "optin + reserved <= per-SM");
  b.integer("sm.shared_memory_allocation_unit_bytes", FIELD(sm.shared_memory_allocation_unit_bytes), 1, 65536,
            "shared memory is allocated per block in units of this many bytes")
      .powerOfTwo();
  b.integer("sm.reserved_shared_memory_per_block_bytes", FIELD(sm.reserved_shared_memory_per_block_bytes), 0,
            65536, "shared memory the CUDA runtime reserves per block (1 KiB from cc 8.0, else 0)");
  b.integer("sm.block_launch_latency_cycles", FIELD(sm.block_launch_latency_cycles), 0, 1000000,
            "core cycles from a block's arrival at the SM to its first warp being ready");
  b.choice("sm.scheduler_policy", FIELD(sm.scheduler_policy), {"lrr", "gto", "two_level"},
           "warp scheduler: loose round robin, greedy-then-oldest, two-level");
  b.integer("sm.scheduler_issue_per_cycle", FIELD(sm.scheduler_issue_per_cycle), 1, 4,
            "instructions one scheduler may issue per cycle (Kepler dual issue: 2)");
  b.integer("sm.two_level_active_warps", FIELD(sm.two_level_active_warps), 1, 1024,
            "two_level: warps in a scheduler's active set; at most max_warps_per_sm / sub_cores");
  b.section("sm.scheduler", "the warp-scheduler issue arbiter of each sub-core (docs/rtl-cosim.md)");
  b.choice("sm.scheduler.impl", FIELD(sm.scheduler_impl), {"model", "rtl", "cosim"},
           "model: C++; rtl: rtl/warp_sched_arbiter.sv through Verilator; cosim: both, picks compared every cycle "
           "(a divergence stops the run with exit status 4)");
  b.section("sm.coalescer", "the LSU coalescer block (docs/rtl-cosim.md)");
  b.choice("sm.coalescer.impl", FIELD(sm.coalescer_impl), {"model", "rtl", "cosim"},
           "model: C++; rtl: rtl/lsu_coalescer.sv through Verilator; cosim: both, compared on every access "
           "(a divergence stops the run with exit status 4)");
  cacheKeys(b, "sm.icache", [](GpuParams& p) -> CacheParams& { return p.sm.icache; }, "instruction cache", "core");
  b.integer("sm.icache_miss_latency_cycles", FIELD(sm.icache_miss_latency_cycles), 1, 100000,
            "core cycles an instruction-cache miss adds before the fetch goes to L2");
  b.integer("sm.icache_prefetch_lines", FIELD(sm.icache_prefetch_lines), 0, 64,
            "sequential instruction prefetch: a fetch brings its whole line and starts fills of the next this many "
            "lines not yet present (0: a miss fills only the sectors fetched)");
  b.integer("sm.instruction_bytes", FIELD(sm.instruction_bytes), 4, 64,
            "one decoded instruction's footprint in the instruction cache")
      .powerOfTwo();
  b.integer("sm.instruction_buffer_entries", FIELD(sm.instruction_buffer_entries), 1, 64,
            "decoded instructions buffered per warp");
  b.integer("sm.register_banks", FIELD(sm.register_banks), 0, 64,
            "register-file banks per sub-core; 0: no bank conflicts (the compiler's register allocation avoids "
            "them)");
  b.boolean("sm.operand_reuse", FIELD(sm.operand_reuse),
            "a source register the warp's previous instruction also read comes from the operand reuse cache "
            "(no register-bank read, no bank conflict)");
  b.boolean("sm.fuse_like_ptxas", FIELD(sm.fuse_like_ptxas),
            "time PTX as ptxas compiles it: an integer add/sub/logic op that with the op before it makes one SASS "
            "instruction (IADD3, LOP3, LEA, IMAD), and copies and constants (mov, cvta), take no issue slot, pipe "
            "or latency");
  b.boolean("sm.uniform_datapath", FIELD(sm.uniform_datapath),
            "a uniform datapath (Turing and later): integer instructions whose sources are all warp-uniform issue to "
            "pipes.uniform instead of pipes.int, and an add of a uniform value that only addresses shared memory "
            "folds into the address");
  b.boolean("sm.imad_on_fp32_pipe", FIELD(sm.imad_on_fp32_pipe),
            "integer multiplies and multiply-adds (IMAD) run on the FP32 pipe, holding it "
            "pipes.int.initiation_interval_cycles, and a plain 32-bit integer add or subtract issues to whichever of "
            "the integer and FP32 pipes is free first (IMAD.IADD, VIADD)");
  b.integer("sm.operand_collectors", FIELD(sm.operand_collectors), 1, 64, "operand collector units per sub-core");
  b.section("sm.pipes", "execution pipelines of one sub-core, per instruction class");
  pipeKeys(b, "int", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_int; }, "integer and logic (IADD3, LOP3, ...)");
  pipeKeys(b, "fp32", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_fp32; }, "FP32 add/mul/FMA and IMAD");
  pipeKeys(b, "fp64", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_fp64; }, "FP64");
  pipeKeys(b, "sfu", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_sfu; },
           "special functions (MUFU: rcp, rsqrt, sin, cos, ex2, lg2)");
  pipeKeys(b, "lsu", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_lsu; },
           "address generation of loads and stores, to the LSU queue");
  pipeKeys(b, "tensor", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_tensor; },
           "tensor cores (mma, wmma.mma): latency and initiation interval of an mma without work; its work adds "
           "(sm.tensor_work_per_cycle)");
  pipeKeys(b, "branch", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_branch; }, "branches, barriers, exits");
  pipeKeys(b, "uniform", [](GpuParams& p) -> PipeParams& { return p.sm.pipe_uniform; },
           "the uniform datapath (sm.uniform_datapath): integer ops on warp-uniform values (UIADD3, ULOP3, ...)");
  b.number("sm.tensor_work_per_cycle", FIELD(sm.tensor_work_per_cycle), 1e6,
           "16-bit multiply-adds per cycle of a sub-core's tensor core: an mma of m*n*k multiply-adds on b-bit "
           "inputs holds the tensor pipe m*n*k*b/16 / this cycles beyond pipes.tensor.initiation_interval_cycles");
  b.number("sm.tensor_latency_cycles_per_work_cycle", FIELD(sm.tensor_latency_cycles_per_work_cycle), 1000,
           "an mma's result latency beyond pipes.tensor.latency_cycles, per cycle of its work");
  b.number("sm.tensor_fp64_fma_per_cycle", FIELD(sm.tensor_fp64_fma_per_cycle), 1e6,
           "FP64 multiply-adds per cycle of a sub-core's tensor core (DMMA): an f64 mma holds the pipe m*n*k / "
           "this cycles beyond pipes.tensor.initiation_interval_cycles");
  b.integer("sm.tensor_fp64_latency_cycles", FIELD(sm.tensor_fp64_latency_cycles), 1, 10000,
            "result latency of an f64 mma (m8n8k4; larger shapes scale with their multiply-adds)");
  b.number("sm.wgmma_work_per_cycle", FIELD(sm.wgmma_work_per_cycle), 1e6,
           "16-bit multiply-adds per cycle of a sub-core's tensor core for wgmma.mma_async: each warp of the "
           "warpgroup holds its tensor pipe 16*n*k*b/16 / this cycles for its 16 rows (b: input bits)");
  b.number("sm.wgmma_smem_bytes_per_cycle", FIELD(sm.wgmma_smem_bytes_per_cycle), 1e6,
           "shared-memory bytes per SM-cycle wgmma.mma_async reads its operands at, split evenly over the "
           "sub-cores (a warp reads its A rows from a descriptor and a quarter of B)");
  b.integer("sm.wgmma_issue_cycles", FIELD(sm.wgmma_issue_cycles), 0, 10000,
            "cycles a wgmma.mma_async holds the tensor pipe beyond its work");
  b.integer("sm.wgmma_latency_cycles", FIELD(sm.wgmma_latency_cycles), 0, 100000,
            "cycles from a wgmma.mma_async leaving the tensor pipe to its results being available to "
            "wgmma.wait_group");
  b.integer("sm.lsu_queue_entries", FIELD(sm.lsu_queue_entries), 1, 4096,
            "memory instructions waiting for the L1/shared pipe, per SM");
  b.integer("sm.shared_memory_banks", FIELD(sm.shared_memory_banks), 1, 64, "shared-memory banks").powerOfTwo();
  b.integer("sm.shared_memory_bank_width_bytes", FIELD(sm.shared_memory_bank_width_bytes), 1, 16,
            "bytes per bank per cycle")
      .powerOfTwo();
  b.integer("sm.shared_memory_min_phase_lanes", FIELD(sm.shared_memory_min_phase_lanes), 1, 32,
            "a wide shared access is served in phases of banks x width / bytes lanes, but not fewer than this")
      .powerOfTwo();
  b.integer("sm.call_latency_cycles", FIELD(sm.call_latency_cycles), 0, 10000,
            "cycles from a call or a return to the warp's next issue (0: pipes.branch's latency, as other "
            "branches)");
  b.boolean("sm.call_frame_saves", FIELD(sm.call_frame_saves),
            "a device function that calls saves its return address and the registers live across its calls in "
            "local memory (an issue slot per register at the call and at the return, which also waits an L1 hit "
            "for the return address), as ptxas's calling convention does");
  b.integer("sm.call_frame_extra_cycles", FIELD(sm.call_frame_extra_cycles), 0, 10000,
            "with sm.call_frame_saves, cycles a call into a function that saves registers holds its warp beyond "
            "the saves' issue slots (the frame's convergence-barrier moves and the stores' register reads)");
  b.integer("sm.f64_immediate_issue_cycles", FIELD(sm.f64_immediate_issue_cycles), 0, 64,
            "issue slots an f64 fma/add/sub/mul/min/max/setp outside a loop pays per immediate operand whose low 32 "
            "bits are not zero (SASS encodes only a double's high word: ptxas builds the constant with two moves)");
  b.integer("sm.int64_pair_issue_cycles", FIELD(sm.int64_pair_issue_cycles), 0, 64,
            "issue slots of a 64-bit integer add/sub/and/or/xor/not/neg/shl/shr/setp/selp (SASS: one 32-bit "
            "instruction per half, IADD3 + IADD3.X and the like; a logic op with an immediate takes one); 0: one slot");
  b.integer("sm.int64_mul_issue_cycles", FIELD(sm.int64_mul_issue_cycles), 0, 64,
            "issue slots of a 64-bit integer mul.lo/mad.lo (SASS: IMAD.WIDE.U32 and the two cross products); 0: one slot");
  b.integer("sm.int64_minmax_issue_cycles", FIELD(sm.int64_minmax_issue_cycles), 0, 64,
            "issue slots of a 64-bit integer min/max (SASS: two compares and two selects); 0: one slot");
  b.integer("sm.store_min_cycles_per_line", FIELD(sm.store_min_cycles_per_line), 1, 64,
            "L1 pipeline cycles a global or local store takes per line it writes, at least");
  b.integer("sm.store_cycles_per_sector", FIELD(sm.store_cycles_per_sector), 0, 64,
            "L1 pipeline cycles a global or local store takes per 32-byte sector it writes (if more than "
            "store_min_cycles_per_line)");
  b.boolean("sm.atomic_same_address_passes", FIELD(sm.atomic_same_address_passes),
            "a global atomic's lanes on one address leave the L1 as separate requests (passes), one per lane "
            "on that address; otherwise one request per line, carrying its most-updated address's count");
  b.integer("sm.sms_per_tpc", FIELD(sm.sms_per_tpc), 1, 64,
            "consecutive SMs that form a TPC: distributed shared memory within one is cheaper than across");
  b.integer("sm.dsmem_latency_cycles", FIELD(sm.dsmem_latency_cycles), 0, 100000,
            "cycles a distributed shared-memory access to another block in the same TPC takes beyond a local one");
  b.number("sm.dsmem_bytes_per_cycle", FIELD(sm.dsmem_bytes_per_cycle), 4096,
           "bytes per cycle an SM's distributed shared-memory accesses within its TPC move (the LSU pipe is held "
           "for the rest)");
  b.integer("sm.dsmem_far_latency_cycles", FIELD(sm.dsmem_far_latency_cycles), 0, 100000,
            "the same as dsmem_latency_cycles for a block in another TPC");
  b.number("sm.dsmem_far_bytes_per_cycle", FIELD(sm.dsmem_far_bytes_per_cycle), 4096,
           "the same as dsmem_bytes_per_cycle for a block in another TPC");
  b.number("sm.dsmem_atomic_cycles_per_block", FIELD(sm.dsmem_atomic_cycles_per_block), 100000,
           "pipe cycles a warp's distributed shared-memory atomic takes, at least, for each other block of the "
           "cluster its lanes address (one transaction per block, whatever its lanes)")
      .orZero();
  b.integer("sm.generic_shared_atomic_cycles", FIELD(sm.generic_shared_atomic_cycles), 0, 10000,
            "pipe cycles a warp's atomic through a generic address on its own block's shared memory takes at "
            "least (ATOM on the shared window, where ATOMS takes its bank wavefronts)");
  b.integer("sm.cluster_barrier_latency_cycles", FIELD(sm.cluster_barrier_latency_cycles), 0, 1000000,
            "cycles from the last arrival at a cluster barrier (barrier.cluster) to the waiting warps' next issue");
  b.number("sm.cluster_barrier_cycles_per_block", FIELD(sm.cluster_barrier_cycles_per_block), 100000,
           "cycles the cluster barrier takes more per block of the cluster beyond the first")
      .orZero();
  b.section("sm.sequences", "PTX instructions that ptxas expands into sequences of SASS instructions");
  for (std::size_t i = 0; i < std::size_t(Sequence::Count); ++i) sequenceKeys(b, i);
  b.integer("sm.tma_setup_cycles", FIELD(sm.tma_setup_cycles), 0, 100000,
            "cycles a bulk copy (cp.async.bulk, the TMA unit) takes from its issue to its first memory request "
            "beyond the LSU's latency (tensor-map read, address generation)");
  b.integer("sm.mbarrier_try_wait_limit_cycles", FIELD(sm.mbarrier_try_wait_limit_cycles), 1, 100000000,
            "cycles an mbarrier.try_wait keeps its warp suspended waiting for the phase to complete before it "
            "returns false");
  b.number("sm.shared_atomic_cycles_per_lane", FIELD(sm.shared_atomic_cycles_per_lane), 64,
           "cycles a shared-memory atomic spends per lane of its most-loaded bank (same-word lanes serialise "
           "too); at least one cycle");
  b.integer("sm.shared_memory_latency_cycles", FIELD(sm.shared_memory_latency_cycles), 1, 10000,
            "core cycles of a conflict-free shared-memory load");
  cacheKeys(b, "sm.l1", [](GpuParams& p) -> CacheParams& { return p.sm.l1; }, "L1 data cache (part of L1/shared)",
            "core", true);
  cacheKeys(b, "sm.constant_cache", [](GpuParams& p) -> CacheParams& { return p.sm.constant_cache; },
            "constant cache", "core", true);
  b.integer("sm.constant_miss_latency_cycles", FIELD(sm.constant_miss_latency_cycles), 1, 100000,
            "core cycles a constant-cache miss adds");

  b.section("crossbar", "the interconnect between SMs and L2 slices");
  b.integer("crossbar.flit_bytes", FIELD(crossbar.flit_bytes), 1, 1024, "bytes moved per port per interconnect cycle")
      .powerOfTwo();
  b.integer("crossbar.response_flit_bytes", FIELD(crossbar.response_flit_bytes), 0, 1024,
            "bytes moved per port per interconnect cycle on the response network (L2 to SM), when it differs "
            "from the request network's; 0: crossbar.flit_bytes");
  b.integer("crossbar.latency_cycles", FIELD(crossbar.latency_cycles), 1, 100000,
            "traversal, in interconnect cycles");
  b.integer("crossbar.input_buffer_flits", FIELD(crossbar.input_buffer_flits), 1, 1 << 20,
            "buffer per input port; holds at least one whole packet (header + a line)");
  b.integer("crossbar.output_buffer_flits", FIELD(crossbar.output_buffer_flits), 1, 1 << 20,
            "buffer per output port; holds at least one whole packet");
  b.integer("crossbar.input_window_packets", FIELD(crossbar.input_window_packets), 1, 64,
            "packets at the front of an input's queue an output may take (one per input at a time, in order per "
            "output); 1: a FIFO with head-of-line blocking");
  b.boolean("crossbar.multicast_responses", FIELD(crossbar.multicast_responses),
            "a read response whose line is still in its slice's output buffer, on its way to another SM, is sent "
            "from there too: it uses the SM's port but not the slice's");
  b.integer("crossbar.multicast_window_cycles", FIELD(crossbar.multicast_window_cycles), 0, 1000000,
            "with multicast_responses: a read response is also a copy when its slice sent the line to another SM at "
            "most this many cycles before");
  b.integer("crossbar.request_window_packets", FIELD(crossbar.request_window_packets), 0, 64,
            "the request network's input window (an SM's requests), when it differs from input_window_packets (0: "
            "the same)");
  b.integer("crossbar.response_window_packets", FIELD(crossbar.response_window_packets), 0, 64,
            "the response network's input window, when it differs from input_window_packets (0: the same)");
  b.choice("crossbar.arbitration", FIELD(crossbar.arbitration), {"round_robin", "fixed_priority"},
           "output-port arbitration");
  b.choice("crossbar.impl", FIELD(crossbar.impl), {"model", "rtl", "cosim"},
           "the switch allocators: model: C++; rtl: rtl/xbar_arbiter.sv through Verilator; cosim: both, grants "
           "compared (a divergence stops the run with exit status 4)");
  // rtl-verif: one network's allocator alone (the two are separate blocks); left out, crossbar.impl.
  b.section("crossbar.request", "the request network (SMs to L2 slices)");
  b.choice("crossbar.request.impl", FIELD(crossbar.request_impl), {"model", "rtl", "cosim"},
           "the request network's switch allocator alone: model, rtl or cosim, as crossbar.impl")
      .defaultFrom("crossbar.impl");
  b.section("crossbar.response", "the response network (L2 slices to SMs)");
  b.choice("crossbar.response.impl", FIELD(crossbar.response_impl), {"model", "rtl", "cosim"},
           "the response network's switch allocator alone: model, rtl or cosim, as crossbar.impl")
      .defaultFrom("crossbar.impl");
  b.integer("crossbar.request_header_bytes", FIELD(crossbar.request_header_bytes), 0, 1024,
            "a request's header on the wire (a read request is only this)");

  b.section("l2", "L2 cache slices (memory-side, shared by all SMs)");
  b.integer("l2.slices", FIELD(l2.slices), 1, 4096,
            "number of slices; divides dram.channels or is a multiple of it");
  b.integer("l2.atomic_latency_cycles", FIELD(l2.atomic_latency_cycles), 0, 100000,
            "extra interconnect cycles of an atomic executed at the slice");
  b.number("l2.atomic_op_cycles", FIELD(l2.atomic_op_cycles), 100000,
           "interconnect cycles the slice's atomic unit spends per update of one address in a request "
           "(same-address updates serialise): floating-point adds, exch, cas");
  b.integer("l2.atomic_request_cycles", FIELD(l2.atomic_request_cycles), 1, 100000,
            "interconnect cycles the slice's atomic unit spends on one request at least, however many distinct "
            "words of the line it updates");
  b.integer("l2.integer_atomic_op_cycles", FIELD(l2.integer_atomic_op_cycles), 1, 100000,
            "the same for integer reductions (add, min, max, and, or, xor, inc, dec)");
  b.number("l2.atomic_cycles_per_sector", FIELD(l2.atomic_cycles_per_sector), 1000,
           "interconnect cycles the atomic unit spends per 32-byte sector a request updates (if more than "
           "atomic_request_cycles and its same-address updates)")
      .orZero();
  b.number("l2.atomic_line_change_cycles_per_sector", FIELD(l2.atomic_line_change_cycles_per_sector), 1000,
           "interconnect cycles more per sector when a request's line is not among the atomic unit's last "
           "atomic_unit_lines lines")
      .orZero();
  b.integer("l2.atomic_unit_lines", FIELD(l2.atomic_unit_lines), 1, 64,
            "lines the slice's atomic unit holds (the most recently updated): a request on one of them does not pay "
            "atomic_line_change_cycles_per_sector");
  b.integer("l2.atomic_queue_entries", FIELD(l2.atomic_queue_entries), 0, 1u << 20,
            "atomics that may wait for the slice's atomic unit; with that many waiting the next atomic holds the "
            "head of the request queue (0: no limit)");
  b.integer("l2.dram_fetch_granule_bytes", FIELD(l2.dram_fetch_granule_bytes), 0, 4096,
            "a read miss (not an atomic) fetches its missing sectors in aligned pieces of this many bytes, and fills the "
            "piece's other sectors too (0 or the sector size: only the sectors asked for); a power of two of "
            "sectors, at most a line");
  b.integer("l2.max_dirty_ways", FIELD(l2.max_dirty_ways), 0, 1024,
            "dirty lines a set may hold (write_back): one more written makes the set's least recently written dirty "
            "line go back to DRAM early, staying valid and clean (0: no limit, lines are written back when evicted)");
  b.number("l2.write_request_cycles", FIELD(l2.write_request_cycles), 1000,
           "interconnect cycles a write holds the slice's lookup stage at least (reads take one); at least one");
  b.number("l2.write_cycles_per_sector", FIELD(l2.write_cycles_per_sector), 1000,
           "interconnect cycles a write holds the lookup stage per 32-byte sector it writes whole (if more than "
           "write_request_cycles)")
      .orZero();
  b.number("l2.write_cycles_per_partial_sector", FIELD(l2.write_cycles_per_partial_sector), 1000,
           "the same per sector it writes in part (fewer than its 32 bytes)")
      .orZero();
  b.boolean("l2.partial_sector_fill", FIELD(l2.partial_sector_fill),
            "a sector a write allocated in part is read from DRAM before it is written back (ECC words)");
  b.integer("l2.request_queue_entries", FIELD(l2.request_queue_entries), 1, 1 << 20, "requests queued per slice");
  b.choice("l2.hash", FIELD(l2.hash), {"linear", "xor"},
           "address-to-slice mapping: chunk mod slices, or an XOR fold of the higher address bits");
  b.integer("l2.interleave_bytes", FIELD(l2.interleave_bytes), 32, 1ll << 30,
            "consecutive bytes mapped to one slice; at least l2.cache.line_bytes")
      .powerOfTwo();
  cacheKeys(b, "l2.cache", [](GpuParams& p) -> CacheParams& { return p.l2.cache; }, "one L2 slice (size_bytes is per slice)",
            "interconnect");
  b.choice("l2.impl", FIELD(l2.impl), {"model", "rtl", "cosim"},
           "the slices' tag/MSHR stage: model: C++; rtl: rtl/l2_tag_mshr.sv through Verilator; cosim: both, every "
           "tag operation compared (a divergence stops the run with exit status 4); slice J alone: l2[J].impl "
           "(docs/rtl-cosim.md)");

  b.section("dram", "DRAM channels: `standard` picks a preset (memsys/dram_presets.cpp), its timings rescaled to "
                    "clocks.dram_clock_mhz; every other key overrides the preset");
  b.choice("dram.standard", FIELD(dram.standard), {"gddr5", "gddr6", "hbm2", "hbm3"}, "DRAM standard (names the preset)");
  b.integer("dram.channels", FIELD(dram.channels), 1, 4096, "independent channels, one controller each");
  b.integer("dram.bank_groups", FIELD(dram.bank_groups), 1, 64, "bank groups per channel").powerOfTwo();
  b.integer("dram.banks_per_group", FIELD(dram.banks_per_group), 1, 64, "banks per bank group").powerOfTwo();
  b.integer("dram.rows", FIELD(dram.rows), 1, 1 << 24, "rows per bank").powerOfTwo();
  b.integer("dram.row_bytes", FIELD(dram.row_bytes), 32, 1 << 20, "row (page) size per bank").powerOfTwo();
  b.integer("dram.bus_width_bits", FIELD(dram.bus_width_bits), 8, 1024, "data bus width per channel").powerOfTwo();
  b.integer("dram.transfers_per_clock", FIELD(dram.transfers_per_clock), 1, 16,
            "data transfers per command clock (DDR: 2)")
      .powerOfTwo();
  b.integer("dram.access_bytes", FIELD(dram.access_bytes), 1, 4096,
            "bytes one RD/WR moves: bus_width_bits x timing.burst_length / 8")
      .powerOfTwo();
  b.integer("dram.read_queue_entries", FIELD(dram.read_queue_entries), 1, 65536, "read queue per controller");
  b.integer("dram.write_queue_entries", FIELD(dram.write_queue_entries), 1, 65536, "write queue per controller");
  b.integer("dram.write_drain_high_watermark", FIELD(dram.write_drain_high_watermark), 1, 65536,
            "queued writes that start a write drain; at most write_queue_entries");
  b.integer("dram.write_drain_low_watermark", FIELD(dram.write_drain_low_watermark), 0, 65536,
            "queued writes at which a drain stops; below the high watermark");
  b.choice("dram.scheduler", FIELD(dram.scheduler), {"fr_fcfs", "fcfs"},
           "command scheduler: first-ready first-come-first-served, or in order");
  b.choice("dram.page_policy", FIELD(dram.page_policy), {"open", "closed"},
           "keep a row open after an access, or precharge at once");
  b.boolean("dram.refresh", FIELD(dram.refresh), "model refresh (tREFI, tRFC)");
  b.choice("dram.address_mapping", FIELD(dram.address_mapping), {"row_bank_column", "row_column_bank"},
           "channel-local address bits, high to low");
  b.integer("dram.bank_interleave_bytes", FIELD(dram.bank_interleave_bytes), 1, 1 << 20,
            "row_column_bank: consecutive channel-local bytes kept in one bank and row before the next bank "
            "group (access_bytes: every access rotates; a multiple of it, up to row_bytes)")
      .powerOfTwo();
  b.boolean("dram.bank_xor_row", FIELD(dram.bank_xor_row),
            "permutation interleaving: XOR the bank and bank group with the row's low bits");
  b.integer("dram.channel_interleave_bytes", FIELD(dram.channel_interleave_bytes), 32, 1ll << 30,
            "consecutive bytes on one channel; at most l2.interleave_bytes (a slice's chunk is dealt over its channels)")
      .powerOfTwo();
  b.integer("dram.controller_latency_cycles", FIELD(dram.controller_latency_cycles), 0, 100000,
            "controller pipeline, in DRAM cycles, each way");
  b.choice("dram.impl", FIELD(dram.impl), {"model", "rtl", "cosim"},
           "the command scheduler of every channel: model: C++; rtl: rtl/dram_cmd_sched.sv through Verilator; "
           "cosim: both, commands compared every DRAM cycle (a divergence stops the run with exit status 4); "
           "channel C alone: dram[C].impl (docs/rtl-cosim.md)");
  b.section("dram.timing", "DRAM timing parameters, in DRAM command-clock cycles (tCK = 1 / clocks.dram_clock_mhz)");
  const std::vector<std::pair<std::string, std::string>> timings{
      {"tRCD", "ACT to RD/WR"}, {"tRP", "PRE to ACT"}, {"tRAS", "ACT to PRE; at least tRCD"},
      {"tRC", "ACT to ACT, same bank; at least tRAS"}, {"tCL", "RD to data (CAS latency)"},
      {"tCWL", "WR to data"}, {"tCCD_S", "column to column, different bank group"},
      {"tCCD_L", "column to column, same bank group; at least tCCD_S"},
      {"tRRD_S", "ACT to ACT, different bank group"}, {"tRRD_L", "ACT to ACT, same bank group; at least tRRD_S"},
      {"tFAW", "window of four ACTs; at least tRRD_S"}, {"tWTR", "end of write data to RD"},
      {"tRTW", "RD to WR turnaround"}, {"tWR", "end of write data to PRE (write recovery)"},
      {"tRTP", "RD to PRE"}, {"tREFI", "refresh interval; above tRFC"}, {"tRFC", "refresh cycle time"}};
  for (const auto& [name, desc] : timings) {
    const std::string n = name;
    b.integer("dram.timing." + name,
              [n](GpuParams& p) {
                auto& t = p.dram.timing;
                std::uint32_t* f = n == "tRCD" ? &t.tRCD : n == "tRP" ? &t.tRP : n == "tRAS" ? &t.tRAS
                                 : n == "tRC" ? &t.tRC : n == "tCL" ? &t.tCL : n == "tCWL" ? &t.tCWL
                                 : n == "tCCD_S" ? &t.tCCD_S : n == "tCCD_L" ? &t.tCCD_L : n == "tRRD_S" ? &t.tRRD_S
                                 : n == "tRRD_L" ? &t.tRRD_L : n == "tFAW" ? &t.tFAW : n == "tWTR" ? &t.tWTR
                                 : n == "tRTW" ? &t.tRTW : n == "tWR" ? &t.tWR : n == "tRTP" ? &t.tRTP
                                 : n == "tREFI" ? &t.tREFI : &t.tRFC;
                return ref(*f);
              },
              1, 1000000, desc);
  }
  b.integer("dram.timing.burst_length", FIELD(dram.timing.burst_length), 1, 64, "transfers per access").powerOfTwo();

  b.section("gigathread", "the GigaThread engine: thread-block dispatch");
  b.integer("gigathread.dispatch_latency_cycles", FIELD(gigathread.dispatch_latency_cycles), 0, 1000000,
            "core cycles from a free slot to the block starting on the SM");
  b.integer("gigathread.blocks_per_cycle", FIELD(gigathread.blocks_per_cycle), 1, 1024,
            "blocks dispatched per core cycle, over all SMs");
  b.integer("gigathread.launch_latency_cycles", FIELD(gigathread.launch_latency_cycles), 0, 100000000,
            "core cycles from a kernel's launch to its first block dispatch (front end, parameters)");
  b.integer("gigathread.completion_latency_cycles", FIELD(gigathread.completion_latency_cycles), 0, 100000000,
            "core cycles from the last block's retirement to the kernel's completion (flush, signal)");
  b.boolean("gigathread.flush_caches_before_launch", FIELD(gigathread.flush_caches_before_launch),
            "every kernel launch starts with empty instruction, L1, constant and L2 caches, as under Nsight Compute's "
            "--cache-control all (dirty L2 lines are dropped without a timed write-back; results do not change, "
            "times do). Needs the model's L2 tag stage (l2.impl model)");
  b.section("mmu", "address translation's timing: an L1 TLB per SM, a shared L2 TLB, page walks (memsys/tlb.h)");
  b.boolean("mmu.enabled", FIELD(mmu.enabled),
            "global accesses go through the TLBs and pay their extra cycles (off: translation is free)");
  b.integer("mmu.page_bytes", FIELD(mmu.page_bytes), 4096, 1ll << 30,
            "bytes one TLB entry covers: a page size of the page-table format (4 KiB, 2 MiB or 1 GiB)")
      .powerOfTwo();
  b.integer("mmu.l1_tlb_entries", FIELD(mmu.l1_tlb_entries), 1, 1 << 20, "entries of each SM's L1 TLB");
  b.integer("mmu.l1_tlb_associativity", FIELD(mmu.l1_tlb_associativity), 1, 1 << 20,
            "ways per set of the L1 TLB (its entries: fully associative)");
  b.integer("mmu.l2_tlb_entries", FIELD(mmu.l2_tlb_entries), 1, 1 << 24, "entries of the L2 TLB that all SMs share");
  b.integer("mmu.l2_tlb_associativity", FIELD(mmu.l2_tlb_associativity), 1, 1 << 24, "ways per set of the L2 TLB");
  b.integer("mmu.l2_tlb_hit_latency_cycles", FIELD(mmu.l2_tlb_hit_latency_cycles), 0, 1000000,
            "extra core cycles of an access that misses its L1 TLB and hits the L2 TLB");
  b.integer("mmu.walk_latency_cycles", FIELD(mmu.walk_latency_cycles), 0, 10000000,
            "extra core cycles of an access that misses both TLBs (the page walk)");
  b.section("host", "the host interface: channels and the PCIe link (docs/registers.md, docs/driver-bring-up.md)");
  b.integer("host.channels", FIELD(host.channels), 1, 64, "GPFIFO channels (NUM_CHANNELS; at most 64)");
  b.integer("host.mmio_latency_ns", FIELD(host.mmio_latency_ns), 0, 1000000, "device time one BAR0 register access takes");
  b.integer("host.pcie_latency_ns", FIELD(host.pcie_latency_ns), 0, 1000000, "first byte of a DMA transfer over PCIe");
  b.number("host.pcie_bandwidth_bytes_per_ns", FIELD(host.pcie_bandwidth_bytes_per_ns), 1000,
           "host <-> device DMA bandwidth (GB/s)");
  b.number("host.pcie_duplex_bandwidth_fraction", FIELD(host.pcie_duplex_bandwidth_fraction), 1,
           "share of pcie_bandwidth_bytes_per_ns each direction gets while copies run both ways at once");
  b.number("host.copy_bandwidth_bytes_per_ns", FIELD(host.copy_bandwidth_bytes_per_ns), 100000,
           "device <-> device copy bandwidth, in bytes copied (GB/s)");
  b.number("host.memset_bandwidth_bytes_per_ns", FIELD(host.memset_bandwidth_bytes_per_ns), 100000,
           "memset bandwidth, in bytes written (GB/s)");
  b.integer("host.command_latency_ns", FIELD(host.command_latency_ns), 0, 1000000,
            "front end: one method fetched, decoded and dispatched");
  b.integer("host.launch_call_ns", FIELD(host.launch_call_ns), 0, 100000000,
            "host time the runtime and driver spend on one kernel launch call before its doorbell: back-to-back "
            "launches (warm repeats, a launch file's repeat) are submitted no faster");
  b.section("watchdog", "the timing model's hang detector");
  b.integer("watchdog.no_progress_cycles", FIELD(watchdog.no_progress_cycles), 1, kNoMax,
            "core cycles with no instruction retired anywhere before the run stops with a dump");
  b.integer("watchdog.block_resident_cycles", FIELD(watchdog.block_resident_cycles), 1, kNoMax,
            "core cycles one block may stay resident before the run stops with a watchdog fault naming it "
            "(a warp that spins forever issues, so only this catches it)");
  b.section("memory", "device memory sizes");
  b.integer("memory.global_size_bytes", FIELD(global_size_bytes), 1 << 20, 1ll << 42,
            "global memory (cudaDeviceProp::totalGlobalMem)");
  b.integer("memory.constant_size_bytes", FIELD(constant_size_bytes), 1024, 1 << 24,
            "constant memory (totalConstMem)");
  b.section("limits", "limits of the functional core, as the CUDA runtime exposes them (cudaLimit*), and budgets that bound a run");
  b.integer("limits.stack_size_bytes", FIELD(limits.stack_size_bytes), 0, 1 << 24,
            "per-thread stack (cudaLimitStackSize)");
  b.integer("limits.printf_fifo_size_bytes", FIELD(limits.printf_fifo_size_bytes), 1, 1ll << 32,
            "device printf buffer (cudaLimitPrintfFifoSize)");
  b.integer("limits.watchdog_warp_instructions_per_block", FIELD(limits.watchdog_warp_instructions_per_block), 1,
            kNoMax, "warp instructions one block may execute before the functional core reports it hung");
  b.integer("limits.call_depth_frames", FIELD(limits.call_depth_frames), 1, 1 << 20,
            "nested calls one thread may make (frames, whatever their size); deeper is a stack-overflow fault");
  b.integer("limits.warp_instructions_per_launch", FIELD(limits.warp_instructions_per_launch), 1, kNoMax,
            "warp instructions one launch may execute, in either mode, before it stops with a timeout fault");
  b.integer("limits.cycles_per_launch", FIELD(limits.cycles_per_launch), 1, kNoMax,
            "core cycles one launch may take in the timing mode before it stops with a timeout fault");
  b.section("simulation", "how the simulator runs (not what it models): results and statistics are the same whatever "
                          "these say");
  b.integer("simulation.host_threads", FIELD(simulation.host_threads), 1, 256,
            "host threads that tick the SMs of a core cycle side by side (`scgpu run --threads N`); 1 with a "
            "waveform, a timeline or an RTL block");
  b.choice("simulation.parallel_ticks", FIELD(simulation.parallel_ticks), {"adaptive", "always"},
           "with host_threads > 1: adaptive (the threads take the cycles where timing shows they pay) or always "
           "(every cycle with two or more blocks of a kind to tick; for tests of that path)");
  b.integer("simulation.stats_interval_cycles", FIELD(simulation.stats_interval_cycles), 0, 1ull << 40,
            "every this many core cycles of a running kernel, sample the counters over the interval (IPC, DRAM "
            "bandwidth, hit rates, stall reasons) into the statistics' samples; 0: none");
  b.boolean("simulation.skip_stalled_cycles", FIELD(simulation.skip_stalled_cycles),
            "an SM whose warps all wait skips the cycles before its next event and counts them in bulk (the "
            "same statistics), and a stalled warp is looked at again only when its reason may have changed; false ticks every SM and "
            "evaluates every warp every cycle");
  return b.take();
}
#undef FIELD

const Schema& schema() {
  static const Schema s = buildSchema();
  return s;
}

// ---------------------------------------------------------------------------------------------
// Helpers.

bool isPow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::string valueText(const FieldRef& r) {
  switch (r.kind) {
    case FieldRef::U32: return std::to_string(*static_cast<std::uint32_t*>(r.ptr));
    case FieldRef::U64: return std::to_string(*static_cast<std::uint64_t*>(r.ptr));
    case FieldRef::F64: return fmt::format("{}", *static_cast<double*>(r.ptr));
    case FieldRef::Str: return *static_cast<std::string*>(r.ptr);
    case FieldRef::Bool: return *static_cast<bool*>(r.ptr) ? "true" : "false";
  }
  return {};
}

std::string joinChoices(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

std::string intRangeText(const KeySpec& k) {
  const std::string what = k.pow2 ? "a power of two" : "an integer";
  if (k.imax == kNoMax) return fmt::format("{} >= {}", what, k.imin);
  return fmt::format("{} in [{}, {}]", what, k.imin, k.imax);
}

std::string normalise(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// How close `typed` is to the known name `known`: 0 best; nullopt when not close at all.
std::optional<std::size_t> closeness(const std::string& typed, const std::string& known) {
  const std::string a = normalise(typed), b = normalise(known);
  if (a == b) return 0;
  if (std::min(a.size(), b.size()) >= 3 && (b.rfind(a, 0) == 0 || a.rfind(b, 0) == 0)) return 1;
  const std::size_t d = editDistance(a, b);
  const std::size_t limit = std::max<std::size_t>(1, std::min(a.size(), b.size()) / 3);
  if (d <= limit) return 1 + d;
  if (a.size() >= 5 && b.find(a) != std::string::npos) return 10;
  return std::nullopt;
}

std::optional<std::string> nearest(const std::string& typed, const std::vector<std::string>& known) {
  std::optional<std::size_t> best;
  std::string name;
  for (const auto& k : known) {
    auto c = closeness(typed, k);
    if (c && (!best || *c < *best)) {
      best = c;
      name = k;
    }
  }
  if (!best) return std::nullopt;
  return name;
}

// ---------------------------------------------------------------------------------------------
// The check.

class Checker {
 public:
  Checker(const Config& c, const Schema& s) : c_(c), s_(s) {}

  std::vector<EffectiveKey> run(GpuParams& out) {
    walk("");
    for (const auto& k : s_.keys)
      if (k.required && c_.kind(k.path) == Config::Kind::Missing && !underBadSection(k.path))
        errors_.push_back(fmt::format("{}: error: missing required key '{}' ({})", c_.sourceName(), k.path,
                                      k.description));
    readValues();
    applyInstances();
    throwIfErrors();
    consistency();
    throwIfErrors();
    out = p_;
    std::vector<EffectiveKey> eff;
    for (const auto& k : s_.keys) {
      EffectiveKey e;
      e.path = k.path;
      e.value = valueText(k.field(p_));
      e.quoted = k.type == Type::String &&
                 (e.value.empty() || detail::parseConfigDouble(e.value) || detail::parseConfigBool(e.value) ||
                  e.value == "null" || e.value == "~" || e.value == "Null" || e.value == "NULL");
      e.default_origin =
          k.preset                   ? fmt::format("dram preset '{}' at {} MHz", p_.dram.standard, p_.clocks.dram_clock_mhz)
          : !k.default_from.empty() ? "as " + k.default_from
                                     : "default";
      eff.push_back(std::move(e));
    }
    // Per-instance choices follow the schema's keys: SMs by SM then block, then L2 slices, then
    // DRAM channels.
    for (const auto& [map, prefix] : {std::pair{&p_.sm.scheduler_impl_of, "sm[{}].scheduler.impl"},
                                      std::pair{&p_.sm.coalescer_impl_of, "sm[{}].coalescer.impl"},
                                      std::pair{&p_.l2.impl_of, "l2[{}].impl"},
                                      std::pair{&p_.dram.impl_of, "dram[{}].impl"}})
      for (const auto& [index, impl] : *map) {
        EffectiveKey e;
        e.path = fmt::format(fmt::runtime(prefix), index);
        e.value = impl;
        e.default_origin = "default";
        eff.push_back(std::move(e));
      }
    return eff;
  }

 private:
  const Config& c_;
  const Schema& s_;
  GpuParams p_;
  std::vector<std::string> errors_;

  void throwIfErrors() {
    if (errors_.empty()) return;
    std::string msg;
    for (std::size_t i = 0; i < errors_.size(); ++i) msg += (i ? "\n" : "") + errors_[i];
    throw ConfigError(msg);
  }

  // A key under a section that is written as something other than a mapping (reported already).
  bool underBadSection(const std::string& path) const {
    for (std::string p = parentOf(path); !p.empty(); p = parentOf(p)) {
      const auto kind = c_.kind(p);
      if (kind != Config::Kind::Missing && kind != Config::Kind::Map && kind != Config::Kind::Null) return true;
    }
    return false;
  }

  std::string describe(const std::string& path) const {
    switch (c_.kind(path)) {
      case Config::Kind::Null: return "nothing";
      case Config::Kind::Map: return "a mapping";
      case Config::Kind::Sequence: return "a list";
      case Config::Kind::Scalar: return (c_.quoted(path) ? "the string '" : "'") + c_.scalar(path) + "'";
      case Config::Kind::Missing: return "nothing";
    }
    return {};
  }

  // Unknown keys and misplaced mappings.
  void walk(const std::string& section) {
    for (const auto& key : c_.keys(section)) {
      const std::string path = section.empty() ? key : section + "." + key;
      if (section.empty() && isInstanceKey(key)) {
        walkInstance(key);
      } else if (s_.isSection(path)) {
        const auto kind = c_.kind(path);
        if (kind == Config::Kind::Map) walk(path);
        else if (kind != Config::Kind::Null)
          errors_.push_back(fmt::format("{}: error: key '{}': expected a mapping of keys, got {}", c_.where(path),
                                        path, describe(path)));
      } else if (!s_.key(path)) {
        errors_.push_back(fmt::format("{}: error: unknown key '{}'{}", c_.whereKey(path), path, suggestion(section, key)));
      }
    }
  }

  std::string suggestion(const std::string& section, const std::string& key) const {
    static const std::vector<std::string> none;
    auto it = s_.children.find(section);
    const std::vector<std::string>& siblings = it == s_.children.end() ? none : it->second;
    if (auto n = nearest(key, siblings)) return fmt::format("; did you mean '{}'?", *n);
    // The same name in another section (sm.hash -> l2.hash).
    for (const auto& k : s_.keys)
      if (normalise(leafOf(k.path)) == normalise(key)) return fmt::format("; did you mean '{}'?", k.path);
    for (const auto& sec : s_.sections)
      if (normalise(leafOf(sec.path)) == normalise(key)) return fmt::format("; did you mean '{}'?", sec.path);
    const std::string where = section.empty() ? "the top level" : "'" + section + "'";
    if (siblings.size() <= 12) return fmt::format(" (the keys of {} are: {})", where, joinChoices(siblings));
    return fmt::format(" (docs/config.md lists the keys of {})", where);
  }

  // ---- rtl-verif: per-instance block implementations ------------------------------------------
  // At the top level, `sm[N]:` holds `scheduler.impl` and `coalescer.impl` for SM N alone (all of
  // its schedulers, its coalescer), `l2[J]:` holds `impl` for slice J's tag/MSHR stage and
  // `dram[C]:` `impl` for channel C's command scheduler; the block kind's `sm.scheduler.impl`,
  // `sm.coalescer.impl`, `l2.impl`, `dram.impl` apply to every other instance. Nothing else may be
  // set per instance: the key, the block, the impl and (once the counts are read) the index are
  // checked, each error at its file:line:col.
  struct InstanceKind {
    const char* name;     // "sm": the key is "sm[N]"
    const char* what;     // "SM": the index's name in messages
    const char* count;    // the key holding the number of instances
    std::vector<std::string> blocks;  // the blocks under it ("scheduler", ...), or none: `impl` directly
  };
  static const std::vector<InstanceKind>& instanceKinds() {
    static const std::vector<InstanceKind> kinds{{"sm", "SM", "sm.count", {"scheduler", "coalescer"}},
                                                 {"l2", "L2 slice", "l2.slices", {}},
                                                 {"dram", "DRAM channel", "dram.channels", {}}};
    return kinds;
  }
  struct InstanceImpl {
    std::string path;  // "sm[3].scheduler.impl", "l2[1].impl"
    std::string kind;  // "sm", "l2", "dram"
    std::int64_t index;
    std::string block, impl;  // block: "" for l2 and dram
  };
  std::vector<InstanceImpl> instance_impls_;
  static const std::vector<std::string>& implChoices() {
    static const std::vector<std::string> impls{"model", "rtl", "cosim"};
    return impls;
  }
  static const InstanceKind* instanceKind(const std::string& key) {
    for (const auto& k : instanceKinds()) {
      const std::string open = std::string(k.name) + "[";
      if (key.size() > open.size() && key.compare(0, open.size(), open) == 0 && key.back() == ']') return &k;
    }
    return nullptr;
  }
  static bool isInstanceKey(const std::string& key) { return instanceKind(key) != nullptr; }

  void walkInstance(const std::string& key) {
    const InstanceKind& kind = *instanceKind(key);
    const std::size_t open = std::string(kind.name).size() + 1;
    const std::string idx = key.substr(open, key.size() - open - 1);
    const auto index = detail::parseConfigInt(idx);
    if (!index || *index < 0 || idx.find_first_not_of("0123456789") != std::string::npos) {
      errors_.push_back(fmt::format("{}: error: key '{}': the {} index must be a non-negative integer, got '{}'",
                                    c_.whereKey(key), key, kind.what, idx));
      return;
    }
    if (c_.kind(key) != Config::Kind::Map) {
      errors_.push_back(fmt::format("{}: error: key '{}': expected a mapping {}, got {}", c_.where(key), key,
                                    kind.blocks.empty() ? std::string("with 'impl'")
                                                        : "of blocks (" + joinChoices(kind.blocks) + ")",
                                    describe(key)));
      return;
    }
    if (kind.blocks.empty()) {
      walkInstanceImpl(kind, key, *index, "", kind.name);
      return;
    }
    for (const auto& block : c_.keys(key)) {
      const std::string bpath = key + "." + block;
      if (std::find(kind.blocks.begin(), kind.blocks.end(), block) == kind.blocks.end()) {
        auto n = nearest(block, kind.blocks);
        errors_.push_back(fmt::format("{}: error: unknown block '{}' in '{}'{}", c_.whereKey(bpath), block, bpath,
                                      n ? fmt::format("; did you mean '{}.{}'?", key, *n)
                                        : fmt::format(" (the blocks that can be chosen per {} are: {})", kind.what,
                                                      joinChoices(kind.blocks))));
        continue;
      }
      if (c_.kind(bpath) != Config::Kind::Map) {
        errors_.push_back(fmt::format("{}: error: key '{}': expected a mapping with 'impl', got {}", c_.where(bpath),
                                      bpath, describe(bpath)));
        continue;
      }
      walkInstanceImpl(kind, bpath, *index, block, std::string(kind.name) + "." + block);
    }
  }
  // The keys of one instance's block (`mapping`: "sm[1].scheduler", "l2[0]"), of which only `impl`
  // exists; `kind_path` is the block kind's section ("sm.scheduler", "l2").
  void walkInstanceImpl(const InstanceKind& kind, const std::string& mapping, std::int64_t index,
                        const std::string& block, const std::string& kind_path) {
    for (const auto& leaf : c_.keys(mapping)) {
      const std::string path = mapping + "." + leaf;
      if (leaf != "impl") {
        errors_.push_back(fmt::format("{}: error: unknown key '{}' (only 'impl' can be set per instance; the "
                                      "{}'s other keys are those of '{}')",
                                      c_.whereKey(path), path, block.empty() ? std::string(kind.what) : "block",
                                      kind_path));
        continue;
      }
      const std::string text = c_.kind(path) == Config::Kind::Scalar ? c_.scalar(path) : std::string();
      if (std::find(implChoices().begin(), implChoices().end(), text) == implChoices().end()) {
        auto n = nearest(text, implChoices());
        errors_.push_back(fmt::format("{}: error: key '{}': expected one of {}; got {}{}", c_.where(path), path,
                                      joinChoices(implChoices()), describe(path),
                                      n ? fmt::format(" (did you mean '{}'?)", *n) : std::string()));
        continue;
      }
      instance_impls_.push_back({path, kind.name, index, block, text});
    }
  }

  // After readValues: the index against the instance count; the choices into the parameters.
  void applyInstances() {
    for (const auto& i : instance_impls_) {
      const InstanceKind& kind = *instanceKind(i.kind + "[0]");
      const std::uint32_t count = i.kind == "sm" ? p_.sm.count : i.kind == "l2" ? p_.l2.slices : p_.dram.channels;
      if (i.index >= std::int64_t(count)) {
        errors_.push_back(fmt::format("{}: error: key '{}': {} index {} is out of range: {} is {} ({}[0] .. {}[{}])",
                                      c_.whereKey(i.path.substr(0, i.path.find('.'))), i.path, kind.what, i.index,
                                      kind.count, count, i.kind, i.kind, count - 1));
        continue;
      }
      auto& map = i.kind == "l2"                ? p_.l2.impl_of
                  : i.kind == "dram"            ? p_.dram.impl_of
                  : i.block == "scheduler"      ? p_.sm.scheduler_impl_of
                                                : p_.sm.coalescer_impl_of;
      map[std::uint32_t(i.index)] = i.impl;
    }
  }
  // ---- end rtl-verif -----------------------------------------------------------------------------

  void valueError(const KeySpec& k, const std::string& msg) {
    errors_.push_back(fmt::format("{}: error: key '{}': {}", c_.where(k.path), k.path, msg));
  }

  std::string typeName(const KeySpec& k) const {
    switch (k.type) {
      case Type::Int: return k.pow2 ? "a power of two" : "an integer";
      case Type::Number: return "a number";
      case Type::String: return k.choices.empty() ? "a string" : "one of " + joinChoices(k.choices);
      case Type::Bool: return "true or false";
    }
    return {};
  }

  // Reads an explicit scalar into the field; false (with an error recorded) if it does not fit.
  bool readExplicit(const KeySpec& k) {
    const auto kind = c_.kind(k.path);
    if (kind != Config::Kind::Scalar) {
      valueError(k, fmt::format("expected {}, got {}", typeName(k), describe(k.path)));
      return false;
    }
    const std::string text = c_.scalar(k.path);
    const bool quoted = c_.quoted(k.path);
    FieldRef f = k.field(p_);
    switch (k.type) {
      case Type::Int: {
        auto v = quoted ? std::nullopt : detail::parseConfigInt(text);
        if (!v) {
          valueError(k, fmt::format("expected {}, got {}", k.pow2 ? "an integer (a power of two)" : "an integer",
                                    describe(k.path)));
          return false;
        }
        if (*v < k.imin || *v > k.imax) {
          valueError(k, fmt::format("expected {}, got {}", intRangeText(k), *v));
          return false;
        }
        if (k.pow2 && !isPow2(std::uint64_t(*v))) {
          valueError(k, fmt::format("expected a power of two, got {}", *v));
          return false;
        }
        if (f.kind == FieldRef::U32) *static_cast<std::uint32_t*>(f.ptr) = std::uint32_t(*v);
        else *static_cast<std::uint64_t*>(f.ptr) = std::uint64_t(*v);
        return true;
      }
      case Type::Number: {
        auto v = quoted ? std::nullopt : detail::parseConfigDouble(text);
        if (!v) {
          valueError(k, fmt::format("expected a number, got {}", describe(k.path)));
          return false;
        }
        if (!(k.zero_ok ? *v >= 0 : *v > 0) || *v > k.dmax) {
          valueError(k, fmt::format("expected a number {} 0 and <= {}, got {}", k.zero_ok ? ">=" : ">", k.dmax, text));
          return false;
        }
        *static_cast<double*>(f.ptr) = *v;
        return true;
      }
      case Type::String: {
        if (k.choices.empty()) {
          if (text.empty()) {
            valueError(k, "expected a non-empty string");
            return false;
          }
        } else if (std::find(k.choices.begin(), k.choices.end(), text) == k.choices.end()) {
          auto n = nearest(text, k.choices);
          valueError(k, fmt::format("expected one of {}; got '{}'{}", joinChoices(k.choices), text,
                                    n ? fmt::format(" (did you mean '{}'?)", *n) : std::string()));
          return false;
        }
        *static_cast<std::string*>(f.ptr) = text;
        return true;
      }
      case Type::Bool: {
        auto v = quoted ? std::nullopt : detail::parseConfigBool(text);
        if (!v) {
          valueError(k, fmt::format("expected true or false, got {}", describe(k.path)));
          return false;
        }
        *static_cast<bool*>(f.ptr) = *v;
        return true;
      }
    }
    return false;
  }

  // A value nobody wrote (the built-in default or the DRAM preset's) must fit the schema too: a
  // preset that does not is reported, not silently used.
  void checkDefault(const KeySpec& k) {
    FieldRef f = k.field(p_);
    std::optional<std::string> problem;
    switch (k.type) {
      case Type::Int: {
        const std::uint64_t v = f.kind == FieldRef::U32 ? *static_cast<std::uint32_t*>(f.ptr)
                                                        : *static_cast<std::uint64_t*>(f.ptr);
        if (std::int64_t(v) < k.imin || std::int64_t(v) > k.imax || v > std::uint64_t(kNoMax))
          problem = fmt::format("expected {}, got {}", intRangeText(k), v);
        else if (k.pow2 && !isPow2(v))
          problem = fmt::format("expected a power of two, got {}", v);
        break;
      }
      case Type::Number: {
        const double v = *static_cast<double*>(f.ptr);
        if (!(k.zero_ok ? v >= 0 : v > 0) || v > k.dmax)
          problem = fmt::format("expected a number {} 0 and <= {}, got {}", k.zero_ok ? ">=" : ">", k.dmax, v);
        break;
      }
      case Type::String: {
        const std::string& v = *static_cast<std::string*>(f.ptr);
        if (!k.choices.empty() && std::find(k.choices.begin(), k.choices.end(), v) == k.choices.end())
          problem = fmt::format("expected one of {}; got '{}'", joinChoices(k.choices), v);
        break;
      }
      case Type::Bool: break;
    }
    if (problem)
      errors_.push_back(fmt::format("{}: error: key '{}' ({}): {}", c_.sourceName(), k.path, originLabel(k), *problem));
  }

  // A key left out whose default is another key's value (read before it: schema order).
  void copyDefault(const KeySpec& k) {
    const KeySpec* from = s_.key(k.default_from);
    FieldRef to = k.field(p_), src = from->field(p_);
    if (to.kind != FieldRef::Str || src.kind != FieldRef::Str)
      throw std::logic_error("schema: " + k.path + " takes its default from a key that is not a string");
    *static_cast<std::string*>(to.ptr) = *static_cast<std::string*>(src.ptr);
  }

  std::string originLabel(const KeySpec& k) const {
    return k.preset ? fmt::format("from the dram preset '{}' at {} MHz", p_.dram.standard, p_.clocks.dram_clock_mhz)
                    : "built-in default";
  }

  // In schema order, so clocks come before dram: dram.standard picks the preset, rescaled to the
  // DRAM clock, and the dram keys after it override the preset.
  void readValues() {
    for (const auto& k : s_.keys) {
      if (c_.kind(k.path) != Config::Kind::Missing) readExplicit(k);
      else if (!k.default_from.empty()) copyDefault(k);
      else if (!k.required) checkDefault(k);
      if (k.path == "dram.standard") applyDramPreset();
    }
  }

  void applyDramPreset() {
    const std::string standard = p_.dram.standard;
    try {
      p_.dram = memsys::dramPreset(standard, p_.clocks.dram_clock_mhz);
      p_.dram.standard = standard;
    } catch (const std::exception& e) {
      const std::string loc = c_.isExplicit("dram.standard") ? c_.where("dram.standard") : c_.sourceName();
      errors_.push_back(fmt::format("{}: error: key 'dram.standard': no preset for '{}': {}", loc, standard, e.what()));
    }
  }

  // ---- Checks of combinations. Each names every key involved and is reported at the one most
  // likely to be the culprit: an override before the loaded file before a parent file before a
  // default.
  int rank(const std::string& path) const {
    if (!c_.isExplicit(path)) return 3;
    const std::string w = c_.where(path);
    if (w.rfind("--set", 0) == 0) return 0;
    const std::string& src = c_.sourceName();
    if (w == src || w.rfind(src + ":", 0) == 0) return 1;
    return 2;
  }

  void fail(std::initializer_list<std::string> keys, const std::string& msg) {
    std::string blamed = *keys.begin();
    for (const auto& k : keys)
      if (rank(k) < rank(blamed)) blamed = k;
    const KeySpec* spec = s_.key(blamed);
    if (c_.isExplicit(blamed))
      errors_.push_back(fmt::format("{}: error: key '{}': {}", c_.where(blamed), blamed, msg));
    else
      errors_.push_back(fmt::format("{}: error: key '{}' ({}): {}", c_.sourceName(), blamed, originLabel(*spec), msg));
  }

  // Checks one cache's geometry; false when it is broken (later checks that use it are skipped,
  // so one mistake gives one error).
  bool checkCache(const std::string& prefix, const CacheParams& c) {
    const std::string size = prefix + ".size_bytes", line = prefix + ".line_bytes",
                      sector = prefix + ".sector_bytes", ways = prefix + ".associativity";
    if (c.sector_bytes > c.line_bytes) {
      fail({sector, line}, fmt::format("{} ({}) must divide {} ({})", sector, c.sector_bytes, line, c.line_bytes));
      return false;
    }
    if (c.line_bytes / c.sector_bytes > 32) {
      fail({line, sector}, fmt::format("{} / {} = {} sectors per line; a sector mask holds at most 32", line, sector,
                                       c.line_bytes / c.sector_bytes));
      return false;
    }
    const std::uint64_t set_bytes = std::uint64_t(c.line_bytes) * c.associativity;
    if (c.size_bytes == 0) return true;  // no cache
    if (c.size_bytes % set_bytes != 0) {
      fail({size, line, ways}, fmt::format("{} ({}) is not a multiple of {} x {} ({} x {} = {})", size, c.size_bytes,
                                           line, ways, c.line_bytes, c.associativity, set_bytes));
    } else if (!isPow2(c.size_bytes / set_bytes)) {
      fail({size, ways, line}, fmt::format("{} / ({} x {}) = {} sets; the number of sets must be a power of two",
                                           size, line, ways, c.size_bytes / set_bytes));
    }
    return true;
  }

  void consistency() {
    const SmParams& sm = p_.sm;
    std::set<std::string> broken;
    for (const auto& [name, cache] : std::vector<std::pair<std::string, const CacheParams*>>{
             {"sm.icache", &sm.icache}, {"sm.l1", &sm.l1}, {"sm.constant_cache", &sm.constant_cache},
             {"l2.cache", &p_.l2.cache}})
      if (!checkCache(name, *cache)) broken.insert(name);

    // Requests carry a line address and a sector mask (memsys/mem_request.h): the SM's caches and
    // the L2 must agree on the sector size, and L1 misses on the line.
    for (const auto& [name, cache] : std::vector<std::pair<std::string, const CacheParams*>>{
             {"sm.l1", &sm.l1}, {"sm.icache", &sm.icache}, {"sm.constant_cache", &sm.constant_cache}}) {
      if (broken.count(name) || broken.count("l2.cache")) continue;
      if (cache->sector_bytes != p_.l2.cache.sector_bytes)
        fail({name + ".sector_bytes", "l2.cache.sector_bytes"},
             fmt::format("{}.sector_bytes ({}) must equal l2.cache.sector_bytes ({}): requests carry sector masks",
                         name, cache->sector_bytes, p_.l2.cache.sector_bytes));
      else if (name == "sm.l1" && cache->line_bytes != p_.l2.cache.line_bytes)
        fail({"sm.l1.line_bytes", "l2.cache.line_bytes"},
             fmt::format("sm.l1.line_bytes ({}) must equal l2.cache.line_bytes ({}): a miss names one line of both",
                         cache->line_bytes, p_.l2.cache.line_bytes));
      else if (cache->line_bytes > p_.l2.cache.line_bytes)
        fail({name + ".line_bytes", "l2.cache.line_bytes"},
             fmt::format("{}.line_bytes ({}) must not exceed l2.cache.line_bytes ({})", name, cache->line_bytes,
                         p_.l2.cache.line_bytes));
    }

    if (std::uint64_t(sm.max_warps_per_sm) * 32 < sm.max_threads_per_sm)
      fail({"sm.max_threads_per_sm", "sm.max_warps_per_sm"},
           fmt::format("sm.max_threads_per_sm ({}) needs {} warps, more than sm.max_warps_per_sm ({})",
                       sm.max_threads_per_sm, (sm.max_threads_per_sm + 31) / 32, sm.max_warps_per_sm));
    if (sm.max_warps_per_sm % sm.sub_cores != 0)
      fail({"sm.sub_cores", "sm.max_warps_per_sm"},
           fmt::format("sm.sub_cores ({}) must divide sm.max_warps_per_sm ({}): every sub-core holds the same number of warp slots",
                       sm.sub_cores, sm.max_warps_per_sm));
    if (sm.max_threads_per_block % 32 != 0)
      fail({"sm.max_threads_per_block"},
           fmt::format("sm.max_threads_per_block ({}) must be a multiple of the warp size, 32", sm.max_threads_per_block));
    if (sm.max_threads_per_block > sm.max_threads_per_sm)
      fail({"sm.max_threads_per_block", "sm.max_threads_per_sm"},
           fmt::format("sm.max_threads_per_block ({}) exceeds sm.max_threads_per_sm ({})", sm.max_threads_per_block,
                       sm.max_threads_per_sm));
    if (sm.max_registers_per_block > sm.registers_per_sm)
      fail({"sm.max_registers_per_block", "sm.registers_per_sm"},
           fmt::format("sm.max_registers_per_block ({}) exceeds sm.registers_per_sm ({})", sm.max_registers_per_block,
                       sm.registers_per_sm));
    if (sm.registers_per_sm % sm.register_allocation_unit_size != 0)
      fail({"sm.register_allocation_unit_size", "sm.registers_per_sm"},
           fmt::format("sm.register_allocation_unit_size ({}) must divide sm.registers_per_sm ({})",
                       sm.register_allocation_unit_size, sm.registers_per_sm));
    if (sm.shared_memory_per_block_bytes > sm.shared_memory_per_block_optin_bytes)
      fail({"sm.shared_memory_per_block_bytes", "sm.shared_memory_per_block_optin_bytes"},
           fmt::format("sm.shared_memory_per_block_bytes ({}) exceeds sm.shared_memory_per_block_optin_bytes ({})",
                       sm.shared_memory_per_block_bytes, sm.shared_memory_per_block_optin_bytes));
    if (sm.shared_memory_per_block_optin_bytes + sm.reserved_shared_memory_per_block_bytes >
        sm.shared_memory_per_sm_bytes)
      fail({"sm.shared_memory_per_block_optin_bytes", "sm.reserved_shared_memory_per_block_bytes",
            "sm.shared_memory_per_sm_bytes"},
           fmt::format("sm.shared_memory_per_block_optin_bytes ({}) + sm.reserved_shared_memory_per_block_bytes ({}) "
                       "exceeds sm.shared_memory_per_sm_bytes ({})",
                       sm.shared_memory_per_block_optin_bytes, sm.reserved_shared_memory_per_block_bytes,
                       sm.shared_memory_per_sm_bytes));
    if (sm.shared_memory_per_sm_bytes % sm.shared_memory_allocation_unit_bytes != 0)
      fail({"sm.shared_memory_allocation_unit_bytes", "sm.shared_memory_per_sm_bytes"},
           fmt::format("sm.shared_memory_allocation_unit_bytes ({}) must divide sm.shared_memory_per_sm_bytes ({})",
                       sm.shared_memory_allocation_unit_bytes, sm.shared_memory_per_sm_bytes));
    if (sm.scheduler_policy == "two_level" && sm.two_level_active_warps > sm.max_warps_per_sm / sm.sub_cores)
      fail({"sm.two_level_active_warps", "sm.max_warps_per_sm", "sm.sub_cores"},
           fmt::format("sm.two_level_active_warps ({}) exceeds the warps of one scheduler "
                       "(sm.max_warps_per_sm / sm.sub_cores = {})",
                       sm.two_level_active_warps, sm.max_warps_per_sm / sm.sub_cores));
    // The RTL must honour the block's parameters (Verilator fixes them when it builds the model):
    // checked for the block kind's impl and for each per-instance one (rtl-verif), each reported at
    // its own key.
    std::vector<std::pair<std::string, std::string>> coalescer_impls{{"sm.coalescer.impl", sm.coalescer_impl}},
        scheduler_impls{{"sm.scheduler.impl", sm.scheduler_impl}};
    for (const auto& i : instance_impls_)
      if (i.kind == "sm") (i.block == "scheduler" ? scheduler_impls : coalescer_impls).push_back({i.path, i.impl});
    for (const auto& [key, impl] : coalescer_impls) {
      if (impl == "model") continue;
      try {
        sm::timing::makeCoalescer(impl, {sm.l1.line_bytes, sm.l1.sector_bytes}, "gpu.sm.coalescer");
      } catch (const std::invalid_argument& e) {
        if (key == "sm.coalescer.impl") fail({"sm.coalescer.impl", "sm.l1.line_bytes", "sm.l1.sector_bytes"}, e.what());
        else errors_.push_back(fmt::format("{}: error: key '{}': {}", c_.where(key), key, e.what()));
      }
    }
    for (const auto& [key, impl] : scheduler_impls) {
      if (impl == "model") continue;
      sm::timing::SchedulerParams sp;
      sp.policy = sm.scheduler_policy;
      sp.sub_cores = sm.sub_cores;
      sp.warps_per_sub_core = (sm.max_warps_per_sm + sm.sub_cores - 1) / sm.sub_cores;
      sp.two_level_active_warps = sm.two_level_active_warps;
      try {
        sm::timing::makeWarpScheduler(impl, sp, "gpu.sm.sched");
      } catch (const std::invalid_argument& e) {
        if (key == "sm.scheduler.impl") fail({"sm.scheduler.impl", "sm.max_warps_per_sm", "sm.sub_cores"}, e.what());
        else errors_.push_back(fmt::format("{}: error: key '{}': {}", c_.where(key), key, e.what()));
      }
    }
    {  // each network's allocator, by its own key or crossbar.impl
      const bool rr = p_.crossbar.arbitration == "round_robin";
      bool failed = false;
      for (const auto& [key, impl, in, out, instance] :
           {std::tuple{"crossbar.request.impl", p_.crossbar.requestImpl(), sm.count, p_.l2.slices,
                       "gpu.xbar.request_arbiter"},
            std::tuple{"crossbar.response.impl", p_.crossbar.responseImpl(), p_.l2.slices, sm.count,
                       "gpu.xbar.response_arbiter"}}) {
        if (impl == "model" || (failed && !c_.isExplicit(key))) continue;  // one error for crossbar.impl
        try {
          memsys::makeCrossbarArbiter(impl, {in, out, rr}, instance);
        } catch (const std::invalid_argument& e) {
          failed = true;
          fail({key, "crossbar.impl", "sm.count", "l2.slices"}, e.what());
        }
      }
    }
    // The L2 slices' and DRAM channels' RTL, for the block kind's impl and each per-instance one
    // (every instance has the same parameters, so one check per distinct key).
    auto perInstance = [&](const char* kind, const char* kind_key, const std::string& kind_impl) {
      std::vector<std::pair<std::string, std::string>> impls{{kind_key, kind_impl}};
      for (const auto& i : instance_impls_)
        if (i.kind == kind) impls.push_back({i.path, i.impl});
      return impls;
    };
    if (!broken.count("l2.cache"))
      for (const auto& [key, impl] : perInstance("l2", "l2.impl", p_.l2.impl)) {
        if (impl == "model") continue;
        try {  // the RTL must honour the slice's geometry (Verilator fixes its maximums)
          memsys::makeL2TagMshr(impl, {p_.l2.cache}, "gpu.l2.tags");
        } catch (const std::invalid_argument& e) {
          if (key == "l2.impl")
            fail({"l2.impl", "l2.cache.size_bytes", "l2.cache.associativity", "l2.cache.mshr_entries",
                  "l2.cache.mshr_max_merge"},
                 e.what());
          else errors_.push_back(fmt::format("{}: error: key '{}': {}", c_.where(key), key, e.what()));
        }
      }
    for (const auto& [key, impl] : perInstance("dram", "dram.impl", p_.dram.impl)) {
      if (impl == "model") continue;
      try {  // every channel has the same parameters
        memsys::makeDramScheduler(impl, memsys::DramSchedParams::from(p_.dram), "gpu.dram.scheduler");
      } catch (const std::invalid_argument& e) {
        if (key == "dram.impl") fail({"dram.impl"}, e.what());
        else errors_.push_back(fmt::format("{}: error: key '{}': {}", c_.where(key), key, e.what()));
      }
    }
    if (sm.instruction_bytes > sm.icache.line_bytes)
      fail({"sm.instruction_bytes", "sm.icache.line_bytes"},
           fmt::format("sm.instruction_bytes ({}) exceeds sm.icache.line_bytes ({})", sm.instruction_bytes,
                       sm.icache.line_bytes));

    // A packet (header + a line of data) must fit the crossbar's buffers, or it can never move.
    const CrossbarParams& x = p_.crossbar;
    const std::uint64_t packet_flits =
        (std::uint64_t(x.request_header_bytes) + p_.l2.cache.line_bytes + x.flit_bytes - 1) / x.flit_bytes;
    if (x.input_buffer_flits < packet_flits)
      fail({"crossbar.input_buffer_flits", "crossbar.flit_bytes"},
           fmt::format("crossbar.input_buffer_flits ({}) cannot hold one packet of {} flits "
                       "(crossbar.request_header_bytes + l2.cache.line_bytes = {} bytes in {}-byte flits)",
                       x.input_buffer_flits, packet_flits, x.request_header_bytes + p_.l2.cache.line_bytes, x.flit_bytes));
    if (x.output_buffer_flits < packet_flits)
      fail({"crossbar.output_buffer_flits", "crossbar.flit_bytes"},
           fmt::format("crossbar.output_buffer_flits ({}) cannot hold one packet of {} flits "
                       "(crossbar.request_header_bytes + l2.cache.line_bytes = {} bytes in {}-byte flits)",
                       x.output_buffer_flits, packet_flits, x.request_header_bytes + p_.l2.cache.line_bytes, x.flit_bytes));

    // Address translation (memsys/tlb.h, memsys/page_table.h).
    const MmuParams& m = p_.mmu;
    if (m.page_bytes != 4096 && m.page_bytes != (2ull << 20) && m.page_bytes != (1ull << 30))
      fail({"mmu.page_bytes"}, fmt::format("mmu.page_bytes ({}) is not a page size of the page-table format: "
                                           "4096, 2097152 or 1073741824", m.page_bytes));
    if (m.l1_tlb_entries % m.l1_tlb_associativity != 0)
      fail({"mmu.l1_tlb_entries", "mmu.l1_tlb_associativity"},
           fmt::format("mmu.l1_tlb_entries ({}) is not a multiple of mmu.l1_tlb_associativity ({})",
                       m.l1_tlb_entries, m.l1_tlb_associativity));
    if (m.l2_tlb_entries % m.l2_tlb_associativity != 0)
      fail({"mmu.l2_tlb_entries", "mmu.l2_tlb_associativity"},
           fmt::format("mmu.l2_tlb_entries ({}) is not a multiple of mmu.l2_tlb_associativity ({})",
                       m.l2_tlb_entries, m.l2_tlb_associativity));

    // L2 slices and DRAM channels (memsys/address_map.h).
    const L2Params& l2 = p_.l2;
    const DramParams& d = p_.dram;
    if (l2.interleave_bytes < l2.cache.line_bytes)
      fail({"l2.interleave_bytes", "l2.cache.line_bytes"},
           fmt::format("l2.interleave_bytes ({}) is smaller than l2.cache.line_bytes ({}): a line would span slices",
                       l2.interleave_bytes, l2.cache.line_bytes));
    if (l2.slices % d.channels != 0 && d.channels % l2.slices != 0)
      fail({"l2.slices", "dram.channels"},
           fmt::format("l2.slices ({}) and dram.channels ({}) must divide one another: each channel serves a whole "
                       "number of slices, or each slice a whole number of channels",
                       l2.slices, d.channels));
    if (d.channel_interleave_bytes > l2.interleave_bytes)
      fail({"dram.channel_interleave_bytes", "l2.interleave_bytes"},
           fmt::format("dram.channel_interleave_bytes ({}) must not exceed l2.interleave_bytes ({}): channels are "
                       "interleaved through the slices that own them",
                       d.channel_interleave_bytes, l2.interleave_bytes));

    // DRAM.
    const DramTimingParams& t = d.timing;
    if (std::uint64_t(d.bus_width_bits) * t.burst_length / 8 != d.access_bytes)
      fail({"dram.access_bytes", "dram.bus_width_bits", "dram.timing.burst_length"},
           fmt::format("dram.access_bytes ({}) must equal dram.bus_width_bits x dram.timing.burst_length / 8 "
                       "({} x {} / 8 = {})",
                       d.access_bytes, d.bus_width_bits, t.burst_length,
                       std::uint64_t(d.bus_width_bits) * t.burst_length / 8));
    if (d.row_bytes < d.access_bytes)
      fail({"dram.row_bytes", "dram.access_bytes"},
           fmt::format("dram.row_bytes ({}) is smaller than one access, dram.access_bytes ({})", d.row_bytes,
                       d.access_bytes));
    if (d.write_drain_high_watermark > d.write_queue_entries)
      fail({"dram.write_drain_high_watermark", "dram.write_queue_entries"},
           fmt::format("dram.write_drain_high_watermark ({}) exceeds dram.write_queue_entries ({})",
                       d.write_drain_high_watermark, d.write_queue_entries));
    if (d.write_drain_low_watermark >= d.write_drain_high_watermark)
      fail({"dram.write_drain_low_watermark", "dram.write_drain_high_watermark"},
           fmt::format("dram.write_drain_low_watermark ({}) must be below dram.write_drain_high_watermark ({})",
                       d.write_drain_low_watermark, d.write_drain_high_watermark));
    if (t.tRAS < t.tRCD)
      fail({"dram.timing.tRAS", "dram.timing.tRCD"},
           fmt::format("dram.timing.tRAS ({}) is shorter than dram.timing.tRCD ({})", t.tRAS, t.tRCD));
    if (t.tRC < t.tRAS)
      fail({"dram.timing.tRC", "dram.timing.tRAS"},
           fmt::format("dram.timing.tRC ({}) is shorter than dram.timing.tRAS ({})", t.tRC, t.tRAS));
    if (t.burst_length % d.transfers_per_clock != 0)
      fail({"dram.timing.burst_length", "dram.transfers_per_clock"},
           fmt::format("dram.timing.burst_length ({}) must be a multiple of dram.transfers_per_clock ({}): a burst "
                       "takes whole command-clock cycles",
                       t.burst_length, d.transfers_per_clock));
    if (t.tCCD_L < t.tCCD_S)
      fail({"dram.timing.tCCD_L", "dram.timing.tCCD_S"},
           fmt::format("dram.timing.tCCD_L ({}) is shorter than dram.timing.tCCD_S ({})", t.tCCD_L, t.tCCD_S));
    if (t.tRRD_L < t.tRRD_S)
      fail({"dram.timing.tRRD_L", "dram.timing.tRRD_S"},
           fmt::format("dram.timing.tRRD_L ({}) is shorter than dram.timing.tRRD_S ({})", t.tRRD_L, t.tRRD_S));
    if (t.tFAW < t.tRRD_S)
      fail({"dram.timing.tFAW", "dram.timing.tRRD_S"},
           fmt::format("dram.timing.tFAW ({}) is shorter than dram.timing.tRRD_S ({})", t.tFAW, t.tRRD_S));
    if (d.refresh && t.tREFI <= t.tRFC)
      fail({"dram.timing.tREFI", "dram.timing.tRFC"},
           fmt::format("dram.timing.tREFI ({}) must exceed dram.timing.tRFC ({}): the device would never leave refresh",
                       t.tREFI, t.tRFC));
  }
};

std::string markdownCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

}  // namespace

namespace detail {
std::vector<EffectiveKey> checkSchema(const Config& config, GpuParams& out) {
  return Checker(config, schema()).run(out);
}
}  // namespace detail

GpuParams GpuParams::fromConfig(const Config& config) {
  GpuParams out;
  detail::checkSchema(config, out);
  return out;
}

std::string GpuConfig::schemaMarkdown() {
  const Schema& s = schema();
  GpuParams defaults;
  std::string md = "| key | type | allowed | default | meaning |\n|---|---|---|---|---|\n";
  std::set<std::string> printed;
  for (const auto& k : s.keys) {
    // A section's row comes before its first key.
    std::vector<std::string> sections;
    for (std::string p = parentOf(k.path); !p.empty(); p = parentOf(p)) sections.insert(sections.begin(), p);
    for (const auto& sec : sections) {
      if (!printed.insert(sec).second) continue;
      const auto& desc = s.sections[s.section_index.at(sec)].description;
      md += fmt::format("| **`{}`** | mapping | | | {} |\n", sec, markdownCell(desc));
    }
    std::string type, allowed;
    switch (k.type) {
      case Type::Int:
        type = "integer";
        allowed = k.imax == kNoMax ? fmt::format(">= {}", k.imin) : fmt::format("{} .. {}", k.imin, k.imax);
        if (k.pow2) allowed = "power of two, " + allowed;
        break;
      case Type::Number:
        type = "number";
        allowed = fmt::format("{} 0, <= {}", k.zero_ok ? ">=" : ">", k.dmax);
        break;
      case Type::String:
        type = "string";
        if (k.choices.empty()) allowed = "non-empty";
        for (std::size_t i = 0; i < k.choices.size(); ++i) allowed += (i ? ", `" : "`") + k.choices[i] + "`";
        break;
      case Type::Bool:
        type = "bool";
        allowed = "`true`, `false`";
        break;
    }
    std::string def = k.required                 ? "required"
                      : k.preset                 ? "preset"
                      : !k.default_from.empty() ? "as `" + k.default_from + "`"
                                                 : "`" + valueText(k.field(defaults)) + "`";
    md += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.path, type, allowed, def, markdownCell(k.description));
  }
  return md;
}

}  // namespace scgpu
