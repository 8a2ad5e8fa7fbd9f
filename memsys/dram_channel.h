// One DRAM channel controller (GDDR5/6, HBM2/3 pseudo-channel), cycle-level, in plain C++: no
// SystemC here. A SystemC wrapper ticks it once per DRAM command-clock cycle and moves requests in
// and out. The per-cycle command decision (bank states, timing, FR-FCFS, write drain, refresh) is
// a block of its own behind memsys/dram_scheduler.h, which an RTL scheduler can replace
// (dram.impl); this class keeps the requests, the address mapping, the responses and the stats.
//
// Model (docs/dram.md has the full description):
//  - A request is split into bursts of `access_bytes` (one RD/WR column command each): the 32-byte
//    sectors in `sector_mask` when it is non-zero, else the bytes [addr, addr+bytes). Queue entries
//    count bursts. A read (Read, Atomic, Fetch) returns one response when its last burst's data is
//    back, unless `needs_response` is cleared (an L2's fill of a partly written sector before its
//    write-back); a write returns one only when `needs_response` is set.
//  - Banks in bank groups; a read queue and a write queue with write-drain watermarks; FR-FCFS or
//    FCFS; open or closed page (closed = auto-precharge after every column access); all-bank refresh
//    every tREFI; one command per cycle; the data bus is occupied burst_length/transfers_per_clock
//    cycles per access.
//  - Request latency = controller_latency_cycles on arrival (before the request may be scheduled)
//    + DRAM time + controller_latency_cycles on the way out.
//  - tick(c) processes every cycle up to c, so skipped ticks (the wrapper skips while idle()) give
//    exactly the result of ticking every cycle: refresh runs during the skipped cycles.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "memsys/dram_scheduler.h"
#include "memsys/mem_request.h"
#include "memsys/memsys_params.h"
#include "base/stats.h"

namespace scgpu::memsys {

class DramChannel {
 public:
  // `p` is checked here (throws std::invalid_argument naming the key); `name` prefixes the
  // statistics ("gpu.dram[0]" -> "gpu.dram[0].reads").
  DramChannel(const DramParams& p, std::uint32_t index, StatsRegistry& stats, const std::string& name);

  // True when the request's queue (reads: read queue; writes: write queue) has room for all of its
  // bursts (or is empty: a request larger than the whole queue is taken alone).
  bool canAccept(const MemRequest& r) const;
  // r.addr is the channel-local address (the caller removed the channel bits). `cycle` is the
  // current DRAM cycle (>= the last ticked cycle). Throws std::logic_error when !canAccept(r).
  void accept(const MemRequest& r, std::uint64_t cycle);

  // Completed requests in completion order, visible from the cycle they are due (as of the last
  // tick): requests with needs_response (reads from an L2 always, but for the fill of a partly
  // written sector; writes when asked). response = true.
  bool hasResponse() const;
  const MemRequest& peekResponse() const;
  void popResponse();

  // Processes every DRAM command-clock cycle up to and including `cycle` (which must be later than
  // the last ticked cycle).
  void tick(std::uint64_t cycle);
  // Nothing queued, in flight or due. The wrapper may then skip ticks; refresh still happens in the
  // skipped cycles (computed on the next tick or accept).
  bool idle() const;
  // The first cycle at which ticking can change anything visible: a command may issue (the
  // scheduler's wake(), a lower bound) or a response becomes due. A wrapper may skip the ticks
  // before it (the next tick processes the skipped cycles, as advance() always does) as long as it
  // catches up (catchUp) before it offers a request, as ticking every cycle would have.
  std::uint64_t nextEvent() const;
  // Processes the cycles up to and including `cycle` not yet ticked (none if it was).
  void catchUp(std::uint64_t cycle) {
    if (cycle >= next_cycle_) advance(cycle);
  }

