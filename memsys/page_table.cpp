#include "memsys/page_table.h"

#include <iterator>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "base/stats.h"

namespace scgpu::memsys {

int PageTableFormat::levelOfPage(std::uint64_t page_bytes) {
  for (unsigned l = 0; l < kLevels; ++l)
    if (leafAllowed(l) && coverage(l) == page_bytes) return int(l);
  return -1;
}

const char* faultReasonName(FaultReason r) {
  switch (r) {
    case FaultReason::None: return "none";
    case FaultReason::NotPresent: return "not present";
    case FaultReason::NotWritable: return "not writable";
    case FaultReason::BadEntry: return "bad entry";
    case FaultReason::VaOutOfRange: return "virtual address out of range";
    case FaultReason::TableUnreadable: return "page table unreadable";
  }
  return "?";
}

PageTableWalker::PageTableWalker(ReadEntry read, StatsRegistry* stats, const std::string& name)
    : read_(std::move(read)) {
  if (stats) {
    c_walks_ = stats->counter(name + ".walks", "page-table walks");
    c_faults_ = stats->counter(name + ".faults", "walks that ended in a fault");
    c_entry_reads_ = stats->counter(name + ".entry_reads", "8-byte page-table entries read from memory");
  }
}

Translation PageTableWalker::fault(Translation t, FaultReason reason, unsigned level, std::uint64_t entry_pa,
                                   std::uint64_t entry) {
  t.ok = false;
  t.reason = reason;
  t.level = level;
  t.entry_pa = entry_pa;
  t.entry = entry;
  ++faults_;
  if (c_faults_) ++*c_faults_;
  return t;
}

Translation PageTableWalker::walk(std::uint64_t root_pa, std::uint64_t va, bool write) {
  ++walks_;
  if (c_walks_) ++*c_walks_;
  Translation t;
  if (va >> PageTableFormat::kVaBits) return fault(t, FaultReason::VaOutOfRange, 0, 0, 0);
  if (root_pa == 0 || root_pa % PageTableFormat::kTableAlignBytes || (root_pa & ~pte::kAddressMask))
    return fault(t, FaultReason::BadEntry, 0, root_pa, 0);
  std::uint64_t table = root_pa;
  bool writable = true;
  for (unsigned level = 0; level < PageTableFormat::kLevels; ++level) {
    const std::uint64_t index = (va >> PageTableFormat::shift(level)) & (PageTableFormat::entries(level) - 1);
    const std::uint64_t entry_pa = table + index * pte::kEntryBytes;
    std::uint64_t e = 0;
    if (!read_(entry_pa, &e)) return fault(t, FaultReason::TableUnreadable, level, entry_pa, 0);
    ++t.reads;
    ++entry_reads_;
    if (c_entry_reads_) ++*c_entry_reads_;
    if (!(e & pte::kValid)) return fault(t, FaultReason::NotPresent, level, entry_pa, e);
    if (e & pte::kReservedMask) return fault(t, FaultReason::BadEntry, level, entry_pa, e);
    const std::uint64_t addr = e & pte::kAddressMask;
    writable = writable && (e & pte::kWritable);
    const bool leaf = e & pte::kLeaf;
    const bool last = level + 1 == PageTableFormat::kLevels;
    if (leaf && !PageTableFormat::leafAllowed(level))
      return fault(t, FaultReason::BadEntry, level, entry_pa, e);  // no page at level 0
    if (!leaf && last) return fault(t, FaultReason::BadEntry, level, entry_pa, e);  // level-3 entries are pages
    if (!leaf) {
      table = addr;
      continue;
    }
    const std::uint64_t size = PageTableFormat::coverage(level);
    if (addr % size) return fault(t, FaultReason::BadEntry, level, entry_pa, e);
    if (write && !writable) return fault(t, FaultReason::NotWritable, level, entry_pa, e);
    t.ok = true;
    t.page_pa = addr;
    t.page_bytes = size;
    t.pa = addr + (va & (size - 1));
    t.writable = writable;
    return t;
  }
  throw std::logic_error("page-table walk ran past the last level");  // the loop returns at level 3
}

TranslationCache::TranslationCache(ReadEntry read, StatsRegistry* stats, const std::string& name)
    : walker_(std::move(read), stats, name + ".walker") {
  if (stats) {
    c_hits_ = stats->counter(name + ".translation_cache.hits", "translations found without a walk");
    c_misses_ = stats->counter(name + ".translation_cache.misses", "translations that walked");
  }
}

Translation TranslationCache::translate(std::uint64_t root_pa, std::uint64_t va, bool write) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (unsigned level = 1; level < PageTableFormat::kLevels; ++level) {
    const std::uint64_t size = PageTableFormat::coverage(level);
    auto it = pages_[level].find(Key{root_pa, va & ~(size - 1)});
    if (it == pages_[level].end()) continue;
    const Page& p = it->second;
    if (write && !p.writable) break;  // walk again for the fault's level and entry
    ++hits_;
    if (c_hits_) ++*c_hits_;
    Translation t;
    t.ok = true;
    t.page_pa = p.page_pa;
    t.page_bytes = p.page_bytes;
    t.pa = p.page_pa + (va & (size - 1));
    t.writable = p.writable;
    return t;
  }
  ++misses_;
  if (c_misses_) ++*c_misses_;
  const Translation t = walker_.walk(root_pa, va, write);
  if (t.ok) {
    const int level = PageTableFormat::levelOfPage(t.page_bytes);
    pages_[level][Key{root_pa, va & ~(t.page_bytes - 1)}] = Page{t.page_pa, t.page_bytes, t.writable};
  }
  return t;
}

