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

  row_bank_column_ = p.address_mapping == "row_bank_column";
  if (p.bank_interleave_bytes < p.access_bytes || p.bank_interleave_bytes % p.access_bytes != 0 ||
      p.bank_interleave_bytes > p.row_bytes || p.row_bytes % p.bank_interleave_bytes != 0)
    bad("bank_interleave_bytes (" + num(p.bank_interleave_bytes) + ") must be a multiple of access_bytes (" +
        num(p.access_bytes) + ") that divides row_bytes (" + num(p.row_bytes) + ")");
  cols_per_row_ = p.row_bytes / p.access_bytes;
  cols_lo_ = row_bank_column_ ? 1 : p.bank_interleave_bytes / p.access_bytes;
  burst_cycles_ = p.timing.burst_length / p.transfers_per_clock;
  closed_page_ = p.page_policy == "closed";
  auto isPow2 = [](std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
  auto log2 = [](std::uint64_t v) {
    std::uint32_t n = 0;
    while (v > 1) v >>= 1, ++n;
    return n;
  };
  pow2_ = isPow2(p.access_bytes) && isPow2(cols_per_row_) && isPow2(cols_lo_) && isPow2(p.banks_per_group) &&
          isPow2(p.bank_groups) && isPow2(p.rows);
  sh_access_ = log2(p.access_bytes), sh_cols_ = log2(cols_per_row_), sh_bpg_ = log2(p.banks_per_group);
  sh_cols_lo_ = log2(cols_lo_);
  sh_bg_ = log2(p.bank_groups);

  tCL_ = p.timing.tCL, tCWL_ = p.timing.tCWL;
  ctrl_ = p.controller_latency_cycles;
  capacity_[0] = p.read_queue_entries;
  capacity_[1] = p.write_queue_entries;
  sched_ = makeDramScheduler(p.implOf(index), DramSchedParams::from(p), name + ".scheduler");

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
      // row, column (high part), bank, bank group, column (low part: bank_interleave_bytes)
      const std::uint32_t col_lo = std::uint32_t(block & (cols_lo_ - 1));
      block >>= sh_cols_lo_;
      l.bank_group = std::uint32_t(block & (p_.bank_groups - 1));
      block >>= sh_bg_;
      bank_in_group = std::uint32_t(block & (p_.banks_per_group - 1));
      block >>= sh_bpg_;
      l.column = std::uint32_t(((block & (cols_per_row_ / cols_lo_ - 1)) << sh_cols_lo_) | col_lo);
      block >>= sh_cols_ - sh_cols_lo_;
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
    const std::uint32_t col_lo = std::uint32_t(block % cols_lo_);
    block /= cols_lo_;
    l.bank_group = std::uint32_t(block % p_.bank_groups);
    block /= p_.bank_groups;
    bank_in_group = std::uint32_t(block % p_.banks_per_group);
    block /= p_.banks_per_group;
    l.column = std::uint32_t((block % (cols_per_row_ / cols_lo_)) * cols_lo_ + col_lo);
    block /= cols_per_row_ / cols_lo_;
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
    const Location l = locate(block * p_.access_bytes);
    std::uint32_t tag;
    if (!free_tags_.empty()) {
      tag = free_tags_.back();
      free_tags_.pop_back();
    } else {
      tag = std::uint32_t(bursts_.size());
      bursts_.emplace_back();
    }
    bursts_[tag] = BurstInfo{slot, false, false};
    DramSchedRequest x;
    x.tag = tag;
    x.bank = l.bank;
    x.row = l.row;
    x.write = q == 1;
    x.ready = cycle + ctrl_;  // the controller's arrival pipeline
    sched_->enqueue(x);
    ++queued_[q];
  }
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

std::uint64_t DramChannel::nextEvent() const {
  std::uint64_t next = ~std::uint64_t{0};
  if (queued_[0] || queued_[1]) next = sched_->wake();
  if (!responses_.empty()) next = std::min(next, responses_.top().ready);
  return std::max(next, next_cycle_);
}

DramChannel::Command DramChannel::lastCommand() const {
  if (next_cycle_ > 0 && last_cmd_cycle_ == next_cycle_ - 1) return last_cmd_;
  return Command{};
}

// ---------------------------------------------------------------------------------------------
// Time. advance() visits only the cycles in which a command may issue, as the scheduler's wake()
// says (the model's is a lower bound on its next such cycle, the RTL's is every cycle), so its
// result does not depend on which cycles were ticked.

void DramChannel::advance(std::uint64_t target) {
  std::uint64_t t = next_cycle_;
  while (t <= target) {
    std::uint64_t ev = std::max(t, sched_->wake());
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
  const DramSchedCommand c = sched_->step(t);
  if (c.kind != DramSchedCommand::None) served(c, t);
}

// ---------------------------------------------------------------------------------------------
// Commands: the channel's side of what the scheduler issued (statistics, data, completion).

void DramChannel::served(const DramSchedCommand& c, std::uint64_t t) {
  last_cmd_cycle_ = t;
  last_cmd_.bank = c.bank;
  last_cmd_.row = c.row;
  switch (c.kind) {
    case DramSchedCommand::Act:
      last_cmd_.kind = Command::Act;
      bursts_[c.tag].had_act = true;
      ++*activates_;
      return;
    case DramSchedCommand::Pre:
      last_cmd_.kind = Command::Pre;
      if (c.tag != DramSchedCommand::kNoTag) bursts_[c.tag].had_pre = true;
      ++*precharges_;
      return;
    case DramSchedCommand::Ref:
      last_cmd_.kind = Command::Ref;
      last_cmd_.bank = kAllBanks;
      ++*refreshes_;
      return;
    default:
      break;
  }
  const bool read = c.kind == DramSchedCommand::Rd;
  last_cmd_.kind = read ? Command::Rd : Command::Wr;
  const BurstInfo x = bursts_[c.tag];
  free_tags_.push_back(c.tag);
  --queued_[read ? 0 : 1];
  const std::uint64_t data_end = t + (read ? tCL_ : tCWL_) + burst_cycles_;
  if (read)
    ++*reads_;
  else
    ++*writes_;
  *busy_cycles_ += burst_cycles_;
  if (x.had_pre)
    ++*row_conflicts_;
  else if (x.had_act)
    ++*row_misses_;
  else
    ++*row_hits_;
  if (closed_page_) ++*precharges_;  // the auto-precharge
  Slot& s = slots_[x.slot];
  s.data_end = std::max(s.data_end, data_end);
  if (--s.remaining == 0) complete(x.slot);
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
  if (s.req.needs_response) {
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