  struct Command {
    enum Kind { None, Act, Pre, Rd, Wr, Ref } kind = None;
    std::uint32_t bank = 0;  // flat bank index (bank_group * banks_per_group + bank); kAllBanks for Ref
    std::uint32_t row = 0;   // Act: the row opened; Rd/Wr: the row accessed; else 0
  };
  static constexpr std::uint32_t kAllBanks = 0xffffffffu;
  // The command issued in the last ticked cycle (None if none). Under the closed-page policy Rd/Wr
  // carry an auto-precharge.
  Command lastCommand() const;
  // Co-simulation (dram.impl = cosim): the first cycle on which the RTL scheduler's command
  // differed from the model's (null otherwise).
  const std::string* divergence() const { return sched_->divergence(); }
  std::uint32_t readQueueDepth() const { return queued_[0]; }   // bursts
  std::uint32_t writeQueueDepth() const { return queued_[1]; }  // bursts

  // Where a channel-local address lands (address_mapping):
  //   row_bank_column: row | bank group | bank | column | offset
  //   row_column_bank: row | column | bank | bank group | offset  (consecutive accesses rotate
  //                    over bank groups first, so a stream is spaced by tCCD_S, not tCCD_L)
  struct Location {
    std::uint32_t bank_group = 0, bank = 0, row = 0, column = 0;  // bank: flat index as in Command
  };
  Location locate(std::uint64_t channel_addr) const;
  std::uint32_t burstCycles() const { return burst_cycles_; }
  std::uint32_t index() const { return index_; }
  const DramParams& params() const { return p_; }

 private:
  static constexpr std::uint64_t kNever = ~0ull;

  // A burst in the scheduler's queue, by its tag: what the channel needs back when it is served.
  struct BurstInfo {
    std::uint32_t slot = 0;  // owning request
    bool had_pre = false;    // a PRE was issued for it (row conflict)
    bool had_act = false;    // an ACT was issued for it (row miss)
  };
  struct Slot {
    MemRequest req;
    std::uint64_t accept_cycle = 0;
    std::uint64_t data_end = 0;
    std::uint32_t remaining = 0;
    bool read_like = false;
  };
  struct Response {
    std::uint64_t ready = 0;
    std::uint64_t seq = 0;
    MemRequest req;
  };
  struct ResponseLater {
    bool operator()(const Response& a, const Response& b) const {
      return a.ready != b.ready ? a.ready > b.ready : a.seq > b.seq;
    }
  };

  static bool isReadLike(const MemRequest& r) { return r.op != MemOp::Write; }
  std::uint32_t burstCount(const MemRequest& r) const;
  void burstBlocks(const MemRequest& r, std::vector<std::uint64_t>& blocks) const;

  void advance(std::uint64_t target);  // processes cycles [next_cycle_, target]
  void quietCycles(std::uint64_t n);   // n cycles in which nothing can happen
  void step(std::uint64_t t);          // one cycle in which something may happen
  void served(const DramSchedCommand& c, std::uint64_t t);  // the scheduler issued c in cycle t
  void complete(std::uint32_t slot);

  DramParams p_;
  std::uint32_t index_;
  std::uint32_t cols_per_row_, burst_cycles_;
  std::uint32_t cols_lo_ = 1;  // row_column_bank: accesses kept in one bank before the next bank group
  bool closed_page_, row_bank_column_;
  bool pow2_;  // every field size a power of two: locate() shifts instead of dividing
  std::uint32_t sh_access_, sh_cols_, sh_bpg_, sh_bg_, sh_cols_lo_ = 0;
  std::uint64_t tCL_, tCWL_, ctrl_;
  std::unique_ptr<DramScheduler> sched_;  // the command scheduler: model, RTL or both

  std::uint32_t queued_[2] = {0, 0};
  std::uint32_t capacity_[2];
  std::uint64_t next_cycle_ = 0;  // first cycle not yet processed
  std::uint64_t req_seq_ = 0;
  std::vector<BurstInfo> bursts_;        // by tag
  std::vector<std::uint32_t> free_tags_;

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::priority_queue<Response, std::vector<Response>, ResponseLater> responses_;
  std::vector<std::uint64_t> scratch_blocks_;

  Command last_cmd_;
  std::uint64_t last_cmd_cycle_ = kNever;

  Counter *reads_, *writes_, *activates_, *precharges_, *refreshes_, *row_hits_, *row_misses_, *row_conflicts_,
      *rq_full_cycles_, *busy_cycles_, *read_latency_, *read_requests_, *write_requests_;
};

}  // namespace scgpu::memsys
