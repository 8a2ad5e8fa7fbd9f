#include "memsys/l2_slice.h"

#include <stdexcept>

namespace scgpu::memsys {
namespace {

SectorCache makeCache(const CacheParams& p, const std::string& name) {
  try {
    return SectorCache(p);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(name + ": " + e.what());
  }
}

}  // namespace

L2Slice::L2Slice(const L2Params& params, std::uint32_t index, StatsRegistry& stats, const std::string& name)
    : params_(params),
      index_(index),
      cache_(makeCache(params.cache, name)),
      mshr_(params.cache.mshr_entries, params.cache.mshr_max_merge),
      write_back_(params.cache.write_policy == "write_back"),
      allocate_on_write_(params.cache.allocate_on_write),
      sector_bytes_(params.cache.sector_bytes) {
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(name + ": " + what);
  };
  need(params.request_queue_entries >= 1, "l2.request_queue_entries must be at least 1");
  need(params.cache.mshr_entries >= 1, "l2.cache.mshr_entries must be at least 1");
  need(params.cache.mshr_max_merge >= 1, "l2.cache.mshr_max_merge must be at least 1");
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
}

void L2Slice::accept(const MemRequest& req, std::uint64_t) {
  if (!canAccept()) throw std::logic_error("L2 slice " + std::to_string(index_) + ": accept() while the queue is full");
  queue_.push_back(req);
}

void L2Slice::acceptDramResponse(const MemRequest& resp, std::uint64_t) { fills_.push_back(resp); }

