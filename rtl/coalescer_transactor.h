// The transactor of the LSU coalescer: the Coalescer boundary (sm/timing/coalescer.h) turned into
// the pins of rtl/lsu_coalescer.sv and back, for any Verilated build of the block (the product's,
// or a test's copy with a planted bug). One access is one handshake on `in`, then lines are taken
// from `out` until out_last; the Verilated model is clocked by this code (no SystemC signals), as
// many RTL cycles as the access needs: the model's coalescing takes no simulated time, and the
// RTL's pipelining is internal to the block.
#pragma once

#include <fmt/format.h>
#include "rtl/verilated_block.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sm/timing/coalescer.h"

namespace scgpu::rtl {

template <typename Model>
class CoalescerTransactor : public sm::timing::Coalescer {
 public:
  explicit CoalescerTransactor(const std::string& instance)
      : top_("lsu_coalescer"), instance_(instance) {
    top_->clk = 0;
    top_->rst_n = 0;
    top_->in_valid = 0;
    top_->out_ready = 0;
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->eval();
  }
  const char* implName() const override { return "rtl"; }

  void coalesce(const sm::timing::LaneAccesses& in, std::vector<sm::timing::LineAccess>& out) override {
    // Wait for in_ready (the block is idle between accesses, so this is at most a few cycles).
    for (int guard = 0; !top_->in_ready; ++guard) {
      if (guard > kMaxCycles) stuck("in_ready");
      tick();
    }
    top_->in_valid = 1;
    top_->in_mask = in.mask;
    top_->in_bytes = in.bytes & 0x1F;
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint64_t a = (in.mask >> lane) & 1 ? in.addr[lane] : 0;
      top_->in_addr[2 * lane] = std::uint32_t(a);
      top_->in_addr[2 * lane + 1] = std::uint32_t(a >> 32);
    }
    top_->eval();
    tick();  // the access is taken
    top_->in_valid = 0;
    top_->out_ready = 1;
    top_->eval();
    for (int guard = 0;; ++guard) {
      if (guard > kMaxCycles) stuck("out_last");
      if (top_->out_valid) {
        out.push_back(sm::timing::LineAccess{top_->out_line, top_->out_sectors});
        const bool last = top_->out_last;
        tick();
        if (last) break;
      } else if (top_->in_ready) {
        break;  // no active lane: nothing to send
      } else {
        tick();
      }
    }
    top_->out_ready = 0;
    top_->eval();
  }

  // RTL clock cycles run so far (reset included).
  std::uint64_t cycles() const { return top_.cycles(); }

 private:
  void tick() { top_.tick(); }
  [[noreturn]] void stuck(const char* what) const {
    throw std::runtime_error(fmt::format("{} (rtl/lsu_coalescer.sv): no {} within {} RTL cycles", instance_, what,
                                         kMaxCycles));
  }
  static constexpr int kMaxCycles = 1000;  // an access takes at most 2 + 64 cycles
  VerilatedBlock<Model> top_;
  std::string instance_;
};

}  // namespace scgpu::rtl
