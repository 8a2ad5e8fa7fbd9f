// The SM timing model (see sm_core.h and README.md). Execute-at-issue: when a scheduler issues a
// warp instruction the functional core executes it at once, so values are those of functional
// mode (global stores and atomics land at the end of the cycle: sm/global_effects.h); the
// scoreboard then holds the cycle from which each written register is available (issue + operand
// collection + pipe latency, or the LSU's completion).
#include "sm/timing/sm_core.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include <fmt/format.h>

#include "memsys/sector_cache.h"
#include "sm/functional_engine.h"
#include "sm/cluster.h"
#include "sm/exec/mbarrier.h"
#include "sm/global_effects.h"
#include "sm/simt.h"
#include "sm/timing/inst_class.h"
#include "sm/timing/lsu.h"
#include "sm/timing/stall_reason.h"
#include "sm/timing/warp_scheduler.h"

namespace scgpu::sm {

using namespace timing;

namespace {

constexpr std::uint64_t kNever = ~0ull;
constexpr std::uint32_t kNoPc = 0xFFFFFFFFu;
// Instruction-cache addresses: each launch gets its own window, pc * instruction_bytes inside it.
constexpr std::uint64_t kIcacheLaunchStride = 1ull << 36;

struct ProgramInfo {
  const ptx::Program* program = nullptr;
  std::vector<InstInfo> info;
  // Per pc, for tensor-pipe instructions: cycles the pipe stays busy and the result latency.
  // Per pc, where the instruction decides them rather than its pipe (0: the pipe's): tensor-core
  // shapes, the SASS sequences of sm.sequences, and IMAD on the FP32 pipe (opTiming).
  std::vector<std::uint16_t> op_interval, op_latency;
  // Per pc, issue cycles of the sub-core an instruction's SASS sequence takes (0: one).
  std::vector<std::uint16_t> op_issue;
  // Per call and return pc: cycles its function's register saves or restores add before the warp
  // issues again (sm.call_frame_saves; 0 for the others).
  std::vector<std::uint16_t> frame_cycles;
  std::uint64_t icache_base = 0;
  std::uint64_t param_bank = 0;
};

// cp.async.wait_group N may leave the newest N committed groups in flight; cp.async.wait_all
// (decoded with aux = 1) commits the open group and leaves none. cp.async.bulk.wait_group N is
// the same for bulk groups (its aux says .read, which is timed as the full wait).
bool waitsForAllCopies(const ptx::DecodedInst& wait) { return wait.op == ptx::Op::CpAsyncWait && wait.aux == 1; }
std::size_t copyGroupsKept(const ptx::DecodedInst& wait) {
  return waitsForAllCopies(wait) ? 0 : std::size_t(wait.imm);
}

// A thread's asynchronous-copy groups (cp.async groups, or bulk groups): the open group and the
// committed ones, oldest first, each with its copies still in flight and the cycle its last copy
// completes. Ids count up from 1.
struct CopyGroups {
  struct Group {
    std::uint64_t id = 0;
    std::uint32_t pending = 0;
    std::uint64_t ready = 0;
  };
  Group open{1, 0, 0};
  std::deque<Group> committed;

  void reset() {
    open = {1, 0, 0};
    committed.clear();
  }
  // A copy joins the open group; returns the id it counts in.
  std::uint64_t add() {
    open.pending++;
    return open.id;
  }
  void commit() {
    committed.push_back(open);
    open = {open.id + 1, 0, 0};
  }
  // A copy of group `id` completed at `ready`.
  void arrived(std::uint64_t id, std::uint64_t ready) {
    Group* g = id == open.id ? &open : nullptr;
    for (auto& c : committed)
      if (c.id == id) g = &c;
    if (g) {
      g->pending--;
      g->ready = std::max(g->ready, ready);
    }
  }
  // Whether all but the newest `kept` committed groups (and the open one when `all`) are done by
  // `t`; else *until is when they will be (kNever while some copy has not arrived).
  bool done(std::size_t kept, bool all, std::uint64_t t, std::uint64_t* until) const {
    std::uint64_t ready = 0;
    bool pending = false;
    for (std::size_t i = 0; i + kept < committed.size(); ++i) {
      pending |= committed[i].pending > 0;
      ready = std::max(ready, committed[i].ready);
    }
    if (all) {
      pending |= open.pending > 0;
      ready = std::max(ready, open.ready);
    }
    if (!pending && ready <= t) return true;
    *until = pending ? ~std::uint64_t{0} : ready;
    return false;
  }
  // Forgets the groups no wait can ask for again.
  void forget(std::size_t kept) {
    while (committed.size() > kept) committed.pop_front();
  }
};
// Shared-memory bytes one warp's part of a wgmma.mma_async reads: its 16 rows of A when A comes
// from a descriptor, and a quarter of B (the warpgroup reads B once).
double wgmmaSharedBytes(const ptx::TensorOp& t) {
  const double a = t.a_desc ? 16.0 * t.k * ptx::bitsOf(t.a) / 8 : 0;
  return a + double(t.k) * t.n * ptx::bitsOf(t.b) / 8 / 4;
}

// Cycles from a cluster barrier's release to its warps' next issue, for a cluster of `blocks`.
std::uint64_t clusterBarrierLatency(const SmParams& p, std::size_t blocks) {
  return p.cluster_barrier_latency_cycles +
         std::uint64_t(std::llround(p.cluster_barrier_cycles_per_block * double(blocks - 1)));
}

// The fields that tick(), evaluate() and fetch() read for every warp they look at come first,
// packed in the struct's first 72 bytes (two host cache lines at most, of its ~700): an SM's warps
// are looked at in every cycle it ticks, and with 132 SMs their state is not in the host's caches,
// so each cache line the look touches costs a miss (measured: the first reads of a warp's fields
// were the hottest lines of the SM's tick).
struct WarpSlot {
  // ---- hot: what evaluate() and fetch() read ----
  bool used = false, exited = false;
  // w->state == AtBarrier, kept here because evaluate looks at it for every warp every cycle and
  // the Warp lives elsewhere in memory. Only a barrier instruction or a warp's exit (both issued by
  // a warp of the same block) change it; issue() refreshes the block's warps then.
  bool at_barrier = false;
  // The head's operands were all available once: they stay so until the warp issues (only its
  // own instructions make its registers busy, and results only ever become available), so the
  // scoreboard need not be looked at again for this head. Cleared when a new head is decoded.
  bool head_operands_ready = false;
  bool head_merged = false;       // the head is a shared load a merged load serves (merged_pcs)
  // The head is an instruction ptxas folds away (sm.fuse_like_ptxas): no issue slot or pipe; when
  // fused with the instruction before it, its result is ready with that one's (head_fused_src).
  bool head_alu_free = false;
  bool head_lg = false;  // the head goes to the LSU's local/global queue (InstInfo::lg)
  bool head_flex = false;  // the head may take the FP32 pipe when the integer pipe is busy (kIntAddFlex)
  Pipe head_pipe = Pipe::Int;
  Reason dep_reason = Reason::Wait;
  ptx::Op head_op = ptx::Op::Count;
  // Instruction buffer: ib_count instructions from ib_pc on, each available from its ready cycle
  // (ib_ready, a ring from ib_head; head_ready is ib_ready[ib_head] while ib_count > 0).
  std::uint32_t ib_pc = 0, ib_count = 0, ib_head = 0;
  std::uint32_t code_size = 0;    // the program's instructions: fetching stops there
  std::uint32_t head_pc = kNoPc;  // see head_regs below
  std::uint32_t extra = 0;        // the head's operand-collection cycles beyond the first
  std::uint64_t head_ready = 0;
  std::uint64_t fetch_at = 0;
  std::uint64_t next_issue = 0;   // branch resolution
  std::uint64_t barrier_until = 0;  // released from a barrier (CTA or cluster): issues from then on
  // An mbarrier.try_wait at mbar_wait_pc suspended since mbar_wait_since (kNoPc: none).
  std::uint32_t mbar_wait_pc = 0xFFFFFFFFu;
  std::uint64_t mbar_wait_since = 0;
  // A scoreboard stall known to last until dep_wake (the earliest pending operand's ready cycle;
  // kNever while only LSU results are pending). Reset when the warp issues or an LSU result
  // arrives for it.
  std::uint64_t dep_wake = 0;
  // ---- the rest ----
  Warp* w = nullptr;
  std::uint32_t block = 0, sub = 0;
  std::uint64_t age = 0;          // launch order
  std::vector<std::uint64_t> ib_ready;
  // Scoreboard over absolute register and predicate slots: available from this cycle (kNever:
  // waits for the LSU), and what it waits for.
  std::vector<std::uint64_t> reg_ready, pred_ready;
  std::vector<DepKind> reg_kind, pred_kind;
  std::uint32_t mem_outstanding = 0;
  // cp.async groups and bulk async-groups (cp.async.bulk.commit_group).
  CopyGroups cp_groups, bulk_groups;
  // wgmma groups: the cycle the open group's last wgmma.mma_async completes, and the committed
  // groups' (oldest first).
  std::uint64_t wg_open_ready = 0;
  std::deque<std::uint64_t> wg_groups;
  // The head instruction (at ib_pc) decoded for the scoreboard: absolute register slots (sources
  // first), absolute predicate slots, its pipe and operand-collection cycles. Valid while
  // head_pc == ib_pc; the frame cannot change before the warp issues.
  std::uint32_t head_regs[kMaxRegSrc + kMaxRegDst], head_preds[8];
  std::uint8_t head_n_regs = 0, head_n_preds = 0, head_n_src = 0;
  // Source registers of the warp's last issued instruction (sm.operand_reuse).
  std::uint32_t reuse_regs[8];
  std::uint8_t reuse_n = 0;
  // Shared loads whose data a merged load of their group is already bringing (InstInfo::merge_n):
  // they issue without going to the LSU, their register waits for the group's load.
  std::uint32_t merged_pcs[3] = {kNoPc, kNoPc, kNoPc};
  std::uint32_t head_fused_src = kNoPc;
};

// What the SM issued for one launch since the last commitCycle (folded into the LaunchState then:
// launches are shared by the SMs, which may tick on several host threads).
struct LaunchCounts {
  LaunchState* launch = nullptr;
  std::uint64_t warp_instructions = 0, thread_instructions = 0;
};

struct BlockSlot {
  bool used = false;
  LaunchCounts* counts = nullptr;
  std::uint32_t kernel = 0;  // the GigaThread engine's id of its launch
  BlockState state;
  LaunchState* launch = nullptr;
  std::shared_ptr<const ProgramInfo> prog;
  BlockCost cost;
  std::uint32_t live = 0;             // warps not exited
  std::uint32_t mem_outstanding = 0;  // memory instructions not complete
  std::uint64_t mem_ready = 0;        // latest completion cycle of its memory instructions
  std::uint64_t launched_at = 0;      // the core cycle it became resident
  std::vector<std::uint32_t> warp_slots;
};

struct SubCore {
  std::vector<std::uint32_t> warps;  // live warp slots, launch order
  std::unique_ptr<WarpScheduler> sched;
  std::uint64_t pipe_free[int(Pipe::Count)] = {};
  std::vector<std::uint64_t> collector_free;
  std::uint32_t fetch_rr = 0;
  // No warp's status_until is before eval_due (none needs evaluating before then); reset to 0
  // with every status_until that is (SmCore::Impl::lookAgain).
  std::uint64_t eval_due = 0;
  // No warp can fetch before this cycle: those with room wait for their first fetch, the others
  // have a full buffer or nothing left to fetch until they issue (which resets it).
  std::uint64_t fetch_idle_until = 0;
  // The tensor pipe is held over [tensor_from, pipe_free[Tensor]) by its last instruction (an
  // instruction takes it only once the one before has let go): the waveform's tensor_busy.
  std::uint64_t tensor_from = 0;
  Counter *issued = nullptr, *issued_free = nullptr, *active = nullptr;
  // This sub-core's share of pipe.tensor.*: Nsight's sm__inst_executed_pipe_tensor and
  // sm__pipe_tensor_cycles_active per SM sub-partition.
  Counter *tensor_instructions = nullptr, *tensor_busy = nullptr;
  Counter* stall[int(Reason::Count)] = {};
  // Its live warps by the state the last tick left them in (what each cycle of a sleep counts:
  // accountSleep adds these instead of walking the warps).
  std::uint16_t state_count[int(Reason::Count)] = {};
};

}  // namespace

struct SmCore::Impl {
  Impl(const SmParams& params, std::uint32_t idx, StatsRegistry& stats, const std::string& nm);

