#include "tlm/gpu_top.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "base/run_control.h"
#include "sm/cluster.h"
#include "sm/timing/stall_reason.h"
#include "tlm/blocks/dram_block.h"
#include "tlm/blocks/gigathread_block.h"
#include "tlm/blocks/l2_block.h"
#include "tlm/blocks/sm_block.h"
#include "tlm/blocks/xbar_block.h"

namespace scgpu {

namespace {

// Femtoseconds resolve every clock period of the presets to well under a part per million.
bool setTimeResolution() {
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  return true;
}

// The DRAM channels behind L2 slice `s` (see memsys/address_map.h).
std::vector<std::uint32_t> channelsOfSlice(const memsys::AddressMap& map, std::uint32_t s) {
  std::vector<std::uint32_t> out;
  if (map.slices() >= map.channels()) {
    out.push_back(map.channelOfSlice(s));
  } else {
    const std::uint32_t per = map.channels() / map.slices();
    for (std::uint32_t k = 0; k < per; ++k) out.push_back(s * per + k);
  }
  return out;
}

}  // namespace

GpuTop::GpuTop(sc_core::sc_module_name name, const GpuParams& params, memsys::BackingStore& memory,
               StatsRegistry& stats, const TraceOptions& trace)
    : sc_core::sc_module((setTimeResolution(), name)),
      params_(params),
      memory_(memory),
      stats_(stats),
      core_clk_("core_clock", params.clocks.core_clock_mhz),
      icnt_clk_("icnt_clock", params.clocks.icnt_clock_mhz),
      dram_clk_("dram_clock", params.clocks.dram_clock_mhz),
      map_(params.l2, params.dram) {
  // Progress goes to a terminal only (SCGPU_PROGRESS=0/1 overrides), never into files or tests.
  const char* env = std::getenv("SCGPU_PROGRESS");
  progress_ = env ? std::string(env) == "1" : isatty(STDERR_FILENO) != 0;
  const std::uint32_t nsm = params.sm.count, nslice = params.l2.slices, nch = params.dram.channels;
  // Core domain, in tick order: the GigaThread engine, the SMs, then the kernel monitor.
  gigathread_ = std::make_unique<GigaThreadBlock>("gigathread", params.gigathread, params.sm, nsm, stats, core_clk_);
  std::vector<ClockDomain::Component> sm_components;
  for (std::uint32_t i = 0; i < nsm; ++i) {
    sms_.push_back(std::make_unique<SmBlock>(fmt::format("sm_{}", i).c_str(), params.sm, i, stats,
                                             fmt::format("gpu.sm[{}]", i), core_clk_));
    sm_components.push_back(sms_.back()->component());
  }
  // The SMs tick side by side (on several host threads with simulation.host_threads > 1); what
  // they did to global memory and to shared translation state is applied after, SM by SM.
  // The monitor's progress count is kept here, from the SMs that ticked: no other SM can have
  // issued, and asking all 132 at every edge cost cache misses on each.
  issued_seen_.assign(nsm, 0);
  const std::size_t first_sm = core_clk_.addParallel(
      std::move(sm_components), [this](std::uint64_t, const std::vector<std::size_t>& ticked) {
        for (std::size_t i : ticked) {
          sm::SmCore& c = sms_[i]->core;
          if (c.needsCommit()) c.commitCycle();
          const std::uint64_t n = c.instructionsIssued();
          issued_sum_ += n - issued_seen_[i];
          issued_seen_[i] = n;
        }
      });
  for (std::uint32_t i = 0; i < nsm; ++i) {
    sms_[i]->setComponentIndex(first_sm + i);
    sms_[i]->core.setFaultFlag(&sm_faulted_);
  }
  // The monitor looks at every edge the core domain evaluates. Where cycles may be skipped it
  // does not keep the domain awake itself: nothing it checks changes in a cycle in which no SM
  // ticked, except at its own deadlines (monitorDue).
  const bool skipping = params.simulation.skip_stalled_cycles && !trace.enabled();
  core_clk_.add({[this](std::uint64_t c) { coreTick(c); }, [this] { return running_.empty(); }, {},
                 [this] { return running_.empty() ? ClockDomain::kNever : monitorDue(core_clk_.cycle()); },
                 !skipping});
  // Address translation's timing: an L1 TLB per SM in front of the shared L2 TLB and the walker
  // (one address space: a device's channels share the driver's page tables).
  if (params.mmu.enabled) {
    l2_tlb_ = std::make_unique<memsys::Tlb>(params.mmu.l2_tlb_entries, params.mmu.l2_tlb_associativity,
                                           params.mmu.page_bytes, &stats, "gpu.l2_tlb");
    for (auto& s : sms_) s->core.attachTranslation(params.mmu, l2_tlb_.get(), stats);
  }
  // Interconnect domain: crossbar, then the slices. When their clock is the core's (the hopper
  // preset), they tick in the core domain, after the monitor: one clocked process at each edge
  // instead of two, with the same results (what crosses a link at an edge is seen at the
  // receiver's next edge either way).
  ClockDomain& icnt = params.clocks.icnt_clock_mhz == params.clocks.core_clock_mhz ? core_clk_ : icnt_clk_;
  xbar_ = std::make_unique<XbarBlock>("xbar", params.crossbar, nsm, nslice, map_, stats, icnt);
  std::vector<ClockDomain::Component> slice_components;
  for (std::uint32_t j = 0; j < nslice; ++j) {
    l2_.push_back(std::make_unique<L2Block>(fmt::format("l2_{}", j).c_str(), params.l2, j, channelsOfSlice(map_, j),
                                            map_, stats, icnt));
    slice_components.push_back(l2_.back()->component());
  }
  const std::size_t first_slice = icnt.addParallel(std::move(slice_components), nullptr);  // slices share nothing in their ticks
  for (std::uint32_t j = 0; j < nslice; ++j) {
    l2_[j]->setComponentIndex(first_slice + j);
    l2_cosim_ |= params.l2.implOf(j) == "cosim";
  }
  // DRAM domain: one port per slice that feeds the channel.
  const std::uint32_t ports = nslice >= nch ? nslice / nch : 1;
  dram_cosim_ = params.dram.impl == "cosim";
  for (const auto& [channel, impl] : params.dram.impl_of) dram_cosim_ |= impl == "cosim";
  std::vector<ClockDomain::Component> channel_components;
  for (std::uint32_t c = 0; c < nch; ++c) {
    dram_.push_back(std::make_unique<DramBlock>(fmt::format("dram_{}", c).c_str(), params.dram, c, ports, map_,
                                                stats, dram_clk_));
    channel_components.push_back(dram_.back()->component());
  }
  const std::size_t first_channel =
      dram_clk_.addParallel(std::move(channel_components), nullptr);  // channels share nothing in their ticks
  for (std::uint32_t c = 0; c < nch; ++c) dram_[c]->setComponentIndex(first_channel + c);

  // Bind the boundaries.
  for (std::uint32_t i = 0; i < nsm; ++i) {
    gigathread_->dispatch_out[i]->socket.bind(sms_[i]->dispatch_in.socket);
    sms_[i]->retired_out.socket.bind(gigathread_->retired_in[i]->socket);
    sms_[i]->to_xbar.socket.bind(xbar_->req_in[i]->socket);
    xbar_->resp_out[i]->socket.bind(sms_[i]->from_xbar.socket);
  }
  for (std::uint32_t j = 0; j < nslice; ++j) {
    xbar_->req_out[j]->socket.bind(l2_[j]->req_in.socket);
    l2_[j]->resp_out.socket.bind(xbar_->resp_in[j]->socket);
    const auto& chans = l2_[j]->channels();
    for (std::size_t k = 0; k < chans.size(); ++k) {
      const std::uint32_t port = nslice >= nch ? j % ports : 0;
      l2_[j]->dram_out[k]->socket.bind(dram_[chans[k]]->req_in[port]->socket);
      dram_[chans[k]]->resp_out[port]->socket.bind(l2_[j]->dram_in[k]->socket);
    }
  }

  // The probes look at every SM every cycle: no sleeping then.
  if (!params.simulation.skip_stalled_cycles || trace.enabled())
    for (auto& s : sms_) s->core.setSleepAllowed(false);
  if (!params.simulation.skip_stalled_cycles)
    for (auto& s : sms_) s->core.setEvaluateEveryCycle(true);
  for (auto& d : dram_) d->setSkipQuietCycles(skipping);
  for (std::uint32_t j = 0; j < nslice; ++j) {
    l2_[j]->setSkipWaitingCycles(skipping && params.l2.implOf(j) == "model");
    if (params.gigathread.flush_caches_before_launch && params.l2.implOf(j) != "model")
      throw std::invalid_argument(fmt::format("gigathread.flush_caches_before_launch needs the model's L2 tag stage; "
                                              "slice {} is '{}'", j, params.l2.implOf(j)));
  }
  if (trace.enabled()) {
    probes_ = std::make_unique<ChipProbes>(*this, trace);
    core_clk_.observe([this](std::uint64_t c) { probes_->sampleCore(c); });
    icnt.observe([this](std::uint64_t c) { probes_->sampleIcnt(c); });
    dram_clk_.observe([this](std::uint64_t c) { probes_->sampleDram(c); });
    if (Timeline* tl = probes_->timeline()) {
      auto ns = [this] { return deviceNs(); };
      gigathread_->on_dispatch = [tl, ns](std::uint32_t k, std::uint64_t b, std::uint32_t s) { tl->blockStart(s, k, b, ns()); };
      gigathread_->on_retire = [tl, ns](std::uint32_t k, std::uint64_t b, std::uint32_t s) { tl->blockEnd(s, k, b, ns()); };
      for (std::uint32_t i = 0; i < sms_.size(); ++i)
        sms_[i]->core.on_warp = [tl, ns, i](std::uint32_t slot, std::uint32_t sub, std::uint32_t block, bool start,
                                            std::uint64_t) { tl->warp(i, sub, slot, block, start, ns()); };
    }
  }
  threads_ =
      std::make_shared<ClockDomain::Threads>(hostThreads(trace), params_.simulation.parallel_ticks == "always");
  core_clk_.setThreads(threads_, /*leader=*/true);
  icnt_clk_.setThreads(threads_, false);
  dram_clk_.setThreads(threads_, false);
}

unsigned GpuTop::hostThreads(const TraceOptions& trace) const {
  // Tracing observes the SMs from their ticks, and Verilated blocks share Verilator's context: those
  // runs tick on one thread (with the same results).
  if (trace.enabled()) return 1;
  for (std::uint32_t i = 0; i < params_.sm.count; ++i)
    if (params_.sm.schedulerImpl(i) != "model" || params_.sm.coalescerImpl(i) != "model") return 1;
  for (std::uint32_t j = 0; j < params_.l2.slices; ++j)
    if (params_.l2.implOf(j) != "model") return 1;
  for (std::uint32_t c = 0; c < params_.dram.channels; ++c)
    if (params_.dram.implOf(c) != "model") return 1;
  return params_.simulation.host_threads;
}

void GpuTop::closeTraces() {
  if (probes_) probes_->close();
}

GpuTop::~GpuTop() = default;

void GpuTop::coreTick(std::uint64_t cycle) {
  if (running_.empty()) return;
  if (params_.simulation.stats_interval_cycles && cycle >= next_sample_) takeSample(cycle);
  // The kernel a chip-wide stop is reported against: the one running longest.
  const std::string& oldest = running_.front().launch->program->kernel_name;
  auto divergence = [&](const std::string& message) {
    sm::FaultReport r;
    r.kind = "cosim divergence";
    r.kernel = oldest;
    r.message = message;
    fault_ = r;
  };
  if (sm_faulted_.load(std::memory_order_relaxed))  // some SM raised a fault: the first, in SM order
    for (const auto& s : sms_) {
      if (s->core.fault()) {
        fault_ = s->core.fault();
        break;
      }
    }
  if (!fault_)
    if (const std::string* d = xbar_->xbar.divergence()) divergence(*d);  // a co-simulated switch allocator differed
  for (std::size_t j = 0; !fault_ && l2_cosim_ && j < l2_.size(); ++j)
    if (const std::string* d = l2_[j]->slice.divergence()) divergence(*d);  // a co-simulated L2 tag/MSHR stage differed
  if (!fault_ && dram_cosim_)  // only then can a channel's scheduler differ: model mode pays nothing
    for (const auto& d : dram_)
      if (const std::string* m = d->channel.divergence()) {
        divergence(*m);
        break;
      }
  const std::uint64_t issued = issued_sum_;
  if (issued != last_issued_) {
    last_issued_ = issued;
    last_progress_cycle_ = cycle;
  } else if (!fault_ && cycle - last_progress_cycle_ > params_.watchdog.no_progress_cycles &&
             memoryProgressed()) {
    // Warps wait, but the memory system is still working through their requests (a long
    // queue of serialised atomics, say): that is progress too.
    last_progress_cycle_ = cycle;
  } else if (!fault_ && cycle - last_progress_cycle_ > params_.watchdog.no_progress_cycles) {
    sm::FaultReport r;
    r.kind = "watchdog";
    r.kernel = oldest;
    r.message = fmt::format("no instruction issued on any SM for {} core cycles (watchdog.no_progress_cycles); "
                            "state of every warp and queue:\n{}",
                            cycle - last_progress_cycle_, dumpState());
    fault_ = r;
  }
  // Every few thousand cycles: a block that never finishes (a warp spinning forever issues, so the
  // check above cannot see it), Ctrl-C and the wall-clock timeout.
  if (!fault_ && (cycle & 4095) == 0) {
    if (progress_) reportProgress(cycle);
    for (const auto& s : sms_)
      if (s->core.checkHungBlocks(cycle, params_.watchdog.block_resident_cycles)) {
        fault_ = s->core.fault();
        break;
      }
    if (const run_control::Stop stop = run_control::stopRequested(); !fault_ && stop != run_control::Stop::None) {
      sm::FaultReport r;
      r.kind = run_control::stopKind(stop);
      r.kernel = oldest;
      r.message = run_control::stopMessage(stop);
      fault_ = r;
    }
  }
  // Each launch's budgets: a kernel that spins (or just runs longer than the user allowed) stops
  // with a timeout fault, as a GPU's watchdog stops it, instead of running unbounded.
  const LimitsParams& lim = params_.limits;
  for (const Running& r : running_) {
    if (fault_) break;
    const bool cycles = cycle - r.start_cycle > lim.cycles_per_launch;
    if (!cycles && r.launch->warp_instructions <= lim.warp_instructions_per_launch) continue;
    sm::FaultReport f;
    f.kind = "timeout";
    f.kernel = r.launch->program->kernel_name;
    f.message = cycles ? fmt::format("the launch ran {} core cycles, above the limit limits.cycles_per_launch = {} "
                                     "(raise it with --set limits.cycles_per_launch=N)",
                                     cycle - r.start_cycle, lim.cycles_per_launch)
                       : fmt::format("the launch issued {} warp instructions, above the limit "
                                     "limits.warp_instructions_per_launch = {} (raise it with --set "
                                     "limits.warp_instructions_per_launch=N)",
                                     r.launch->warp_instructions, lim.warp_instructions_per_launch);
    fault_ = f;
  }
  if (fault_ && fault_->cycle == 0) fault_->cycle = cycle;
  bool stop = false;
  if (fault_) {
    // A fault stops the whole chip's work, as a sticky error stops a context on silicon: every
    // kernel running ends with it (its report names the kernel that faulted).
    for (const Running& r : running_) finishKernel(r, cycle, fault_);
    running_.clear();
    gigathread_->engine.abortAll();
    stop = true;
  } else {
    for (std::size_t i = 0; i < running_.size();) {
      if (!gigathread_->engine.kernelDone(running_[i].id)) {
        ++i;
        continue;
      }
      finishKernel(running_[i], cycle, std::nullopt);
      running_.erase(running_.begin() + long(i));
      stop = true;
    }
  }
  if (stop) {
    settleSleepers(cycle);  // statistics are read between kernels
    if (progress_shown_) std::fputs("\r\033[K", stderr);
    progress_shown_ = false;
    sc_core::sc_pause();
  }
}

void GpuTop::finishKernel(const Running& r, std::uint64_t end_cycle, const std::optional<sm::FaultReport>& fault) {
  KernelRun out;
  out.id = r.id;
  out.fault = fault;
  // The completion latency follows the last block; it holds nothing on the chip, so it is added
  // to the kernel's time rather than simulated.
  const std::uint64_t completion = fault ? 0 : params_.gigathread.completion_latency_cycles;
  out.core_cycles = end_cycle - r.start_cycle + completion;
  out.simulated_ns = (sc_core::sc_time_stamp() - r.start_time).to_seconds() * 1e9 +
                     double(completion) * core_clk_.period().to_seconds() * 1e9;
  out.end_ns = r.start_ns + out.simulated_ns;
  out.warp_instructions = r.launch->warp_instructions;
  out.thread_instructions = r.launch->thread_instructions;
  out.blocks = gigathread_->engine.blocksCompleted(r.id);
  total_core_cycles_ += out.core_cycles;
  total_ns_ += out.simulated_ns;
  ++kernels_;
  gigathread_->engine.forgetKernel(r.id);
  for (auto& s : sms_) s->core.removeLaunch(r.id);
  if (sm::clusterSize(*r.launch) > 1 && --cluster_launches_ == 0) {
    if (threads_) threads_->requireSerial(false);
    for (auto& s : sms_) s->core.holdAwake(false);
  }
  if (probes_ && probes_->timeline())
    probes_->timeline()->kernel(r.launch->program->kernel_name, r.track, r.start_ns, out.end_ns);
  finished_.push_back(out);
}

// One status line on a terminal, rewritten in place: simulated cycles, blocks done, speed.
void GpuTop::reportProgress(std::uint64_t cycle) {
  const auto now = std::chrono::steady_clock::now();
  const double secs = std::chrono::duration<double>(now - wall_start_).count();
  if (secs < 1.0 || now - last_progress_wall_ < std::chrono::milliseconds(250)) return;  // short runs stay quiet
  last_progress_wall_ = now;
  const Running& r = running_.front();
  const GigaThread& gt = gigathread_->engine;
  const std::uint64_t done = gt.blocksCompleted(r.id), total = gt.totalBlocks(r.id);
  const double fraction = total ? double(done) / double(total) : 0.0;
  // The kernel's remaining blocks at the rate the done ones took (from the kernel's start).
  const double kernel_secs = std::chrono::duration<double>(now - r.wall_start).count();
  std::string eta = "?";
  if (fraction > 0) {
    const auto left = static_cast<unsigned long long>(kernel_secs * (1 - fraction) / fraction + 0.5);
    eta = left >= 3600 ? fmt::format("{}:{:02}:{:02}", left / 3600, left / 60 % 60, left % 60)
                       : fmt::format("{}:{:02}", left / 60, left % 60);
  }
  const std::string others = running_.size() > 1 ? fmt::format(" (+{} kernels)", running_.size() - 1) : "";
  std::fputs(fmt::format("\r\033[K[scgpu] {}{}: cycle {}, blocks {}/{} ({:.1f}%), {:.1f} KIPS, {:.0f} cycles/s, "
                         "ETA {}",
                         r.launch->program->kernel_name, others, cycle - r.start_cycle, done, total, 100 * fraction,
                         double(r.launch->warp_instructions) / std::max(kernel_secs, 1e-9) / 1e3,
                         double(cycle - r.start_cycle) / std::max(kernel_secs, 1e-9), eta)
                 .c_str(),
             stderr);
  std::fflush(stderr);
  progress_shown_ = true;
}

std::uint64_t GpuTop::monitorDue(std::uint64_t cycle) const {
  // The cycles at which coreTick has something to check although no SM ticked: the periodic
  // checks, the watchdog's and the launches' deadlines, the next sample, a kernel's end.
  std::uint64_t due = (cycle | 4095) + 1;
  due = std::min(due, last_progress_cycle_ + params_.watchdog.no_progress_cycles + 1);
  if (params_.simulation.stats_interval_cycles) due = std::min(due, next_sample_);
  for (const Running& r : running_) {
    if (r.start_cycle + params_.limits.cycles_per_launch + 1 > r.start_cycle)  // (no overflow)
      due = std::min(due, r.start_cycle + params_.limits.cycles_per_launch + 1);
    if (gigathread_->engine.kernelDone(r.id)) due = cycle + 1;
  }
  return std::max(due, cycle + 1);
}

bool GpuTop::memoryProgressed() {
  // Requests the slices handled and commands DRAM issued: a scan of the registry, done only when
  // the watchdog is about to fire.
  const std::uint64_t now = stats_.sum("gpu.l2[", "].reads") + stats_.sum("gpu.l2[", "].writes") +
                            stats_.sum("gpu.l2[", "].atomics") + stats_.sum("gpu.l2[", "].hits") +
                            stats_.sum("gpu.dram[", "].reads") + stats_.sum("gpu.dram[", "].writes");
  const bool moved = now != memory_progress_;
  memory_progress_ = now;
  return moved;
}

std::optional<std::uint32_t> GpuTop::startKernel(sm::LaunchState& launch, const sm::KernelResources& k,
                                                 std::uint32_t priority, std::uint32_t track, KernelRun* refused) {
  const sm::Occupancy occ = sm::theoreticalOccupancy(params_.sm, k);
  if (occ.blocks_per_sm == 0) {
    sm::FaultReport r;
    r.kind = "invalid configuration";
    r.kernel = launch.program->kernel_name;
    r.message = fmt::format("one block ({} threads, {} registers per thread, {} bytes of shared memory) needs more "
                            "than an SM has ({} is the limit)",
                            k.threads_per_block, k.registers_per_thread, k.static_shared_bytes + k.dynamic_shared_bytes,
                            occ.limiter);
    *refused = KernelRun{};
    refused->fault = r;
    return std::nullopt;
  }
  if (running_.empty()) {
    fault_.reset();
    wall_start_ = std::chrono::steady_clock::now();
  }
  Running r;
  r.id = next_kernel_id_++;
  r.track = track;
  r.launch = &launch;
  r.start_cycle = sc_core::sc_time_stamp().value() / core_clk_.period().value();
  r.start_ns = deviceNs();
  r.start_time = sc_core::sc_time_stamp();
  r.wall_start = std::chrono::steady_clock::now();
  r.blocks = std::uint64_t(launch.grid[0]) * launch.grid[1] * launch.grid[2];
  launch.warp_instructions = launch.thread_instructions = 0;
  for (auto& s : sms_) s->core.addLaunch(r.id, &launch, k);
  if (sm::clusterSize(launch) > 1 && cluster_launches_++ == 0) {
    if (threads_) threads_->requireSerial(true);
    for (auto& s : sms_) s->core.holdAwake(true);
  }
  if (running_.empty()) last_progress_cycle_ = r.start_cycle;
  if (params_.gigathread.flush_caches_before_launch) {
    // As a profiler flushes before it times a kernel: every cache empty, the flush itself untimed.
    for (auto& s : sms_) s->core.invalidateCaches();
    for (auto& l : l2_) l->slice.invalidateAll();
  }
  GigaThread::BlockOrder order;
  if (sm::clusterSize(launch) > 1) order = [l = &launch](std::uint64_t i) { return sm::clusterMajorBlock(*l, i); };
  gigathread_->engine.startKernel(r.id, r.blocks, sm::blockCost(params_.sm, k), r.start_cycle, priority,
                                  std::move(order));
  running_.push_back(r);
  core_clk_.wake();
  return r.id;
}

// Below SystemC's resolution (1 fs): a bound this close counts as reached.
constexpr double kTimeEpsilonNs = 1e-6;

double GpuTop::deviceNs() const { return sc_core::sc_time_stamp().to_seconds() * 1e9 + idle_offset_ns_; }

std::vector<KernelRun> GpuTop::advance(double until_ns) {
  const bool bounded = until_ns >= 0;
  if (running_.empty()) {
    // Nothing runs: the clocks are gated and time only moves on.
    if (bounded && until_ns > deviceNs()) idle_offset_ns_ += until_ns - deviceNs();
    return {};
  }
  while (finished_.empty()) {
    const double now = deviceNs();
    if (bounded && now >= until_ns - kTimeEpsilonNs) break;
    if (!sc_core::sc_pending_activity()) {
      // Every clock domain went to sleep with kernels unfinished: nothing can ever happen again.
      sm::FaultReport r;
      r.kind = "watchdog";
      r.kernel = running_.front().launch->program->kernel_name;
      r.message = "the simulation ran out of activity with blocks unfinished; state:\n" + dumpState();
      fault_ = r;
      const std::uint64_t cycle = sc_core::sc_time_stamp().value() / core_clk_.period().value();
      for (const Running& k : running_) finishKernel(k, cycle, fault_);
      running_.clear();
      gigathread_->engine.abortAll();
      break;
    }
    if (bounded) sc_core::sc_start(sc_core::sc_time(until_ns - now, sc_core::SC_NS));
    else sc_core::sc_start();
  }
  std::vector<KernelRun> out;
  out.swap(finished_);
  std::sort(out.begin(), out.end(), [](const KernelRun& a, const KernelRun& b) { return a.id < b.id; });
  return out;
}

void GpuTop::invalidateTlbs() {
  if (l2_tlb_) l2_tlb_->invalidateAll();
  for (auto& s : sms_) s->core.invalidateTranslations();
}

void GpuTop::noteCopy(std::uint32_t engine, std::uint32_t track, std::uint64_t bytes, double start_ns, double end_ns) {
  if (probes_ && probes_->timeline()) probes_->timeline()->copy(engine, track, bytes, start_ns, end_ns);
}

std::string GpuTop::dumpState() const {
  std::string s;
  for (const auto& sm : sms_) {
    std::string d = sm->core.dumpState();
    if (!d.empty()) s += d;
  }
  for (std::size_t j = 0; j < l2_.size(); ++j) {
    const auto& sl = l2_[j]->slice;
    if (sl.queueDepth() || sl.mshrUsed())
      s += fmt::format("l2[{}]: request queue {}, MSHRs in use {}\n", j, sl.queueDepth(), sl.mshrUsed());
  }
  for (std::size_t c = 0; c < dram_.size(); ++c) {
    const auto& ch = dram_[c]->channel;
    if (ch.readQueueDepth() || ch.writeQueueDepth())
      s += fmt::format("dram[{}]: read queue {}, write queue {}\n", c, ch.readQueueDepth(), ch.writeQueueDepth());
  }
  const memsys::Crossbar& x = xbar_->xbar;
  for (std::uint32_t i = 0; i < sms_.size(); ++i)
    if (x.requestInputFlits(i) || x.responseOutputFlits(i) || xbar_->resp_out[i]->ready() == false)
      s += fmt::format("crossbar sm port {}: request input {} flits, response output {} flits{}\n", i,
                       x.requestInputFlits(i), x.responseOutputFlits(i),
                       xbar_->resp_out[i]->ready() ? "" : ", link to the SM blocked");
  for (std::uint32_t j = 0; j < l2_.size(); ++j)
    if (x.requestOutputFlits(j) || x.responseInputFlits(j) || !xbar_->req_out[j]->ready())
      s += fmt::format("crossbar l2 port {}: request output {} flits, response input {} flits{}\n", j,
                       x.requestOutputFlits(j), x.responseInputFlits(j),
                       xbar_->req_out[j]->ready() ? "" : ", link to the slice blocked");
  return s;
}

void GpuTop::settleSleepers(std::uint64_t cycle) {
  // Sleeping SMs count their skipped cycles when they wake: settle them now. Settled, they are
  // awake, so the domain must look at them again.
  for (auto& s : sms_) s->core.settle(cycle);
  core_clk_.unquietAll();
  // Busy channels sleeping through quiet cycles catch up, as ticking every cycle would leave them.
  for (auto& d : dram_)
    if (!d->channel.idle()) d->channel.catchUp(dram_clk_.cycle());
}

void GpuTop::takeSample(std::uint64_t cycle) {
  const std::uint64_t every = params_.simulation.stats_interval_cycles;
  const bool first = next_sample_ == 0;
  next_sample_ = (cycle / every + 1) * every;
  // This interval holds its own stall reasons and active cycles (the statistics stay those of
  // ticking).
  settleSleepers(cycle);
  StatsRegistry& st = stats_;
  std::map<std::string, double> now;
  now["cycle"] = double(cycle);
  now["warp_instructions"] = double(st.sum("gpu.sm[", "].warp_instructions"));
  now["active_cycles"] = double(st.sum("gpu.sm[", "].active_cycles"));
  now["active_warps_sum"] = double(st.sum("gpu.sm[", "].active_warps_sum"));
  now["l1_hits"] = double(st.sum("gpu.sm[", "].l1.hits"));
  now["l1_misses"] = double(st.sum("gpu.sm[", "].l1.misses"));
  now["l2_hits"] = double(st.sum("gpu.l2[", "].hits"));
  now["l2_misses"] = double(st.sum("gpu.l2[", "].misses"));
  now["dram_accesses"] = double(st.sum("gpu.dram[", "].reads") + st.sum("gpu.dram[", "].writes"));
  now["dram_row_hits"] = double(st.sum("gpu.dram[", "].row_hits"));
  now["dram_row_other"] = double(st.sum("gpu.dram[", "].row_misses") + st.sum("gpu.dram[", "].row_conflicts"));
  for (int i = 0; i < int(sm::timing::Reason::Count); ++i)
    if (sm::timing::isSchedulerReason(sm::timing::Reason(i)))
      now[std::string("stall.") + sm::timing::toString(sm::timing::Reason(i))] =
          double(st.sum("gpu.sm[", std::string(".stall.") + sm::timing::toString(sm::timing::Reason(i))));
  if (!first) {
    const auto d = [&](const char* k) { return now[k] - sample_base_[k]; };
    const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    const double cycles = d("cycle");
    const double seconds = cycles / (params_.clocks.core_clock_mhz * 1e6);
    nlohmann::json j;
    j["core_cycles"] = cycle;
    j["interval_cycles"] = cycles;
    j["warp_instructions"] = d("warp_instructions");
    j["ipc"] = ratio(d("warp_instructions"), cycles);
    j["active_sms"] = ratio(d("active_cycles"), cycles);
    j["occupancy_pct"] = 100.0 * ratio(d("active_warps_sum"), d("active_cycles") * params_.sm.max_warps_per_sm);
    j["l1_hit_rate_pct"] = 100.0 * ratio(d("l1_hits"), d("l1_hits") + d("l1_misses"));
    j["l2_hit_rate_pct"] = 100.0 * ratio(d("l2_hits"), d("l2_hits") + d("l2_misses"));
    j["l2_bytes_per_second"] = ratio((d("l2_hits") + d("l2_misses")) * params_.l2.cache.sector_bytes, seconds);
    j["dram_bytes_per_second"] = ratio(d("dram_accesses") * params_.dram.access_bytes, seconds);
    j["dram_row_hit_rate_pct"] = 100.0 * ratio(d("dram_row_hits"), d("dram_row_hits") + d("dram_row_other"));
    double total = 0;
    for (const auto& [k, v] : now)
      if (k.rfind("stall.", 0) == 0) total += v - sample_base_[k];
    nlohmann::json stall = nlohmann::json::object();
    for (const auto& [k, v] : now)
      if (k.rfind("stall.", 0) == 0) stall[k.substr(6)] = 100.0 * ratio(v - sample_base_[k], total);
    j["stall_pct"] = stall;
    samples_.push_back(std::move(j));
  }
  sample_base_ = std::move(now);
}

void GpuTop::computeMetrics() {
  StatsRegistry& st = stats_;
  const double cycles = double(total_core_cycles_);
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  const double warp_inst = double(st.sum("gpu.sm[", "].warp_instructions"));
  st.setMetric("gpu.cycles", cycles, "core cycles of all kernels");
  st.setMetric("gpu.simulated_ns", total_ns_);
  st.setMetric("gpu.ipc", ratio(warp_inst, cycles), "warp instructions per core cycle, whole GPU");
  st.setMetric("sm__inst_executed.avg.per_cycle_active",
               ratio(warp_inst, double(st.sum("gpu.sm[", "].active_cycles"))),
               "warp instructions per active SM cycle (Nsight: IPC)");
  st.setMetric("sm__warps_active.avg.pct_of_peak_sustained_active",
               100.0 * ratio(double(st.sum("gpu.sm[", "].active_warps_sum")),
                             double(st.sum("gpu.sm[", "].active_cycles")) * params_.sm.max_warps_per_sm),
               "achieved occupancy");
  const double l1h = double(st.sum("gpu.sm[", "].l1.hits")), l1m = double(st.sum("gpu.sm[", "].l1.misses"));
  st.setMetric("l1tex__t_sector_hit_rate.pct", 100.0 * ratio(l1h, l1h + l1m), "L1 sector hit rate");
  st.setMetric("l1tex__t_sectors_per_request",
               ratio(double(st.sum("gpu.sm[", "].lsu.global_sectors")), double(st.sum("gpu.sm[", "].lsu.global_requests"))),
               "sectors per global request (line)");
  const double l2h = double(st.sum("gpu.l2[", "].hits")), l2m = double(st.sum("gpu.l2[", "].misses"));
  st.setMetric("lts__t_sector_hit_rate.pct", 100.0 * ratio(l2h, l2h + l2m), "L2 sector hit rate");
  const double rd = double(st.sum("gpu.dram[", "].reads")), wr = double(st.sum("gpu.dram[", "].writes"));
  const double bytes = (rd + wr) * params_.dram.access_bytes;
  st.setMetric("dram__bytes.sum", bytes);
  st.setMetric("dram__bytes.sum.per_second", ratio(bytes, total_ns_ * 1e-9), "DRAM bandwidth, bytes/s");
  const double peak = double(params_.dram.channels) * params_.dram.bus_width_bits / 8.0 *
                      params_.dram.transfers_per_clock * params_.clocks.dram_clock_mhz * 1e6;
  st.setMetric("dram__throughput.avg.pct_of_peak_sustained_elapsed",
               100.0 * ratio(ratio(bytes, total_ns_ * 1e-9), peak), "DRAM bandwidth as a share of peak");
  const double hits = double(st.sum("gpu.dram[", "].row_hits"));
  const double misses = double(st.sum("gpu.dram[", "].row_misses")) + double(st.sum("gpu.dram[", "].row_conflicts"));
  st.setMetric("dram.row_buffer_hit_rate.pct", 100.0 * ratio(hits, hits + misses));
  const double flits = double(st.value("gpu.xbar.request_flits") + st.value("gpu.xbar.response_flits"));
  const double icnt_cycles = total_ns_ * params_.clocks.icnt_clock_mhz * 1e-3;
  st.setMetric("xbar.utilization.pct",
               100.0 * ratio(flits, icnt_cycles * double(params_.sm.count + params_.l2.slices)),
               "flits moved per port-cycle, both networks");
  // Tensor pipes: held cycles over the sub-cores' cycles while a block was resident (Nsight's peak
  // sustained rate is one pipe-cycle per sub-core per cycle).
  const double tensor_busy = double(st.sum("gpu.sm[", "].pipe.tensor.busy_cycles"));
  st.setMetric("sm__inst_executed_pipe_tensor.sum", double(st.sum("gpu.sm[", "].pipe.tensor.instructions")),
               "warp instructions issued to the tensor pipes (mma, wmma.mma, wgmma)");
  st.setMetric("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
               100.0 * ratio(tensor_busy, double(st.sum("gpu.sm[", "].active_cycles")) * params_.sm.sub_cores),
               "tensor-pipe cycles held, as a share of the sub-cores' active cycles");
  // Stall breakdown: every scheduler records one reason per cycle, so the shares sum to 100 %.
  double total = 0;
  for (int i = 0; i < int(sm::timing::Reason::Count); ++i)
    if (sm::timing::isSchedulerReason(sm::timing::Reason(i))) total += double(st.sum("gpu.sm[", std::string(".stall.") + sm::timing::toString(sm::timing::Reason(i))));
  for (int i = 0; i < int(sm::timing::Reason::Count); ++i) {
    const sm::timing::Reason r = sm::timing::Reason(i);
    if (!sm::timing::isSchedulerReason(r)) continue;
    st.setMetric(std::string("stall.") + sm::timing::toString(r) + ".pct",
                 100.0 * ratio(double(st.sum("gpu.sm[", std::string(".stall.") + sm::timing::toString(r))), total));
  }
}

}  // namespace scgpu
