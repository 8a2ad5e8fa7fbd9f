// The SM timing model (sm/timing) driven directly: one SmCore, kernels written here in PTX, a
// fixed-latency fake memory answering its requests. Every expectation is a formula derived from
// the parameters set in the test (latencies, cache geometry, bank counts), not a recorded run.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <cmath>
#include <numeric>

#include "memsys/backing_store.h"
#include "ptx/decoder.h"
#include "ptx/parser.h"
#include "ptx/schedule.h"
#include "sm/exec/handlers.h"
#include "sm/functional_engine.h"
#include "sm/timing/inst_class.h"
#include "sm/timing/sm_core.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"
#include "validation/tensor/wgmma_inputs.h"

namespace scgpu::sm {
namespace {

const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

CacheParams cache(std::uint64_t size, std::uint32_t line, std::uint32_t sector, std::uint32_t ways,
                  std::uint32_t hit_latency) {
  CacheParams c;
  c.size_bytes = size;
  c.line_bytes = line;
  c.sector_bytes = sector;
  c.associativity = ways;
  c.hit_latency_cycles = hit_latency;
  c.mshr_entries = 32;
  c.mshr_max_merge = 8;
  return c;
}

// The parameters the formulas below refer to.
SmParams testParams() {
  SmParams p;
  p.sub_cores = 1;
  p.scheduler_policy = "gto";
  p.block_launch_latency_cycles = 8;
  p.icache = cache(16384, 128, 32, 4, 1);
  p.icache_miss_latency_cycles = 20;
  p.instruction_bytes = 16;
  p.instruction_buffer_entries = 2;
  p.register_banks = 64;  // no bank conflicts unless a test wants them
  p.operand_collectors = 2;
  p.pipe_int = {4, 1};
  p.pipe_fp32 = {4, 1};
  p.pipe_fp64 = {8, 2};
  p.pipe_sfu = {16, 4};
  p.pipe_lsu = {5, 1};
  p.pipe_branch = {2, 1};
  p.lsu_queue_entries = 16;
  p.shared_memory_banks = 32;
  p.shared_memory_bank_width_bytes = 4;
  p.shared_memory_latency_cycles = 23;
  p.l1 = cache(65536, 128, 32, 4, 30);
  p.constant_cache = cache(2048, 64, 64, 4, 4);
  p.constant_miss_latency_cycles = 100;
  return p;
}

// One SM, one kernel, a memory that answers every request after `mem_latency` cycles.
class Bench {
 public:
  Bench(const std::string& body, const std::string& kernel, SmParams params = testParams(),
        std::uint32_t mem_latency = 200)
      : memory_(1ull << 32), p_(params), mem_latency_(mem_latency) {
    ir_ = ptx::parseModule(std::string(kHeader) + body, "test.ptx");
    ptx::DecodeEnv env;
    env.symbol_address = [this](const std::string& name, std::uint64_t& addr) {
      auto it = globals_.find(name);
      if (it == globals_.end()) return false;
      addr = it->second;
      return true;
    };
    env.select_handler = &selectHandler;
    const auto layout = ptx::moduleGlobals(ir_);
    for (const auto& g : layout) globals_[g.name] = memory_.allocate(std::max<std::uint64_t>(g.size, 1), g.name);
    for (const auto& g : layout) {
      auto bytes = ptx::initialBytes(*g.decl, g.size, env, ir_.source_name);
      memory_.write(globals_[g.name], bytes.data(), bytes.size());
    }
    prog_ = ptx::decodeKernel(ir_, kernel, env);
    launch_.program = &prog_;
    launch_.memory = &memory_;
    launch_.params.assign(prog_.param_buffer_bytes, 0);
    sm_ = std::make_unique<SmCore>(p_, 0, stats_, "sm");
  }

  std::uint64_t alloc(std::uint64_t bytes) { return memory_.allocate(bytes); }
  template <typename T>
  void param(std::size_t i, T v) {
    ASSERT_EQ(prog_.params.at(i).size, sizeof(T));
    std::memcpy(launch_.params.data() + prog_.params[i].offset, &v, sizeof(T));
  }
  void configure(std::uint32_t threads, std::uint32_t grid = 1) {
    launch_.block[0] = threads;
    launch_.grid[0] = grid;
    KernelResources k;
    k.threads_per_block = threads;
    k.registers_per_thread = 32;
    k.static_shared_bytes = prog_.static_shared_bytes;
    sm_->addLaunch(0, &launch_, k);
  }

  // One cycle: deliver due responses, tick, record issues, send new requests to the fake memory.
  void tick() {
    while (!in_flight_.empty() && in_flight_.front().first <= cycle_) {
      sm_->acceptMemResponse(in_flight_.front().second, cycle_);
      in_flight_.pop_front();
    }
    sm_->tick(cycle_);
    sm_->commitCycle();  // as GpuTop does after every SM ticked
    sampleOccupancy();
    const auto& tr = sm_->lastCycle();
    for (std::size_t s = 0; s < tr.size(); ++s)
      if (tr[s].warp >= 0) issues_.push_back({cycle_, int(s), tr[s].warp, tr[s].pc});
    while (sm_->hasMemRequest()) {
      memsys::MemRequest r = sm_->peekMemRequest();
      sm_->popMemRequest(cycle_);
      requests_.push_back(r);
      r.response = true;
      in_flight_.emplace_back(cycle_ + mem_latency_, r);
    }
    ++cycle_;
  }

  // Launches block `id` now and ticks until it finishes; returns finish cycle - launch cycle.
  std::uint64_t runBlock(std::uint32_t id) {
    const std::uint64_t start = cycle_;
    EXPECT_TRUE(sm_->canLaunchBlock(0));
    sm_->launchBlock(0, id, cycle_);
    for (std::uint64_t limit = cycle_ + 1000000; cycle_ < limit;) {
      tick();
      std::uint32_t kernel;
      std::uint64_t done;
      if (sm_->popFinishedBlock(&kernel, &done)) {
        EXPECT_EQ(done, id);
        return cycle_ - 1 - start;
      }
      if (sm_->fault()) break;
    }
    ADD_FAILURE() << "block did not finish: " << (sm_->fault() ? sm_->fault()->toString() : sm_->dumpState());
    return 0;
  }

  // Runs blocks 0..grid-1, as many resident at once as fit; returns the cycles taken.
  std::uint64_t runGrid(std::uint32_t grid) {
    const std::uint64_t start = cycle_;
    std::uint32_t next = 0, finished = 0;
    for (std::uint64_t limit = cycle_ + 10000000; cycle_ < limit && finished < grid;) {
      while (next < grid && sm_->canLaunchBlock(0)) sm_->launchBlock(0, next++, cycle_);
      tick();
      while (sm_->popFinishedBlock(nullptr, nullptr)) ++finished;
      if (sm_->fault()) break;
    }
    EXPECT_EQ(finished, grid) << (sm_->fault() ? sm_->fault()->toString() : sm_->dumpState());
    // Drain the last acknowledgements.
    while (!in_flight_.empty() || !sm_->idle()) tick();
    return cycle_ - start;
  }

  // What the waveform's probes would show this cycle, summed over cycles.
  void sampleOccupancy() {
    const SmCore::Occupancy o = sm_->occupancy(cycle_);
    tensor_busy_cycles_.resize(p_.sub_cores, 0);
    for (std::uint32_t s = 0; s < p_.sub_cores; ++s) tensor_busy_cycles_[s] += o.tensor_busy >> s & 1;
    tma_in_flight_cycles_ += o.tma_in_flight > 0;
    mbarrier_wait_cycles_ += o.mbarrier_waits;
  }

  std::uint64_t stat(const std::string& name) const {
    EXPECT_TRUE(stats_.has("sm." + name)) << name;
    return stats_.value("sm." + name);
  }
  // Cycle at which warp slot `warp` issued `pc` (the n-th time).
  std::uint64_t issueCycle(int warp, std::uint32_t pc, int nth = 0) const {
    for (const auto& i : issues_)
      if (i.warp == warp && i.pc == pc && nth-- == 0) return i.cycle;
    ADD_FAILURE() << "warp " << warp << " never issued pc " << pc;
    return 0;
  }
  std::uint32_t pcOf(ptx::Op op, int nth = 0) const {
    for (std::uint32_t pc = 0; pc < prog_.code.size(); ++pc)
      if (prog_.code[pc].op == op && nth-- == 0) return pc;
    ADD_FAILURE() << "no such instruction";
    return 0;
  }
  // Every scheduler records exactly one reason per cycle.
  void checkOneReasonPerCycle() const {
    for (std::uint32_t s = 0; s < p_.sub_cores; ++s) {
      const std::string pre = "sm.sched[" + std::to_string(s) + "].stall.";
      EXPECT_EQ(stats_.sum(pre, ""), stats_.value("sm.cycles")) << "scheduler " << s;
    }
  }

  struct Issue {
    std::uint64_t cycle;
    int sched, warp;
    std::uint32_t pc;
  };

