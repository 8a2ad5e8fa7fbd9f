// One L2 cache slice: a sectored, set-associative tag array with MSHRs (the tag/MSHR stage,
// memsys/l2_tag_mshr.h: the C++ model or rtl/l2_tag_mshr.sv, by l2.impl), executing atomics, in
// front of its DRAM channel. Plain C++, ticked once per interconnect/L2 clock by its
// SystemC wrapper, which moves MemRequests between it and the crossbar and the DRAM controller.
//
// Boundary
//   in : accept()             requests from the crossbar (reads, writes, atomics, instruction fetches)
//        acceptDramResponse() read data returned by the DRAM channel
//   out: peek/popResponse()   responses to the crossbar: the original request with response=true
//        peek/popDramRequest() reads (fills) and writes (write-backs) to the DRAM channel; addr is
//                             the global line address (the wrapper applies AddressMap::channelLocal)
// Call order within a cycle: inputs (accept, acceptDramResponse), then tick(cycle), then outputs.
// With that order the latencies below hold exactly.
//
// Timing
// - One tag lookup per cycle, from the head of an in-order request queue (request_queue_entries;
//   canAccept() is false when it is full). The lookup is pipelined: its result appears
//   hit_latency_cycles later. Cache and MSHR state change at lookup.
// - Read / fetch hit: response after hit_latency_cycles. Atomic hit: after hit_latency_cycles +
//   atomic_latency_cycles. One atomic unit per slice, in order: a request holds it
//   max(atomic_request_cycles, sectors x (atomic_cycles_per_sector, plus
//   atomic_line_change_cycles_per_sector when its line is not among the unit's last atomic_unit_lines
//   lines), n x atomic_op_cycles) cycles,
//   n = updates of its most-updated address (atomic_ops; integer reductions:
//   integer_atomic_op_cycles); fractions accumulate. With atomic_queue_entries atomics waiting for
//   the unit (given to it, not yet started) the next atomic waits at the head of the request queue
//   (atomic_queue_full_cycles), so a hot slice backs up into the crossbar and the SMs.
// - Read / fetch / atomic miss: the missing sectors go to an MshrTable entry for the line. A new
//   entry sends ONE DRAM read for the line carrying the missing sectors (sector_mask, bytes =
//   sectors x sector_bytes; the DRAM wrapper splits it into access_bytes transactions). The answer
//   may come once per request or in parts (once per sector, say): each response's addr and
//   sector_mask say which sectors arrived; each is filled on arrival. A merge with a pending line
//   sends another read only for sectors not yet requested. DRAM requests appear hit_latency_cycles
//   after the lookup. When every sector outstanding for the line has returned, all its waiters
//   respond hit_latency_cycles later (atomics: + atomic_latency_cycles, then their sectors are dirty).
// - MSHR full (no free entry, or mshr_max_merge waiters on the line): the head waits (in order;
//   later requests wait behind it) and mshr_full_stalls counts the cycle.
// - Writes, write_back + allocate_on_write (the L2 of every NVIDIA GPU): a write hit marks its
//   sectors dirty; a write miss allocates the written sectors valid and dirty without fetching them.
//   This assumes full-sector writes (the L1 sends whole 32-byte sectors, as its coalescer does);
//   partial-sector byte masks are not modelled. write_back without allocate_on_write forwards the
//   missing sectors to DRAM; write_through forwards every write (and atomic result) to DRAM.
//   A write responds after hit_latency_cycles if needs_response.
// - A write holds the lookup stage max(write_request_cycles, whole sectors x write_cycles_per_sector
//   + partly written sectors x write_cycles_per_partial_sector) cycles (fractions accumulate; the
//   defaults give one cycle, as a read). A sector is written whole when MemRequest::word_mask covers
//   its 8 words (or word_mask is 0).
// - partial_sector_fill: a write miss that allocates a sector without covering it leaves it partly
//   written until later writes complete its words. Evicting a line with such dirty sectors first
//   reads them from DRAM (needs_response = false: the data only completes the write-back), then
//   writes them (the H100 reads about one sector from DRAM per partly written sector evicted:
//   validation/micro scatter_st_*_dram). A read that hits a partly written sector is served as a
//   hit (not modelled: the fill it would need).
// - A fill or write-allocate that evicts a line with dirty sectors sends a DRAM write of those
//   sectors (needs_response = false).
// - The lookup also waits while the response queue or the DRAM request queue holds
//   request_queue_entries or more entries (the crossbar or the DRAM channel is not taking them).
// - DRAM requests made here: id = 1<<63 | slice<<40 | sequence, sm = the slice index (so the DRAM
//   wrapper can route the answer back), issue_cycle = the interconnect cycle of the lookup.
//
// idle(): true when tick() has nothing to do and no output is waiting. Misses outstanding at DRAM do
// not keep a slice busy (mshrUsed() shows them); their return makes it busy again.
//
// Statistics under `name`: reads (incl. instruction fetches), writes, atomics, hits and misses (in
// sectors, at lookup), line_hits (lookups whose line tag was present), mshr_merges,
// mshr_full_stalls, output_stall_cycles, evictions, dirty_writebacks, dram_reads, dram_writes (DRAM
// requests sent), queue_full_cycles, partial_fills (DRAM reads completing partly written sectors),
// write_hold_cycles (cycles writes held the lookup stage beyond their first).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "memsys/mem_request.h"
#include "memsys/memsys_params.h"
#include "memsys/l2_tag_mshr.h"
#include "base/stats.h"