  // Per cycle.
  // Why the warp cannot issue at `now` (Ready if it can). *until: the first cycle at which the
  // answer may differ, for the reasons that belong to the warp alone (barrier, empty instruction
  // buffer, branch, scoreboard); `now` (look again next cycle) for the others. Events that end
  // such a wait early reset status_until (an LSU result, a fetch, a barrier's release).
  Reason evaluate(WarpSlot& ws, SubCore& sc, std::uint64_t now, std::uint64_t* until);
  bool operandsReady(WarpSlot& ws, std::uint64_t now);
  void decodeHead(WarpSlot& ws);
  // Fills ProgramInfo::op_interval/latency from the mma shapes and sm.tensor_* (sm_params.h).
  void opTiming(ProgramInfo& pi) const;
  void issue(std::uint32_t slot, SubCore& sc, std::uint64_t now, SchedulerTrace& tr);
  void fetch(SubCore& sc, int issued_slot, std::uint64_t now);
  // The warp's instruction buffer has room and there is code left to fetch into it.
  bool fetchRoom(const WarpSlot& ws) const {
    return !ws.exited && ws.ib_count < ib_capacity && ws.ib_pc + ws.ib_count < ws.code_size;
  }
  void fetchFor(WarpSlot& ws, std::uint64_t now);
  void applyLsuDone();
  // The SM stops with this fault, and the chip learns it (setFaultFlag).
  void raiseFault(FaultReport r) {
    fault = std::move(r);
    if (fault_flag) fault_flag->store(true, std::memory_order_relaxed);
  }
  std::atomic<bool>* fault_flag = nullptr;
  // The warp's stall reason may have changed: evaluate it at the next tick.
  void lookAgain(std::uint32_t slot) {
    status_until[slot] = 0;
    subs[warps[slot].sub].eval_due = 0;
  }
  void retireBlocks(std::uint64_t now);
  // The head instruction is an mbarrier.try_wait whose phase has not completed: true while the warp
  // stays suspended (until a completion or an arrival in its block wakes it, or the time limit).
  bool mbarrierTryWaitSuspends(WarpSlot& ws, std::uint64_t t, std::uint64_t* until);
  // Warps of a block look at their mbarrier waits again (an arrival or a copy's completion).
  void wakeMbarrierWaiters(const BlockState* block);
  void checkDeadlock(BlockSlot& b);
  void markExited(std::uint32_t slot);
  // A co-simulated block of this SM differed from its model: the run stops with the report.
  void cosimFault(const std::string& message, SubCore& sc, std::uint64_t now);

  SmParams p;
  std::uint32_t index;
  SmCore* owner = nullptr;  // for the warp observer
  std::string name;
  Lsu lsu;
  std::unique_ptr<memsys::SectorCache> icache;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> icache_fills;  // line, ready
  std::uint64_t icache_prefetched_from = ~std::uint64_t{0};  // the line the last prefetch looked ahead of
  std::uint32_t ib_capacity, instruction_bytes, icache_line_bytes, issue_width;
  bool issued_free = false;  // the last issue() took no issue slot (see SubCore::issued_free)
  PipeParams pipe[int(Pipe::Count)];

  // The launches whose blocks may come (addLaunch), by the GigaThread engine's kernel id; few.
  struct Launch {
    std::uint32_t kernel = 0;
    LaunchState* launch = nullptr;
    BlockCost cost;
    std::shared_ptr<const ProgramInfo> prog;
    std::unique_ptr<LaunchCounts> counts;  // stable while blocks point at it
  };
  std::vector<Launch> launches;
  // Global stores, atomics, printf and malloc of this cycle, applied by commitCycle.
  GlobalEffects effects{nullptr};
  const Launch* findLaunch(std::uint32_t kernel) const {
    for (const Launch& l : launches)
      if (l.kernel == kernel) return &l;
    return nullptr;
  }
  std::uint64_t launch_seq = 0;
  SmUsage usage;

  std::vector<BlockSlot> blocks;
  std::vector<WarpSlot> warps;
  std::vector<SubCore> subs;
  std::vector<Reason> status;  // per warp slot, this cycle
  std::uint32_t lsu_turn = 0;   // the sub-core that ticks first (round robin at the LSU)
  // Per warp slot: status holds until this cycle without looking at the warp again (evaluate).
  // Stalled warps are most of them on a busy GPU, and looking at each every cycle is most of the
  // model's time.
  std::vector<std::uint64_t> status_until;
  std::vector<std::uint32_t> draining;  // block slots whose warps all exited
  // No draining block can retire before this cycle: their memory operations are outstanding or
  // complete later. Looking at every draining block every cycle reached into cold memory.
  std::uint64_t retire_check_at = 0;
  std::deque<std::pair<std::uint32_t, std::uint64_t>> finished;  // (kernel, linear block id)
  std::vector<std::uint32_t> exited_now;
  std::optional<FaultReport> fault;
  std::vector<SchedulerTrace> trace;
  MemTrace mtrace;
  BulkTrace btrace;
  Operands ops;

  std::uint64_t now = 0, next_age = 0, issued_total = 0, issued_at_commit = 0;
  // Sleep: after a tick in which nothing can change before cycle sleep_until (every warp's reason
  // holds, no fetch, no LSU step, no retirement), the cycles from slept_from on are not ticked but
  // accounted in bulk when the SM ticks again (accountSleep): each would have counted what the
  // last tick counted, with no issue. 0: awake.
  bool sleep_allowed = true;
  bool hold_awake = false;  // holdAwake(): a cluster launch runs
  // Look at every warp every cycle, ignoring status_until (the reference the tests compare the
  // cached reasons with).
  bool evaluate_every_cycle = false;
  std::uint64_t sleep_until = 0, slept_from = 0;
  // Dozing: the warps sleep as above but the LSU's pipeline has steps to run (a warp waits on an
  // uncoalesced access, say). Ticks before sleep_until only step the LSU, until it finishes an
  // instruction; the warps' cycles are accounted in bulk as in a sleep.
  bool dozing = false;
  // The first cycle after t at which anything but the LSU's pipeline can change: a warp's reason
  // ends, a fetch is due, a response is handled, a draining block may retire.
  std::uint64_t warpEvent(std::uint64_t t) const;
  // One cycle of a dozing SM: the LSU's responses and step. False when a response completed an
  // access: the cycle is then a whole tick.
  bool doze(std::uint64_t cycle);
  // The LSU's queue gained room in this cycle's step: its throttled warps look in the next.
  // True when one was waiting for later.
  bool lsuQueueFreed(std::uint64_t cycle);
  void accountSleep(std::uint64_t through);  // the slept cycles up to `through`, inclusive
  std::uint32_t resident_blocks = 0, live_warps = 0, exited_resident = 0, free_warp_slots = 0;

