#include "tlm/clock_domain.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace scgpu {

ClockDomain::ClockDomain(sc_core::sc_module_name name, double clock_mhz)
    : sc_core::sc_module(name), mhz_(clock_mhz), period_(std::round(1e9 / clock_mhz), sc_core::SC_FS) {
  SC_HAS_PROCESS(ClockDomain);
  SC_METHOD(evaluate);
  sensitive << edge_ev_;
  dont_initialize();
  SC_METHOD(transfer);
  sensitive << transfer_ev_;
  dont_initialize();
}

std::size_t ClockDomain::add(Component c) {
  parts_.push_back(std::uint8_t((c.transfer ? kHasTransfer : 0) | (c.quiet ? kHasQuiet : 0) | (c.due ? kHasDue : 0) |
                                (c.keeps_awake ? kKeepsAwake : 0)));
  components_.push_back(std::move(c));
  group_at_.push_back(-1);
  quiet_until_.push_back(0);
  awake_.resize((components_.size() + 63) / 64, 0);
  setAwake(components_.size() - 1);
  return components_.size() - 1;
}

void ClockDomain::setQuiet(std::size_t i, std::uint64_t until) {
  quiet_until_[i] = until;
  if (until <= cycle_) {
    setAwake(i);
    return;
  }
  awake_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  if (until == kNever) return;
  waking_.push({until, i});
  // Entries of components woken early stay until their cycle comes: rebuild from quiet_until_
  // when they outnumber the components well, so the heap stays bounded however often they wake.
  if (waking_.size() > 4 * quiet_until_.size() + 64) {
    std::vector<QuietEntry> live;
    for (std::size_t k = 0; k < quiet_until_.size(); ++k)
      if (quiet_until_[k] > cycle_ && quiet_until_[k] != kNever) live.push_back({quiet_until_[k], k});
    waking_ = decltype(waking_)(std::greater<QuietEntry>(), std::move(live));
  }
}

void ClockDomain::wakeDue() {
  while (!waking_.empty() && waking_.top().first <= cycle_) {
    const QuietEntry e = waking_.top();
    waking_.pop();
    if (quiet_until_[e.second] == e.first) setAwake(e.second);
  }
}

template <typename F>
void ClockDomain::forAwake(std::size_t first, std::size_t last, F&& f) {
  // The bits are read as the loop goes: a component woken by an earlier one's step is visited
  // in this pass, as a loop over every component asking quiet_until_ would.
  for (std::size_t i = first; i < last;) {
    const std::size_t w = i / 64;
    const std::uint64_t word = awake_[w] & (~std::uint64_t{0} << (i % 64));
    if (!word) {
      i = (w + 1) * 64;
      continue;
    }
    i = w * 64 + std::size_t(__builtin_ctzll(word));
    if (i >= last) break;
    f(i);
    ++i;
  }
}

std::size_t ClockDomain::addParallel(std::vector<Component> members, Commit commit) {
  Group g;
  g.first = components_.size();
  g.count = members.size();
  g.commit = std::move(commit);
  for (auto& m : members) add(std::move(m));
  if (g.count) group_at_[g.first] = int(groups_.size());
  const std::size_t first = g.first;
  groups_.push_back(std::move(g));
  return first;
}

ClockDomain::Threads::Threads(unsigned n, bool always_parallel)
    : n_(std::max(1u, n)),
      arena_(n_ > 1 ? std::make_unique<tbb::task_arena>(int(n_)) : nullptr),
      parallel_(always_parallel),
      always_(always_parallel) {}

ClockDomain::Threads::~Threads() = default;

void ClockDomain::Threads::leaderTick() {
  if (always_) return;
  const auto now = std::chrono::steady_clock::now();
  const std::uint64_t phase = cycle_++ % kEpochCycles;
  // The cycle that just ended (from the last leader tick to this one) was a sample: count it,
  // unless it was one of the first of its sample (threads waking up, caches warming).
  if (phase >= 1 && phase <= 2 * kSampleCycles) {
    const std::uint64_t ended = phase - 1;
    if (ended % kSampleCycles >= kWarmupCycles) {
      const auto ns = std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count());
      (ended < kSampleCycles ? serial_ns_ : parallel_ns_) += ns;
    }
  }
  last_ = now;
  if (phase == 0) serial_ns_ = parallel_ns_ = 0;
  if (phase < kSampleCycles) parallel_ = false;
  else if (phase < 2 * kSampleCycles) parallel_ = true;
  else parallel_ = parallel_ns_ * 10 < serial_ns_ * 9;  // a clear gain only
}

