// SectorCache and MshrTable (see sector_cache.h).
//
// Choices made here:
// - Set index = (line address / line_bytes) mod sets; sets must be a power of two. The stored tag is
//   the full line number, so a line's address is tag * line_bytes.
// - Replacement: an invalid way first (lowest index), otherwise the least recently used ("lru") or
//   the oldest inserted ("fifo") line; ties go to the lowest way. Recency stamps are kept strictly
//   increasing within a set (max(now, newest stamp the set gave + 1)), so several accesses in one
//   cycle still have a true order.
// - access() updates recency whenever the line's tag is present, also on a sector miss (the fill
//   that follows touches the line anyway).
// - A victim is reported for every valid line evicted, clean or dirty; dirty_mask says what to
//   write back. invalidate() drops sectors, including dirty ones, without reporting them.
// - MshrTable: add() of a NewEntry records its sectors; add() of a Merged request does NOT change
//   the entry's sectors: the caller asks pendingSectors() first, sends a miss for the sectors not
//   yet requested, and records them with addSectors(). max_merge bounds the waiters of an entry,
//   the first one included (max_merge = 1 disables merging). Entries are kept sorted by line
//   address (binary search: L2 slices have hundreds of MSHRs); waiters stay in arrival order.
#include "memsys/sector_cache.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace scgpu::memsys {
namespace {

bool isPow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("cache parameters: " + what); }

}  // namespace

SectorCache::SectorCache(const CacheParams& params) : params_(params) {
  line_bytes_ = params.line_bytes;
  sector_bytes_ = params.sector_bytes;
  ways_ = params.associativity;
  if (!isPow2(line_bytes_)) bad("line_bytes must be a power of two, got " + std::to_string(line_bytes_));
  if (!isPow2(sector_bytes_) || sector_bytes_ > line_bytes_)
    bad("sector_bytes must be a power of two no larger than line_bytes (" + std::to_string(line_bytes_) + "), got " +
        std::to_string(sector_bytes_));
  if (line_bytes_ / sector_bytes_ > 32)
    bad("at most 32 sectors per line (line_bytes / sector_bytes), got " + std::to_string(line_bytes_ / sector_bytes_));
  if (ways_ == 0) bad("associativity must be at least 1");
  line_shift_ = std::uint32_t(__builtin_ctz(line_bytes_));  // (a power of two: shifts, not divisions, per access)
  const std::uint64_t set_bytes = std::uint64_t(line_bytes_) * ways_;
  if (params.size_bytes == 0 || params.size_bytes % set_bytes != 0)
    bad("size_bytes (" + std::to_string(params.size_bytes) + ") must be a non-zero multiple of line_bytes x associativity (" +
        std::to_string(set_bytes) + ")");
  const std::uint64_t sets = params.size_bytes / set_bytes;
  if (!isPow2(sets) || sets > (1ull << 31))
    bad("the number of sets, size_bytes / (line_bytes x associativity) = " + std::to_string(sets) +
        ", must be a power of two");
  sets_ = std::uint32_t(sets);
  if (params.replacement == "lru")
    lru_ = true;
  else if (params.replacement == "fifo")
    lru_ = false;
  else
    bad("replacement must be lru or fifo, got '" + params.replacement + "'");
  if (params.write_policy == "write_back")
    write_back_ = true;
  else if (params.write_policy == "write_through")
    write_back_ = false;
  else
    bad("write_policy must be write_through or write_back, got '" + params.write_policy + "'");
  tags_.assign(std::size_t(sets_) * ways_, kInvalidTag);
  lines_.assign(std::size_t(sets_) * ways_, Line{});
  newest_use_.assign(sets_, 0);
  newest_insert_.assign(sets_, 0);
}

std::uint32_t SectorCache::setIndex(std::uint64_t line_addr) const {
  return std::uint32_t((line_addr >> line_shift_) & (sets_ - 1));
}

std::int64_t SectorCache::findWay(std::uint64_t addr) const {
  const std::uint64_t tag = lineAddr(addr) >> line_shift_;
  const std::size_t base = std::size_t(std::uint32_t(tag & (sets_ - 1))) * ways_;
  const std::uint64_t* set = tags_.data() + base;
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (set[w] == tag) return std::int64_t(base + w);
  return -1;
}

std::uint32_t SectorCache::sectorMask(std::uint64_t addr, std::uint32_t bytes) const {
  if (bytes == 0) return 0;
  const std::uint64_t off = addr - lineAddr(addr);
  std::uint64_t end = off + bytes;  // exclusive, clamped to the line
  if (end > line_bytes_) end = line_bytes_;
  const std::uint32_t first = std::uint32_t(off / sector_bytes_);
  const std::uint32_t last = std::uint32_t((end - 1) / sector_bytes_);
  std::uint32_t mask = 0;
  for (std::uint32_t s = first; s <= last; ++s) mask |= 1u << s;
  return mask;
}

