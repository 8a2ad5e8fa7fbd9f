#include "driver/device_properties.h"

#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::driver {

DeviceProperties DeviceProperties::fromConfig(const GpuConfig& c) {
  const GpuParams& g = c.params();  // checked at load
  DeviceProperties p;
  p.name = "scgpu " + g.name;
  p.major = int(g.cc_major);
  p.minor = int(g.cc_minor);
  p.multiprocessor_count = int(g.sm.count);
  p.max_threads_per_block = int(g.sm.max_threads_per_block);
  p.max_threads_per_multiprocessor = int(g.sm.max_threads_per_sm);
  p.max_blocks_per_multiprocessor = int(g.sm.max_blocks_per_sm);
  p.regs_per_multiprocessor = g.sm.registers_per_sm;
  p.regs_per_block = g.sm.max_registers_per_block;
  p.shared_mem_per_multiprocessor = g.sm.shared_memory_per_sm_bytes;
  p.shared_mem_per_block = g.sm.shared_memory_per_block_bytes;
  p.shared_mem_per_block_optin = g.sm.shared_memory_per_block_optin_bytes;
  p.total_global_mem = g.global_size_bytes;
  p.total_const_mem = g.constant_size_bytes;
  p.clock_rate_khz = int(g.clocks.core_clock_mhz * 1000);
  p.memory_clock_rate_khz = int(g.clocks.dram_clock_mhz * 1000);
  p.memory_bus_width_bits = int(g.dram.channels * g.dram.bus_width_bits);
  p.l2_cache_bytes = std::uint64_t(g.l2.slices) * g.l2.cache.size_bytes;
  p.stack_size_bytes = g.limits.stack_size_bytes;
  p.printf_fifo_size_bytes = g.limits.printf_fifo_size_bytes;
  p.max_block_dim[0] = p.max_block_dim[1] = p.max_threads_per_block;
  if (g.cc_major < 3) p.max_grid_dim[0] = 65535;  // 2^31 - 1 from cc 3.0 on
  return p;
}

}  // namespace scgpu::driver
