// Address translation's functional half: the format of the per-channel page tables that the driver
// writes into device memory, a walker that translates one virtual address through them, and a
// builder that writes such tables (for tests and for whoever plays the driver's part in C++).
//
// The format (also in tlm/host/registers.yaml, structure PAGE_TABLE_ENTRY, and docs/registers.md):
// a radix tree over a 49-bit virtual address, four levels. Level 0 indexes VA[48:39] (1024
// entries, an 8 KiB table); levels 1, 2 and 3 index VA[38:30], VA[29:21] and VA[20:12] (512
// entries, 4 KiB tables). Every entry is 8 bytes, little-endian:
//   bit 0  VALID     the entry is present
//   bit 1  WRITABLE  writes allowed; a write needs it at every level of the walk
//   bit 2  LEAF      the entry maps a page: 1 GiB at level 1, 2 MiB at level 2 (the H100's page
//                    size, docs/validation.md "TLB"); every level-3 entry is a 4 KiB page and
//                    must set it; level 0 never maps a page
//   bits 51:12  ADDRESS  physical address of the next table or of the page (page-aligned)
//   bits 11:3 and 63:52  reserved, 0
// The channel's root (CH_PAGE_TABLE_LO/HI) holds the physical address of its level-0 table,
// 4 KiB-aligned; 0 means translation is off for the channel (the caller's case, not the walker's).
//
// Plain C++, no SystemC: the walker reads memory through a callback, so the host interface, the
// functional engine and the tests can each give it their own memory.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace scgpu {
class StatsRegistry;
struct Counter;
}  // namespace scgpu

namespace scgpu::memsys {

// Entry bits (the generated header's SCGPU_PAGE_TABLE_ENTRY_* must agree: page_table_test checks).
namespace pte {
constexpr std::uint64_t kValid = 1ull << 0;
constexpr std::uint64_t kWritable = 1ull << 1;
constexpr std::uint64_t kLeaf = 1ull << 2;
constexpr unsigned kAddressShift = 12;
constexpr unsigned kAddressBits = 40;  // bits 51:12: 52-bit physical addresses
constexpr std::uint64_t kAddressMask = ((1ull << kAddressBits) - 1) << kAddressShift;
constexpr std::uint64_t kReservedMask = ~(kValid | kWritable | kLeaf | kAddressMask);
constexpr unsigned kEntryBytes = 8;
}  // namespace pte

// The tree's shape.
struct PageTableFormat {
  static constexpr unsigned kVaBits = 49;
  static constexpr unsigned kLevels = 4;
  static constexpr unsigned kTableAlignBytes = 4096;  // every table, the root too
  // Level l indexes VA[shift(l) + bits(l) - 1 : shift(l)].
  static constexpr unsigned shift(unsigned level) { return 39 - 9 * level; }
  static constexpr unsigned bits(unsigned level) { return level == 0 ? kVaBits - 39 : 9; }
  static constexpr std::uint64_t entries(unsigned level) { return 1ull << bits(level); }
  // Bytes one entry of this level covers: the page size of a leaf there.
  static constexpr std::uint64_t coverage(unsigned level) { return 1ull << shift(level); }
  static constexpr bool leafAllowed(unsigned level) { return level >= 1; }
  // The level whose leaves are `page_bytes` (4 KiB, 2 MiB, 1 GiB), or -1 for another size.
  static int levelOfPage(std::uint64_t page_bytes);
};

// Why a walk failed (values as error_kind's companion enum mmu_fault_reason in registers.yaml).
enum class FaultReason : std::uint8_t {
  None = 0,
  NotPresent = 1,       // an entry on the way has VALID clear
  NotWritable = 2,      // a write, and some entry on the way has WRITABLE clear
  BadEntry = 3,         // reserved bits set, LEAF where no page can be, a level-3 entry without LEAF,
                        // a misaligned page address, or a misaligned root
  VaOutOfRange = 4,     // the address has bits at or above kVaBits
  TableUnreadable = 5,  // the memory callback refused an entry's address (outside device memory)
};
const char* faultReasonName(FaultReason r);

struct Translation {
  bool ok = false;
  // On success.
  std::uint64_t pa = 0;          // physical address of the byte at `va`
  std::uint64_t page_pa = 0;     // base of the page that holds it
  std::uint64_t page_bytes = 0;  // size of that page (4 KiB, 2 MiB or 1 GiB)
  bool writable = false;         // WRITABLE at every level
  // On a fault.
  FaultReason reason = FaultReason::None;
  unsigned level = 0;            // level of the entry that faulted (0 for VaOutOfRange and a bad root)
  std::uint64_t entry_pa = 0;    // its address (the root for a bad root)
  std::uint64_t entry = 0;       // its value (0 when it could not be read)
  // Either way.
  unsigned reads = 0;            // 8-byte entries read from memory by this walk