  Counter* wgmma_smem_bytes = nullptr;
  Counter* mbarrier_suspensions = nullptr;
  Counter *shared_loads_merged, *cycles, *active_cycles, *warp_instructions, *thread_instructions, *blocks_launched, *active_warps_sum,
      *icache_hits, *icache_misses;
  Counter* warp_state[int(Reason::Count)] = {};
  // Per pipe: warp instructions issued to it and the cycles it was held (all sub-cores summed);
  // busy / (cycles x sub-cores) is Nsight's pipe utilisation (tensor: sm__pipe_tensor_cycles_active).
  Counter* pipe_instructions[int(Pipe::Count)] = {};
  Counter* pipe_busy[int(Pipe::Count)] = {};
};

SmCore::Impl::Impl(const SmParams& params, std::uint32_t idx, StatsRegistry& stats, const std::string& nm)
    : p(params), index(idx), name(nm), lsu(params, idx, stats, nm) {
  if (p.sub_cores == 0) throw std::invalid_argument("sm.sub_cores must be at least 1");
  if (p.max_warps_per_sm == 0 || p.max_blocks_per_sm == 0)
    throw std::invalid_argument("sm.max_warps_per_sm and sm.max_blocks_per_sm must be at least 1");
  ib_capacity = std::max<std::uint32_t>(p.instruction_buffer_entries, 1);
  instruction_bytes = std::max<std::uint32_t>(p.instruction_bytes, 1);
  issue_width = std::max<std::uint32_t>(p.scheduler_issue_per_cycle, 1);
  if (p.icache.size_bytes) icache = std::make_unique<memsys::SectorCache>(p.icache);
  icache_line_bytes = p.icache.line_bytes ? p.icache.line_bytes : 128;
  pipe[int(Pipe::Int)] = p.pipe_int;
  pipe[int(Pipe::Fp32)] = p.pipe_fp32;
  pipe[int(Pipe::Fp64)] = p.pipe_fp64;
  pipe[int(Pipe::Sfu)] = p.pipe_sfu;
  pipe[int(Pipe::Lsu)] = p.pipe_lsu;
  pipe[int(Pipe::Branch)] = p.pipe_branch;
  pipe[int(Pipe::Tensor)] = p.pipe_tensor;
  pipe[int(Pipe::Uniform)] = p.pipe_uniform;

  blocks.resize(p.max_blocks_per_sm);
  warps.resize(p.max_warps_per_sm);
  for (auto& ws : warps) ws.ib_ready.assign(ib_capacity, 0);
  free_warp_slots = p.max_warps_per_sm;
  status.assign(p.max_warps_per_sm, Reason::Idle);
  status_until.assign(p.max_warps_per_sm, 0);
  subs.resize(p.sub_cores);
  trace.resize(p.sub_cores);
  // A Verilated scheduler sees every cycle (its picks are compared cycle by cycle).
  sleep_allowed = p.schedulerImpl(index) == "model";
  for (std::uint32_t i = 0; i < p.sub_cores; ++i) {
    SubCore& sc = subs[i];
    const std::string s = fmt::format("{}.sched[{}]", name, i);
    SchedulerParams sp;
    sp.policy = p.scheduler_policy;
    sp.sub_cores = p.sub_cores;
    sp.sub_core = i;
    sp.warps_per_sub_core = (p.max_warps_per_sm + p.sub_cores - 1) / p.sub_cores;
    sp.two_level_active_warps = p.two_level_active_warps;
    sc.sched = makeWarpScheduler(p.schedulerImpl(index), sp, s);
    sc.collector_free.assign(p.operand_collectors, 0);
    sc.issued = stats.counter(s + ".issued", "warp instructions issued in an issue slot");
    sc.issued_free = stats.counter(s + ".issued_free",
                                   "warp instructions issued without a slot (merged shared loads, and with "
                                   "sm.fuse_like_ptxas the integer ops, copies and constants ptxas folds away)");
    sc.active = stats.counter(s + ".cycles_active", "cycles with at least one live warp");
    sc.tensor_instructions = stats.counter(s + ".tensor.instructions",
                                           "warp instructions issued to this sub-core's tensor pipe (mma, wmma.mma, wgmma)");
    sc.tensor_busy = stats.counter(s + ".tensor.busy_cycles",
                                   "cycles this sub-core's tensor pipe was held by its instructions (counted at issue)");
    for (int r = 0; r < int(Reason::Count); ++r) {
      const Reason reason = Reason(r);
      if (reason == Reason::Ready || reason == Reason::Drain) continue;
      sc.stall[r] = stats.counter(s + ".stall." + toString(reason),
                                  "cycles this scheduler recorded this reason (one reason per cycle)");
    }
  }
  for (int r = 0; r < int(Reason::Count); ++r) {
    const Reason reason = Reason(r);
    if (reason == Reason::Ready || reason == Reason::Idle) continue;
    warp_state[r] = stats.counter(name + ".warp_state." + toString(reason), "warp-cycles in this state (all resident warps)");
  }
  for (int i = 0; i < int(Pipe::Count); ++i) {
    const std::string pn = name + ".pipe." + toString(Pipe(i));
    pipe_instructions[i] = stats.counter(pn + ".instructions", "warp instructions issued to this pipe");
    pipe_busy[i] = stats.counter(pn + ".busy_cycles",
                                 "cycles the pipe was held by its instructions, summed over the sub-cores");
  }
  cycles = stats.counter(name + ".cycles", "core cycles ticked");
  wgmma_smem_bytes = stats.counter(name + ".wgmma.smem_bytes",
                                   "shared-memory bytes wgmma.mma_async read as operands (A from descriptors, B)");
  mbarrier_suspensions = stats.counter(name + ".mbarrier.suspensions",
                                       "mbarrier.try_wait waits that suspended their warp (phase not complete; the "
                                       "warp-cycles suspended are warp_state.sleeping)");
  active_cycles = stats.counter(name + ".active_cycles", "cycles with at least one resident block");
  warp_instructions = stats.counter(name + ".warp_instructions", "warp instructions issued");
  thread_instructions = stats.counter(name + ".thread_instructions", "thread instructions (active lanes) issued");
  shared_loads_merged = stats.counter(name + ".shared_loads_merged",
                                      "scalar shared loads served by the vector load of their group (as ptxas merges them)");
  blocks_launched = stats.counter(name + ".blocks_launched", "thread blocks launched");
  active_warps_sum = stats.counter(name + ".active_warps_sum", "sum over cycles of live resident warps");
  icache_hits = stats.counter(name + ".icache.hits", "instruction fetches that hit");
  icache_misses = stats.counter(name + ".icache.misses", "instruction fetches that missed");
}

// ---- per-warp readiness ----

void SmCore::Impl::opTiming(ProgramInfo& pi) const {
  const ptx::Program& prog = *pi.program;
  pi.op_interval.assign(prog.code.size(), 0);
  pi.op_latency.assign(prog.code.size(), 0);
  pi.op_issue.assign(prog.code.size(), 0);
  const PipeParams& tp = p.pipe_tensor;
  for (std::size_t pc = 0; pc < prog.code.size(); ++pc) {
    const ptx::DecodedInst& in = prog.code[pc];
    if (const Sequence seq = sequenceOf(in); seq != Sequence::None) {
      // IEEE division, reciprocal, square root, the non-ftz approximations and integer division as
      // ptxas expands them (validation/micro sm_micro *_tput/*_lat, docs/validation.md "SASS sequences").
      const SequenceParams& sp = p.sequences[std::size_t(seq)];
      pi.op_issue[pc] = std::uint16_t(std::min<std::uint32_t>(sp.issue_cycles, 65535));
      pi.op_interval[pc] = std::uint16_t(std::min<std::uint32_t>(sp.pipe_cycles, 65535));
      pi.op_latency[pc] = std::uint16_t(std::min<std::uint32_t>(sp.latency_cycles, 65535));
      continue;
    }
    if (pi.info[pc].wide_imm && p.f64_immediate_issue_cycles) {
      // The constant's moves take the sub-core's issue slots before it (sm.f64_immediate_issue_cycles).
      pi.op_issue[pc] = std::uint16_t(1 + pi.info[pc].wide_imm * p.f64_immediate_issue_cycles);
      continue;
    }
    if (!(pi.info[pc].flags & (kFused | kFree))) {
      // A 64-bit integer op takes the issue slots of its 32-bit SASS instructions
      // (sm.int64_*_issue_cycles; the second op of a fused pair rides on the first's).
      std::uint32_t slots = 0;
      switch (pi.info[pc].int64) {
        case Int64Form::Pair: slots = p.int64_pair_issue_cycles; break;
        case Int64Form::Mul: slots = p.int64_mul_issue_cycles; break;
        case Int64Form::MinMax: slots = p.int64_minmax_issue_cycles; break;
        case Int64Form::None: break;
      }
      if (slots > 1) {
        pi.op_issue[pc] = std::uint16_t(std::min<std::uint32_t>(slots, 65535));
        // Each of the halves' logic, shifts, compares and selects holds the integer pipe (IADD3,
        // LOP3, SHF, ISETP and SEL are integer-pipe instructions).
        if (pi.info[pc].pipe == Pipe::Int && pi.info[pc].int64 != Int64Form::Mul)
          pi.op_interval[pc] = std::uint16_t(std::min<std::uint32_t>(slots * p.pipe_int.initiation_interval_cycles, 65535));
      }
    }
    if (p.imad_on_fp32_pipe && (in.op == ptx::Op::Mul || in.op == ptx::Op::Mad) && pi.info[pc].pipe == Pipe::Int) {
      // IMAD, IMAD.WIDE, IMAD.HI: the FMA pipe's integer half, at the integer pipe's rate.
      pi.info[pc].pipe = Pipe::Fp32;
      pi.op_interval[pc] = std::uint16_t(std::max<std::uint32_t>(1, p.pipe_int.initiation_interval_cycles));
      continue;
    }
    if (pi.info[pc].pipe != Pipe::Tensor) continue;
    const ptx::TensorOp& t = prog.tensor_ops[prog.code[pc].target];
    if (t.kind == ptx::TensorOp::Kind::Wgmma) {
      // One warp's 16 rows on its sub-core's tensor core; its shared-memory operand bytes (A's rows
      // from a descriptor, a quarter of B) at its share of the SM's rate.
      const double work = 16.0 * t.n * t.k * ptx::bitsOf(t.a) / 16.0 / p.wgmma_work_per_cycle;
      const double smem = wgmmaSharedBytes(t) / (p.wgmma_smem_bytes_per_cycle / std::max<std::uint32_t>(p.sub_cores, 1));
      const double held = p.wgmma_issue_cycles + std::max(work, smem);
      pi.op_interval[pc] = std::uint16_t(std::min(65535.0, std::ceil(std::max(held, 1.0))));
      pi.op_latency[pc] = std::uint16_t(std::min(65535.0, double(pi.op_interval[pc]) + p.wgmma_latency_cycles));
      continue;
    }
    const double macs = double(t.m) * t.n * t.k;
    double busy, latency;
    if (t.a == ptx::MatElem::F64) {
      busy = macs / p.tensor_fp64_fma_per_cycle;
      latency = double(p.tensor_fp64_latency_cycles) * macs / 256.0;  // relative to m8n8k4
    } else {
      busy = macs * ptx::bitsOf(t.a) / 16.0 / p.tensor_work_per_cycle;
      latency = tp.latency_cycles + busy * p.tensor_latency_cycles_per_work_cycle;
    }
    pi.op_interval[pc] = std::uint16_t(std::min(65535.0, std::ceil(tp.initiation_interval_cycles + busy)));
    pi.op_latency[pc] = std::uint16_t(std::min(65535.0, std::ceil(std::max(latency, 1.0))));
  }
  // Calls into functions that call (validation/micro call_chain for the call itself; the SASS of
  // recursion's fib: VIADD R1 and five STL on entry, five LDL, VIADD R1 and RET R20 on return).
  pi.frame_cycles.assign(prog.code.size(), 0);
  if (p.call_frame_saves) {
    const std::vector<std::uint32_t> saved = savedRegistersPerFunction(prog, pi.info);
    for (std::size_t f = 0; f < prog.functions.size(); ++f) {
      if (!saved[f]) continue;
      const ptx::DecodedFunction& fn = prog.functions[f];
      for (std::uint32_t pc = fn.entry_pc; pc < fn.end_pc; ++pc)
        if (prog.code[pc].op == ptx::Op::Ret)
          pi.frame_cycles[pc] = std::uint16_t(std::min<std::uint32_t>(saved[f] + 1 + p.l1.hit_latency_cycles, 65535));
    }
    for (std::size_t pc = 0; pc < prog.code.size(); ++pc) {
      const ptx::DecodedInst& in = prog.code[pc];
      if (in.op != ptx::Op::Call || in.aux >= prog.calls.size()) continue;
      const std::uint32_t callee = prog.calls[in.aux].callee;
      if (callee < saved.size() && saved[callee])
        pi.frame_cycles[pc] =
            std::uint16_t(std::min<std::uint32_t>(saved[callee] + 1 + p.call_frame_extra_cycles, 65535));
    }
  }
}

void SmCore::Impl::decodeHead(WarpSlot& ws) {
  ws.head_operands_ready = false;
  const ProgramInfo& pi = *blocks[ws.block].prog;
  const ptx::DecodedInst& in = pi.program->code[ws.ib_pc];
  const InstInfo& info = pi.info[ws.ib_pc];
  operands(*pi.program, in, info, ops);
  const Frame& f = ws.w->frames.back();
  std::uint8_t n = 0;
  for (int i = 0; i < ops.n_reg_src; ++i) ws.head_regs[n++] = f.reg_base + ops.reg_src[i];
  for (int i = 0; i < ops.n_reg_dst; ++i) ws.head_regs[n++] = f.reg_base + ops.reg_dst[i];
  ws.head_n_regs = n;
  ws.head_n_src = std::uint8_t(ops.n_reg_src);
  n = 0;
  for (int i = 0; i < ops.n_pred_src; ++i) ws.head_preds[n++] = f.pred_base + ops.pred_src[i];
  for (int i = 0; i < ops.n_pred_dst; ++i) ws.head_preds[n++] = f.pred_base + ops.pred_dst[i];
  ws.head_n_preds = n;
  ws.head_pipe = info.pipe;
  ws.head_lg = info.lg;
  ws.head_flex = p.imad_on_fp32_pipe && (info.flags & kIntAddFlex) && info.pipe == Pipe::Int;
  ws.head_op = in.op;
  ws.head_merged = false;
  for (std::uint32_t& m : ws.merged_pcs)
    if (m == ws.ib_pc) ws.head_merged = true;
  if (ws.head_merged) {
    // No LSU, no pipe, and no write-after-write wait on its own register (pending on the group's
    // load): only its sources count.
    ws.head_n_regs = std::uint8_t(ops.n_reg_src);
  }
  ws.head_alu_free = p.fuse_like_ptxas && (info.flags & (kFused | kFree));
  ws.head_fused_src = kNoPc;
  if (ws.head_alu_free && (info.flags & kFused)) {
    // The source the fused partner writes is not waited for: the pair computes in one step.
    ws.head_fused_src = f.reg_base + info.fused_src;
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < ws.head_n_regs; ++i)
      if (i >= ops.n_reg_src || ws.head_regs[i] != ws.head_fused_src) ws.head_regs[k++] = ws.head_regs[i];
    ws.head_n_src = std::uint8_t(ws.head_n_src - (ws.head_n_regs - k));
    ws.head_n_regs = std::uint8_t(k);
  }
  // Operand collection: distinct source registers, bank = absolute slot % register_banks; the
  // most-loaded bank needs that many read cycles, one more than the single cycle of no conflict.
  std::uint32_t extra = 0;
  if (p.register_banks > 0) {
    std::uint32_t distinct[kMaxRegSrc], nd = 0;
    for (int i = 0; i < ops.n_reg_src; ++i) {
      const std::uint32_t a = ws.head_regs[i];
      bool dup = false;
      for (std::uint32_t j = 0; j < nd && !dup; ++j) dup = distinct[j] == a;
      if (p.operand_reuse)  // read by the previous instruction: served by the reuse cache
        for (std::uint32_t j = 0; j < ws.reuse_n && !dup; ++j) dup = ws.reuse_regs[j] == a;
      if (!dup) distinct[nd++] = a;
    }
    for (std::uint32_t i = 0; i < nd; ++i) {
      std::uint32_t same = 0;
      for (std::uint32_t j = 0; j < nd; ++j) same += distinct[j] % p.register_banks == distinct[i] % p.register_banks;
      extra = std::max(extra, same - 1);
    }
  }
  ws.extra = extra;
  ws.head_pc = ws.ib_pc;
  ws.dep_wake = 0;
}

