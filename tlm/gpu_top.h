// The chip: one SystemC module per block (GigaThread engine, SMs, crossbar, L2 slices, DRAM
// channels), composed from a GpuParams, with one clock domain each for the cores, the
// interconnect with L2, and DRAM. A kernel runs by simulating until its last block retires (or a
// fault or the watchdog stops it). A process holds at most one GpuTop: SystemC elaborates once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "memsys/address_map.h"
#include "memsys/backing_store.h"
#include "sm/fault.h"
#include "sm/launch_state.h"
#include "sm/occupancy.h"
#include "tlm/chip_probes.h"
#include "tlm/clock_domain.h"
#include "tlm/gpu_params.h"
#include "base/stats.h"

namespace scgpu {

class SmBlock;
class XbarBlock;
class L2Block;
class DramBlock;
class GigaThreadBlock;

struct KernelRun {
  std::optional<sm::FaultReport> fault;
  std::uint64_t core_cycles = 0;         // from launch to the last block's retirement
  double simulated_ns = 0;
  std::uint64_t warp_instructions = 0;
  std::uint64_t thread_instructions = 0;
  std::uint64_t blocks = 0;
};

class GpuTop : public sc_core::sc_module {
 public:
  GpuTop(sc_core::sc_module_name name, const GpuParams& params, memsys::BackingStore& memory, StatsRegistry& stats,
         const TraceOptions& trace = {});
  ~GpuTop() override;

  // Runs one kernel to completion. `launch` must outlive the call.
  KernelRun run(sm::LaunchState& launch, const sm::KernelResources& resources);

  // Derived metrics (IPC, occupancy, hit rates, bandwidth, ...) into the registry.
  void computeMetrics();
  const GpuParams& params() const { return params_; }
  // Every warp and every non-empty queue, for the watchdog and for faults.
  std::string dumpState() const;
  // Writes the waveform, its .gtkw and the timeline (when asked for); called at the end of a run.
  void closeTraces();

  // The blocks, for probes.
  std::uint64_t coreCycle() const { return core_clk_.cycle(); }
  const GigaThreadBlock& gigathread() const { return *gigathread_; }
  const SmBlock& sm(std::size_t i) const { return *sms_[i]; }
  const XbarBlock& xbar() const { return *xbar_; }
  const L2Block& l2(std::size_t j) const { return *l2_[j]; }
  const DramBlock& dram(std::size_t c) const { return *dram_[c]; }
  const StatsRegistry& stats() const { return stats_; }

 private:
  friend class GigaThreadBlock;
  void coreTick(std::uint64_t cycle);
  void reportProgress(std::uint64_t cycle);
  bool memoryProgressed();

  GpuParams params_;
  memsys::BackingStore& memory_;
  StatsRegistry& stats_;
  ClockDomain core_clk_, icnt_clk_, dram_clk_;
  memsys::AddressMap map_;
  std::unique_ptr<GigaThreadBlock> gigathread_;
  std::vector<std::unique_ptr<SmBlock>> sms_;
  std::unique_ptr<XbarBlock> xbar_;
  std::vector<std::unique_ptr<L2Block>> l2_;
  std::vector<std::unique_ptr<DramBlock>> dram_;
  bool dram_cosim_ = false;  // dram.impl = cosim: the channels' schedulers are compared
  std::unique_ptr<ChipProbes> probes_;

  // Kernel in progress.
  sm::LaunchState* launch_ = nullptr;
  std::uint64_t start_cycle_ = 0, end_cycle_ = 0;
  bool running_ = false;
  std::optional<sm::FaultReport> fault_;
  std::uint64_t last_progress_cycle_ = 0, last_issued_ = 0;
  std::uint64_t kernels_ = 0;
  std::uint64_t total_core_cycles_ = 0;
  double total_ns_ = 0;
  bool progress_ = false, progress_shown_ = false;
  std::chrono::steady_clock::time_point wall_start_;
  std::uint64_t issued_at_start_ = 0;
  std::uint64_t memory_progress_ = 0;
};

}  // namespace scgpu
