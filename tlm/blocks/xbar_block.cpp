#include "tlm/blocks/xbar_block.h"

#include <string>

namespace scgpu {

XbarBlock::XbarBlock(sc_core::sc_module_name name, const CrossbarParams& p, std::uint32_t sms, std::uint32_t slices,
                     const memsys::AddressMap& map, StatsRegistry& stats, ClockDomain& icnt)
    : sc_core::sc_module(name), xbar(p, sms, slices, map, stats, "gpu.xbar"), domain_(icnt) {
  auto wake = [&icnt] { icnt.wake(); };
  req_held_.holding.assign(sms, 0);
  resp_held_.holding.assign(slices, 0);
  for (std::uint32_t i = 0; i < sms; ++i) {
    req_in.push_back(std::make_unique<MemIn>(
        ("req_in_" + std::to_string(i)).c_str(),
        [this, i](const memsys::MemRequest& r) {
          if (!xbar.canAcceptRequest(i)) {
            req_held_.refused(i);
            return false;
          }
          xbar.acceptRequest(i, r, domain_.cycle());
          return true;
        },
        wake));
    resp_out.push_back(std::make_unique<MemOut>(("resp_out_" + std::to_string(i)).c_str()));
  }
  for (std::uint32_t j = 0; j < slices; ++j) {
    req_out.push_back(std::make_unique<MemOut>(("req_out_" + std::to_string(j)).c_str()));
    resp_in.push_back(std::make_unique<MemIn>(
        ("resp_in_" + std::to_string(j)).c_str(),
        [this, j](const memsys::MemRequest& r) {
          if (!xbar.roomForResponse(j, r, domain_.cycle())) {
            resp_held_.refused(j);
            return false;
          }
          xbar.acceptResponse(j, r, domain_.cycle());
          return true;
        },
        wake));
  }
  icnt.add({[this](std::uint64_t c) { xbar.tick(c); },
            [this] { return xbar.idle() && req_held_.count == 0 && resp_held_.count == 0; },
            [this](std::uint64_t) { transfer(); }});
}

void XbarBlock::transfer() {
  for (std::uint32_t j = xbar.nextRequestSlice(0); j < req_out.size(); j = xbar.nextRequestSlice(j + 1))
    while (xbar.hasRequest(j) && req_out[j]->ready()) {
      req_out[j]->send(xbar.peekRequest(j));
      xbar.popRequest(j);
    }
  for (std::uint32_t i = xbar.nextResponseSm(0); i < resp_out.size(); i = xbar.nextResponseSm(i + 1))
    while (xbar.hasResponse(i) && resp_out[i]->ready()) {
      resp_out[i]->send(xbar.peekResponse(i));
      xbar.popResponse(i);
    }
  req_held_.retryDrained(req_in, [this](std::size_t i) { return xbar.canAcceptRequest(std::uint32_t(i)); },
                         xbar.requestInputsDrained());
  xbar.clearRequestInputsDrained();
  resp_held_.retry(resp_in, [this](std::size_t j) { return xbar.canAcceptResponse(std::uint32_t(j)); },
                   xbar.responseRoomEvents());
}

}  // namespace scgpu
