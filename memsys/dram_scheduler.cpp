#include "memsys/dram_scheduler.h"

#include "base/block_impl.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <vector>

namespace scgpu::memsys {

DramSchedParams DramSchedParams::from(const DramParams& p) {
  DramSchedParams s;
  s.bank_groups = p.bank_groups;
  s.banks_per_group = p.banks_per_group;
  s.read_queue_entries = p.read_queue_entries;
  s.write_queue_entries = p.write_queue_entries;
  s.write_drain_high_watermark = p.write_drain_high_watermark;
  s.write_drain_low_watermark = p.write_drain_low_watermark;
  s.fr_fcfs = p.scheduler == "fr_fcfs";
  s.closed_page = p.page_policy == "closed";
  s.refresh = p.refresh;
  s.rows = p.rows;
  s.burst_cycles = p.timing.burst_length / p.transfers_per_clock;
  s.controller_latency_cycles = p.controller_latency_cycles;
  s.timing = p.timing;
  return s;
}

const char* dramCommandName(DramSchedCommand::Kind k) {
  switch (k) {
    case DramSchedCommand::Act: return "ACT";
    case DramSchedCommand::Pre: return "PRE";
    case DramSchedCommand::Rd: return "RD";
    case DramSchedCommand::Wr: return "WR";
    case DramSchedCommand::Ref: return "REF";
    default: return "none";
  }
}

namespace {

// The C++ model. It visits only the cycles in which a command may issue: wake_ is a lower bound
// on the next such cycle (nothing changes the state between two of them except enqueue(), which
// resets it), so its decisions do not depend on which cycles were stepped.
class ModelDramScheduler : public DramScheduler {
 public:
  explicit ModelDramScheduler(const DramSchedParams& p);
  void enqueue(const DramSchedRequest& r) override;
  DramSchedCommand step(std::uint64_t t) override;
  std::uint64_t wake() const override { return wake_; }

 private:
  static constexpr std::size_t kNone = ~std::size_t(0);
  struct Burst {
    std::uint64_t seq = 0;    // arrival order = age
    std::uint64_t ready = 0;  // first cycle it may be scheduled
    std::uint32_t tag = 0;
    std::uint32_t row = 0;
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

  void updateMode();
  void refreshStep(std::uint64_t t);
  void schedule(std::uint64_t t);
  void ensureHit(Bank& b, BankQueue& bq);
  static void invalidateHits(Bank& b);
  void groupFloors(int q);
  void issueAct(std::uint32_t bank, const Burst& burst, std::uint64_t t);
  void issuePre(std::uint32_t bank, const Burst* burst, std::uint64_t t);
  void issueCol(std::uint32_t bank, int q, std::size_t pos, std::uint64_t t);
  void issueRef(std::uint64_t t);

  DramSchedParams p_;
  std::uint32_t nbanks_;
  std::uint64_t tRCD_, tRP_, tRAS_, tRC_, tCL_, tCWL_, tCCD_S_, tCCD_L_, tRRD_S_, tRRD_L_, tFAW_, tWTR_, tRTW_, tWR_,
      tRTP_, tREFI_, tRFC_, burst_cycles_;

