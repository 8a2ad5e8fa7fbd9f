// The L2 tag/MSHR stage's C++ model and its co-simulation wrapper (see l2_tag_mshr.h).
//
// The tags are a SectorCache: its recency stamps are strictly increasing within a set and only
// valid lines are ever compared, so its "oldest stamp" is exactly the last way in the RTL's
// position order (rtl/l2_tag_mshr.sv keeps positions instead of stamps: no counter to wrap).
#include "memsys/l2_tag_mshr.h"

#include <fmt/format.h>

#include <stdexcept>

#include "base/block_impl.h"

namespace scgpu::memsys {
namespace {

L2TagFactory& rtlL2TagFactory() {
  static L2TagFactory f;
  return f;
}

std::string text(const L2TagRequest& q) {
  return fmt::format("{} line {:#x} sectors {:#x}", toString(q.op), q.line, q.mask);
}

std::string text(const L2TagResult& r) {
  std::string s = fmt::format("{} present={} hit={:#x} miss={:#x}", toString(r.outcome), int(r.line_present),
                              r.hit_mask, r.miss_mask);
  if (r.dram_mask) s += fmt::format(" dram={:#x}", r.dram_mask);
  if (r.outcome == L2TagOutcome::Miss || r.outcome == L2TagOutcome::Merge || r.outcome == L2TagOutcome::MergeFull ||
      r.outcome == L2TagOutcome::Fill || r.outcome == L2TagOutcome::FillDone)
    s += fmt::format(" mshr={} count={}", r.mshr, r.count);
  if (r.victim) s += fmt::format(" victim={:#x} dirty={:#x}", r.victim_line, r.victim_dirty);
  if (r.error) s += " error";
  return s;
}

// The first output port (pin of rtl/l2_tag_mshr.sv) on which two results differ.
std::string firstDifference(const L2TagResult& a, const L2TagResult& b) {
  auto port = [](const char* name, auto x, auto y) {
    return fmt::format("{}: expected (model) {:#x}, got (RTL) {:#x}", name, std::uint64_t(x), std::uint64_t(y));
  };
  if (a.outcome != b.outcome)
    return fmt::format("res_kind: expected (model) {}, got (RTL) {}", toString(a.outcome), toString(b.outcome));
  if (a.error != b.error) return port("res_error", a.error, b.error);
  if (a.line_present != b.line_present) return port("res_line_present", a.line_present, b.line_present);
  if (a.hit_mask != b.hit_mask) return port("res_hit_mask", a.hit_mask, b.hit_mask);
  if (a.miss_mask != b.miss_mask) return port("res_miss_mask", a.miss_mask, b.miss_mask);
  if (a.dram_mask != b.dram_mask) return port("res_dram_mask", a.dram_mask, b.dram_mask);
  if (a.mshr != b.mshr) return port("res_mshr", a.mshr, b.mshr);
  if (a.count != b.count) return port("res_count", a.count, b.count);
  if (a.victim != b.victim) return port("res_victim", a.victim, b.victim);
  if (a.victim_line != b.victim_line) return port("res_victim_line", a.victim_line, b.victim_line);
  return port("res_victim_dirty", a.victim_dirty, b.victim_dirty);
}

class CosimL2TagMshr : public L2TagMshr {
 public:
  CosimL2TagMshr(std::unique_ptr<L2TagMshr> model, std::unique_ptr<L2TagMshr> rtl, std::string instance)
      : model_(std::move(model)), rtl_(std::move(rtl)), instance_(std::move(instance)) {
    rtl_->keepWaveform();
  }
  L2TagResult operate(const L2TagRequest& req, std::uint64_t cycle) override {
    const L2TagResult want = model_->operate(req, cycle);
    rtl_->expect(want);
    const L2TagResult got = rtl_->operate(req, cycle);
    if (want != got && divergence_.empty())
      divergence_ = fmt::format("RTL and model differ at cycle {} in {} (rtl/l2_tag_mshr.sv), port {}\n  operation: {}\n"
                                "  model: {}\n  RTL:   {}\n  the instance's last {} operations:\n{}{}",
                                cycle, instance_, firstDifference(want, got), text(req), text(want), text(got),
                                history_.size(), history_.text(),
                                cosimWaveform(*rtl_, cosimWaveformStem(instance_, cycle)));
    history_.remember(fmt::format("cycle {}: {} -> {}", cycle, text(req), text(want)));
    return want;
  }
  const std::string* divergence() const override { return divergence_.empty() ? nullptr : &divergence_; }

