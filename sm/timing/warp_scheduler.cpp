#include "sm/timing/warp_scheduler.h"

#include "base/block_impl.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace scgpu::sm::timing {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Position of `slot` in `warps`, or -1.
int find(const std::vector<std::uint32_t>& warps, std::uint32_t slot) {
  for (std::size_t i = 0; i < warps.size(); ++i)
    if (warps[i] == slot) return int(i);
  return -1;
}

// Loose round robin: the first ready warp after the one that issued last, in launch order.
class Lrr : public WarpScheduler {
 public:
  void add(std::uint32_t) override {}
  void remove(std::uint32_t slot) override {
    if (last_ == slot) last_ = kNone;
  }
  int pick(const std::vector<std::uint32_t>& warps, const std::vector<Reason>& status) override {
    const int n = int(warps.size());
    if (n == 0) return -1;
    const int start = last_ == kNone ? 0 : find(warps, last_) + 1;
    for (int k = 0; k < n; ++k) {
      const int i = (start + k) % n;
      if (status[warps[i]] == Reason::Ready) return i;
    }
    return -1;
  }
  void issued(std::uint32_t slot) override { last_ = slot; }
  const char* name() const override { return "lrr"; }

 private:
  std::uint32_t last_ = kNone;
};

// Greedy then oldest: the warp that issued last while it can, else the oldest ready warp.
class Gto : public WarpScheduler {
 public:
  void add(std::uint32_t) override {}
  void remove(std::uint32_t slot) override {
    if (greedy_ == slot) greedy_ = kNone;
  }
  int pick(const std::vector<std::uint32_t>& warps, const std::vector<Reason>& status) override {
    if (greedy_ != kNone && status[greedy_] == Reason::Ready) {
      const int i = find(warps, greedy_);
      if (i >= 0) return i;
    }
    for (std::size_t i = 0; i < warps.size(); ++i)
      if (status[warps[i]] == Reason::Ready) return int(i);
    return -1;
  }
  void issued(std::uint32_t slot) override { greedy_ = slot; }
  const char* name() const override { return "gto"; }

 private:
  std::uint32_t greedy_ = kNone;
};

// Two-level (Narasiman et al., MICRO 2011; Gebhart et al., ISCA 2011): an active set of at most
// `active` warps scheduled round robin; a warp that stalls on a long-scoreboard dependency (or
// waits at a barrier or an mbarrier, which would otherwise deadlock a full active set: isLongWait)
// moves to the back of the pending set; free active places are filled from the pending set in
// order, skipping warps that are still in such a stall.
class TwoLevel : public WarpScheduler {
 public:
  explicit TwoLevel(std::uint32_t active) : capacity_(std::max<std::uint32_t>(active, 1)) {}
  void add(std::uint32_t slot) override { pending_.push_back(slot); }
  void remove(std::uint32_t slot) override {
    erase(active_, slot);
    erase(pending_, slot);
    if (last_ == slot) last_ = kNone;
  }
  int pick(const std::vector<std::uint32_t>& warps, const std::vector<Reason>& status) override {
    auto parked = [&](std::uint32_t s) { return isLongWait(status[s]); };
    for (std::size_t i = 0; i < active_.size();) {
      if (parked(active_[i])) {
        pending_.push_back(active_[i]);
        active_.erase(active_.begin() + long(i));
      } else {
        ++i;
      }
    }
    for (std::size_t i = 0; i < pending_.size() && active_.size() < capacity_;) {
      if (!parked(pending_[i])) {
        active_.push_back(pending_[i]);
        pending_.erase(pending_.begin() + long(i));
      } else {
        ++i;
      }
    }
    const int n = int(active_.size());
    if (n == 0) return -1;
    int start = 0;
    if (last_ != kNone) start = find(active_, last_) + 1;
    for (int k = 0; k < n; ++k) {
      const std::uint32_t s = active_[std::size_t((start + k) % n)];
      if (status[s] == Reason::Ready) return find(warps, s);
    }
    return -1;
  }
  void issued(std::uint32_t slot) override { last_ = slot; }
  const char* name() const override { return "two_level"; }

 private:
  static void erase(std::vector<std::uint32_t>& v, std::uint32_t slot) {
    v.erase(std::remove(v.begin(), v.end(), slot), v.end());
  }
  std::uint32_t capacity_;
  std::vector<std::uint32_t> active_, pending_;
  std::uint32_t last_ = kNone;
};

}  // namespace

