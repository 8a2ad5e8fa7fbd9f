#include "memsys/tlb.h"

#include <stdexcept>

#include <fmt/format.h>

#include "base/stats.h"

namespace scgpu::memsys {

namespace {
bool isPow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
unsigned log2Of(std::uint64_t v) {
  unsigned s = 0;
  while ((1ull << s) < v) ++s;
  return s;
}
}  // namespace

Tlb::Tlb(std::uint32_t entries, std::uint32_t associativity, std::uint64_t page_bytes, StatsRegistry* stats,
         const std::string& name)
    : ways_(associativity), page_bytes_(page_bytes) {
  if (entries == 0 || associativity == 0 || entries % associativity)
    throw std::invalid_argument(
        fmt::format("TLB {}: {} entries cannot be split into sets of {} ways", name, entries, associativity));
  if (!isPow2(page_bytes)) throw std::invalid_argument(fmt::format("TLB {}: page of {} bytes is not a power of two", name, page_bytes));
  sets_ = entries / associativity;
  page_shift_ = log2Of(page_bytes);
  ways_v_.resize(std::size_t(sets_) * ways_);
  if (stats) {
    c_hits_ = stats->counter(name + ".hits", "lookups that found the page");
    c_misses_ = stats->counter(name + ".misses", "lookups that did not");
  }
}

bool Tlb::lookup(std::uint32_t asid, std::uint64_t va) {
  const std::uint64_t v = vpn(va);
  Way* s = set(v);
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (s[w].valid && s[w].asid == asid && s[w].vpn == v) {
      s[w].last_use = ++use_clock_;
      ++hits_;
      if (c_hits_) ++*c_hits_;
      return true;
    }
  ++misses_;
  if (c_misses_) ++*c_misses_;
  return false;
}

void Tlb::fill(std::uint32_t asid, std::uint64_t va) {
  const std::uint64_t v = vpn(va);
  Way* s = set(v);
  Way* victim = nullptr;
  for (std::uint32_t w = 0; w < ways_; ++w) {
    if (s[w].valid && s[w].asid == asid && s[w].vpn == v) {
      s[w].last_use = ++use_clock_;
      return;
    }
    // An invalid way first (the lowest), else the least recently used.
    if (!victim || (victim->valid && (!s[w].valid || s[w].last_use < victim->last_use))) victim = &s[w];
  }
  *victim = Way{true, asid, v, ++use_clock_};
}

bool Tlb::contains(std::uint32_t asid, std::uint64_t va) const {
  const std::uint64_t v = vpn(va);
  const Way* s = set(v);
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (s[w].valid && s[w].asid == asid && s[w].vpn == v) return true;
  return false;
}

void Tlb::invalidateAll() {
  for (Way& w : ways_v_) w.valid = false;
}

void Tlb::invalidate(std::uint32_t asid) {
  for (Way& w : ways_v_)
    if (w.asid == asid) w.valid = false;
}

TranslationPath::TranslationPath(const MmuParams& params, Tlb* shared_l2, StatsRegistry* stats,
                                 const std::string& name)
    : params_(params),
      l1_(params.l1_tlb_entries, params.l1_tlb_associativity, params.page_bytes, stats, name + ".l1_tlb"),
      l2_(shared_l2) {
  if (!l2_ || l2_->pageBytes() != params.page_bytes)
    throw std::invalid_argument(fmt::format("{}: the shared L2 TLB is missing or its page differs from {} bytes",
                                            name, params.page_bytes));
  if (stats) c_walks_ = stats->counter(name + ".page_walks", "accesses that missed both TLBs and walked the page table");
}

TranslationPath::Result TranslationPath::translate(std::uint32_t asid, std::uint64_t va) {
  if (translateL1(asid, va)) return {Where::L1Hit, 0};
  return translateL2(asid, va);
}

bool TranslationPath::translateL1(std::uint32_t asid, std::uint64_t va) {
  if (l1_.lookup(asid, va)) return true;
  l1_.fill(asid, va);  // the L1 and L2 TLBs are separate: filling first changes neither's outcome
  return false;
}

TranslationPath::Result TranslationPath::translateL2(std::uint32_t asid, std::uint64_t va) {
  if (l2_->lookup(asid, va)) return {Where::L2Hit, params_.l2_tlb_hit_latency_cycles};
  if (c_walks_) ++*c_walks_;
  l2_->fill(asid, va);
  // The walk's cost is the whole miss: the L2 TLB lookup that found nothing is part of it.
  return {Where::Walk, params_.walk_latency_cycles};
}

}  // namespace scgpu::memsys
