#include "tlm/blocks/sm_block.h"

namespace scgpu {

SmBlock::SmBlock(sc_core::sc_module_name name, const SmParams& p, std::uint32_t index, StatsRegistry& stats,
                 const std::string& stat_name, ClockDomain& core_domain)
    : sc_core::sc_module(name),
      core(p, index, stats, stat_name),
      to_xbar("to_xbar"),
      from_xbar(
          "from_xbar",
          [this](const memsys::MemRequest& r) {
            core.acceptMemResponse(r, domain_.cycle());
            return true;  // the SM reserved room for every response when it sent the request
          },
          [this] { domain_.wakeComponent(component_index_); }),
      dispatch_in(
          "dispatch_in",
          [this](const BlockDispatch& d) {
            if (!core.canLaunchBlock(d.kernel)) return false;
            core.launchBlock(d.kernel, d.block, domain_.cycle());
            return true;
          },
          [this] { domain_.wakeComponent(component_index_); }),
      retired_out("retired_out"),
      domain_(core_domain),
      index_(index) {
  // A request held by the crossbar (its input is full) blocks the link until the crossbar takes
  // it: the SM need not look at the link before then (see quiet below).
  to_xbar.onRelease([this] { domain_.wakeComponent(component_index_); });
}

ClockDomain::Component SmBlock::component() {
  return {[this](std::uint64_t c) { core.tick(c); },
          // Asleep (nothing can change before a later cycle) counts as idle: the core clock keeps
          // ticking while a kernel runs (GpuTop's monitor), and the SM's next tick accounts the
          // cycles it slept.
          [this] {
            return (core.idle() || core.asleepAt(domain_.cycle())) && !from_xbar.holding() && !dispatch_in.holding();
          },
          [this](std::uint64_t) { transfer(); },
          [this] {
            // Requests or retired blocks still to hand on (the link was busy): the next edge's
            // transfer tries again, without waking the SM.
            if (core.hasMemRequest() || core.hasFinishedBlock()) return domain_.cycle() + 1;
            const std::uint64_t wake = core.idle() ? 0 : core.wakeCycle();
            return wake ? wake : ClockDomain::kNever;
          },
          true,
          [this]() -> std::uint64_t {
            // Quiet while asleep (or without work) with nothing to hand on: only a response or a
            // block (both wake it: wakeComponent) can change that before it wakes. Requests to hand
            // on while the crossbar holds the last one wait for its release (onRelease wakes it):
            // under a long queue of atomics every SM waits so, and looking at each at every edge
            // cost more than the work.
            if (from_xbar.holding() || dispatch_in.holding() || core.hasFinishedBlock()) return 0;
            if (core.hasMemRequest() && !to_xbar.heldByTarget()) return 0;
            return core.idle() ? ClockDomain::kNever : core.wakeCycle();
          }};
}

void SmBlock::transfer() {
  std::uint32_t kernel;
  std::uint64_t block;
  while (retired_out.ready() && core.popFinishedBlock(&kernel, &block))
    retired_out.send({kernel, std::uint32_t(block), index_});
  while (core.hasMemRequest() && to_xbar.ready()) {
    to_xbar.send(core.peekMemRequest());
    core.popMemRequest(domain_.cycle());
  }
  from_xbar.retry();
  dispatch_in.retry();
}

}  // namespace scgpu