// Scoreboard: sources (RAW) and destinations (WAW) of the head must be available at t. If not,
// records what the warp waits for (dep_reason) and until when (dep_wake).
bool SmCore::Impl::operandsReady(WarpSlot& ws, std::uint64_t t) {
  DepKind worst = DepKind::None;
  std::uint64_t wake = kNever;
  for (std::uint32_t i = 0; i < ws.head_n_regs; ++i) {
    const std::uint32_t a = ws.head_regs[i];
    if (a < ws.reg_ready.size() && ws.reg_ready[a] > t) {
      worst = std::max(worst, ws.reg_kind[a]);
      wake = std::min(wake, ws.reg_ready[a]);
    }
  }
  for (std::uint32_t i = 0; i < ws.head_n_preds; ++i) {
    const std::uint32_t a = ws.head_preds[i];
    if (a < ws.pred_ready.size() && ws.pred_ready[a] > t) {
      worst = std::max(worst, ws.pred_kind[a]);
      wake = std::min(wake, ws.pred_ready[a]);
    }
  }
  if (worst == DepKind::None) {
    ws.head_operands_ready = true;
    return true;
  }
  ws.dep_reason = worst == DepKind::Long ? Reason::LongScoreboard
                  : worst == DepKind::Short ? Reason::ShortScoreboard : Reason::Wait;
  ws.dep_wake = wake;
  return false;
}

Reason SmCore::Impl::evaluate(WarpSlot& ws, SubCore& sc, std::uint64_t t, std::uint64_t* until) {
  *until = t;
  if (ws.at_barrier) {
    *until = kNever;  // until the block's barrier state changes (issue())
    return Reason::Barrier;
  }
  if (ws.barrier_until > t) {  // released from a barrier, which takes this long
    *until = ws.barrier_until;
    return Reason::Barrier;
  }
  if (ws.ib_count == 0) {
    *until = kNever;  // until a fetch fills the buffer (fetchFor())
    return Reason::NoInstruction;
  }
  if (ws.head_ready > t) {
    *until = ws.head_ready;
    return Reason::NoInstruction;
  }
  if (ws.next_issue > t) {
    *until = ws.next_issue;
    return Reason::BranchResolving;
  }
  if (ws.head_pc != ws.ib_pc) decodeHead(ws);
  if (ws.dep_wake > t || (!ws.head_operands_ready && !operandsReady(ws, t))) {
    *until = ws.dep_wake;  // kNever while only LSU results are pending (applyLsuDone())
    return ws.dep_reason;
  }
  // Suspended threads are asleep to Nsight ("blocked, yielded or sleep state"), not at a CTA barrier.
  if (ws.head_op == ptx::Op::Mbarrier && mbarrierTryWaitSuspends(ws, t, until)) return Reason::Sleeping;
  if (ws.head_op == ptx::Op::CpAsyncWait || ws.head_op == ptx::Op::CpBulkWait) {
    // All but the newest N committed groups (cp.async.wait_all: every group, the open one too)
    // must have arrived: until the last of them does, or an LSU completion (applyLsuDone()).
    const ptx::DecodedInst& wait = blocks[ws.block].prog->program->code[ws.ib_pc];
    const CopyGroups& g = wait.op == ptx::Op::CpAsyncWait ? ws.cp_groups : ws.bulk_groups;
    if (!g.done(copyGroupsKept(wait), waitsForAllCopies(wait), t, until)) return Reason::LongScoreboard;
  }
  if (ws.head_op == ptx::Op::WgmmaWait) {
    // All but the newest N committed wgmma groups must be complete.
    const std::size_t keep = std::size_t(blocks[ws.block].prog->program->code[ws.ib_pc].imm);
    std::uint64_t ready = 0;
    for (std::size_t i = 0; i + keep < ws.wg_groups.size(); ++i) ready = std::max(ready, ws.wg_groups[i]);
    if (ready > t) {
      *until = ready;
      return Reason::WarpgroupArrive;
    }
  }
  if (ws.head_op == ptx::Op::WgmmaFence) {
    // Orders the warp's earlier register writes before wgmma.mma_async reads its registers: every
    // pending register result must be in. ptxas makes it WARPGROUP.ARRIVE, and Nsight counts a
    // warp waiting there as warpgroup_arrive whatever it waits for.
    std::uint64_t ready = 0;
    for (std::size_t a = 0; a < ws.reg_ready.size(); ++a)
      if (ws.reg_ready[a] > t) ready = std::max(ready, ws.reg_ready[a]);
    if (ready > t) {
      *until = ready == kNever ? t : ready;
      return Reason::WarpgroupArrive;
    }
  }
  // The sub-core's resources: until they free up, unless an issue of the sub-core takes them
  // first (tick() then has its throttled warps look again). The LSU queue only empties with time.
  const std::uint32_t extra = ws.extra;
  if (!sc.collector_free.empty()) {
    std::uint64_t first_free = kNever;
    for (std::uint64_t c : sc.collector_free) first_free = std::min(first_free, c);
    if (first_free > t) {
      *until = first_free;
      return Reason::DispatchStall;
    }
  }
  if (ws.head_merged || ws.head_alu_free) {
    // issues without a pipe
  } else {
    std::uint64_t pipe_free = sc.pipe_free[int(ws.head_pipe)];
    if (ws.head_flex) pipe_free = std::min(pipe_free, sc.pipe_free[int(Pipe::Fp32)]);
    const std::uint64_t port_free = pipe_free > extra ? pipe_free - extra : 0;  // first t' with pipe_free <= t' + extra
    if (ws.head_pipe == Pipe::Lsu) {
      // The sub-core's port first: only the sub-core's own issues change it, and they make its
      // throttled warps look again, so the reason holds until port_free whatever the shared queue
      // does. A full queue then holds the instruction in its queue's name (LG or MIO) until the
      // front instruction can have left, and the port stays free meanwhile (nothing reaches the LSU).
      if (port_free > t) {
        *until = port_free;
        return Reason::MioThrottle;
      }
      if (lsu.full()) {
        *until = lsu.earliestRoom(t);
        return ws.head_lg ? Reason::LgThrottle : Reason::MioThrottle;
      }
    } else if (port_free > t) {
      *until = port_free;
      return Reason::MathPipeThrottle;
    }
  }
  return Reason::Ready;
}

// ---- issue: execute now, schedule the results ----

namespace {
// A shared-load group merges when every lane's address is aligned to the group's bytes.
bool mergeable(const MemTrace& t, std::uint32_t bytes) {
  for (std::uint32_t m = t.mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    if (t.space[lane] != ptx::Space::Shared || t.addr[lane] % bytes != 0) return false;
  }
  return true;
}
}  // namespace

