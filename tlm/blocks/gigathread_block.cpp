#include "tlm/blocks/gigathread_block.h"

#include <fmt/format.h>

namespace scgpu {

GigaThreadBlock::GigaThreadBlock(sc_core::sc_module_name name, const GigaThreadParams& p, const SmParams& sm,
                                 std::uint32_t sms, StatsRegistry& stats, ClockDomain& core)
    : sc_core::sc_module(name), engine(p, sm, sms, stats, "gpu.gigathread"), pending_(sms), domain_(core) {
  for (std::uint32_t i = 0; i < sms; ++i) {
    dispatch_out.push_back(std::make_unique<LinkOut<BlockDispatch>>(fmt::format("dispatch_out_{}", i).c_str()));
    retired_in.push_back(std::make_unique<LinkIn<BlockRetired>>(
        fmt::format("retired_in_{}", i).c_str(),
        [this](const BlockRetired& r) {
          engine.blockFinished(r.sm, r.kernel, domain_.cycle());
          if (on_retire) on_retire(r.kernel, r.block, r.sm);
          return true;
        },
        [&core] { core.wake(); }));
  }
  core.add({[this](std::uint64_t c) { tick(c); },
            [this] {
              return pending_count_ == 0 && engine.idle();
            },
            [this](std::uint64_t) { transfer(); }});
}

void GigaThreadBlock::tick(std::uint64_t cycle) {
  std::uint64_t block;
  std::uint32_t kernel, sm;
  while (engine.nextDispatch(cycle, &kernel, &block, &sm)) {
    pending_[sm].push_back({kernel, std::uint32_t(block)});
    ++pending_count_;
    if (on_dispatch) on_dispatch(kernel, block, sm);
  }
}

void GigaThreadBlock::transfer() {
  for (std::size_t i = 0; i < pending_.size() && pending_count_; ++i)
    while (!pending_[i].empty() && dispatch_out[i]->ready()) {
      dispatch_out[i]->send(pending_[i].front());
      pending_[i].pop_front();
      --pending_count_;
    }
}

}  // namespace scgpu
