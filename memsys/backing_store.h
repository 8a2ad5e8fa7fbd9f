// Device memory contents: one sparse store of fixed-size pages, created on first touch, plus the
// table of live allocations that decides which addresses are valid. Timing models above it decide
// when an access happens; this decides what it reads and whether it may.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace scgpu::memsys {

class BackingStore {
 public:
  static constexpr std::uint64_t kPageBytes = 1ull << 16;
  // Device allocations start here, like the high virtual addresses a CUDA driver hands out.
  static constexpr std::uint64_t kHeapBase = 0x0000'7000'0000'0000ull;
  static constexpr std::uint64_t kAllocAlign = 256;  // cudaMalloc alignment

  explicit BackingStore(std::uint64_t capacity_bytes);

  // Returns the base address, or 0 when the capacity is exhausted.
  std::uint64_t allocate(std::uint64_t bytes, const std::string& tag = "");
  // An allocation at a place the caller chose (a driver's own address-space allocator; MAP).
  // False with the reason when addr is not kAllocAlign-aligned, the range overlaps a live
  // allocation or wraps, or the capacity is exhausted. The range reads as zero.
  bool allocateAt(std::uint64_t addr, std::uint64_t bytes, std::string* why);
  // False when addr is not the base of a live allocation.
  bool release(std::uint64_t addr);
  // Forgets every allocation and every byte: as freshly constructed (a device reset).
  void reset();

  // True when [addr, addr+size) lies inside one live allocation.
  bool valid(std::uint64_t addr, std::uint64_t size) const;
  // The allocation containing addr: its base and size, or false.
  bool findAllocation(std::uint64_t addr, std::uint64_t& base, std::uint64_t& size) const;

  // Look-ups that change nothing in the store, so that several host threads may make them at once
  // while nobody writes (the SMs of a parallel tick): the caller keeps the cache of the last
  // allocations and page it hit. (Several allocations: a kernel streams through several arrays.)
  struct Hint {
    static constexpr int kRanges = 4;
    std::uint64_t generation = ~0ull;            // the store's generation it was taken at
    std::uint64_t base[kRanges] = {1, 1, 1, 1};  // the last allocations found: [base, end)
    std::uint64_t end[kRanges] = {};
    int next = 0;                                // the range the next one found replaces
    std::uint64_t page = ~0ull;                  // the last page read
    const std::uint8_t* data = nullptr;
  };
  bool valid(std::uint64_t addr, std::uint64_t size, Hint& hint) const;
  // The bytes at addr for reading (a shared page of zeros where nothing was ever written); the
  // range must not cross a page.
  const std::uint8_t* peek(std::uint64_t addr, Hint& hint) const;

  // Host pointer to the bytes at addr; the range must not cross a page (aligned accesses of up
  // to 16 bytes never do). No validity check: callers check valid() first.
  std::uint8_t* hostPtr(std::uint64_t addr) {
    const std::uint64_t page = addr / kPageBytes;
    for (int i = 0; i < kRecentPages; ++i)
      if (recent_page_[i] == page) return recent_data_[i] + (addr % kPageBytes);
    std::uint8_t* data = pageData(page);
    recent_page_[recent_next_] = page;
    recent_data_[recent_next_] = data;
    recent_next_ = (recent_next_ + 1) % kRecentPages;
    return data + (addr % kPageBytes);
  }

  // Bulk copies for the runtime; they may cross pages. Zero costs no host memory: reading a page
  // never touched gives zeros without creating it, writing zeros to one leaves it absent, and
  // filling whole pages with zero drops them.
  void read(std::uint64_t addr, void* dst, std::uint64_t size);
  void write(std::uint64_t addr, const void* src, std::uint64_t size);
  void fill(std::uint64_t addr, std::uint8_t value, std::uint64_t size);

  std::uint64_t capacity() const { return capacity_; }
  // Changes whenever a page or an allocation comes or goes: what a caller found before may be stale.
  std::uint64_t generation() const { return generation_; }
  // What allocate() takes from the capacity for a request of `bytes` (saturating).
  static std::uint64_t roundedSize(std::uint64_t bytes) {
    if (bytes == 0) bytes = 1;
    return bytes > ~std::uint64_t{0} - kAllocAlign ? ~std::uint64_t{0} : (bytes + kAllocAlign - 1) / kAllocAlign * kAllocAlign;
  }
  std::uint64_t bytesAllocated() const { return allocated_; }
  std::uint64_t pagesTouched() const { return pages_.size(); }

 private:
  std::uint8_t* pageData(std::uint64_t page);
  // The page's bytes, or nullptr when it was never touched (reads as zero).
  std::uint8_t* existingPage(std::uint64_t page);

  std::uint64_t capacity_;
  std::uint64_t allocated_ = 0;
  std::uint64_t next_ = kHeapBase;
  std::map<std::uint64_t, std::uint64_t> allocations_;  // base -> size
  std::vector<std::pair<std::uint64_t, std::uint64_t>> free_list_;  // freed ranges for reuse
  std::unordered_map<std::uint64_t, std::unique_ptr<std::uint8_t[]>> pages_;
  // Bumped whenever a page or an allocation comes or goes: a Hint taken before is stale.
  std::uint64_t generation_ = 0;
  // The pages hostPtr() found last, round robin (a kernel streams through several arrays).
  static constexpr int kRecentPages = 4;
  std::uint64_t recent_page_[kRecentPages] = {~0ull, ~0ull, ~0ull, ~0ull};
  std::uint8_t* recent_data_[kRecentPages] = {};
  int recent_next_ = 0;
  void forgetRecent(std::uint64_t page);  // page, or every page when ~0
  // valid()'s own hint: the last allocation hit, since accesses of a warp mostly fall in the
  // same buffer.
  mutable Hint hit_;
};

}  // namespace scgpu::memsys
