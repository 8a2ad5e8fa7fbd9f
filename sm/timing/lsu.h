// The SM's load/store unit: takes memory instructions (one warp instruction with the per-lane
// addresses the functional core recorded), coalesces global and local accesses into 128-byte
// lines with 32-byte sector masks, serves shared memory with bank conflicts, looks lines up in the
// sectored L1 data cache with MSHRs, writes global stores through to L2, sends atomics to L2 and
// serves constant and kernel-parameter loads from the constant cache. One pipeline step per
// cycle, in order: a shared-memory wavefront, an L1 access for one line, or one constant-cache pass.
// With address translation attached (mmu.enabled), every access that leaves the SM (an L1 read
// miss, a store, an atomic) first looks its page up in the SM's L1 TLB, the shared L2 TLB, or
// walks, and waits that many cycles before it goes to the crossbar; later accesses do not wait
// for it (hit under miss). L1 hits skip translation: on the H100 an L1 hit costs the same however
// many pages the lines lie on (docs/validation.md "TLB").
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "memsys/mem_request.h"
#include "memsys/sector_cache.h"
#include "memsys/tlb.h"
#include "sm/timing/inst_class.h"
#include "sm/exec_context.h"
#include "sm/sm_params.h"
#include "sm/timing/coalescer.h"
#include "sm/timing/inst_class.h"
#include "base/stats.h"

namespace scgpu::sm::timing {

// Synthetic address spaces (never handed out by the device allocator, which starts at
// memsys::BackingStore::kHeapBase = 0x7000'0000'0000 and grows up).
constexpr std::uint64_t kLocalSyntheticBase = 0x0000'7E00'0000'0000ull;  // local memory, see localAddress()
constexpr std::uint64_t kParamSyntheticBase = 0x0000'7F00'0000'0000ull;  // kernel-parameter constant bank
constexpr std::uint64_t kParamBankBytes = 0x1'0000;                         // per launch

// One warp instruction handed to the LSU.
struct LsuRequest {
  std::uint32_t warp_slot = 0, block_slot = 0;
  std::uint64_t ready_at = 0;        // cycle it reaches the LSU (issue + operand collection + pipe_lsu latency)
  std::uint32_t dst[kMaxRegDst] = {};  // absolute register slots the instruction writes (loads, atom)
  std::uint32_t ndst = 0;
  std::uint32_t local_stride = 0;    // bytes of local memory per thread (Warp::local_stride)
  std::uint64_t param_bank = 0;      // synthetic base of this launch's parameter bank
  // Floating-point adds, exch and cas: their same-address updates take l2.atomic_op_cycles each;
  // integer reductions l2.integer_atomic_op_cycles.
  bool serial_atomic = false;
  // A warp-aggregated global atomic (InstInfo kUniformAtomic: ptxas's REDUX): every lane's address is
  // the same, and one request carries the warp's update.
  bool aggregated_atomic = false;
  // ld.cg, ld.cv and ld.volatile: global loads served by the L2, never by the L1 (no lookup, no fill).
  bool bypass_l1 = false;
  std::uint64_t copy_group = 0;      // cp.async: the warp's group it counts in (0: none)
  std::uint64_t bulk_group = 0;      // a bulk copy to global memory: the warp's bulk group (0: none)
  std::vector<BulkTrace::Completion> completions;  // a bulk copy's mbarrier completions, applied when done
};

// A finished memory instruction: its destination registers are valid from `ready`.
struct LsuDone {
  std::uint32_t warp_slot = 0, block_slot = 0;
  std::uint64_t ready = 0;
  std::uint32_t dst[kMaxRegDst] = {};
  std::uint32_t ndst = 0;
  std::uint64_t copy_group = 0, bulk_group = 0;
  std::vector<BulkTrace::Completion> completions;
};

class Lsu {
 public:
  Lsu(const SmParams& p, std::uint32_t sm_index, StatsRegistry& stats, const std::string& name);
  ~Lsu();