  memsys::BackingStore memory_;
  ptx::Module ir_;
  ptx::Program prog_;
  std::map<std::string, std::uint64_t> globals_;
  LaunchState launch_;
  StatsRegistry stats_;
  SmParams p_;
  std::uint32_t mem_latency_;
  std::unique_ptr<SmCore> sm_;
  std::deque<std::pair<std::uint64_t, memsys::MemRequest>> in_flight_;
  std::vector<memsys::MemRequest> requests_;
  std::vector<Issue> issues_;
  std::uint64_t cycle_ = 0;
  std::vector<std::uint64_t> tensor_busy_cycles_;  // per sub-core, cycles Occupancy::tensor_busy was set
  std::uint64_t tma_in_flight_cycles_ = 0, mbarrier_wait_cycles_ = 0;
};

// The stall reasons a warp keeps until its reason may change are exact: the same run with every
// warp looked at every cycle (SmCore::setEvaluateEveryCycle) gives the same statistics. `run` sets
// a bench up and runs it. Both tick every cycle: the bench hands a response over before the tick
// of its cycle, where the chip does after, so an SM asleep would count that cycle twice (settle,
// then the tick) and differently in the two.
template <typename Run>
void expectEveryCycleGivesTheSameStatistics(const std::string& body, const std::string& kernel, const SmParams& p,
                                            Run run) {
  Bench cached(body, kernel, p), every(body, kernel, p);
  cached.sm_->setSleepAllowed(false);
  every.sm_->setSleepAllowed(false);
  every.sm_->setEvaluateEveryCycle(true);
  run(cached);
  run(every);
  EXPECT_EQ(cached.stats_.toJson().dump(), every.stats_.toJson().dump());
}

// ---------------------------------------------------------------------------------------------
// (a) Pipelines: dependent chains take the latency per instruction, independent instructions
// issue one per initiation interval.

std::string fmaChain(int n, const char* operands = "0f3F800000, 0f3F800000") {
  std::string s = ".visible .entry chain()\n{\n  .reg .f32 %f<4>;\n";
  for (int i = 0; i < n; ++i) s += std::string("  fma.rn.f32 %f1, %f1, ") + operands + ";\n";
  return s + "  ret;\n}\n";
}

TEST(SmTiming, DependentFmaChainTakesLatencyPerInstruction) {
  for (std::uint32_t lat : {4u, 6u}) {
    std::uint64_t cycles[2];
    const int n[2] = {8, 40};
    for (int k = 0; k < 2; ++k) {
      SmParams p = testParams();
      p.pipe_fp32.latency_cycles = lat;
      Bench b(fmaChain(n[k]), "chain", p);
      b.configure(32, 2);
      b.runBlock(0);  // warms the instruction cache
      cycles[k] = b.runBlock(1);
      // Fixed overhead, warm icache: the warp may fetch block_launch_latency after launch, the
      // fetch hits (icache hit latency), the first FMA issues then; each later FMA waits `lat` for
      // its predecessor; `ret` (exit) issues the next cycle and the block retires in that cycle.
      const std::uint64_t overhead = p.block_launch_latency_cycles + p.icache.hit_latency_cycles + 1;
      EXPECT_EQ(cycles[k], overhead + std::uint64_t(n[k] - 1) * lat) << "N=" << n[k] << " latency " << lat;
      b.checkOneReasonPerCycle();
      // The chain stalls on a fixed-latency dependency (lat - 1) cycles per FMA.
      EXPECT_GE(b.stat("sched[0].stall.wait"), std::uint64_t(n[k] - 1) * (lat - 1));
    }
    EXPECT_EQ(cycles[1] - cycles[0], std::uint64_t(n[1] - n[0]) * lat);  // the overhead cancels
  }
}

TEST(SmTiming, IndependentFmasIssueOnePerInitiationInterval) {
  for (std::uint32_t ii : {1u, 2u, 3u}) {
    SmParams p = testParams();
    p.pipe_fp32 = {4, ii};
    std::string body = ".visible .entry indep()\n{\n  .reg .f32 %f<20>;\n";
    for (int i = 1; i <= 16; ++i) body += "  fma.rn.f32 %f" + std::to_string(i) + ", %f" + std::to_string(i) + ", 0f3F800000, 0f3F800000;\n";
    body += "  ret;\n}\n";
    Bench b(body, "indep", p);
    b.configure(32, 2);
    b.runBlock(0);
    b.issues_.clear();
    const std::uint64_t throttled = b.stat("sched[0].stall.math_pipe_throttle");
    b.runBlock(1);
    for (std::uint32_t pc = 1; pc < 16; ++pc) {
      EXPECT_EQ(b.issueCycle(0, pc) - b.issueCycle(0, pc - 1), ii) << "pc " << pc << " II " << ii;
    }
    // Between two FMAs the scheduler waits ii - 1 cycles for the pipe.
    EXPECT_EQ(b.stat("sched[0].stall.math_pipe_throttle") - throttled, 15 * std::uint64_t(ii - 1));
  }
}

TEST(SmTiming, SassSequencesTakeTheirIssueSlotsPipeAndLatency) {
  // div.rn.f32 is a sequence of SASS instructions (sm.sequences): with issue 5, pipe 9 and latency
  // 30, an independent FP32 add may issue 5 cycles after it (the sequence's issue slots), a second
  // independent division 9 cycles after it (its SFU time), and the add that reads both results 30
  // cycles after the second. As one SFU instruction (all zero) the add would follow at once, the
  // second division after the SFU's initiation interval and the sum after the SFU's latency.
  const std::string body = ".visible .entry seq()\n{\n  .reg .f32 %f<8>;\n"
                           "  mov.f32 %f2, 0f40400000;\n  mov.f32 %f3, 0f40000000;\n"
                           "  div.rn.f32 %f1, %f2, %f3;\n  add.f32 %f4, %f5, 0f3F800000;\n"
                           "  div.rn.f32 %f6, %f3, %f2;\n  add.f32 %f7, %f1, %f6;\n  ret;\n}\n";
  for (bool sequence : {false, true}) {
    SmParams p = testParams();
    if (sequence) p.sequences[std::size_t(Sequence::DivRnF32)] = {5, 9, 30};
    Bench b(body, "seq", p);
    b.configure(32, 2);
    b.runBlock(0);
    b.issues_.clear();
    b.runBlock(1);
    const std::uint64_t div = b.issueCycle(0, 2);
    EXPECT_EQ(b.issueCycle(0, 3) - div, sequence ? 5u : 1u);
    EXPECT_EQ(b.issueCycle(0, 4) - div, sequence ? 9u : p.pipe_sfu.initiation_interval_cycles);
    EXPECT_EQ(b.issueCycle(0, 5) - b.issueCycle(0, 4), sequence ? 30u : p.pipe_sfu.latency_cycles);
  }
}

TEST(SmTiming, F64ImmediatesSassCannotEncodeTakeTheirMovesIssueSlots) {
  // add.f64 with 1.0000000000000002 (low word 1) needs its constant built in a register pair
  // first (sm.f64_immediate_issue_cycles, here 2): the independent FP32 add after it issues 1 + 2
  // cycles later. With 1.0 (low word 0, encodable) or the parameter at 0 it issues the next cycle.
  // In a loop ptxas builds the constant once before it: the same add costs nothing there.
  auto body = [](const char* imm, bool loop) {
    std::string b = ".visible .entry k()\n{\n  .reg .f64 %fd<4>;\n  .reg .f32 %f<4>;\n  .reg .pred %p<2>;\n"
                    "  .reg .b32 %r<2>;\n  mov.u32 %r1, 0;\n";
    if (loop) b += "$L:\n";
    b += std::string("  add.f64 %fd1, %fd2, ") + imm + ";\n  add.f32 %f1, %f2, 0f3F800000;\n";
    if (loop) b += "  add.s32 %r1, %r1, 1;\n  setp.lt.s32 %p1, %r1, 2;\n  @%p1 bra $L;\n";
    return b + "  ret;\n}\n";
  };
  struct Case { const char* imm; bool loop; std::uint32_t param, gap; };
  for (const Case& c : {Case{"0d3FF0000000000001", false, 2, 3}, Case{"0d3FF0000000000000", false, 2, 1},
                        Case{"0d3FF0000000000001", false, 0, 1}, Case{"0d3FF0000000000001", true, 2, 1}}) {
    SmParams p = testParams();
    p.f64_immediate_issue_cycles = c.param;
    Bench b(body(c.imm, c.loop), "k", p);
    b.configure(32, 2);
    b.runBlock(0);
    b.issues_.clear();
    b.runBlock(1);
    std::uint32_t f64 = 0, f32 = 0;
    for (std::uint32_t pc = 0; pc < b.prog_.code.size(); ++pc)
      if (b.prog_.code[pc].op == ptx::Op::Add && b.prog_.code[pc].type == ptx::Type::F64) f64 = pc;
      else if (b.prog_.code[pc].op == ptx::Op::Add && b.prog_.code[pc].type == ptx::Type::F32) f32 = pc;
    ASSERT_EQ(f32, f64 + 1) << "the two adds back to back";
    EXPECT_EQ(b.issueCycle(0, f32) - b.issueCycle(0, f64), c.gap) << c.imm << " loop " << c.loop << " param " << c.param;
  }
}

TEST(SmTiming, SixtyFourBitIntegerOpsTakeTheirSassHalvesIssueSlots) {
  // SASS's integer datapath is 32 bits wide: add.s64 is IADD3 + IADD3.X, setp.ne.s64 ISETP +
  // ISETP.EX, mul.lo.s64 three IMADs, min.s64 two compares and two selects, and.b64 with an
  // immediate one LOP3 (heldout collatz_steps: 16 SASS instructions a step of a 9-instruction PTX
  // loop). The independent f32 add after each issues that many cycles later; with the parameters
  // at 0 (or a 32-bit op) the next cycle.
  auto body = [](const std::string& op) {
    return ".visible .entry k()\n{\n  .reg .b64 %rd<4>;\n  .reg .f32 %f<4>;\n  .reg .pred %p<2>;\n"
           "  mov.u64 %rd2, 7;\n  mov.u64 %rd3, 9;\n  " + op + "\n  add.f32 %f1, %f2, 0f3F800000;\n  ret;\n}\n";
  };
  struct Case { const char* op; bool on; std::uint32_t gap; };
  for (const Case& c : {Case{"add.s64 %rd1, %rd2, %rd3;", true, 2}, Case{"add.s64 %rd1, %rd2, %rd3;", false, 1},
                        Case{"setp.ne.s64 %p1, %rd2, %rd3;", true, 2}, Case{"mul.lo.s64 %rd1, %rd2, %rd3;", true, 3},
                        Case{"min.s64 %rd1, %rd2, %rd3;", true, 4}, Case{"and.b64 %rd1, %rd2, 1;", true, 1}}) {
    SmParams p = testParams();
    p.imad_on_fp32_pipe = false;
    p.int64_pair_issue_cycles = c.on ? 2 : 0;
    p.int64_mul_issue_cycles = c.on ? 3 : 0;
    p.int64_minmax_issue_cycles = c.on ? 4 : 0;
    Bench b(body(c.op), "k", p);
    b.configure(32, 2);
    b.runBlock(0);
    b.issues_.clear();
    b.runBlock(1);
    std::uint32_t f32 = 0;
    for (std::uint32_t pc = 0; pc < b.prog_.code.size(); ++pc)
      if (b.prog_.code[pc].op == ptx::Op::Add && b.prog_.code[pc].type == ptx::Type::F32) f32 = pc;
    ASSERT_GT(f32, 0u);
    EXPECT_EQ(b.issueCycle(0, f32) - b.issueCycle(0, f32 - 1), c.gap) << c.op << " on " << c.on;
  }
}

TEST(SmTiming, ZeroExtensionsAreFreeSignExtensionsAreNot) {
  // cvt.u64.u32 is the register pair with RZ as its high word (no SASS instruction); cvt.s64.s32
  // needs SHF.R.S32.HI for the sign (validation/micro dsmem_read's address arithmetic).
  Bench b(".visible .entry k(.param .u32 a)\n{\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<4>;\n"
          "  ld.param.u32 %r1, [a];\n  cvt.u64.u32 %rd1, %r1;\n  cvt.s64.s32 %rd2, %r1;\n"
          "  add.s64 %rd3, %rd1, %rd2;\n  ret;\n}\n", "k", testParams());
  const std::vector<timing::InstInfo> info = timing::classifyProgram(b.prog_);
  int checked = 0;
  for (std::uint32_t pc = 0; pc < b.prog_.code.size(); ++pc) {
    const ptx::DecodedInst& in = b.prog_.code[pc];
    if (in.op != ptx::Op::Cvt) continue;
    EXPECT_EQ(bool(info[pc].flags & timing::kFree), in.type == ptx::Type::U64) << b.prog_.text[pc];
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(SmTiming, RegisterBankConflictsDelayDispatch) {
  // fma %f1, %f1, %f2, %f3 in a chain: three distinct source registers. With B banks the most
  // loaded bank holds m of them and operand collection takes m - 1 extra cycles per instruction.
  const int n[2] = {10, 30};
  for (std::uint32_t banks : {1u, 2u, 64u}) {
    std::uint64_t cycles[2];
    std::uint32_t extra = 0;
    for (int k = 0; k < 2; ++k) {
      SmParams p = testParams();
      p.register_banks = banks;
      Bench b(fmaChain(n[k], "%f2, %f3"), "chain", p);
      const auto& in = b.prog_.code[0];
      std::map<std::uint32_t, std::uint32_t> per_bank;
      for (std::uint32_t s : {in.src[0], in.src[1], in.src[2]}) per_bank[s % banks]++;
      std::uint32_t most = 0;
      for (auto& kv : per_bank) most = std::max(most, kv.second);
      extra = most - 1;
      b.configure(32, 2);
      b.runBlock(0);
      cycles[k] = b.runBlock(1);
    }
    if (banks == 1) {
      EXPECT_EQ(extra, 2u);
    }
    EXPECT_EQ(cycles[1] - cycles[0], std::uint64_t(n[1] - n[0]) * (testParams().pipe_fp32.latency_cycles + extra))
        << banks << " banks";
  }
}

TEST(SmTiming, OperandReuseServesTheSourcesThePreviousInstructionRead) {
  // The same chain with the reuse cache: every fma reads the registers the one before it read, so
  // none is read from a bank again and a step costs the bare pipe latency, whatever the banks.
  const int n[2] = {10, 30};
  for (std::uint32_t banks : {1u, 2u}) {
    std::uint64_t cycles[2];
    for (int k = 0; k < 2; ++k) {
      SmParams p = testParams();
      p.register_banks = banks;
      p.operand_reuse = true;
      Bench b(fmaChain(n[k], "%f2, %f3"), "chain", p);
      b.configure(32, 2);
      b.runBlock(0);
      cycles[k] = b.runBlock(1);
    }
    EXPECT_EQ(cycles[1] - cycles[0], std::uint64_t(n[1] - n[0]) * testParams().pipe_fp32.latency_cycles)
        << banks << " banks";
  }
}

TEST(SmTiming, IntegerPairsFuseAsPtxasCompilesThem) {
  // Eight chained adds, each result read once: ptxas makes four IADD3 of them. With
  // fuse_like_ptxas the second add of each pair takes no issue slot or pipe and its result is
  // ready with the first's, so the chain costs 4 pipe latencies instead of 8; the consumer at the
  // end (a ninth add, whose partner is fused already) waits for that. The mov of an immediate
  // in front costs nothing.
  const char* k = R"(
.visible .entry fu(.param .u32 a)
{
  .reg .b32 %r<16>;
  ld.param.u32 %r1, [a];
  mov.u32 %r12, 5;
  add.u32 %r2, %r1, %r12;
  add.u32 %r3, %r2, 1;
  add.u32 %r4, %r3, 1;
  add.u32 %r5, %r4, 1;
  add.u32 %r6, %r5, 1;
  add.u32 %r7, %r6, 1;
  add.u32 %r8, %r7, 1;
  add.u32 %r9, %r8, 1;
  add.u32 %r10, %r9, 1;
  ret;
}
)";
  for (bool fuse : {false, true}) {
    SmParams p = testParams();
    p.fuse_like_ptxas = fuse;
    p.instruction_buffer_entries = 16;
    Bench b(k, "fu", p);
    b.param<std::uint32_t>(0, 1u);
    b.configure(32, 2);
    b.runBlock(0);  // warms the instruction cache
    b.runBlock(1);
    const std::uint32_t first = b.pcOf(ptx::Op::Add, 0), last = b.pcOf(ptx::Op::Add, 8);
    const std::uint64_t lat = p.pipe_int.latency_cycles;
    EXPECT_EQ(b.issueCycle(0, last, 1) - b.issueCycle(0, first, 1), (fuse ? 4 : 8) * lat) << (fuse ? "fused" : "plain");
    EXPECT_EQ(b.stat("sched[0].issued_free"), fuse ? 12u : 0u)
        << "four fused adds, the mov and the parameter (a constant-bank operand), in two blocks";
  }
}

TEST(SmTiming, SpecialRegisterReadsTakeTheirS2rSlot) {
  // With fuse_like_ptxas a copy of a register takes no issue slot (register coalescing), but a
  // read of %tid.x or %ctaid.x is an S2R (S2UR) of its own in SASS: it takes one. %ntid.x is a
  // constant-bank operand: no slot either. Two blocks of one warp each run the two movs.
  auto kernel = [](const char* a, const char* b) {
    return std::string(".visible .entry sr()\n{\n  .reg .b32 %r<8>;\n  add.u32 %r5, %r6, 1;\n") +
           "  mov.u32 %r1, " + a + ";\n  mov.u32 %r2, " + b + ";\n  add.u32 %r3, %r7, 7;\n  ret;\n}\n";
  };
  struct Case { const char* a; const char* b; std::uint64_t free_per_block; };
  for (const Case& c : {Case{"%tid.x", "%ctaid.x", 0}, Case{"%r6", "%r7", 2}, Case{"%ntid.x", "%r7", 2}}) {
    SmParams p = testParams();
    p.fuse_like_ptxas = true;
    p.instruction_buffer_entries = 16;
    Bench b(kernel(c.a, c.b), "sr", p);
    b.configure(32, 2);
    b.runBlock(0);
    b.runBlock(1);
    EXPECT_EQ(b.stat("sched[0].issued_free"), 2 * c.free_per_block) << c.a << ", " << c.b;
  }
}

TEST(SmTiming, IndependentChainsInterleaveAsPtxasSchedulesThem) {
  // Four independent FMA chains of eight, written one after another as nvcc writes an unrolled
  // loop, with an address computation (shl + add, which ptxas fuses into one LEA) in front. In PTX
  // order one warp waits out every dependent latency: 4 x 7 latencies plus the three independent
  // chain starts. Scheduled as ptxas does (ptx/schedule.h), the chains interleave: round r of the
  // four issues at r x latency .. r x latency + 3 (one FMA a cycle, initiation interval 1), so the
  // last FMA issues 7 x latency + 3 cycles after the first; the fused pair stays adjacent. (A
  // latency of 8 leaves the fetch time to keep the buffer filled: four FMAs every eight cycles.)
  std::string k = ".visible .entry il(.param .u32 a)\n{\n  .reg .f32 %f<8>;\n  .reg .b32 %r<4>;\n"
                  "  ld.param.u32 %r1, [a];\n  shl.b32 %r2, %r1, 2;\n  add.u32 %r3, %r2, %r1;\n";
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 8; ++i)
      k += "  fma.rn.f32 %f" + std::to_string(c + 1) + ", %f" + std::to_string(c + 1) + ", 0f3F800000, 0f3F800000;\n";
  k += "  ret;\n}\n";
  for (bool scheduled : {false, true}) {
    SmParams p = testParams();
    p.fuse_like_ptxas = true;
    p.instruction_buffer_entries = 16;
    p.pipe_fp32.latency_cycles = 8;
    Bench b(k, "il", p);
    if (scheduled) b.prog_ = ptx::scheduleLikePtxas(b.prog_);
    b.param<std::uint32_t>(0, 3u);
    b.configure(32, 2);
    b.runBlock(0);  // warms the instruction cache
    b.runBlock(1);
    const std::uint32_t shl = b.pcOf(ptx::Op::Shl);
    EXPECT_EQ(b.prog_.code[shl + 1].op, ptx::Op::Add) << "the fusable pair stays adjacent";
    std::vector<std::uint32_t> fmas;
    for (std::uint32_t pc = 0; pc < b.prog_.code.size(); ++pc)
      if (b.prog_.code[pc].op == ptx::Op::Fma) fmas.push_back(pc);
    ASSERT_EQ(fmas.size(), 32u);
    const std::uint64_t lat = p.pipe_fp32.latency_cycles;
    const std::uint64_t span = b.issueCycle(0, fmas.back(), 1) - b.issueCycle(0, fmas.front(), 1);
    EXPECT_EQ(span, scheduled ? 7 * lat + 3 : 4 * 7 * lat + 3) << (scheduled ? "scheduled" : "PTX order");
    if (scheduled) {
      for (std::uint32_t i = 0; i < 32; ++i)  // chain i % 4, step i / 4
        EXPECT_EQ(b.prog_.code[fmas[i]].dst[0], b.prog_.code[fmas[i % 4]].dst[0]) << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// (b) Shared memory bank conflicts (CUDA C++ Programming Guide, "Shared Memory", compute
// capability 5.x and later: 32 banks of 4 bytes; a warp's 32-bit accesses with a stride of s words
// are gcd(s, 32)-way conflicted; lanes reading one word share it; 64-bit accesses are served per
// half-warp and 128-bit accesses per quarter-warp).

const char* kSharedKernel = R"(
.shared .align 16 .b8 smem[65536];
.visible .entry sh(.param .u32 stride)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [stride];
  mov.u32 %r2, %tid.x;
  mul.lo.u32 %r3, %r2, %r1;
  shl.b32 %r4, %r3, SHIFT;
  mov.u32 %r5, smem;
  add.u32 %r6, %r5, %r4;
  LOAD
  add.u32 %r9, %r7, 1;
  ret;
}
)";

std::string sharedKernel(int shift, const char* load) {
  std::string s = kSharedKernel;
  s.replace(s.find("SHIFT"), 5, std::to_string(shift));
  s.replace(s.find("LOAD"), 4, load);
  return s;
}

std::uint64_t sharedWavefronts(const std::string& kernel, std::uint32_t stride, std::uint64_t* load_to_use = nullptr) {
  Bench b(kernel, "sh");
  b.param<std::uint32_t>(0, stride);
  b.configure(32);
  b.runBlock(0);
  const std::uint32_t ld = b.pcOf(ptx::Op::Ld, 1);
  if (load_to_use) *load_to_use = b.issueCycle(0, ld + 1) - b.issueCycle(0, ld);
  EXPECT_EQ(b.stat("lsu.shared_loads"), 1u);
  EXPECT_EQ(b.stat("lsu.shared_bank_conflicts"), b.stat("lsu.shared_wavefronts") -
                                                      (kernel.find(".v4") != std::string::npos ? 4u
                                                       : kernel.find(".u64") != std::string::npos ? 2u : 1u));
  return b.stat("lsu.shared_wavefronts");
}

TEST(SmTiming, SharedMemoryStridesGiveGcdWayConflicts) {
  const std::string k32 = sharedKernel(2, "ld.shared.u32 %r7, [%r6];");
  EXPECT_EQ(sharedWavefronts(k32, 0), 1u) << "broadcast of one word";
  for (std::uint32_t s = 1; s <= 32; ++s) {
    EXPECT_EQ(sharedWavefronts(k32, s), std::gcd(s, 32u)) << "stride " << s;
  }
  // Load-to-use: the LSU reaches the access pipe_lsu latency after issue, issues one wavefront per
  // cycle, and the data is back shared_memory_latency after the last wavefront.
  const SmParams p = testParams();
  for (std::uint32_t s : {1u, 2u, 8u}) {
    std::uint64_t ltu = 0;
    const std::uint64_t w = sharedWavefronts(k32, s, &ltu);
    EXPECT_EQ(ltu, p.pipe_lsu.latency_cycles + (w - 1) + p.shared_memory_latency_cycles) << "stride " << s;
  }
}

TEST(SmTiming, WideSharedAccessesAreServedPerHalfAndQuarterWarp) {
  // 64-bit, stride s (8-byte elements): per half-warp gcd(s, 16) wavefronts, two half-warps.
  const std::string k64 = sharedKernel(3, "ld.shared.u64 %rd1, [%r6]; cvt.u32.u64 %r7, %rd1;");
  for (std::uint32_t s = 1; s <= 16; ++s) {
    EXPECT_EQ(sharedWavefronts(k64, s), 2 * std::gcd(s, 16u)) << "stride " << s;
  }
  // 128-bit, stride s (16-byte elements): per quarter-warp gcd(s, 8), four quarter-warps.
  const std::string k128 = sharedKernel(4, "ld.shared.v4.u32 {%r7, %r8, %r10, %r11}, [%r6];");
  for (std::uint32_t s = 1; s <= 8; ++s) {
    EXPECT_EQ(sharedWavefronts(k128, s), 4 * std::gcd(s, 8u)) << "stride " << s;
  }
}

TEST(SmTiming, FullLsuQueueThrottlesIssue) {
  // Eight warps each issue a 32-way conflicted shared load (32 wavefronts, 32 LSU cycles) into a
  // queue of two: issue waits for room (mio_throttle), and the LSU works 8 x 32 cycles.
  SmParams p = testParams();
  p.lsu_queue_entries = 2;
  Bench b(sharedKernel(2, "ld.shared.u32 %r7, [%r6];"), "sh", p);
  b.param<std::uint32_t>(0, 32u);
  b.configure(256);
  b.runBlock(0);
  EXPECT_EQ(b.stat("lsu.shared_wavefronts"), 8u * 32u);
  EXPECT_GT(b.stat("sched[0].stall.mio_throttle"), 0u);
  EXPECT_GT(b.stat("warp_state.mio_throttle"), b.stat("sched[0].stall.mio_throttle"));
  EXPECT_EQ(b.stat("warp_state.lg_throttle"), 0u) << "shared loads are the MIO's, not the LG queue's";
  // The last warp's load reaches the LSU after the seven before it: its result comes at least
  // 8 x 32 wavefront cycles after the first load issued.
  const std::uint32_t ld = b.pcOf(ptx::Op::Ld, 1);
  std::uint64_t first = ~0ull, last_use = 0;
  for (int w = 0; w < 8; ++w) {
    first = std::min(first, b.issueCycle(w, ld));
    last_use = std::max(last_use, b.issueCycle(w, ld + 1));
  }
  EXPECT_GE(last_use - first, 8u * 32u - 1 + p.shared_memory_latency_cycles);
  b.checkOneReasonPerCycle();
  expectEveryCycleGivesTheSameStatistics(sharedKernel(2, "ld.shared.u32 %r7, [%r6];"), "sh", p, [](Bench& x) {
    x.param<std::uint32_t>(0, 32u);
    x.configure(256);
    x.runBlock(0);
  });
}

// ---------------------------------------------------------------------------------------------
// (c) Global coalescing: 32 lanes read 4-byte elements o + s*lane of a 256-byte aligned buffer.

const char* kGlobalKernel = R"(
.visible .entry gl(.param .u64 buf, .param .u32 stride, .param .u32 offset)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r1, [stride];
  ld.param.u32 %r2, [offset];
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r3, %r1, %r2;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r5, [%rd3];
  ret;
}
)";

TEST(SmTiming, GlobalLoadsCoalesceIntoLinesAndSectors) {
  for (std::uint32_t o : {0u, 1u, 7u, 8u, 31u, 33u}) {
    for (std::uint32_t s = 0; s <= 32; ++s) {
      Bench b(kGlobalKernel, "gl");
      const std::uint64_t buf = b.alloc(4 * (32 * 32 + 64));
      ASSERT_EQ(buf % 128, 0u);
      b.param<std::uint64_t>(0, buf);
      b.param<std::uint32_t>(1, s);
      b.param<std::uint32_t>(2, o);
      b.configure(32);
      b.runBlock(0);
      // Lane l reads bytes [4(o + s l), 4(o + s l) + 4). While 4s <= 128 (resp. 32) consecutive
      // lanes fall in the same or the next line (sector), so the lines (sectors) form one run from
      // the first lane's to the last lane's; beyond that every lane has its own.
      const std::uint64_t first = 4ull * o, last = 4ull * (o + 31ull * s);
      const std::uint64_t lines = s >= 32 ? 32 : last / 128 - first / 128 + 1;
      const std::uint64_t sectors = s >= 8 ? 32 : last / 32 - first / 32 + 1;
      EXPECT_EQ(b.stat("lsu.global_requests"), lines) << "stride " << s << " offset " << o;
      EXPECT_EQ(b.stat("lsu.global_sectors"), sectors) << "stride " << s << " offset " << o;
      // Cold L1: every sector misses, one read request per line carrying its sectors.
      EXPECT_EQ(b.stat("l1.misses"), sectors);
      EXPECT_EQ(b.requests_.size(), lines);
      std::uint64_t bytes = 0;
      for (const auto& r : b.requests_) {
        EXPECT_EQ(r.op, memsys::MemOp::Read);
        EXPECT_EQ(r.addr % 128, 0u);
        EXPECT_EQ(r.bytes, 32u * memsys::sectorCount(r.sector_mask));
        bytes += r.bytes;
      }
      EXPECT_EQ(bytes, 32 * sectors);
    }
  }
}

// Eight warps each load 32 distinct lines of a global array (32 LSU cycles a warp) into a queue of
// two: the loads wait for room in the local/global queue (lg_throttle), never for the sub-core's
// LSU port (it takes an instruction a cycle, and one warp issues a cycle). The kernel has no other
// LSU instruction (its address is a symbol's, not a parameter's), so no cycle is mio_throttle.
const char* kGlobalFlood = R"(
.global .align 128 .b8 flood[32768];
.visible .entry fl()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u64 %rd1, flood;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 128;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  ret;
}
)";

