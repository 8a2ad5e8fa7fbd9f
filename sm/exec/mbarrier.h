// The mbarrier object (8 bytes of shared memory; layout in mbarrier.cpp) as the copy engine
// updates it: a bulk copy's completion counts its bytes off the pending transactions.
#pragma once

#include <cstdint>

namespace scgpu::sm {

// complete_tx of `bytes` on the barrier at `object`; completes the phase when nothing is pending.
void mbarrierCompleteTx(std::uint8_t* object, std::uint32_t bytes);

}  // namespace scgpu::sm
