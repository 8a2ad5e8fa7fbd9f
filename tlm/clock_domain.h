// A clock domain: one clocked process that ticks the plain C++ components of the domain in a
// fixed order, skipping those that report idle, followed (one delta cycle later) by a transfer
// step that moves their outputs across the TLM links. Because every domain evaluates at an edge
// before any transfer at that time happens, what crosses a link at time T is seen by the receiver
// at its first edge after T, whatever the order SystemC runs processes in: the model is
// deterministic. When every component is idle the domain sleeps until wake() (work arrived) and
// costs nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

namespace scgpu {

class ClockDomain : public sc_core::sc_module {
 public:
  ClockDomain(sc_core::sc_module_name name, double clock_mhz);

  struct Component {
    std::function<void(std::uint64_t cycle)> tick;
    std::function<bool()> idle;
    std::function<void(std::uint64_t cycle)> transfer;  // may be empty
  };
  // Components tick in the order they were added.
  void add(Component c);

  // Called at every edge the domain evaluates, after its components ticked (tracing); an
  // observer never keeps the domain awake.
  void observe(std::function<void(std::uint64_t cycle)> f) { observers_.push_back(std::move(f)); }

  // Work arrived for a component of this domain: resume ticking at the next edge.
  void wake();
  // The cycle in progress at the current simulated time (the last edge at or before now), also
  // while the domain sleeps: what arrives now is stamped with it and handled at the next edge.
  std::uint64_t cycle() const { return sc_core::sc_time_stamp().value() / period_.value(); }
  const sc_core::sc_time& period() const { return period_; }
  double clockMhz() const { return mhz_; }
  std::uint64_t ticks() const { return ticks_; }   // edges actually evaluated (skipped ones excluded)
  bool sleeping() const { return sleeping_; }

 private:
  void evaluate();
  void transfer();
  std::uint64_t edgeIndexAfter(const sc_core::sc_time& t) const;

  double mhz_;
  sc_core::sc_time period_;
  std::vector<Component> components_;
  std::vector<std::function<void(std::uint64_t)>> observers_;
  std::vector<char> active_;
  sc_core::sc_event edge_ev_, transfer_ev_;
  std::uint64_t cycle_ = 0, ticks_ = 0;
  bool sleeping_ = true;
};

}  // namespace scgpu
