// The transactor of the L2 tag/MSHR stage: memsys::L2TagMshr's operations as pin activity on
// rtl/l2_tag_mshr.sv, for any Verilated build of the block (the product's, or a test's copy with a
// planted bug). One operation is one RTL clock: drive op_valid, op_kind, op_line (the line number:
// address / line bytes) and op_mask, evaluate, read the res_* pins (combinational), and commit with
// the rising edge. The configuration pins are driven once, from the config, at reset.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memsys/l2_tag_mshr.h"
#include "rtl/rtl_params.h"
#include "rtl/verilated_block.h"
#include "rtl/wave_window.h"

namespace scgpu::rtl {

// rtl-verif: one cycle of the stage's inputs and the model's result, for the divergence window
// (rtl/wave/l2_tag_mshr_wave.sv has the pins).
struct L2TagPins {
  bool rst_n = false, cfg_lru = false, cfg_write_back = false, cfg_alloc_on_write = false, op_valid = false;
  std::uint32_t cfg_set_mask = 0, cfg_ways = 0, cfg_entries = 0, cfg_merge = 0, op_kind = 0, op_mask = 0;
  std::uint64_t op_line = 0;
  memsys::L2TagResult model;  // in line numbers, as the pins
  template <typename W>
  void apply(W* w) const {
    w->rst_n = rst_n;
    w->cfg_set_mask = cfg_set_mask;
    w->cfg_ways = cfg_ways;
    w->cfg_entries = cfg_entries;
    w->cfg_merge = cfg_merge;
    w->cfg_lru = cfg_lru;
    w->cfg_write_back = cfg_write_back;
    w->cfg_alloc_on_write = cfg_alloc_on_write;
    w->op_valid = op_valid;
    w->op_kind = op_kind;
    w->op_line = op_line;
    w->op_mask = op_mask;
    w->model_kind = std::uint32_t(model.outcome);
    w->model_line_present = model.line_present;
    w->model_hit_mask = model.hit_mask;
    w->model_miss_mask = model.miss_mask;
    w->model_dram_mask = model.dram_mask;
    w->model_mshr = model.mshr;
    w->model_count = model.count;
    w->model_victim = model.victim;
    w->model_victim_line = model.victim_line;
    w->model_victim_dirty = model.victim_dirty;
    w->model_error = model.error;
  }
};

// Model: the Verilated block. WaveModel: the same block inside rtl/wave/l2_tag_mshr_wave.sv, built
// with --trace, for the waveform of a divergence in cosim (void: none).
template <typename Model, typename WaveModel = void>
class L2TagTransactor : public memsys::L2TagMshr {
 public:
  // `sets`: the slice's, from the cache geometry (a power of two).
  L2TagTransactor(const memsys::L2TagParams& p, std::uint32_t sets) : top_("l2_tag_mshr") {
    const CacheParams& c = p.cache;
    line_shift_ = unsigned(__builtin_ctzll(c.line_bytes));
    top_->clk = 0;
    top_->rst_n = 0;
    top_->cfg_set_mask = sets - 1;
    top_->cfg_ways = c.associativity;
    top_->cfg_entries = c.mshr_entries;
    top_->cfg_merge = c.mshr_max_merge;
    top_->cfg_lru = c.replacement == "lru";
    top_->cfg_write_back = c.write_policy == "write_back";
    top_->cfg_alloc_on_write = c.allocate_on_write;
    top_->op_valid = 0;
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->eval();
  }

  memsys::L2TagResult operate(const memsys::L2TagRequest& q, std::uint64_t) override {
    top_->op_valid = 1;
    top_->op_kind = kOpCode[int(q.op)];
    top_->op_line = q.line >> line_shift_;
    top_->op_mask = q.mask;
    top_->eval();
    memsys::L2TagResult r;
    r.outcome = memsys::L2TagOutcome(top_->res_kind);  // the RTL's RES_* codes are the enum's order
    r.line_present = top_->res_line_present;
    r.hit_mask = top_->res_hit_mask;
    r.miss_mask = top_->res_miss_mask;
    r.dram_mask = top_->res_dram_mask;
    r.mshr = top_->res_mshr;
    r.count = top_->res_count;
    r.victim = top_->res_victim;
    r.victim_line = std::uint64_t(top_->res_victim_line) << line_shift_;
    r.victim_dirty = top_->res_victim_dirty;
    r.error = top_->res_error;
    if (wave_.keeping() && model_ && r != *model_) wave_.markMismatch();
    tick();  // commit
    top_->op_valid = 0;
    model_.reset();
    return r;
  }

  // The Verilated model's context (a test writes a coverage build's data from it).
  VerilatedContext* context() { return top_.context(); }

