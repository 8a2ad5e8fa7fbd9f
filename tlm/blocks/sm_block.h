// The SM as a SystemC block: the plain C++ SmCore, ticked by the core clock domain, with its
// boundary to the crossbar as two TLM links (requests out, responses in) and to the GigaThread
// engine as two more (blocks in, retired blocks out).
#pragma once

#include <systemc>

#include "sm/timing/sm_core.h"
#include "tlm/clock_domain.h"
#include "tlm/mem_link.h"

namespace scgpu {

class SmBlock : public sc_core::sc_module {
 public:
  SmBlock(sc_core::sc_module_name name, const SmParams& p, std::uint32_t index, StatsRegistry& stats,
          const std::string& stat_name, ClockDomain& core);
  std::uint32_t index() const { return index_; }
  // What the core clock domain ticks (GpuTop adds the SMs together, as members that may tick on
  // several host threads: ClockDomain::addParallel); SmCore::commitCycle follows.
  ClockDomain::Component component();
  // Its index in the core domain (ClockDomain::addParallel): arrivals wake it there.
  void setComponentIndex(std::size_t index) { component_index_ = index; }
  sm::SmCore core;
  MemOut to_xbar;    // L1 misses, write-through stores, atomics
  MemIn from_xbar;   // fills and atomic results
  LinkIn<BlockDispatch> dispatch_in;   // blocks to start, from the GigaThread engine
  LinkOut<BlockRetired> retired_out;   // blocks that retired, to the GigaThread engine

 private:
  void transfer();
  ClockDomain& domain_;
  std::uint32_t index_;
  std::size_t component_index_ = ~std::size_t{0};  // until GpuTop sets it: wakes the whole domain
};

}  // namespace scgpu
