// A sectored, set-associative cache tag array: lines of `line_bytes` split into `sector_bytes`
// sectors, each with its own valid and dirty bit, as in NVIDIA's L1 and L2. It holds tags only
// (values live in the backing store). Used by the SM's L1 and instruction/constant caches and by
// the L2 slices; MSHRs are separate (memsys/mshr.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "memsys/memsys_params.h"

namespace scgpu::memsys {

class SectorCache {
 public:
  explicit SectorCache(const CacheParams& params);

  struct Result {
    bool line_present = false;   // the line's tag is in the cache
    std::uint32_t hit_mask = 0;  // requested sectors that are valid
    std::uint32_t miss_mask = 0; // requested sectors that are not
  };
  struct Victim {
    bool valid = false;          // a line was evicted
    std::uint64_t line_addr = 0;
    std::uint32_t dirty_mask = 0;  // sectors to write back
  };

  // Looks up the sectors of `addr`'s line in `sector_mask`; on a hit updates recency. A write
  // under write_back marks hit sectors dirty; under write_through it only updates recency.
  Result access(std::uint64_t addr, std::uint32_t sector_mask, bool write, std::uint64_t now);
  // Looks up without changing any state.
  Result probe(std::uint64_t addr, std::uint32_t sector_mask) const;
  // Installs sectors after a miss (allocating the line, evicting a victim if the set is full);
  // `dirty` marks them dirty (write-allocate under write_back). Returns the victim, if any.
  Victim fill(std::uint64_t addr, std::uint32_t sector_mask, bool dirty, std::uint64_t now);
  // Drops a line (e.g. a write-through, no-allocate store that hit: the L1 invalidates).
  void invalidate(std::uint64_t addr, std::uint32_t sector_mask);
  // Every line invalid (dirty sectors dropped, not reported): a flush whose write-backs are not timed.
  void invalidateAll() {
    tags_.assign(tags_.size(), kInvalidTag);
    lines_.assign(lines_.size(), Line{});
    newest_use_.assign(newest_use_.size(), 0);
    newest_insert_.assign(newest_insert_.size(), 0);
  }

  std::uint64_t lineAddr(std::uint64_t addr) const { return addr & ~std::uint64_t(line_bytes_ - 1); }
  // Sectors of [addr, addr+bytes) within its line.
  std::uint32_t sectorMask(std::uint64_t addr, std::uint32_t bytes) const;
  std::uint32_t lineBytes() const { return line_bytes_; }
  std::uint32_t sectorBytes() const { return sector_bytes_; }
  std::uint32_t sets() const { return sets_; }

 private:
  // A way's state apart from its tag. The tags live in an array of their own (tags_) so that a
  // lookup scans one contiguous run of 8-byte tags: the lookup is the hottest loop of the
  // memory-bound simulations, and the 20-way sets of a 40-byte line struct spanned 13 host cache
  // lines.
  struct Line {
    std::uint32_t valid_mask = 0, dirty_mask = 0;
    std::uint64_t last_use = 0, inserted = 0;
  };
  static constexpr std::uint64_t kInvalidTag = ~std::uint64_t{0};  // no line number reaches it
  // The way of `addr`'s line in the cache, or -1.
  std::int64_t findWay(std::uint64_t addr) const;
  std::uint32_t setIndex(std::uint64_t line_addr) const;
  // The next recency (or insertion) stamp of a set: at least `now` and above every stamp the set
  // has given, so the valid lines of a set are ordered by when they were last stamped.
  std::uint64_t nextStamp(std::vector<std::uint64_t>& newest, std::uint32_t set, std::uint64_t now) {
    const std::uint64_t s = std::max(now, newest[set] + 1);
    newest[set] = s;
    return s;
  }
  void dropWay(std::size_t way) {
    tags_[way] = kInvalidTag;
    lines_[way] = Line{};
  }

  CacheParams params_;
  std::uint32_t line_bytes_, sector_bytes_, sets_, ways_;
  std::uint32_t line_shift_ = 0;  // log2(line_bytes_)
  bool write_back_, lru_;
  std::vector<std::uint64_t> tags_;  // sets_ x ways_: the line number, or kInvalidTag
  std::vector<Line> lines_;          // sets_ x ways_
  // Per set, the newest recency and insertion stamps given (nextStamp).
  std::vector<std::uint64_t> newest_use_, newest_insert_;
};

// Miss status holding registers: one entry per outstanding line, merging later requests to the
// same line until the fill returns.
class MshrTable {
 public:
  MshrTable(std::uint32_t entries, std::uint32_t max_merge) : entries_(entries), max_merge_(max_merge) {}

  enum class Outcome { NewEntry, Merged, Full };
  // Records a waiter (its opaque tag) for a line. NewEntry: the caller must send the miss.
  Outcome add(std::uint64_t line_addr, std::uint32_t sector_mask, std::uint64_t waiter);
  // Sectors already requested for a pending line (0 if none): a merge needs only the others.
  std::uint32_t pendingSectors(std::uint64_t line_addr) const;
  void addSectors(std::uint64_t line_addr, std::uint32_t sector_mask);
  // The fill for a line returned: its waiters, in arrival order; the entry is freed.
  std::vector<std::uint64_t> complete(std::uint64_t line_addr);
  bool full() const { return used_ >= entries_; }
  std::uint32_t used() const { return used_; }

 private:
  struct Entry {
    std::uint32_t sectors = 0;
    std::vector<std::uint64_t> waiters;
  };
  std::uint32_t entries_, max_merge_, used_ = 0;
  // By line; only looked up, never walked, so the hash order cannot show in results. (A sorted
  // vector cost a shift of the entries behind each insert and erase: hundreds under TMA copies.)
  std::unordered_map<std::uint64_t, Entry> table_;
};

}  // namespace scgpu::memsys
