#include "memsys/dram_channel.h"

#include <algorithm>
#include <stdexcept>

namespace scgpu::memsys {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("dram: " + what); }

std::string num(std::uint64_t v) { return std::to_string(v); }

}  // namespace

DramChannel::DramChannel(const DramParams& p, std::uint32_t index, StatsRegistry& stats, const std::string& name)
    : p_(p), index_(index) {
  if (p.bank_groups == 0) bad("bank_groups must be at least 1");
  if (p.banks_per_group == 0) bad("banks_per_group must be at least 1");
  if (p.rows == 0) bad("rows must be at least 1");
  if (p.access_bytes == 0) bad("access_bytes must be at least 1");
  if (p.row_bytes < p.access_bytes || p.row_bytes % p.access_bytes != 0)
    bad("row_bytes (" + num(p.row_bytes) + ") must be a multiple of access_bytes (" + num(p.access_bytes) + ")");
  if (p.bus_width_bits == 0 || p.bus_width_bits % 8 != 0)
    bad("bus_width_bits (" + num(p.bus_width_bits) + ") must be a positive multiple of 8");
  if (p.transfers_per_clock == 0) bad("transfers_per_clock must be at least 1");
  if (p.timing.burst_length == 0 || p.timing.burst_length % p.transfers_per_clock != 0)
    bad("timing.burst_length (" + num(p.timing.burst_length) +
        ") must be a positive multiple of transfers_per_clock (" + num(p.transfers_per_clock) + ")");
  if (std::uint64_t(p.bus_width_bits) / 8 * p.timing.burst_length != p.access_bytes)
    bad("access_bytes (" + num(p.access_bytes) + ") must equal bus_width_bits / 8 * timing.burst_length (" +
        num(std::uint64_t(p.bus_width_bits) / 8 * p.timing.burst_length) + ")");
  if (p.read_queue_entries == 0) bad("read_queue_entries must be at least 1");
  if (p.write_queue_entries == 0) bad("write_queue_entries must be at least 1");
  if (p.write_drain_high_watermark == 0 || p.write_drain_high_watermark > p.write_queue_entries)
    bad("write_drain_high_watermark (" + num(p.write_drain_high_watermark) + ") must be in [1, write_queue_entries (" +
        num(p.write_queue_entries) + ")]");
  if (p.write_drain_low_watermark > p.write_drain_high_watermark)
    bad("write_drain_low_watermark (" + num(p.write_drain_low_watermark) +
        ") must not exceed write_drain_high_watermark (" + num(p.write_drain_high_watermark) + ")");
  if (p.scheduler != "fr_fcfs" && p.scheduler != "fcfs")
    bad("scheduler '" + p.scheduler + "' is not one of: fr_fcfs, fcfs");
  if (p.page_policy != "open" && p.page_policy != "closed")
    bad("page_policy '" + p.page_policy + "' is not one of: open, closed");
  if (p.address_mapping != "row_bank_column" && p.address_mapping != "row_column_bank")
    bad("address_mapping '" + p.address_mapping + "' is not one of: row_bank_column, row_column_bank");
  if (p.refresh && (p.timing.tREFI == 0 || p.timing.tRFC >= p.timing.tREFI))
    bad("with refresh on, timing.tREFI (" + num(p.timing.tREFI) + ") must be positive and larger than timing.tRFC (" +
        num(p.timing.tRFC) + ")");

  nbanks_ = p.bank_groups * p.banks_per_group;
  cols_per_row_ = p.row_bytes / p.access_bytes;
  burst_cycles_ = p.timing.burst_length / p.transfers_per_clock;
  frfcfs_ = p.scheduler == "fr_fcfs";
  closed_page_ = p.page_policy == "closed";
  row_bank_column_ = p.address_mapping == "row_bank_column";
  refresh_on_ = p.refresh;
  auto isPow2 = [](std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
  auto log2 = [](std::uint64_t v) {
    std::uint32_t n = 0;
    while (v > 1) v >>= 1, ++n;
    return n;
  };
  pow2_ = isPow2(p.access_bytes) && isPow2(cols_per_row_) && isPow2(p.banks_per_group) && isPow2(p.bank_groups) &&
          isPow2(p.rows);
  sh_access_ = log2(p.access_bytes), sh_cols_ = log2(cols_per_row_), sh_bpg_ = log2(p.banks_per_group);
  sh_bg_ = log2(p.bank_groups);

  const DramTimingParams& t = p.timing;
  tRCD_ = t.tRCD, tRP_ = t.tRP, tRAS_ = t.tRAS, tRC_ = t.tRC, tCL_ = t.tCL, tCWL_ = t.tCWL;
  tCCD_S_ = t.tCCD_S, tCCD_L_ = t.tCCD_L, tRRD_S_ = t.tRRD_S, tRRD_L_ = t.tRRD_L, tFAW_ = t.tFAW;
  tWTR_ = t.tWTR, tRTW_ = t.tRTW, tWR_ = t.tWR, tRTP_ = t.tRTP, tREFI_ = t.tREFI, tRFC_ = t.tRFC;
  ctrl_ = p.controller_latency_cycles;

  banks_.resize(nbanks_);
  for (std::uint32_t b = 0; b < nbanks_; ++b) banks_[b].group = b / p.banks_per_group;
  act_bg_.assign(p.bank_groups, 0);
  rd_bg_.assign(p.bank_groups, 0);
  wr_bg_.assign(p.bank_groups, 0);
  act_floor_.assign(p.bank_groups, 0);
  col_floor_.assign(p.bank_groups, 0);
  capacity_[0] = p.read_queue_entries;
  capacity_[1] = p.write_queue_entries;
  next_refresh_ = refresh_on_ ? tREFI_ : kNever;

  auto c = [&](const char* n, const char* d) { return stats.counter(name + "." + n, d); };
  reads_ = c("reads", "RD commands (column reads of access_bytes each)");
  writes_ = c("writes", "WR commands (column writes of access_bytes each)");
  activates_ = c("activates", "ACT commands");
  precharges_ = c("precharges", "banks precharged (PRE, and auto-precharge under the closed-page policy)");
  refreshes_ = c("refreshes", "all-bank REF commands");
  row_hits_ = c("row_hits", "column accesses to an already open row");
  row_misses_ = c("row_misses", "column accesses that needed an ACT of a closed bank");
  row_conflicts_ = c("row_conflicts", "column accesses that needed a PRE of another open row first");
  rq_full_cycles_ = c("read_queue_full_cycles", "cycles with no free read queue entry");
  busy_cycles_ = c("busy_cycles", "data-bus cycles used by bursts (counted when the command issues)");
  read_latency_ = c("total_read_latency_cycles", "sum over read requests of response-due minus accept cycle");
  read_requests_ = c("read_requests", "read requests completed (reads, atomics, fetches)");
  write_requests_ = c("write_requests", "write requests completed");
}

// ---------------------------------------------------------------------------------------------
// Addresses and bursts

DramChannel::Location DramChannel::locate(std::uint64_t addr) const {
  Location l;
  std::uint32_t bank_in_group;
  if (pow2_) {  // the usual case: shifts and masks
    std::uint64_t block = addr >> sh_access_;
    const std::uint64_t col = block & (cols_per_row_ - 1);
    if (row_bank_column_) {
      l.column = std::uint32_t(col);
      block >>= sh_cols_;
      bank_in_group = std::uint32_t(block & (p_.banks_per_group - 1));
      block >>= sh_bpg_;
      l.bank_group = std::uint32_t(block & (p_.bank_groups - 1));
      block >>= sh_bg_;
    } else {
      l.bank_group = std::uint32_t(block & (p_.bank_groups - 1));
      block >>= sh_bg_;
      bank_in_group = std::uint32_t(block & (p_.banks_per_group - 1));
      block >>= sh_bpg_;
      l.column = std::uint32_t(block & (cols_per_row_ - 1));
      block >>= sh_cols_;
    }
    l.row = std::uint32_t(block & (p_.rows - 1));
    if (p_.bank_xor_row) {
      // Permutation interleaving: the row's low bits pick a different bank for each row, so two
      // streams whose addresses differ by a multiple of the bank span do not thrash one bank.
      l.bank_group ^= l.row & (p_.bank_groups - 1);
      bank_in_group ^= (l.row >> sh_bg_) & (p_.banks_per_group - 1);
    }
    l.bank = l.bank_group * p_.banks_per_group + bank_in_group;
    return l;
  }
  std::uint64_t block = addr / p_.access_bytes;
  if (row_bank_column_) {
    l.column = std::uint32_t(block % cols_per_row_);
    block /= cols_per_row_;
    bank_in_group = std::uint32_t(block % p_.banks_per_group);
    block /= p_.banks_per_group;
    l.bank_group = std::uint32_t(block % p_.bank_groups);
    block /= p_.bank_groups;
  } else {
    l.bank_group = std::uint32_t(block % p_.bank_groups);
    block /= p_.bank_groups;
    bank_in_group = std::uint32_t(block % p_.banks_per_group);
    block /= p_.banks_per_group;
    l.column = std::uint32_t(block % cols_per_row_);
    block /= cols_per_row_;
  }
  l.row = std::uint32_t(block % p_.rows);
  if (p_.bank_xor_row) {  // the same permutation, as a rotation when the counts are not powers of two
    l.bank_group = (l.bank_group + l.row) % p_.bank_groups;
    bank_in_group = (bank_in_group + l.row / p_.bank_groups) % p_.banks_per_group;
  }
  l.bank = l.bank_group * p_.banks_per_group + bank_in_group;
  return l;
}

void DramChannel::burstBlocks(const MemRequest& r, std::vector<std::uint64_t>& blocks) const {
  blocks.clear();
  if (r.sector_mask != 0) {
    for (std::uint32_t i = 0; i < 32; ++i) {
      if (!(r.sector_mask >> i & 1u)) continue;
      std::uint64_t b = (r.addr + 32ull * i) / p_.access_bytes;
      if (blocks.empty() || blocks.back() != b) blocks.push_back(b);
    }
  } else {
    std::uint64_t n = r.bytes ? r.bytes : 1;
    for (std::uint64_t b = r.addr / p_.access_bytes; b <= (r.addr + n - 1) / p_.access_bytes; ++b) blocks.push_back(b);
  }
}

std::uint32_t DramChannel::burstCount(const MemRequest& r) const {
  if (r.sector_mask != 0) {
    std::uint32_t n = 0;
    std::uint64_t last = kNever;
    for (std::uint32_t i = 0; i < 32; ++i) {
      if (!(r.sector_mask >> i & 1u)) continue;
      std::uint64_t b = (r.addr + 32ull * i) / p_.access_bytes;
      if (b != last) ++n, last = b;
    }
    return n;
  }
  std::uint64_t n = r.bytes ? r.bytes : 1;
  return std::uint32_t((r.addr + n - 1) / p_.access_bytes - r.addr / p_.access_bytes + 1);
}

// ---------------------------------------------------------------------------------------------
// The boundary

bool DramChannel::canAccept(const MemRequest& r) const {
  int q = isReadLike(r) ? 0 : 1;
  std::uint32_t need = burstCount(r);
  return queued_[q] == 0 || queued_[q] + need <= capacity_[q];
}

void DramChannel::accept(const MemRequest& r, std::uint64_t cycle) {
  if (next_cycle_ > 0 && cycle + 1 < next_cycle_)
    throw std::logic_error("dram: accept at cycle " + num(cycle) + " after cycle " + num(next_cycle_ - 1) +
                           " was ticked");
  if (!canAccept(r)) throw std::logic_error("dram: accept() while canAccept() is false");
  // Cycles skipped before this one happen first (refresh), exactly as if they had been ticked.
  if (cycle > next_cycle_) advance(cycle - 1);

  const int q = isReadLike(r) ? 0 : 1;
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = std::uint32_t(slots_.size());
    slots_.emplace_back();
  }
  burstBlocks(r, scratch_blocks_);
  Slot& s = slots_[slot];
  s.req = r;
  s.accept_cycle = cycle;
  s.data_end = 0;
  s.remaining = std::uint32_t(scratch_blocks_.size());
  s.read_like = q == 0;

  for (std::uint64_t block : scratch_blocks_) {
    Location l = locate(block * p_.access_bytes);
    Bank& b = banks_[l.bank];
    BankQueue& bq = b.q[q];
    Burst x;
    x.seq = burst_seq_++;
    x.ready = cycle + ctrl_;
    x.slot = slot;
    x.row = l.row;
    bq.fifo.push_back(x);
    if (bq.hit_valid && bq.hit_pos == kNone && b.open && b.row == x.row) bq.hit_pos = bq.fifo.size() - 1;
    ++queued_[q];
  }
  wake_ = 0;  // queue contents changed: re-evaluate at the next processed cycle
}