static std::uint32_t requestMask(const SectorCache& cache, const MemRequest& req) {
  return req.sector_mask ? req.sector_mask : cache.sectorMask(req.addr, req.bytes ? req.bytes : 1);
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

void L2Slice::lookup(std::uint64_t cycle) {
  if (responses_.size() >= params_.request_queue_entries || dram_out_.size() >= params_.request_queue_entries) {
    ++*output_stall_cycles_;
    return;
  }
  const MemRequest& req = queue_.front();
  const std::uint32_t mask = requestMask(cache_, req);
  const std::uint32_t hit_lat = params_.cache.hit_latency_cycles;
  const std::uint64_t line = cache_.lineAddr(req.addr);

  if (req.op == MemOp::Write) {
    const SectorCache::Result r = cache_.access(req.addr, mask, true, cycle);
    if (r.miss_mask && allocate_on_write_) handleVictim(cache_.fill(req.addr, r.miss_mask, write_back_, cycle), cycle);
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
  const SectorCache::Result r = cache_.probe(req.addr, mask);
  if (r.miss_mask == 0) {
    cache_.access(req.addr, mask, atomic, cycle);
    if (atomic) {
      if (!write_back_) sendDram(MemOp::Write, line, mask, cycle);
      respond(req, atomicDone(req, cycle + hit_lat));
    } else {
      respond(req, cycle + hit_lat);
    }
  } else {
    const std::uint32_t pending = mshr_.pendingSectors(line);
    const std::uint32_t w = allocWaiter(req);
    const MshrTable::Outcome out = mshr_.add(line, r.miss_mask, w);
    if (out == MshrTable::Outcome::Full) {
      free_waiters_.push_back(w);
      ++*mshr_full_stalls_;
      return;  // the head waits; nothing changed
    }
    if (out == MshrTable::Outcome::NewEntry) {
      sendDram(MemOp::Read, line, r.miss_mask, cycle);
      sectors_outstanding_[line] = r.miss_mask;
    } else {
      ++*mshr_merges_;
      const std::uint32_t extra = r.miss_mask & ~pending;
      if (extra) {
        sendDram(MemOp::Read, line, extra, cycle);
        mshr_.addSectors(line, extra);
        sectors_outstanding_[line] |= extra;
      }
    }
    if (r.line_present) cache_.access(req.addr, mask, false, cycle);  // recency
  }
  ++*(atomic ? atomics_ : reads_);
  *hits_ += sectorCount(r.hit_mask);
  *misses_ += sectorCount(r.miss_mask);
  if (r.line_present) ++*line_hits_;
  queue_.pop_front();
}

void L2Slice::processFill(const MemRequest& fill, std::uint64_t cycle) {
  const std::uint64_t line = cache_.lineAddr(fill.addr);
  auto it = sectors_outstanding_.find(line);
  if (it == sectors_outstanding_.end() || fill.sector_mask == 0 || (fill.sector_mask & ~it->second) != 0)
    throw std::logic_error("L2 slice " + std::to_string(index_) + ": DRAM response for line " + std::to_string(line) +
                           " carries sectors that were not requested");
  handleVictim(cache_.fill(line, fill.sector_mask, false, cycle), cycle);
  it->second &= ~fill.sector_mask;
  if (it->second != 0) return;  // more sectors of this line still to come
  sectors_outstanding_.erase(it);
  for (std::uint64_t w : mshr_.complete(line)) {
    const MemRequest req = waiters_[std::size_t(w)];
    free_waiters_.push_back(std::uint32_t(w));
    if (req.op == MemOp::Atomic) {
      const std::uint32_t mask = requestMask(cache_, req);
      cache_.access(req.addr, mask, true, cycle);
      if (!write_back_) sendDram(MemOp::Write, line, mask, cycle);
      respond(req, atomicDone(req, cycle + params_.cache.hit_latency_cycles));
    } else {
      respond(req, cycle + params_.cache.hit_latency_cycles);
    }
  }
}

std::uint64_t L2Slice::atomicDone(const MemRequest& req, std::uint64_t data_ready) {
  // One atomic unit per slice, in order: a request starts when its data is there and the unit is
  // free, and keeps the unit for one atomic_op_cycles per update of its most-updated address.
  const std::uint64_t start = std::max(data_ready, atomic_unit_free_);
  const std::uint64_t busy = std::uint64_t(std::max<std::uint16_t>(req.atomic_ops, 1)) * params_.atomic_op_cycles;
  atomic_unit_free_ = start + busy;
  return start + busy - params_.atomic_op_cycles + params_.atomic_latency_cycles;
}

void L2Slice::respond(const MemRequest& req, std::uint64_t ready) {
  if (!req.needs_response) return;
  Timed t{ready, req};
  t.req.response = true;
  // Ready times in each pipe are non-decreasing: plain hits/fills use +hit, atomics +hit+atomic.
  (req.op == MemOp::Atomic ? atomic_pipe_ : hit_pipe_).push_back(t);
}

void L2Slice::sendDram(MemOp op, std::uint64_t line, std::uint32_t mask, std::uint64_t cycle) {
  MemRequest d;
  d.id = (std::uint64_t(1) << 63) | (std::uint64_t(index_) << 40) | dram_seq_++;
  d.op = op;
  d.addr = line;
  d.sector_mask = mask;
  d.bytes = sectorCount(mask) * sector_bytes_;
  d.sm = std::uint16_t(index_);
  d.issue_cycle = cycle;
  d.needs_response = op == MemOp::Read;
  ++*(op == MemOp::Read ? dram_reads_ : dram_writes_);
  dram_pipe_.push_back(Timed{cycle + params_.cache.hit_latency_cycles, d});
}

void L2Slice::handleVictim(const SectorCache::Victim& v, std::uint64_t cycle) {
  if (!v.valid) return;
  ++*evictions_;
  if (v.dirty_mask) {
    ++*dirty_writebacks_;
    sendDram(MemOp::Write, v.line_addr, v.dirty_mask, cycle);
  }
}

std::uint32_t L2Slice::allocWaiter(const MemRequest& req) {
  if (!free_waiters_.empty()) {
    const std::uint32_t w = free_waiters_.back();
    free_waiters_.pop_back();
    waiters_[w] = req;
    return w;
  }
  waiters_.push_back(req);
  return std::uint32_t(waiters_.size() - 1);
}

}  // namespace scgpu::memsys