void TranslationCache::invalidate() {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto& m : pages_) m.clear();
}

void TranslationCache::invalidate(std::uint64_t root_pa) {
  for (auto& m : pages_)
    for (auto it = m.begin(); it != m.end();) it = it->first.root == root_pa ? m.erase(it) : std::next(it);
}

PageTableBuilder::PageTableBuilder(AllocTable alloc_table, ReadEntry read_entry, WriteEntry write_entry)
    : alloc_(std::move(alloc_table)), read_(std::move(read_entry)), write_(std::move(write_entry)) {
  root_ = alloc_(PageTableFormat::entries(0) * pte::kEntryBytes);
  if (root_ == 0 || root_ % PageTableFormat::kTableAlignBytes)
    throw std::invalid_argument(fmt::format("page-table root 0x{:x} is 0 or not 4 KiB-aligned", root_));
}

std::uint64_t PageTableBuilder::entryAddress(std::uint64_t va, unsigned level, bool create) {
  std::uint64_t table = root_;
  for (unsigned l = 0;; ++l) {
    const std::uint64_t index = (va >> PageTableFormat::shift(l)) & (PageTableFormat::entries(l) - 1);
    const std::uint64_t entry_pa = table + index * pte::kEntryBytes;
    if (l == level) return entry_pa;
    std::uint64_t e = 0;
    if (!read_(entry_pa, &e)) throw std::invalid_argument(fmt::format("page table at 0x{:x} unreadable", entry_pa));
    if (e & pte::kValid) {
      if (e & pte::kLeaf)
        throw std::invalid_argument(fmt::format("0x{:x} lies in a page mapped at level {}", va, l));
      table = e & pte::kAddressMask;
      continue;
    }
    if (!create) throw std::invalid_argument(fmt::format("0x{:x} is not mapped", va));
    const std::uint64_t next = alloc_(PageTableFormat::entries(l + 1) * pte::kEntryBytes);
    if (next == 0 || next % PageTableFormat::kTableAlignBytes || (next & ~pte::kAddressMask))
      throw std::invalid_argument(fmt::format("page table 0x{:x} is 0, misaligned or beyond 52 bits", next));
    // Tables are writable at every level; pages decide (a write needs WRITABLE all the way down).
    write_(entry_pa, next | pte::kValid | pte::kWritable);
    table = next;
  }
}

void PageTableBuilder::map(std::uint64_t va, std::uint64_t pa, std::uint64_t bytes, std::uint64_t page_bytes,
                           bool writable) {
  const int level = PageTableFormat::levelOfPage(page_bytes);
  if (level < 0) throw std::invalid_argument(fmt::format("no page size {} in the format", page_bytes));
  if (va % page_bytes || pa % page_bytes || bytes % page_bytes || bytes == 0)
    throw std::invalid_argument(fmt::format("map 0x{:x} -> 0x{:x}, {} bytes: not multiples of the page ({})", va,
                                            pa, bytes, page_bytes));
  constexpr unsigned kPaBits = pte::kAddressShift + pte::kAddressBits;
  if ((va + bytes - 1) >> PageTableFormat::kVaBits || (pa + bytes - 1) >> kPaBits)
    throw std::invalid_argument(fmt::format("map 0x{:x} -> 0x{:x}, {} bytes: beyond the address space", va, pa, bytes));
  for (std::uint64_t off = 0; off < bytes; off += page_bytes) {
    const std::uint64_t entry_pa = entryAddress(va + off, unsigned(level), true);
    std::uint64_t old = 0;
    read_(entry_pa, &old);
    if (old & pte::kValid)
      throw std::invalid_argument(fmt::format("0x{:x} is already mapped", va + off));
    write_(entry_pa, (pa + off) | pte::kValid | pte::kLeaf | (writable ? pte::kWritable : 0));
  }
}

void PageTableBuilder::unmap(std::uint64_t va, std::uint64_t bytes, std::uint64_t page_bytes) {
  const int level = PageTableFormat::levelOfPage(page_bytes);
  if (level < 0 || va % page_bytes || bytes % page_bytes)
    throw std::invalid_argument(fmt::format("unmap 0x{:x}, {} bytes: bad page size or alignment", va, bytes));
  for (std::uint64_t off = 0; off < bytes; off += page_bytes) {
    const std::uint64_t entry_pa = entryAddress(va + off, unsigned(level), false);
    std::uint64_t old = 0;
    if (!read_(entry_pa, &old) || !(old & pte::kValid) || !(old & pte::kLeaf))
      throw std::invalid_argument(fmt::format("0x{:x} is not mapped with {}-byte pages", va + off, page_bytes));
    write_(entry_pa, 0);
  }
}

}  // namespace scgpu::memsys
