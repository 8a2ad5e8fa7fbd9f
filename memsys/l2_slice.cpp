#include "memsys/l2_slice.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace scgpu::memsys {
namespace {

std::unique_ptr<L2TagMshr> makeTags(const L2Params& p, std::uint32_t index, const std::string& name) {
  try {
    return makeL2TagMshr(p.implOf(index), L2TagParams{p.cache}, name + ".tags");
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(name + ": " + e.what());
  }
}

}  // namespace

L2Slice::L2Slice(const L2Params& params, std::uint32_t index, StatsRegistry& stats, const std::string& name)
    : params_(params),
      index_(index),
      tags_(makeTags(params, index, name)),
      write_back_(params.cache.write_policy == "write_back"),
      allocate_on_write_(params.cache.allocate_on_write),
      line_bytes_(params.cache.line_bytes),
      sector_bytes_(params.cache.sector_bytes) {
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(name + ": " + what);
  };
  need(params.request_queue_entries >= 1, "l2.request_queue_entries must be at least 1");
  need(params.cache.mshr_entries >= 1, "l2.cache.mshr_entries must be at least 1");
  need(params.cache.mshr_max_merge >= 1, "l2.cache.mshr_max_merge must be at least 1");
  need(params.write_request_cycles >= 1.0, "l2.write_request_cycles must be at least 1");
  track_words_ = line_bytes_ == 128 && sector_bytes_ == 32;
  if (params.max_dirty_ways && write_back_) {
    const std::uint64_t set_bytes = std::uint64_t(line_bytes_) * std::max<std::uint32_t>(params.cache.associativity, 1);
    const std::uint64_t sets = params.cache.size_bytes / set_bytes;
    need(sets && (sets & (sets - 1)) == 0 && (line_bytes_ & (line_bytes_ - 1)) == 0,
         "l2.max_dirty_ways needs a power-of-two number of sets and line size");
    dirty_sets_.resize(sets);
    set_mask_ = std::uint32_t(sets - 1);
    line_shift_ = std::uint32_t(__builtin_ctz(line_bytes_));
  }
  if (const std::uint32_t g = params.dram_fetch_granule_bytes; g > sector_bytes_) {
    need(g % sector_bytes_ == 0 && g <= line_bytes_ && __builtin_popcount(g / sector_bytes_) == 1,
         "l2.dram_fetch_granule_bytes (" + std::to_string(g) + ") must be a power-of-two number of sectors within a line");
    granule_sectors_ = g / sector_bytes_;
  }
  need(!params.partial_sector_fill || track_words_,
       "l2.partial_sector_fill needs 128-byte lines of 32-byte sectors (l2.cache.line_bytes, sector_bytes)");
  auto c = [&](const char* n, const char* d) { return stats.counter(name + "." + n, d); };
  reads_ = c("reads", "read and instruction-fetch requests looked up");
  writes_ = c("writes", "write requests looked up");
  atomics_ = c("atomics", "atomic requests looked up");
  hits_ = c("hits", "requested sectors found valid at lookup");
  misses_ = c("misses", "requested sectors not valid at lookup");
  line_hits_ = c("line_hits", "lookups whose line tag was present");
  mshr_merges_ = c("mshr_merges", "misses merged into a pending MSHR entry");
  mshr_full_stalls_ = c("mshr_full_stalls", "cycles the queue head waited for an MSHR entry or merge slot");
  output_stall_cycles_ = c("output_stall_cycles", "cycles lookups waited for the response or DRAM queue");
  evictions_ = c("evictions", "valid lines evicted");
  dirty_writebacks_ = c("dirty_writebacks", "evicted lines with dirty sectors written to DRAM");
  dram_reads_ = c("dram_reads", "DRAM read requests sent");
  dram_writes_ = c("dram_writes", "DRAM write requests sent");
  queue_full_cycles_ = c("queue_full_cycles", "cycles the request queue was full (back-pressure)");
  partial_fills_ = c("partial_fills", "DRAM reads that complete partly written sectors before their write-back");
  write_hold_cycles_ = c("write_hold_cycles", "cycles writes held the lookup stage beyond their first");
  fetched_along_ = c("fetched_along", "misses whose fetch brought the other sectors of their dram_fetch_granule_bytes piece");
  early_writebacks_ = c("early_writebacks", "dirty lines written back before their eviction (max_dirty_ways)");
  atomic_queue_full_cycles_ =
      c("atomic_queue_full_cycles", "cycles an atomic at the queue head waited for room before the atomic unit");
}

