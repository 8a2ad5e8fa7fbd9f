// The product's RTL warp-scheduler arbiter: one Verilated build of rtl/warp_sched_arbiter.sv per
// policy (POLICY is a parameter), picked by the config's sm.scheduler_policy.
#include "rtl/warp_sched_rtl.h"

#include <fmt/format.h>

#include <stdexcept>

#include "Vwarp_sched_gto.h"
#include "Vwarp_sched_gto_wave.h"
#include "Vwarp_sched_gto_16.h"
#include "Vwarp_sched_gto_16_wave.h"
#include "Vwarp_sched_lrr.h"
#include "Vwarp_sched_lrr_wave.h"
#include "Vwarp_sched_lrr_16.h"
#include "Vwarp_sched_lrr_16_wave.h"
#include "Vwarp_sched_two_level.h"
#include "Vwarp_sched_two_level_wave.h"
#include "Vwarp_sched_two_level_16.h"
#include "Vwarp_sched_two_level_16_wave.h"
#include "rtl/rtl_params.h"
#include "rtl/warp_sched_transactor.h"

namespace scgpu::rtl {

std::unique_ptr<sm::timing::WarpScheduler> makeRtlWarpScheduler(const sm::timing::SchedulerParams& p,
                                                                const std::string& instance) {
  if (p.warps_per_sub_core > kSchedulerWarps)
    throw std::invalid_argument(fmt::format("{}: sm.max_warps_per_sm / sm.sub_cores = {} warps per scheduler, but the "
                                            "RTL arbiter (rtl/warp_sched_arbiter.sv) was built with NUM_WARPS = {}",
                                            instance, p.warps_per_sub_core, kSchedulerWarps));
  // The 16-warp build where it suffices: a quarter of the selection logic to evaluate per pick.
  const bool small = p.warps_per_sub_core <= 16;
  if (small && p.policy == "lrr") return std::make_unique<WarpSchedTransactor<Vwarp_sched_lrr_16, Vwarp_sched_lrr_16_wave>>(p, "lrr");
  if (small && p.policy == "gto") return std::make_unique<WarpSchedTransactor<Vwarp_sched_gto_16, Vwarp_sched_gto_16_wave>>(p, "gto");
  if (small && p.policy == "two_level")
    return std::make_unique<WarpSchedTransactor<Vwarp_sched_two_level_16, Vwarp_sched_two_level_16_wave>>(p, "two_level");
  if (p.policy == "lrr") return std::make_unique<WarpSchedTransactor<Vwarp_sched_lrr, Vwarp_sched_lrr_wave>>(p, "lrr");
  if (p.policy == "gto") return std::make_unique<WarpSchedTransactor<Vwarp_sched_gto, Vwarp_sched_gto_wave>>(p, "gto");
  if (p.policy == "two_level")
    return std::make_unique<WarpSchedTransactor<Vwarp_sched_two_level, Vwarp_sched_two_level_wave>>(p, "two_level");
  throw std::invalid_argument(fmt::format("sm.scheduler_policy = '{}' has no RTL build (lrr, gto, two_level)",
                                          p.policy));
}

}  // namespace scgpu::rtl