TEST(SmTiming, FullLsuQueueOfGlobalLoadsThrottlesAsLgThrottle) {
  SmParams p = testParams();
  p.lsu_queue_entries = 2;
  p.l1.mshr_entries = 256;  // the queue, not the MSHRs, holds the loads back
  auto run = [](Bench& b) {
    b.configure(256);
    b.runBlock(0);
  };
  Bench b(kGlobalFlood, "fl", p);
  run(b);
  EXPECT_EQ(b.stat("lsu.global_requests"), 8u * 32u);
  EXPECT_EQ(b.stat("l1.mshr_full_stalls"), 0u);
  EXPECT_GT(b.stat("sched[0].stall.lg_throttle"), 0u);
  EXPECT_GT(b.stat("warp_state.lg_throttle"), b.stat("sched[0].stall.lg_throttle"));
  EXPECT_EQ(b.stat("warp_state.mio_throttle"), 0u);
  EXPECT_EQ(b.stat("sched[0].stall.mio_throttle"), 0u);
  b.checkOneReasonPerCycle();
  expectEveryCycleGivesTheSameStatistics(kGlobalFlood, "fl", p, run);
}

TEST(SmTiming, LocalMemoryIsInterleavedSoAWarpCoalesces) {
  // Every lane stores and loads its own 4-byte word at one local offset: one line of 4 sectors
  // each; an 8-byte access spans two 4-byte words, two lines.
  const char* k = R"(
.visible .entry loc()
{
  .local .align 8 .b8 buf[64];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  st.local.u32 [buf+8], %r1;
  ld.local.u32 %r2, [buf+8];
  cvt.u64.u32 %rd1, %r2;
  st.local.u64 [buf+16], %rd1;
  ret;
}
)";
  Bench b(k, "loc");
  b.configure(32);
  b.runBlock(0);
  EXPECT_EQ(b.stat("lsu.local_stores"), 2u);
  EXPECT_EQ(b.stat("lsu.local_loads"), 1u);
  EXPECT_EQ(b.stat("lsu.global_requests"), 1u + 1u + 2u);
  EXPECT_EQ(b.stat("lsu.global_sectors"), 4u + 4u + 8u);
}