  // Puts translation in front of the accesses that leave the SM, when `mmu.enabled`: this SM's L1
  // TLB (statistics under the LSU's name + ".lsu") and `shared_l2`, the chip's L2 TLB, which must
  // outlive the LSU. Call before the first instruction; without it translation costs nothing.
  void attachTranslation(const MmuParams& mmu, memsys::Tlb* shared_l2, StatsRegistry& stats);
  // Empties the L1 data and constant caches (gigathread.flush_caches_before_launch).
  void invalidateCaches() {
    if (l1_) l1_->invalidateAll();
    if (const_cache_) const_cache_->invalidateAll();
  }
  // Forgets the L1 TLB's translations (MMU_INVALIDATE).
  void invalidateTranslations() {
    if (translation_) translation_->l1().invalidateAll();
  }
  // After the cycle's ticks (SmCore::commitCycle, SM by SM): the cycle's L1 TLB misses look the
  // shared L2 TLB up, in the order they missed, and wait for its latency or the walk's.
  void commitTranslations();
  bool translationsPending() const { return !l2_tlb_pending_.empty(); }
  // Address space of the accesses from now on (the channel whose page table translates them).
  void setAddressSpace(std::uint32_t asid) { asid_ = asid; }

  // The queue of instructions waiting for the pipeline is full: issue stalls (mio_throttle).
  bool full() const { return queue_.size() >= queue_capacity_; }
  // The earliest cycle at which an instruction issued then could find room in the queue: `now`
  // when it has room, else no sooner than the front instruction's remaining steps (one cycle per
  // line or wavefront at best) let it leave. A stalled warp looks again then, not every cycle.
  std::uint64_t earliestRoom(std::uint64_t now) const;
  // When the next received response is handled (~0: none waiting); it may finish an instruction.
  std::uint64_t nextResponse() const { return responses_.empty() ? ~std::uint64_t{0} : responses_.front().second; }
  // The first cycle after `now` at which step() or handleResponses() has something to do, or
  // ~0 when nothing comes before a new response or instruction arrives (SmCore sleeps till then).
  std::uint64_t nextEvent(std::uint64_t now) const;
  // Takes a memory instruction; returns the dependency kind of its results (Long when it touches
  // global or local memory, else Short). `trace.mask` must not be 0.
  DepKind enqueue(const MemTrace& trace, const LsuRequest& req);
  // Takes a bulk copy (the TMA unit's work, sm/exec/bulk_copy.cpp): its shared-memory bytes at the
  // shared-memory bandwidth, its global lines read from the L2 (never the L1) or written to it.
  void enqueueBulk(const BulkTrace& trace, const LsuRequest& req);

  void acceptResponse(const memsys::MemRequest& r, std::uint64_t cycle);
  // Handles the responses that arrived by `now` (fills wake their waiters).
  void handleResponses(std::uint64_t now);
  // One pipeline step: a wavefront, a line access or a constant pass of the oldest instruction.
  void step(std::uint64_t now);
  // Instructions finished since the last call (the caller clears it).
  std::vector<LsuDone>& done() { return done_; }
  // Whether the queue gave up an instruction (gained room) since the last call: the warps
  // waiting for room look again in the next cycle (SmCore; earliestRoom() cannot know when a
  // queue held by the crossbar frees).
  bool takeQueueFreed() { return std::exchange(queue_freed_, false); }

  bool hasRequest() const { return !out_.empty(); }
  const memsys::MemRequest& peekRequest() const { return out_.front(); }
  void popRequest() {
    out_.pop_front();
    room_at_ = kNoRoomMemo;
  }
  // The oldest instruction's next step sends a request and the queue to the crossbar is full:
  // step() can do nothing until popRequest() makes room (nextEvent leaves it out, so the SM
  // sleeps instead of retrying every cycle while the crossbar is backed up).
  bool blockedOnCrossbar() const;

  // Nothing queued, in flight, waiting to be sent or received.
  bool idle() const {
    return queue_.empty() && in_flight_ == 0 && out_.empty() && translating_.empty() && responses_.empty() &&
           l2_tlb_pending_.empty();
  }
  std::string dump() const;
  // Waveform probes: memory instructions queued, and L1 MSHRs in use.
  std::uint32_t queueDepth() const { return std::uint32_t(queue_.size()); }
  std::uint32_t mshrUsed() const { return mshr_.used(); }
  // Bulk copies taken (enqueueBulk) and not yet finished: the TMA unit's requests in flight.
  std::uint32_t bulkInFlight() const { return bulk_in_flight_; }

