#include "tlm/blocks/dram_block.h"

#include <fmt/format.h>

namespace scgpu {

DramBlock::DramBlock(sc_core::sc_module_name name, const DramParams& p, std::uint32_t index, std::uint32_t ports,
                     const memsys::AddressMap& map, StatsRegistry& stats, ClockDomain& dram)
    : sc_core::sc_module(name), channel(p, index, stats, fmt::format("gpu.dram[{}]", index)), map_(map), domain_(dram) {
  for (std::uint32_t i = 0; i < ports; ++i) {
    req_in.push_back(std::make_unique<MemIn>(
        fmt::format("req_in_{}", i).c_str(),
        [this, i](const memsys::MemRequest& r) {
          // The controller sees a dense channel-local address and an id of its own; the
          // response gets the initiator's id and global address back.
          memsys::MemRequest local = r;
          local.addr = map_.channelLocal(r.addr);
          local.id = next_id_;
          // A busy channel that slept through its quiet cycles is where ticking every cycle would
          // have left it (an idle one is not ticked either way: accept() runs its skipped cycles).
          if (skip_quiet_ && !channel.idle()) channel.catchUp(domain_.cycle());
          if (!channel.canAccept(local)) return false;
          channel.accept(local, domain_.cycle());
          if (r.needs_response) origins_[next_id_] = {i, r.id, r.addr};
          ++next_id_;
          return true;
        },
        [this] { domain_.wakeComponent(component_index_); }));
    resp_out.push_back(std::make_unique<MemOut>(fmt::format("resp_out_{}", i).c_str()));
  }
}

ClockDomain::Component DramBlock::component() {
  // catchUp, not tick: the chip may have caught the channel up to this edge already (a kernel
  // ended or a sample was taken at this time, before the domain evaluated it).
  return {[this](std::uint64_t c) { channel.catchUp(c); },
          [this] {
            if (!channel.idle()) return false;
            for (auto& in : req_in)
              if (in->holding()) return false;
            return true;
          },
          [this](std::uint64_t) { transfer(); },
          {},
          true,
          [this]() -> std::uint64_t {
            // Quiet until a command may issue or a response is due, with nothing to hand on: a
            // request (it wakes the channel: wakeComponent) can change that.
            if (channel.hasResponse()) return 0;
            for (auto& in : req_in)
              if (in->holding()) return 0;
            if (channel.idle()) return ClockDomain::kNever;
            return skip_quiet_ ? channel.nextEvent() : 0;
          }};
}

void DramBlock::transfer() {
  while (channel.hasResponse()) {
    const memsys::MemRequest& local = channel.peekResponse();
    auto it = origins_.find(local.id);
    sc_assert(it != origins_.end());
    MemOut& out = *resp_out[it->second.port];
    if (!out.ready()) break;
    memsys::MemRequest r = local;
    r.id = it->second.id;
    r.addr = it->second.addr;
    out.send(r);
    origins_.erase(it);
    channel.popResponse();
  }
  for (auto& in : req_in) in->retry();
}

}  // namespace scgpu
