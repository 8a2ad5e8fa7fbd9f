#include "sm/timing/lsu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sm/address_space.h"

namespace scgpu::sm::timing {

using memsys::MemOp;
using memsys::MemRequest;

struct Lsu::Step {
  enum class Kind : std::uint8_t { Shared, Line, Const } kind = Kind::Line;
  MemOp mem = MemOp::Read;     // Line: Read, Write or Atomic
  std::uint32_t mask = 0;      // Line: sectors; Shared: wavefronts still to issue
  std::uint64_t addr = 0;      // Line: line address; Const: the (synthetic) address
  std::uint32_t bytes = 0;     // Const: bytes read
  std::uint16_t atomic_ops = 1;  // Line, Atomic: lanes updating the most-updated address of the line
  std::uint16_t hold = 0;        // Line: cycles the step keeps the pipeline after its access (stores)
  bool accessed = false;         // Line: the access was made; the step holds the pipeline
  bool atomic_integer = false;   // Line, Atomic: an integer reduction (see MemRequest)
  std::uint32_t words = 0;       // Line, Write: the 4-byte words of the line written (MemRequest::word_mask)
  std::uint32_t extra_latency = 0;  // Shared: cycles beyond a local access (another block's shared memory)
};

struct Lsu::Op {
  LsuRequest req;
  std::vector<Step> steps;
  std::uint32_t next = 0;         // next step to run
  std::uint32_t outstanding = 0;  // responses still expected (line fills, store and atomic acks)
  std::uint64_t ready = 0;        // latest data-ready cycle so far
  bool used = false, processed = false;
  bool bulk = false;              // a bulk copy (enqueueBulk): counted in bulk_in_flight_
};

Lsu::Lsu(const SmParams& p, std::uint32_t sm_index, StatsRegistry& stats, const std::string& name)
    : p_(p),
      sm_index_(sm_index),
      name_(name),
      queue_capacity_(std::max<std::uint32_t>(p.lsu_queue_entries, 1)),
      out_capacity_(std::max<std::uint32_t>(p.lsu_queue_entries, 1)),
      line_bytes_(p.l1.line_bytes),
      sector_bytes_(p.l1.sector_bytes),
      mshr_(std::max<std::uint32_t>(p.l1.mshr_entries, 1), p.l1.mshr_max_merge) {
  if (line_bytes_ == 0 || (line_bytes_ & (line_bytes_ - 1)) || sector_bytes_ == 0 || line_bytes_ % sector_bytes_ ||
      line_bytes_ / sector_bytes_ > 32)
    throw std::invalid_argument(fmt::format("sm.l1: line_bytes ({}) must be a power of two holding 1..32 sectors of "
                                            "sector_bytes ({})", line_bytes_, sector_bytes_));
  if (p.shared_memory_banks == 0 || p.shared_memory_bank_width_bytes == 0)
    throw std::invalid_argument("sm.shared_memory_banks and shared_memory_bank_width_bytes must be at least 1");
  coalescer_ = makeCoalescer(p.coalescerImpl(sm_index), CoalescerParams{line_bytes_, sector_bytes_}, name + ".coalescer");
  if (p.l1.size_bytes) l1_ = std::make_unique<memsys::SectorCache>(p.l1);
  if (p.constant_cache.size_bytes) const_cache_ = std::make_unique<memsys::SectorCache>(p.constant_cache);
  auto c = [&](const char* n, const char* d) { return stats.counter(name + ".lsu." + n, d); };
  global_loads_ = c("global_loads", "warp-level global load instructions");
  global_stores_ = c("global_stores", "warp-level global store instructions");
  atomics_ = c("atomics", "warp-level global atomic and reduction instructions");
  local_loads_ = c("local_loads", "warp-level local load instructions");
  local_stores_ = c("local_stores", "warp-level local store instructions");
  shared_loads_ = c("shared_loads", "warp-level shared load instructions");
  shared_stores_ = c("shared_stores", "warp-level shared store instructions");
  shared_atomics_ = c("shared_atomics", "warp-level shared atomic and reduction instructions");
  shared_wavefronts_ = c("shared_wavefronts", "shared-memory wavefronts (bank passes)");
  shared_bank_conflicts_ = c("shared_bank_conflicts", "shared wavefronts beyond the ideal (one per phase)");
  global_requests_ = c("global_requests", "128-byte lines touched by global and local accesses");
  global_sectors_ = c("global_sectors", "32-byte sectors touched by global and local accesses");
  l1_hits_ = stats.counter(name + ".l1.hits", "L1 data sectors hit (loads)");
  l1_misses_ = stats.counter(name + ".l1.misses", "L1 data sectors missed (loads)");
  mshr_merges_ = stats.counter(name + ".l1.mshr_merges", "line misses merged into a pending MSHR");
  mshr_full_stalls_ = stats.counter(name + ".l1.mshr_full_stalls", "cycles the LSU waited for an MSHR");
  const_requests_ = stats.counter(name + ".const.requests", "constant and parameter load instructions");
  const_serialized_ = stats.counter(name + ".const.serialized", "extra constant-cache passes (divergent addresses)");
  const_hits_ = stats.counter(name + ".const.hits", "constant-cache passes that hit");
  const_misses_ = stats.counter(name + ".const.misses", "constant-cache passes that missed");
  cp_async_requests_ = stats.counter(name + ".cp_async.requests",
                                     "warp-level cp.async instructions that read global memory (a lane with a non-zero src-size)");
  cp_async_bytes_ = stats.counter(name + ".cp_async.bytes", "bytes cp.async read from global memory (cp-size per reading lane)");
  tma_requests_ = stats.counter(name + ".tma.requests",
                                "bulk copies (cp.async.bulk*, cp.reduce.async.bulk*, tensor tiles) given to the TMA unit");
  tma_shared_bytes_ = stats.counter(name + ".tma.shared_bytes", "shared-memory bytes the bulk copies wrote or read");
  tma_global_bytes_ = stats.counter(name + ".tma.global_bytes",
                                    "global-memory bytes the bulk copies read or wrote, in whole 32-byte sectors");
}

Lsu::~Lsu() = default;

void Lsu::attachTranslation(const MmuParams& mmu, memsys::Tlb* shared_l2, StatsRegistry& stats) {
  if (!mmu.enabled) return;
  translation_ = std::make_unique<memsys::TranslationPath>(mmu, shared_l2, &stats, name_ + ".lsu");
}

void Lsu::dispatch(const MemRequest& r, std::uint64_t now) {
  if (!translation_ || translation_->translateL1(asid_, r.addr)) {
    out_.push_back(r);
    return;
  }
  // An L1 TLB miss: the shared L2 TLB is looked up in commitTranslations, after every SM ticked.
  l2_tlb_pending_.emplace_back(now, r);
}

void Lsu::commitTranslations() {
  room_at_ = kNoRoomMemo;
  if (l2_tlb_pending_.empty()) return;
  for (const auto& [at, r] : l2_tlb_pending_)
    translating_.emplace_back(at + translation_->translateL2(asid_, r.addr).extra_cycles, r);
  l2_tlb_pending_.clear();
}

void Lsu::releaseTranslated(std::uint64_t now) {
  // Translations finish out of order (an L2 TLB hit overtakes a walk); each leaves when done.
  for (auto it = translating_.begin(); it != translating_.end();) {
    if (it->first <= now) {
      out_.push_back(it->second);
      it = translating_.erase(it);
    } else {
      ++it;
    }
  }
}

std::uint64_t Lsu::localAddress(std::uint32_t slot, std::uint32_t local_stride, int lane, std::uint64_t offset) const {
  const std::uint64_t words = (std::uint64_t(local_stride) + 3) / 4;
  const std::uint64_t region =
      kLocalSyntheticBase + (std::uint64_t(sm_index_) * p_.max_warps_per_sm + slot) * words * 4 * kWarpSize;
  return region + (offset / 4) * 4 * kWarpSize + std::uint64_t(lane) * 4 + offset % 4;
}

std::uint32_t Lsu::allocOp() {
  std::uint32_t id;
  if (!free_ops_.empty()) {
    id = free_ops_.back();
    free_ops_.pop_back();
  } else {
    id = std::uint32_t(ops_.size());
    ops_.emplace_back();
  }
  Op& op = ops_[id];
  op.steps.clear();
  op.next = op.outstanding = 0;
  op.ready = 0;
  op.used = true;
  op.processed = false;
  op.bulk = false;
  in_flight_++;
  return id;
}

// Shared memory: a wavefront serves at most one distinct bank-width word per bank; lanes reading
// the same word share it (broadcast). Accesses wider than the bank row are served in phases of
// banks x width / bytes lanes, but never fewer than shared_memory_min_phase_lanes: the H100
// serves 128-bit loads per half warp, 4 wavefronts without conflict and 2 when the half warps
// broadcast (validation/micro, smem_load_v4*), not per quarter warp as the CUDA programming guide
// describes. Each phase with an active lane costs at least one wavefront. Atomics do not
// broadcast: lanes updating one word serialise like lanes updating distinct words of one bank,
// and each lane of the most-loaded bank costs shared_atomic_cycles_per_lane (the H100 takes about
// 23 cycles for 32 lanes in one bank, with one word or 32, and about 1.2 for 32 distinct banks:
// validation/micro, smem_atomic_*). `ideal` gets the wavefronts the distinct words would need
// without conflicts (at least one per active phase), for the bank-conflict statistic.
std::uint32_t Lsu::sharedPhaseLanes(std::uint32_t bytes) const {
  const std::uint32_t row = p_.shared_memory_banks * p_.shared_memory_bank_width_bytes / std::max<std::uint32_t>(bytes, 1);
  return std::clamp<std::uint32_t>(std::max(row, p_.shared_memory_min_phase_lanes), 1, kWarpSize);
}

std::uint32_t Lsu::sharedWavefronts(const MemTrace& t, std::uint32_t lanes, bool atomic, std::uint32_t& ideal) const {
  const std::uint32_t bw = p_.shared_memory_bank_width_bytes, banks = p_.shared_memory_banks;
  const std::uint32_t bytes = std::max<std::uint32_t>(t.bytes, 1);
  const std::uint32_t per_phase = sharedPhaseLanes(bytes);
  std::uint64_t words[256];
  std::uint32_t total = 0;
  ideal = 0;
  for (std::uint32_t first = 0; first < std::uint32_t(kWarpSize); first += per_phase) {
    const std::uint32_t phase_mask =
        per_phase >= 32 ? kFullMask : (((1u << per_phase) - 1) << first);
    std::uint32_t m = lanes & phase_mask;
    if (!m) continue;
    std::uint32_t n = 0;
    while (m) {
      const int lane = __builtin_ctz(m);
      m &= m - 1;
      const std::uint64_t a = t.addr[lane];
      for (std::uint64_t w = a / bw; w <= (a + bytes - 1) / bw && n < 256; ++w) words[n++] = w;
    }
    if (!atomic && banks <= 64 && n <= banks) {
      // Common case first: no two distinct words share a bank (one wavefront).
      std::uint64_t seen = 0, word_of[64];
      bool conflict = false;
      for (std::uint32_t i = 0; i < n && !conflict; ++i) {
        const std::uint32_t bank = std::uint32_t(words[i] % banks);
        if (!(seen >> bank & 1)) {
          seen |= 1ull << bank;
          word_of[bank] = words[i];
        } else {
          conflict = word_of[bank] != words[i];
        }
      }
      if (!conflict) {
        total += 1;
        ideal += 1;
        continue;
      }
    }
    if (!atomic) {
      std::sort(words, words + n);
      n = std::uint32_t(std::unique(words, words + n) - words);
    }
    std::uint32_t counts[64] = {};
    std::uint32_t worst = 1;
    if (banks <= 64) {
      for (std::uint32_t i = 0; i < n; ++i) worst = std::max(worst, ++counts[words[i] % banks]);
    } else {
      std::vector<std::uint32_t> big(banks, 0);
      for (std::uint32_t i = 0; i < n; ++i) worst = std::max(worst, ++big[words[i] % banks]);
    }
    const std::uint32_t w =
        atomic ? std::max<std::uint32_t>(1, std::uint32_t(std::ceil(worst * p_.shared_atomic_cycles_per_lane - 1e-9)))
               : worst;
    total += w;
    ideal += std::min(w, std::max<std::uint32_t>(1, (n + banks - 1) / banks));
  }
  return total;
}

void Lsu::buildSteps(const MemTrace& t, const LsuRequest& req, Op& op) {
  std::uint32_t shared = 0, global = 0, local = 0, constant = 0;
  for (std::uint32_t m = t.mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    switch (t.space[lane]) {
      case ptx::Space::Shared: shared |= 1u << lane; break;
      case ptx::Space::Local: local |= 1u << lane; break;
      case ptx::Space::Const: case ptx::Space::KernelParam: constant |= 1u << lane; break;
      default: global |= 1u << lane; break;
    }
  }
  const MemOp kind = t.atomic ? MemOp::Atomic : t.write ? MemOp::Write : MemOp::Read;
  if (shared) {
    if (t.atomic) ++*shared_atomics_;
    else if (t.write) ++*shared_stores_;
    else ++*shared_loads_;
    std::uint32_t ideal = 0;
    const std::uint32_t w = sharedWavefronts(t, shared, t.atomic, ideal);
    *shared_wavefronts_ += w;
    *shared_bank_conflicts_ += w - ideal;
    Step s;
    s.kind = Step::Kind::Shared;
    s.mask = w;
    // Distributed shared memory: lanes on another block of the cluster go over the SM-to-SM
    // network, cheaper within the SM's TPC than across (the address says which,
    // sm/address_space.h): more latency, and the pipe held for their bytes at the network's rate;
    // an atomic goes as one transaction per block its lanes address, each holding the pipe
    // dsmem_atomic_cycles_per_block, whatever its lanes (H100/H200, validation/micro cluster_micro
    // dsmem_red_spread*: 13.2 cycles a warp per block, 2, 4 and 7 blocks 2, 4 and 7 times that;
    // lanes on the block's own memory alongside cost nothing more). A generic atomic on the own
    // block's memory alone takes at least generic_shared_atomic_cycles (dsmem_red_own*: 2).
    std::uint32_t near = 0, far = 0;
    std::uint64_t blocks = 0;  // bit r: a lane addresses rank r (ranks above 63 share bit 63)
    for (std::uint32_t m = shared; m; m &= m - 1) {
      const std::uint64_t traced = t.addr[__builtin_ctz(m)];
      const std::uint64_t where = dsmemWhere(traced);
      near += where == kDsmemNear;
      far += where == kDsmemFar;
      if (where) blocks |= std::uint64_t{1} << std::min<std::uint32_t>(dsmemRank(traced), 63);
    }
    if (near || far) {
      s.extra_latency = far ? p_.dsmem_far_latency_cycles : p_.dsmem_latency_cycles;
      const double bytes = std::max<std::uint32_t>(t.bytes, 1);
      double cycles = near * bytes / std::max(p_.dsmem_bytes_per_cycle, 1e-3) +
                      far * bytes / std::max(p_.dsmem_far_bytes_per_cycle, 1e-3);
      if (t.atomic) cycles = std::max(cycles, __builtin_popcountll(blocks) * p_.dsmem_atomic_cycles_per_block);
      s.mask = std::max<std::uint32_t>(w, std::uint32_t(std::ceil(cycles - 1e-9)));
    } else if (t.atomic && t.generic) {
      s.mask = std::max<std::uint32_t>(w, p_.generic_shared_atomic_cycles);
    }
    op.steps.push_back(s);
  }
  // Global and local: lines in the order lanes first touch them. Global accesses go through the
  // coalescer block; local ones are split into 4-byte words per lane (the interleaved layout).
  const std::size_t first_line = op.steps.size();
  const CoalescerParams cp{line_bytes_, sector_bytes_};
  // Local accesses in the interleaved layout: each lane's bytes as 4-byte-word pieces, fn(address, bytes).
  auto forLocalPieces = [&](auto&& fn) {
    for (std::uint32_t m = local; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      for (std::uint64_t off = t.addr[lane], end = off + t.bytes; off < end;) {
        const std::uint32_t n = std::uint32_t(std::min<std::uint64_t>(4 - off % 4, end - off));
        fn(localAddress(req.warp_slot, req.local_stride, lane, off), n);
        off += n;
      }
    }
  };
  lines_.clear();
  if (global) {
    if (t.atomic) ++*atomics_;
    else if (t.write) ++*global_stores_;
    else ++*global_loads_;
    coalescer_->coalesce(LaneAccesses{global, t.bytes, t.addr, req.ready_at}, lines_);
  }
  if (local) {
    if (t.write) ++*local_stores_;
    else ++*local_loads_;
    forLocalPieces([&](std::uint64_t addr, std::uint32_t n) { ModelCoalescer::touch(cp, addr, n, lines_, 0); });
  }
  // A store carries its data to the L2 and an atomic its operands: both hold the L1 pipe per
  // line (or atomic pass) as a store does (validation/micro: st_global_1line 4.0 cycles a warp, and
  // a reduction of 32 distinct words, global_atomic_distinct, 4.8).
  auto storeHold = [&](std::uint32_t sectors) {
    return std::uint16_t(std::max({1u, p_.store_min_cycles_per_line,
                                   memsys::sectorCount(sectors) * p_.store_cycles_per_sector}) - 1);
  };
  for (const LineAccess& l : lines_) {
    Step s;
    s.kind = Step::Kind::Line;
    s.mem = kind;
    s.addr = l.line;
    s.mask = l.sectors;
    if (kind == MemOp::Write || kind == MemOp::Atomic) s.hold = storeHold(l.sectors);
    op.steps.push_back(s);
  }
  if (kind == MemOp::Write && line_bytes_ == 128) {
    // The words each line's store writes, so that the L2 can tell whole sectors from partial ones.
    // Lanes mostly touch lines in the order the steps were made, so the search starts at the step
    // the previous piece found and wraps around.
    const std::size_t lines = op.steps.size() - first_line;
    std::size_t at = 0;
    auto mark = [&](std::uint64_t addr, std::uint32_t bytes) {
      const std::uint64_t line = addr & ~std::uint64_t(127);
      for (std::size_t tried = 0; tried < lines && op.steps[first_line + at].addr != line; ++tried)
        at = at + 1 == lines ? 0 : at + 1;
      if (op.steps[first_line + at].addr != line) return;  // not a line of this instruction (cannot happen)
      const std::uint32_t first = std::uint32_t(addr - line) / 4, last = std::uint32_t(addr - line + bytes - 1) / 4;
      op.steps[first_line + at].words |= (last >= 31 ? ~0u : (2u << last) - 1) & ~((1u << first) - 1);
    };
    if (lines) {
      for (std::uint32_t m = global; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        const std::uint64_t off = t.addr[lane] % 128;
        mark(t.addr[lane], std::uint32_t(std::min<std::uint64_t>(t.bytes, 128 - off)));
      }
      forLocalPieces(mark);
    }
  }
  if (global && t.atomic) {
    // Same-address updates serialise at the L2 atomic unit. Either each line's request tells it how
    // many updates its most-updated address takes, or (atomic_same_address_passes) the line leaves as
    // passes: pass k carries the k-th lane of each of the line's addresses, one update each.
    const std::size_t end = op.steps.size();
    for (std::size_t i = first_line; i < end; ++i) {
      std::uint16_t most = 1;
      std::uint32_t pass_sectors[32] = {};  // [k]: sectors of the addresses with more than k lanes
      for (std::uint32_t m = global; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        if ((t.addr[lane] & ~std::uint64_t(line_bytes_ - 1)) != op.steps[i].addr) continue;
        std::uint16_t same = 0, before = 0;  // lanes on this address, and those of them below `lane`
        for (std::uint32_t o = global; o; o &= o - 1) {
          const int other = __builtin_ctz(o);
          if (t.addr[other] != t.addr[lane]) continue;
          ++same;
          before += other < lane;
        }
        most = std::max(most, same);
        pass_sectors[before] |= 1u << ((t.addr[lane] % line_bytes_) / sector_bytes_);
      }
      op.steps[i].atomic_integer = !req.serial_atomic;
      if (req.aggregated_atomic) {  // ptxas's REDUX: one lane sends the warp's sum
        op.steps[i].atomic_ops = 1;
        op.steps[i].mask = pass_sectors[0];
        op.steps[i].hold = storeHold(pass_sectors[0]);
        continue;
      }
      if (!p_.atomic_same_address_passes || most == 1) {
        op.steps[i].atomic_ops = most;
        continue;
      }
      op.steps[i].mask = pass_sectors[0];
      op.steps[i].hold = storeHold(pass_sectors[0]);
      for (std::uint16_t k = 1; k < most; ++k) {
        Step pass = op.steps[i];
        pass.mask = pass_sectors[k];
        pass.hold = storeHold(pass.mask);
        op.steps.push_back(pass);
      }
    }
  }
  for (std::size_t i = first_line; i < op.steps.size(); ++i) {
    ++*global_requests_;
    *global_sectors_ += memsys::sectorCount(op.steps[i].mask);
  }
  // Constant and parameter loads: one constant-cache pass per distinct address.
  if (constant) {
    ++*const_requests_;
    const std::size_t first_const = op.steps.size();
    for (std::uint32_t m = constant; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      std::uint64_t a = t.addr[lane];
      if (t.space[lane] == ptx::Space::KernelParam) a += req.param_bank;
      bool seen = false;
      for (std::size_t i = first_const; i < op.steps.size() && !seen; ++i) seen = op.steps[i].addr == a;
      if (seen) continue;
      Step s;
      s.kind = Step::Kind::Const;
      s.addr = a;
      s.bytes = t.bytes;
      op.steps.push_back(s);
    }
    *const_serialized_ += op.steps.size() - first_const - 1;
  }
}

DepKind Lsu::enqueue(const MemTrace& trace, const LsuRequest& req) {
  room_at_ = kNoRoomMemo;
  const std::uint32_t id = allocOp();
  Op& op = ops_[id];
  op.req = req;
  buildSteps(trace, req, op);
  if (req.copy_group) {  // a cp.async
    ++*cp_async_requests_;
    *cp_async_bytes_ += std::uint64_t(__builtin_popcount(trace.mask)) * trace.bytes;
  }
  queue_.push_back(id);
  for (const Step& s : op.steps)
    if (s.kind == Step::Kind::Line) return DepKind::Long;
  return DepKind::Short;
}

void Lsu::enqueueBulk(const BulkTrace& t, const LsuRequest& req) {
  room_at_ = kNoRoomMemo;
  const std::uint32_t id = allocOp();
  Op& op = ops_[id];
  op.req = req;
  op.req.bypass_l1 = true;
  op.bulk = true;
  bulk_in_flight_++;
  ++*tma_requests_;
  *tma_shared_bytes_ += t.shared_bytes;
  // The shared-memory side: a copy into shared memory writes it as the lines arrive (after them in
  // the pipeline), a copy out of it reads it first.
  Step shared;
  shared.kind = Step::Kind::Shared;
  const std::uint64_t row = std::uint64_t(p_.shared_memory_banks) * p_.shared_memory_bank_width_bytes;
  shared.mask = std::uint32_t(std::max<std::uint64_t>(1, (t.shared_bytes + row - 1) / row));
  if (t.shared_bytes) *shared_wavefronts_ += shared.mask;
  if (t.shared_bytes && t.write) op.steps.push_back(shared);
  for (const BulkTrace::Line& l : t.lines) {
    Step s;
    s.kind = Step::Kind::Line;
    s.mem = t.write ? MemOp::Write : MemOp::Read;
    s.addr = l.addr;
    s.mask = l.sectors;
    if (t.write) {
      for (std::uint32_t k = 0; k < 4; ++k)
        if (l.sectors >> k & 1) s.words |= 0xFFu << (8 * k);
      s.hold = std::uint16_t(std::max({1u, p_.store_min_cycles_per_line,
                                       memsys::sectorCount(l.sectors) * p_.store_cycles_per_sector}) - 1);
    }
    ++*global_requests_;
    *global_sectors_ += memsys::sectorCount(l.sectors);
    *tma_global_bytes_ += 32ull * memsys::sectorCount(l.sectors);  // BulkTrace sectors are 32 bytes
    op.steps.push_back(s);
  }
  if (t.shared_bytes && !t.write) op.steps.push_back(shared);
  queue_.push_back(id);
}

void Lsu::acceptResponse(const MemRequest& r, std::uint64_t cycle) {
  room_at_ = kNoRoomMemo;
  responses_.emplace_back(r, cycle);
}

void Lsu::finish(std::uint32_t id) {
  Op& op = ops_[id];
  LsuDone d;
  d.warp_slot = op.req.warp_slot;
  d.block_slot = op.req.block_slot;
  d.ready = op.ready;
  d.ndst = op.req.ndst;
  d.copy_group = op.req.copy_group;
  d.bulk_group = op.req.bulk_group;
  d.completions = std::move(op.req.completions);
  op.req.completions.clear();
  std::copy(op.req.dst, op.req.dst + op.req.ndst, d.dst);
  done_.push_back(d);
  if (op.bulk) bulk_in_flight_--;
  op.used = false;
  free_ops_.push_back(id);
  in_flight_--;
}

void Lsu::handleResponse(const MemRequest& r, std::uint64_t cycle) {
  if (r.op == MemOp::Read) {
    auto it = line_requests_.find(r.addr);
    if (l1_ && !no_fill_lines_.count(r.addr)) l1_->fill(r.addr, r.sector_mask, false, cycle);
    if (it == line_requests_.end())
      throw std::logic_error(fmt::format("SM {}: read response for line 0x{:x} that has no outstanding request",
                                         sm_index_, r.addr));
    if (--it->second) return;
    line_requests_.erase(it);
    no_fill_lines_.erase(r.addr);
    for (std::uint64_t w : mshr_.complete(r.addr)) {
      Op& op = ops_[std::size_t(w)];
      op.outstanding--;
      // The fill passes through the L1 data stage to the register file.
      op.ready = std::max(op.ready, cycle + p_.l1.hit_latency_cycles);
      if (op.processed && op.outstanding == 0) finish(std::uint32_t(w));
    }
    return;
  }
  if (r.tag >= ops_.size() || !ops_[r.tag].used || ops_[r.tag].outstanding == 0)
    throw std::logic_error(fmt::format("SM {}: response (tag {}) matches no memory instruction", sm_index_, r.tag));
  Op& op = ops_[r.tag];
  op.outstanding--;
  op.ready = std::max(op.ready, cycle + (r.op == MemOp::Atomic ? p_.l1.hit_latency_cycles : 0));
  if (op.processed && op.outstanding == 0) finish(r.tag);
}

bool Lsu::stepLine(Op& op, Step& s, std::uint64_t now) {
  if (out_.size() + translating_.size() >= out_capacity_) return false;
  const std::uint32_t id = std::uint32_t(&op - ops_.data());
  auto send = [&](MemOp kind, std::uint32_t mask) {
    MemRequest r;
    r.id = (std::uint64_t(sm_index_) << 40) | next_request_id_++;
    r.op = kind;
    r.addr = s.addr;
    r.sector_mask = mask;
    r.bytes = memsys::sectorCount(mask) * sector_bytes_;
    r.sm = std::uint16_t(sm_index_);
    r.warp = std::uint16_t(op.req.warp_slot);
    r.tag = id;
    r.issue_cycle = now;
    r.atomic_ops = s.atomic_ops;
    r.atomic_integer = s.atomic_integer;
    if (kind == MemOp::Write) r.word_mask = s.words;
    dispatch(r, now);
  };
  if (s.mem == MemOp::Read) {
    const bool bypass = op.req.bypass_l1;
    const memsys::SectorCache::Result probe = l1_ && !bypass ? l1_->probe(s.addr, s.mask)
                                                              : memsys::SectorCache::Result{false, 0, s.mask};
    if (probe.miss_mask) {
      const std::uint32_t pending = mshr_.pendingSectors(s.addr);
      const auto outcome = mshr_.add(s.addr, probe.miss_mask, id);
      if (outcome == memsys::MshrTable::Outcome::Full) {
        ++*mshr_full_stalls_;
        return false;
      }
      if (outcome == memsys::MshrTable::Outcome::Merged) ++*mshr_merges_;
      const std::uint32_t fresh = probe.miss_mask & ~pending;
      if (fresh) {
        if (outcome == memsys::MshrTable::Outcome::Merged) mshr_.addSectors(s.addr, fresh);
        send(MemOp::Read, fresh);
        line_requests_[s.addr]++;
      }
      // The line's fill goes into the L1 unless every load waiting for it bypasses the L1.
      if (bypass && outcome != memsys::MshrTable::Outcome::Merged) no_fill_lines_.insert(s.addr);
      if (!bypass) no_fill_lines_.erase(s.addr);
      op.outstanding++;
    }
    if (l1_ && !bypass) l1_->access(s.addr, s.mask, false, now);
    *l1_hits_ += memsys::sectorCount(probe.hit_mask);
    *l1_misses_ += memsys::sectorCount(probe.miss_mask);
    if (probe.hit_mask) op.ready = std::max(op.ready, now + p_.l1.hit_latency_cycles);
    return true;
  }
  // Stores write through; atomics execute at L2. Both wait for an acknowledgement.
  send(s.mem, s.mask);
  op.outstanding++;
  if (l1_) {
    if (s.mem == MemOp::Write && p_.l1.allocate_on_write) l1_->fill(s.addr, s.mask, false, now);
    else l1_->invalidate(s.addr, s.mask);
  }
  return true;
}

void Lsu::stepConst(Op& op, const Step& s, std::uint64_t now) {
  const std::uint32_t line_bytes = p_.constant_cache.line_bytes ? p_.constant_cache.line_bytes : 64;
  const std::uint64_t line = s.addr & ~std::uint64_t(line_bytes - 1);
  const_fills_.erase(std::remove_if(const_fills_.begin(), const_fills_.end(),
                                    [&](const auto& f) { return f.second <= now; }),
                     const_fills_.end());
  std::uint64_t ready = 0;
  for (const auto& f : const_fills_)
    if (f.first == line) ready = f.second;
  if (ready) {
    ++*const_misses_;  // a miss to a line already being filled waits for that fill
  } else {
    const std::uint32_t mask = const_cache_ ? const_cache_->sectorMask(s.addr, std::max<std::uint32_t>(s.bytes, 1)) : 1;
    const bool hit = const_cache_ && const_cache_->access(s.addr, mask, false, now).miss_mask == 0;
    if (hit) {
      ++*const_hits_;
      ready = now + p_.constant_cache.hit_latency_cycles;
    } else {
      ++*const_misses_;
      ready = now + p_.constant_miss_latency_cycles;
      if (const_cache_) const_cache_->fill(s.addr, mask, false, now);
      const_fills_.emplace_back(line, ready);
    }
  }
  op.ready = std::max(op.ready, ready);
}

std::uint64_t Lsu::earliestRoom(std::uint64_t now) const {
  if (!full()) return now;
  if (room_at_ == now) return room_value_;
  room_at_ = now;
  if (blockedOnCrossbar()) return room_value_ = ~std::uint64_t{0};  // not before popRequest(): SmCore looks again then
  const Op& op = ops_[queue_.front()];
  std::uint64_t steps = 0;
  for (std::size_t i = op.next; i < op.steps.size(); ++i)
    steps += op.steps[i].kind == Step::Kind::Shared ? op.steps[i].mask
                                                     : 1 + op.steps[i].hold - (op.steps[i].accessed ? 1 : 0);
  // step() pops it in the cycle of its last step at the earliest; an issue sees that a cycle later.
  return room_value_ = std::max(now, op.req.ready_at) + std::max<std::uint64_t>(steps, 1);
}

bool Lsu::blockedOnCrossbar() const {
  if (queue_.empty() || out_.size() + translating_.size() < out_capacity_) return false;
  const Op& op = ops_[queue_.front()];
  return op.next < op.steps.size() && op.steps[op.next].kind == Step::Kind::Line && !op.steps[op.next].accessed;
}

std::uint64_t Lsu::nextEvent(std::uint64_t now) const {
  std::uint64_t next = ~std::uint64_t{0};
  auto at = [&](std::uint64_t c) { next = std::min(next, std::max(c, now + 1)); };
  if (!queue_.empty() && !blockedOnCrossbar()) at(ops_[queue_.front()].req.ready_at);  // in progress: every cycle
  for (const auto& t : translating_) at(t.first);
  if (!responses_.empty()) at(responses_.front().second);  // handled in order, from the front
  if (!l2_tlb_pending_.empty()) at(now + 1);
  return next;
}

void Lsu::handleResponses(std::uint64_t now) {
  room_at_ = kNoRoomMemo;
  while (!responses_.empty() && responses_.front().second <= now) {
    handleResponse(responses_.front().first, responses_.front().second);
    responses_.pop_front();
  }
}

void Lsu::step(std::uint64_t now) {
  room_at_ = kNoRoomMemo;
  if (!translating_.empty()) releaseTranslated(now);
  if (queue_.empty()) return;
  const std::uint32_t id = queue_.front();
  Op& op = ops_[id];
  if (op.req.ready_at > now) return;
  Step& s = op.steps[op.next];
  switch (s.kind) {
    case Step::Kind::Shared:
      if (--s.mask == 0) {
        op.ready = std::max(op.ready, now + p_.shared_memory_latency_cycles + s.extra_latency);
        op.next++;
      }
      break;
    case Step::Kind::Const:
      stepConst(op, s, now);
      op.next++;
      break;
    case Step::Kind::Line:
      if (s.accessed) {  // holding the pipeline after a store's access
        if (--s.hold == 0) op.next++;
      } else if (stepLine(op, s, now)) {
        if (s.hold) s.accessed = true;
        else op.next++;
      }
      break;
  }
  if (op.next < op.steps.size()) return;
  queue_.pop_front();
  queue_freed_ = true;
  op.processed = true;
  op.ready = std::max(op.ready, now);
  if (op.outstanding == 0) finish(id);
}

std::string Lsu::dump() const {
  std::string s;
  if (!queue_.empty()) {
    s += fmt::format("  lsu queue ({} of {}):", queue_.size(), queue_capacity_);
    for (std::uint32_t id : queue_) {
      const Op& op = ops_[id];
      s += fmt::format(" [warp slot {} step {}/{} from cycle {}]", op.req.warp_slot, op.next, op.steps.size(),
                       op.req.ready_at);
    }
    s += "\n";
  }
  std::uint32_t waiting = 0;
  for (const Op& op : ops_)
    if (op.used && op.processed) {
      if (!waiting++) s += "  lsu waiting for memory:";
      s += fmt::format(" [warp slot {}: {} responses]", op.req.warp_slot, op.outstanding);
    }
  if (waiting) s += "\n";
  if (mshr_.used()) {
    s += fmt::format("  l1 mshrs: {} used, lines:", mshr_.used());
    std::vector<std::pair<std::uint64_t, std::uint32_t>> lines(line_requests_.begin(), line_requests_.end());
    std::sort(lines.begin(), lines.end());
    for (const auto& [line, n] : lines) s += fmt::format(" 0x{:x}({} reads)", line, n);
    s += "\n";
  }
  if (!out_.empty()) s += fmt::format("  requests to the crossbar: {} queued\n", out_.size());
  if (!translating_.empty()) s += fmt::format("  requests waiting for their translation: {}\n", translating_.size());
  if (!responses_.empty()) s += fmt::format("  responses received, not yet handled: {}\n", responses_.size());
  return s;
}

}  // namespace scgpu::sm::timing