namespace {

WarpSchedulerFactory& rtlSchedulerFactory() {
  static WarpSchedulerFactory f;
  return f;
}

// Runs the model and the RTL side by side: every call goes to both, and every pick's answers are
// compared. The model's answer drives the SM; the first difference is kept for the report.
class CosimScheduler : public WarpScheduler {
 public:
  CosimScheduler(std::unique_ptr<WarpScheduler> model, std::unique_ptr<WarpScheduler> rtl, std::string instance)
      : model_(std::move(model)), rtl_(std::move(rtl)), instance_(std::move(instance)) {
    rtl_->keepWaveform();
  }
  void add(std::uint32_t slot) override {
    model_->add(slot);
    rtl_->add(slot);
    history_.remember(fmt::format("add slot {}", slot));
  }
  void remove(std::uint32_t slot) override {
    model_->remove(slot);
    rtl_->remove(slot);
    history_.remember(fmt::format("remove slot {}", slot));
  }
  int pick(const std::vector<std::uint32_t>& warps, const std::vector<Reason>& status) override {
    const int want = model_->pick(warps, status);
    rtl_->expect(want < 0 ? -1 : int(warps[std::size_t(want)]));
    const int got = rtl_->pick(warps, status);
    ++picks_;
    auto slotText = [&](int i) { return i < 0 ? std::string("none") : fmt::format("slot {}", warps[std::size_t(i)]); };
    std::string state;
    for (std::uint32_t s : warps) state += fmt::format(" {}:{}", s, toString(status[s]));
    if (want != got && divergence_.empty()) {
      // The waveform of the window before it (rtl-verif), named by the instance's pick count (the
      // SM adds the cycle to the report).
      const std::string wave = cosimWaveform(*rtl_, cosimWaveformStem(instance_, "pick" + std::to_string(picks_)));
      divergence_ = fmt::format("RTL and model differ in {} ({}), port grant: expected (model) {}, got (RTL) {}\n"
                                "  warps (launch order) and their status this cycle:{}\n  the instance's last {} "
                                "operations:\n{}{}",
                                instance_, "rtl/warp_sched_arbiter.sv", slotText(want), slotText(got), state,
                                history_.size(), history_.text(), wave);
    }
    history_.remember(fmt::format("pick -> {} (status:{})", slotText(want), state));
    return want;
  }
  void issued(std::uint32_t slot) override {
    model_->issued(slot);
    rtl_->issued(slot);
  }
  const char* name() const override { return model_->name(); }
  const std::string* divergence() const override { return divergence_.empty() ? nullptr : &divergence_; }

 private:
  std::unique_ptr<WarpScheduler> model_, rtl_;
  std::string instance_;
  std::string divergence_;
  CosimHistory history_{12};  // operations kept for the report
  std::uint64_t picks_ = 0;
};

}  // namespace

void registerRtlWarpScheduler(WarpSchedulerFactory factory) { rtlSchedulerFactory() = std::move(factory); }

std::unique_ptr<WarpScheduler> makeWarpScheduler(const std::string& impl, const SchedulerParams& params,
                                                 const std::string& instance) {
  SmParams p;
  p.scheduler_policy = params.policy;
  p.two_level_active_warps = params.two_level_active_warps;
  checkBlockImpl("sm.scheduler.impl", impl, bool(rtlSchedulerFactory()));
  if (impl == "model") return WarpScheduler::make(p);
  auto rtl = rtlSchedulerFactory()(params, instance);
  if (impl == "rtl") return rtl;
  return std::make_unique<CosimScheduler>(WarpScheduler::make(p), std::move(rtl), instance);
}

std::unique_ptr<WarpScheduler> WarpScheduler::make(const SmParams& p) {
  if (p.scheduler_policy == "lrr") return std::make_unique<Lrr>();
  if (p.scheduler_policy == "gto") return std::make_unique<Gto>();
  if (p.scheduler_policy == "two_level") return std::make_unique<TwoLevel>(p.two_level_active_warps);
  throw std::invalid_argument("sm.scheduler_policy must be lrr, gto or two_level, got '" + p.scheduler_policy + "'");
}

}  // namespace scgpu::sm::timing
