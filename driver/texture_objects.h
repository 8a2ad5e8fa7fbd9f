// Texture and surface objects for users of the runtime API (driver/runtime.h): the launch-file
// loader, the suite's host programs and tests. An object is a 128-byte descriptor in device
// memory (sm/texture_desc.h gives the layout); its handle, the descriptor's address, is what a
// kernel receives as a .u64 parameter. cudart (libcudart.so.13) writes the same descriptors.
#pragma once

#include "driver/runtime.h"
#include "sm/texture_desc.h"

namespace scgpu::driver {

// Checks the descriptor (RuntimeError InvalidValue naming the field that is wrong), writes it
// into fresh device memory and returns the handle. `d.magic` says texture or surface.
DevicePtr createTextureObject(Runtime& rt, const sm::TextureDesc& d);
// Marks the descriptor dead (a later use faults as an invalid handle) and frees it.
void destroyTextureObject(Runtime& rt, DevicePtr handle);

}  // namespace scgpu::driver