 private:
  std::unique_ptr<L2TagMshr> model_, rtl_;
  std::string instance_, divergence_;
  CosimHistory history_{12};  // operations kept for the report
};

}  // namespace

const char* toString(L2TagOp op) {
  switch (op) {
    case L2TagOp::Read: return "read";
    case L2TagOp::Atomic: return "atomic";
    case L2TagOp::Write: return "write";
    case L2TagOp::Fill: return "fill";
    case L2TagOp::Update: return "update";
  }
  return "?";
}

const char* toString(L2TagOutcome o) {
  switch (o) {
    case L2TagOutcome::Hit: return "hit";
    case L2TagOutcome::Miss: return "miss";
    case L2TagOutcome::Merge: return "merge";
    case L2TagOutcome::MshrFull: return "mshr_full";
    case L2TagOutcome::MergeFull: return "merge_full";
    case L2TagOutcome::WriteMiss: return "write_miss";
    case L2TagOutcome::Fill: return "fill";
    case L2TagOutcome::FillDone: return "fill_done";
  }
  return "?";
}

bool L2TagResult::operator==(const L2TagResult& o) const {
  return outcome == o.outcome && line_present == o.line_present && hit_mask == o.hit_mask &&
         miss_mask == o.miss_mask && dram_mask == o.dram_mask && mshr == o.mshr && count == o.count &&
         victim == o.victim && victim_line == o.victim_line && victim_dirty == o.victim_dirty && error == o.error;
}

ModelL2TagMshr::ModelL2TagMshr(const L2TagParams& p)
    : p_(p), cache_(p.cache), write_back_(p.cache.write_policy == "write_back") {}

L2TagResult ModelL2TagMshr::operate(const L2TagRequest& q, std::uint64_t cycle) {
  L2TagResult r;
  auto describe = [&r](const SectorCache::Result& c) {
    r.line_present = c.line_present;
    r.hit_mask = c.hit_mask;
    r.miss_mask = c.miss_mask;
  };
  auto evicted = [&r](const SectorCache::Victim& v) {
    r.victim = v.valid;
    r.victim_line = v.line_addr;
    r.victim_dirty = v.dirty_mask;
  };
  switch (q.op) {
    case L2TagOp::Read:
    case L2TagOp::Atomic: {
      const SectorCache::Result c = cache_.probe(q.line, q.mask);
      describe(c);
      if (c.miss_mask == 0) {
        cache_.access(q.line, q.mask, q.op == L2TagOp::Atomic, cycle);
        r.outcome = L2TagOutcome::Hit;
        return r;
      }
      auto it = by_line_.find(q.line);
      if (it != by_line_.end()) {
        Entry& e = entries_[it->second];
        r.mshr = it->second;
        r.count = e.count;
        if (e.count >= std::max<std::uint32_t>(p_.cache.mshr_max_merge, 1)) {
          r.outcome = L2TagOutcome::MergeFull;
          return r;
        }
        r.outcome = L2TagOutcome::Merge;
        r.dram_mask = c.miss_mask & ~e.requested;
        e.requested |= r.dram_mask;
        e.outstanding |= r.dram_mask;
        ++e.count;
      } else if (free_.empty() && entries_.size() >= p_.cache.mshr_entries) {
        r.outcome = L2TagOutcome::MshrFull;
        return r;
      } else {
        r.outcome = L2TagOutcome::Miss;
        r.dram_mask = c.miss_mask;
        if (free_.empty()) {
          r.mshr = std::uint32_t(entries_.size());
          entries_.emplace_back();
        } else {
          r.mshr = *free_.begin();
          free_.erase(free_.begin());
        }
        entries_[r.mshr] = Entry{q.line, c.miss_mask, c.miss_mask, 1};
        by_line_.emplace(q.line, r.mshr);
      }
      if (c.line_present) cache_.access(q.line, q.mask, false, cycle);  // recency
      return r;
    }
    case L2TagOp::Write: {
      const SectorCache::Result c = cache_.access(q.line, q.mask, true, cycle);
      describe(c);
      r.outcome = c.miss_mask ? L2TagOutcome::WriteMiss : L2TagOutcome::Hit;
      if (c.miss_mask && p_.cache.allocate_on_write) evicted(cache_.fill(q.line, c.miss_mask, write_back_, cycle));
      return r;
    }
    case L2TagOp::Update: {
      const SectorCache::Result c = cache_.access(q.line, q.mask, true, cycle);
      describe(c);
      r.outcome = c.miss_mask ? L2TagOutcome::WriteMiss : L2TagOutcome::Hit;
      return r;
    }
    case L2TagOp::Fill: {
      describe(cache_.probe(q.line, q.mask));
      auto it = by_line_.find(q.line);
      if (it != by_line_.end()) r.mshr = it->second;
      if (it == by_line_.end() || q.mask == 0 || (q.mask & ~entries_[it->second].outstanding) != 0) {
        r.error = true;
        return r;
      }
      evicted(cache_.fill(q.line, q.mask, false, cycle));
      Entry& e = entries_[it->second];
      e.outstanding &= ~q.mask;
      if (e.outstanding != 0) {
        r.outcome = L2TagOutcome::Fill;
        return r;
      }
      r.outcome = L2TagOutcome::FillDone;
      r.count = e.count;
      free_.insert(it->second);
      by_line_.erase(it);
      return r;
    }
  }
  r.error = true;
  return r;
}

void registerRtlL2TagMshr(L2TagFactory factory) { rtlL2TagFactory() = std::move(factory); }

std::unique_ptr<L2TagMshr> makeL2TagMshr(const std::string& impl, const L2TagParams& params,
                                         const std::string& instance) {
  checkBlockImpl("l2.impl", impl, bool(rtlL2TagFactory()));
  if (impl == "model") return std::make_unique<ModelL2TagMshr>(params);
  auto rtl = rtlL2TagFactory()(params, instance);
  if (impl == "rtl") return rtl;
  return std::make_unique<CosimL2TagMshr>(std::make_unique<ModelL2TagMshr>(params), std::move(rtl), instance);
}

}  // namespace scgpu::memsys
