// One DRAM channel controller (GDDR5/6, HBM2/3 pseudo-channel), cycle-level, in plain C++: no
// SystemC here. A SystemC wrapper ticks it once per DRAM command-clock cycle and moves requests in
// and out; this class is the boundary an RTL controller will implement later, so it stays small.
//
// Model (docs/dram.md has the full description):
//  - A request is split into bursts of `access_bytes` (one RD/WR column command each): the 32-byte
//    sectors in `sector_mask` when it is non-zero, else the bytes [addr, addr+bytes). Queue entries
//    count bursts. A read (Read, Atomic, Fetch) returns one response when its last burst's data is
//    back; a write returns one only when `needs_response` is set.
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
#include <deque>
#include <queue>
#include <string>
#include <vector>

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
  // tick): reads (and atomics, fetches) always, writes only with needs_response. response = true.
  bool hasResponse() const;
  const MemRequest& peekResponse() const;
  void popResponse();

  // Processes every DRAM command-clock cycle up to and including `cycle` (which must be later than
  // the last ticked cycle).
  void tick(std::uint64_t cycle);
  // Nothing queued, in flight or due. The wrapper may then skip ticks; refresh still happens in the
  // skipped cycles (computed on the next tick or accept).
  bool idle() const;

  struct Command {
    enum Kind { None, Act, Pre, Rd, Wr, Ref } kind = None;
    std::uint32_t bank = 0;  // flat bank index (bank_group * banks_per_group + bank); kAllBanks for Ref
    std::uint32_t row = 0;   // Act: the row opened; Rd/Wr: the row accessed; else 0
  };
  static constexpr std::uint32_t kAllBanks = 0xffffffffu;
  // The command issued in the last ticked cycle (None if none). Under the closed-page policy Rd/Wr
  // carry an auto-precharge.
  Command lastCommand() const;
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
  static constexpr std::size_t kNone = ~std::size_t(0);

  struct Burst {
    std::uint64_t seq = 0;    // arrival order = age
    std::uint64_t ready = 0;  // first cycle it may be scheduled (arrival + controller latency)
    std::uint32_t slot = 0;   // owning request
    std::uint32_t row = 0;
    bool had_pre = false;  // a PRE was issued for it (row conflict)
    bool had_act = false;  // an ACT was issued for it (row miss)
  };
  // One bank's share of the read (0) or write (1) queue, oldest first, with a cache of the oldest
  // entry that hits the open row (so a scheduling pass is O(banks), not O(queue)).
  struct BankQueue {
    std::deque<Burst> fifo;
    bool hit_valid = false;
    std::size_t hit_pos = kNone;
    std::size_t scan_from = 0;  // when !hit_valid: no hit before this position
  };
  struct Bank {
    std::uint32_t group = 0;
    bool open = false;
    std::uint32_t row = 0;
    std::uint64_t next_act = 0, next_pre = 0, next_col = 0;
    BankQueue q[2];
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
  void updateMode();
  void refreshStep(std::uint64_t t);
  void schedule(std::uint64_t t);

  void ensureHit(Bank& b, BankQueue& bq);
  static void invalidateHits(Bank& b);
  void groupFloors(int q);
  void issueAct(std::uint32_t bank, Burst& burst, std::uint64_t t);
  void issuePre(std::uint32_t bank, Burst* burst, std::uint64_t t);
  void issueCol(std::uint32_t bank, int q, std::size_t pos, std::uint64_t t);
  void issueRef(std::uint64_t t);
  void record(Command::Kind k, std::uint32_t bank, std::uint32_t row, std::uint64_t t);
  void complete(std::uint32_t slot);

  DramParams p_;
  std::uint32_t index_;
  std::uint32_t nbanks_, cols_per_row_, burst_cycles_;
  bool frfcfs_, closed_page_, row_bank_column_, refresh_on_;
  bool pow2_;  // every field size a power of two: locate() shifts instead of dividing
  std::uint32_t sh_access_, sh_cols_, sh_bpg_, sh_bg_;
  // Timing, in cycles.
  std::uint64_t tRCD_, tRP_, tRAS_, tRC_, tCL_, tCWL_, tCCD_S_, tCCD_L_, tRRD_S_, tRRD_L_, tFAW_, tWTR_, tRTW_, tWR_,
      tRTP_, tREFI_, tRFC_, ctrl_;

  std::vector<Bank> banks_;
  std::vector<std::uint64_t> act_bg_, rd_bg_, wr_bg_;    // per bank group: tRRD_L, tCCD_L
  std::vector<std::uint64_t> act_floor_, col_floor_;     // scratch of groupFloors()
  std::uint64_t act_any_ = 0, rd_any_ = 0, wr_any_ = 0;  // channel: tRRD_S, tCCD_S, tWTR, tRTW
  std::uint64_t bus_free_ = 0;                           // end of the last data burst
  std::uint64_t faw_[4] = {0, 0, 0, 0};                  // last four ACTs (ring)
  std::uint32_t faw_next_ = 0, faw_count_ = 0;

  std::uint32_t queued_[2] = {0, 0};
  std::uint32_t capacity_[2];
  bool write_mode_ = false;
  bool refresh_pending_ = false;
  std::uint64_t next_refresh_;
  std::uint64_t next_cycle_ = 0;  // first cycle not yet processed
  std::uint64_t wake_ = 0;        // no command can issue before this cycle
  std::uint64_t burst_seq_ = 0, req_seq_ = 0;

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
