// The transactor of the DRAM command scheduler: memsys::DramScheduler's calls as pin activity on
// rtl/dram_cmd_sched.sv, for any Verilated build of the block (the product's, or a test's copy
// with a planted bug). The channel's DRAM parameters go to the cfg_* pins, captured by the reset
// edge (cfg_load).
// An enqueue is one clock edge with enq_valid and cmd_en low (no DRAM cycle passes, so the burst
// takes part in the next decision, as in the model); step(t) reads the combinational command of
// cycle t and commits it with one edge with cmd_en high (the outputs depend on the state only, so
// they are settled after every edge and need no evaluation of their own). The RTL counts cycles
// itself, so it must be stepped every cycle: wake() is the next one.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "memsys/dram_scheduler.h"
#include "rtl/rtl_params.h"
#include "rtl/verilated_block.h"
#include "rtl/wave_window.h"

namespace scgpu::rtl {

// rtl-verif: one clock edge's inputs and the model's command, for the divergence window
// (rtl/wave/dram_cmd_sched_wave.sv has the pins). The cfg_* pins matter only on the reset edge
// (cfg_load), but every edge carries them: the traced instance is driven exactly as the live one.
struct DramSchedPins {
  bool rst_n = false, cfg_load = false, cfg_fr_fcfs = false, cfg_closed_page = false, cfg_refresh = false;
  std::uint32_t cfg_bpg_log2 = 0, cfg_wd_high = 0, cfg_wd_low = 0;
  std::uint32_t cfg_t[18] = {};  // tRCD tRP tRAS tRC tCL tCWL tCCD_S tCCD_L tRRD_S tRRD_L tFAW tWTR tRTW tWR tRTP tREFI tRFC burst
  bool enq_valid = false, enq_write = false, cmd_en = false;
  std::uint32_t enq_bank = 0, enq_row = 0, enq_tag = 0, enq_wait = 0;
  std::uint64_t model_cycle = 0;
  bool model_valid = false, model_tag_valid = false;
  std::uint32_t model_kind = 0, model_bank = 0, model_row = 0, model_tag = 0;
  template <typename W>
  static auto timing(W* w) {  // the timing pins, in cfg_t's order
    return std::array{&w->cfg_tRCD, &w->cfg_tRP, &w->cfg_tRAS, &w->cfg_tRC, &w->cfg_tCL, &w->cfg_tCWL,
                      &w->cfg_tCCD_S, &w->cfg_tCCD_L, &w->cfg_tRRD_S, &w->cfg_tRRD_L, &w->cfg_tFAW, &w->cfg_tWTR,
                      &w->cfg_tRTW, &w->cfg_tWR, &w->cfg_tRTP, &w->cfg_tREFI, &w->cfg_tRFC, &w->cfg_burst};
  }
  template <typename W>
  void apply(W* w) const {
    w->rst_n = rst_n;
    w->cfg_load = cfg_load;
    w->cfg_bpg_log2 = cfg_bpg_log2;
    w->cfg_fr_fcfs = cfg_fr_fcfs;
    w->cfg_closed_page = cfg_closed_page;
    w->cfg_refresh = cfg_refresh;
    w->cfg_wd_high = cfg_wd_high;
    w->cfg_wd_low = cfg_wd_low;
    const auto t = timing(w);
    for (std::size_t i = 0; i < t.size(); ++i) *t[i] = cfg_t[i];
    w->enq_valid = enq_valid;
    w->enq_write = enq_write;
    w->enq_bank = enq_bank;
    w->enq_row = enq_row;
    w->enq_tag = enq_tag;
    w->enq_wait = enq_wait;
    w->cmd_en = cmd_en;
    w->model_cycle = model_cycle;
    w->model_valid = model_valid;
    w->model_kind = model_kind;
    w->model_bank = model_bank;
    w->model_row = model_row;
    w->model_tag_valid = model_tag_valid;
    w->model_tag = model_tag;
  }
};

// Model: the Verilated block. WaveModel: the same block inside rtl/wave/dram_cmd_sched_wave.sv,
// built with --trace, for the waveform of a divergence in cosim (void: none).
template <typename Model, typename WaveModel = void>
class DramSchedTransactor : public memsys::DramScheduler {
 public:
  DramSchedTransactor(const memsys::DramSchedParams& p, std::string instance)
      : top_("dram_cmd_sched"), instance_(std::move(instance)) {
    std::uint32_t log2 = 0;
    while ((1u << log2) < p.banks_per_group) ++log2;
    top_->cfg_bpg_log2 = log2;
    top_->cfg_fr_fcfs = p.fr_fcfs;
    top_->cfg_closed_page = p.closed_page;
    top_->cfg_refresh = p.refresh;
    top_->cfg_wd_high = p.write_drain_high_watermark;
    top_->cfg_wd_low = p.write_drain_low_watermark;
    const DramTimingParams& t = p.timing;
    top_->cfg_tRCD = t.tRCD, top_->cfg_tRP = t.tRP, top_->cfg_tRAS = t.tRAS, top_->cfg_tRC = t.tRC;
    top_->cfg_tCL = t.tCL, top_->cfg_tCWL = t.tCWL, top_->cfg_tCCD_S = t.tCCD_S, top_->cfg_tCCD_L = t.tCCD_L;
    top_->cfg_tRRD_S = t.tRRD_S, top_->cfg_tRRD_L = t.tRRD_L, top_->cfg_tFAW = t.tFAW, top_->cfg_tWTR = t.tWTR;
    top_->cfg_tRTW = t.tRTW, top_->cfg_tWR = t.tWR, top_->cfg_tRTP = t.tRTP, top_->cfg_tREFI = t.tREFI;
    top_->cfg_tRFC = t.tRFC, top_->cfg_burst = p.burst_cycles;
    top_->clk = 0;
    top_->rst_n = 0;
    top_->enq_valid = top_->cmd_en = 0;
    top_->cfg_load = 1;  // the reset edge captures the configuration
    top_->eval();
    tick();
    top_->rst_n = 1;
    top_->cfg_load = 0;
    top_->cmd_en = 1;  // high except for enqueue edges
    top_->eval();
  }

