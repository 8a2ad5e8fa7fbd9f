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
};

}  // namespace scgpu
