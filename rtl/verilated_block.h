// What every transactor does with its Verilated model: a context of its own with X's reset to
// zeros (deterministic), the model, and full clock cycles. Transactors hold one of these and drive
// its pins.
#pragma once

#include <verilated.h>
#ifdef SCGPU_RTL_COVERAGE
#include <unistd.h>
#include <verilated_cov.h>

#include <atomic>
#include <string>
#endif

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace scgpu::rtl {

// RTL cycles (or operations) per case of the block testbenches (testbench/rtl_*_test.cpp): a
// million, or $SCGPU_RTL_TB_CYCLES (scripts/rtl_coverage.sh runs the coverage builds shorter).
inline std::uint64_t testbenchCycles() {
  const char* v = std::getenv("SCGPU_RTL_TB_CYCLES");
  return v && *v ? std::strtoull(v, nullptr, 10) : 1'000'000;
}

template <typename Model>
class VerilatedBlock {
 public:
  // trace: the model was built with --trace and will be traced (rtl/wave_window.h).
  explicit VerilatedBlock(const char* name, bool trace = false)
      : ctx_(std::make_unique<VerilatedContext>()), name_(name) {
    ctx_->randReset(0);  // deterministic: X's come up as zeros
    if (trace) ctx_->traceEverOn(true);
    top_ = std::make_unique<Model>(ctx_.get(), name);
  }
  ~VerilatedBlock() {
    top_->final();
#ifdef SCGPU_RTL_COVERAGE
    // The --coverage builds (scripts/rtl_coverage.sh): every context's counts, one file each.
    if (const char* dir = std::getenv("SCGPU_RTL_COVERAGE_DIR")) {
      static std::atomic<int> serial{0};
      const std::string path = std::string(dir) + "/" + name_ + "_" + std::to_string(::getpid()) + "_" +
                               std::to_string(serial++) + ".dat";
      ctx_->coveragep()->write(path.c_str());
    }
#endif
  }
  Model* operator->() { return top_.get(); }
  Model* get() { return top_.get(); }
  // One full clock cycle: rising edge, then falling edge.
  void tick() {
    ++cycles_;
    top_->clk = 1;
    top_->eval();
    top_->clk = 0;
    top_->eval();
  }
  // Clock cycles run so far (reset included).
  std::uint64_t cycles() const { return cycles_; }
  // The model's own context (coverage data of a build with coverage points, say).
  VerilatedContext* context() { return ctx_.get(); }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> top_;
  const char* name_;
  std::uint64_t cycles_ = 0;
};

}  // namespace scgpu::rtl
