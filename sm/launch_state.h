// State shared by the warps of one block (shared memory, barriers) and of one launch
// (parameters, grid shape, device memory, printf output).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "memsys/backing_store.h"
#include "memsys/page_table.h"
#include "ptx/decoded.h"
#include "sm/warp.h"

namespace scgpu::sm {

constexpr int kNumBarriers = 16;
// Warp::barrier_id of a warp waiting in barrier.cluster.wait.
constexpr std::uint32_t kClusterBarrierId = kNumBarriers;

struct BarrierState {
  std::uint32_t arrived_warps = 0;
  std::uint32_t expected_warps = 0;  // 0 = all live warps of the block
  std::uint32_t reduce = 0;          // bar.red accumulator
  std::uint32_t reduce_kind = 0;
};

struct BlockState;

// The blocks of one thread-block cluster (sm_90): their shared memories (distributed shared memory,
// sm/address_space.h) and the cluster barrier. Made when the cluster's first block starts and
// dropped when its last one ends (sm/cluster.h).
struct ClusterState {
  std::vector<BlockState*> blocks;  // by rank; nullptr while that block has not started or has ended
  std::uint32_t started = 0;        // blocks that have started (a block ends after all have)
  std::uint32_t ended = 0;
  std::uint32_t arrived_warps = 0;  // barrier.cluster arrivals in the current phase
  std::uint32_t phase = 0;
  std::uint64_t released_at = 0;    // timing mode: the core cycle of the last release
};

struct BlockState {
  std::uint32_t ctaid[3] = {0, 0, 0};
  std::uint64_t linear_id = 0;  // x + y * grid.x + z * grid.x * grid.y: up to 2^63 blocks
  std::uint32_t sm_id = 0;
  std::vector<std::uint8_t> shared;
  std::vector<Warp> warps;
  BarrierState barriers[kNumBarriers];
  // Cluster launches: the block's cluster, its rank in it, and (timing mode) what to call when the
  // cluster barrier releases this block's warps from another block's arrival.
  ClusterState* cluster = nullptr;   // own_cluster for a launch without clusters
  ClusterState own_cluster;
  std::uint32_t cluster_rank = 0;
  std::function<void(std::uint64_t cycle)> on_cluster_release;
  // Timing mode: the texture processing cluster (pair of SMs) that holds the block; distributed
  // shared memory within one is cheaper than across (sm.sms_per_tpc).
  std::uint32_t tpc = 0;
};

// The functional core's global spans: ranges of virtual addresses found translated, inside one
// live allocation and one backing-store page, with the host bytes they start at. An access inside
// one skips translation, the allocation check and the page look-up (a hundred host instructions a
// warp access, as many a lane for a gather across pages). A span lies in one kPageBytes-aligned
// range of virtual addresses (translation pages are aligned and at least that large, or inside
// one), which picks its entry: one look-up, and a kernel that streams through many arrays keeps a
// span for each. Dropped when the store's generation changes (an allocation or a page came or
// went); the page tables do not change during a launch.
struct GlobalSpans {
  static constexpr int kEntryBits = 6;
  struct Entry {
    std::uint64_t lo = 1, end = 0;  // [lo, end): none while lo > end
    std::uint8_t* host = nullptr;   // the bytes of lo
    bool writable = false;          // found by a write (a read may use any span)
  };
  Entry entries[1 << kEntryBits];
  std::uint64_t generation = ~0ull;  // the backing store's generation they were found at
  // The entry of the span that holds `va` (a multiplicative hash of its page number).
  Entry& entryOf(std::uint64_t va) {
    constexpr int kPageShift = __builtin_ctzll(memsys::BackingStore::kPageBytes);
    return entries[((va >> kPageShift) * 0x9E3779B97F4A7C15ull) >> (64 - kEntryBits)];
  }
};

struct LaunchState {
  const ptx::Program* program = nullptr;
  memsys::BackingStore* memory = nullptr;
  // Address translation: with a page-table root, every global address is virtual and goes through
  // `mmu` (the device's translations, shared by its launches); `page` remembers the last page this
  // launch used, so most accesses skip even the cache's lookup. Root 0: addresses are physical.
  memsys::TranslationCache* mmu = nullptr;
  std::uint64_t page_table_root = 0;
  memsys::LastPage page;
  GlobalSpans spans;  // functional core only
  std::vector<std::uint8_t> params;  // the kernel parameter buffer
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  // Thread-block cluster dimensions (each divides the grid's); 1x1x1: every block is a cluster of
  // one. The clusters whose blocks run now, by cluster linear id (sm/cluster.h).
  std::uint32_t cluster[3] = {1, 1, 1};
  std::map<std::uint64_t, std::shared_ptr<ClusterState>> clusters;
  std::uint32_t dynamic_shared_bytes = 0;
  std::uint32_t num_sms = 1;
  std::uint64_t grid_id = 1;
  // %envreg0..31. A cooperative launch (LAUNCH_DESC.GRID_SYNC_ADDR) puts the address of the bytes its
  // blocks synchronise through in %envreg1 (high half) and %envreg2 (low half), where cooperative
  // groups' grid.sync() looks for it; its blocks then run side by side (`cooperative`).
  std::array<std::uint32_t, 32> envreg{};
  bool cooperative = false;
  std::uint64_t stack_size_bytes = 1024;
  // Nested calls one thread may make (limits.call_depth_frames), whatever the frames' sizes: a
  // recursive .func without locals must fault, not grow the host's memory without end.
  std::uint64_t call_depth_frames = 1024;
  // Bytes per thread the register slots of all of a warp's frames may take (8 bytes a slot): the
  // runtime sets it from the device memory left over every resident thread; a call beyond it is a
  // stack overflow. The default is no bound (tests that build a LaunchState themselves).
  std::uint64_t register_bytes_per_thread = ~std::uint64_t{0};
  std::uint64_t clock = 0;           // functional mode: instructions retired so far
  // Timing mode: what the SMs issued for this launch (kernels run side by side, so the SMs'
  // counters cannot be split by kernel afterwards).
  std::uint64_t warp_instructions = 0, thread_instructions = 0;
  std::string printf_output;
  std::uint64_t printf_limit_bytes = 1 << 20;
};

}  // namespace scgpu::sm