void ClockDomain::setThreads(std::shared_ptr<Threads> threads, bool leader) {
  threads_ = threads && threads->count() > 1 ? std::move(threads) : nullptr;
  leader_ = leader;
}

void ClockDomain::tickGroup(Group& g) {
  ready_.clear();
  forAwake(g.first, g.first + g.count, [&](std::size_t i) {
    if (!components_[i].idle()) ready_.push_back(i - g.first);
  });
  Component* members = &components_[g.first];
  if (threads_ && leader_ && &g == &groups_.front()) threads_->leaderTick();  // once an edge
  if (threads_ && threads_->parallel_ && !threads_->serial_required_ && ready_.size() > 1) {
    // Equal shares per thread: the members' work is alike, and a fixed split keeps it cheap.
    threads_->arena_->execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ready_.size()),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t k = r.begin(); k != r.end(); ++k) members[ready_[k]].tick(cycle_);
                        },
                        tbb::static_partitioner());
    });
  } else {
    for (std::size_t i : ready_) members[i].tick(cycle_);
  }
  if (g.commit) g.commit(cycle_, ready_);
}

std::uint64_t ClockDomain::edgeIndexAfter(const sc_core::sc_time& t) const {
  const std::uint64_t p = period_.value();
  return t.value() / p + 1;
}

void ClockDomain::wake() {
  if (!sleeping_) return;
  sleeping_ = false;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const std::uint64_t next = edgeIndexAfter(now);
  edge_ev_.notify(sc_core::sc_time::from_value(next * period_.value()) - now);
}

void ClockDomain::evaluate() {
  sleeping_ = false;
  cycle_ = sc_core::sc_time_stamp().value() / period_.value();
  ++ticks_;
  wakeDue();
  for (std::size_t i = 0; i < components_.size();) {
    if (group_at_[i] >= 0) {
      Group& g = groups_[std::size_t(group_at_[i])];
      tickGroup(g);
      i += g.count;
      continue;
    }
    if (cycle_ >= quiet_until_[i] && !components_[i].idle()) components_[i].tick(cycle_);
    ++i;
  }
  for (auto& f : observers_) f(cycle_);
  transfer_ev_.notify(sc_core::SC_ZERO_TIME);
}

void ClockDomain::transfer() {
  const std::size_t n = components_.size();
  forAwake(0, n, [&](std::size_t i) {
    if (parts_[i] & kHasTransfer) components_[i].transfer(cycle_);
  });
  // Only after every transfer: a later component's transfer may hand work to an earlier one.
  forAwake(0, n, [&](std::size_t i) {
    if (parts_[i] & kHasQuiet) setQuiet(i, components_[i].quiet());
  });
  bool busy = false;
  forAwake(0, n, [&](std::size_t i) {
    busy = busy || ((parts_[i] & kKeepsAwake) && !components_[i].idle());
  });
  if (busy) {
    edge_ev_.notify(period_);
    return;
  }
  sleeping_ = true;
  std::uint64_t next = kNever;
  // The quiet ones: the earliest that wakes by itself (its due() is that cycle).
  while (!waking_.empty() && quiet_until_[waking_.top().second] != waking_.top().first) waking_.pop();
  if (!waking_.empty()) next = waking_.top().first;
  forAwake(0, n, [&](std::size_t i) {
    if (parts_[i] & kHasDue) next = std::min(next, components_[i].due());
  });
  if (next == kNever) return;  // until wake()
  // An edge at `next`; wake() brings an earlier one (an earlier notification replaces a later).
  next = std::max(next, cycle_ + 1);
  edge_ev_.notify(sc_core::sc_time::from_value(next * period_.value()) - sc_core::sc_time_stamp());
}

}  // namespace scgpu
