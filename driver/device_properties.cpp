#include "driver/device_properties.h"

#include "tlm/config.h"

namespace scgpu::driver {

DeviceProperties DeviceProperties::fromConfig(const Config& c) {
  DeviceProperties p;
  p.name = "scgpu " + c.getString("name", "gpu");
  p.major = int(c.getInt("compute_capability.major"));
  p.minor = int(c.getInt("compute_capability.minor"));
  p.multiprocessor_count = int(c.getInt("sm.count"));
  p.max_threads_per_block = int(c.getInt("sm.max_threads_per_block"));
  p.max_threads_per_multiprocessor = int(c.getInt("sm.max_threads_per_sm"));
  p.max_blocks_per_multiprocessor = int(c.getInt("sm.max_blocks_per_sm"));
  p.regs_per_multiprocessor = std::uint64_t(c.getInt("sm.registers_per_sm"));
  p.regs_per_block = std::uint64_t(c.getInt("sm.max_registers_per_block"));
  p.shared_mem_per_multiprocessor = std::uint64_t(c.getInt("sm.shared_memory_per_sm_bytes"));
  p.shared_mem_per_block = std::uint64_t(c.getInt("sm.shared_memory_per_block_bytes"));
  p.shared_mem_per_block_optin =
      std::uint64_t(c.getInt("sm.shared_memory_per_block_optin_bytes", std::int64_t(p.shared_mem_per_block)));
  p.total_global_mem = std::uint64_t(c.getInt("memory.global_size_bytes"));
  p.total_const_mem = std::uint64_t(c.getInt("memory.constant_size_bytes"));
  p.clock_rate_khz = int(c.getDouble("clocks.core_clock_mhz") * 1000);
  p.stack_size_bytes = std::uint64_t(c.getInt("limits.stack_size_bytes", 1024));
  p.printf_fifo_size_bytes = std::uint64_t(c.getInt("limits.printf_fifo_size_bytes", 1 << 20));
  p.max_block_dim[0] = p.max_block_dim[1] = p.max_threads_per_block;
  return p;
}

}  // namespace scgpu::driver
