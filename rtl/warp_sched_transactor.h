// The transactor of the warp-scheduler arbiter: the WarpScheduler boundary (sm/timing/
// warp_scheduler.h) turned into the pins of rtl/warp_sched_arbiter.sv and back, for any Verilated
// build of the block (one per policy). Each call of the boundary is one RTL clock: add and remove
// pulse their valid for a cycle; a pick drives the ready and parked masks, reads the grant
// combinationally and commits it with the clock edge. Warp slots map to the RTL's local indices
// as the SM maps them to sub-cores: slot = local * sub_cores + sub_core.
#pragma once

#include <fmt/format.h>
#include "rtl/verilated_block.h"
#include "rtl/wave_window.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "sm/timing/warp_scheduler.h"

namespace scgpu::rtl {

// rtl-verif: one cycle of the arbiter's inputs and the model's answer, for the divergence window
// (rtl/wave/warp_sched_arbiter_wave.sv has the pins).
struct WarpSchedPins {
  bool rst_n = false, add_valid = false, remove_valid = false, pick_valid = false, model_valid = false;
  std::uint32_t cfg_active = 0, add_idx = 0, remove_idx = 0, model_idx = 0;
  std::uint64_t ready = 0, parked = 0;
  template <typename W>
  void apply(W* w) const {
    w->rst_n = rst_n;
    w->cfg_active = cfg_active;
    w->add_valid = add_valid;
    w->add_idx = add_idx;
    w->remove_valid = remove_valid;
    w->remove_idx = remove_idx;
    w->pick_valid = pick_valid;
    w->ready = ready;
    w->parked = parked;
    w->model_valid = model_valid;
    w->model_idx = model_idx;
  }
};

// Model: the Verilated block. WaveModel: the same block inside rtl/wave/warp_sched_arbiter_wave.sv,
// built with --trace, for the waveform of a divergence in cosim (void: none).
template <typename Model, typename WaveModel = void>
class WarpSchedTransactor : public sm::timing::WarpScheduler {
 public:
  WarpSchedTransactor(const sm::timing::SchedulerParams& p, std::string policy_name)
      : top_("warp_sched_arbiter"), p_(p), policy_(std::move(policy_name)) {
    top_->clk = 0;
    top_->rst_n = 0;
    top_->cfg_active = std::max<std::uint32_t>(p.two_level_active_warps, 1);
    top_->add_valid = top_->remove_valid = top_->pick_valid = 0;
    top_->ready = top_->parked = 0;
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->eval();
  }

  void add(std::uint32_t slot) override {
    top_->add_valid = 1;
    top_->add_idx = local(slot);
    tick();
    top_->add_valid = 0;
  }
  void remove(std::uint32_t slot) override {
    top_->remove_valid = 1;
    top_->remove_idx = local(slot);
    tick();
    top_->remove_valid = 0;
  }
  int pick(const std::vector<std::uint32_t>& warps, const std::vector<sm::timing::Reason>& status) override {
    std::uint64_t ready = 0, parked = 0;
    for (std::uint32_t s : warps) {
      const sm::timing::Reason r = status[s];
      if (r == sm::timing::Reason::Ready) ready |= std::uint64_t(1) << local(s);
      if (sm::timing::isLongWait(r)) parked |= std::uint64_t(1) << local(s);
    }
    top_->ready = ready;
    top_->parked = parked;
    top_->pick_valid = 1;
    top_->eval();
    const bool valid = top_->grant_valid;
    const std::uint32_t slot = std::uint32_t(top_->grant_idx) * p_.sub_cores + p_.sub_core;
    if (window_active() && !mismatch_cycle_ &&
        (valid != (model_slot_ >= 0) || (valid && int(slot) != model_slot_)))
      mismatch_cycle_ = top_.cycles();
    tick();
    model_slot_ = -1;
    top_->pick_valid = 0;
    if (!valid) return -1;
    for (std::size_t i = 0; i < warps.size(); ++i)
      if (warps[i] == slot) return int(i);
    return -1;  // a grant to a warp that is not live: reported by cosim as a wrong answer
  }
  void issued(std::uint32_t) override {}  // the pick's clock edge committed it
  const char* name() const override { return policy_.c_str(); }

