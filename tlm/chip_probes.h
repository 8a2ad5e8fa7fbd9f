// What the chip shows in a waveform and a timeline. ChipProbes registers one signal per
// observable of every block (scheduler issue and stall, SM occupancy and queues, crossbar flits,
// L2 queues and MSHRs, DRAM commands and queues, kernel progress) with a trace::Tracer, and
// samples them at every edge of the block's clock domain. The Timeline collects block, kernel and
// DRAM-refresh intervals as a Chrome trace-event file (opens in Perfetto).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tlm/trace/tracer.h"
#include "tlm/trace_options.h"

namespace scgpu {

class GpuTop;

// Kernel, copy, block and refresh intervals in device nanoseconds, as Chrome trace events. Kernels
// and copies have one row per host channel (track), so work of different streams that overlaps in
// time shows side by side.
class Timeline {
 public:
  explicit Timeline(std::string path) : path_(std::move(path)) {}
  void blockStart(std::uint32_t sm, std::uint32_t kernel, std::uint64_t block, double ns);
  void blockEnd(std::uint32_t sm, std::uint32_t kernel, std::uint64_t block, double ns);
  void kernel(const std::string& name, std::uint32_t track, double start_ns, double end_ns);
  // A copy engine's transfer (engine: 0 host to device, 1 device to host, 2 within the device).
  void copy(std::uint32_t engine, std::uint32_t track, std::uint64_t bytes, double start_ns, double end_ns);
  void refresh(std::uint32_t channel, double start_ns, double duration_ns);
  // A warp's life on one scheduler (sub-core): async events, one track per scheduler.
  void warp(std::uint32_t sm, std::uint32_t sub_core, std::uint32_t slot, std::uint64_t block, bool start, double ns);
  void write() const;  // throws std::runtime_error when the file cannot be written

 private:
  std::string path_;
  nlohmann::json events_ = nlohmann::json::array();
  std::uint64_t warp_seq_ = 0;
  std::vector<std::uint64_t> warp_ids_;  // (sm, slot) -> id of the open async event
};

class ChipProbes {
 public:
  ChipProbes(GpuTop& top, const TraceOptions& options);
  ~ChipProbes();
  void sampleCore(std::uint64_t cycle);
  void sampleIcnt(std::uint64_t cycle);
  void sampleDram(std::uint64_t cycle);
  Timeline* timeline() { return timeline_.get(); }
  trace::Tracer* tracer() { return tracer_.get(); }
  // Flushes the waveform (and its .gtkw) and the timeline.
  void close();

 private:
  void advance();
  GpuTop& top_;
  std::unique_ptr<trace::Tracer> tracer_;
  std::unique_ptr<Timeline> timeline_;
  int core_clk_ = -1, icnt_clk_ = -1, dram_clk_ = -1, launched_ = -1, completed_ = -1;
  struct Sched { int issues, warp, pc, opcode, stall, tensor_busy; };
  std::vector<std::vector<std::uint64_t>> issue_counts_;  // per SM, per scheduler
  struct Sm { int blocks, warps, barrier, mbarrier, lsu, mshr, tma; std::vector<Sched> sched; };
  std::vector<Sm> sms_;
  std::vector<int> xbar_sm_, xbar_l2_;
  struct Slice { int queue, mshr, hits, misses; };
  std::vector<Slice> slices_;
  struct Channel { int cmd, rdq, wrq; };
  std::vector<Channel> channels_;
  bool closed_ = false;
};

}  // namespace scgpu
