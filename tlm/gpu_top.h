// The chip: one SystemC module per block (GigaThread engine, SMs, crossbar, L2 slices, DRAM
// channels), composed from a GpuParams, with one clock domain each for the cores, the
// interconnect with L2, and DRAM. Kernels start at the device's current time (several may run at
// once: the GigaThread engine shares the SMs between them) and the chip is simulated forward until
// one finishes or a given time is reached. A fault (or the watchdog) stops every kernel running
// then. A process holds at most one GpuTop: SystemC elaborates once.
//
// Device time: the chip's SystemC time advances only while kernels run; time in which nothing
// runs is added as an offset instead of being simulated (the clocks are gated), so a kernel's
// cycle count does not depend on how long the device sat idle before it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <systemc>

#include "memsys/address_map.h"
#include "memsys/backing_store.h"
#include "memsys/tlb.h"
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
  std::uint32_t id = 0;                  // from startKernel
  std::optional<sm::FaultReport> fault;
  std::uint64_t core_cycles = 0;         // from launch to the last block's retirement
  double simulated_ns = 0;               // from launch to completion (completion latency included)
  double end_ns = 0;                     // device time of the completion
  std::uint64_t warp_instructions = 0;
  std::uint64_t thread_instructions = 0;
  std::uint64_t blocks = 0;
};

class GpuTop : public sc_core::sc_module {
 public:
  GpuTop(sc_core::sc_module_name name, const GpuParams& params, memsys::BackingStore& memory, StatsRegistry& stats,
         const TraceOptions& trace = {});
  ~GpuTop() override;

  // Starts a kernel at the current device time, `launch` must outlive it. Higher `priority`
  // kernels get SMs first; `track` names its row in the timeline (the host channel). Returns its
  // id, or nothing with `refused` set when no block fits on an SM.
  std::optional<std::uint32_t> startKernel(sm::LaunchState& launch, const sm::KernelResources& resources,
                                           std::uint32_t priority, std::uint32_t track, KernelRun* refused);
  // Simulates until a kernel finishes (or a fault stops them all), or device time reaches
  // `until_ns` (< 0: no bound). Returns the kernels that finished, in id order; empty when the
  // bound came first. With no kernel running it only moves device time to `until_ns`.
  std::vector<KernelRun> advance(double until_ns);
  // Device time in ns (see above), and the idle time in it.
  double deviceNs() const;
  double idleOffsetNs() const { return idle_offset_ns_; }
  bool busy() const { return !running_.empty(); }
  // A copy engine moved `bytes` for `track` (the host channel) between two device times: for the
  // timeline.
  void noteCopy(std::uint32_t engine, std::uint32_t track, std::uint64_t bytes, double start_ns, double end_ns);
  // MMU_INVALIDATE: every TLB forgets its translations.
  void invalidateTlbs();

  // Derived metrics (IPC, occupancy, hit rates, bandwidth, ...) into the registry.
  void computeMetrics();
  // The samples taken every simulation.stats_interval_cycles: one JSON object per interval.
  const std::vector<nlohmann::json>& samples() const { return samples_; }
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
  bool l2_cosim_ = false;    // some slice's tag/MSHR stage is co-simulated (and may differ)
  // Set by an SM that raised a fault (SmCore::setFaultFlag); never cleared, as SM faults stick.
  std::atomic<bool> sm_faulted_{false};
  // Warp instructions issued on the chip, summed from the SMs that ticked (issued_seen_: each
  // SM's count when it was last added in).
  std::uint64_t issued_sum_ = 0;
  std::vector<std::uint64_t> issued_seen_;
  std::unique_ptr<ChipProbes> probes_;
  std::unique_ptr<memsys::Tlb> l2_tlb_;  // the TLB the SMs share (mmu.enabled)

  // Kernels in progress.
  // Host threads for the SMs' ticks: simulation.host_threads, or 1 where a run observes the SMs
  // from inside their ticks (tracing) or an SM holds a Verilated block.
  unsigned hostThreads(const TraceOptions& trace) const;

  struct Running {
    std::uint32_t id = 0, track = 0;
    sm::LaunchState* launch = nullptr;
    std::uint64_t start_cycle = 0;
    double start_ns = 0;      // device time
    sc_core::sc_time start_time;  // SystemC time (the kernel's own time is measured in it, exactly)
    std::uint64_t blocks = 0;
    std::chrono::steady_clock::time_point wall_start;  // for the progress line's rates and ETA
  };
  std::vector<Running> running_;
  // Cluster launches running: their blocks reach into each other's SMs (distributed shared memory,
  // the cluster barrier), so the SMs tick on one host thread and stay awake meanwhile.
  std::uint32_t cluster_launches_ = 0;
  std::shared_ptr<ClockDomain::Threads> threads_;
  std::vector<KernelRun> finished_;  // found by coreTick, collected by advance
  std::uint32_t next_kernel_id_ = 1;
  double idle_offset_ns_ = 0;
  std::optional<sm::FaultReport> fault_;
  void finishKernel(const Running& r, std::uint64_t end_cycle, const std::optional<sm::FaultReport>& fault);

  std::uint64_t last_progress_cycle_ = 0, last_issued_ = 0;
  std::uint64_t monitorDue(std::uint64_t cycle) const;  // the next cycle coreTick must look at
  std::uint64_t kernels_ = 0;
  std::uint64_t total_core_cycles_ = 0;
  // --stats-interval: the samples, the next cycle to sample at, and the cumulative counters of the
  // previous sample (the intervals are differences).
  void takeSample(std::uint64_t cycle);
  // Brings the sleeping SMs and DRAM channels to `cycle` (the core's) before statistics are read.
  void settleSleepers(std::uint64_t cycle);
  std::vector<nlohmann::json> samples_;
  std::uint64_t next_sample_ = 0;
  std::map<std::string, double> sample_base_;
  double total_ns_ = 0;
  bool progress_ = false, progress_shown_ = false;
  std::chrono::steady_clock::time_point last_progress_wall_;
  std::chrono::steady_clock::time_point wall_start_;
  std::uint64_t memory_progress_ = 0;
};

}  // namespace scgpu