SectorCache::Result SectorCache::probe(std::uint64_t addr, std::uint32_t sector_mask) const {
  Result r;
  if (const std::int64_t way = findWay(addr); way >= 0) {
    r.line_present = true;
    r.hit_mask = sector_mask & lines_[std::size_t(way)].valid_mask;
  }
  r.miss_mask = sector_mask & ~r.hit_mask;
  return r;
}

SectorCache::Result SectorCache::access(std::uint64_t addr, std::uint32_t sector_mask, bool write, std::uint64_t now) {
  Result r;
  if (const std::int64_t way = findWay(addr); way >= 0) {
    Line& l = lines_[std::size_t(way)];
    r.line_present = true;
    r.hit_mask = sector_mask & l.valid_mask;
    l.last_use = nextStamp(newest_use_, setIndex(lineAddr(addr)), now);
    if (write && write_back_) l.dirty_mask |= r.hit_mask;
  }
  r.miss_mask = sector_mask & ~r.hit_mask;
  return r;
}

SectorCache::Victim SectorCache::fill(std::uint64_t addr, std::uint32_t sector_mask, bool dirty, std::uint64_t now) {
  Victim v;
  const std::uint64_t line = lineAddr(addr);
  const std::uint32_t set = setIndex(line);
  const std::size_t base = std::size_t(set) * ways_;
  std::int64_t way = findWay(addr);
  if (way < 0) {
    // Choose a way: the first invalid one, else by policy (oldest stamp; ties to the lowest way).
    std::uint32_t pick = ways_;
    for (std::uint32_t w = 0; w < ways_ && pick == ways_; ++w)
      if (tags_[base + w] == kInvalidTag) pick = w;
    if (pick == ways_) {
      pick = 0;
      for (std::uint32_t w = 1; w < ways_; ++w) {
        const Line& a = lines_[base + w];
        const Line& b = lines_[base + pick];
        if ((lru_ ? a.last_use : a.inserted) < (lru_ ? b.last_use : b.inserted)) pick = w;
      }
      v.valid = true;
      v.line_addr = tags_[base + pick] * line_bytes_;
      v.dirty_mask = lines_[base + pick].dirty_mask;
    }
    way = std::int64_t(base + pick);
    Line& l = lines_[std::size_t(way)];
    l = Line{};
    tags_[std::size_t(way)] = line >> line_shift_;
    l.inserted = nextStamp(newest_insert_, set, now);
    l.last_use = nextStamp(newest_use_, set, now);
  } else {
    lines_[std::size_t(way)].last_use = nextStamp(newest_use_, set, now);
  }
  Line& l = lines_[std::size_t(way)];
  l.valid_mask |= sector_mask;
  if (dirty && write_back_) l.dirty_mask |= sector_mask;
  return v;
}

void SectorCache::invalidate(std::uint64_t addr, std::uint32_t sector_mask) {
  const std::int64_t way = findWay(addr);
  if (way < 0) return;
  Line& l = lines_[std::size_t(way)];
  l.valid_mask &= ~sector_mask;
  l.dirty_mask &= ~sector_mask;
  if (l.valid_mask == 0) dropWay(std::size_t(way));
}

// ---- MshrTable ----

MshrTable::Outcome MshrTable::add(std::uint64_t line_addr, std::uint32_t sector_mask, std::uint64_t waiter) {
  auto it = table_.find(line_addr);
  if (it != table_.end()) {
    if (it->second.waiters.size() >= std::max<std::uint32_t>(max_merge_, 1)) return Outcome::Full;
    it->second.waiters.push_back(waiter);
    return Outcome::Merged;
  }
  if (used_ >= entries_) return Outcome::Full;
  Entry& e = table_[line_addr];
  e.sectors = sector_mask;
  e.waiters.push_back(waiter);
  ++used_;
  return Outcome::NewEntry;
}

std::uint32_t MshrTable::pendingSectors(std::uint64_t line_addr) const {
  auto it = table_.find(line_addr);
  return it != table_.end() ? it->second.sectors : 0;
}

void MshrTable::addSectors(std::uint64_t line_addr, std::uint32_t sector_mask) {
  auto it = table_.find(line_addr);
  if (it != table_.end()) it->second.sectors |= sector_mask;
}

std::vector<std::uint64_t> MshrTable::complete(std::uint64_t line_addr) {
  auto it = table_.find(line_addr);
  if (it == table_.end()) return {};
  std::vector<std::uint64_t> waiters = std::move(it->second.waiters);
  table_.erase(it);
  --used_;
  return waiters;
}

}  // namespace scgpu::memsys
