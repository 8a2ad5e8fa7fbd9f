// The warp scheduler of one sub-core: given the status of each of its warps this cycle, it picks
// the one to issue. Policies are picked by name (SmParams::scheduler_policy): "lrr" (loose round
// robin), "gto" (greedy then oldest), "two_level". This is the block an RTL arbiter replaces: its
// inputs are the warp list (launch order) and per-warp status, its output one index.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sm/sm_params.h"
#include "sm/timing/stall_reason.h"

namespace scgpu::sm::timing {

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // A warp slot joins (launch order) or leaves the sub-core.
  virtual void add(std::uint32_t slot) = 0;
  virtual void remove(std::uint32_t slot) = 0;
  // warps: the sub-core's live warps in launch order; status: this cycle's status of every warp
  // slot of the SM, indexed by slot. Returns the index in `warps` of the warp to issue (its
  // status is Ready), or -1.
  virtual int pick(const std::vector<std::uint32_t>& warps, const std::vector<Reason>& status) = 0;
  // The warp in `slot` issued.
  virtual void issued(std::uint32_t slot) = 0;
  virtual const char* name() const = 0;

  // Throws std::invalid_argument for an unknown policy.
  static std::unique_ptr<WarpScheduler> make(const SmParams& p);

  // Co-simulation: the first pick on which the RTL differed from the model (empty otherwise).
  // The model's answer is used; the SM stops the run with this as a "cosim divergence" fault.
  virtual const std::string* divergence() const { return nullptr; }

  // rtl-verif, used by cosim only (an implementation that keeps no waveform ignores them):
  // keepWaveform() asks the RTL to keep the window of its last cycles from now on; expect() gives
  // it the model's answer to the pick about to be made (the warp slot, or -1), to show beside its
  // own; writeWaveform() writes the window (stem.fst, stem.gtkw) and returns the report's lines
  // about it ("" when none is kept).
  virtual void keepWaveform() {}
  virtual void expect(int /*model_slot*/) {}
  virtual std::string writeWaveform(const std::string& /*stem*/) { return ""; }
};

// What an implementation of one sub-core's scheduler needs to know.
struct SchedulerParams {
  std::string policy = "gto";           // lrr | gto | two_level
  std::uint32_t sub_cores = 4;          // warp slot s belongs to sub-core s % sub_cores, local index s / sub_cores
  std::uint32_t sub_core = 0;           // which one this is
  std::uint32_t warps_per_sub_core = 16;
  std::uint32_t two_level_active_warps = 8;
};

// The RTL implementation's factory (rtl/warp_sched_arbiter.sv), registered by rtl/ when linked in.
// Throws std::invalid_argument when the RTL cannot honour a parameter.
using WarpSchedulerFactory =
    std::function<std::unique_ptr<WarpScheduler>(const SchedulerParams& params, const std::string& instance)>;
void registerRtlWarpScheduler(WarpSchedulerFactory factory);

// impl: "model" (WarpScheduler::make), "rtl" or "cosim" (both, picks compared every cycle).
std::unique_ptr<WarpScheduler> makeWarpScheduler(const std::string& impl, const SchedulerParams& params,
                                                 const std::string& instance);

}  // namespace scgpu::sm::timing