bool DramChannel::hasResponse() const { return !responses_.empty() && responses_.top().ready < next_cycle_; }

const MemRequest& DramChannel::peekResponse() const {
  if (!hasResponse()) throw std::logic_error("dram: peekResponse() without a response");
  return responses_.top().req;
}

void DramChannel::popResponse() {
  if (!hasResponse()) throw std::logic_error("dram: popResponse() without a response");
  responses_.pop();
}

void DramChannel::tick(std::uint64_t cycle) {
  if (cycle < next_cycle_)
    throw std::logic_error("dram: tick(" + num(cycle) + ") after cycle " + num(next_cycle_ - 1) + " was ticked");
  advance(cycle);
}

bool DramChannel::idle() const { return queued_[0] == 0 && queued_[1] == 0 && responses_.empty(); }

DramChannel::Command DramChannel::lastCommand() const {
  if (next_cycle_ > 0 && last_cmd_cycle_ == next_cycle_ - 1) return last_cmd_;
  return Command{};
}

// ---------------------------------------------------------------------------------------------
// Time. advance() visits only the cycles in which a command may issue (wake_ is a lower bound on
// the next such cycle: nothing changes the controller's state between two of them except accept(),
// which resets wake_), so its result does not depend on which cycles were ticked.

void DramChannel::advance(std::uint64_t target) {
  std::uint64_t t = next_cycle_;
  while (t <= target) {
    std::uint64_t ev = std::max(t, wake_);
    if (ev > target) {
      quietCycles(target - t + 1);
      break;
    }
    quietCycles(ev - t);
    step(ev);
    t = ev + 1;
  }
  next_cycle_ = target + 1;
}