  // Where lane `lane` of warp slot `slot` keeps its local byte `offset`: 4-byte words interleaved
  // across the lanes of the warp (lane L's word w at region + w*128 + L*4), as on hardware, so
  // that a warp accessing one per-thread offset touches one 128-byte line.
  std::uint64_t localAddress(std::uint32_t slot, std::uint32_t local_stride, int lane, std::uint64_t offset) const;

 private:
  struct Step;
  struct Op;
  // earliestRoom(now) as last computed, for `now` = room_at_: every stalled warp of the SM asks it
  // in the same cycle, and its sum walks the front instruction's remaining steps. Anything that
  // changes the queue, the front instruction's steps or the requests out forgets it.
  static constexpr std::uint64_t kNoRoomMemo = ~std::uint64_t{0};
  mutable std::uint64_t room_at_ = kNoRoomMemo, room_value_ = 0;
  bool queue_freed_ = false;
  void buildSteps(const MemTrace& t, const LsuRequest& req, Op& op);
  std::uint32_t sharedPhaseLanes(std::uint32_t bytes) const;
  std::uint32_t sharedWavefronts(const MemTrace& t, std::uint32_t lanes, bool atomic, std::uint32_t& ideal) const;
  bool stepLine(Op& op, Step& s, std::uint64_t now);
  void stepConst(Op& op, const Step& s, std::uint64_t now);
  void finish(std::uint32_t id);
  void handleResponse(const memsys::MemRequest& r, std::uint64_t cycle);
  std::uint32_t allocOp();
  // A request that leaves the SM: to the crossbar queue now, or after its translation.
  void dispatch(const memsys::MemRequest& r, std::uint64_t now);
  // Moves the requests whose translation is done by `now` to the crossbar queue, oldest first.
  void releaseTranslated(std::uint64_t now);

  const SmParams p_;
  const std::uint32_t sm_index_;
  const std::string name_;
  std::uint32_t queue_capacity_, out_capacity_;
  std::uint32_t line_bytes_, sector_bytes_;
  std::unique_ptr<Coalescer> coalescer_;  // global accesses to lines (model, RTL or both)
  std::vector<LineAccess> lines_;         // scratch: the lines of the access being built
  std::unique_ptr<memsys::SectorCache> l1_, const_cache_;  // null when size_bytes is 0 (every access misses)
  memsys::MshrTable mshr_;
  // Looked up by line, walked only for a state dump (sorted there): hash order never shows.
  std::unordered_map<std::uint64_t, std::uint32_t> line_requests_;  // reads outstanding per line (one MSHR entry)
  std::unordered_set<std::uint64_t> no_fill_lines_;                 // lines requested only by L1-bypassing loads
  std::vector<std::pair<std::uint64_t, std::uint64_t>> const_fills_;  // constant lines being filled: line, ready

  std::vector<Op> ops_;
  std::vector<std::uint32_t> free_ops_;
  std::deque<std::uint32_t> queue_;  // ops waiting for / in the pipeline, in order
  std::uint32_t in_flight_ = 0;      // ops allocated (queued or waiting for responses)
  std::deque<memsys::MemRequest> out_;
  std::unique_ptr<memsys::TranslationPath> translation_;  // null: translation is free
  std::uint32_t asid_ = 0;
  std::deque<std::pair<std::uint64_t, memsys::MemRequest>> translating_;  // (cycle translated, request)
  std::vector<std::pair<std::uint64_t, memsys::MemRequest>> l2_tlb_pending_;  // L1 TLB misses of this cycle
  std::deque<std::pair<memsys::MemRequest, std::uint64_t>> responses_;
  std::vector<LsuDone> done_;
  std::uint64_t next_request_id_ = 0;
  std::uint32_t bulk_in_flight_ = 0;

  Counter *global_loads_, *global_stores_, *atomics_, *local_loads_, *local_stores_, *shared_loads_,
      *shared_stores_, *shared_atomics_, *shared_wavefronts_, *shared_bank_conflicts_, *global_requests_,
      *global_sectors_, *l1_hits_, *l1_misses_, *mshr_merges_, *mshr_full_stalls_, *const_requests_,
      *const_serialized_, *const_hits_, *const_misses_;
  // Asynchronous copies: cp.async (global to shared through the LSU) and bulk copies (the TMA unit).
  Counter *cp_async_requests_, *cp_async_bytes_, *tma_requests_, *tma_shared_bytes_, *tma_global_bytes_;
};

}  // namespace scgpu::sm::timing
