// Handler selection by instruction family; sm/select_handler.cpp combines them.
#pragma once

#include "ptx/decoded.h"

namespace scgpu::sm {

ptx::ExecFn selectMemoryHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectControlHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectWarpHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectTensorHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectMbarrierHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectBulkCopyHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectWgmmaHandler(const ptx::DecodedInst& inst);  // sm/exec/wgmma.cpp
ptx::ExecFn selectTextureHandler(const ptx::DecodedInst& inst);  // sm/exec/texture.cpp
// The handler of any instruction, or nullptr when its form is not supported.
ptx::ExecFn selectHandler(const ptx::DecodedInst& inst);

}  // namespace scgpu::sm