  void enqueue(const memsys::DramSchedRequest& r) override {
    top_->enq_write = r.write;
    top_->eval();
    if (!top_->enq_ready)  // only a request larger than the whole queue, taken alone, can do this
      throw std::logic_error(fmt::format("{}: a burst for the {} queue, which is full (the RTL scheduler "
                                         "rtl/dram_cmd_sched.sv was built with QUEUE_DEPTH = {})",
                                         instance_, r.write ? "write" : "read", kDramQueueDepth));
    if (r.tag >= (1u << kDramTagBits))
      throw std::logic_error(fmt::format("{}: burst tag {} does not fit TAG_BITS = {} of rtl/dram_cmd_sched.sv",
                                         instance_, r.tag, kDramTagBits));
    top_->enq_valid = 1;
    top_->enq_bank = r.bank;
    top_->enq_row = r.row;
    top_->enq_tag = r.tag;
    top_->enq_wait = r.ready > now_ ? r.ready - now_ : 0;  // the arrival pipeline still ahead of it
    top_->cmd_en = 0;  // an edge of the front end's clock: no DRAM cycle passes
    tick();
    top_->enq_valid = 0;
    top_->cmd_en = 1;
  }

  memsys::DramSchedCommand step(std::uint64_t t) override {
    if (t != now_)
      throw std::logic_error(fmt::format("{}: the RTL scheduler stepped at cycle {} after cycle {}", instance_, t,
                                         now_ - 1));
    memsys::DramSchedCommand c;
    if (top_->cmd_valid) {
      c.kind = memsys::DramSchedCommand::Kind(top_->cmd_kind);
      c.bank = c.kind == memsys::DramSchedCommand::Ref ? memsys::DramSchedCommand::kAllBanks : std::uint32_t(top_->cmd_bank);
      c.row = top_->cmd_row;
      c.tag = top_->cmd_tag_valid ? std::uint32_t(top_->cmd_tag) : memsys::DramSchedCommand::kNoTag;
    }
    if (wave_.keeping() && model_ && c != *model_) wave_.markMismatch();
    tick();  // cmd_en is high: commits the command, one DRAM cycle passes
    model_.reset();
    ++now_;
    return c;
  }
  std::uint64_t wake() const override { return now_; }