namespace scgpu::memsys {

class L2Slice {
 public:
  // Throws std::invalid_argument on inconsistent parameters.
  L2Slice(const L2Params& params, std::uint32_t index, StatsRegistry& stats, const std::string& name);

  bool canAccept() const { return queue_.size() < params_.request_queue_entries; }
  void accept(const MemRequest& req, std::uint64_t cycle);  // precondition: canAccept()

  bool hasResponse() const { return !responses_.empty(); }
  const MemRequest& peekResponse() const { return responses_.front(); }
  void popResponse() { responses_.pop_front(); }

  bool hasDramRequest() const { return !dram_out_.empty(); }
  const MemRequest& peekDramRequest() const { return dram_out_.front(); }
  void popDramRequest() { dram_out_.pop_front(); }
  void acceptDramResponse(const MemRequest& resp, std::uint64_t cycle);

  void tick(std::uint64_t cycle);
  bool idle() const {
    return queue_.empty() && fills_.empty() && hit_pipe_.empty() && atomic_pipe_.empty() && dram_pipe_.empty() &&
           responses_.empty() && dram_out_.empty();
  }
  // Nothing to look up, fill or hand on: only results whose latency runs, the first of them due
  // at nextResult(). tick() does nothing before then, so the caller may skip the cycles between
  // (each pipe is in ready order, so a tick at that cycle sees what ticking every cycle would).
  bool onlyWaiting() const { return queue_.empty() && fills_.empty() && responses_.empty() && dram_out_.empty(); }
  std::uint64_t nextResult() const {
    std::uint64_t next = ~std::uint64_t{0};
    if (!hit_pipe_.empty()) next = std::min(next, hit_pipe_.front().ready);
    if (!atomic_pipe_.empty()) next = std::min(next, atomic_pipe_.front().ready);
    if (!dram_pipe_.empty()) next = std::min(next, dram_pipe_.front().ready);
    return next;
  }
  std::uint32_t queueDepth() const { return std::uint32_t(queue_.size()); }
  // Drops every cached line (gigathread.flush_caches_before_launch); false if the tag stage cannot.
  bool invalidateAll() {
    partial_.clear();
    for (auto& s : dirty_sets_) s.clear();
    cleaned_.clear();
    return tags_->invalidateAll();
  }
  std::uint32_t mshrUsed() const { return mshr_used_; }
  // Co-simulation: the first operation on which the RTL tag stage differed from the model.
  const std::string* divergence() const { return tags_->divergence(); }
  std::uint32_t index() const { return index_; }

