#include "tlm/chip_probes.h"

#include "base/output_file.h"

#include <cmath>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "tlm/blocks/dram_block.h"
#include "tlm/blocks/gigathread_block.h"
#include "tlm/blocks/l2_block.h"
#include "tlm/blocks/sm_block.h"
#include "tlm/blocks/xbar_block.h"
#include "tlm/gpu_top.h"

namespace scgpu {

using trace::Kind;

// ---- Timeline --------------------------------------------------------------------------------

namespace {
// Chrome trace events take microseconds.
double us(double ns) { return ns / 1000.0; }
}  // namespace

void Timeline::blockStart(std::uint32_t sm, std::uint32_t kernel, std::uint64_t block, double ns) {
  events_.push_back({{"name", fmt::format("block {}", block)}, {"cat", "block"}, {"ph", "B"}, {"pid", 1},
                     {"tid", sm}, {"ts", us(ns)}, {"args", {{"kernel", kernel}}}});
}
void Timeline::blockEnd(std::uint32_t sm, std::uint32_t kernel, std::uint64_t block, double ns) {
  events_.push_back({{"name", fmt::format("block {}", block)}, {"cat", "block"}, {"ph", "E"}, {"pid", 1},
                     {"tid", sm}, {"ts", us(ns)}, {"args", {{"kernel", kernel}}}});
}
void Timeline::kernel(const std::string& name, std::uint32_t track, double start_ns, double end_ns) {
  events_.push_back({{"name", name}, {"cat", "kernel"}, {"ph", "X"}, {"pid", 0}, {"tid", track},
                     {"ts", us(start_ns)}, {"dur", us(end_ns - start_ns)}});
}
void Timeline::copy(std::uint32_t engine, std::uint32_t track, std::uint64_t bytes, double start_ns, double end_ns) {
  static const char* const kEngine[] = {"copy host to device", "copy device to host", "copy within device"};
  events_.push_back({{"name", fmt::format("{} ({} bytes)", kEngine[engine < 3 ? engine : 2], bytes)},
                     {"cat", "copy"}, {"ph", "X"}, {"pid", 4}, {"tid", track}, {"ts", us(start_ns)},
                     {"dur", us(end_ns - start_ns)}, {"args", {{"engine", engine}, {"bytes", bytes}}}});
}
void Timeline::refresh(std::uint32_t channel, double start_ns, double duration_ns) {
  events_.push_back({{"name", "refresh"}, {"cat", "dram"}, {"ph", "X"}, {"pid", 2}, {"tid", channel},
                     {"ts", us(start_ns)}, {"dur", us(duration_ns)}});
}

void Timeline::warp(std::uint32_t sm, std::uint32_t sub_core, std::uint32_t slot, std::uint64_t block, bool start,
                    double ns) {
  const std::size_t key = std::size_t(sm) * 4096 + slot;
  if (warp_ids_.size() <= key) warp_ids_.resize(key + 1, 0);
  if (start) warp_ids_[key] = ++warp_seq_;
  events_.push_back({{"name", fmt::format("warp slot {} (block {})", slot, block)},
                     {"cat", fmt::format("sm{}.sched{}", sm, sub_core)},
                     {"ph", start ? "b" : "e"},
                     {"id", warp_ids_[key]},
                     {"pid", 3},
                     {"tid", sm},
                     {"ts", us(ns)}});
}

void Timeline::write() const {
  nlohmann::json meta = nlohmann::json::array();
  const char* names[] = {"kernels (per channel)", "SMs (blocks)", "DRAM channels (refresh)", "schedulers (warps)",
                         "copy engines (per channel)"};
  for (int pid = 0; pid < 5; ++pid)
    meta.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", names[pid]}}}});
  nlohmann::json all = meta;
  for (const auto& e : events_) all.push_back(e);
  writeOutputFile(path_, nlohmann::json{{"traceEvents", all}, {"displayTimeUnit", "ns"}}.dump(1) + "\n");
}

// ---- ChipProbes ------------------------------------------------------------------------------

ChipProbes::ChipProbes(GpuTop& top, const TraceOptions& o) : top_(top) {
  if (!o.timeline_path.empty()) timeline_ = std::make_unique<Timeline>(o.timeline_path);
  if (o.path.empty()) return;
  trace::Tracer::Options to;
  to.path = o.path;
  to.filters = o.filters;
  to.window_start = o.window_start;
  to.window_end = o.window_end;
  to.core_clock_mhz = top.params().clocks.core_clock_mhz;
  tracer_ = std::make_unique<trace::Tracer>(to);
  trace::Tracer& t = *tracer_;
  core_clk_ = t.add("gpu.core_clk", Kind::Clock);
  icnt_clk_ = t.add("gpu.icnt_clk", Kind::Clock);
  dram_clk_ = t.add("gpu.dram_clk", Kind::Clock);
  launched_ = t.add("gpu.gigathread.blocks_launched", Kind::Int, 32, trace::Radix::Dec);
  completed_ = t.add("gpu.gigathread.blocks_completed", Kind::Int, 32, trace::Radix::Dec);
  const GpuParams& p = top.params();
  for (std::uint32_t i = 0; i < p.sm.count; ++i) {
    const std::string sm = fmt::format("gpu.sm[{}]", i);
    Sm s;
    s.blocks = t.add(sm + ".resident_blocks", Kind::Analog, 8);
    s.warps = t.add(sm + ".active_warps", Kind::Analog, 8);
    s.barrier = t.add(sm + ".barrier_waits", Kind::Analog, 8);
    s.mbarrier = t.add(sm + ".mbarrier_waits", Kind::Analog, 8);
    s.lsu = t.add(sm + ".lsu_queue", Kind::Analog, 16);
    s.mshr = t.add(sm + ".l1_mshrs", Kind::Analog, 16);
    s.tma = t.add(sm + ".tma_in_flight", Kind::Analog, 16);
    for (std::uint32_t j = 0; j < p.sm.sub_cores; ++j) {
      const std::string sc = fmt::format("{}.sched[{}]", sm, j);
      // issues counts the instructions this scheduler issued in an issue slot (the counter
      // sched.issued; not those ptxas folds away, sched.issued_free): one value change per cycle.
      s.sched.push_back({t.add(sc + ".issues", Kind::Int, 32, trace::Radix::Dec), t.add(sc + ".warp", Kind::Int, 8, trace::Radix::Dec), t.add(sc + ".pc", Kind::Int, 32, trace::Radix::Hex),
                         t.add(sc + ".opcode", Kind::String), t.add(sc + ".stall", Kind::String),
                         t.add(sc + ".tensor_busy", Kind::Int, 1)});
    }
    sms_.push_back(s);
    issue_counts_.emplace_back(p.sm.sub_cores, 0);
    xbar_sm_.push_back(t.add(fmt::format("gpu.xbar.sm[{}].flits", i), Kind::Analog, 16));
  }
  for (std::uint32_t j = 0; j < p.l2.slices; ++j) {
    xbar_l2_.push_back(t.add(fmt::format("gpu.xbar.l2[{}].flits", j), Kind::Analog, 16));
    const std::string l2 = fmt::format("gpu.l2[{}]", j);
    slices_.push_back({t.add(l2 + ".queue", Kind::Analog, 16), t.add(l2 + ".mshrs", Kind::Analog, 16),
                       t.add(l2 + ".hits", Kind::Int, 32, trace::Radix::Dec), t.add(l2 + ".misses", Kind::Int, 32, trace::Radix::Dec)});
  }
  for (std::uint32_t c = 0; c < p.dram.channels; ++c) {
    const std::string d = fmt::format("gpu.dram[{}]", c);
    channels_.push_back({t.add(d + ".cmd", Kind::String), t.add(d + ".read_queue", Kind::Analog, 16),
                         t.add(d + ".write_queue", Kind::Analog, 16)});
  }
}

ChipProbes::~ChipProbes() {
  try {
    close();
  } catch (...) {
  }
}

// The waveform's time is device time - the chip's SystemC time plus the time it sat idle between
// kernels (GpuTop) - so it lines up with the timeline and the host interface's waveform.
void ChipProbes::advance() {
  const std::uint64_t fs = sc_core::sc_time_stamp().value();
  const std::uint64_t idle_ps = std::uint64_t(std::llround(top_.idleOffsetNs() * 1000.0));
  tracer_->advance(fs / 1000 + idle_ps, top_.coreCycle());  // femtoseconds -> picoseconds
}

void ChipProbes::sampleCore(std::uint64_t cycle) {
  if (!tracer_) return;
  advance();
  trace::Tracer& t = *tracer_;
  t.set(core_clk_, cycle & 1);
  t.set(launched_, top_.stats().value("gpu.gigathread.blocks_launched"));
  t.set(completed_, top_.stats().value("gpu.gigathread.blocks_completed"));
  for (std::size_t i = 0; i < sms_.size(); ++i) {
    const sm::SmCore& core = top_.sm(i).core;
    const Sm& s = sms_[i];
    const sm::SmCore::Occupancy o = core.occupancy(cycle);
    t.set(s.blocks, o.resident_blocks);
    t.set(s.warps, o.live_warps);
    t.set(s.barrier, o.barrier_waits);
    t.set(s.mbarrier, o.mbarrier_waits);
    t.set(s.lsu, o.lsu_queue);
    t.set(s.mshr, o.l1_mshrs);
    t.set(s.tma, o.tma_in_flight);
    const auto& last = core.lastCycle();
    for (std::size_t j = 0; j < s.sched.size() && j < last.size(); ++j) {
      const auto& tr = last[j];
      if (tr.slot_issues) t.set(s.sched[j].issues, issue_counts_[i][j] += tr.slot_issues);
      t.set(s.sched[j].warp, tr.warp < 0 ? 0xFF : std::uint64_t(tr.warp));
      if (tr.warp >= 0) t.set(s.sched[j].pc, tr.pc);
      t.setString(s.sched[j].opcode, tr.warp >= 0 ? tr.opcode : "");
      t.setString(s.sched[j].stall, tr.warp >= 0 ? "" : tr.stall);
      t.set(s.sched[j].tensor_busy, o.tensor_busy >> j & 1);
    }
  }
}

void ChipProbes::sampleIcnt(std::uint64_t cycle) {
  if (!tracer_) return;
  advance();
  trace::Tracer& t = *tracer_;
  t.set(icnt_clk_, cycle & 1);
  const memsys::Crossbar& x = top_.xbar().xbar;
  for (std::size_t i = 0; i < xbar_sm_.size(); ++i) t.set(xbar_sm_[i], x.flitsInFlight(std::uint32_t(i)));
  for (std::size_t j = 0; j < xbar_l2_.size(); ++j)
    t.set(xbar_l2_[j], x.requestOutputFlits(std::uint32_t(j)) + x.responseInputFlits(std::uint32_t(j)));
  for (std::size_t j = 0; j < slices_.size(); ++j) {
    const memsys::L2Slice& sl = top_.l2(j).slice;
    t.set(slices_[j].queue, sl.queueDepth());
    t.set(slices_[j].mshr, sl.mshrUsed());
    if (slices_[j].hits >= 0) t.set(slices_[j].hits, top_.stats().value(fmt::format("gpu.l2[{}].hits", j)));
    if (slices_[j].misses >= 0) t.set(slices_[j].misses, top_.stats().value(fmt::format("gpu.l2[{}].misses", j)));
  }
}

void ChipProbes::sampleDram(std::uint64_t cycle) {
  if (!tracer_ && !timeline_) return;
  const GpuParams& p = top_.params();
  if (tracer_) {
    advance();
    tracer_->set(dram_clk_, cycle & 1);
  }
  for (std::size_t c = 0; c < channels_.size() || (timeline_ && c < p.dram.channels); ++c) {
    const memsys::DramChannel& ch = top_.dram(c).channel;
    const memsys::DramChannel::Command cmd = ch.lastCommand();
    if (timeline_ && cmd.kind == memsys::DramChannel::Command::Ref)
      timeline_->refresh(std::uint32_t(c), top_.deviceNs(),
                         p.dram.timing.tRFC * 1e3 / p.clocks.dram_clock_mhz);
    if (!tracer_ || c >= channels_.size()) continue;
    std::string text;
    switch (cmd.kind) {
      case memsys::DramChannel::Command::Act: text = fmt::format("ACT b{} r{}", cmd.bank, cmd.row); break;
      case memsys::DramChannel::Command::Pre: text = fmt::format("PRE b{}", cmd.bank); break;
      case memsys::DramChannel::Command::Rd: text = fmt::format("RD b{}", cmd.bank); break;
      case memsys::DramChannel::Command::Wr: text = fmt::format("WR b{}", cmd.bank); break;
      case memsys::DramChannel::Command::Ref: text = "REF"; break;
      default: break;
    }
    tracer_->setString(channels_[c].cmd, text);
    tracer_->set(channels_[c].rdq, ch.readQueueDepth());
    tracer_->set(channels_[c].wrq, ch.writeQueueDepth());
  }
}

void ChipProbes::close() {
  if (closed_) return;
  closed_ = true;
  if (tracer_) tracer_->close();
  if (timeline_) timeline_->write();
}

}  // namespace scgpu