void SmCore::Impl::issue(std::uint32_t slot, SubCore& sc, std::uint64_t t, SchedulerTrace& tr) {
  WarpSlot& ws = warps[slot];
  Warp& w = *ws.w;
  BlockSlot& b = blocks[ws.block];
  const ProgramInfo& pi = *b.prog;
  const std::uint32_t pc = ws.ib_pc;
  const ptx::DecodedInst& in = pi.program->code[pc];
  const InstInfo& info = pi.info[pc];
  if (ws.head_pc != pc) decodeHead(ws);  // (evaluate has decoded it when the warp was Ready)
  const std::uint32_t extra = ws.extra;
  tr.warp = int(slot);
  tr.pc = pc;
  tr.opcode = ptx::toString(in.op);
  tr.stall = toString(Reason::Selected);

  // Destinations as absolute slots, taken before the instruction can change the frame (call/ret).
  operands(*pi.program, in, info, ops);
  const std::uint32_t n_reg = ops.n_reg_dst, n_pred = ops.n_pred_dst;
  const Frame& f = w.frames.back();
  std::uint32_t reg_dst[kMaxRegDst], pred_dst[2];
  for (std::uint32_t i = 0; i < ops.n_reg_dst; ++i) reg_dst[i] = f.reg_base + ops.reg_dst[i];
  for (std::uint32_t i = 0; i < ops.n_pred_dst; ++i) pred_dst[i] = f.pred_base + ops.pred_dst[i];
  ws.reuse_n = std::uint8_t(std::min<std::uint32_t>(ws.head_n_src, 8));
  std::copy(ws.head_regs, ws.head_regs + ws.reuse_n, ws.reuse_regs);
  const bool merged = ws.head_merged;  // its data comes with the group's first load
  const bool alu_free = ws.head_alu_free;
  const std::uint32_t fused_src = ws.head_fused_src;
  if (merged)
    for (std::uint32_t& m : ws.merged_pcs)
      if (m == pc) m = kNoPc;
  ws.head_pc = kNoPc;
  ws.dep_wake = 0;

  // Resources: an operand collector for 1 + extra cycles, the pipe for its initiation interval.
  for (auto& c : sc.collector_free)
    if (c <= t) {
      c = t + extra + 1;
      break;
    }
  if (!merged && info.pipe == Pipe::Lsu)  // the next sub-core has the first turn at the LSU
    lsu_turn = std::uint32_t((&sc - subs.data() + 1) % subs.size());
  if (!merged && !alu_free) {
    // An integer add goes to the FP32 pipe (VIADD, IMAD.IADD: ptxas moves adds off the integer pipe,
    // the one logic, shifts and compares need) unless that pipe is busy and the integer pipe is not.
    const Pipe use = ws.head_flex && sc.pipe_free[int(Pipe::Fp32)] <= t + extra ? Pipe::Fp32 : info.pipe;
    const std::uint32_t held = pi.op_interval[pc] ? pi.op_interval[pc] : pipe[int(info.pipe)].initiation_interval_cycles;
    sc.pipe_free[int(use)] = t + extra + held;
    if (const std::uint32_t issue = pi.op_issue[pc]; issue > 1) {
      // A SASS sequence: its instructions take the sub-core's next issue slots, so no pipe takes
      // another instruction before they are through (other warps see their pipe busy). The tensor
      // pipe is left alone: its busy interval is what the tensor statistics and waveform report.
      for (int q = 0; q < int(Pipe::Count); ++q)
        if (q != int(Pipe::Tensor)) sc.pipe_free[q] = std::max(sc.pipe_free[q], t + extra + issue);
    }
    ++*pipe_instructions[int(use)];
    *pipe_busy[int(use)] += held;
    if (info.pipe == Pipe::Tensor) {
      ++*sc.tensor_instructions;
      *sc.tensor_busy += held;
      sc.tensor_from = t + extra;
    }
  }
  if (alu_free || merged) issued_free = true;
  ws.ib_head = (ws.ib_head + 1) % ib_capacity;
  ws.ib_count--;
  ws.ib_pc++;
  if (ws.ib_count) ws.head_ready = ws.ib_ready[ws.ib_head];

  ExecContext c;
  c.warp = &w;
  c.block = &b.state;
  c.launch = b.launch;
  c.program = pi.program;
  c.trace = &mtrace;
  c.bulk = &btrace;
  c.effects = &effects;
  c.cycle = t;  // %clock reads the core cycle
  bindFrame(c, w);
  mtrace.clear();
  btrace.clear();
  const std::uint64_t threads_before = w.thread_instructions, warps_before = w.instructions;
  try {
    FunctionalEngine::step(c, w);
  } catch (const FaultSignal& s) {
    raiseFault(makeFaultReport(s, *b.launch, b.state, w, pc));
    return;
  }
  if (in.op == ptx::Op::BarCluster && in.sub == ptx::SubOp::BarSync && w.state != WarpState::AtBarrier &&
      b.state.cluster) {
    // A wait whose phase had completed: not before the release's latency has passed.
    const ClusterState& cs = *b.state.cluster;
    ws.barrier_until = std::max(ws.barrier_until, cs.released_at + clusterBarrierLatency(p, cs.blocks.size()));
  }
  if (in.op == ptx::Op::Mbarrier && in.sub != ptx::SubOp::MbarTryWait && in.sub != ptx::SubOp::MbarTestWait)
    wakeMbarrierWaiters(&b.state);  // an arrival may have completed a phase a warp waits for
  if (in.op == ptx::Op::Bar || in.op == ptx::Op::BarCluster || w.state == WarpState::Exited)  // may have stopped or released warps
    for (std::uint32_t s : b.warp_slots) {
      WarpSlot& o = warps[s];
      const bool released = o.at_barrier && o.w->state != WarpState::AtBarrier;
      o.at_barrier = o.w->state == WarpState::AtBarrier;
      // A released warp issues from the next cycle on, whichever sub-core ticks after this one.
      if (released) o.barrier_until = std::max(o.barrier_until, t + 1);
      lookAgain(s);
    }
  ++*(issued_free ? sc.issued_free : sc.issued);
  // The PTX's instructions (an if-converted body whose guard lets no lane through issues, as on the
  // GPU, but does not count: FunctionalEngine::step).
  *warp_instructions += w.instructions - warps_before;
  *thread_instructions += w.thread_instructions - threads_before;
  b.counts->warp_instructions += w.instructions - warps_before;
  b.counts->thread_instructions += w.thread_instructions - threads_before;
  ++issued_total;

  auto setReg = [&](std::uint32_t a, std::uint64_t ready, DepKind kind) {
    if (a >= ws.reg_ready.size()) {
      ws.reg_ready.resize(a + 1, 0);
      ws.reg_kind.resize(a + 1, DepKind::None);
    }
    ws.reg_ready[a] = ready;
    ws.reg_kind[a] = kind;
  };
  auto setPred = [&](std::uint32_t a, std::uint64_t ready, DepKind kind) {
    if (a >= ws.pred_ready.size()) {
      ws.pred_ready.resize(a + 1, 0);
      ws.pred_kind.resize(a + 1, DepKind::None);
    }
    ws.pred_ready[a] = ready;
    ws.pred_kind[a] = kind;
  };
  const std::uint64_t dispatch = t + extra;
  if (merged) {
    ++*shared_loads_merged;  // its register is pending on the group's load
  } else if (in.op == ptx::Op::CpBulk && (!btrace.lines.empty() || btrace.shared_bytes)) {
    // A bulk copy: the copy engine moves it; the issuing thread does not wait for it, its mbarrier
    // completions (or its bulk group) tell when it is done.
    LsuRequest req;
    req.warp_slot = slot;
    req.block_slot = ws.block;
    req.ready_at = dispatch + pipe[int(Pipe::Lsu)].latency_cycles + p.tma_setup_cycles;
    if (btrace.write) req.bulk_group = ws.bulk_groups.add();
    req.completions = btrace.completions;
    lsu.enqueueBulk(btrace, req);
    ws.mem_outstanding++;
    b.mem_outstanding++;
  } else if ((info.flags & kMemory) && mtrace.mask) {
    LsuRequest req;
    req.warp_slot = slot;
    req.block_slot = ws.block;
    req.ready_at = dispatch + pipe[int(Pipe::Lsu)].latency_cycles;
    req.ndst = n_reg;
    std::copy(reg_dst, reg_dst + n_reg, req.dst);
    if (info.merge_n && mergeable(mtrace, ptx::sizeOf(in.type) * info.merge_n)) {
      // ptxas's vector load: one access of merge_n elements per lane; the other loads of the group
      // issue later without the LSU, and their registers wait for this access.
      mtrace.bytes = ptx::sizeOf(in.type) * info.merge_n;
      for (std::uint32_t i = 0; i + 1 < info.merge_n; ++i) {
        const std::uint32_t mpc = pc + info.merge_delta[i];
        const std::uint32_t r = f.reg_base + pi.program->code[mpc].dst[0];
        req.dst[req.ndst++] = r;
        setReg(r, kNever, DepKind::Short);
        ws.merged_pcs[i] = mpc;
      }
    }
    req.local_stride = w.local_stride;
    req.param_bank = pi.param_bank;
    if (in.op == ptx::Op::CpAsync) req.copy_group = ws.cp_groups.add();  // counted in the warp's open group
    req.bypass_l1 = (in.op == ptx::Op::Ld || in.op == ptx::Op::CpAsync) && (in.flags & (ptx::kL1Bypass | ptx::kVolatile));
    req.serial_atomic = (in.op == ptx::Op::Atom || in.op == ptx::Op::Red) &&
                        (ptx::isFloat(in.type) || in.sub == ptx::SubOp::AExch || in.sub == ptx::SubOp::ACas);
    req.aggregated_atomic = (info.flags & kUniformAtomic) != 0;
    DepKind kind;
    try {
      kind = lsu.enqueue(mtrace, req);
    } catch (const FaultSignal& s) {  // a co-simulated block (the coalescer) diverged from its model
      raiseFault(makeFaultReport(s, *b.launch, b.state, w, pc));
      return;
    }
    for (std::uint32_t i = 0; i < n_reg; ++i) setReg(reg_dst[i], kNever, kind);
    ws.mem_outstanding++;
    b.mem_outstanding++;
  } else {
    std::uint64_t ready = dispatch + (pi.op_latency[pc] ? pi.op_latency[pc] : pipe[int(info.pipe)].latency_cycles);
    if (alu_free)  // folded away: ready now, or with its fused partner's result
      ready = fused_src != kNoPc && fused_src < ws.reg_ready.size() ? std::max(t, ws.reg_ready[fused_src]) : t;
    for (std::uint32_t i = 0; i < n_reg; ++i) setReg(reg_dst[i], ready, info.result);
    for (std::uint32_t i = 0; i < n_pred; ++i) setPred(pred_dst[i], ready, info.result);
  }
  if (info.flags & kControl)
    ws.next_issue = dispatch + ((in.op == ptx::Op::Call || in.op == ptx::Op::Ret) && p.call_latency_cycles
                                    ? p.call_latency_cycles
                                    : pipe[int(Pipe::Branch)].latency_cycles) +
                     pi.frame_cycles[pc];
  if (in.op == ptx::Op::CpAsyncCommit || (in.op == ptx::Op::CpAsyncWait && waitsForAllCopies(in))) ws.cp_groups.commit();
  if (in.op == ptx::Op::CpBulkCommit) ws.bulk_groups.commit();
  if (in.op == ptx::Op::CpAsyncWait) ws.cp_groups.forget(copyGroupsKept(in));  // groups no wait can ask for again
  if (in.op == ptx::Op::CpBulkWait) ws.bulk_groups.forget(copyGroupsKept(in));
  if (in.op == ptx::Op::Wgmma) {
    ws.wg_open_ready = std::max(ws.wg_open_ready, dispatch + pi.op_latency[pc]);
    *wgmma_smem_bytes += std::uint64_t(wgmmaSharedBytes(pi.program->tensor_ops[in.target]));
  }
  if (in.op == ptx::Op::WgmmaCommit) {
    ws.wg_groups.push_back(ws.wg_open_ready);
    ws.wg_open_ready = 0;
  }
  if (in.op == ptx::Op::WgmmaWait)
    while (ws.wg_groups.size() > std::size_t(in.imm)) ws.wg_groups.pop_front();

  if (w.state == WarpState::Exited) {
    markExited(slot);
    onWarpExited(b.state);
    checkDeadlock(b);
    return;
  }
  const std::uint32_t next_pc = w.stack.back().pc;
  if (next_pc != ws.ib_pc) {  // taken branch, divergence, reconvergence, call or return: refetch
    ws.ib_count = 0;
    ws.ib_pc = next_pc;
  }
  if (w.state == WarpState::AtBarrier) checkDeadlock(b);
}

void SmCore::Impl::markExited(std::uint32_t slot) {
  WarpSlot& ws = warps[slot];
  BlockSlot& b = blocks[ws.block];
  ws.exited = true;
  ws.ib_count = 0;
  b.live--;
  live_warps--;
  exited_resident++;
  exited_now.push_back(slot);
  if (b.live == 0) {
    draining.push_back(ws.block);
    retire_check_at = 0;
  }
  if (owner->on_warp) owner->on_warp(slot, ws.sub, b.state.linear_id, false, now);
}

// Every live warp of the block waits at a barrier that nothing can release any more.
void SmCore::Impl::checkDeadlock(BlockSlot& b) {
  if (fault || b.live == 0) return;
  const Warp* first = nullptr;
  for (const Warp& x : b.state.warps) {
    if (x.state == WarpState::Ready) return;
    // Waiting for the other blocks of its cluster: their arrival releases it (the watchdogs see a
    // cluster that never completes).
    if (x.state == WarpState::AtBarrier && x.barrier_id == kClusterBarrierId && b.state.cluster &&
        b.state.cluster->blocks.size() > 1)
      return;
    if (x.state == WarpState::AtBarrier && !first) first = &x;
  }
  if (!first) return;
  const ptx::Program& prog = *b.launch->program;
  std::string detail;
  for (const Warp& x : b.state.warps) {
    if (x.state != WarpState::AtBarrier) continue;
    if (x.barrier_id == kClusterBarrierId) {
      detail += fmt::format("\n  warp {} waits at the cluster barrier (pc {}, {})", x.index, x.barrier_pc,
                            prog.ptxLocation(x.barrier_pc));
      continue;
    }
    const BarrierState& bs = b.state.barriers[x.barrier_id];
    detail += fmt::format("\n  warp {} waits at barrier {} (pc {}, {}): {} of {} warps arrived", x.index, x.barrier_id,
                          x.barrier_pc, prog.ptxLocation(x.barrier_pc), bs.arrived_warps,
                          bs.expected_warps ? bs.expected_warps : liveWarps(b.state));
  }
  FaultSignal s{"barrier deadlock", "every live warp waits at a barrier that can never complete:" + detail,
                std::uint32_t(__builtin_ctz(first->stack.empty() ? 1u : (first->stack.back().mask | 0x80000000u)))};
  raiseFault(makeFaultReport(s, *b.launch, b.state, *first, first->barrier_pc));
}

// ---- fetch ----

