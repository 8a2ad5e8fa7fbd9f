// The functional mode: runs every block of a launch to completion, warp by warp, with no notion
// of time. Blocks run one after another; the warps of a block take turns until each exits or
// waits at a barrier. A cooperative launch's blocks (which may wait for each other in grid.sync())
// are all started and take turns instead. The timing model drives the same per-warp step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sm/fault.h"
#include "sm/launch_state.h"
#include "sm/simt.h"

namespace scgpu::sm {

struct LaunchResult {
  std::optional<FaultReport> fault;
  std::uint64_t warp_instructions = 0;
  std::uint64_t thread_instructions = 0;
  std::uint64_t blocks = 0;
};

struct EngineLimits {
  // Warp instructions one block may execute before the watchdog declares it hung.
  std::uint64_t watchdog_warp_instructions_per_block = 1'000'000'000ull;
  // Instructions a warp runs before the next warp of its block gets a turn.
  std::uint32_t quantum = 256;
  // Warp instructions the whole launch may execute (limits.warp_instructions_per_launch) before it
  // stops with a "timeout" fault, as cudaErrorLaunchTimeout: bounds a grid of many blocks that
  // each stay under the per-block watchdog. Checked between turns, so a launch may run over it
  // by at most one turn of each warp of a block.
  std::uint64_t warp_instructions_per_launch = 10'000'000'000ull;
};

class FunctionalEngine {
 public:
  explicit FunctionalEngine(EngineLimits limits = {}) : limits_(limits) {}
  LaunchResult run(LaunchState& launch);

  // Executes one instruction of warp `w` (which must be Ready). Throws FaultSignal on a fault.
  static void step(ExecContext& c, Warp& w);

 private:
  struct BlockRun;
  void startBlock(LaunchState& launch, std::uint64_t linear_block, BlockRun& run, LaunchResult& result,
                  BlockStart start = BlockStart::Fresh);
  // One turn: each ready warp of the block runs up to a quantum. False when the block has ended
  // (every warp exited) or stopped (a fault, a limit; the report is in `result`).
  bool turn(LaunchState& launch, BlockRun& run, std::uint64_t& launch_warp_instructions, LaunchResult& result);
  // Adds the block's instructions to the result (and takes it out of its cluster).
  void finishBlock(LaunchState& launch, BlockRun& run, LaunchResult& result);
  // Turns of the given blocks until all have ended (or a fault, or a cluster barrier nothing can
  // complete); then ends those left.
  void takeTurns(LaunchState& launch, std::vector<std::unique_ptr<BlockRun>>& runs, std::uint64_t& launch_total,
                 LaunchResult& result);
  LaunchResult runClusters(LaunchState& launch, LaunchResult& result, std::uint64_t& launch_total);

  EngineLimits limits_;
};

// Fills the where-fields of a fault report from a warp and PC.
FaultReport makeFaultReport(const FaultSignal& s, const LaunchState& launch, const BlockState& block,
                            const Warp& w, std::uint32_t pc);

}  // namespace scgpu::sm
