// The transactor of the crossbar switch allocator: memsys::CrossbarArbiter's calls as pin activity
// on rtl/xbar_arbiter.sv (one Verilated build per policy: ROUND_ROBIN is a parameter). A grant is
// combinational (drive grant_valid, grant_out and req, evaluate, read gnt); done is one clock with
// done_valid, which moves the output's pointer. Registered as the "rtl" implementation by
// registrations.cpp.
#include "rtl/xbar_arbiter_rtl.h"

#include <fmt/format.h>
#include "rtl/verilated_block.h"

#include <stdexcept>

#include "Vxbar_arbiter_fixed.h"
#include "Vxbar_arbiter_rr.h"
#include "rtl/rtl_params.h"

namespace scgpu::rtl {
namespace {

template <typename Model>
class XbarArbiterTransactor : public memsys::CrossbarArbiter {
 public:
  XbarArbiterTransactor() : top_("xbar_arbiter") {
    top_->clk = 0;
    top_->rst_n = 0;
    top_->grant_valid = top_->done_valid = 0;
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->eval();
  }

  std::uint32_t grant(std::uint32_t output, const std::vector<std::uint64_t>& requests, std::uint64_t) override {
    top_->grant_valid = 1;
    top_->grant_out = output;
    for (std::size_t w = 0; w < kXbarPorts / 64; ++w) {
      const std::uint64_t v = w < requests.size() ? requests[w] : 0;
      top_->req[2 * w] = std::uint32_t(v);
      top_->req[2 * w + 1] = std::uint32_t(v >> 32);
    }
    top_->eval();
    const std::uint32_t g = top_->gnt_valid ? std::uint32_t(top_->gnt_idx) : kNone;
    top_->grant_valid = 0;
    return g;
  }
  void done(std::uint32_t output, std::uint32_t input) override {
    top_->done_valid = 1;
    top_->done_out = output;
    top_->done_in = input;
    tick();
    top_->done_valid = 0;
    top_->eval();
  }

 private:
  void tick() { top_.tick(); }
  VerilatedBlock<Model> top_;
};

}  // namespace

std::unique_ptr<memsys::CrossbarArbiter> makeRtlCrossbarArbiter(const memsys::ArbiterParams& p,
                                                                const std::string& instance) {
  if (p.inputs > kXbarPorts || p.outputs > kXbarPorts)
    throw std::invalid_argument(fmt::format("{}: {} inputs and {} outputs (sm.count and l2.slices), but the RTL switch "
                                            "allocator (rtl/xbar_arbiter.sv) was built with N_IN = N_OUT = {}",
                                            instance, p.inputs, p.outputs, kXbarPorts));
  if (p.round_robin) return std::make_unique<XbarArbiterTransactor<Vxbar_arbiter_rr>>();
  return std::make_unique<XbarArbiterTransactor<Vxbar_arbiter_fixed>>();
}

}  // namespace scgpu::rtl