// ---------------------------------------------------------------------------------------------
// (d) L1 hit and miss latency.

TEST(SmTiming, SharedAtomicsCostTheirMostLoadedBankPerLane) {
  // atom.shared: lanes updating one word do not combine; the most-loaded bank's lane count times
  // shared_atomic_cycles_per_lane (rounded up, at least 1) gives the wavefronts.
  const std::string k = sharedKernel(2, "atom.shared.add.u32 %r7, [%r6], 1;");
  for (double per_lane : {1.0, 0.73}) {
    for (std::uint32_t stride : {0u, 1u, 2u, 32u}) {
      SmParams p = testParams();
      p.shared_atomic_cycles_per_lane = per_lane;
      Bench b(k, "sh", p);
      b.param<std::uint32_t>(0, stride);
      b.configure(32);
      b.runBlock(0);
      // stride 0: 32 lanes on one word (one bank); s: gcd(s, 32) words per bank, one lane each.
      const std::uint32_t lanes = stride == 0 ? 32 : std::gcd(stride, 32u);
      const auto expect = std::max<std::uint64_t>(1, std::uint64_t(std::ceil(lanes * per_lane - 1e-9)));
      EXPECT_EQ(b.stat("lsu.shared_wavefronts"), expect) << "stride " << stride << ", " << per_lane;
      EXPECT_EQ(b.stat("lsu.shared_atomics"), 1u);
    }
  }
}

