#include "tlm/blocks/l2_block.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace scgpu {

L2Block::L2Block(sc_core::sc_module_name name, const L2Params& p, std::uint32_t index,
                 std::vector<std::uint32_t> channels, const memsys::AddressMap& map, StatsRegistry& stats,
                 ClockDomain& icnt)
    : sc_core::sc_module(name),
      slice(p, index, stats, fmt::format("gpu.l2[{}]", index)),
      req_in(
          "req_in",
          [this](const memsys::MemRequest& r) {
            if (!slice.canAccept()) return false;
            slice.accept(r, domain_.cycle());
            return true;
          },
          [this] { domain_.wakeComponent(component_index_); }),
      resp_out("resp_out"),
      channels_(std::move(channels)),
      map_(map),
      domain_(icnt) {
  for (std::uint32_t c : channels_) {
    dram_out.push_back(std::make_unique<MemOut>(fmt::format("dram_out_{}", c).c_str()));
    dram_in.push_back(std::make_unique<MemIn>(
        fmt::format("dram_in_{}", c).c_str(),
        [this](const memsys::MemRequest& r) {
          slice.acceptDramResponse(r, domain_.cycle());
          return true;  // MSHRs reserved room for every fill
        },
        [this] { domain_.wakeComponent(component_index_); }));
  }
}

ClockDomain::Component L2Block::component() {
  auto waiting = [this] {
    return skip_waiting_ && slice.onlyWaiting() && !req_in.holding() && slice.nextResult() > domain_.cycle();
  };
  return {[this](std::uint64_t c) { slice.tick(c); },
          [this, waiting] { return (slice.idle() && !req_in.holding()) || waiting(); },
          [this](std::uint64_t) { transfer(); },
          [this, waiting] { return waiting() ? slice.nextResult() : ClockDomain::kNever; },
          true,
          [this]() -> std::uint64_t {
            // Quiet while it has nothing to hand on and no work, or only results waiting out
            // their latency: a request or a fill (both wake it: wakeComponent) can change that.
            if (req_in.holding() || slice.hasResponse() || slice.hasDramRequest()) return 0;
            if (slice.idle()) return ClockDomain::kNever;
            return skip_waiting_ && slice.onlyWaiting() ? slice.nextResult() : 0;
          }};
}

void L2Block::transfer() {
  while (slice.hasResponse() && resp_out.ready()) {
    resp_out.send(slice.peekResponse());
    slice.popResponse();
  }
  while (slice.hasDramRequest()) {
    const memsys::MemRequest& r = slice.peekDramRequest();
    const std::uint32_t ch = map_.channelOf(r.addr);
    auto it = std::find(channels_.begin(), channels_.end(), ch);
    sc_assert(it != channels_.end());  // the address map sends a slice's lines to its channels only
    MemOut& out = *dram_out[std::size_t(it - channels_.begin())];
    if (!out.ready()) break;  // in order: a blocked channel holds the slice's DRAM queue
    out.send(r);
    slice.popDramRequest();
  }
  req_in.retry();
}

}  // namespace scgpu
