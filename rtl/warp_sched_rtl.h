// The RTL warp-scheduler arbiter behind the sm::timing::WarpScheduler boundary.
#pragma once

#include <memory>
#include <string>

#include "sm/timing/warp_scheduler.h"

namespace scgpu::rtl {

// The Verilated build for params.policy; throws std::invalid_argument when the RTL cannot honour
// a parameter (more warps per sub-core than it was built for).
std::unique_ptr<sm::timing::WarpScheduler> makeRtlWarpScheduler(const sm::timing::SchedulerParams& params,
                                                                const std::string& instance);

}  // namespace scgpu::rtl
