#include "sm/timing/coalescer.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "base/block_impl.h"
#include "sm/fault.h"

namespace scgpu::sm::timing {

void ModelCoalescer::touch(const CoalescerParams& p, std::uint64_t addr, std::uint32_t bytes,
                           std::vector<LineAccess>& out, std::size_t first) {
  // Sectors are a power of two in every config (the L1 requires it): a shift, not two divisions
  // per lane, which were most of an uncoalesced access's cost.
  const bool pow2 = (p.sector_bytes & (p.sector_bytes - 1)) == 0;
  const unsigned shift = pow2 ? unsigned(__builtin_ctz(p.sector_bytes)) : 0;
  auto sector = [&](std::uint64_t offset) {
    return std::uint32_t(pow2 ? offset >> shift : offset / p.sector_bytes);
  };
  while (bytes) {
    const std::uint64_t line = addr & ~std::uint64_t(p.line_bytes - 1);
    const std::uint32_t in_line = std::uint32_t(std::min<std::uint64_t>(bytes, line + p.line_bytes - addr));
    const std::uint32_t lo = sector(addr - line);
    const std::uint32_t hi = sector(addr - line + in_line - 1);
    const std::uint32_t mask = std::uint32_t(((std::uint64_t(2) << hi) - 1) & ~((std::uint64_t(1) << lo) - 1));
    bool found = false;
    for (std::size_t i = out.size(); i-- > first;)
      if (out[i].line == line) {
        out[i].sectors |= mask;
        found = true;
        break;
      }
    if (!found) out.push_back(LineAccess{line, mask});
    addr += in_line;
    bytes -= in_line;
  }
}

void ModelCoalescer::coalesce(const LaneAccesses& in, std::vector<LineAccess>& out) {
  const std::size_t first = out.size();
  for (std::uint32_t m = in.mask; m; m &= m - 1) touch(p_, in.addr[__builtin_ctz(m)], in.bytes, out, first);
}

namespace {

CoalescerFactory& rtlFactory() {
  static CoalescerFactory f;
  return f;
}

std::string linesText(const std::vector<LineAccess>& v, std::size_t from) {
  std::string s;
  for (std::size_t i = from; i < v.size(); ++i)
    s += fmt::format("{}0x{:x}/{:#x}", i > from ? " " : "", v[i].line, v[i].sectors);
  return s.empty() ? "(none)" : s;
}

// Runs the model and the RTL on every access; the first access on which their lines differ stops
// the run with a report. The RTL is the hardware: a difference is a bug in one of them, to be
// settled by reading both.
class CosimCoalescer : public Coalescer {
 public:
  CosimCoalescer(std::unique_ptr<Coalescer> model, std::unique_ptr<Coalescer> rtl, std::string instance)
      : model_(std::move(model)), rtl_(std::move(rtl)), instance_(std::move(instance)) {
    rtl_->keepWaveform();
  }
  const char* implName() const override { return "cosim"; }

  void coalesce(const LaneAccesses& in, std::vector<LineAccess>& out) override {
    const std::size_t first = out.size();
    model_->coalesce(in, out);
    rtl_lines_.clear();
    model_lines_.assign(out.begin() + long(first), out.end());
    rtl_->expect(model_lines_);
    rtl_->coalesce(in, rtl_lines_);
    const std::size_t n_model = out.size() - first;
    std::size_t k = 0;
    while (k < n_model && k < rtl_lines_.size() && out[first + k] == rtl_lines_[k]) ++k;
    std::string summary = fmt::format("cycle {}: mask {:#010x}, {} bytes -> {}", in.cycle, in.mask, in.bytes,
                                      linesText(out, first));
    if (k == n_model && k == rtl_lines_.size()) {
      history_.remember(std::move(summary));
      return;
    }
    const std::string expected = k < n_model ? fmt::format("line 0x{:x} sectors {:#x}", out[first + k].line,
                                                           out[first + k].sectors)
                                             : std::string("no more lines");
    const std::string got = k < rtl_lines_.size() ? fmt::format("line 0x{:x} sectors {:#x}", rtl_lines_[k].line,
                                                                rtl_lines_[k].sectors)
                                                  : std::string("no more lines");
    std::string lanes;
    for (std::uint32_t m = in.mask; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      lanes += fmt::format("    lane {:2}: 0x{:x}\n", lane, in.addr[lane]);
    }
    // The waveform of the window before it (rtl-verif).
    const std::string wave = cosimWaveform(*rtl_, cosimWaveformStem(instance_, in.cycle));
    throw FaultSignal{"cosim divergence",
                      fmt::format("RTL and model differ at cycle {} in {} (rtl/lsu_coalescer.sv), port out (line {} of "
                                  "the access): expected (model) {}, got (RTL) {}\n  access: mask {:#010x}, {} bytes "
                                  "per lane\n{}  model lines: {}\n  RTL lines:   {}\n  the instance's last {} accesses:\n{}{}",
                                  in.cycle, instance_, k, expected, got, in.mask, in.bytes, lanes,
                                  linesText(out, first), linesText(rtl_lines_, 0), history_.size(), history_.text(),
                                  wave),
                      std::uint32_t(in.mask ? __builtin_ctz(in.mask) : 0)};
  }

 private:
  std::unique_ptr<Coalescer> model_, rtl_;
  std::string instance_;
  std::vector<LineAccess> rtl_lines_, model_lines_;
  CosimHistory history_{8};  // accesses kept for the report
};

}  // namespace

void registerRtlCoalescer(CoalescerFactory factory) { rtlFactory() = std::move(factory); }
bool rtlCoalescerAvailable() { return bool(rtlFactory()); }

std::unique_ptr<Coalescer> makeCoalescer(const std::string& impl, const CoalescerParams& params,
                                         const std::string& instance) {
  checkBlockImpl("sm.coalescer.impl", impl, rtlCoalescerAvailable());
  if (impl == "model") return std::make_unique<ModelCoalescer>(params);
  auto rtl = rtlFactory()(params, instance);
  if (impl == "rtl") return rtl;
  return std::make_unique<CosimCoalescer>(std::make_unique<ModelCoalescer>(params), std::move(rtl), instance);
}

}  // namespace scgpu::sm::timing
