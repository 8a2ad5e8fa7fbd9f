// The RTL crossbar switch allocator (rtl/xbar_arbiter.sv) behind memsys::CrossbarArbiter.
#pragma once

#include <memory>
#include <string>

#include "memsys/crossbar_arbiter.h"

namespace scgpu::rtl {

// Throws std::invalid_argument when the network has more ports than the RTL was built for.
std::unique_ptr<memsys::CrossbarArbiter> makeRtlCrossbarArbiter(const memsys::ArbiterParams& params,
                                                                const std::string& instance);

}  // namespace scgpu::rtl
