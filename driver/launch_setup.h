// The checks a device makes before it runs a kernel (CUDA's rules for grid and block dimensions,
// .reqntid/.maxntid, shared memory, the local-memory reservation) and the launch state of a
// launch that passes them. Shared by the runtime and the device behind the host interface.
#pragma once

#include <cstdint>
#include <string>

#include "driver/device_properties.h"
#include "driver/runtime.h"
#include "memsys/backing_store.h"
#include "ptx/decoded.h"
#include "sm/launch_state.h"

namespace scgpu::driver {

// Success with `launch` filled (all but its parameters), or InvalidConfiguration /
// MemoryAllocation with *why saying which rule the launch breaks, e.g.
//   "cannot launch kernel 'k' with grid 1x1x1 and block 2048x1x1: 2048 threads per block, above
//    the device's maximum of 1024"
Error setupLaunch(const ptx::Program& prog, Dim3 grid, Dim3 block, std::size_t dynamic_shared_bytes,
                  memsys::BackingStore& memory, const DeviceProperties& props, std::uint64_t call_depth_frames,
                  std::uint64_t grid_id, sm::LaunchState& launch, std::string* why);

}  // namespace scgpu::driver
