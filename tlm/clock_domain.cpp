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
  components_.push_back(std::move(c));
  active_.push_back(0);
  group_at_.push_back(-1);
  quiet_until_.push_back(0);
  return components_.size() - 1;
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
  for (std::size_t i = g.first; i < g.first + g.count; ++i) {
    active_[i] = cycle_ >= quiet_until_[i] && !components_[i].idle();
    if (active_[i]) ready_.push_back(i - g.first);
  }
  Component* members = &components_[g.first];
  if (threads_ && leader_) threads_->leaderTick();
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
  for (std::size_t i = 0; i < components_.size();) {
    if (group_at_[i] >= 0) {
      Group& g = groups_[std::size_t(group_at_[i])];
      tickGroup(g);
      i += g.count;
      continue;
    }
    active_[i] = cycle_ >= quiet_until_[i] && !components_[i].idle();
    if (active_[i]) components_[i].tick(cycle_);
    ++i;
  }
  for (auto& f : observers_) f(cycle_);
  transfer_ev_.notify(sc_core::SC_ZERO_TIME);
}

void ClockDomain::transfer() {
  const std::size_t n = components_.size();
  for (std::size_t i = 0; i < n; ++i)
    if (components_[i].transfer && cycle_ >= quiet_until_[i]) components_[i].transfer(cycle_);
  // Only after every transfer: a later component's transfer may hand work to an earlier one.
  for (std::size_t i = 0; i < n; ++i)
    if (components_[i].quiet && cycle_ >= quiet_until_[i]) quiet_until_[i] = components_[i].quiet();
  bool busy = false;
  for (std::size_t i = 0; i < n && !busy; ++i)
    busy = components_[i].keeps_awake && quiet_until_[i] <= cycle_ && !components_[i].idle();
  if (busy) {
    edge_ev_.notify(period_);
    return;
  }
  sleeping_ = true;
  std::uint64_t next = kNever;
  for (std::size_t i = 0; i < n; ++i) {
    if (quiet_until_[i] > cycle_)
      next = std::min(next, quiet_until_[i]);  // quiet: its due() is that cycle (or kNever)
    else if (components_[i].due)
      next = std::min(next, components_[i].due());
  }
  if (next == kNever) return;  // until wake()
  // An edge at `next`; wake() brings an earlier one (an earlier notification replaces a later).
  next = std::max(next, cycle_ + 1);
  edge_ev_.notify(sc_core::sc_time::from_value(next * period_.value()) - sc_core::sc_time_stamp());
}

}  // namespace scgpu
