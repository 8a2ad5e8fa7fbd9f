// The transactor of the LSU coalescer: the Coalescer boundary (sm/timing/coalescer.h) turned into
// the pins of rtl/lsu_coalescer.sv and back, for any Verilated build of the block (the product's,
// or a test's copy with a planted bug). One access is one handshake on `in`, then lines are taken
// from `out` until out_last; the Verilated model is clocked by this code (no SystemC signals), as
// many RTL cycles as the access needs: the model's coalescing takes no simulated time, and the
// RTL's pipelining is internal to the block.
#pragma once

#include <fmt/format.h>
#include "rtl/verilated_block.h"
#include "rtl/wave_window.h"

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "sm/timing/coalescer.h"

namespace scgpu::rtl {

// rtl-verif: one cycle of the coalescer's inputs and the model's side, for the divergence window
// (rtl/wave/lsu_coalescer_wave.sv has the pins).
struct CoalescerPins {
  bool rst_n = false, in_valid = false, out_ready = false, model_valid = false;
  std::uint32_t in_mask = 0;
  std::uint8_t in_bytes = 0, model_sectors = 0;
  std::array<std::uint32_t, 64> in_addr{};
  std::uint64_t model_line = 0, model_cycle = 0;
  template <typename W>
  void apply(W* w) const {
    w->rst_n = rst_n;
    w->in_valid = in_valid;
    w->out_ready = out_ready;
    w->in_mask = in_mask;
    w->in_bytes = in_bytes;
    for (std::size_t i = 0; i < in_addr.size(); ++i) w->in_addr[i] = in_addr[i];
    w->model_valid = model_valid;
    w->model_line = model_line;
    w->model_sectors = model_sectors;
    w->model_cycle = model_cycle;
  }
};

// Model: the Verilated block. WaveModel: the same block inside rtl/wave/lsu_coalescer_wave.sv,
// built with --trace, for the waveform of a divergence in cosim (void: none).
template <typename Model, typename WaveModel = void>
class CoalescerTransactor : public sm::timing::Coalescer {
 public:
  explicit CoalescerTransactor(const std::string& instance)
      : top_("lsu_coalescer"), instance_(instance) {
    top_->clk = 0;
    top_->rst_n = 0;
    top_->in_valid = 0;
    top_->out_ready = 0;
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->eval();
  }
  const char* implName() const override { return "rtl"; }

  // ---- rtl-verif: the divergence window -----------------------------------------------------------
  void keepWaveform() override {
    if constexpr (!std::is_void_v<WaveModel>) {
      // From reset on: the lagging instance replays every cycle (the constructor's reset included),
      // so its state at the window's start is the live block's.
      if (!window_) {
        window_ = std::make_unique<WaveWindow<WaveModel, CoalescerPins>>(kWindowCycles);
        for (const CoalescerPins& p : before_window_) window_->push(p);
        before_window_.clear();
      }
    }
  }
  void expect(const std::vector<sm::timing::LineAccess>& lines) override { model_lines_ = lines; }
  std::string writeWaveform(const std::string& stem) override {
    if constexpr (std::is_void_v<WaveModel>) {
      return "";
    } else {
      if (!window_) return "";
      const std::uint64_t first = window_->firstCycle(), n = window_->size();
      const std::string top = "TOP.lsu_coalescer_wave.";
      using F = WaveSignal;
      std::vector<WaveSignal> sigs{
          {top + "clk", 1, F::Bin, "pins"}, {top + "rst_n", 1, F::Bin, "pins"},
          {top + "in_valid", 1, F::Bin, "pins"}, {top + "in_ready", 1, F::Bin, "pins"},
          {top + "in_mask", 32, F::Hex, "pins"}, {top + "in_bytes", 5, F::Dec, "pins"},
          {top + "out_valid", 1, F::Bin, "pins"}, {top + "out_ready", 1, F::Bin, "pins"},
          {top + "out_line", 64, F::Hex, "pins"}, {top + "out_sectors", 4, F::Bin, "pins"},
          {top + "out_last", 1, F::Bin, "pins"},
          {top + "model_cycle", 64, F::Dec, "model"}, {top + "model_valid", 1, F::Bin, "model"},
          {top + "model_line", 64, F::Hex, "model"}, {top + "model_sectors", 4, F::Bin, "model"},
          {top + "mismatch", 1, F::Bin, "model"},
          {top + "dut.state_q", 2, F::Dec, "rtl internals"}, {top + "dut.mask_q", 32, F::Hex, "rtl internals"},
          {top + "dut.first", 32, F::Hex, "rtl internals"}, {top + "dut.pending_q", 32, F::Hex, "rtl internals"},
          {top + "dut.next_lane", 5, F::Dec, "rtl internals"},
          {top + "dut.pending_after", 32, F::Hex, "rtl internals"}};
      // The marker: the clock edge of the first out handshake whose line the model does not
      // expect (half a cycle into its cycle), else the end of the window.
      window_->write(stem, sigs, mismatch_cycle_ ? *mismatch_cycle_ : first + n, mismatch_cycle_.has_value());
      return fmt::format("  waveform: {}.fst (RTL cycles {}..{} of this instance, 1 ns each; the model's side as "
                         "model_*, the RTL's internals under dut), view: gtkwave {}.gtkw\n",
                         stem, first, first + n - 1, stem);
    }
  }

