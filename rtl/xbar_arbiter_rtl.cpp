// The product's RTL crossbar switch allocator: one Verilated build of rtl/xbar_arbiter.sv per policy
// (ROUND_ROBIN is a parameter) behind its transactor (xbar_arbiter_transactor.h), with the check of
// the network's port counts. Registered as the "rtl" implementation by registrations.cpp.
#include "rtl/xbar_arbiter_rtl.h"

#include <fmt/format.h>

#include <stdexcept>

#include "Vxbar_arbiter_fixed.h"
#include "Vxbar_arbiter_fixed_wave.h"
#include "Vxbar_arbiter_rr.h"
#include "Vxbar_arbiter_rr_wave.h"
#include "rtl/rtl_params.h"
#include "rtl/xbar_arbiter_transactor.h"

namespace scgpu::rtl {

std::unique_ptr<memsys::CrossbarArbiter> makeRtlCrossbarArbiter(const memsys::ArbiterParams& p,
                                                                const std::string& instance) {
  if (p.inputs > kXbarPorts || p.outputs > kXbarPorts)
    throw std::invalid_argument(fmt::format("{}: {} inputs and {} outputs (sm.count and l2.slices), but the RTL switch "
                                            "allocator (rtl/xbar_arbiter.sv) was built with N_IN = N_OUT = {}",
                                            instance, p.inputs, p.outputs, kXbarPorts));
  if (p.round_robin) return std::make_unique<XbarArbiterTransactor<Vxbar_arbiter_rr, Vxbar_arbiter_rr_wave>>();
  return std::make_unique<XbarArbiterTransactor<Vxbar_arbiter_fixed, Vxbar_arbiter_fixed_wave>>();
}

}  // namespace scgpu::rtl
