// A DRAM channel as a SystemC block: request links in from the L2 slices it serves, response
// links back to them; ticked by the DRAM clock. The controller sees channel-local addresses.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include <systemc>

#include "memsys/address_map.h"
#include "memsys/dram_channel.h"
#include "tlm/clock_domain.h"
#include "tlm/mem_link.h"

namespace scgpu {

class DramBlock : public sc_core::sc_module {
 public:
  // What the clock domain ticks (GpuTop adds the blocks of a kind together: ClockDomain::addParallel).
  ClockDomain::Component component();
  // Its index in the DRAM domain (ClockDomain::addParallel): arrivals wake it there.
  void setComponentIndex(std::size_t index) { component_index_ = index; }
  // Whether the channel may sleep until its next event (DramChannel::nextEvent) while busy (on by
  // default; off for waveforms, which show each cycle's command, and
  // simulation.skip_stalled_cycles=false).
  void setSkipQuietCycles(bool skip) { skip_quiet_ = skip; }
  DramBlock(sc_core::sc_module_name name, const DramParams& p, std::uint32_t index, std::uint32_t ports,
            const memsys::AddressMap& map, StatsRegistry& stats, ClockDomain& dram);
  memsys::DramChannel channel;
  std::vector<std::unique_ptr<MemIn>> req_in;    // from slice port i
  std::vector<std::unique_ptr<MemOut>> resp_out; // to slice port i

 private:
  void transfer();
  // Where a response goes back to, by the controller-side id.
  struct Origin {
    std::uint32_t port;
    std::uint64_t id;    // the initiator's id
    std::uint64_t addr;  // the global address
  };
  std::map<std::uint64_t, Origin> origins_;
  std::uint64_t next_id_ = 1;
  const memsys::AddressMap& map_;
  ClockDomain& domain_;
  bool skip_quiet_ = true;
  std::size_t component_index_ = ~std::size_t{0};  // until GpuTop sets it: wakes the whole domain
};

}  // namespace scgpu