TEST(SmTiming, ConsecutiveSharedLoadsMergeIntoOneVectorLoadWhenAligned) {
  // Four scalar loads at +0, +4, +8, +12 of one base, fmas in between (a tiled GEMM's A row):
  // ptxas makes one 128-bit load of them. With the base 16-byte aligned the first load goes to
  // the LSU as that access (its wavefronts are those of an ld.shared.v4 of the same addresses)
  // and the other three issue without the LSU; misaligned (base + 4), all four go separately.
  // Lane L's base: smem + (L % 8) * 16 + off.
  const std::string head = R"(
.shared .align 16 .b8 smem[4096];
.visible .entry mg(.param .u32 off)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<16>;
  ld.param.u32 %r1, [off];
  mov.u32 %r2, %tid.x;
  and.b32 %r3, %r2, 7;
  shl.b32 %r4, %r3, 4;
  mov.u32 %r5, smem;
  add.u32 %r6, %r5, %r4;
  add.u32 %r6, %r6, %r1;
)";
  const std::string k = head + R"(
  ld.shared.f32 %f1, [%r6];
  fma.rn.f32 %f10, %f1, %f1, %f1;
  ld.shared.f32 %f2, [%r6+4];
  fma.rn.f32 %f11, %f2, %f10, %f1;
  ld.shared.f32 %f3, [%r6+8];
  ld.shared.f32 %f4, [%r6+12];
  fma.rn.f32 %f12, %f3, %f4, %f11;
  ret;
}
)";
  const std::string v4 = head + R"(
  ld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [%r6];
  ret;
}
)";
  auto run = [](const std::string& src, std::uint32_t off, std::uint64_t* merged) {
    Bench b(src, "mg");
    b.param<std::uint32_t>(0, off);
    b.configure(32);
    b.runBlock(0);
    *merged = b.stat("shared_loads_merged");
    return std::make_pair(b.stat("lsu.shared_loads"), b.stat("lsu.shared_wavefronts"));
  };
  std::uint64_t merged = 0, none = 0;
  const auto vec = run(v4, 0, &none);
  const auto aligned = run(k, 0, &merged);
  EXPECT_EQ(aligned.first, 1u);
  EXPECT_EQ(merged, 3u);
  EXPECT_EQ(aligned.second, vec.second) << "the wavefronts of one ld.shared.v4";
  const auto misaligned = run(k, 4, &merged);
  EXPECT_EQ(misaligned.first, 4u);
  EXPECT_EQ(merged, 0u);
  EXPECT_EQ(misaligned.second, 4u) << "four conflict-free scalar loads";

  // Two 64-bit loads at +0 and +8 (a DGEMM tile's row): one LDS.128 when 16-byte aligned, as
  // ld.shared.v2.f64; two 64-bit loads at base + 8.
  const std::string k64 = head + R"(
  .reg .f64 %fd<8>;
  ld.shared.f64 %fd1, [%r6];
  fma.rn.f64 %fd4, %fd1, %fd1, %fd1;
  ld.shared.f64 %fd2, [%r6+8];
  fma.rn.f64 %fd5, %fd2, %fd4, %fd1;
  ret;
}
)";
  const std::string v2 = head + R"(
  .reg .f64 %fd<8>;
  ld.shared.v2.f64 {%fd1, %fd2}, [%r6];
  ret;
}
)";
  const auto vec64 = run(v2, 0, &none);
  const auto aligned64 = run(k64, 0, &merged);
  EXPECT_EQ(aligned64.first, 1u);
  EXPECT_EQ(merged, 1u);
  EXPECT_EQ(aligned64.second, vec64.second) << "the wavefronts of one ld.shared.v2.f64";
  const auto misaligned64 = run(k64, 8, &merged);
  EXPECT_EQ(misaligned64.first, 2u);
  EXPECT_EQ(merged, 0u);
}

const char* kL1Kernel = R"(
.visible .entry l1(.param .u64 buf)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  ld.global.u32 %r1, [%rd1];
  add.u32 %r2, %r1, 1;
  ld.global.u32 %r3, [%rd1+4];
  add.u32 %r4, %r3, 1;
  st.global.u32 [%rd1+8], %r4;
  ret;
}
)";

TEST(SmTiming, L1HitAndMissLatencies) {
  for (std::uint32_t hit : {20u, 33u}) {
    for (std::uint32_t mem : {100u, 250u}) {
      SmParams p = testParams();
      p.l1.hit_latency_cycles = hit;
      Bench b(kL1Kernel, "l1", p, mem);
      b.param<std::uint64_t>(0, b.alloc(256));
      b.configure(32);
      b.runBlock(0);
      const std::uint32_t ld1 = b.pcOf(ptx::Op::Ld, 1), ld2 = b.pcOf(ptx::Op::Ld, 2);
      // Miss: pipe_lsu latency to reach the L1, the fake memory's round trip, then the fill passes
      // the L1 data stage (hit latency). Hit: pipe_lsu latency plus the hit latency.
      EXPECT_EQ(b.issueCycle(0, ld1 + 1) - b.issueCycle(0, ld1), p.pipe_lsu.latency_cycles + mem + hit);
      EXPECT_EQ(b.issueCycle(0, ld2 + 1) - b.issueCycle(0, ld2), p.pipe_lsu.latency_cycles + hit);
      EXPECT_EQ(b.stat("l1.hits"), 1u);
      EXPECT_EQ(b.stat("l1.misses"), 1u);
      EXPECT_EQ(b.stat("lsu.global_stores"), 1u);
      // Read miss, then the write-through store.
      ASSERT_EQ(b.requests_.size(), 2u);
      EXPECT_EQ(b.requests_[1].op, memsys::MemOp::Write);
      EXPECT_EQ(b.requests_[1].sector_mask, 1u);
      EXPECT_GT(b.stat("sched[0].stall.long_scoreboard"), 0u);
      b.checkOneReasonPerCycle();
    }
  }
}

TEST(SmTiming, CacheGlobalLoadsBypassTheL1) {
  // ld.global.cg: served by the L2 only. The second load of the line misses again (no lookup, no
  // fill) and waits the whole round trip, through the L1's data stage like any miss.
  std::string k = kL1Kernel;
  k.replace(k.find("ld.global.u32 %r1"), 17, "ld.global.cg.u32 %r1");
  k.replace(k.find("ld.global.u32 %r3"), 17, "ld.global.cg.u32 %r3");
  const std::uint32_t mem = 150;
  SmParams p = testParams();
  Bench b(k, "l1", p, mem);
  b.param<std::uint64_t>(0, b.alloc(256));
  b.configure(32);
  b.runBlock(0);
  const std::uint32_t ld2 = b.pcOf(ptx::Op::Ld, 2);
  EXPECT_EQ(b.issueCycle(0, ld2 + 1) - b.issueCycle(0, ld2), p.pipe_lsu.latency_cycles + mem + p.l1.hit_latency_cycles);
  EXPECT_EQ(b.stat("l1.hits"), 0u);
  std::size_t reads = 0;
  for (const auto& r : b.requests_) reads += r.op == memsys::MemOp::Read;
  EXPECT_EQ(reads, 2u);
}

TEST(SmTiming, AnAtomWhoseResultIsNeverReadIssuesAsAReduction) {
  // Two atomics into the same destination register. When nothing reads it (ptxas makes them REDs)
  // the second issues without waiting for the first's response; when the result is read, the
  // second waits for it (write after write).
  for (bool read : {false, true}) {
    std::string k = R"(
.visible .entry at(.param .u64 buf)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  atom.global.add.u32 %r1, [%rd1], 1;
  atom.global.add.u32 %r1, [%rd1+4], 1;
  USE
  ret;
}
)";
    k.replace(k.find("USE"), 3, read ? "st.global.u32 [%rd1+8], %r1;" : "");
    const std::uint32_t mem = 200;
    Bench b(k, "at", testParams(), mem);
    b.param<std::uint64_t>(0, b.alloc(256));
    b.configure(32, 2);
    b.runBlock(0);  // warms the instruction cache
    b.runBlock(1);
    const std::uint32_t a1 = b.pcOf(ptx::Op::Atom, 0), a2 = b.pcOf(ptx::Op::Atom, 1);
    const std::uint64_t gap = b.issueCycle(0, a2, 1) - b.issueCycle(0, a1, 1);
    if (read) {
      EXPECT_GE(gap, mem) << "the second atom waits for the first's result";
    } else {
      EXPECT_LT(gap, 10u) << "no register to wait for";
    }
  }
}

TEST(SmTiming, MshrMergesMissesToAPendingLine) {
  // Two warps read the same line: the second merges into the first's MSHR, one request leaves.
  Bench b(kGlobalKernel, "gl");
  const std::uint64_t buf = b.alloc(4096);
  b.param<std::uint64_t>(0, buf);
  b.param<std::uint32_t>(1, 0u);
  b.param<std::uint32_t>(2, 0u);
  b.configure(64);
  b.runBlock(0);
  EXPECT_EQ(b.stat("lsu.global_loads"), 2u);
  EXPECT_EQ(b.stat("l1.mshr_merges"), 1u);
  EXPECT_EQ(b.requests_.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// (e) Scheduling policies on two warps of one scheduler running eight independent instructions.

std::vector<int> issueOrder(const std::string& policy, std::uint32_t active = 8) {
  std::string body = ".visible .entry ind()\n{\n  .reg .b32 %r<12>;\n";
  for (int i = 1; i <= 8; ++i) body += "  add.u32 %r" + std::to_string(i) + ", %r" + std::to_string(i) + ", 1;\n";
  body += "  ret;\n}\n";
  SmParams p = testParams();
  p.scheduler_policy = policy;
  p.two_level_active_warps = active;
  p.instruction_buffer_entries = 8;
  Bench b(body, "ind", p);
  b.configure(64);
  b.runBlock(0);
  std::vector<int> order;
  for (const auto& i : b.issues_)
    if (i.pc < 8) order.push_back(i.warp);
  return order;
}

TEST(SmTiming, GreedyThenOldestVersusLooseRoundRobin) {
  // Both warps get their eight instructions from one icache line at the same cycle (the second
  // warp's fetch merges with the first one's miss). gto keeps issuing warp 0 until it runs out;
  // lrr alternates.
  const std::vector<int> gto = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<int> lrr = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
  EXPECT_EQ(issueOrder("gto"), gto);
  EXPECT_EQ(issueOrder("lrr"), lrr);
  // two_level schedules its active set round robin: one active warp behaves like gto here, two
  // like lrr.
  EXPECT_EQ(issueOrder("two_level", 1), gto);
  EXPECT_EQ(issueOrder("two_level", 2), lrr);
}

// ---------------------------------------------------------------------------------------------
// (f) Barriers.

TEST(SmTiming, BarrierHoldsWarpsUntilAllArrived) {
  // Warp w spins 20 w iterations before bar.sync, then reads %clock and stores it.
  const char* k = R"(
.visible .entry bar(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  mul.lo.u32 %r3, %r2, 20;
  mov.u32 %r4, 0;
LOOP:
  setp.ge.u32 %p1, %r4, %r3;
  @%p1 bra DONE;
  add.u32 %r4, %r4, 1;
  bra.uni LOOP;
DONE:
  bar.sync 0;
  mov.u32 %r5, %clock;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";
  SmParams p = testParams();
  p.sub_cores = 4;
  Bench b(k, "bar", p);
  const std::uint64_t out = b.alloc(128 * 4);
  b.param<std::uint64_t>(0, out);
  b.configure(128);
  b.runBlock(0);
  const std::uint32_t bar = b.pcOf(ptx::Op::Bar);
  std::uint64_t last_arrival = 0, first_release = ~0ull;
  for (int w = 0; w < 4; ++w) {
    last_arrival = std::max(last_arrival, b.issueCycle(w, bar));
    first_release = std::min(first_release, b.issueCycle(w, bar + 1));
  }
  EXPECT_GT(first_release, last_arrival);
  // Warp 3 arrives last, after 60 loop iterations; the others waited for it.
  EXPECT_EQ(last_arrival, b.issueCycle(3, bar));
  EXPECT_GT(b.stat("warp_state.barrier"), 0u);
  std::vector<std::uint32_t> clocks(128);
  b.memory_.read(out, clocks.data(), clocks.size() * 4);
  for (int t = 0; t < 128; ++t) {
    EXPECT_EQ(clocks[t], b.issueCycle(t / 32, bar + 1)) << "thread " << t;  // %clock = issue cycle
    EXPECT_GT(clocks[t], last_arrival);
  }
  b.checkOneReasonPerCycle();
}

TEST(SmTiming, BarrierThatCanNeverCompleteIsAFault) {
  const char* k = R"(
.visible .entry dead()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra OUT;
  bar.sync 0;
  bar.sync 1;
OUT:
  bar.sync 1, 64;
  bar.sync 0, 64;
  ret;
}
)";
  Bench b(k, "dead");
  b.configure(64);
  b.sm_->launchBlock(0, 0, 0);
  for (int i = 0; i < 2000 && !b.sm_->fault(); ++i) b.tick();
  ASSERT_TRUE(b.sm_->fault().has_value());
  EXPECT_EQ(b.sm_->fault()->kind, "barrier deadlock");
  EXPECT_TRUE(b.sm_->idle());
}

// ---------------------------------------------------------------------------------------------
// Constant cache, results against functional mode, the boundary's bookkeeping.

TEST(SmTiming, ConstantCacheSerialisesDivergentAddresses) {
  const char* k = R"(
.const .align 4 .b32 table[64] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
.visible .entry cst(.param .u32 k, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u32 %r1, [k];
  ld.param.u64 %rd5, [out];
  mov.u32 %r2, %tid.x;
  rem.u32 %r3, %r2, %r1;
  mul.wide.u32 %rd1, %r3, 4;
  mov.u64 %rd2, table;
  add.s64 %rd3, %rd2, %rd1;
  ld.const.u32 %r4, [%rd3];
  mul.wide.u32 %rd6, %r2, 4;
  add.s64 %rd7, %rd5, %rd6;
  st.global.u32 [%rd7], %r4;
  ret;
}
)";
  for (std::uint32_t kk : {1u, 2u, 5u, 16u}) {
    Bench b(k, "cst");
    const std::uint64_t out = b.alloc(32 * 4);
    b.param<std::uint32_t>(0, kk);
    b.param<std::uint64_t>(1, out);
    b.configure(32);
    b.runBlock(0);
    EXPECT_EQ(b.stat("const.requests"), 1u);        // the table load (parameters are operands)
    EXPECT_EQ(b.stat("const.serialized"), kk - 1);  // one pass per distinct address
    std::vector<std::uint32_t> got(32);
    b.memory_.read(out, got.data(), 128);
    for (std::uint32_t t = 0; t < 32; ++t) {
      EXPECT_EQ(got[t], t % kk + 1);
    }
  }
}