  // ---- rtl-verif: the divergence window -----------------------------------------------------------
  void keepWaveform() override { wave_.keep(); }
  void expect(const memsys::DramSchedCommand& model_command) override { model_ = model_command; }
  std::string writeWaveform(const std::string& stem) override {
    const std::string top = "TOP.dram_cmd_sched_wave.";
    const int bank = log2(kDramBanks), row = int(kDramRowBits), tag = int(kDramTagBits),
              cnt = log2(kDramQueueDepth) + 1;
    using F = WaveSignal;
    const std::vector<WaveSignal> sigs{
        {top + "clk", 1, F::Bin, "pins"}, {top + "rst_n", 1, F::Bin, "pins"},
        {top + "cmd_en", 1, F::Bin, "pins"}, {top + "enq_valid", 1, F::Bin, "pins"},
        {top + "enq_write", 1, F::Bin, "pins"}, {top + "enq_bank", bank, F::Dec, "pins"},
        {top + "enq_row", row, F::Hex, "pins"}, {top + "enq_tag", tag, F::Dec, "pins"},
        {top + "enq_wait", int(kDramWaitBits), F::Dec, "pins"}, {top + "cmd_valid", 1, F::Bin, "pins"},
        {top + "cmd_kind", 3, F::Dec, "pins"}, {top + "cmd_bank", bank, F::Dec, "pins"},
        {top + "cmd_row", row, F::Hex, "pins"}, {top + "cmd_tag_valid", 1, F::Bin, "pins"},
        {top + "cmd_tag", tag, F::Dec, "pins"}, {top + "write_mode", 1, F::Bin, "pins"},
        {top + "refresh_due", 1, F::Bin, "pins"}, {top + "rd_count", cnt, F::Dec, "pins"},
        {top + "wr_count", cnt, F::Dec, "pins"},
        {top + "model_cycle", 64, F::Dec, "model"}, {top + "model_valid", 1, F::Bin, "model"},
        {top + "model_kind", 3, F::Dec, "model"}, {top + "model_bank", bank, F::Dec, "model"},
        {top + "model_row", row, F::Hex, "model"}, {top + "model_tag_valid", 1, F::Bin, "model"},
        {top + "model_tag", tag, F::Dec, "model"}, {top + "mismatch", 1, F::Bin, "model"},
        {top + "dut.act_ok", int(kDramBanks), F::Bin, "rtl internals"},
        {top + "dut.pre_ok", int(kDramBanks), F::Bin, "rtl internals"},
        {top + "dut.col_ok", int(kDramBanks), F::Bin, "rtl internals"},
        {top + "dut.bus_q", int(kDramTimeBits), F::Dec, "rtl internals"}};
    const auto span = wave_.write(stem, sigs);
    if (!span) return "";
    return fmt::format("  waveform: {}.fst (RTL cycles {}..{} of this instance, 1 ns each: one per DRAM cycle "
                       "(cmd_en) and one per enqueue; the model's command as model_* (model_cycle: the DRAM cycle), "
                       "the RTL's internals under dut), view: gtkwave {}.gtkw\n",
                       stem, span->first, span->second, stem);
  }

 private:
  static int log2(std::uint32_t v) { return 31 - __builtin_clz(v); }
  void tick() {
    if (wave_.wants()) {
      DramSchedPins p;
      Model* t = top_.get();
      p.rst_n = t->rst_n;
      p.cfg_load = t->cfg_load;
      p.cfg_bpg_log2 = t->cfg_bpg_log2;
      p.cfg_fr_fcfs = t->cfg_fr_fcfs;
      p.cfg_closed_page = t->cfg_closed_page;
      p.cfg_refresh = t->cfg_refresh;
      p.cfg_wd_high = t->cfg_wd_high;
      p.cfg_wd_low = t->cfg_wd_low;
      const auto timing = DramSchedPins::timing(t);
      for (std::size_t i = 0; i < timing.size(); ++i) p.cfg_t[i] = *timing[i];
      p.enq_valid = t->enq_valid;
      p.enq_write = t->enq_write;
      p.enq_bank = t->enq_bank;
      p.enq_row = t->enq_row;
      p.enq_tag = t->enq_tag;
      p.enq_wait = t->enq_wait;
      p.cmd_en = t->cmd_en;
      p.model_cycle = now_;
      if (t->cmd_en && model_) {
        using K = memsys::DramSchedCommand;
        p.model_valid = model_->kind != K::None;
        p.model_kind = model_->kind;
        p.model_bank = model_->kind == K::Ref ? 0 : model_->bank;
        p.model_row = model_->row;
        p.model_tag_valid = model_->tag != K::kNoTag;
        p.model_tag = p.model_tag_valid ? model_->tag : 0;
      }
      wave_.record(p);
    }
    top_.tick();
  }
  VerilatedBlock<Model> top_;
  std::string instance_;
  std::uint64_t now_ = 0;  // the cycle whose command the RTL shows
  // rtl-verif: the divergence window (cosim only): 256 edges (DRAM cycles and enqueues), and reset.
  WaveRecorder<WaveModel, DramSchedPins> wave_{256, 4};
  std::optional<memsys::DramSchedCommand> model_;
};

}  // namespace scgpu::rtl
