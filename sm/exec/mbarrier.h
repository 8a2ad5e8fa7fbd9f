// The mbarrier object (8 bytes of shared memory; layout in mbarrier.cpp) as the copy engine
// updates it: a bulk copy's completion counts its bytes off the pending transactions.
#pragma once

#include <cstdint>

#include "sm/exec_context.h"

namespace scgpu::sm {

// complete_tx of `bytes` on the barrier at `object`; completes the phase when nothing is pending.
void mbarrierCompleteTx(std::uint8_t* object, std::uint32_t bytes);

// Whether mbarrier.try_wait `in` would find its phase still incomplete for a lane of c.mask (the
// timing model suspends the warp until it completes, as the hardware does, instead of letting it
// spin). False when the barrier cannot be read (the instruction then faults when it issues).
bool mbarrierWaitPending(ExecContext& c, const ptx::DecodedInst& in);

}  // namespace scgpu::sm
