// The transactor of the L2 tag/MSHR stage: memsys::L2TagMshr's operations as pin activity on
// rtl/l2_tag_mshr.sv. One operation is one RTL clock: drive op_valid, op_kind, op_line (the line
// number: address / line bytes) and op_mask, evaluate, read the res_* pins (combinational), and
// commit with the rising edge. The configuration pins are driven once, from the config, at reset.
// Registered as the "rtl" implementation by registrations.cpp.
#include "rtl/l2_tag_mshr_rtl.h"

#include <fmt/format.h>

#include <stdexcept>

#include "Vl2_tag_mshr.h"
#include "rtl/rtl_params.h"
#include "rtl/verilated_block.h"

namespace scgpu::rtl {
namespace {

using memsys::L2TagOp;
using memsys::L2TagOutcome;
using memsys::L2TagRequest;
using memsys::L2TagResult;

unsigned log2u(std::uint64_t v) { return unsigned(63 - __builtin_clzll(v)); }

template <typename Model>
class L2TagTransactor : public memsys::L2TagMshr {
 public:
  L2TagTransactor(const memsys::L2TagParams& p, std::uint32_t sets) : top_("l2_tag_mshr") {
    const CacheParams& c = p.cache;
    line_shift_ = log2u(c.line_bytes);
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

  L2TagResult operate(const L2TagRequest& q, std::uint64_t) override {
    top_->op_valid = 1;
    top_->op_kind = kOpCode[int(q.op)];
    top_->op_line = q.line >> line_shift_;
    top_->op_mask = q.mask;
    top_->eval();
    L2TagResult r;
    r.outcome = L2TagOutcome(top_->res_kind);  // the RTL's RES_* codes are the enum's order
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

 private:
  // L2TagOp -> op_kind (OP_READ 0, OP_ATOMIC 1, OP_WRITE 2, OP_FILL 3, OP_UPDATE 4).
  static constexpr std::uint8_t kOpCode[] = {0, 1, 2, 3, 4};
  VerilatedBlock<Model> top_;
  unsigned line_shift_ = 7;
};

}  // namespace

std::unique_ptr<memsys::L2TagMshr> makeRtlL2TagMshr(const memsys::L2TagParams& p, const std::string& instance) {
  const CacheParams& c = p.cache;
  // The geometry the config asks for; the model's own checks (powers of two, multiples) come first.
  memsys::SectorCache geometry(c);
  const std::uint32_t sets = geometry.sets();
  auto refuse = [&](const std::string& what, std::uint64_t value, const char* param, std::uint64_t built) {
    throw std::invalid_argument(fmt::format("{}: {} = {}, but the RTL tag/MSHR stage (rtl/l2_tag_mshr.sv) was built "
                                            "with {} = {}",
                                            instance, what, value, param, built));
  };
  if (sets > kL2Sets)
    refuse("l2.cache.size_bytes / (line_bytes x associativity), the sets,", sets, "SETS", kL2Sets);
  if (c.associativity > kL2Ways) refuse("l2.cache.associativity", c.associativity, "WAYS", kL2Ways);
  if (c.line_bytes / c.sector_bytes > kL2Sectors)
    refuse("l2.cache.line_bytes / sector_bytes, the sectors per line,", c.line_bytes / c.sector_bytes, "SECTORS",
           kL2Sectors);
  if (c.mshr_entries > kL2MshrEntries) refuse("l2.cache.mshr_entries", c.mshr_entries, "ENTRIES", kL2MshrEntries);
  if (c.mshr_max_merge > kL2MshrMerge) refuse("l2.cache.mshr_max_merge", c.mshr_max_merge, "MERGE", kL2MshrMerge);
  if (64 - log2u(c.line_bytes) > kL2LineBits)
    refuse("64 - log2(l2.cache.line_bytes), the line-number bits,", 64 - log2u(c.line_bytes), "LINE_W", kL2LineBits);
  return std::make_unique<L2TagTransactor<Vl2_tag_mshr>>(p, sets);
}

}  // namespace scgpu::rtl
