#include "sm/cluster.h"

#include "sm/address_space.h"
#include "sm/fault.h"
#include "sm/simt.h"

#include <stdexcept>

namespace scgpu::sm {

std::uint32_t clusterRank(const LaunchState& l, const std::uint32_t ctaid[3]) {
  return ctaid[0] % l.cluster[0] + (ctaid[1] % l.cluster[1]) * l.cluster[0] +
         (ctaid[2] % l.cluster[2]) * l.cluster[0] * l.cluster[1];
}

std::uint64_t clusterLinearId(const LaunchState& l, const std::uint32_t ctaid[3]) {
  const std::uint64_t nx = l.grid[0] / l.cluster[0], ny = l.grid[1] / l.cluster[1];
  return ctaid[0] / l.cluster[0] + (ctaid[1] / l.cluster[1]) * nx + std::uint64_t(ctaid[2] / l.cluster[2]) * nx * ny;
}

void clusterBlocks(const LaunchState& l, std::uint64_t cluster, std::vector<std::uint64_t>& out) {
  const std::uint64_t n = clusterSize(l);
  out.clear();
  for (std::uint64_t rank = 0; rank < n; ++rank) out.push_back(clusterMajorBlock(l, cluster * n + rank));
}

std::uint64_t clusterMajorBlock(const LaunchState& l, std::uint64_t index) {
  const std::uint64_t n = clusterSize(l);
  if (n <= 1) return index;
  const std::uint64_t cluster = index / n, rank = index % n;
  const std::uint64_t nx = l.grid[0] / l.cluster[0], ny = l.grid[1] / l.cluster[1];
  const std::uint64_t cx = cluster % nx, cy = (cluster / nx) % ny, cz = cluster / (nx * ny);
  const std::uint64_t x = rank % l.cluster[0], y = (rank / l.cluster[0]) % l.cluster[1],
                      z = rank / (std::uint64_t(l.cluster[0]) * l.cluster[1]);
  const std::uint64_t bx = cx * l.cluster[0] + x, by = cy * l.cluster[1] + y, bz = cz * l.cluster[2] + z;
  return bx + by * l.grid[0] + bz * std::uint64_t(l.grid[0]) * l.grid[1];
}

void joinCluster(LaunchState& l, BlockState& b) {
  b.cluster_rank = 0;
  const std::uint32_t n = clusterSize(l);
  if (n <= 1) {  // a cluster of one: the block's own barrier state
    b.own_cluster.blocks.assign(1, &b);
    b.own_cluster.started = 1;
    b.own_cluster.ended = 0;
    b.own_cluster.arrived_warps = 0;
    b.own_cluster.phase = 0;
    b.cluster = &b.own_cluster;
    return;
  }
  b.cluster_rank = clusterRank(l, b.ctaid);
  auto& slot = l.clusters[clusterLinearId(l, b.ctaid)];
  if (!slot) {
    slot = std::make_shared<ClusterState>();
    slot->blocks.assign(n, nullptr);
  }
  slot->blocks[b.cluster_rank] = &b;
  slot->started++;
  b.cluster = slot.get();
}

void leaveCluster(LaunchState& l, BlockState& b) {
  ClusterState* cs = b.cluster;
  if (!cs) return;
  if (cs == &b.own_cluster) {
    b.cluster = nullptr;
    return;
  }
  cs->blocks[b.cluster_rank] = nullptr;
  b.cluster = nullptr;
  b.on_cluster_release = nullptr;
  if (++cs->ended == cs->blocks.size()) {
    l.clusters.erase(clusterLinearId(l, b.ctaid));
    return;
  }
  tryReleaseCluster(*cs);  // its warps no longer count
}

BlockState* clusterBlockOf(const BlockState& b, std::uint64_t addr) {
  if (addr < kClusterSharedStride) return const_cast<BlockState*>(&b);
  const std::uint64_t rank = addr / kClusterSharedStride - 1;
  if (!b.cluster) return nullptr;
  return rank < b.cluster->blocks.size() ? b.cluster->blocks[std::size_t(rank)] : nullptr;
}

void tryReleaseCluster(ClusterState& cs, std::uint64_t cycle) {
  if (cs.arrived_warps == 0 || cs.started < cs.blocks.size()) return;  // a block still to start will arrive
  std::uint32_t live = 0;
  for (const BlockState* b : cs.blocks)
    if (b) live += liveWarps(*b);
  if (cs.arrived_warps < live) return;
  cs.arrived_warps = 0;
  cs.phase++;
  cs.released_at = cycle;
  for (BlockState* b : cs.blocks) {
    if (!b) continue;
    bool released = false;
    for (Warp& w : b->warps) {
      if (w.state != WarpState::AtBarrier || w.barrier_id != kClusterBarrierId) continue;
      w.state = WarpState::Ready;
      w.cluster_arrived = false;
      released = true;
    }
    if (released && b->on_cluster_release) b->on_cluster_release(cycle);
  }
}

void arriveAtClusterBarrier(ExecContext& c) {
  Warp& w = *c.warp;
  BlockState& b = *c.block;
  if (w.cluster_arrived) return;  // arrived already in this phase (and not waited yet)
  w.cluster_arrived = true;
  if (!b.cluster) throw std::logic_error("barrier.cluster in a block that joined no cluster");
  w.cluster_phase = b.cluster->phase;
  b.cluster->arrived_warps++;
  tryReleaseCluster(*b.cluster, c.cycle == ExecContext::kNoCycle ? 0 : c.cycle);
}

void waitAtClusterBarrier(ExecContext& c) {
  Warp& w = *c.warp;
  BlockState& b = *c.block;
  if (!w.cluster_arrived)
    throw FaultSignal{"illegal instruction", "barrier.cluster.wait without a barrier.cluster.arrive before it",
                      std::uint32_t(__builtin_ctz(c.mask))};
  if (w.cluster_phase != b.cluster->phase) {  // the phase it arrived in is complete
    w.cluster_arrived = false;
    return;
  }
  w.state = WarpState::AtBarrier;
  w.barrier_id = kClusterBarrierId;
  w.barrier_pc = c.pc;
}

}  // namespace scgpu::sm