void SmCore::Impl::fetchFor(WarpSlot& ws, std::uint64_t t) {
  const ProgramInfo& pi = *blocks[ws.block].prog;
  const std::uint32_t pc = ws.ib_pc + ws.ib_count;
  const std::uint64_t addr = pi.icache_base + std::uint64_t(pc) * instruction_bytes;
  const std::uint64_t line = addr & ~std::uint64_t(icache_line_bytes - 1);
  // Sequential instructions from the same line, as many as the buffer takes.
  std::uint32_t n = std::uint32_t((line + icache_line_bytes - addr + instruction_bytes - 1) / instruction_bytes);
  n = std::max<std::uint32_t>(n, 1);
  n = std::min<std::uint32_t>(n, ib_capacity - ws.ib_count);
  n = std::min<std::uint32_t>(n, std::uint32_t(pi.program->code.size()) - pc);
  icache_fills.erase(std::remove_if(icache_fills.begin(), icache_fills.end(),
                                    [&](const auto& fl) { return fl.second <= t; }),
                     icache_fills.end());
  std::uint64_t ready = 0;
  for (const auto& fl : icache_fills)
    if (fl.first == line) ready = fl.second;
  if (ready) {
    ++*icache_misses;  // the line is being filled: wait for it
  } else {
    const std::uint64_t end = std::min<std::uint64_t>(addr + std::uint64_t(n) * instruction_bytes, line + icache_line_bytes);
    const std::uint32_t mask = icache ? icache->sectorMask(addr, std::uint32_t(end - addr)) : 1;
    if (icache && icache->access(addr, mask, false, t).miss_mask == 0) {
      ++*icache_hits;
      ready = t + p.icache.hit_latency_cycles;
    } else {
      ++*icache_misses;
      ready = t + p.icache_miss_latency_cycles;
      // With prefetch the whole line comes, not only the sectors this fetch needs.
      if (icache) icache->fill(addr, p.icache_prefetch_lines ? icache->sectorMask(line, icache_line_bytes) : mask, false, t);
      icache_fills.emplace_back(line, ready);
    }
  }
  // Sequential prefetch: the next lines of the code, unless present or on their way (looked at
  // once per line the SM fetches from, not once per fetch).
  if (icache && line != icache_prefetched_from) {
    icache_prefetched_from = line;
    for (std::uint32_t d = 1; d <= p.icache_prefetch_lines; ++d) {
      const std::uint64_t next = line + std::uint64_t(d) * icache_line_bytes;
      const std::uint32_t all = icache->sectorMask(next, icache_line_bytes);
      if (icache->probe(next, all).miss_mask == 0) continue;
      bool in_flight = false;
      for (const auto& fl : icache_fills) in_flight |= fl.first == next;
      if (in_flight) continue;
      icache->fill(next, all, false, t);
      icache_fills.emplace_back(next, t + p.icache_miss_latency_cycles);
    }
  }
  if (ws.ib_count == 0) ws.head_ready = ready;
  for (std::uint32_t i = 0; i < n; ++i) {
    ws.ib_ready[(ws.ib_head + ws.ib_count) % ib_capacity] = ready;
    ws.ib_count++;
  }
  lookAgain(std::uint32_t(&ws - warps.data()));  // the buffer changed: look at the warp again
}

// One fetch per sub-core per cycle: first a warp with an empty buffer (round robin), else the
// warp that just issued, else any warp with room (round robin).
void SmCore::Impl::cosimFault(const std::string& message, SubCore& sc, std::uint64_t now) {
  // Named after the sub-core's oldest warp: the divergence is the scheduler's, not a thread's.
  const WarpSlot& ws = warps[sc.warps.front()];
  const BlockSlot& b = blocks[ws.block];
  FaultSignal sig{"cosim divergence", fmt::format("at cycle {}: {}", now, message), 0};
  raiseFault(makeFaultReport(sig, *b.launch, b.state, *ws.w, ws.head_pc == kNoPc ? ws.ib_pc : ws.head_pc));
  fault->cycle = now;
}

void SmCore::Impl::fetch(SubCore& sc, int issued_slot, std::uint64_t t) {
  auto eligible = [&](const WarpSlot& ws) { return ws.fetch_at <= t && fetchRoom(ws); };
  const std::uint32_t n = std::uint32_t(sc.warps.size());
  if (n == 0 || t < sc.fetch_idle_until) return;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1 && issued_slot >= 0 && eligible(warps[std::uint32_t(issued_slot)])) {
      fetchFor(warps[std::uint32_t(issued_slot)], t);
      return;
    }
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t i = (sc.fetch_rr + k) % n;
      WarpSlot& ws = warps[sc.warps[i]];
      if (!eligible(ws) || (pass == 0 && ws.ib_count != 0)) continue;
      sc.fetch_rr = (i + 1) % n;
      fetchFor(ws, t);
      return;
    }
  }
  // Nothing to fetch: not before the first warp with room may (an issue resets this).
  std::uint64_t next = kNever;
  for (std::uint32_t slot : sc.warps) {
    if (fetchRoom(warps[slot])) next = std::min(next, warps[slot].fetch_at);
  }
  sc.fetch_idle_until = next;
}

// ---- memory completion and retirement ----

void SmCore::Impl::applyLsuDone() {
  auto& done = lsu.done();
  for (const LsuDone& d : done) {
    WarpSlot& ws = warps[d.warp_slot];
    for (std::uint32_t i = 0; i < d.ndst; ++i)
      if (d.dst[i] < ws.reg_ready.size()) ws.reg_ready[d.dst[i]] = d.ready;
    if (d.copy_group) ws.cp_groups.arrived(d.copy_group, d.ready);  // one copy fewer in flight
    if (d.bulk_group) ws.bulk_groups.arrived(d.bulk_group, d.ready);
    // A bulk copy's mbarrier completions: a warp waiting on the barrier sees the phase complete now.
    for (const BulkTrace::Completion& c : d.completions) {
      mbarrierCompleteTx(c.block->shared.data() + c.offset, c.bytes);
      wakeMbarrierWaiters(c.block);
    }
    ws.mem_outstanding--;
    ws.dep_wake = 0;  // a pending result got its time: re-check the scoreboard
    lookAgain(d.warp_slot);
    BlockSlot& b = blocks[d.block_slot];
    b.mem_outstanding--;
    b.mem_ready = std::max(b.mem_ready, d.ready);
    retire_check_at = 0;  // a draining block may be done now
  }
  done.clear();
}

bool SmCore::Impl::mbarrierTryWaitSuspends(WarpSlot& ws, std::uint64_t t, std::uint64_t* until) {
  BlockSlot& b = blocks[ws.block];
  const ptx::DecodedInst& in = b.prog->program->code[ws.ib_pc];
  if (in.sub != ptx::SubOp::MbarTryWait) return false;
  Warp& w = *ws.w;
  ExecContext c;
  c.warp = &w;
  c.block = &b.state;
  c.launch = b.launch;
  c.program = b.prog->program;
  bindFrame(c, w);
  c.mask = w.stack.back().mask;
  if (in.guard != ptx::kNoSlot) c.mask &= in.guard_negated ? ~c.P[in.guard] : c.P[in.guard];
  if (!c.mask || !mbarrierWaitPending(c, in)) {
    ws.mbar_wait_pc = kNoPc;
    return false;
  }
  if (ws.mbar_wait_pc != ws.ib_pc) {
    ws.mbar_wait_pc = ws.ib_pc;
    ws.mbar_wait_since = t;
    ++*mbarrier_suspensions;
  }
  const std::uint64_t limit = ws.mbar_wait_since + p.mbarrier_try_wait_limit_cycles;
  if (t >= limit) {  // the time limit: the try_wait issues and returns false
    ws.mbar_wait_pc = kNoPc;
    return false;
  }
  *until = limit;
  return true;
}

void SmCore::Impl::wakeMbarrierWaiters(const BlockState* block) {
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (&blocks[i].state == block)
      for (std::uint32_t s : blocks[i].warp_slots)
        if (warps[s].head_op == ptx::Op::Mbarrier) lookAgain(s);
}

void SmCore::Impl::retireBlocks(std::uint64_t t) {
  if (t < retire_check_at) return;
  retire_check_at = kNever;
  for (std::size_t i = 0; i < draining.size();) {
    BlockSlot& b = blocks[draining[i]];
    if (b.mem_outstanding || b.mem_ready > t) {
      // Not before its last memory operation completes (an LSU result resets retire_check_at).
      if (!b.mem_outstanding) retire_check_at = std::min(retire_check_at, b.mem_ready);
      ++i;
      continue;
    }
    for (std::uint32_t s : b.warp_slots) {
      WarpSlot& ws = warps[s];
      ws.used = false;
      ws.w = nullptr;
      status[s] = Reason::Idle;
    }
    free_warp_slots += std::uint32_t(b.warp_slots.size());
    exited_resident -= std::uint32_t(b.warp_slots.size());
    b.warp_slots.clear();
    usage.remove(b.cost);
    resident_blocks--;
    finished.emplace_back(b.kernel, b.state.linear_id);
    leaveCluster(*b.launch, b.state);
    b.used = false;
    b.prog.reset();
    draining.erase(draining.begin() + long(i));
  }
}

// ---- SmCore ----

// ---- sleeping through cycles in which nothing can change ----

std::uint64_t SmCore::Impl::warpEvent(std::uint64_t t) const {
  // A handled response may finish an instruction and wake its warp.
  std::uint64_t next = std::max(lsu.nextResponse(), t + 1);
  if (!draining.empty()) next = std::min(next, std::max(retire_check_at, t + 1));
  for (const SubCore& sc : subs)
    for (std::uint32_t s : sc.warps) {
      // Issued, ready, or a reason that is looked at every cycle (pipes, collectors): awake.
      next = std::min(next, std::max(status_until[s], t + 1));
      const WarpSlot& ws = warps[s];
      if (fetchRoom(ws)) next = std::min(next, std::max(ws.fetch_at, t + 1));  // a fetch would happen then
      if (next <= t + 1) return t + 1;
    }
  return next;
}

bool SmCore::Impl::doze(std::uint64_t cycle) {
  now = cycle;
  // A response that completes an access is for the warps in this very cycle: the whole tick runs
  // (its handleResponses finds nothing more to do).
  lsu.handleResponses(cycle);
  if (!lsu.done().empty()) return false;
  lsu.step(cycle);
  // The warps waiting for room in the queue look in the next cycle: the SM is awake then.
  if (lsu.takeQueueFreed() && lsuQueueFreed(cycle)) sleep_until = std::min(sleep_until, cycle + 1);
  if (!lsu.done().empty() || (!draining.empty() && retire_check_at <= cycle)) {
    // Something for the warps: this cycle counts as they were, then the SM is awake.
    accountSleep(cycle);
    applyLsuDone();
    retireBlocks(cycle);
    return true;
  }
  const std::uint64_t next = lsu.nextEvent(cycle);
  if (next > cycle + 1) {  // the pipeline ran dry: sleep on
    dozing = false;
    sleep_until = std::min(sleep_until, next);
  }
  return true;
}

void SmCore::Impl::accountSleep(std::uint64_t through) {
  const std::uint64_t from = slept_from;
  sleep_until = 0;
  dozing = false;
  if (through < from) return;
  const std::uint64_t k = through - from + 1;
  // What each slept cycle would have counted: the statistics of a tick without issue, fetch or
  // LSU work, with every warp in the state the last tick left it in.
  *cycles += k;
  if (resident_blocks) *active_cycles += k;
  *active_warps_sum += k * live_warps;
  *warp_state[int(Reason::Drain)] += k * exited_resident;
  for (std::uint32_t si = 0; si < subs.size(); ++si) {
    SubCore& sc = subs[si];
    if (fault || sc.warps.empty()) {
      if (!fault) *sc.stall[int(Reason::Idle)] += k;
      continue;
    }
    // The reason a tick records for the sub-core: the best of its warps' (none is ready; a warp
    // that issued its exit in the last tick has left the list and its count).
    int best = -1;
    for (int r = 0; r < int(Reason::Count); ++r)
      if (sc.state_count[r]) {
        if (best < 0) best = r;
        *warp_state[r] += k * sc.state_count[r];
      }
    *sc.active += k;
    *sc.stall[best < 0 ? int(Reason::Idle) : best] += k;
  }
}

