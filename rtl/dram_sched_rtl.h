// The RTL DRAM command scheduler (rtl/dram_cmd_sched.sv) behind memsys::DramScheduler.
#pragma once

#include <memory>
#include <string>

#include "memsys/dram_scheduler.h"

namespace scgpu::rtl {

// Throws std::invalid_argument when the channel's parameters exceed what the RTL was built for
// (banks, queue depth, rows, timing counter widths), naming the config key and the RTL parameter.
std::unique_ptr<memsys::DramScheduler> makeRtlDramScheduler(const memsys::DramSchedParams& params,
                                                            const std::string& instance);

}  // namespace scgpu::rtl