void L2Slice::accept(const MemRequest& req, std::uint64_t) {
  if (!canAccept()) throw std::logic_error("L2 slice " + std::to_string(index_) + ": accept() while the queue is full");
  queue_.push_back(req);
}

void L2Slice::acceptDramResponse(const MemRequest& resp, std::uint64_t) { fills_.push_back(resp); }

// The sectors a request touches: its sector mask, or those of [addr, addr + bytes) within its line.
static std::uint32_t requestMask(std::uint32_t line_bytes, std::uint32_t sector_bytes, const MemRequest& req) {
  if (req.sector_mask) return req.sector_mask;
  const std::uint64_t off = req.addr & (line_bytes - 1);
  const std::uint64_t end = std::min<std::uint64_t>(off + (req.bytes ? req.bytes : 1), line_bytes);  // exclusive
  std::uint32_t mask = 0;
  for (std::uint64_t s = off / sector_bytes; s <= (end - 1) / sector_bytes; ++s) mask |= 1u << s;
  return mask;
}

void L2Slice::tick(std::uint64_t cycle) {
  if (queue_.size() >= params_.request_queue_entries) ++*queue_full_cycles_;
  while (!fills_.empty()) {
    processFill(fills_.front(), cycle);
    fills_.pop_front();
  }
  if (!queue_.empty()) lookup(cycle);
  // Results whose latency has elapsed become visible. Each pipe is in ready order.
  while (!hit_pipe_.empty() && hit_pipe_.front().ready <= cycle) {
    responses_.push_back(hit_pipe_.front().req);
    hit_pipe_.pop_front();
  }
  while (!atomic_pipe_.empty() && atomic_pipe_.front().ready <= cycle) {
    responses_.push_back(atomic_pipe_.front().req);
    atomic_pipe_.pop_front();
  }
  while (!dram_pipe_.empty() && dram_pipe_.front().ready <= cycle) {
    dram_out_.push_back(dram_pipe_.front().req);
    dram_pipe_.pop_front();
  }
}

// The words a write covers: its word_mask, or every word of its sectors when it has none.
static std::uint32_t writtenWords(const MemRequest& req, std::uint32_t mask) {
  if (req.word_mask) return req.word_mask;
  std::uint32_t words = 0;
  for (std::uint32_t m = mask; m; m &= m - 1) words |= sectorWords(std::uint32_t(__builtin_ctz(m)));
  return words;
}

std::uint64_t L2Slice::writeCostFixed(const MemRequest& req, std::uint32_t mask) const {
  const std::uint32_t words = writtenWords(req, mask);
  double sectors = 0;
  for (std::uint32_t m = mask; m; m &= m - 1) {
    const std::uint32_t s = std::uint32_t(__builtin_ctz(m));
    const bool whole = !track_words_ || (words & sectorWords(s)) == sectorWords(s);
    sectors += whole ? params_.write_cycles_per_sector : params_.write_cycles_per_partial_sector;
  }
  return std::uint64_t(std::max(params_.write_request_cycles, sectors) * double(kFixedOne) + 0.5);
}

void L2Slice::notePartialWrite(std::uint64_t line, std::uint32_t words, std::uint32_t allocated) {
  std::uint32_t partial = 0;
  for (std::uint32_t m = allocated; m; m &= m - 1) {
    const std::uint32_t s = std::uint32_t(__builtin_ctz(m));
    if ((words & sectorWords(s)) != sectorWords(s)) partial |= 1u << s;
  }
  auto it = partial_.find(line);
  if (it == partial_.end()) {
    if (!partial) return;
    it = partial_.emplace(line, Partial{}).first;
  }
  Partial& p = it->second;
  p.words |= words;
  p.sectors |= partial;
  for (std::uint32_t m = p.sectors; m; m &= m - 1) {
    const std::uint32_t s = std::uint32_t(__builtin_ctz(m));
    if ((p.words & sectorWords(s)) == sectorWords(s)) p.sectors &= ~(1u << s);
  }
  if (!p.sectors) partial_.erase(it);
}

