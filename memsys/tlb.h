// Address translation's timing half: translation lookaside buffers (tags only, as SectorCache holds
// tags only: the translation itself comes from memsys/page_table.h's walker), and the path one SM's
// accesses take through them: its own L1 TLB, then the L2 TLB that every SM shares, then a page
// walk. A lookup says how many extra core cycles the access pays (0 on an L1 TLB hit,
// mmu.l2_tlb_hit_latency_cycles, or mmu.walk_latency_cycles) and fills the TLBs it missed.
//
// Entries are tagged with an address-space id (the channel whose page table translates the access)
// and the virtual page number, page = mmu.page_bytes. The set of a page is its number modulo the
// sets, so pages a multiple of the sets apart compete for one set's ways (the H100 shows this with
// 32 MiB strides: docs/validation.md "TLB"). LRU within a set, by a use counter of the TLB's own, so
// the behaviour depends on the order of lookups only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memsys/memsys_params.h"

namespace scgpu {
class StatsRegistry;
struct Counter;
}  // namespace scgpu

namespace scgpu::memsys {

class Tlb {
 public:
  // Throws std::invalid_argument unless entries > 0, associativity divides entries and page_bytes
  // is a power of two. Statistics (when `stats` is given) under `name`: hits, misses.
  Tlb(std::uint32_t entries, std::uint32_t associativity, std::uint64_t page_bytes, StatsRegistry* stats = nullptr,
      const std::string& name = "");

  // True when the page of `va` in address space `asid` is present; a hit becomes the most recent.
  bool lookup(std::uint32_t asid, std::uint64_t va);
  // Installs the page (after a miss), evicting the least recently used way of its set if full.
  // Installing a present page only refreshes it.
  void fill(std::uint32_t asid, std::uint64_t va);
  // Present, without touching recency or statistics.
  bool contains(std::uint32_t asid, std::uint64_t va) const;
  // Drops every entry (a page-table change the TLB cannot see), or those of one address space.
  void invalidateAll();
  void invalidate(std::uint32_t asid);

  std::uint32_t sets() const { return sets_; }
  std::uint32_t ways() const { return ways_; }
  std::uint64_t pageBytes() const { return page_bytes_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  struct Way {
    bool valid = false;
    std::uint32_t asid = 0;
    std::uint64_t vpn = 0;
    std::uint64_t last_use = 0;
  };
  std::uint64_t vpn(std::uint64_t va) const { return va >> page_shift_; }
  Way* set(std::uint64_t vpn) { return &ways_v_[std::size_t(vpn % sets_) * ways_]; }
  const Way* set(std::uint64_t vpn) const { return &ways_v_[std::size_t(vpn % sets_) * ways_]; }

  std::uint32_t sets_, ways_;
  std::uint64_t page_bytes_;
  unsigned page_shift_;
  std::vector<Way> ways_v_;  // sets_ x ways_
  std::uint64_t use_clock_ = 0;
  std::uint64_t hits_ = 0, misses_ = 0;
  Counter* c_hits_ = nullptr;
  Counter* c_misses_ = nullptr;
};

// One SM's way through the TLBs. The shared L2 TLB belongs to the chip and outlives this object.
class TranslationPath {
 public:
  // `shared_l2` must have the same page size as params.page_bytes (std::invalid_argument if not).
  // The L1 TLB's statistics go under `name` + ".l1_tlb"; the shared one registers its own.
  TranslationPath(const MmuParams& params, Tlb* shared_l2, StatsRegistry* stats = nullptr,
                  const std::string& name = "");

  enum class Where { L1Hit, L2Hit, Walk };
  struct Result {
    Where where = Where::L1Hit;
    std::uint32_t extra_cycles = 0;  // core cycles the access waits for its translation
  };
  // Looks the page of `va` up; on a miss fills the L1 TLB (and the L2 TLB after a walk).
  Result translate(std::uint32_t asid, std::uint64_t va);
  // The same in two steps, for a caller that looks the shared L2 TLB up later than its own L1 TLB
  // (the SMs of a parallel tick, in index order after it): the L1 TLB (true: a hit; a miss
  // fills it), then for a miss the L2 TLB or the walk.
  bool translateL1(std::uint32_t asid, std::uint64_t va);
  Result translateL2(std::uint32_t asid, std::uint64_t va);

  Tlb& l1() { return l1_; }

 private:
  MmuParams params_;
  Tlb l1_;
  Tlb* l2_;
  Counter* c_walks_ = nullptr;
};

}  // namespace scgpu::memsys
