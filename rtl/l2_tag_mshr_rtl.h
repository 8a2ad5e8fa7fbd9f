// The RTL L2 tag/MSHR stage (rtl/l2_tag_mshr.sv) behind memsys::L2TagMshr.
#pragma once

#include <memory>
#include <string>

#include "memsys/l2_tag_mshr.h"

namespace scgpu::rtl {

// Throws std::invalid_argument when the slice's geometry exceeds what the RTL was built for.
std::unique_ptr<memsys::L2TagMshr> makeRtlL2TagMshr(const memsys::L2TagParams& params, const std::string& instance);

}  // namespace scgpu::rtl