const char* kReduceKernel = R"(
.visible .entry reduce(.param .u64 in, .param .u64 out, .param .u64 total)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 4 .b32 sdata[128];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [total];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r5, [%rd5];
  mul.lo.u32 %r5, %r5, %r5;
  shl.b32 %r6, %r1, 2;
  mov.u32 %r7, sdata;
  add.u32 %r8, %r7, %r6;
  st.shared.u32 [%r8], %r5;
  bar.sync 0;
  shr.u32 %r9, %r3, 1;
LOOP:
  setp.ge.u32 %p1, %r1, %r9;
  @%p1 bra SKIP;
  shl.b32 %r10, %r9, 2;
  add.u32 %r11, %r8, %r10;
  ld.shared.u32 %r12, [%r11];
  ld.shared.u32 %r13, [%r8];
  add.u32 %r13, %r13, %r12;
  st.shared.u32 [%r8], %r13;
SKIP:
  bar.sync 0;
  shr.u32 %r9, %r9, 1;
  setp.ne.u32 %p2, %r9, 0;
  @%p2 bra LOOP;
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra END;
  ld.shared.u32 %r14, [%r7];
  mul.wide.u32 %rd6, %r2, 4;
  add.s64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r14;
  atom.global.add.u32 %r15, [%rd3], %r14;
END:
  ret;
}
)";

TEST(SmTiming, ResultsEqualFunctionalModeUnderEveryPolicy) {
  const std::uint32_t blocks = 12, threads = 128;
  for (const char* policy : {"lrr", "gto", "two_level"}) {
    SmParams p = testParams();
    p.scheduler_policy = policy;
    p.sub_cores = 4;
    p.two_level_active_warps = 1;
    p.max_blocks_per_sm = 3;
    Bench b(kReduceKernel, "reduce", p, 150);
    const std::uint64_t in = b.alloc(blocks * threads * 4), out = b.alloc(blocks * 4), total = b.alloc(4);
    std::vector<std::uint32_t> data(blocks * threads);
    for (std::uint32_t i = 0; i < data.size(); ++i) data[i] = (i * 2654435761u) >> 20;
    b.memory_.write(in, data.data(), data.size() * 4);
    b.memory_.fill(out, 0, blocks * 4);
    b.memory_.fill(total, 0, 4);
    b.param<std::uint64_t>(0, in);
    b.param<std::uint64_t>(1, out);
    b.param<std::uint64_t>(2, total);
    b.configure(threads, blocks);
    b.runGrid(blocks);
    ASSERT_FALSE(b.sm_->fault().has_value()) << b.sm_->fault()->toString();

    // The same launch in functional mode on a copy of the inputs.
    const std::uint64_t out_timing = out;
    std::vector<std::uint32_t> got(blocks), want(blocks);
    std::uint32_t got_total = 0, want_total = 0;
    b.memory_.read(out_timing, got.data(), blocks * 4);
    b.memory_.read(total, &got_total, 4);
    b.memory_.fill(out, 0, blocks * 4);
    b.memory_.fill(total, 0, 4);
    LaunchState f = b.launch_;
    FunctionalEngine engine;
    LaunchResult r = engine.run(f);
    ASSERT_FALSE(r.fault.has_value());
    b.memory_.read(out, want.data(), blocks * 4);
    b.memory_.read(total, &want_total, 4);
    EXPECT_EQ(got, want) << policy;
    EXPECT_EQ(got_total, want_total) << policy;
    // And against the CPU.
    std::uint32_t cpu = 0;
    for (std::uint32_t v : data) cpu += v * v;
    EXPECT_EQ(got_total, cpu);
    EXPECT_EQ(b.stat("warp_instructions"), r.warp_instructions) << policy;
    EXPECT_EQ(b.stat("thread_instructions"), r.thread_instructions) << policy;
    EXPECT_EQ(b.stat("blocks_launched"), blocks);
    EXPECT_EQ(b.stat("lsu.atomics"), blocks);
    EXPECT_TRUE(b.sm_->idle());
    b.checkOneReasonPerCycle();
    // Every live warp is sampled once per cycle.
    EXPECT_EQ(b.stats_.sum("sm.warp_state.", "") - b.stat("warp_state.drain"), b.stat("active_warps_sum"));
    // Occupancy bookkeeping: never more resident warps than three blocks hold.
    EXPECT_LE(b.stat("active_warps_sum"), b.stat("active_cycles") * 3 * (threads / 32));
  }
}

TEST(SmTiming, IdleIsExactAndTheDumpNamesEveryWarp) {
  Bench b(kL1Kernel, "l1", testParams(), 400);
  b.param<std::uint64_t>(0, b.alloc(4096));
  b.configure(64);
  EXPECT_TRUE(b.sm_->idle());
  b.sm_->launchBlock(0, 0, 0);
  EXPECT_FALSE(b.sm_->idle());
  for (int i = 0; i < 200; ++i) b.tick();  // both warps now wait for memory
  const std::string dump = b.sm_->dumpState();
  EXPECT_NE(dump.find("warp slot 0"), std::string::npos) << dump;
  EXPECT_NE(dump.find("warp slot 1"), std::string::npos) << dump;
  EXPECT_NE(dump.find("(memory)"), std::string::npos) << dump;
  EXPECT_FALSE(b.sm_->idle());
  while (!b.sm_->popFinishedBlock(nullptr, nullptr)) b.tick();
  EXPECT_TRUE(b.sm_->idle());
  EXPECT_EQ(b.sm_->instructionsIssued(), b.stat("warp_instructions"));
}

}  // namespace
}  // namespace scgpu::sm