void DramChannel::quietCycles(std::uint64_t n) {
  if (queued_[0] >= capacity_[0]) *rq_full_cycles_ += n;
}

void DramChannel::step(std::uint64_t t) {
  quietCycles(1);
  updateMode();
  if (refresh_on_ && !refresh_pending_ && t >= next_refresh_) refresh_pending_ = true;
  if (refresh_pending_)
    refreshStep(t);
  else
    schedule(t);
}

// Read mode -> write mode when the write queue reaches the high watermark, or when no read is
// queued; write mode -> read mode when the write queue is empty, or below the low watermark while
// reads are queued.
void DramChannel::updateMode() {
  const std::uint32_t w = queued_[1], r = queued_[0];
  if (!write_mode_) {
    if (w > 0 && (w >= p_.write_drain_high_watermark || r == 0)) write_mode_ = true;
  } else if (w == 0 || (w < p_.write_drain_low_watermark && r > 0)) {
    write_mode_ = false;
  }
}

// All-bank refresh: once due, no new accesses start; open banks are precharged (lowest index first,
// one per cycle, each when its tRAS/tRTP/tWR allow), then REF issues when every bank allows an ACT
// (tRP after its PRE, tRC after its ACT). REF blocks every bank for tRFC.
void DramChannel::refreshStep(std::uint64_t t) {
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

void DramChannel::ensureHit(Bank& b, BankQueue& bq) {
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

void DramChannel::invalidateHits(Bank& b) {
  for (BankQueue& bq : b.q) {
    bq.hit_valid = false;
    bq.scan_from = 0;
  }
}

// Earliest ACT / column command of queue q per bank group, from the channel- and group-level
// constraints (tRRD_S/L, tFAW; tCCD_S/L, tWTR, tRTW, data bus). Computed once per scheduling pass.
void DramChannel::groupFloors(int q) {
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
void DramChannel::schedule(std::uint64_t t) {
  const int q = write_mode_ ? 1 : 0;
  std::uint64_t wake = next_refresh_;
  if (queued_[q] == 0) {
    wake_ = wake;
    return;
  }
  struct Pick {
    bool valid = false;
    Command::Kind kind = Command::None;
    std::uint32_t bank = 0;
    std::size_t pos = 0;
    std::uint64_t seq = 0;
  } col, row;
  auto consider = [](Pick& p, Command::Kind k, std::uint32_t b, std::size_t pos, std::uint64_t seq) {
    if (!p.valid || seq < p.seq) p = Pick{true, k, b, pos, seq};
  };
  const Command::Kind col_kind = q == 0 ? Command::Rd : Command::Wr;
  groupFloors(q);

  for (std::uint32_t b = 0; b < nbanks_; ++b) {
    Bank& bk = banks_[b];
    BankQueue& bq = bk.q[q];
    if (bq.fifo.empty()) continue;
    const Burst& front = bq.fifo.front();
    if (frfcfs_ && bk.open) {
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
        consider(row, Command::Pre, b, 0, front.seq);
      else
        wake = std::min(wake, bk.next_pre);
    } else {
      std::uint64_t e = std::max(bk.next_act, act_floor_[bk.group]);
      if (e <= t)
        consider(row, Command::Act, b, 0, front.seq);
      else
        wake = std::min(wake, e);
    }
  }

  Pick pick = frfcfs_ ? (col.valid ? col : row) : (!col.valid ? row : !row.valid ? col : col.seq < row.seq ? col : row);
  if (!pick.valid) {
    wake_ = wake;
    return;
  }
  Bank& bk = banks_[pick.bank];
  if (pick.kind == Command::Act)
    issueAct(pick.bank, bk.q[q].fifo[pick.pos], t);
  else if (pick.kind == Command::Pre)
    issuePre(pick.bank, &bk.q[q].fifo[pick.pos], t);
  else
    issueCol(pick.bank, q, pick.pos, t);
  wake_ = t + 1;
}

// ---------------------------------------------------------------------------------------------
// Commands

void DramChannel::record(Command::Kind k, std::uint32_t bank, std::uint32_t row, std::uint64_t t) {
  last_cmd_.kind = k;
  last_cmd_.bank = bank;
  last_cmd_.row = row;
  last_cmd_cycle_ = t;
}

void DramChannel::issueAct(std::uint32_t bank, Burst& burst, std::uint64_t t) {
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
  burst.had_act = true;
  ++*activates_;
  record(Command::Act, bank, burst.row, t);
}

void DramChannel::issuePre(std::uint32_t bank, Burst* burst, std::uint64_t t) {
  Bank& b = banks_[bank];
  b.open = false;
  invalidateHits(b);
  b.next_act = std::max(b.next_act, t + tRP_);
  if (burst) burst->had_pre = true;
  ++*precharges_;
  record(Command::Pre, bank, 0, t);
}

void DramChannel::issueCol(std::uint32_t bank, int q, std::size_t pos, std::uint64_t t) {
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

  std::uint64_t data_end;
  if (q == 0) {
    rd_any_ = std::max(rd_any_, t + tCCD_S_);
    rd_bg_[b.group] = std::max(rd_bg_[b.group], t + tCCD_L_);
    wr_any_ = std::max(wr_any_, t + tRTW_);
    b.next_pre = std::max(b.next_pre, t + tRTP_);
    data_end = t + tCL_ + burst_cycles_;
    ++*reads_;
  } else {
    wr_any_ = std::max(wr_any_, t + tCCD_S_);
    wr_bg_[b.group] = std::max(wr_bg_[b.group], t + tCCD_L_);
    rd_any_ = std::max(rd_any_, t + tCWL_ + burst_cycles_ + tWTR_);
    b.next_pre = std::max(b.next_pre, t + tCWL_ + burst_cycles_ + tWR_);
    data_end = t + tCWL_ + burst_cycles_;
    ++*writes_;
  }
  bus_free_ = data_end;
  *busy_cycles_ += burst_cycles_;
  if (x.had_pre)
    ++*row_conflicts_;
  else if (x.had_act)
    ++*row_misses_;
  else
    ++*row_hits_;
  record(q == 0 ? Command::Rd : Command::Wr, bank, x.row, t);

  if (closed_page_) {  // auto-precharge: starts when tRAS and tRTP / write recovery allow
    std::uint64_t pre_at = b.next_pre;
    b.open = false;
    invalidateHits(b);
    b.next_act = std::max(b.next_act, pre_at + tRP_);
    ++*precharges_;
  }

  Slot& s = slots_[x.slot];
  s.data_end = std::max(s.data_end, data_end);
  if (--s.remaining == 0) complete(x.slot);
}

void DramChannel::issueRef(std::uint64_t t) {
  for (Bank& b : banks_) b.next_act = std::max(b.next_act, t + tRFC_);
  ++*refreshes_;
  next_refresh_ += tREFI_;
  refresh_pending_ = false;
  record(Command::Ref, kAllBanks, 0, t);
}

void DramChannel::complete(std::uint32_t slot) {
  Slot& s = slots_[slot];
  const std::uint64_t due = s.data_end + ctrl_;
  if (s.read_like) {
    ++*read_requests_;
    *read_latency_ += due - s.accept_cycle;
  } else {
    ++*write_requests_;
  }
  if (s.read_like || s.req.needs_response) {
    Response r;
    r.ready = due;
    r.seq = req_seq_++;
    r.req = s.req;
    r.req.response = true;
    responses_.push(r);
  }
  free_slots_.push_back(slot);
}

}  // namespace scgpu::memsys
