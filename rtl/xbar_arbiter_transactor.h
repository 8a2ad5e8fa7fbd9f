// The transactor of the crossbar switch allocator: memsys::CrossbarArbiter's calls as pin activity
// on rtl/xbar_arbiter.sv, for any Verilated build of the block (round robin or fixed priority:
// ROUND_ROBIN is a parameter; or a test's copy with a planted bug). A grant is combinational
// (drive grant_valid, grant_out and req, evaluate, read gnt); done is one clock with done_valid,
// which moves the output's pointer.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "memsys/crossbar_arbiter.h"
#include "rtl/rtl_params.h"
#include "rtl/verilated_block.h"
#include "rtl/wave_window.h"

namespace scgpu::rtl {

// rtl-verif: one operation's pins and the model's grant, for the divergence window
// (rtl/wave/xbar_arbiter_wave.sv has the pins). The window gives every operation a clock cycle:
// a grant's edge changes nothing (done_valid is low), so the traced instance's state is the live one's.
struct XbarArbiterPins {
  bool rst_n = false, grant_valid = false, done_valid = false, model_valid = false;
  std::uint32_t grant_out = 0, done_out = 0, done_in = 0, model_idx = 0;
  std::uint32_t req[kXbarPorts / 32] = {};
  template <typename W>
  void apply(W* w) const {
    w->rst_n = rst_n;
    w->grant_valid = grant_valid;
    w->grant_out = grant_out;
    for (std::size_t i = 0; i < kXbarPorts / 32; ++i) w->req[i] = req[i];
    w->done_valid = done_valid;
    w->done_out = done_out;
    w->done_in = done_in;
    w->model_valid = model_valid;
    w->model_idx = model_idx;
  }
};

// Model: the Verilated block. WaveModel: the same block inside rtl/wave/xbar_arbiter_wave.sv,
// built with --trace, for the waveform of a divergence in cosim (void: none).
template <typename Model, typename WaveModel = void>
class XbarArbiterTransactor : public memsys::CrossbarArbiter {
 public:
  XbarArbiterTransactor() : top_("xbar_arbiter") {
    top_->clk = 0;
    top_->rst_n = 0;
    top_->grant_valid = top_->done_valid = 0;
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->eval();
  }

  std::uint32_t grant(std::uint32_t output, const std::vector<std::uint64_t>& requests, std::uint64_t) override {
    top_->grant_valid = 1;
    top_->grant_out = output;
    for (std::size_t w = 0; w < kXbarPorts / 64; ++w) {
      const std::uint64_t v = w < requests.size() ? requests[w] : 0;
      top_->req[2 * w] = std::uint32_t(v);
      top_->req[2 * w + 1] = std::uint32_t(v >> 32);
    }
    top_->eval();
    const std::uint32_t g = top_->gnt_valid ? std::uint32_t(top_->gnt_idx) : kNone;
    if (wave_.wants()) {
      // The grant as one cycle of the window (the live block is not clocked for it).
      if (g != model_grant_) wave_.markMismatch();
      wave_.record(pins());
    }
    top_->grant_valid = 0;
    model_grant_ = kNone;
    return g;
  }
  void done(std::uint32_t output, std::uint32_t input) override {
    top_->done_valid = 1;
    top_->done_out = output;
    top_->done_in = input;
    tick();
    top_->done_valid = 0;
    top_->eval();
  }

  // ---- rtl-verif: the divergence window -----------------------------------------------------------
  void keepWaveform() override { wave_.keep(); }
  void expect(std::uint32_t model_grant) override { model_grant_ = model_grant; }
  std::string writeWaveform(const std::string& stem) override {
    const std::string top = "TOP.xbar_arbiter_wave.";
    constexpr int kIdx = 8;  // log2 kXbarPorts
    static_assert(kXbarPorts == 256, "the waveform's index widths assume 256 ports");
    using F = WaveSignal;
    const std::vector<WaveSignal> sigs{
        {top + "clk", 1, F::Bin, "pins"}, {top + "rst_n", 1, F::Bin, "pins"},
        {top + "grant_valid", 1, F::Bin, "pins"}, {top + "grant_out", kIdx, F::Dec, "pins"},
        {top + "req", int(kXbarPorts), F::Hex, "pins"}, {top + "gnt_valid", 1, F::Bin, "pins"},
        {top + "gnt_idx", kIdx, F::Dec, "pins"}, {top + "done_valid", 1, F::Bin, "pins"},
        {top + "done_out", kIdx, F::Dec, "pins"}, {top + "done_in", kIdx, F::Dec, "pins"},
        {top + "model_valid", 1, F::Bin, "model"}, {top + "model_idx", kIdx, F::Dec, "model"},
        {top + "mismatch", 1, F::Bin, "model"},
        {top + "dut.ptr", kIdx, F::Dec, "rtl internals"}, {top + "dut.above", int(kXbarPorts), F::Hex, "rtl internals"},
        {top + "dut.found_above", 1, F::Bin, "rtl internals"}, {top + "dut.first_above", kIdx, F::Dec, "rtl internals"},
        {top + "dut.found_any", 1, F::Bin, "rtl internals"}, {top + "dut.first_any", kIdx, F::Dec, "rtl internals"}};
    const auto span = wave_.write(stem, sigs);
    if (!span) return "";
    return fmt::format("  waveform: {}.fst (RTL cycles {}..{} of this instance, 1 ns each, one per grant or done; the "
                       "model's grant as model_*, the RTL's internals under dut: ptr is the asking output's pointer, "
                       "ptr_q every output's), view: gtkwave {}.gtkw\n",
                       stem, span->first, span->second, stem);
  }

 private:
  void tick() {
    if (wave_.wants()) wave_.record(pins());
    top_.tick();
  }
  XbarArbiterPins pins() {
    XbarArbiterPins p;
    Model* t = top_.get();
    p.rst_n = t->rst_n;
    p.grant_valid = t->grant_valid;
    p.grant_out = t->grant_out;
    for (std::size_t i = 0; i < kXbarPorts / 32; ++i) p.req[i] = t->req[i];
    p.done_valid = t->done_valid;
    p.done_out = t->done_out;
    p.done_in = t->done_in;
    p.model_valid = t->grant_valid && model_grant_ != kNone;
    p.model_idx = p.model_valid ? model_grant_ : 0;
    return p;
  }
  VerilatedBlock<Model> top_;
  // rtl-verif: the divergence window (cosim only): 256 operations, and the reset cycle.
  WaveRecorder<WaveModel, XbarArbiterPins> wave_{256, 4};
  std::uint32_t model_grant_ = kNone;
};

}  // namespace scgpu::rtl