  // ---- rtl-verif: the divergence window -----------------------------------------------------------
  void keepWaveform() override {
    if constexpr (!std::is_void_v<WaveModel>) {
      if (!window_) {
        window_ = std::make_unique<WaveWindow<WaveModel, WarpSchedPins>>(kWindowCycles);
        for (const WarpSchedPins& p : before_window_) window_->push(p);
        before_window_.clear();
      }
    }
  }
  void expect(int model_slot) override { model_slot_ = model_slot; }
  std::string writeWaveform(const std::string& stem) override {
    if constexpr (std::is_void_v<WaveModel>) {
      return "";
    } else {
      if (!window_) return "";
      const std::uint64_t first = window_->firstCycle(), n = window_->size();
      const std::string top = "TOP.warp_sched_arbiter_wave.";
      const int w = int(p_.warps_per_sub_core <= 16 ? 16 : kBuiltWarps), ib = w <= 16 ? 4 : 5;
      using F = WaveSignal;
      std::vector<WaveSignal> sigs{
          {top + "clk", 1, F::Bin, "pins"}, {top + "rst_n", 1, F::Bin, "pins"},
          {top + "add_valid", 1, F::Bin, "pins"}, {top + "add_idx", ib, F::Dec, "pins"},
          {top + "remove_valid", 1, F::Bin, "pins"}, {top + "remove_idx", ib, F::Dec, "pins"},
          {top + "pick_valid", 1, F::Bin, "pins"}, {top + "ready", w, F::Hex, "pins"},
          {top + "parked", w, F::Hex, "pins"}, {top + "grant_valid", 1, F::Bin, "pins"},
          {top + "grant_idx", ib, F::Dec, "pins"},
          {top + "model_valid", 1, F::Bin, "model"}, {top + "model_idx", ib, F::Dec, "model"},
          {top + "mismatch", 1, F::Bin, "model"},
          {top + "dut.live_q", w, F::Hex, "rtl internals"}, {top + "dut.last_valid_q", 1, F::Bin, "rtl internals"},
          {top + "dut.last_q", ib, F::Dec, "rtl internals"}, {top + "dut.cand_all", w, F::Hex, "rtl internals"},
          {top + "dut.cand_after", w, F::Hex, "rtl internals"}, {top + "dut.active_q", w, F::Hex, "rtl internals"},
          {top + "dut.pending_q", w, F::Hex, "rtl internals"}};
      window_->write(stem, sigs, mismatch_cycle_ ? *mismatch_cycle_ : first + n, mismatch_cycle_.has_value());
      return fmt::format("  waveform: {}.fst (RTL cycles {}..{} of this instance, 1 ns each, one per add, remove or "
                         "pick; the model's grant as model_* (local warp index = slot / sm.sub_cores), the RTL's "
                         "internals under dut), view: gtkwave {}.gtkw\n",
                         stem, first, first + n - 1, stem);
    }
  }

 private:
  std::uint32_t local(std::uint32_t slot) const { return slot / p_.sub_cores; }
  void tick() {
    if constexpr (!std::is_void_v<WaveModel>) {
      if (window_ || before_window_.size() < kResetCycles) {
        WarpSchedPins p;
        p.rst_n = top_->rst_n;
        p.cfg_active = top_->cfg_active;
        p.add_valid = top_->add_valid;
        p.add_idx = top_->add_idx;
        p.remove_valid = top_->remove_valid;
        p.remove_idx = top_->remove_idx;
        p.pick_valid = top_->pick_valid;
        p.ready = top_->ready;
        p.parked = top_->parked;
        p.model_valid = top_->pick_valid && model_slot_ >= 0;
        p.model_idx = p.model_valid ? local(std::uint32_t(model_slot_)) : 0;
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
  VerilatedBlock<Model> top_;
  sm::timing::SchedulerParams p_;
  std::string policy_;
  // rtl-verif: the divergence window (cosim only).
  static constexpr std::size_t kWindowCycles = 256;
  static constexpr std::size_t kResetCycles = 4;
  static constexpr int kBuiltWarps = 32;  // the larger build's NUM_WARPS (rtl_params.h's kSchedulerWarps)
  struct NoWindow {};
  std::conditional_t<std::is_void_v<WaveModel>, std::unique_ptr<NoWindow>,
                     std::unique_ptr<WaveWindow<WaveModel, WarpSchedPins>>>
      window_;
  std::vector<WarpSchedPins> before_window_;
  int model_slot_ = -1;
  std::optional<std::uint64_t> mismatch_cycle_;
};

}  // namespace scgpu::rtl