namespace scgpu::sm {
namespace {

// wgmma.mma_async: each warp of the warpgroup (one a sub-core here) holds its tensor pipe
// wgmma_issue_cycles + max(work, shared bytes) cycles, and wgmma.wait_group waits until its group's
// last wgmma is wgmma_latency_cycles past the pipe. m64n64k16 .f32.f16.f16 with A and B from
// descriptors: a warp's work is 16 x 64 x 16 / 512 = 32 cycles; it reads 16 x 16 x 2 bytes of A and
// a quarter of B's 64 x 16 x 2: 1024 bytes.
// wgmma.fence (WARPGROUP.ARRIVE) waits for the warp's pending register results; Nsight counts that
// wait as warpgroup_arrive, not as the scoreboard the result belongs to.
TEST(SmTiming, WgmmaFenceWaitsForPendingRegistersAsWarpgroupArrive) {
  const std::string body = ".visible .entry wf(.param .u64 buf)\n{\n  .reg .f32 %f<2>;\n  .reg .b64 %rd<2>;\n"
                           "  ld.param.u64 %rd1, [buf];\n  ld.global.f32 %f1, [%rd1];\n"
                           "  wgmma.fence.sync.aligned;\n  ret;\n}\n";
  Bench b(body, "wf");
  b.param<std::uint64_t>(0, b.alloc(256));
  b.configure(32, 2);
  b.runBlock(0);
  b.issues_.clear();
  const std::uint64_t arrive = b.stat("warp_state.warpgroup_arrive"), longsb = b.stat("warp_state.long_scoreboard");
  b.runBlock(1);
  const std::uint32_t ld = b.pcOf(ptx::Op::Ld), fence = b.pcOf(ptx::Op::WgmmaFence);
  // The load hits the L1 (block 0 brought the line): the fence waits out its latency, less the
  // cycles before it is at the head of the instruction buffer.
  const std::uint64_t waited = b.issueCycle(0, fence) - b.issueCycle(0, ld) - 1;
  const std::uint64_t at_fence = b.stat("warp_state.warpgroup_arrive") - arrive;
  EXPECT_GE(waited, std::uint64_t(testParams().l1.hit_latency_cycles)) << "the load's latency";
  EXPECT_GT(at_fence, waited / 2);
  EXPECT_LE(at_fence, waited);
  EXPECT_EQ(b.stat("warp_state.long_scoreboard") - longsb, 0u) << "not the load's scoreboard";
}

TEST(SmTiming, WgmmaHoldsTheTensorPipeAndWaitGroupWaitsForItsGroup) {
  std::string d;
  for (int i = 0; i < 32; ++i) d += (i ? ", %f" : "%f") + std::to_string(i);
  const std::string body = ".visible .entry wg()\n{\n  .shared .align 1024 .b8 s[4096];\n  .reg .f32 %f<32>;\n"
                           "  .reg .b64 %rd<4>;\n  mov.u64 %rd1, 0;\n  mov.u64 %rd2, 0;\n"
                           "  wgmma.fence.sync.aligned;\n"
                           "  wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" + d + "}, %rd1, %rd2, 1, 1, 1, 0, 0;\n"
                           "  wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" + d + "}, %rd1, %rd2, 1, 1, 1, 0, 0;\n"
                           "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n  ret;\n}\n";
  for (double smem_rate : {1e6, 64.0}) {
    SmParams p = testParams();
    p.sub_cores = 4;
    p.wgmma_work_per_cycle = 512;
    p.wgmma_issue_cycles = 2;
    p.wgmma_latency_cycles = 20;
    p.wgmma_smem_bytes_per_cycle = smem_rate;
    Bench b(body, "wg", p);
    b.configure(128, 2);
    b.runBlock(0);
    b.issues_.clear();
    const std::uint64_t arrive_before = b.stat("warp_state.warpgroup_arrive");
    b.runBlock(1);
    // 64 bytes a cycle over 4 sub-cores: 16 a warp, 1024 / 16 = 64 cycles beyond the work's 32.
    const std::uint64_t held = 2 + (smem_rate < 100 ? 64 : 32), latency = held + 20;
    const std::uint32_t first = b.pcOf(ptx::Op::Wgmma), wait = b.pcOf(ptx::Op::WgmmaWait);
    const std::uint32_t commit = b.pcOf(ptx::Op::WgmmaCommit), fence = b.pcOf(ptx::Op::WgmmaFence);
    std::uint64_t arrive = 0;
    for (int w = 0; w < 4; ++w) {
      // The fence waits for the movs before it (WARPGROUP.ARRIVE: warpgroup_arrive too).
      arrive += b.issueCycle(w, fence) - b.issueCycle(w, fence - 1) - 1;
      EXPECT_EQ(b.issueCycle(w, first + 1) - b.issueCycle(w, first), held) << "warp " << w << " smem " << smem_rate;
      EXPECT_EQ(b.issueCycle(w, wait) - b.issueCycle(w, first + 1), latency) << "warp " << w << " smem " << smem_rate;
      // The wait is at the head from the cycle after the commit (the icache is warm) until it issues.
      arrive += b.issueCycle(w, wait) - b.issueCycle(w, commit) - 1;
    }
    EXPECT_EQ(b.stat("warp_state.warpgroup_arrive") - arrive_before, arrive) << "smem " << smem_rate;
    EXPECT_EQ(b.stat("wgmma.smem_bytes"), 2u * 2 * 4 * 1024);  // two blocks, two wgmma, four warps
    EXPECT_EQ(b.stat("pipe.tensor.busy_cycles"), 2u * 2 * 4 * held);
    for (int w = 0; w < 4; ++w) {  // one warp a sub-core
      const std::string sc = "sched[" + std::to_string(w) + "].";
      EXPECT_EQ(b.stat(sc + "tensor.busy_cycles"), 2u * 2 * held);
      EXPECT_EQ(b.stat(sc + "tensor.instructions"), 2u * 2);
      EXPECT_EQ(b.tensor_busy_cycles_[std::size_t(w)], 2u * 2 * held) << "the waveform's tensor_busy";
    }
    b.checkOneReasonPerCycle();
  }
}

// Two groups: wgmma.wait_group 1 waits for the first only, wait_group 0 then for the second.
TEST(SmTiming, WgmmaWaitGroupNLeavesTheNewestNGroupsInFlight) {
  std::string d;
  for (int i = 0; i < 32; ++i) d += (i ? ", %f" : "%f") + std::to_string(i);
  const std::string mma = "  wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" + d + "}, %rd1, %rd2, 1, 1, 1, 0, 0;\n";
  const std::string body = ".visible .entry wg()\n{\n  .shared .align 1024 .b8 s[4096];\n  .reg .f32 %f<32>;\n"
                           "  .reg .b64 %rd<4>;\n  mov.u64 %rd1, 0;\n  mov.u64 %rd2, 0;\n  wgmma.fence.sync.aligned;\n" +
                           mma + "  wgmma.commit_group.sync.aligned;\n" + mma +
                           "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 1;\n"
                           "  wgmma.wait_group.sync.aligned 0;\n  ret;\n}\n";
  SmParams p = testParams();
  p.sub_cores = 4;
  p.wgmma_work_per_cycle = 512;
  p.wgmma_issue_cycles = 2;
  p.wgmma_latency_cycles = 20;
  p.wgmma_smem_bytes_per_cycle = 1e6;
  Bench b(body, "wg", p);
  b.configure(128, 2);
  b.runBlock(0);
  b.issues_.clear();
  b.runBlock(1);
  const std::uint64_t held = 2 + 32, latency = held + 20;
  const std::uint32_t first = b.pcOf(ptx::Op::Wgmma), second = b.pcOf(ptx::Op::Wgmma, 1);
  const std::uint32_t wait1 = b.pcOf(ptx::Op::WgmmaWait), wait0 = b.pcOf(ptx::Op::WgmmaWait, 1);
  for (int w = 0; w < 4; ++w) {
    EXPECT_EQ(b.issueCycle(w, second) - b.issueCycle(w, first), held) << "warp " << w;
    EXPECT_EQ(b.issueCycle(w, wait1) - b.issueCycle(w, first), latency) << "warp " << w;
    EXPECT_EQ(b.issueCycle(w, wait0) - b.issueCycle(w, second), latency) << "warp " << w;
  }
  b.checkOneReasonPerCycle();
}

// mma.sync m16n8k16 .f32.f16.f16.f32: 16 x 8 x 16 = 2048 multiply-adds of 16-bit inputs hold the
// sub-core's tensor pipe initiation_interval + 2048 / tensor_work_per_cycle = 2 + 8 = 10 cycles.
// N independent mma of one warp on each of two sub-cores: each tensor pipe is busy N x 10 cycles a
// block (Nsight's sm__pipe_tensor_cycles_active per sub-partition), and they issue 10 cycles apart.
std::string mmaKernel(int n) {
  std::string s = ".visible .entry mm()\n{\n  .reg .b32 %r<8>;\n  .reg .f32 %f<" + std::to_string(4 * n + 4) + ">;\n";
  for (int i = 0; i < n; ++i) {
    const int d = 4 + 4 * i;
    s += "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f" + std::to_string(d) + ", %f" +
         std::to_string(d + 1) + ", %f" + std::to_string(d + 2) + ", %f" + std::to_string(d + 3) +
         "}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};\n";
  }
  // The last result is read: the warp (and the bench) stays until the pipe has let it go.
  s += "  add.f32 %f0, %f" + std::to_string(4 * n) + ", %f" + std::to_string(4 * n) + ";\n";
  return s + "  ret;\n}\n";
}

TEST(SmTiming, MmaHoldsItsSubCoresTensorPipeItsOccupancyEach) {
  constexpr int kMma = 6;
  SmParams p = testParams();
  p.sub_cores = 2;
  p.pipe_tensor = {20, 2};
  p.tensor_work_per_cycle = 256;
  const std::uint64_t held = 2 + 2048 / 256;
  auto run = [](Bench& b) {
    b.configure(64, 2);  // a warp a sub-core
    b.runBlock(0);
    b.issues_.clear();
    b.runBlock(1);  // the icache is warm: the mma issue back to back
  };
  Bench b(mmaKernel(kMma), "mm", p);
  run(b);
  for (int w = 0; w < 2; ++w) {
    const std::string sc = "sched[" + std::to_string(w) + "].";
    EXPECT_EQ(b.stat(sc + "tensor.instructions"), 2u * kMma);
    EXPECT_EQ(b.stat(sc + "tensor.busy_cycles"), 2u * kMma * held);
    EXPECT_EQ(b.tensor_busy_cycles_[std::size_t(w)], 2u * kMma * held) << "the waveform's tensor_busy";
    for (int i = 0; i + 1 < kMma; ++i) {
      const std::uint32_t pc = b.pcOf(ptx::Op::Mma, i);
      EXPECT_EQ(b.issueCycle(w, pc + 1) - b.issueCycle(w, pc), held) << "warp " << w << " mma " << i;
    }
  }
  EXPECT_EQ(b.stat("pipe.tensor.busy_cycles"), 2u * 2 * kMma * held);
  EXPECT_EQ(b.stat("pipe.tensor.instructions"), 2u * 2 * kMma);
  b.checkOneReasonPerCycle();
  expectEveryCycleGivesTheSameStatistics(mmaKernel(kMma), "mm", p, run);
}

// One thread starts a 512-byte bulk copy (the TMA unit) into shared memory with an mbarrier
// completion and waits on the mbarrier. The copy reaches the LSU pipe_lsu.latency + tma_setup
// cycles after its issue, sends its 4 lines on consecutive cycles, and completes when the last
// line's response is in, mem_latency later; the try_wait issues in that cycle. The warp sleeps
// (Nsight's stall_sleeping: its thread is suspended) from the cycle after the arrive until then,
// and the TMA unit has the copy in flight from its issue until then.
const char* kTmaWait = R"(
.visible .entry tma(.param .u64 src)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 128 .b8 buf[512];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src];
  mov.u32 %r1, bar;
  mov.u32 %r2, buf;
  mov.u32 %r3, 1;
  mov.u32 %r4, 512;
  mbarrier.init.shared.b64 [%r1], %r3;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], %r4, [%r1];
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], %r4;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
  @!%p1 bra WAIT;
  ret;
}
)";

TEST(SmTiming, AWarpWaitingOnAnMbarrierForATmaCopySleeps) {
  SmParams p = testParams();
  p.tma_setup_cycles = 10;
  p.instruction_buffer_entries = 16;  // the try_wait is fetched long before the copy is issued
  const std::uint32_t mem_latency = 200;
  auto run = [](Bench& b) {
    b.param<std::uint64_t>(0, b.alloc(512));
    b.configure(1);
    b.runBlock(0);
  };
  Bench b(kTmaWait, "tma", p, mem_latency);
  b.sm_->setSleepAllowed(false);  // exact per-cycle counts (see expectEveryCycleGivesTheSameStatistics)
  run(b);
  const std::uint32_t copy = b.pcOf(ptx::Op::CpBulk), wait = b.pcOf(ptx::Op::Mbarrier, 2);
  const std::uint64_t issued = b.issueCycle(0, copy), arrived = b.issueCycle(0, wait - 1);
  const std::uint64_t done = b.issueCycle(0, wait);
  EXPECT_EQ(done, issued + p.pipe_lsu.latency_cycles + p.tma_setup_cycles + (512 / 128 - 1) + mem_latency);
  const std::uint64_t asleep = done - arrived - 1;
  EXPECT_EQ(b.stat("warp_state.sleeping"), asleep);
  EXPECT_EQ(b.stat("sched[0].stall.sleeping"), asleep);
  EXPECT_EQ(b.stat("warp_state.barrier"), 0u) << "an mbarrier wait is not a CTA barrier";
  EXPECT_EQ(b.stat("mbarrier.suspensions"), 1u);
  EXPECT_EQ(b.mbarrier_wait_cycles_, asleep) << "the waveform's mbarrier_waits";
  EXPECT_EQ(b.tma_in_flight_cycles_, done - issued) << "the waveform's tma_in_flight";
  EXPECT_EQ(b.stat("tma.requests"), 1u);
  EXPECT_EQ(b.stat("tma.shared_bytes"), 512u);
  EXPECT_EQ(b.stat("tma.global_bytes"), 512u);
  EXPECT_EQ(b.stat("lsu.global_requests"), 4u);
  b.checkOneReasonPerCycle();
  expectEveryCycleGivesTheSameStatistics(kTmaWait, "tma", p, run);
}

