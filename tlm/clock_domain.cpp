#include "tlm/clock_domain.h"

#include <cmath>

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

void ClockDomain::add(Component c) {
  components_.push_back(std::move(c));
  active_.push_back(0);
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
  cycle_ = sc_core::sc_time_stamp().value() / period_.value();
  ++ticks_;
  for (std::size_t i = 0; i < components_.size(); ++i) {
    active_[i] = !components_[i].idle();
    if (active_[i]) components_[i].tick(cycle_);
  }
  for (auto& f : observers_) f(cycle_);
  transfer_ev_.notify(sc_core::SC_ZERO_TIME);
}

void ClockDomain::transfer() {
  for (auto& c : components_)
    if (c.transfer) c.transfer(cycle_);
  // Only after every transfer: a later component's transfer may hand work to an earlier one.
  bool busy = false;
  for (auto& c : components_) busy = busy || !c.idle();
  if (busy) {
    edge_ev_.notify(period_);
  } else {
    sleeping_ = true;
  }
}

}  // namespace scgpu