  std::vector<Bank> banks_;
  std::vector<std::uint64_t> act_bg_, rd_bg_, wr_bg_;    // per bank group: tRRD_L, tCCD_L
  std::vector<std::uint64_t> act_floor_, col_floor_;     // scratch of groupFloors()
  std::uint64_t act_any_ = 0, rd_any_ = 0, wr_any_ = 0;  // channel: tRRD_S, tCCD_S, tWTR, tRTW
  std::uint64_t bus_free_ = 0;                           // end of the last data burst
  std::uint64_t faw_[4] = {0, 0, 0, 0};                  // last four ACTs (ring)
  std::uint32_t faw_next_ = 0, faw_count_ = 0;
  std::uint32_t queued_[2] = {0, 0};
  bool write_mode_ = false;
  bool refresh_pending_ = false;
  std::uint64_t next_refresh_;
  std::uint64_t wake_ = 0;
  std::uint64_t burst_seq_ = 0;
  DramSchedCommand cmd_;  // this step's command
};

ModelDramScheduler::ModelDramScheduler(const DramSchedParams& p) : p_(p) {
  nbanks_ = p.bank_groups * p.banks_per_group;
  const DramTimingParams& t = p.timing;
  tRCD_ = t.tRCD, tRP_ = t.tRP, tRAS_ = t.tRAS, tRC_ = t.tRC, tCL_ = t.tCL, tCWL_ = t.tCWL;
  tCCD_S_ = t.tCCD_S, tCCD_L_ = t.tCCD_L, tRRD_S_ = t.tRRD_S, tRRD_L_ = t.tRRD_L, tFAW_ = t.tFAW;
  tWTR_ = t.tWTR, tRTW_ = t.tRTW, tWR_ = t.tWR, tRTP_ = t.tRTP, tREFI_ = t.tREFI, tRFC_ = t.tRFC;
  burst_cycles_ = p.burst_cycles;
  banks_.resize(nbanks_);
  for (std::uint32_t b = 0; b < nbanks_; ++b) banks_[b].group = b / p.banks_per_group;
  act_bg_.assign(p.bank_groups, 0);
  rd_bg_.assign(p.bank_groups, 0);
  wr_bg_.assign(p.bank_groups, 0);
  act_floor_.assign(p.bank_groups, 0);
  col_floor_.assign(p.bank_groups, 0);
  next_refresh_ = p.refresh ? tREFI_ : kNever;
}

void ModelDramScheduler::enqueue(const DramSchedRequest& r) {
  const int q = r.write ? 1 : 0;
  Bank& b = banks_[r.bank];
  BankQueue& bq = b.q[q];
  Burst x;
  x.seq = burst_seq_++;
  x.ready = r.ready;
  x.tag = r.tag;
  x.row = r.row;
  bq.fifo.push_back(x);
  if (bq.hit_valid && bq.hit_pos == kNone && b.open && b.row == x.row) bq.hit_pos = bq.fifo.size() - 1;
  ++queued_[q];
  wake_ = 0;  // queue contents changed: re-evaluate at the next step
}

DramSchedCommand ModelDramScheduler::step(std::uint64_t t) {
  cmd_ = DramSchedCommand{};
  updateMode();
  if (p_.refresh && !refresh_pending_ && t >= next_refresh_) refresh_pending_ = true;
  if (refresh_pending_)
    refreshStep(t);
  else
    schedule(t);
  return cmd_;
}

// Read mode -> write mode when the write queue reaches the high watermark, or when no read is
// queued; write mode -> read mode when the write queue is empty, or below the low watermark while
// reads are queued.
void ModelDramScheduler::updateMode() {
  const std::uint32_t w = queued_[1], r = queued_[0];
  if (!write_mode_) {
    if (w > 0 && (w >= p_.write_drain_high_watermark || r == 0)) write_mode_ = true;
  } else if (w == 0 || (w < p_.write_drain_low_watermark && r > 0)) {
    write_mode_ = false;
  }
}

// All-bank refresh: once due, no new accesses start; open banks are precharged (the lowest index
// whose PRE is allowed first, one per cycle, each when its tRAS/tRTP/tWR allow), then REF issues
// when every bank allows an ACT (tRP after its PRE, tRC after its ACT). REF blocks every bank for
// tRFC.
void ModelDramScheduler::refreshStep(std::uint64_t t) {
  std::uint64_t wake = kNever;
  bool any_open = false;
  for (std::uint32_t b = 0; b < nbanks_; ++b) {
    Bank& bk = banks_[b];
    if (!bk.open) continue;
    any_open = true;
    if (bk.next_pre <= t) {
      issuePre(b, nullptr, t);
      wake_ = t + 1;
      return;
    }
    wake = std::min(wake, bk.next_pre);
  }
  if (any_open) {
    wake_ = wake;
    return;
  }
  std::uint64_t ref_at = 0;
  for (const Bank& bk : banks_) ref_at = std::max(ref_at, bk.next_act);
  if (ref_at <= t) {
    issueRef(t);
    wake_ = t + 1;
  } else {
    wake_ = ref_at;
  }
}

void ModelDramScheduler::ensureHit(Bank& b, BankQueue& bq) {
  if (bq.hit_valid) return;
  bq.hit_pos = kNone;
  if (b.open)
    for (std::size_t i = bq.scan_from; i < bq.fifo.size(); ++i)
      if (bq.fifo[i].row == b.row) {
        bq.hit_pos = i;
        break;
      }
  bq.hit_valid = true;
}

void ModelDramScheduler::invalidateHits(Bank& b) {
  for (BankQueue& bq : b.q) {
    bq.hit_valid = false;
    bq.scan_from = 0;
  }
}

// Earliest ACT / column command of queue q per bank group, from the channel- and group-level
// constraints (tRRD_S/L, tFAW; tCCD_S/L, tWTR, tRTW, data bus). Computed once per scheduling pass.
void ModelDramScheduler::groupFloors(int q) {
  const std::uint64_t faw = faw_count_ >= 4 ? faw_[faw_next_] + tFAW_ : 0;  // oldest of the last four ACTs
  const std::uint64_t act = std::max(act_any_, faw);
  std::uint64_t col;
  const std::vector<std::uint64_t>* col_bg;
  if (q == 0) {
    col = std::max(rd_any_, bus_free_ > tCL_ ? bus_free_ - tCL_ : 0);
    col_bg = &rd_bg_;
  } else {
    col = std::max(wr_any_, bus_free_ > tCWL_ ? bus_free_ - tCWL_ : 0);
    col_bg = &wr_bg_;
  }
  for (std::uint32_t g = 0; g < p_.bank_groups; ++g) {
    act_floor_[g] = std::max(act, act_bg_[g]);
    col_floor_[g] = std::max(col, (*col_bg)[g]);
  }
}

// One scheduling decision over the active queue. Per bank, the candidate is
//   fr_fcfs: the oldest ready request hitting the open row (its RD/WR); else the oldest ready
//            request (PRE if another row is open, ACT if the bank is closed);
//   fcfs:    the bank's oldest request, whatever it needs next.
// Among banks, fr_fcfs issues the oldest issuable column command, else the oldest issuable row
// command; fcfs issues the oldest issuable command.
void ModelDramScheduler::schedule(std::uint64_t t) {
  const int q = write_mode_ ? 1 : 0;
  std::uint64_t wake = next_refresh_;
  if (queued_[q] == 0) {
    wake_ = wake;
    return;
  }
  struct Pick {
    bool valid = false;
    DramSchedCommand::Kind kind = DramSchedCommand::None;
    std::uint32_t bank = 0;
    std::size_t pos = 0;
    std::uint64_t seq = 0;
  } col, row;
  auto consider = [](Pick& p, DramSchedCommand::Kind k, std::uint32_t b, std::size_t pos, std::uint64_t seq) {
    if (!p.valid || seq < p.seq) p = Pick{true, k, b, pos, seq};
  };
  const DramSchedCommand::Kind col_kind = q == 0 ? DramSchedCommand::Rd : DramSchedCommand::Wr;
  const bool frfcfs = p_.fr_fcfs;
  groupFloors(q);

  for (std::uint32_t b = 0; b < nbanks_; ++b) {
    Bank& bk = banks_[b];
    BankQueue& bq = bk.q[q];
    if (bq.fifo.empty()) continue;
    const Burst& front = bq.fifo.front();
    if (frfcfs && bk.open) {
      ensureHit(bk, bq);
      if (bq.hit_pos != kNone) {
        const Burst& h = bq.fifo[bq.hit_pos];
        if (h.ready <= t) {
          std::uint64_t e = std::max(bk.next_col, col_floor_[bk.group]);
          if (e <= t)
            consider(col, col_kind, b, bq.hit_pos, h.seq);
          else
            wake = std::min(wake, e);
          continue;  // never close a row that a ready request still hits
        }
        wake = std::min(wake, h.ready);
      }
    }
    if (front.ready > t) {
      wake = std::min(wake, front.ready);
      continue;
    }
    if (bk.open && front.row == bk.row) {  // fcfs: the oldest request is a hit
      std::uint64_t e = std::max(bk.next_col, col_floor_[bk.group]);
      if (e <= t)
        consider(col, col_kind, b, 0, front.seq);
      else
        wake = std::min(wake, e);
    } else if (bk.open) {
      if (bk.next_pre <= t)
        consider(row, DramSchedCommand::Pre, b, 0, front.seq);
      else
        wake = std::min(wake, bk.next_pre);
    } else {
      std::uint64_t e = std::max(bk.next_act, act_floor_[bk.group]);
      if (e <= t)
        consider(row, DramSchedCommand::Act, b, 0, front.seq);
      else
        wake = std::min(wake, e);
    }
  }

  Pick pick = frfcfs ? (col.valid ? col : row) : (!col.valid ? row : !row.valid ? col : col.seq < row.seq ? col : row);
  if (!pick.valid) {
    wake_ = wake;
    return;
  }
  Bank& bk = banks_[pick.bank];
  if (pick.kind == DramSchedCommand::Act)
    issueAct(pick.bank, bk.q[q].fifo[pick.pos], t);
  else if (pick.kind == DramSchedCommand::Pre)
    issuePre(pick.bank, &bk.q[q].fifo[pick.pos], t);
  else
    issueCol(pick.bank, q, pick.pos, t);
  wake_ = t + 1;
}

void ModelDramScheduler::issueAct(std::uint32_t bank, const Burst& burst, std::uint64_t t) {
  Bank& b = banks_[bank];
  b.open = true;
  b.row = burst.row;
  invalidateHits(b);
  b.next_col = t + tRCD_;
  b.next_pre = std::max(b.next_pre, t + tRAS_);
  b.next_act = std::max(b.next_act, t + tRC_);
  act_any_ = std::max(act_any_, t + tRRD_S_);
  act_bg_[b.group] = std::max(act_bg_[b.group], t + tRRD_L_);
  faw_[faw_next_] = t;
  faw_next_ = (faw_next_ + 1) % 4;
  ++faw_count_;
  cmd_ = {DramSchedCommand::Act, bank, burst.row, burst.tag};
}

void ModelDramScheduler::issuePre(std::uint32_t bank, const Burst* burst, std::uint64_t t) {
  Bank& b = banks_[bank];
  b.open = false;
  invalidateHits(b);
  b.next_act = std::max(b.next_act, t + tRP_);
  cmd_ = {DramSchedCommand::Pre, bank, 0, burst ? burst->tag : DramSchedCommand::kNoTag};
}

void ModelDramScheduler::issueCol(std::uint32_t bank, int q, std::size_t pos, std::uint64_t t) {
  Bank& b = banks_[bank];
  BankQueue& bq = b.q[q];
  const Burst x = bq.fifo[pos];
  bq.fifo.erase(bq.fifo.begin() + std::ptrdiff_t(pos));
  if (!bq.hit_valid) {
    if (pos < bq.scan_from) --bq.scan_from;
  } else if (bq.hit_pos != kNone) {
    if (pos == bq.hit_pos) {
      bq.hit_valid = false;  // no hit before pos: rescan from there
      bq.scan_from = pos;
    } else if (pos < bq.hit_pos) {
      --bq.hit_pos;
    }
  }
  --queued_[q];

  if (q == 0) {
    rd_any_ = std::max(rd_any_, t + tCCD_S_);
    rd_bg_[b.group] = std::max(rd_bg_[b.group], t + tCCD_L_);
    wr_any_ = std::max(wr_any_, t + tRTW_);
    b.next_pre = std::max(b.next_pre, t + tRTP_);
    bus_free_ = t + tCL_ + burst_cycles_;
  } else {
    wr_any_ = std::max(wr_any_, t + tCCD_S_);
    wr_bg_[b.group] = std::max(wr_bg_[b.group], t + tCCD_L_);
    rd_any_ = std::max(rd_any_, t + tCWL_ + burst_cycles_ + tWTR_);
    b.next_pre = std::max(b.next_pre, t + tCWL_ + burst_cycles_ + tWR_);
    bus_free_ = t + tCWL_ + burst_cycles_;
  }
  if (p_.closed_page) {  // auto-precharge: starts when tRAS and tRTP / write recovery allow
    b.open = false;
    invalidateHits(b);
    b.next_act = std::max(b.next_act, b.next_pre + tRP_);
  }
  cmd_ = {q == 0 ? DramSchedCommand::Rd : DramSchedCommand::Wr, bank, x.row, x.tag};
}

void ModelDramScheduler::issueRef(std::uint64_t t) {
  for (Bank& b : banks_) b.next_act = std::max(b.next_act, t + tRFC_);
  next_refresh_ += tREFI_;
  refresh_pending_ = false;
  cmd_ = {DramSchedCommand::Ref, DramSchedCommand::kAllBanks, 0, DramSchedCommand::kNoTag};
}

DramSchedulerFactory& rtlFactory() {
  static DramSchedulerFactory f;
  return f;
}

std::string commandText(const DramSchedCommand& c) {
  switch (c.kind) {
    case DramSchedCommand::None: return "none";
    case DramSchedCommand::Ref: return "REF";
    case DramSchedCommand::Pre:
      return c.tag == DramSchedCommand::kNoTag ? fmt::format("PRE bank {} (refresh)", c.bank)
                                               : fmt::format("PRE bank {} for tag {}", c.bank, c.tag);
    default: return fmt::format("{} bank {} row {} tag {}", dramCommandName(c.kind), c.bank, c.row, c.tag);
  }
}

// Both: the model's command drives the channel, the RTL's is compared with it every cycle. The
// RTL must see every cycle, so wake() is the RTL's (the model is stepped in its quiet cycles too,
// where it decides nothing, as it would have had it been stepped there).
class CosimDramScheduler : public DramScheduler {
 public:
  CosimDramScheduler(std::unique_ptr<DramScheduler> model, std::unique_ptr<DramScheduler> rtl, std::string instance)
      : model_(std::move(model)), rtl_(std::move(rtl)), instance_(std::move(instance)) {
    rtl_->keepWaveform();
  }
  void enqueue(const DramSchedRequest& r) override {
    model_->enqueue(r);
    rtl_->enqueue(r);
    enqueued_.remember(fmt::format("tag {}: {} bank {} row {}, ready at cycle {}", r.tag, r.write ? "write" : "read",
                                   r.bank, r.row, r.ready));
  }
  DramSchedCommand step(std::uint64_t t) override {
    const DramSchedCommand want = model_->step(t);
    rtl_->expect(want);
    const DramSchedCommand got = rtl_->step(t);
    if (want != got && divergence_.empty())
      divergence_ = fmt::format("RTL and model differ at cycle {} in {} (rtl/dram_cmd_sched.sv), port cmd: expected "
                                "(model) {}, got (RTL) {}\n  the instance's last {} commands:\n{}  and its last {} "
                                "bursts enqueued:\n{}{}",
                                t, instance_, commandText(want), commandText(got), issued_.size(), issued_.text(),
                                enqueued_.size(), enqueued_.text(), cosimWaveform(*rtl_, cosimWaveformStem(instance_, t)));
    if (want.kind != DramSchedCommand::None) issued_.remember(fmt::format("cycle {}: {}", t, commandText(want)));
    return want;
  }
  std::uint64_t wake() const override { return std::min(model_->wake(), rtl_->wake()); }
  const std::string* divergence() const override { return divergence_.empty() ? nullptr : &divergence_; }

 private:
  std::unique_ptr<DramScheduler> model_, rtl_;
  std::string instance_, divergence_;
  CosimHistory issued_{12}, enqueued_{12};  // kept for the report
};

}  // namespace

void registerRtlDramScheduler(DramSchedulerFactory factory) { rtlFactory() = std::move(factory); }

std::unique_ptr<DramScheduler> makeModelDramScheduler(const DramSchedParams& params) {
  return std::make_unique<ModelDramScheduler>(params);
}

std::unique_ptr<DramScheduler> makeDramScheduler(const std::string& impl, const DramSchedParams& params,
                                                 const std::string& instance) {
  checkBlockImpl("dram.impl", impl, bool(rtlFactory()));
  if (impl == "model") return makeModelDramScheduler(params);
  auto rtl = rtlFactory()(params, instance);
  if (impl == "rtl") return rtl;
  return std::make_unique<CosimDramScheduler>(makeModelDramScheduler(params), std::move(rtl), instance);
}

}  // namespace scgpu::memsys
