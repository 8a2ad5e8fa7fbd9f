// The GigaThread engine as a SystemC block: it hands thread blocks to the SMs over one dispatch
// link per SM and hears back over one retirement link per SM; ticked by the core clock.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>

#include "tlm/clock_domain.h"
#include "tlm/gigathread.h"
#include "tlm/mem_link.h"

namespace scgpu {

class GigaThreadBlock : public sc_core::sc_module {
 public:
  GigaThreadBlock(sc_core::sc_module_name name, const GigaThreadParams& p, const SmParams& sm, std::uint32_t sms,
                  StatsRegistry& stats, ClockDomain& core);
  GigaThread engine;
  std::vector<std::unique_ptr<LinkOut<BlockDispatch>>> dispatch_out;  // to SM i
  std::vector<std::unique_ptr<LinkIn<BlockRetired>>> retired_in;      // from SM i
  // Observers for the timeline: a block of a kernel handed to an SM, a block retired.
  std::function<void(std::uint32_t kernel, std::uint64_t block, std::uint32_t sm)> on_dispatch, on_retire;

 private:
  void tick(std::uint64_t cycle);
  void transfer();
  std::vector<std::deque<BlockDispatch>> pending_;  // decided dispatches waiting for their link
  std::size_t pending_count_ = 0;  // their number: most cycles none wait, and 132 queues are not looked at
  ClockDomain& domain_;
};

}  // namespace scgpu