void L2Slice::lookup(std::uint64_t cycle) {
  if (responses_.size() >= params_.request_queue_entries || dram_out_.size() >= params_.request_queue_entries) {
    ++*output_stall_cycles_;
    return;
  }
  if (cycle * kFixedOne < lookup_free_fixed_) return;  // a write still holds the stage
  const MemRequest& req = queue_.front();
  const std::uint32_t mask = requestMask(line_bytes_, sector_bytes_, req);
  const std::uint32_t hit_lat = params_.cache.hit_latency_cycles;
  const std::uint64_t line = lineAddr(req.addr);

  if (req.op == MemOp::Write) {
    // The stage is free again after the write's hold, counted from when it became free if that was
    // within the last cycle (the request waited for it: fractions accumulate), else from now.
    const std::uint64_t cost = writeCostFixed(req, mask);
    const std::uint64_t now = cycle * kFixedOne;
    const std::uint64_t start = lookup_free_fixed_ + kFixedOne > now ? lookup_free_fixed_ : now;
    lookup_free_fixed_ = start + cost;
    *write_hold_cycles_ += (lookup_free_fixed_ + kFixedOne - 1) / kFixedOne - cycle - 1;
    const L2TagResult r = tags_->operate({L2TagOp::Write, line, mask}, cycle);
    handleVictim(r, cycle);
    if (params_.partial_sector_fill && write_back_ && allocate_on_write_)
      notePartialWrite(line, writtenWords(req, mask), r.miss_mask);
    if (write_back_) noteDirty(line, allocate_on_write_ ? mask : r.hit_mask, cycle);
    if (!write_back_)
      sendDram(MemOp::Write, line, mask, cycle);
    else if (r.miss_mask && !allocate_on_write_)
      sendDram(MemOp::Write, line, r.miss_mask, cycle);
    ++*writes_;
    *hits_ += sectorCount(r.hit_mask);
    *misses_ += sectorCount(r.miss_mask);
    if (r.line_present) ++*line_hits_;
    respond(req, cycle + hit_lat);
    queue_.pop_front();
    return;
  }

  // Read, instruction fetch, atomic: the sectors must be present.
  const bool atomic = req.op == MemOp::Atomic;
  if (atomic && params_.atomic_queue_entries) {
    // Room before the atomic unit, as this atomic would find it after the lookup's latency: those
    // the unit has started by then have left the queue (the pipeline up to it is not the queue).
    const std::uint64_t arrival = (cycle + hit_lat) * kFixedOne;
    while (!atomic_starts_.empty() && atomic_starts_.front() <= arrival) atomic_starts_.pop_front();
    if (atomic_starts_.size() >= params_.atomic_queue_entries) {
      ++*atomic_queue_full_cycles_;
      return;  // the head waits; nothing changed
    }
  }
  const L2TagResult r = tags_->operate({atomic ? L2TagOp::Atomic : L2TagOp::Read, line, mask}, cycle);
  switch (r.outcome) {
    case L2TagOutcome::Hit:
      if (atomic) {
        if (!write_back_) sendDram(MemOp::Write, line, mask, cycle);
        else noteDirty(line, mask, cycle);
        respond(req, atomicDone(req, cycle + hit_lat));
      } else {
        respond(req, cycle + hit_lat);
      }
      break;
    case L2TagOutcome::MshrFull:
    case L2TagOutcome::MergeFull:
      ++*mshr_full_stalls_;
      return;  // the head waits; nothing changed
    case L2TagOutcome::Miss:
    case L2TagOutcome::Merge:
      if (r.outcome == L2TagOutcome::Miss)
        ++mshr_used_;
      else
        ++*mshr_merges_;
      waiter(r.mshr, r.count) = req;
      // Reads fetch their whole piece (the H100's one-sector read misses read 64 bytes); atomics only
      // their sectors, so that their waiters keep the line's merge slots.
      if (r.dram_mask)
        sendDram(MemOp::Read, line, r.dram_mask | (atomic ? 0 : fetchAlong(line, mask, r.dram_mask, req, cycle)), cycle);
      break;
    default:
      throw std::logic_error(fmt::format("L2 slice {}: the tag stage answered a lookup with '{}'", index_,
                                         toString(r.outcome)));
  }
  ++*(atomic ? atomics_ : reads_);
  *hits_ += sectorCount(r.hit_mask);
  *misses_ += sectorCount(r.miss_mask);
  if (r.line_present) ++*line_hits_;
  queue_.pop_front();
}

