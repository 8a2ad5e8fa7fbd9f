// Device properties as cudaGetDeviceProperties reports them, derived from the config.
#pragma once

#include <cstdint>
#include <string>

namespace scgpu {
class GpuConfig;
}

namespace scgpu::driver {

struct DeviceProperties {
  std::string name;
  int major = 9, minor = 0;
  int multiprocessor_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_multiprocessor = 2048;
  int max_blocks_per_multiprocessor = 32;
  int max_block_dim[3] = {1024, 1024, 64};
  int max_grid_dim[3] = {2147483647, 65535, 65535};
  std::uint64_t regs_per_multiprocessor = 65536;
  std::uint64_t regs_per_block = 65536;
  std::uint64_t shared_mem_per_multiprocessor = 0;
  std::uint64_t shared_mem_per_block = 0;
  std::uint64_t shared_mem_per_block_optin = 0;
  std::uint64_t total_global_mem = 0;
  std::uint64_t total_const_mem = 0;
  int clock_rate_khz = 0;
  int memory_clock_rate_khz = 0;       // the DRAM command clock
  int memory_bus_width_bits = 0;       // all channels together
  std::uint64_t l2_cache_bytes = 0;    // all slices together
  std::uint64_t stack_size_bytes = 1024;
  std::uint64_t printf_fifo_size_bytes = 1 << 20;

  static DeviceProperties fromConfig(const GpuConfig& config);
};

}  // namespace scgpu::driver
