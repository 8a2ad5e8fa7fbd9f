// The transactor of the warp-scheduler arbiter: the WarpScheduler boundary (sm/timing/
// warp_scheduler.h) turned into the pins of rtl/warp_sched_arbiter.sv and back, for any Verilated
// build of the block (one per policy). Each call of the boundary is one RTL clock: add and remove
// pulse their valid for a cycle; a pick drives the ready and parked masks, reads the grant
// combinationally and commits it with the clock edge. Warp slots map to the RTL's local indices
// as the SM maps them to sub-cores: slot = local * sub_cores + sub_core.
#pragma once

#include <fmt/format.h>
#include "rtl/verilated_block.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sm/timing/warp_scheduler.h"

namespace scgpu::rtl {

template <typename Model>
class WarpSchedTransactor : public sm::timing::WarpScheduler {
 public:
  WarpSchedTransactor(const sm::timing::SchedulerParams& p, std::string policy_name)
      : top_("warp_sched_arbiter"), p_(p), policy_(std::move(policy_name)) {
    top_->clk = 0;
    top_->rst_n = 0;
    top_->cfg_active = std::max<std::uint32_t>(p.two_level_active_warps, 1);
    top_->add_valid = top_->remove_valid = top_->pick_valid = 0;
    top_->ready = top_->parked = 0;
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->eval();
  }

  void add(std::uint32_t slot) override {
    top_->add_valid = 1;
    top_->add_idx = local(slot);
    tick();
    top_->add_valid = 0;
  }
  void remove(std::uint32_t slot) override {
    top_->remove_valid = 1;
    top_->remove_idx = local(slot);
    tick();
    top_->remove_valid = 0;
  }
  int pick(const std::vector<std::uint32_t>& warps, const std::vector<sm::timing::Reason>& status) override {
    std::uint64_t ready = 0, parked = 0;
    for (std::uint32_t s : warps) {
      const sm::timing::Reason r = status[s];
      if (r == sm::timing::Reason::Ready) ready |= std::uint64_t(1) << local(s);
      if (r == sm::timing::Reason::LongScoreboard || r == sm::timing::Reason::Barrier)
        parked |= std::uint64_t(1) << local(s);
    }
    top_->ready = ready;
    top_->parked = parked;
    top_->pick_valid = 1;
    top_->eval();
    const bool valid = top_->grant_valid;
    const std::uint32_t slot = std::uint32_t(top_->grant_idx) * p_.sub_cores + p_.sub_core;
    tick();
    top_->pick_valid = 0;
    if (!valid) return -1;
    for (std::size_t i = 0; i < warps.size(); ++i)
      if (warps[i] == slot) return int(i);
    return -1;  // a grant to a warp that is not live: reported by cosim as a wrong answer
  }
  void issued(std::uint32_t) override {}  // the pick's clock edge committed it
  const char* name() const override { return policy_.c_str(); }

 private:
  std::uint32_t local(std::uint32_t slot) const { return slot / p_.sub_cores; }
  void tick() { top_.tick(); }
  VerilatedBlock<Model> top_;
  sm::timing::SchedulerParams p_;
  std::string policy_;
};

}  // namespace scgpu::rtl