std::uint32_t L2Slice::fetchAlong(std::uint64_t line, std::uint32_t mask, std::uint32_t fetched, const MemRequest& req,
                                  std::uint64_t cycle) {
  if (!fetched || granule_sectors_ <= 1) return 0;
  // The other sectors of each piece a fetched sector lies in.
  std::uint32_t along = 0;
  const std::uint32_t piece = (1u << granule_sectors_) - 1;
  for (std::uint32_t m = fetched; m; m &= m - 1) {
    const std::uint32_t s = std::uint32_t(__builtin_ctz(m));
    along |= piece << (s / granule_sectors_ * granule_sectors_);
  }
  along &= ~mask;
  if (!along) return 0;
  // Looked up as a read of their own that nothing waits for, so the tag stage (the model or the
  // RTL) allocates them in the line's MSHR and fills them: those already valid or on their way
  // need nothing, and with no merge slot free they are not fetched.
  const L2TagResult r = tags_->operate({L2TagOp::Read, line, along}, cycle);
  if (r.outcome != L2TagOutcome::Merge) return 0;
  MemRequest& w = waiter(r.mshr, r.count);
  w = req;
  w.op = MemOp::Read;
  w.sector_mask = along;
  w.needs_response = false;
  ++*fetched_along_;
  return r.dram_mask;
}

void L2Slice::processFill(const MemRequest& fill, std::uint64_t cycle) {
  const std::uint64_t line = lineAddr(fill.addr);
  const L2TagResult r = tags_->operate({L2TagOp::Fill, line, fill.sector_mask}, cycle);
  if (r.error)
    throw std::logic_error("L2 slice " + std::to_string(index_) + ": DRAM response for line " + std::to_string(line) +
                           " carries sectors that were not requested");
  handleVictim(r, cycle);
  if (r.outcome != L2TagOutcome::FillDone) return;  // more sectors of this line still to come
  --mshr_used_;
  for (std::uint32_t slot = 0; slot < r.count; ++slot) {
    const MemRequest req = waiter(r.mshr, slot);
    if (req.op == MemOp::Atomic) {
      const std::uint32_t mask = requestMask(line_bytes_, sector_bytes_, req);
      tags_->operate({L2TagOp::Update, line, mask}, cycle);
      if (!write_back_) sendDram(MemOp::Write, line, mask, cycle);
      else noteDirty(line, mask, cycle);
      respond(req, atomicDone(req, cycle + params_.cache.hit_latency_cycles));
    } else {
      respond(req, cycle + params_.cache.hit_latency_cycles);
    }
  }
}

std::uint64_t L2Slice::atomicDone(const MemRequest& req, std::uint64_t data_ready) {
  // One atomic unit per slice, in order: a request starts when its data is there and the unit is
  // free. It holds the unit max(atomic_request_cycles, sectors x atomic_cycles_per_sector, n x op
  // cycles), n the updates of its most-updated address: atomic_op_cycles (floating point, exch,
  // cas) or integer_atomic_op_cycles. Fractions accumulate, as a write's cost does. (H100,
  // validation/micro and atomic_probe: about 1.46 SM cycles per sector a request updates, however
  // many of its words; float adds to one word 3.4 cycles per update.)
  // A request on a line the unit does not hold (its last atomic_unit_lines lines) costs more per
  // sector (H100, atomic_hot_*: 1.47 cycles a sector on up to 4 hot lines a slice, about 2.3 over
  // 4096 lines).
  const double n = std::max<std::uint16_t>(req.atomic_ops, 1);
  const std::uint64_t line = lineAddr(req.addr);
  auto held = std::find(atomic_unit_lines_.begin(), atomic_unit_lines_.end(), line);
  const bool change = held == atomic_unit_lines_.end();
  if (change) {
    if (atomic_unit_lines_.size() < std::max<std::uint32_t>(params_.atomic_unit_lines, 1))
      atomic_unit_lines_.push_back(line);
    else
      atomic_unit_lines_.back() = line;
    held = atomic_unit_lines_.end() - 1;
  }
  std::rotate(atomic_unit_lines_.begin(), held, held + 1);  // most recent first
  const double per_sector =
      params_.atomic_cycles_per_sector + (change ? params_.atomic_line_change_cycles_per_sector : 0.0);
  const double busy = std::max({double(params_.atomic_request_cycles), sectorCount(req.sector_mask) * per_sector,
                                n * (req.atomic_integer ? params_.integer_atomic_op_cycles : params_.atomic_op_cycles)});
  const std::uint64_t ready = data_ready * kFixedOne;
  const std::uint64_t start = std::max(ready, atomic_unit_free_fixed_);
  atomic_unit_free_fixed_ = start + std::uint64_t(busy * double(kFixedOne) + 0.5);
  if (params_.atomic_queue_entries) atomic_starts_.push_back(start);  // starts are in order: the unit is in order
  // The result leaves in the cycle the unit's work on it ends (the cycle holding its last fraction).
  const std::uint64_t last = (atomic_unit_free_fixed_ + kFixedOne - 1) / kFixedOne - 1;
  return last + params_.atomic_latency_cycles;
}

