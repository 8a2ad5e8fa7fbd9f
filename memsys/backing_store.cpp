#include "memsys/backing_store.h"

#include <algorithm>
#include <cstring>

namespace scgpu::memsys {

BackingStore::BackingStore(std::uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

std::uint64_t BackingStore::allocate(std::uint64_t bytes, const std::string&) {
  if (bytes == 0) bytes = 1;
  const std::uint64_t rounded = roundedSize(bytes);
  if (rounded > capacity_ || allocated_ > capacity_ - rounded) return 0;
  // First fit among freed ranges, in address order, so reuse is deterministic.
  for (auto it = free_list_.begin(); it != free_list_.end(); ++it) {
    if (it->second >= rounded) {
      std::uint64_t base = it->first;
      if (it->second == rounded)
        free_list_.erase(it);
      else {
        it->first += rounded;
        it->second -= rounded;
      }
      allocations_[base] = bytes;
      ++generation_;
      allocated_ += rounded;
      // Freed memory is reused: clear it, as fresh pages are.
      fill(base, 0, rounded);
      return base;
    }
  }
  std::uint64_t base = next_;
  next_ += rounded;
  allocations_[base] = bytes;
  ++generation_;
  allocated_ += rounded;
  return base;
}

bool BackingStore::allocateAt(std::uint64_t addr, std::uint64_t bytes, std::string* why) {
  if (bytes == 0) bytes = 1;
  const std::uint64_t rounded = roundedSize(bytes);
  auto fail = [&](const char* reason) {
    if (why) *why = reason;
    return false;
  };
  if (addr == 0 || addr % kAllocAlign) return fail("the address is 0 or not 256-byte aligned");
  if (addr + rounded < addr) return fail("the range wraps around the address space");
  if (rounded > capacity_ || allocated_ > capacity_ - rounded) return fail("device memory is exhausted");
  auto next = allocations_.lower_bound(addr);
  if (next != allocations_.end() && next->first < addr + rounded) return fail("the range overlaps a mapping");
  if (next != allocations_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + roundedSize(prev->second) > addr) return fail("the range overlaps a mapping");
  }
  allocations_[addr] = bytes;
  ++generation_;
  allocated_ += rounded;
  fill(addr, 0, rounded);
  return true;
}

void BackingStore::reset() {
  allocated_ = 0;
  next_ = kHeapBase;
  allocations_.clear();
  ++generation_;
  free_list_.clear();
  pages_.clear();
  forgetRecent(~0ull);
}

void BackingStore::forgetRecent(std::uint64_t page) {
  for (int i = 0; i < kRecentPages; ++i)
    if (page == ~0ull || recent_page_[i] == page) {
      recent_page_[i] = ~0ull;
      recent_data_[i] = nullptr;
    }
}

bool BackingStore::release(std::uint64_t addr) {
  auto it = allocations_.find(addr);
  if (it == allocations_.end()) return false;
  std::uint64_t rounded = (it->second + kAllocAlign - 1) / kAllocAlign * kAllocAlign;
  allocated_ -= rounded;
  allocations_.erase(it);
  ++generation_;
  free_list_.emplace_back(addr, rounded);
  std::sort(free_list_.begin(), free_list_.end());
  return true;
}

bool BackingStore::findAllocation(std::uint64_t addr, std::uint64_t& base, std::uint64_t& size) const {
  auto it = allocations_.upper_bound(addr);
  if (it == allocations_.begin()) return false;
  --it;
  if (addr >= it->first + it->second) return false;
  base = it->first;
  size = it->second;
  return true;
}

bool BackingStore::valid(std::uint64_t addr, std::uint64_t size) const { return valid(addr, size, hit_); }

bool BackingStore::valid(std::uint64_t addr, std::uint64_t size, Hint& hint) const {
  if (hint.generation != generation_) hint = Hint{generation_};
  if (addr + size < addr) return false;
  for (int i = 0; i < Hint::kRanges; ++i)
    if (addr >= hint.base[i] && addr + size <= hint.end[i]) return true;
  std::uint64_t base, bytes;
  if (!findAllocation(addr, base, bytes)) return false;
  if (addr + size > base + bytes) return false;
  hint.base[hint.next] = base;
  hint.end[hint.next] = base + bytes;
  hint.next = (hint.next + 1) % Hint::kRanges;
  return true;
}

const std::uint8_t* BackingStore::peek(std::uint64_t addr, Hint& hint) const {
  static const std::uint8_t kZeroPage[kPageBytes] = {};
  const std::uint64_t page = addr / kPageBytes;
  if (hint.generation != generation_) hint = Hint{generation_};
  if (page != hint.page) {
    auto it = pages_.find(page);
    hint.page = page;
    hint.data = it == pages_.end() ? kZeroPage : it->second.get();
  }
  return hint.data + addr % kPageBytes;
}

std::uint8_t* BackingStore::existingPage(std::uint64_t page) {
  for (int i = 0; i < kRecentPages; ++i)
    if (recent_page_[i] == page) return recent_data_[i];
  auto it = pages_.find(page);
  return it == pages_.end() ? nullptr : it->second.get();
}

std::uint8_t* BackingStore::pageData(std::uint64_t page) {
  auto& slot = pages_[page];
  if (!slot) {
    ++generation_;
    slot.reset(new std::uint8_t[kPageBytes]);
    std::memset(slot.get(), 0, kPageBytes);
  }
  return slot.get();
}

void BackingStore::read(std::uint64_t addr, void* dst, std::uint64_t size) {
  auto* out = static_cast<std::uint8_t*>(dst);
  while (size) {
    std::uint64_t chunk = std::min(size, kPageBytes - addr % kPageBytes);
    if (const std::uint8_t* page = existingPage(addr / kPageBytes)) std::memcpy(out, page + addr % kPageBytes, chunk);
    else std::memset(out, 0, chunk);
    out += chunk;
    addr += chunk;
    size -= chunk;
  }
}

void BackingStore::write(std::uint64_t addr, const void* src, std::uint64_t size) {
  const auto* in = static_cast<const std::uint8_t*>(src);
  while (size) {
    std::uint64_t chunk = std::min(size, kPageBytes - addr % kPageBytes);
    const bool zeros = in[0] == 0 && std::memcmp(in, in + 1, chunk - 1) == 0;
    if (!zeros || existingPage(addr / kPageBytes)) std::memcpy(hostPtr(addr), in, chunk);
    in += chunk;
    addr += chunk;
    size -= chunk;
  }
}

void BackingStore::fill(std::uint64_t addr, std::uint8_t value, std::uint64_t size) {
  while (size) {
    std::uint64_t chunk = std::min(size, kPageBytes - addr % kPageBytes);
    const std::uint64_t page = addr / kPageBytes;
    if (value != 0) {
      std::memset(hostPtr(addr), value, chunk);
    } else if (chunk == kPageBytes) {
      if (pages_.erase(page)) ++generation_;
      forgetRecent(page);
    } else if (std::uint8_t* data = existingPage(page)) {
      std::memset(data + addr % kPageBytes, 0, chunk);
    }
    addr += chunk;
    size -= chunk;
  }
}

}  // namespace scgpu::memsys