SmCore::SmCore(const SmParams& p, std::uint32_t index, StatsRegistry& stats, const std::string& name)
    : impl_(std::make_unique<Impl>(p, index, stats, name)) { impl_->owner = this; }

SmCore::~SmCore() = default;

void SmCore::addLaunch(std::uint32_t kernel, LaunchState* launch, const KernelResources& k) {
  Impl& m = *impl_;
  if (!launch || !launch->program) throw std::invalid_argument("SmCore::addLaunch: no launch or program");
  removeLaunch(kernel);
  Impl::Launch l;
  l.kernel = kernel;
  l.launch = launch;
  l.cost = blockCost(m.p, k);
  auto info = std::make_shared<ProgramInfo>();
  info->program = launch->program;
  info->info = classifyProgram(*launch->program);
  for (InstInfo& ii : info->info) {  // what the SM's datapath makes of ptxas's choices
    if (m.p.uniform_datapath && (ii.flags & kUniformOp) && ii.pipe == Pipe::Int) ii.pipe = Pipe::Uniform;
    if ((ii.flags & kAddressFoldImm) || (m.p.uniform_datapath && (ii.flags & kAddressFoldUniform))) ii.flags |= kFree;
  }
  m.opTiming(*info);
  ++m.launch_seq;
  info->icache_base = m.launch_seq * kIcacheLaunchStride;
  info->param_bank = kParamSyntheticBase + (m.launch_seq % 4096) * kParamBankBytes;
  l.prog = std::move(info);
  l.counts = std::make_unique<LaunchCounts>();
  l.counts->launch = launch;
  m.launches.push_back(std::move(l));
  m.effects.setMemory(launch->memory);
  m.effects.page = {};  // the page tables may have changed since the last kernel
}

void SmCore::removeLaunch(std::uint32_t kernel) {
  auto& v = impl_->launches;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const Impl::Launch& l) { return l.kernel == kernel; }), v.end());
}

bool SmCore::canLaunchBlock(std::uint32_t kernel) const {
  const Impl& m = *impl_;
  const Impl::Launch* l = m.findLaunch(kernel);
  if (m.fault || !l) return false;
  if (m.resident_blocks >= m.blocks.size() || m.free_warp_slots < l->cost.warps) return false;
  return fits(m.p, m.usage, l->cost);
}

void SmCore::launchBlock(std::uint32_t kernel, std::uint64_t linear_block_id, std::uint64_t cycle) {
  Impl& m = *impl_;
  settle(cycle);  // the slept cycles count the warps as they were, before this block's
  const Impl::Launch* l = m.findLaunch(kernel);
  if (!l) throw std::logic_error("SmCore::launchBlock: kernel " + std::to_string(kernel) + " was not added");
  std::uint32_t bi = 0;
  while (bi < m.blocks.size() && m.blocks[bi].used) ++bi;
  if (bi == m.blocks.size()) throw std::logic_error("SmCore::launchBlock: no free block slot (check canLaunchBlock)");
  BlockSlot& b = m.blocks[bi];
  try {
    initBlock(b.state, *l->launch, linear_block_id, m.index);
    b.state.tpc = m.index / std::max<std::uint32_t>(m.p.sms_per_tpc, 1);
    joinCluster(*l->launch, b.state);
    // An arrival at the cluster barrier (maybe another block's, on another SM) releases this
    // block's waiting warps: they issue again after the barrier's latency.
    b.state.on_cluster_release = [&m, bi](std::uint64_t cycle) {
      const ClusterState* cs = m.blocks[bi].state.cluster;
      const std::uint64_t until = cycle + clusterBarrierLatency(m.p, cs ? cs->blocks.size() : 1);
      for (std::uint32_t s : m.blocks[bi].warp_slots) {
        WarpSlot& ws = m.warps[s];
        if (ws.at_barrier && ws.w->state != WarpState::AtBarrier) ws.barrier_until = until;
        ws.at_barrier = ws.w->state == WarpState::AtBarrier;
        m.lookAgain(s);
      }
    };
  } catch (const FaultSignal& s) {
    if (!m.fault) {
      Warp dummy;
      const Warp& w = b.state.warps.empty() ? dummy : b.state.warps.front();
      m.raiseFault(makeFaultReport(s, *l->launch, b.state, w, l->launch->program->functions[0].entry_pc));
    }
    return;
  }
  const std::uint32_t nwarps = std::uint32_t(b.state.warps.size());
  if (nwarps > m.free_warp_slots)
    throw std::logic_error("SmCore::launchBlock: not enough free warp slots (check canLaunchBlock)");
  b.used = true;
  b.kernel = kernel;
  b.launch = l->launch;
  b.counts = l->counts.get();
  b.prog = l->prog;
  b.cost = l->cost;
  b.live = nwarps;
  b.mem_outstanding = 0;
  b.mem_ready = 0;
  b.launched_at = cycle;
  b.warp_slots.clear();
  m.usage.add(l->cost);
  m.resident_blocks++;
  ++*m.blocks_launched;
  std::uint32_t slot = 0;
  for (std::uint32_t i = 0; i < nwarps; ++i) {
    while (m.warps[slot].used) ++slot;
    WarpSlot& ws = m.warps[slot];
    Warp& w = b.state.warps[i];
    ws.used = true;
    ws.exited = false;
    ws.at_barrier = false;
    m.status_until[slot] = 0;
    ws.w = &w;
    ws.block = bi;
    ws.sub = slot % m.p.sub_cores;
    ws.age = m.next_age++;
    ws.fetch_at = cycle + m.p.block_launch_latency_cycles;
    ws.ib_pc = w.stack.back().pc;
    ws.ib_count = ws.ib_head = 0;
    ws.code_size = std::uint32_t(b.launch->program->code.size());
    ws.next_issue = 0;
    ws.barrier_until = 0;
    ws.mbar_wait_pc = kNoPc;
    ws.reg_ready.assign(w.regs.size() / kWarpSize, 0);
    ws.reg_kind.assign(ws.reg_ready.size(), DepKind::None);
    ws.pred_ready.assign(w.preds.size(), 0);
    ws.pred_kind.assign(ws.pred_ready.size(), DepKind::None);
    ws.mem_outstanding = 0;
    ws.cp_groups.reset();
    ws.bulk_groups.reset();
    ws.wg_open_ready = 0;
    ws.wg_groups.clear();
    ws.head_pc = kNoPc;
    ws.dep_wake = 0;
    ws.extra = 0;
    ws.reuse_n = 0;
    for (std::uint32_t& m : ws.merged_pcs) m = kNoPc;
    b.warp_slots.push_back(slot);
    m.subs[ws.sub].warps.push_back(slot);
    m.subs[ws.sub].eval_due = m.subs[ws.sub].fetch_idle_until = 0;
    m.subs[ws.sub].sched->add(slot);
    m.status[slot] = Reason::NoInstruction;
    m.live_warps++;
    m.free_warp_slots--;
    if (on_warp) on_warp(slot, ws.sub, linear_block_id, true, cycle);
  }
}

bool SmCore::hasFinishedBlock() const { return !impl_->finished.empty(); }

bool SmCore::popFinishedBlock(std::uint32_t* kernel, std::uint64_t* linear_block_id) {
  Impl& m = *impl_;
  if (m.finished.empty()) return false;
  if (kernel) *kernel = m.finished.front().first;
  if (linear_block_id) *linear_block_id = m.finished.front().second;
  m.finished.pop_front();
  return true;
}

void SmCore::attachTranslation(const MmuParams& mmu, memsys::Tlb* shared_l2, StatsRegistry& stats) {
  impl_->lsu.attachTranslation(mmu, shared_l2, stats);
}
void SmCore::invalidateTranslations() {
  impl_->lsu.invalidateTranslations();
  impl_->effects.page = {};
}

void SmCore::commitCycle() {
  Impl& m = *impl_;
  needs_commit_ = false;
  m.lsu.commitTranslations();  // L1 TLB misses come from the LSU's own steps too
  if (!m.effects.empty()) m.effects.apply();  // (also those of an instruction that faulted half-way)
  if (m.issued_total == m.issued_at_commit) return;  // issued nothing: no counts to add
  m.issued_at_commit = m.issued_total;
  for (Impl::Launch& l : m.launches) {
    LaunchCounts& n = *l.counts;
    n.launch->warp_instructions += n.warp_instructions;
    n.launch->thread_instructions += n.thread_instructions;
    n.warp_instructions = n.thread_instructions = 0;
  }
}

bool SmCore::hasMemRequest() const { return impl_->lsu.hasRequest(); }
const memsys::MemRequest& SmCore::peekMemRequest() const { return impl_->lsu.peekRequest(); }
void SmCore::popMemRequest(std::uint64_t cycle) {
  Impl& m = *impl_;
  const bool blocked = m.lsu.blockedOnCrossbar();
  m.lsu.popRequest();
  if (!blocked) return;
  // The LSU can go on. Its queue frees only in its step, and the warps waiting for room look again
  // in the cycle after it does (lsuQueueFreed); their other conditions change only with an issue,
  // which has them look again. So only the LSU has work: an SM asleep dozes from the next cycle.
  // (Under a queue of atomics the crossbar takes an SM's request every few cycles; a whole tick
  // for each, and a look of every throttled warp at the room the queue might have had by then,
  // were a third of the run.)
  if (!m.dozing && m.sleep_until > cycle + 1) m.dozing = true;
}

bool SmCore::Impl::lsuQueueFreed(std::uint64_t cycle) {
  bool any = false;
  for (std::uint32_t s = 0; s < status.size(); ++s)
    if ((status[s] == timing::Reason::MioThrottle || status[s] == timing::Reason::LgThrottle) &&
        status_until[s] > cycle + 1) {
      status_until[s] = cycle + 1;
      SubCore& sc = subs[warps[s].sub];
      sc.eval_due = std::min(sc.eval_due, cycle + 1);
      any = true;
    }
  return any;
}
void SmCore::acceptMemResponse(const memsys::MemRequest& r, std::uint64_t cycle) {
  Impl& m = *impl_;
  // Asleep: the SM dozes from the next cycle, and wakes fully when the response completes an
  // access (Impl::doze). A response that only counts down an access's acknowledgements (a
  // reduction's passes under a queue of atomics) has nothing for the warps.
  if (!m.dozing && m.sleep_until > cycle + 1) m.dozing = true;
  else if (!m.dozing) settle(cycle);  // awake from the next cycle on
  m.lsu.acceptResponse(r, cycle);
}