void L2Slice::respond(const MemRequest& req, std::uint64_t ready) {
  if (!req.needs_response) return;
  Timed t{ready, req};
  t.req.response = true;
  // Ready times in each pipe are non-decreasing: plain hits/fills use +hit, atomics +hit+atomic.
  (req.op == MemOp::Atomic ? atomic_pipe_ : hit_pipe_).push_back(t);
}

void L2Slice::sendDram(MemOp op, std::uint64_t line, std::uint32_t mask, std::uint64_t cycle, bool needs_response) {
  MemRequest d;
  d.id = (std::uint64_t(1) << 63) | (std::uint64_t(index_) << 40) | dram_seq_++;
  d.op = op;
  d.addr = line;
  d.sector_mask = mask;
  d.bytes = sectorCount(mask) * sector_bytes_;
  d.sm = std::uint16_t(index_);
  d.issue_cycle = cycle;
  d.needs_response = op == MemOp::Read && needs_response;
  ++*(op == MemOp::Read ? dram_reads_ : dram_writes_);
  dram_pipe_.push_back(Timed{cycle + params_.cache.hit_latency_cycles, d});
}

void L2Slice::handleVictim(const L2TagResult& r, std::uint64_t cycle) {
  if (!r.victim) return;
  ++*evictions_;
  std::uint32_t dirty = r.victim_dirty;
  if (!dirty_sets_.empty()) {
    auto& set = dirty_sets_[(r.victim_line >> line_shift_) & set_mask_];
    set.erase(std::remove_if(set.begin(), set.end(), [&](const DirtyLine& d) { return d.line == r.victim_line; }),
              set.end());
    if (const auto it = cleaned_.find(r.victim_line); it != cleaned_.end()) {
      dirty &= ~it->second;  // already in DRAM
      cleaned_.erase(it);
    }
  }
  if (dirty) {
    ++*dirty_writebacks_;
    writeBack(r.victim_line, dirty, cycle);
  }
  if (!partial_.empty()) partial_.erase(r.victim_line);  // the line is gone
}

void L2Slice::writeBack(std::uint64_t line, std::uint32_t sectors, std::uint64_t cycle) {
  std::uint32_t partial = 0;
  if (!partial_.empty()) {
    const auto it = partial_.find(line);
    if (it != partial_.end()) {
      partial = it->second.sectors & sectors;
      it->second.sectors &= ~sectors;
      if (!it->second.sectors) partial_.erase(it);
    }
  }
  if (partial) {  // the bytes no write covered come from DRAM first
    ++*partial_fills_;
    sendDram(MemOp::Read, line, partial, cycle, false);
  }
  sendDram(MemOp::Write, line, sectors, cycle);
}

void L2Slice::noteDirty(std::uint64_t line, std::uint32_t sectors, std::uint64_t cycle) {
  if (dirty_sets_.empty() || !sectors) return;
  if (!cleaned_.empty())
    if (const auto it = cleaned_.find(line); it != cleaned_.end() && !(it->second &= ~sectors)) cleaned_.erase(it);
  auto& set = dirty_sets_[(line >> line_shift_) & set_mask_];
  for (DirtyLine& d : set)
    if (d.line == line) {
      d.sectors |= sectors;
      d.written = ++dirty_seq_;
      return;
    }
  if (set.size() >= params_.max_dirty_ways) {
    // The least recently written dirty line goes back to DRAM now and stays valid and clean.
    auto oldest = std::min_element(set.begin(), set.end(),
                                   [](const DirtyLine& a, const DirtyLine& b) { return a.written < b.written; });
    ++*early_writebacks_;
    writeBack(oldest->line, oldest->sectors, cycle);
    cleaned_[oldest->line] |= oldest->sectors;
    set.erase(oldest);
  }
  set.push_back({line, sectors, ++dirty_seq_});
}

}  // namespace scgpu::memsys
