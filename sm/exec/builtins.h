// Functions the model provides instead of code: vprintf, __assertfail, malloc, free; and the
// barrier arrival that the control handlers hand to the block.
#pragma once

#include "ptx/decoded.h"
#include "sm/exec_context.h"

namespace scgpu::sm {

void callBuiltin(ExecContext& c, const ptx::DecodedFunction& f, const ptx::CallSite& site);

// A warp arrives at barrier `id` expecting `count` threads (0: all threads of the block);
// `reduce_bits` are the lanes whose bar.red predicate is true. Defined by sm/barrier.cpp.
void arriveAtBarrier(ExecContext& c, const ptx::DecodedInst& in, std::uint32_t id, std::uint32_t count,
                     std::uint32_t reduce_bits);

}  // namespace scgpu::sm
