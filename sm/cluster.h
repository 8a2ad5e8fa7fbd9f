// Thread-block clusters (sm_90): where a block sits in its cluster, the cluster's shared state
// (distributed shared memory, the cluster barrier), and the special registers that describe it.
// Both engines call joinCluster when a block starts and leaveCluster when it ends; a cluster's
// blocks run side by side (the functional engine starts them together, the timing model ticks the
// SMs holding them on one host thread, so that their cross-block accesses stay deterministic).
#pragma once

#include <cstdint>

#include "sm/exec_context.h"
#include "sm/launch_state.h"

namespace scgpu::sm {

// Blocks per cluster (1 for a launch without clusters).
inline std::uint32_t clusterSize(const LaunchState& l) { return l.cluster[0] * l.cluster[1] * l.cluster[2]; }
// The block's rank in its cluster (%cluster_ctarank) and its cluster's linear id.
std::uint32_t clusterRank(const LaunchState& l, const std::uint32_t ctaid[3]);
std::uint64_t clusterLinearId(const LaunchState& l, const std::uint32_t ctaid[3]);
// The linear block ids of cluster `cluster` (by rank).
void clusterBlocks(const LaunchState& l, std::uint64_t cluster, std::vector<std::uint64_t>& out);
// The linear id of the block that goes `index`-th when blocks go a whole cluster at a time (cluster
// 0's ranks, then cluster 1's, ...), as the GPU dispatches a cluster launch: in linear order, a
// cluster taller than one row would wait for blocks that cannot start while its first row's
// blocks, all waiting at the cluster barrier, fill the GPU.
std::uint64_t clusterMajorBlock(const LaunchState& l, std::uint64_t index);

// A block starts / ends: it joins its cluster (a block of a launch without clusters is a cluster
// of one, with its own barrier state) and leaves it.
void joinCluster(LaunchState& l, BlockState& b);
void leaveCluster(LaunchState& l, BlockState& b);

// The block that shared address `addr` (a shared::cluster address: sm/address_space.h) lies in, or
// nullptr when it names no running block of the cluster.
BlockState* clusterBlockOf(const BlockState& b, std::uint64_t addr);

// barrier.cluster.arrive / wait for the warp of `c` (the engine's bookkeeping); a warp that must
// wait goes to WarpState::AtBarrier with barrier_id kClusterBarrierId.
void arriveAtClusterBarrier(ExecContext& c);
void waitAtClusterBarrier(ExecContext& c);
// Releases the cluster barrier when every live warp of the cluster has arrived (after an arrival or
// a warp's exit).
// `cycle`: the core cycle of the arrival (timing mode), for the release's latency.
void tryReleaseCluster(ClusterState& cs, std::uint64_t cycle = 0);

}  // namespace scgpu::sm