 private:
  struct Timed {
    std::uint64_t ready;
    MemRequest req;
  };
  void lookup(std::uint64_t cycle);
  void processFill(const MemRequest& fill, std::uint64_t cycle);
  // max_dirty_ways: `sectors` of `line` are dirty now; writes the set's oldest dirty line back
  // first when the set is at its limit.
  void noteDirty(std::uint64_t line, std::uint32_t sectors, std::uint64_t cycle);
  // Sends a DRAM write of `sectors` of `line` (after the fill of its partly written ones).
  void writeBack(std::uint64_t line, std::uint32_t sectors, std::uint64_t cycle);
  // A miss of `mask` fetching `fetched`: looks up the other sectors of their fetch pieces
  // (dram_fetch_granule_bytes) as a request nothing waits for; the sectors to fetch for them.
  std::uint32_t fetchAlong(std::uint64_t line, std::uint32_t mask, std::uint32_t fetched, const MemRequest& req,
                           std::uint64_t cycle);
  void respond(const MemRequest& req, std::uint64_t ready);
  // When an atomic whose sectors are ready at `data_ready` completes, after the atomic unit.
  std::uint64_t atomicDone(const MemRequest& req, std::uint64_t data_ready);
  // needs_response: false for a read whose data only completes a write-back (a partial-sector fill).
  void sendDram(MemOp op, std::uint64_t line, std::uint32_t mask, std::uint64_t cycle, bool needs_response = true);
  // The lookup stage's hold for a write: max(write_request_cycles, per whole / partly written sector).
  std::uint64_t writeCostFixed(const MemRequest& req, std::uint32_t mask) const;
  // Partly written sectors (l2.partial_sector_fill): a write that allocated sectors it did not cover
  // whole, and writes after it, add their words; a sector whose words are all written is whole.
  void notePartialWrite(std::uint64_t line, std::uint32_t words, std::uint32_t allocated);
  void handleVictim(const L2TagResult& r, std::uint64_t cycle);
  std::uint64_t lineAddr(std::uint64_t addr) const { return addr & ~std::uint64_t(line_bytes_ - 1); }
  // The target store: the request in slot `slot` of MSHR entry `entry` (the tag stage hands them out).
  // Grown on demand: entries are handed out lowest first, so the store holds only what was used.
  MemRequest& waiter(std::uint32_t entry, std::uint32_t slot) {
    if (waiters_.size() <= entry) waiters_.resize(std::size_t(entry) + 1);
    std::vector<MemRequest>& t = waiters_[entry];
    if (t.size() <= slot) t.resize(std::size_t(slot) + 1);
    return t[slot];
  }

  L2Params params_;
  std::uint32_t index_;
  std::unique_ptr<L2TagMshr> tags_;     // tags, replacement, MSHRs
  bool write_back_, allocate_on_write_;
  std::uint32_t line_bytes_, sector_bytes_;
  std::vector<std::vector<MemRequest>> waiters_;  // MSHR targets: [entry][slot]
  std::uint32_t mshr_used_ = 0;

  std::deque<MemRequest> queue_;        // request queue (lookup order)
  std::uint64_t atomic_unit_free_fixed_ = 0;  // the atomic unit is free from then on, in 1/kFixedOne cycles
  std::vector<std::uint64_t> atomic_unit_lines_;  // the lines it holds, most recently updated first
  std::deque<std::uint64_t> atomic_starts_;  // when the unit starts each atomic given to it, in order (fixed point)
  std::deque<MemRequest> fills_;        // DRAM responses not yet processed
  std::deque<Timed> hit_pipe_;          // responses ready at lookup/fill + hit latency
  std::deque<Timed> atomic_pipe_;       // responses ready at + atomic latency
  std::deque<Timed> dram_pipe_;         // DRAM requests ready at lookup/fill + hit latency
  std::deque<MemRequest> responses_;    // ready for the crossbar
  std::deque<MemRequest> dram_out_;     // ready for the DRAM channel
  std::uint64_t dram_seq_ = 0;
  // The lookup stage is free from this time on, in 1/kFixedOne interconnect cycles (a write holds
  // it a fractional number of cycles; the fractions accumulate exactly).
  static constexpr std::uint64_t kFixedOne = 256;
  std::uint64_t lookup_free_fixed_ = 0;
  std::uint32_t granule_sectors_ = 1;   // sectors in a fetch piece (dram_fetch_granule_bytes)
  bool track_words_ = false;            // 128-byte lines of 32-byte sectors: MemRequest::word_mask applies
  struct Partial {
    std::uint32_t words = 0;            // words written since the line was allocated
    std::uint32_t sectors = 0;          // sectors allocated by a write that did not cover them, still partial
  };
  std::unordered_map<std::uint64_t, Partial> partial_;  // line -> its partly written sectors
  // max_dirty_ways: per set, the dirty lines in the order they were last written (the tag stage,
  // model or RTL, keeps the dirty bits; the slice keeps this account beside it), and the sectors of
  // lines written back early that the tag stage still has dirty (not written again at eviction).
  struct DirtyLine {
    std::uint64_t line;
    std::uint32_t sectors;
    std::uint64_t written;  // sequence number of its last write
  };
  std::vector<std::vector<DirtyLine>> dirty_sets_;
  std::unordered_map<std::uint64_t, std::uint32_t> cleaned_;
  std::uint64_t dirty_seq_ = 0;
  std::uint32_t set_mask_ = 0, line_shift_ = 0;

  Counter *reads_, *writes_, *atomics_, *hits_, *misses_, *line_hits_, *mshr_merges_, *mshr_full_stalls_,
      *output_stall_cycles_, *evictions_, *dirty_writebacks_, *dram_reads_, *dram_writes_, *queue_full_cycles_,
      *partial_fills_, *write_hold_cycles_, *atomic_queue_full_cycles_, *fetched_along_, *early_writebacks_;
};

}  // namespace scgpu::memsys
