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
#include <string>
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

}  // namespace scgpu::rtl