  void coalesce(const sm::timing::LaneAccesses& in, std::vector<sm::timing::LineAccess>& out) override {
    access_cycle_ = in.cycle;
    emitted_ = 0;
    // Wait for in_ready (the block is idle between accesses, so this is at most a few cycles).
    for (int guard = 0; !top_->in_ready; ++guard) {
      if (guard > kMaxCycles) stuck("in_ready");
      tick();
    }
    top_->in_valid = 1;
    top_->in_mask = in.mask;
    top_->in_bytes = in.bytes & 0x1F;
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint64_t a = (in.mask >> lane) & 1 ? in.addr[lane] : 0;
      top_->in_addr[2 * lane] = std::uint32_t(a);
      top_->in_addr[2 * lane + 1] = std::uint32_t(a >> 32);
    }
    top_->eval();
    tick();  // the access is taken
    top_->in_valid = 0;
    top_->out_ready = 1;
    top_->eval();
    for (int guard = 0;; ++guard) {
      if (guard > kMaxCycles) stuck("out_last");
      if (top_->out_valid) {
        out.push_back(sm::timing::LineAccess{top_->out_line, top_->out_sectors});
        const bool last = top_->out_last;
        if (!mismatch_cycle_ && window_active() &&
            (emitted_ >= model_lines_.size() || model_lines_[emitted_] != out.back()))
          mismatch_cycle_ = top_.cycles();
        tick();
        ++emitted_;
        if (last) break;
      } else if (top_->in_ready) {
        break;  // no active lane: nothing to send
      } else {
        tick();
      }
    }
    top_->out_ready = 0;
    top_->eval();
    model_lines_.clear();
  }

  // RTL clock cycles run so far (reset included).
  std::uint64_t cycles() const { return top_.cycles(); }

 private:
  void tick() {
    if constexpr (!std::is_void_v<WaveModel>) {
      // The pins of this edge, for the divergence window (kept from reset until cosim asks for
      // the window or the block is known to be used without it: a few cycles at most).
      if (window_ || before_window_.size() < kResetCycles) {
        CoalescerPins p;
        p.rst_n = top_->rst_n;
        p.in_valid = top_->in_valid;
        p.out_ready = top_->out_ready;
        p.in_mask = top_->in_mask;
        p.in_bytes = top_->in_bytes;
        for (std::size_t i = 0; i < p.in_addr.size(); ++i) p.in_addr[i] = top_->in_addr[i];
        p.model_cycle = access_cycle_;
        p.model_valid = emitted_ < model_lines_.size();
        if (p.model_valid) {
          p.model_line = model_lines_[emitted_].line;
          p.model_sectors = std::uint8_t(model_lines_[emitted_].sectors);
        }
        if (window_) window_->push(p);
        else before_window_.push_back(p);
      }
    }
    top_.tick();
  }
  bool window_active() const {
    if constexpr (std::is_void_v<WaveModel>) return false;
    else return bool(window_);
  }
  [[noreturn]] void stuck(const char* what) const {
    throw std::runtime_error(fmt::format("{} (rtl/lsu_coalescer.sv): no {} within {} RTL cycles", instance_, what,
                                         kMaxCycles));
  }
  static constexpr int kMaxCycles = 1000;  // an access takes at most 2 + 64 cycles
  VerilatedBlock<Model> top_;
  std::string instance_;
  // rtl-verif: the divergence window (cosim only).
  static constexpr std::size_t kWindowCycles = 256;  // several accesses (each 2 + its lines)
  static constexpr std::size_t kResetCycles = 4;     // the constructor's cycles, kept for the window
  struct NoWindow {};
  std::conditional_t<std::is_void_v<WaveModel>, std::unique_ptr<NoWindow>,
                     std::unique_ptr<WaveWindow<WaveModel, CoalescerPins>>>
      window_;
  std::vector<CoalescerPins> before_window_;
  std::vector<sm::timing::LineAccess> model_lines_;
  std::size_t emitted_ = 0;
  std::uint64_t access_cycle_ = 0;
  std::optional<std::uint64_t> mismatch_cycle_;
};

}  // namespace scgpu::rtl
