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

#include <cstdint>
#include <stdexcept>
#include <string>

#include "memsys/dram_scheduler.h"
#include "rtl/rtl_params.h"
#include "rtl/verilated_block.h"

namespace scgpu::rtl {

template <typename Model>
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
    top_.tick();
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
    top_.tick();
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
    top_.tick();  // cmd_en is high: commits the command, one DRAM cycle passes
    ++now_;
    return c;
  }
  std::uint64_t wake() const override { return now_; }

 private:
  VerilatedBlock<Model> top_;
  std::string instance_;
  std::uint64_t now_ = 0;  // the cycle whose command the RTL shows
};

}  // namespace scgpu::rtl