  // A fault as register ERR_MMU_FAULT holds it: LEVEL, REASON and WRITE (the access was a write).
  std::uint32_t faultWord(bool write) const {
    return level | std::uint32_t(reason) << 4 | (write ? 1u : 0u) << 8;
  }
};

// The last pages one user of the translations hit (a launch in the functional core, an SM in the
// timing model): most accesses fall in them and skip even the translation cache's look-up. A few
// entries, since a kernel streams through several arrays at once (vector_add reads two and writes
// a third): with one entry every access of such a loop missed. Host-side only: what it holds
// changes no result and no statistic of the model.
struct LastPage {
  static constexpr int kEntries = 4;
  struct Entry {
    std::uint64_t root = 0, va = 1, pa = 0, mask = 0;  // va = 1: none (pages are aligned)
    bool writable = false;
  };
  Entry entries[kEntries];
  int next = 0;  // the entry remember() replaces (round robin)
  // True, with the physical address of `v`, when `v` lies in one of these pages of the address
  // space at `root_pa` and the access may be made (a write needs a writable page).
  // `page_mask` (when given) gets the page's size - 1.
  bool hit(std::uint64_t root_pa, std::uint64_t v, bool write, std::uint64_t* out,
           std::uint64_t* page_mask = nullptr) const {
    for (const Entry& e : entries) {
      if (e.root != root_pa || (v & ~e.mask) != e.va || (write && !e.writable)) continue;
      *out = e.pa | (v & e.mask);
      if (page_mask) *page_mask = e.mask;
      return true;
    }
    return false;
  }
  void remember(std::uint64_t root_pa, std::uint64_t v, const Translation& t) {
    Entry& e = entries[next];
    next = (next + 1) % kEntries;
    e.root = root_pa;
    e.mask = t.page_bytes - 1;
    e.va = v & ~e.mask;
    e.pa = t.page_pa;
    e.writable = t.writable;
  }
};

// Reads the 8-byte little-endian word at physical address `pa` into `*value`; false when `pa` is
// not readable device memory.
using ReadEntry = std::function<bool(std::uint64_t pa, std::uint64_t* value)>;

class PageTableWalker {
 public:
  // Statistics (when `stats` is given) under `name`: walks, faults, entry_reads.
  explicit PageTableWalker(ReadEntry read, StatsRegistry* stats = nullptr, const std::string& name = "mmu.walker");

  // Translates `va` through the tree at `root_pa` (non-zero) for a read or a write.
  Translation walk(std::uint64_t root_pa, std::uint64_t va, bool write);

  std::uint64_t walks() const { return walks_; }
  std::uint64_t faults() const { return faults_; }
  std::uint64_t entryReads() const { return entry_reads_; }

 private:
  Translation fault(Translation t, FaultReason reason, unsigned level, std::uint64_t entry_pa,
                    std::uint64_t entry);

  ReadEntry read_;
  std::uint64_t walks_ = 0, faults_ = 0, entry_reads_ = 0;
  Counter* c_walks_ = nullptr;
  Counter* c_faults_ = nullptr;
  Counter* c_entry_reads_ = nullptr;
};

// The functional side's translation for every access of a channel: the walker, with the pages it
// found remembered per root, as a TLB would (so that an access costs a hash lookup, not four
// memory reads). Like a TLB it does not see later writes to the tables: whoever changes a table
// that was used must call invalidate() (the driver's TLB invalidation). A write to a page cached as
// read-only walks again, so the fault names its level and entry as an uncached walk would.
class TranslationCache {
 public:
  // Statistics (when `stats` is given) under `name`: the walker's, plus hits and misses.
  explicit TranslationCache(ReadEntry read, StatsRegistry* stats = nullptr, const std::string& name = "mmu");

  Translation translate(std::uint64_t root_pa, std::uint64_t va, bool write);
  void invalidate();                      // every address space
  void invalidate(std::uint64_t root_pa);  // one

  const PageTableWalker& walker() const { return walker_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  struct Key {
    std::uint64_t root, page_va;  // page_va: va aligned down to the page's size
    bool operator==(const Key& o) const { return root == o.root && page_va == o.page_va; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<std::uint64_t>()(k.root * 0x9E3779B97F4A7C15ull ^ k.page_va); }
  };
  struct Page {
    std::uint64_t page_pa, page_bytes;
    bool writable;
  };
  // The SMs of a parallel tick translate at once (each keeps its last page; this is the miss path).
  std::mutex mutex_;
  PageTableWalker walker_;
  // One map per page size, so that a lookup tries each size once (1 GiB, 2 MiB, 4 KiB).
  std::unordered_map<Key, Page, KeyHash> pages_[PageTableFormat::kLevels];
  std::uint64_t hits_ = 0, misses_ = 0;
  Counter* c_hits_ = nullptr;
  Counter* c_misses_ = nullptr;
};

// Writes page tables in this format into a memory given as callbacks: tables come from
// `alloc_table` (returns a zero-filled, 4 KiB-aligned physical region of the bytes asked for),
// entries are written with `write_entry`, and read back with `read_entry` to extend existing tables.
class PageTableBuilder {
 public:
  using AllocTable = std::function<std::uint64_t(std::uint64_t bytes)>;
  using WriteEntry = std::function<void(std::uint64_t pa, std::uint64_t value)>;
  PageTableBuilder(AllocTable alloc_table, ReadEntry read_entry, WriteEntry write_entry);

  std::uint64_t root() const { return root_; }  // allocated by the constructor
  // Maps [va, va + bytes) to [pa, pa + bytes) with pages of `page_bytes` (4 KiB, 2 MiB or 1 GiB;
  // va, pa and bytes multiples of it). Throws std::invalid_argument on a bad size or alignment, a
  // range already mapped, or one that would replace a table with a page.
  void map(std::uint64_t va, std::uint64_t pa, std::uint64_t bytes, std::uint64_t page_bytes, bool writable);
  // Clears the leaf entries of [va, va + bytes) (tables stay); throws if a page there is not mapped
  // with `page_bytes`.
  void unmap(std::uint64_t va, std::uint64_t bytes, std::uint64_t page_bytes);

 private:
  // The address of the entry for `va` at `level`, creating tables above it as needed.
  std::uint64_t entryAddress(std::uint64_t va, unsigned level, bool create);

  AllocTable alloc_;
  ReadEntry read_;
  WriteEntry write_;
  std::uint64_t root_ = 0;
};

}  // namespace scgpu::memsys
