// rtl-verif: the waveform of a co-simulation divergence. In cosim, a transactor keeps the window
// of its block's last cycles: a second instance of the block, built with --trace inside a wrapper
// that adds the model's side as pins (rtl/wave/<block>_wave.sv), runs `window` cycles behind the
// live one, fed from a ring of the pins the live one saw each cycle. On a divergence it replays the
// ring with tracing on: the RTL's internal signals and the model's, on one time base (the block's
// clock, 1 ns a cycle), for exactly the window before the divergence, written as FST with a .gtkw.
// Nothing is traced, and nothing is kept, outside cosim; the cost in cosim is the second instance.
#pragma once

#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rtl/verilated_block.h"

namespace scgpu::rtl {

// Converts Verilator's VCD (binary and scalar values, nested scopes) to FST with the FST writer of
// tlm/trace (GTKWave's fstapi). Throws std::runtime_error when a file cannot be read or written.
void vcdToFst(const std::string& vcd_path, const std::string& fst_path);

// One signal of a .gtkw view: its full path in the FST ("TOP.lsu_coalescer_wave.dut.state_q"),
// its width (the view names vectors with their range) and how to show it.
struct WaveSignal {
  std::string path;
  int width = 1;
  enum Format { Bin, Hex, Dec } format = Hex;
  std::string group;  // a group starts where this changes ("" for none)
};

// Writes a GTKWave save file for `fst_path` showing `signals`, with the marker at `marker_ps`.
void writeGtkw(const std::string& gtkw_path, const std::string& fst_path, const std::vector<WaveSignal>& signals,
               std::uint64_t marker_ps);

// Pins: what one cycle of the block's inputs (and the model's side) holds; apply(model) drives
// them onto the wave wrapper's pins.
template <typename WaveModel, typename Pins>
class WaveWindow {
 public:
  static constexpr std::uint64_t kCyclePs = 1000;  // 1 ns per block clock cycle in the waveform

  explicit WaveWindow(std::size_t cycles) : cycles_(cycles), lag_("TOP", /*trace=*/true) {}

  // The live block's inputs at this clock edge (call once per live cycle, before the edge).
  void push(const Pins& p) {
    ring_.push_back(p);
    if (ring_.size() > cycles_) {
      step(ring_.front(), nullptr);
      ring_.pop_front();
    }
  }
  // Cycle index (since the live block was built) of the first cycle in the window.
  std::uint64_t firstCycle() const { return lag_cycles_; }
  std::size_t size() const { return ring_.size(); }

  // Replays the window with tracing on into `stem`.fst and writes `stem`.gtkw showing `signals`,
  // with the marker on cycle `marker_cycle` (an absolute cycle index, as firstCycle()).
  // The lagging instance is left at the end of the window (it is of no further use: the run stops).
  // marker_at_edge: on that cycle's rising edge rather than its start.
  void write(const std::string& stem, const std::vector<WaveSignal>& signals, std::uint64_t marker_cycle,
             bool marker_at_edge) {
    const std::string vcd = stem + ".tmp.vcd";
    {
      VerilatedVcdC tfp;
      lag_->trace(&tfp, 99);
      tfp.open(vcd.c_str());
      for (const Pins& p : ring_) step(p, &tfp);
      tfp.dump(lag_cycles_ * kCyclePs);  // the end of the last cycle
      tfp.close();
    }
    ring_.clear();
    vcdToFst(vcd, stem + ".fst");
    std::remove(vcd.c_str());
    writeGtkw(stem + ".gtkw", stem + ".fst", signals, marker_cycle * kCyclePs + (marker_at_edge ? kCyclePs / 2 : 0));
  }

 private:
  // One clock cycle of the lagging instance, as VerilatedBlock::tick does it, dumping each half.
  void step(const Pins& p, VerilatedVcdC* tfp) {
    p.apply(lag_.get());
    lag_->clk = 0;
    lag_->eval();
    if (tfp) tfp->dump(lag_cycles_ * kCyclePs);
    lag_->clk = 1;
    lag_->eval();
    if (tfp) tfp->dump(lag_cycles_ * kCyclePs + kCyclePs / 2);
    lag_->clk = 0;
    lag_->eval();
    ++lag_cycles_;
  }

  std::size_t cycles_;
  VerilatedBlock<WaveModel> lag_;
  std::deque<Pins> ring_;
  std::uint64_t lag_cycles_ = 0;
};

// What a transactor keeps for its divergence waveform, whatever the block: the block's first
// `reset_cycles` cycles are always kept (the cosim wrapper asks for the window only once the
// transactor, which resets its block when it is built, exists), then, from keep() on, the window.
// Cycles are counted from the live block's first: record() is called once per live clock edge,
// before it, with that cycle's pins; markMismatch() before the record() of the cycle on which the
// RTL's output first differs from the model's puts the marker there.
template <typename WaveModel, typename Pins>
class WaveRecorder {
 public:
  static constexpr bool kEnabled = true;
  WaveRecorder(std::size_t window_cycles, std::size_t reset_cycles)
      : window_cycles_(window_cycles), reset_cycles_(reset_cycles) {}
  void keep() {
    if (window_) return;
    window_ = std::make_unique<WaveWindow<WaveModel, Pins>>(window_cycles_);
    for (const Pins& p : before_) window_->push(p);
    before_.clear();
  }
  // Whether the next cycle's pins are wanted (the caller may skip building them otherwise).
  bool wants() const { return window_ || before_.size() < reset_cycles_; }
  bool keeping() const { return bool(window_); }
  void record(const Pins& p) {
    if (window_) window_->push(p);
    else if (before_.size() < reset_cycles_) before_.push_back(p);
    ++recorded_;
  }
  void markMismatch() {
    if (window_ && !mismatch_) mismatch_ = recorded_;
  }
  // Writes the window to stem.fst and stem.gtkw; returns the first and last cycle it holds, or
  // nothing when no window is kept.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> write(const std::string& stem,
                                                               const std::vector<WaveSignal>& signals) {
    if (!window_ || window_->size() == 0) return std::nullopt;
    const std::uint64_t first = window_->firstCycle(), n = window_->size();
    window_->write(stem, signals, mismatch_ ? *mismatch_ : first + n, mismatch_.has_value());
    return std::pair{first, first + n - 1};
  }

 private:
  std::size_t window_cycles_, reset_cycles_;
  std::unique_ptr<WaveWindow<WaveModel, Pins>> window_;
  std::vector<Pins> before_;
  std::uint64_t recorded_ = 0;
  std::optional<std::uint64_t> mismatch_;
};

// No waveform build (WaveModel void): nothing is kept.
template <typename Pins>
class WaveRecorder<void, Pins> {
 public:
  static constexpr bool kEnabled = false;
  WaveRecorder(std::size_t, std::size_t) {}
  void keep() {}
  bool wants() const { return false; }
  bool keeping() const { return false; }
  void record(const Pins&) {}
  void markMismatch() {}
  std::optional<std::pair<std::uint64_t, std::uint64_t>> write(const std::string&, const std::vector<WaveSignal>&) {
    return std::nullopt;
  }
};

}  // namespace scgpu::rtl
