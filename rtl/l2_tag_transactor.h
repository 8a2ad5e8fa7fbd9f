// The transactor of the L2 tag/MSHR stage: memsys::L2TagMshr's operations as pin activity on
// rtl/l2_tag_mshr.sv, for any Verilated build of the block (the product's, or a test's copy with a
// planted bug). One operation is one RTL clock: drive op_valid, op_kind, op_line (the line number:
// address / line bytes) and op_mask, evaluate, read the res_* pins (combinational), and commit with
// the rising edge. The configuration pins are driven once, from the config, at reset.
#pragma once

#include <cstdint>

#include "memsys/l2_tag_mshr.h"
#include "rtl/verilated_block.h"

namespace scgpu::rtl {

template <typename Model>
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
    top_.tick();
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
    top_.tick();  // commit
    top_->op_valid = 0;
    return r;
  }

  // The Verilated model's context (a test writes a coverage build's data from it).
  VerilatedContext* context() { return top_.context(); }

 private:
  // L2TagOp -> op_kind (OP_READ 0, OP_ATOMIC 1, OP_WRITE 2, OP_FILL 3, OP_UPDATE 4).
  static constexpr std::uint8_t kOpCode[] = {0, 1, 2, 3, 4};
  VerilatedBlock<Model> top_;
  unsigned line_shift_ = 7;
};

}  // namespace scgpu::rtl