void SmCore::tick(std::uint64_t cycle) {
  Impl& m = *impl_;
  if (m.dozing && cycle < m.sleep_until && m.doze(cycle)) {
    needs_commit_ = m.lsu.translationsPending();
    return;
  }
  if (m.sleep_until) m.accountSleep(cycle - 1);
  m.now = cycle;
  ++*m.cycles;
  if (m.resident_blocks) ++*m.active_cycles;
  *m.active_warps_sum += m.live_warps;
  *m.warp_state[int(Reason::Drain)] += m.exited_resident;

  m.lsu.handleResponses(cycle);
  m.applyLsuDone();

  // The sub-cores share the SM's LSU queue (and whatever else is the SM's): the first to ask in a
  // cycle gets what has freed up, so they take turns as a round-robin arbiter grants them: the
  // sub-core after the last one to send an instruction to the LSU goes first. In a fixed order
  // sub-core 0 won every freed LSU slot and the last sub-core finished alone
  // (validation/micro smem_load_*: 1.1-1.25x the H100's cycles); turning the order round every
  // cycle still let one sub-core win every slot when slots freed every 4 cycles (128-bit loads,
  // validation/micro/warp_order smem_v4: its warps ended at a quarter of the others' time).
  const std::uint32_t n_subs = std::uint32_t(m.subs.size());
  const std::uint32_t first = m.lsu_turn;  // an issue below moves the turn on for the next cycle
  for (std::uint32_t k = 0; k < n_subs; ++k) {
    const std::uint32_t si = (first + k) % n_subs;
    SubCore& sc = m.subs[si];
    SchedulerTrace& tr = m.trace[si];
    tr = SchedulerTrace{};
    if (m.fault || sc.warps.empty()) {
      tr.stall = toString(Reason::Idle);
      if (!m.fault) ++*sc.stall[int(Reason::Idle)];
      continue;
    }
    ++*sc.active;
    if (sc.eval_due <= cycle || m.evaluate_every_cycle) {
      std::uint64_t due = kNever;
      for (std::uint32_t s : sc.warps) {
        if (m.status_until[s] <= cycle || m.evaluate_every_cycle)
          m.status[s] = m.evaluate(m.warps[s], sc, cycle, &m.status_until[s]);
        due = std::min(due, m.status_until[s]);
      }
      sc.eval_due = due;
    }
    int first_issued = -1;
    // A shared load served by its group's merged load does not exist in the SASS ptxas makes:
    // it takes no issue slot of the cycle (another warp may issue in it).
    std::uint32_t free_issues = 0;
    for (std::uint32_t k = 0; k < m.issue_width + free_issues && !m.fault; ++k) {
      if (k > 0)  // the first issue took a collector and a pipe: re-check the others
        for (std::uint32_t s : sc.warps)
          if (m.status[s] == Reason::Ready) m.status[s] = m.evaluate(m.warps[s], sc, cycle, &m.status_until[s]);
      const int idx = sc.sched->pick(sc.warps, m.status);
      if (const std::string* d = sc.sched->divergence()) {  // co-simulated RTL differed from the model
        m.cosimFault(*d, sc, cycle);
        break;
      }
      if (idx < 0) break;
      const std::uint32_t slot = sc.warps[std::size_t(idx)];
      SchedulerTrace t;
      m.issued_free = false;
      m.issue(slot, sc, cycle, t);
      if (m.issued_free) ++free_issues;
      else ++t.slot_issues;
      // It took a collector (and a pipe): the warps throttled on them look again next cycle.
      for (std::uint32_t s : sc.warps)
        if (m.status[s] == Reason::MathPipeThrottle || m.status[s] == Reason::MioThrottle ||
            m.status[s] == Reason::LgThrottle || m.status[s] == Reason::DispatchStall)
          m.lookAgain(s);
      m.status[slot] = Reason::Selected;
      m.lookAgain(slot);
      sc.fetch_idle_until = 0;  // its buffer has room now, or it exited
      sc.sched->issued(slot);
      if (first_issued < 0) {
        first_issued = int(slot);
        tr = t;
      } else {
        tr.slot_issues += t.slot_issues;
      }
    }
    Reason best = Reason::Idle;
    std::uint16_t* count = sc.state_count;
    std::fill(count, count + int(Reason::Count), std::uint16_t{0});
    for (std::uint32_t s : sc.warps) {
      Reason& r = m.status[s];
      if (r == Reason::Ready) r = Reason::NotSelected;
      if (r < best) best = r;
      ++count[int(r)];
    }
    for (int r = 0; r < int(Reason::Count); ++r)
      if (count[r]) *m.warp_state[r] += count[r];
    if (first_issued >= 0) best = Reason::Selected;
    ++*sc.stall[int(best)];
    if (first_issued < 0) tr.stall = toString(best);
    // Warps that exited this cycle leave the scheduler.
    if (!m.exited_now.empty()) {
      for (std::uint32_t s : m.exited_now) {
        sc.warps.erase(std::find(sc.warps.begin(), sc.warps.end(), s));
        sc.sched->remove(s);
        --count[int(m.status[s])];
      }
      m.exited_now.clear();
      if (sc.fetch_rr >= sc.warps.size()) sc.fetch_rr = 0;
    }
    if (!m.fault) m.fetch(sc, first_issued, cycle);
  }

  m.lsu.step(cycle);
  if (m.lsu.takeQueueFreed()) m.lsuQueueFreed(cycle);
  m.applyLsuDone();
  m.retireBlocks(cycle);
  needs_commit_ = !m.effects.empty() || m.lsu.translationsPending() || m.issued_total != m.issued_at_commit;
  if (m.sleep_allowed && !m.hold_awake && !m.fault && m.resident_blocks) {
    const std::uint64_t warps_next = m.warpEvent(cycle);
    if (warps_next > cycle + 1) {
      const std::uint64_t lsu_next = m.lsu.nextEvent(cycle);
      m.dozing = lsu_next <= cycle + 1;
      m.sleep_until = m.dozing ? warps_next : std::min(warps_next, lsu_next);
      m.slept_from = cycle + 1;
    }
  }
}

bool SmCore::asleepAt(std::uint64_t cycle) const { return !impl_->dozing && impl_->sleep_until > cycle; }
std::uint64_t SmCore::wakeCycle() const { return impl_->dozing ? 0 : impl_->sleep_until; }

void SmCore::settle(std::uint64_t cycle) {
  if (impl_->sleep_until) impl_->accountSleep(cycle);
}

void SmCore::setFaultFlag(std::atomic<bool>* flag) { impl_->fault_flag = flag; }
void SmCore::setSleepAllowed(bool allowed) { impl_->sleep_allowed = allowed && impl_->sleep_allowed; }
void SmCore::setEvaluateEveryCycle(bool every) { impl_->evaluate_every_cycle = every; }
void SmCore::holdAwake(bool awake) { impl_->hold_awake = awake; }
void SmCore::invalidateCaches() {
  impl_->lsu.invalidateCaches();
  if (impl_->icache) impl_->icache->invalidateAll();
}

bool SmCore::idle() const {
  const Impl& m = *impl_;
  return (m.resident_blocks == 0 || m.fault) && m.lsu.idle();
}

const std::optional<FaultReport>& SmCore::fault() const { return impl_->fault; }

bool SmCore::checkHungBlocks(std::uint64_t cycle, std::uint64_t limit) {
  Impl& m = *impl_;
  if (m.fault) return false;
  for (BlockSlot& b : m.blocks) {
    if (!b.used || b.live == 0 || cycle - b.launched_at <= limit) continue;
    const auto live = std::find_if(b.state.warps.begin(), b.state.warps.end(),
                                   [](const Warp& x) { return x.state != WarpState::Exited; });
    if (live == b.state.warps.end()) continue;
    const Warp* first = &*live;
    const std::uint32_t mask = first->stack.empty() ? 1u : first->stack.back().mask;
    FaultSignal s{"watchdog",
                  fmt::format("the block has been resident for {} core cycles without finishing "
                              "(watchdog.block_resident_cycles = {}; raise it with --set "
                              "watchdog.block_resident_cycles=N for kernels whose blocks run that long); "
                              "warps:{}",
                              cycle - b.launched_at, limit, describeLiveWarps(b.state, *b.launch->program)),
                  std::uint32_t(__builtin_ctz(mask | 0x80000000u))};
    m.raiseFault(makeFaultReport(s, *b.launch, b.state, *first, first->stack.empty() ? 0 : first->stack.back().pc));
    m.fault->cycle = cycle;
    return true;
  }
  return false;
}

std::uint64_t SmCore::instructionsIssued() const { return impl_->issued_total; }

const std::vector<SmCore::SchedulerTrace>& SmCore::lastCycle() const { return impl_->trace; }

std::string SmCore::dumpState() const {
  const Impl& m = *impl_;
  std::string s = fmt::format("{} at cycle {}: {} resident blocks, {} live warps{}\n", m.name, m.now, m.resident_blocks,
                              m.live_warps, m.fault ? ", stopped by a fault" : "");
  for (std::uint32_t slot = 0; slot < m.warps.size(); ++slot) {
    const WarpSlot& ws = m.warps[slot];
    if (!ws.used) continue;
    const BlockSlot& b = m.blocks[ws.block];
    const Warp& w = *ws.w;
    const ptx::Program& prog = *b.prog->program;
    s += fmt::format("  warp slot {} (block {}, warp {}, sub-core {}): ", slot, b.state.linear_id, w.index, ws.sub);
    if (ws.exited) {
      s += fmt::format("exited, {} memory instructions outstanding\n", ws.mem_outstanding);
      continue;
    }
    const std::uint32_t pc = w.stack.back().pc;
    s += fmt::format("pc {} ({}: {}), {}, stall {}, ibuffer {}, active mask {:08x}, memory instructions {}", pc,
                     pc < prog.code.size() ? prog.ptxLocation(pc) : "?", pc < prog.text.size() ? prog.text[pc] : "?",
                     w.state == WarpState::AtBarrier ? fmt::format("at barrier {}", w.barrier_id) : "ready",
                     toString(m.status[slot]), ws.ib_count, w.stack.back().mask, ws.mem_outstanding);
    std::string pending;
    for (std::uint32_t r = 0; r < ws.reg_ready.size(); ++r)
      if (ws.reg_ready[r] > m.now)
        pending += ws.reg_ready[r] == kNever ? fmt::format(" r{}(memory)", r) : fmt::format(" r{}(@{})", r, ws.reg_ready[r]);
    for (std::uint32_t r = 0; r < ws.pred_ready.size(); ++r)
      if (ws.pred_ready[r] > m.now) pending += fmt::format(" p{}(@{})", r, ws.pred_ready[r]);
    s += pending.empty() ? "\n" : ", pending:" + pending + "\n";
  }
  for (std::uint32_t i = 0; i < m.subs.size(); ++i)
    if (!m.subs[i].warps.empty())
      s += fmt::format("  sub-core {}: {} live warps, scheduler {}\n", i, m.subs[i].warps.size(), m.subs[i].sched->name());
  if (!m.draining.empty()) {
    s += "  blocks draining memory:";
    for (std::uint32_t bi : m.draining)
      s += fmt::format(" {}({} instructions)", m.blocks[bi].state.linear_id, m.blocks[bi].mem_outstanding);
    s += "\n";
  }
  if (!m.finished.empty()) s += fmt::format("  finished blocks not yet collected: {}\n", m.finished.size());
  s += m.lsu.dump();
  return s;
}

SmCore::Occupancy SmCore::occupancy(std::uint64_t cycle) const {
  const Impl& m = *impl_;
  Occupancy o;
  o.resident_blocks = m.resident_blocks;
  o.live_warps = m.live_warps;
  for (const Reason r : m.status) {
    o.barrier_waits += r == Reason::Barrier;
    o.mbarrier_waits += r == Reason::Sleeping;
  }
  o.lsu_queue = m.lsu.queueDepth();
  o.l1_mshrs = m.lsu.mshrUsed();
  o.tma_in_flight = m.lsu.bulkInFlight();
  for (std::uint32_t i = 0; i < m.subs.size() && i < 32; ++i) {
    const SubCore& sc = m.subs[i];
    if (sc.tensor_from <= cycle && cycle < sc.pipe_free[int(Pipe::Tensor)]) o.tensor_busy |= 1u << i;
  }
  return o;
}

}  // namespace scgpu::sm
