// The warp scheduler of one sub-core: given the status of each of its warps this cycle, it picks
// the one to issue. Policies are picked by name (SmParams::scheduler_policy): "lrr" (loose round
// robin), "gto" (greedy then oldest), "two_level". This is the block an RTL arbiter replaces: its
// inputs are the warp list (launch order) and per-warp status, its output one index.
#pragma once

#include <cstdint>
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
};

}  // namespace scgpu::sm::timing
