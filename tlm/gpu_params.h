// The typed description of a GPU: one parameter struct per block (the blocks' own structs live
// beside them: sm/sm_params.h, memsys/memsys_params.h), filled from YAML by
// tlm/gpu_params.cpp (which checks every key, type, range and combination) and handed to the
// blocks' constructors. Field names are the YAML keys; units are in the names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memsys/memsys_params.h"
#include "sm/sm_params.h"
#include "tlm/host/host_params.h"

namespace scgpu {
class Config;

struct ClockParams {
  double core_clock_mhz = 1755;   // SMs, GigaThread engine
  double icnt_clock_mhz = 1755;   // crossbar and L2 slices
  double dram_clock_mhz = 1593;   // DRAM command clock (tCK = 1 / dram_clock_mhz)
};

struct GigaThreadParams {
  std::uint32_t dispatch_latency_cycles = 4;     // from a free slot to the block starting on the SM
  std::uint32_t blocks_per_cycle = 1;
  // Fixed cost of a kernel launch as the GPU measures it: front end (launch descriptor, parameter
  // upload) before the first block, and completion (memory flush, completion signal) after the
  // last block retires.
  std::uint32_t launch_latency_cycles = 0;
  std::uint32_t completion_latency_cycles = 0;
  // Every launch starts with empty caches, as under Nsight Compute's --cache-control all.
  bool flush_caches_before_launch = false;
};

struct WatchdogParams {
  std::uint64_t no_progress_cycles = 1000000;    // core cycles with no instruction retired anywhere
  std::uint64_t block_resident_cycles = 5000000;  // core cycles one block may stay resident
};

// Limits of the functional core that the CUDA runtime exposes (cudaLimit*), and the simulator's bounds.
struct LimitsParams {
  std::uint64_t stack_size_bytes = 1024;                           // per thread (cudaLimitStackSize)
  std::uint64_t printf_fifo_size_bytes = 1 << 20;                  // cudaLimitPrintfFifoSize
  std::uint64_t watchdog_warp_instructions_per_block = 1000000000; // functional mode: a block that runs longer hangs
  // Bounds on what one kernel may make the simulator do (a spinning or runaway kernel stops with a
  // timeout fault, as a GPU's watchdog stops it): call depth in frames, and per-launch budgets.
  std::uint64_t call_depth_frames = 1024;
  std::uint64_t warp_instructions_per_launch = 10000000000ull;
  std::uint64_t cycles_per_launch = 100000000;
};

// How the simulator runs, not what it models: results and statistics do not depend on it.
struct SimulationParams {
  std::uint32_t host_threads = 1;  // host threads that tick the SMs of a core cycle side by side
  // adaptive: the threads take the cycles where timing shows they pay (ClockDomain::Threads);
  // always: every cycle with two or more SMs (slices, channels) to tick (tests of that path).
  std::string parallel_ticks = "adaptive";
  // An SM whose warps all wait sleeps until its next event and accounts the skipped cycles in bulk
  // (SmCore::asleepAt), and a stalled warp is looked at again only when its reason may have
  // changed; false ticks every SM and evaluates every warp every cycle (tests compare the two).
  bool skip_stalled_cycles = true;
  // Every this many core cycles of a running kernel, a sample of the chip's counters over the
  // interval (IPC, DRAM bandwidth, hit rates, stall reasons) goes into the statistics' `samples`
  // (--stats-interval); 0: none.
  std::uint64_t stats_interval_cycles = 0;
};

struct GpuParams {
  std::string name = "tiny";
  std::uint32_t cc_major = 9, cc_minor = 0;
  ClockParams clocks;
  SmParams sm;
  CrossbarParams crossbar;
  L2Params l2;
  DramParams dram;
  GigaThreadParams gigathread;
  MmuParams mmu;
  host::HostParams host;
  WatchdogParams watchdog;
  std::uint64_t global_size_bytes = 4ull << 30;
  std::uint64_t constant_size_bytes = 65536;
  LimitsParams limits;
  SimulationParams simulation;

  // Reads and checks a whole config. Throws ConfigError with file:line:col and the key path for
  // unknown keys, wrong types, values out of range and inconsistent combinations.
  static GpuParams fromConfig(const Config& config);
};

}  // namespace scgpu
