// What every transactor does with its Verilated model: a context of its own with X's reset to
// zeros (deterministic), the model, and full clock cycles. Transactors hold one of these and drive
// its pins.
#pragma once

#include <verilated.h>

#include <cstdint>
#include <memory>

namespace scgpu::rtl {

template <typename Model>
class VerilatedBlock {
 public:
  explicit VerilatedBlock(const char* name) : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(0);  // deterministic: X's come up as zeros
    top_ = std::make_unique<Model>(ctx_.get(), name);
  }
  ~VerilatedBlock() { top_->final(); }
  Model* operator->() { return top_.get(); }
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
  std::uint64_t cycles_ = 0;
};

}  // namespace scgpu::rtl
