// An L2 slice as a SystemC block: requests in from the crossbar, responses back to it, and links
// to the DRAM channel(s) behind the slice; ticked by the interconnect clock.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "memsys/address_map.h"
#include "memsys/l2_slice.h"
#include "tlm/clock_domain.h"
#include "tlm/mem_link.h"

namespace scgpu {

class L2Block : public sc_core::sc_module {
 public:
  // What the clock domain ticks (GpuTop adds the blocks of a kind together: ClockDomain::addParallel).
  ClockDomain::Component component();
  // `channels` are the DRAM channels this slice's addresses live in.
  L2Block(sc_core::sc_module_name name, const L2Params& p, std::uint32_t index, std::vector<std::uint32_t> channels,
          const memsys::AddressMap& map, StatsRegistry& stats, ClockDomain& icnt);
  memsys::L2Slice slice;
  MemIn req_in;                                  // from the crossbar
  MemOut resp_out;                               // to the crossbar
  std::vector<std::unique_ptr<MemOut>> dram_out; // one per channel in `channels`
  std::vector<std::unique_ptr<MemIn>> dram_in;   // responses, one link per channel in `channels`
  const std::vector<std::uint32_t>& channels() const { return channels_; }
  // Whether the slice may sleep through the cycles in which only results wait for their latency
  // (on by default; off for an RTL tag stage, waveforms and simulation.skip_stalled_cycles=false).
  void setSkipWaitingCycles(bool skip) { skip_waiting_ = skip; }
  // Its index in the interconnect domain (ClockDomain::addParallel): arrivals wake it there.
  void setComponentIndex(std::size_t index) { component_index_ = index; }

 private:
  void transfer();
  std::vector<std::uint32_t> channels_;
  const memsys::AddressMap& map_;
  ClockDomain& domain_;
  bool skip_waiting_ = true;
  std::size_t component_index_ = ~std::size_t{0};  // until GpuTop sets it: wakes the whole domain
};

}  // namespace scgpu
