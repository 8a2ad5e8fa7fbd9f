// C++ entry points of the driver for the simulator's own runtime API (driver/runtime.h), beside the
// C API of scgpu_driver.h: open a device over a transport the caller built (so that it can also
// reach the simulator behind it), the module as the driver compiled it, and the allocation that
// holds an address.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "driver/scgpu_driver.h"
#include "driver/transport.h"

namespace scgpu::driver {
class Module;
}

// Loads PTX text named `source_name` (empty: "module<slot>.ptx") and throws what the PTX front
// end throws (ptx::ParseError with file:line:col, for parse and decode errors and variables that
// do not fit) or driver::RuntimeError (MemoryAllocation, or the device's refusal).
scgpu_status scgpu_module_load_source(scgpu_device* device, const std::string& text, const std::string& source_name,
                                      scgpu_module* module);
// Takes the transport; on failure it is destroyed and scgpu_last_error(NULL) says why.
scgpu_status scgpu_open_transport(std::unique_ptr<scgpu::driver::Transport> transport, scgpu_device** device);
scgpu::driver::Transport* scgpu_device_transport(scgpu_device* device);
// The decoded module (its kernels' programs and variable addresses); null for a bad handle.
const scgpu::driver::Module* scgpu_module_decoded(scgpu_device* device, scgpu_module module);
// The caller's allocation (from scgpu_mem_alloc or a module's variables) holding [addr, addr+bytes).
bool scgpu_mem_contains(scgpu_device* device, scgpu_devptr addr, std::uint64_t bytes);