// cp.async: every lane copies 16 bytes of global memory into shared memory, then the warp waits for
// its group (long_scoreboard, as Nsight shows DEPBAR on the LDGSTS scoreboard).
const char* kCpAsync = R"(
.visible .entry cpa(.param .u64 src)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [src];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  cp.async.cg.shared.global [%r4], [%rd3], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  ret;
}
)";

TEST(SmTiming, CpAsyncCountsItsRequestsAndBytesAndWaitsOnTheLongScoreboard) {
  const SmParams p = testParams();
  auto run = [](Bench& b) {
    b.param<std::uint64_t>(0, b.alloc(512));
    b.configure(32);
    b.runBlock(0);
  };
  Bench b(kCpAsync, "cpa", p);
  run(b);
  EXPECT_EQ(b.stat("cp_async.requests"), 1u);
  EXPECT_EQ(b.stat("cp_async.bytes"), 32u * 16);
  EXPECT_EQ(b.stat("lsu.global_requests"), 4u);
  EXPECT_GT(b.stat("warp_state.long_scoreboard"), 0u);
  EXPECT_EQ(b.stat("tma.requests"), 0u);
  b.checkOneReasonPerCycle();
  expectEveryCycleGivesTheSameStatistics(kCpAsync, "cpa", p, run);
}

// The hopper preset's wgmma timing against the silicon (docs/data/h200_wgmma_timing.csv, on an
// H200: the GH100 die), with the probe's own kernels (validation/tensor/wgmma_inputs.h): one
// warpgroup issuing m64n256k16 .f32.f16.f16 back to back, chained through its accumulator, gets one
// through every 128 SM-cycles (4096 dense FLOP a cycle: 512 f16 multiply-adds a sub-core's tensor
// core); one such wgmma waited for at once takes 194.55 cycles from issue to wait_group 0.
TEST(SmTiming, WgmmaOnTheHopperPresetFollowsTheSilicon) {
  std::string text = wgmma_probe::timingPtx();
  text = text.substr(text.find(".visible"));  // Bench gives the module its header
  const SmParams p = GpuConfig::load(GpuConfig::resolve("hopper")).params().sm;
  auto cycles = [&](const char* kernel, unsigned iters) {
    Bench b(text, kernel, p);
    const std::uint64_t out = b.alloc(16);
    b.param(0, out);
    b.param(1, iters);
    b.configure(128);
    b.runBlock(0);
    std::uint64_t c = 0;
    b.memory_.read(out, &c, 8);
    return double(c);
  };
  // The difference of two lengths: the start and the last wgmma's wait cancel (the silicon's 4096
  // wgmma a run made them negligible).
  const double per_wgmma = (cycles("wgmma_throughput", 64) - cycles("wgmma_throughput", 32)) / 32;
  const double latency = (cycles("wgmma_latency", 64) - cycles("wgmma_latency", 32)) / 32;
  std::printf("model: %.2f cycles a chained m64n256k16 (silicon 128.0), %.2f issue to wait_group 0 (silicon 194.55)\n",
              per_wgmma, latency);
  EXPECT_NEAR(per_wgmma, 128.0, 0.02 * 128);
  EXPECT_NEAR(latency, 194.55, 0.02 * 194.55);
}


// A leaf function x * 3 + 1, and `outer`, which calls it and adds its own argument afterwards
// (the argument lives across the call), called once from the kernel.
const char* kCallFunctions =
    ".func (.param .b32 r) leaf(.param .b32 x)\n{\n  .reg .b32 %r<3>;\n  ld.param.u32 %r1, [x];\n"
    "  mad.lo.s32 %r2, %r1, 3, 1;\n  st.param.b32 [r], %r2;\n  ret;\n}\n"
    ".func (.param .b32 r) outer(.param .b32 x)\n{\n  .reg .b32 %r<4>;\n  ld.param.u32 %r1, [x];\n"
    "  {\n  .param .b32 p0;\n  st.param.b32 [p0], %r1;\n  .param .b32 r0;\n  call.uni (r0), leaf, (p0);\n"
    "  ld.param.b32 %r2, [r0];\n  }\n  add.s32 %r3, %r2, %r1;\n  st.param.b32 [r], %r3;\n  ret;\n}\n";
// The pc of the first `op` in function `fn` (the kernel: "k").
std::uint32_t pcIn(const ptx::Program& prog, const std::string& fn, ptx::Op op) {
  for (const ptx::DecodedFunction& f : prog.functions)
    if (f.name == fn)
      for (std::uint32_t pc = f.entry_pc; pc < f.end_pc; ++pc)
        if (prog.code[pc].op == op) return pc;
  ADD_FAILURE() << "no such instruction in " << fn;
  return 0;
}
std::string callKernel(const char* callee) {
  return std::string(kCallFunctions) +
         ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n  mov.u32 %r1, %tid.x;\n"
         "  {\n  .param .b32 p0;\n  st.param.b32 [p0], %r1;\n  .param .b32 r0;\n  call.uni (r0), " +
         callee + ", (p0);\n  ld.param.b32 %r2, [r0];\n  }\n  add.s32 %r3, %r2, 1;\n  ld.param.u64 %rd1, [out];\n"
                  "  st.global.u32 [%rd1], %r3;\n  ret;\n}\n";
}

// SASS passes arguments and results in registers (CALL.REL/RET.REL, validation/micro call_chain):
// the .param moves around a call reach no LSU, and a call and a return each hold their warp
// sm.call_latency_cycles (0: the branch pipe's latency, as other branches).
TEST(SmTiming, CallsPassParametersInRegistersAndHoldTheWarpTheCallLatency) {
  for (std::uint32_t call_latency : {0u, 29u}) {
    SmParams p = testParams();
    p.fuse_like_ptxas = true;
    p.call_latency_cycles = call_latency;
    Bench b(callKernel("leaf"), "k", p);
    b.param<std::uint64_t>(0, b.alloc(256));
    b.configure(32, 2);
    b.runBlock(0);  // warms the instruction cache
    b.issues_.clear();
    const std::uint64_t local = b.stat("lsu.local_loads") + b.stat("lsu.local_stores");
    b.runBlock(1);
    const std::uint64_t expect = call_latency ? call_latency : p.pipe_branch.latency_cycles;
    const std::uint32_t call = pcIn(b.prog_, "k", ptx::Op::Call), mad = pcIn(b.prog_, "leaf", ptx::Op::Mad);
    const std::uint32_t ret = pcIn(b.prog_, "leaf", ptx::Op::Ret), add = pcIn(b.prog_, "k", ptx::Op::Add);
    // Into the callee: only its free parameter move lies between the call and the mad.
    EXPECT_GE(b.issueCycle(0, mad) - b.issueCycle(0, call), expect) << "call latency " << call_latency;
    EXPECT_LE(b.issueCycle(0, mad) - b.issueCycle(0, call), expect + 1) << "call latency " << call_latency;
    // Back: the caller's result move is free; the add follows the return's latency.
    EXPECT_GE(b.issueCycle(0, add) - b.issueCycle(0, ret), expect) << "call latency " << call_latency;
    EXPECT_LE(b.issueCycle(0, add) - b.issueCycle(0, ret), expect + 1) << "call latency " << call_latency;
    EXPECT_EQ(b.stat("lsu.local_loads") + b.stat("lsu.local_stores"), local) << "no .param move reaches the LSU";
  }
}

// A function that calls keeps its return address (two registers) and what lives across its calls
// in its frame (timing::savedRegistersPerFunction): `outer` saves three (its argument is read after
// the call), `leaf` and the kernel none.
TEST(SmTiming, FunctionsThatCallSaveTheirReturnAddressAndLiveValues) {
  ptx::Module ir = ptx::parseModule(std::string(kHeader) + callKernel("outer"), "calls.ptx");
  ptx::DecodeEnv env;
  env.select_handler = &selectHandler;
  const ptx::Program prog = ptx::decodeKernel(ir, "k", env);
  std::vector<timing::InstInfo> info;
  for (std::uint32_t pc = 0; pc < prog.code.size(); ++pc) info.push_back(timing::classify(prog, pc, {}));
  const std::vector<std::uint32_t> saved = timing::savedRegistersPerFunction(prog, info);
  ASSERT_EQ(saved.size(), prog.functions.size());
  for (std::size_t f = 0; f < prog.functions.size(); ++f) {
    const std::string& name = prog.functions[f].name;
    EXPECT_EQ(saved[f], name == "outer" ? 3u : 0u) << name;
  }
}

// With sm.call_frame_saves, a call into such a function takes an issue slot per saved register and
// one for the stack pointer (STL, VIADD R1), and its return as many more and an L1 hit for the
// reloaded return address (LDL, RET R20) before the caller goes on; sm.call_frame_extra_cycles more
// at the call (the frame's convergence-barrier moves), and nothing for a call into a leaf.
TEST(SmTiming, CallsIntoFunctionsThatCallPayForTheirFrame) {
  std::uint64_t into[3], back[3], leaf_back[3], leaf_into[3];
  const SmParams base = testParams();
  for (int saves = 0; saves < 3; ++saves) {
    SmParams p = base;
    p.fuse_like_ptxas = true;
    p.call_latency_cycles = 20;
    p.call_frame_saves = saves != 0;
    p.call_frame_extra_cycles = saves == 2 ? 17 : 0;
    Bench b(callKernel("outer"), "k", p);
    b.param<std::uint64_t>(0, b.alloc(256));
    b.configure(32, 2);
    b.runBlock(0);
    b.issues_.clear();
    b.runBlock(1);
    const ptx::Program& g = b.prog_;
    const std::uint32_t call_outer = pcIn(g, "k", ptx::Op::Call), call_leaf = pcIn(g, "outer", ptx::Op::Call);
    const std::uint32_t add_outer = pcIn(g, "outer", ptx::Op::Add), add_kernel = pcIn(g, "k", ptx::Op::Add);
    const std::uint32_t ret_leaf = pcIn(g, "leaf", ptx::Op::Ret), ret_outer = pcIn(g, "outer", ptx::Op::Ret);
    into[saves] = b.issueCycle(0, call_leaf) - b.issueCycle(0, call_outer);
    leaf_into[saves] = b.issueCycle(0, ret_leaf) - b.issueCycle(0, call_leaf);
    leaf_back[saves] = b.issueCycle(0, add_outer) - b.issueCycle(0, ret_leaf);
    back[saves] = b.issueCycle(0, add_kernel) - b.issueCycle(0, ret_outer);
  }
  EXPECT_EQ(into[1] - into[0], 3u + 1u) << "three stores and the stack pointer";
  EXPECT_EQ(back[1] - back[0], 3u + 1u + base.l1.hit_latency_cycles) << "three loads, the stack pointer, an L1 hit";
  EXPECT_EQ(leaf_back[1], leaf_back[0]) << "a leaf saves nothing";
  EXPECT_EQ(into[2] - into[1], 17u) << "the frame's extra cycles, at the call";
  EXPECT_EQ(back[2], back[1]) << "the return pays no extra";
  EXPECT_EQ(leaf_into[2], leaf_into[0]) << "a call into a leaf has no frame";
}

}  // namespace
}  // namespace scgpu::sm
