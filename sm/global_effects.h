// The global-memory side effects of one SM's core cycle in the timing model, held back and applied
// after every SM of the cycle has ticked, SM by SM in index order and, within an SM, in issue
// order. So what a cycle does to memory is the same whichever host thread ticks which SM
// (`--threads N`), and while the SMs tick nobody writes memory: their loads read it as it was at
// the start of the cycle (a load issued in the same cycle as another SM's store to the same
// address does not see it, whatever the thread count). Stores, atomics (whose old values reach
// their registers at the end of the cycle, before any instruction can read them), printf output
// and device malloc/free go through here; shared and local memory, private to a block and a
// thread, do not.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "memsys/backing_store.h"
#include "memsys/page_table.h"
#include "ptx/decoded.h"

namespace scgpu::sm {

class GlobalEffects {
 public:
  struct Effect;
  // An atomic read-modify-write on the bytes at p; writes the old value to *e.dst when set.
  using AtomicFn = void (*)(std::uint8_t* p, const Effect& e);
  struct Effect {
    enum class Kind : std::uint8_t { Store, Atomic, Call } kind = Kind::Store;
    std::uint8_t len = 0;  // store: bytes
    ptx::SubOp op = ptx::SubOp::None;
    std::uint64_t pa = 0;
    std::uint64_t b = 0, cmp = 0;   // atomic operands
    std::uint64_t* dst = nullptr;   // atomic: where the old value goes (nullptr: red)
    AtomicFn atomic = nullptr;
    std::uint32_t call = 0;         // Call: index into calls_
    std::uint8_t data[32] = {};     // store: the bytes (up to a vector of four 64-bit elements)
  };

  explicit GlobalEffects(memsys::BackingStore* memory) : memory_(memory) {}
  void setMemory(memsys::BackingStore* memory) { memory_ = memory; }

  // Reads that change nothing in the store (several SMs read at once).
  bool valid(std::uint64_t pa, std::uint32_t size) { return memory_->valid(pa, size, hint_); }
  const std::uint8_t* peek(std::uint64_t pa) { return memory_->peek(pa, hint_); }

  void store(std::uint64_t pa, const void* bytes, std::uint32_t len) {
    Effect& e = push(Effect::Kind::Store, pa);
    e.len = std::uint8_t(len);
    std::memcpy(e.data, bytes, len);
  }
  void atomic(std::uint64_t pa, AtomicFn fn, ptx::SubOp op, std::uint64_t b, std::uint64_t cmp, std::uint64_t* dst) {
    Effect& e = push(Effect::Kind::Atomic, pa);
    e.atomic = fn;
    e.op = op;
    e.b = b;
    e.cmp = cmp;
    e.dst = dst;
  }
  // Anything else with an effect outside the SM (printf output, device malloc and free).
  void call(std::function<void()> f) {
    push(Effect::Kind::Call, 0).call = std::uint32_t(calls_.size());
    calls_.push_back(std::move(f));
  }

  bool empty() const { return effects_.empty(); }
  // Runs `f` at the end of the cycle when `effects` is set (the timing model), else now.
  template <typename F>
  static void callOrRun(GlobalEffects* effects, F&& f) {
    if (effects) effects->call(std::forward<F>(f));
    else f();
  }
  // Applies what the cycle held back, in issue order, and forgets it.
  void apply();

  // The last page this SM translated (the functional core keeps one per launch).
  memsys::LastPage page;

 private:
  Effect& push(Effect::Kind kind, std::uint64_t pa) {
    effects_.emplace_back();
    Effect& e = effects_.back();
    e.kind = kind;
    e.pa = pa;
    return e;
  }

  memsys::BackingStore* memory_;
  memsys::BackingStore::Hint hint_;
  std::vector<Effect> effects_;
  std::vector<std::function<void()>> calls_;
};

}  // namespace scgpu::sm
