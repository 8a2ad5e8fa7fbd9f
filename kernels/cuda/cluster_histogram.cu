// cluster_histogram: a histogram whose bins are spread over the shared memory of the blocks of a
// thread-block cluster (sm_90 distributed shared memory, as in the CUDA programming guide): every
// block counts its values into whichever block of its cluster holds the bin, through
// cluster.map_shared_rank, then each block adds its part of the cluster's bins to the result.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cluster_histogram(const unsigned* in, unsigned n, unsigned nbins, unsigned* bins) {
  extern __shared__ unsigned part[];  // nbins / cluster size bins of this block
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned per_block = nbins / cluster.num_blocks();
  for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x) part[i] = 0;
  cluster.sync();  // every block's part is zero before any block counts into it
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned bin = in[i] % nbins;
    unsigned* owner = cluster.map_shared_rank(part, bin / per_block);
    atomicAdd(owner + bin % per_block, 1u);
  }
  cluster.sync();  // every count is in before the parts are read (and no block exits early)
  const unsigned first = cluster.block_rank() * per_block;
  for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x)
    if (part[i]) atomicAdd(bins + first + i, part[i]);
}
