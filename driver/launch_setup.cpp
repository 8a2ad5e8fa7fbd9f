#include "driver/launch_setup.h"

#include <algorithm>

#include <fmt/format.h>

namespace scgpu::driver {
namespace {
// Bytes of one register slot of one thread in the functional core's register files.
constexpr std::uint64_t kRegisterSlotBytes = sizeof(std::uint64_t);
}  // namespace

Error setupLaunch(const ptx::Program& prog, Dim3 grid, Dim3 block, std::size_t dynamic_shared_bytes,
                  memsys::BackingStore& memory, const DeviceProperties& p, std::uint64_t call_depth_frames,
                  std::uint64_t grid_id, sm::LaunchState& launch, std::string* why) {
  // A launch the device refuses is not a fault: nothing ran. It returns InvalidConfiguration and
  // says why in lastLaunchError().
  auto bad_config = [&](const std::string& reason) {
    *why = fmt::format("cannot launch kernel '{}' with grid {}x{}x{} and block {}x{}x{}: {}",
                                      prog.kernel_name, grid.x, grid.y, grid.z, block.x, block.y, block.z, reason);
    return Error::InvalidConfiguration;
  };
  // A kernel with PTX the core does not implement loads with its module but never runs: the
  // refusal lists every such instruction, in or below the kernel.
  if (!prog.unsupported.empty()) {
    std::string list;
    for (const auto& u : prog.unsupported)
      list += fmt::format("\n  {}:{}:{}: '{}': {}", prog.module_name, u.line, u.col, u.text, u.reason);
    *why = fmt::format("cannot launch kernel '{}': it uses {} PTX instruction{} that scgpu does not implement "
                       "(the module's other kernels run):{}",
                       prog.kernel_name, prog.unsupported.size(), prog.unsupported.size() == 1 ? "" : "s", list);
    return Error::InvalidConfiguration;
  }
  const std::uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  const char* axis[3] = {"x", "y", "z"};
  // CUDA's rules (cudaErrorInvalidConfiguration): every dimension at least 1 and at most the
  // device's maximum, and the block's threads at most max_threads_per_block.
  for (int i = 0; i < 3; ++i) {
    if (g[i] == 0) return bad_config(fmt::format("grid.{} is 0; every grid dimension must be at least 1", axis[i]));
    if (b[i] == 0) return bad_config(fmt::format("block.{} is 0; every block dimension must be at least 1", axis[i]));
  }
  for (int i = 0; i < 3; ++i) {
    if (std::uint64_t(g[i]) > std::uint64_t(p.max_grid_dim[i]))
      return bad_config(fmt::format("grid.{} is {}, above the device's maximum grid dimension {}", axis[i], g[i],
                                    p.max_grid_dim[i]));
    if (std::uint64_t(b[i]) > std::uint64_t(p.max_block_dim[i]))
      return bad_config(fmt::format("block.{} is {}, above the device's maximum block dimension {}", axis[i], b[i],
                                    p.max_block_dim[i]));
  }
  if (block.count() > std::uint64_t(p.max_threads_per_block))
    return bad_config(fmt::format("{} threads per block, above the device's maximum of {}", block.count(),
                                  p.max_threads_per_block));
  if (prog.reqntid[0] && (block.x != prog.reqntid[0] || block.y != std::max(1u, prog.reqntid[1]) ||
                          block.z != std::max(1u, prog.reqntid[2])))
    return bad_config(fmt::format("kernel requires a block of {}x{}x{} threads (.reqntid)", prog.reqntid[0],
                                  std::max(1u, prog.reqntid[1]), std::max(1u, prog.reqntid[2])));
  if (prog.maxntid[0] && block.count() > std::uint64_t(prog.maxntid[0]) * std::max(1u, prog.maxntid[1]) *
                                             std::max(1u, prog.maxntid[2]))
    return bad_config("block larger than the kernel's .maxntid");
  // Dynamic shared memory starts after the static variables, aligned for the extern array.
  const std::uint64_t align = std::max(1u, prog.dynamic_shared_align);
  const std::uint64_t static_end = (std::uint64_t(prog.static_shared_bytes) + align - 1) / align * align;
  const std::uint64_t shared_total = dynamic_shared_bytes > p.shared_mem_per_block_optin
                                         ? ~std::uint64_t{0}
                                         : (dynamic_shared_bytes ? static_end : prog.static_shared_bytes) +
                                               std::uint64_t(dynamic_shared_bytes);
  if (shared_total > p.shared_mem_per_block_optin)
    return bad_config(fmt::format("{} bytes of static and {} bytes of dynamic shared memory per block exceed the "
                                  "limit of {}",
                                  prog.static_shared_bytes, dynamic_shared_bytes, p.shared_mem_per_block_optin));
  // CUDA reserves local memory (each thread's frame and stack) for every thread the device can
  // hold at once, and a launch whose reservation does not fit in device memory fails with
  // cudaErrorMemoryAllocation. The model allocates it on the host for every resident warp, so the
  // same rule keeps a kernel with huge frames from exhausting the host. The model also keeps
  // every thread's register slots on the host (virtual registers, constants and special registers,
  // 8 bytes each): those beyond the physical registers are what ptxas would spill to local
  // memory, so they are charged to the same reservation, and calls may grow them only within it.
  const ptx::DecodedFunction& kernel = prog.functions.front();
  const std::uint64_t register_bytes = std::uint64_t(kernel.num_regs) * kRegisterSlotBytes;
  const std::uint64_t local_per_thread = std::uint64_t(kernel.local_frame_bytes) + p.stack_size_bytes + register_bytes;
  const std::uint64_t resident_threads =
      std::uint64_t(p.multiprocessor_count) * std::uint64_t(p.max_threads_per_multiprocessor);
  const std::uint64_t local_bytes = local_per_thread * resident_threads;  // < 2^64: both factors < 2^32
  const std::uint64_t free_bytes = memory.capacity() - std::min(memory.capacity(), memory.bytesAllocated());
  if (local_bytes > free_bytes) {
    bad_config(fmt::format("local memory for {} resident threads of {} bytes each (the kernel's {}-byte frame, its {} "
                           "register slots of {} bytes and limits.stack_size_bytes = {}) is {} bytes, more than the "
                           "{} bytes of device memory free",
                           resident_threads, local_per_thread, kernel.local_frame_bytes, kernel.num_regs,
                           kRegisterSlotBytes, p.stack_size_bytes, local_bytes, free_bytes));
    return Error::MemoryAllocation;
  }

  launch.program = &prog;
  launch.memory = &memory;
  launch.grid[0] = grid.x; launch.grid[1] = grid.y; launch.grid[2] = grid.z;
  launch.block[0] = block.x; launch.block[1] = block.y; launch.block[2] = block.z;
  launch.dynamic_shared_bytes = std::uint32_t(dynamic_shared_bytes);
  launch.num_sms = std::uint32_t(p.multiprocessor_count);
  launch.grid_id = grid_id;
  launch.stack_size_bytes = p.stack_size_bytes;
  launch.call_depth_frames = call_depth_frames;
  // What the reservation leaves per thread for the register slots of the kernel and its calls.
  launch.register_bytes_per_thread =
      free_bytes / resident_threads - std::uint64_t(kernel.local_frame_bytes) - p.stack_size_bytes;
  launch.printf_limit_bytes = p.printf_fifo_size_bytes;
  return Error::Success;
}

}  // namespace scgpu::driver
