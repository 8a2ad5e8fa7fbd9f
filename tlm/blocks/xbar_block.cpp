#include "tlm/blocks/xbar_block.h"

#include <string>

namespace scgpu {

XbarBlock::XbarBlock(sc_core::sc_module_name name, const CrossbarParams& p, std::uint32_t sms, std::uint32_t slices,
                     const memsys::AddressMap& map, StatsRegistry& stats, ClockDomain& icnt)
    : sc_core::sc_module(name), xbar(p, sms, slices, map, stats, "gpu.xbar"), domain_(icnt) {
  auto wake = [&icnt] { icnt.wake(); };
  req_holding_.assign(sms, 0);
  resp_holding_.assign(slices, 0);
  for (std::uint32_t i = 0; i < sms; ++i) {
    req_in.push_back(std::make_unique<MemIn>(
        ("req_in_" + std::to_string(i)).c_str(),
        [this, i](const memsys::MemRequest& r) {
          if (!xbar.canAcceptRequest(i)) {
            if (!req_holding_[i]) ++req_held_;
            req_holding_[i] = 1;
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
          if (!xbar.canAcceptResponse(j)) {
            if (!resp_holding_[j]) ++resp_held_;
            resp_holding_[j] = 1;
            return false;
          }
          xbar.acceptResponse(j, r, domain_.cycle());
          return true;
        },
        wake));
  }
  icnt.add({[this](std::uint64_t c) { xbar.tick(c); },
            [this] { return xbar.idle() && req_held_ == 0 && resp_held_ == 0; },
            [this](std::uint64_t) { transfer(); }});
}

void XbarBlock::transfer() {
  for (std::uint32_t j = 0; j < req_out.size() && xbar.anyRequest(); ++j)
    while (xbar.hasRequest(j) && req_out[j]->ready()) {
      req_out[j]->send(xbar.peekRequest(j));
      xbar.popRequest(j);
    }
  for (std::uint32_t i = 0; i < resp_out.size() && xbar.anyResponse(); ++i)
    while (xbar.hasResponse(i) && resp_out[i]->ready()) {
      resp_out[i]->send(xbar.peekResponse(i));
      xbar.popResponse(i);
    }
  // Retries in input order, as when every link was asked.
  auto retry = [](auto& inputs, std::vector<char>& holding, std::uint32_t& held) {
    for (std::size_t i = 0; i < inputs.size() && held; ++i) {
      if (!holding[i]) continue;
      inputs[i]->retry();
      if (!inputs[i]->holding()) {
        holding[i] = 0;
        --held;
      }
    }
  };
  retry(req_in, req_holding_, req_held_);
  retry(resp_in, resp_holding_, resp_held_);
}

}  // namespace scgpu
