#include "sm/global_effects.h"

namespace scgpu::sm {

void GlobalEffects::apply() {
  for (const Effect& e : effects_) {
    switch (e.kind) {
      case Effect::Kind::Store: std::memcpy(memory_->hostPtr(e.pa), e.data, e.len); break;
      case Effect::Kind::Atomic: e.atomic(memory_->hostPtr(e.pa), e); break;
      case Effect::Kind::Call: calls_[e.call](); break;
    }
  }
  effects_.clear();
  calls_.clear();
}

}  // namespace scgpu::sm
