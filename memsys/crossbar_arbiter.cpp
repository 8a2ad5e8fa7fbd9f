#include "memsys/crossbar_arbiter.h"

#include "base/block_impl.h"

#include <fmt/format.h>

#include <stdexcept>

namespace scgpu::memsys {
namespace {

ArbiterFactory& rtlArbiterFactory() {
  static ArbiterFactory f;
  return f;
}

class CosimArbiter : public CrossbarArbiter {
 public:
  CosimArbiter(std::unique_ptr<CrossbarArbiter> model, std::unique_ptr<CrossbarArbiter> rtl, std::string instance)
      : model_(std::move(model)), rtl_(std::move(rtl)), instance_(std::move(instance)) {
    rtl_->keepWaveform();
  }
  std::uint32_t grant(std::uint32_t output, const std::vector<std::uint64_t>& requests, std::uint64_t cycle) override {
    const std::uint32_t want = model_->grant(output, requests, cycle);
    rtl_->expect(want);
    const std::uint32_t got = rtl_->grant(output, requests, cycle);
    auto text = [](std::uint32_t i) { return i == kNone ? std::string("none") : fmt::format("input {}", i); };
    std::string reqs;
    for (std::size_t w = 0; w < requests.size(); ++w)
      for (std::uint64_t word = requests[w]; word; word &= word - 1)
        reqs += fmt::format(" {}", w * 64 + std::size_t(__builtin_ctzll(word)));
    if (want != got && divergence_.empty()) {
      divergence_ = fmt::format("RTL and model differ at cycle {} in {} (rtl/xbar_arbiter.sv), port gnt of output {}: "
                                "expected (model) {}, got (RTL) {}\n  requesting inputs:{}\n  the instance's last {} "
                                "operations:\n{}{}",
                                cycle, instance_, output, text(want), text(got), reqs, history_.size(), history_.text(),
                                cosimWaveform(*rtl_, cosimWaveformStem(instance_, cycle)));
    }
    history_.remember(fmt::format("cycle {}: output {} requests:{} -> {}", cycle, output, reqs, text(want)));
    return want;
  }
  void done(std::uint32_t output, std::uint32_t input) override {
    model_->done(output, input);
    rtl_->done(output, input);
    history_.remember(fmt::format("output {} done with input {}", output, input));
  }
  const std::string* divergence() const override { return divergence_.empty() ? nullptr : &divergence_; }

 private:
  std::unique_ptr<CrossbarArbiter> model_, rtl_;
  std::string instance_, divergence_;
  CosimHistory history_{12};  // operations kept for the report
};

}  // namespace

std::uint32_t ModelArbiter::grant(std::uint32_t output, const std::vector<std::uint64_t>& requests, std::uint64_t) {
  return firstFromWhere(requests, p_.round_robin ? next_[output] : 0, p_.inputs, [](std::uint32_t) { return true; });
}

void ModelArbiter::done(std::uint32_t output, std::uint32_t input) {
  next_[output] = input + 1 == p_.inputs ? 0 : input + 1;
}

void registerRtlCrossbarArbiter(ArbiterFactory factory) { rtlArbiterFactory() = std::move(factory); }

std::unique_ptr<CrossbarArbiter> makeCrossbarArbiter(const std::string& impl, const ArbiterParams& params,
                                                     const std::string& instance) {
  checkBlockImpl("crossbar.impl", impl, bool(rtlArbiterFactory()));
  if (impl == "model") return std::make_unique<ModelArbiter>(params);
  auto rtl = rtlArbiterFactory()(params, instance);
  if (impl == "rtl") return rtl;
  return std::make_unique<CosimArbiter>(std::make_unique<ModelArbiter>(params), std::move(rtl), instance);
}

}  // namespace scgpu::memsys
