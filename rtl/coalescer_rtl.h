// The RTL coalescer behind the sm::timing::Coalescer boundary (see coalescer_rtl.cpp).
#pragma once

#include <memory>
#include <string>

#include "sm/timing/coalescer.h"

namespace scgpu::rtl {

// Throws std::invalid_argument when the Verilated model was built with other parameters.
std::unique_ptr<sm::timing::Coalescer> makeRtlCoalescer(const sm::timing::CoalescerParams& params,
                                                        const std::string& instance);

}  // namespace scgpu::rtl