  // ---- rtl-verif: the divergence window -----------------------------------------------------------
  void keepWaveform() override { wave_.keep(); }
  void expect(const memsys::L2TagResult& model_result) override { model_ = model_result; }
  std::string writeWaveform(const std::string& stem) override {
    const std::string top = "TOP.l2_tag_mshr_wave.";
    const int line_w = int(kL2LineBits), sec = int(kL2Sectors), mshr = log2(kL2MshrEntries),
              cnt = log2(kL2MshrMerge) + 1, set = log2(kL2Sets);
    using F = WaveSignal;
    std::vector<WaveSignal> sigs{
        {top + "clk", 1, F::Bin, "pins"}, {top + "rst_n", 1, F::Bin, "pins"},
        {top + "op_valid", 1, F::Bin, "pins"}, {top + "op_kind", 3, F::Dec, "pins"},
        {top + "op_line", line_w, F::Hex, "pins"}, {top + "op_mask", sec, F::Bin, "pins"},
        {top + "res_kind", 3, F::Dec, "pins"}, {top + "res_line_present", 1, F::Bin, "pins"},
        {top + "res_hit_mask", sec, F::Bin, "pins"}, {top + "res_miss_mask", sec, F::Bin, "pins"},
        {top + "res_dram_mask", sec, F::Bin, "pins"}, {top + "res_mshr", mshr, F::Dec, "pins"},
        {top + "res_count", cnt, F::Dec, "pins"}, {top + "res_victim", 1, F::Bin, "pins"},
        {top + "res_victim_line", line_w, F::Hex, "pins"}, {top + "res_victim_dirty", sec, F::Bin, "pins"},
        {top + "res_error", 1, F::Bin, "pins"},
        {top + "model_kind", 3, F::Dec, "model"}, {top + "model_line_present", 1, F::Bin, "model"},
        {top + "model_hit_mask", sec, F::Bin, "model"}, {top + "model_miss_mask", sec, F::Bin, "model"},
        {top + "model_dram_mask", sec, F::Bin, "model"}, {top + "model_mshr", mshr, F::Dec, "model"},
        {top + "model_count", cnt, F::Dec, "model"}, {top + "model_victim", 1, F::Bin, "model"},
        {top + "model_victim_line", line_w, F::Hex, "model"}, {top + "model_victim_dirty", sec, F::Bin, "model"},
        {top + "mismatch", 1, F::Bin, "model"},
        {top + "dut.set", set, F::Dec, "rtl internals"}, {top + "dut.present", 1, F::Bin, "rtl internals"},
        {top + "dut.hit_way", log2(kL2Ways), F::Dec, "rtl internals"},
        {top + "dut.way_sel", log2(kL2Ways), F::Dec, "rtl internals"},
        {top + "dut.line_vm", sec, F::Bin, "rtl internals"}, {top + "dut.line_dm", sec, F::Bin, "rtl internals"},
        {top + "dut.m_found", 1, F::Bin, "rtl internals"}, {top + "dut.m_idx", mshr, F::Dec, "rtl internals"},
        {top + "dut.m_any_free", 1, F::Bin, "rtl internals"}, {top + "dut.m_free", mshr, F::Dec, "rtl internals"}};
    const auto span = wave_.write(stem, sigs);
    if (!span) return "";
    return fmt::format("  waveform: {}.fst (RTL cycles {}..{} of this instance, 1 ns each, one per tag operation; the "
                       "model's result as model_*, the RTL's internals under dut), view: gtkwave {}.gtkw\n",
                       stem, span->first, span->second, stem);
  }

 private:
  static int log2(std::uint32_t v) { return 31 - __builtin_clz(v); }
  void tick() {
    if (wave_.wants()) {
      L2TagPins p;
      Model* t = top_.get();
      p.rst_n = t->rst_n;
      p.cfg_set_mask = t->cfg_set_mask;
      p.cfg_ways = t->cfg_ways;
      p.cfg_entries = t->cfg_entries;
      p.cfg_merge = t->cfg_merge;
      p.cfg_lru = t->cfg_lru;
      p.cfg_write_back = t->cfg_write_back;
      p.cfg_alloc_on_write = t->cfg_alloc_on_write;
      p.op_valid = t->op_valid;
      p.op_kind = t->op_kind;
      p.op_line = t->op_line;
      p.op_mask = t->op_mask;
      if (t->op_valid && model_) {
        p.model = *model_;
        p.model.victim_line >>= line_shift_;  // the pins carry line numbers
      }
      wave_.record(p);
    }
    top_.tick();
  }
  // L2TagOp -> op_kind (OP_READ 0, OP_ATOMIC 1, OP_WRITE 2, OP_FILL 3, OP_UPDATE 4).
  static constexpr std::uint8_t kOpCode[] = {0, 1, 2, 3, 4};
  VerilatedBlock<Model> top_;
  unsigned line_shift_ = 7;
  // rtl-verif: the divergence window (cosim only): 256 operations, and the reset cycle.
  WaveRecorder<WaveModel, L2TagPins> wave_{256, 4};
  std::optional<memsys::L2TagResult> model_;
};

}  // namespace scgpu::rtl
