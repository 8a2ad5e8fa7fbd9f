// Microbenchmarks of thread-block clusters (sm_90): distributed shared memory (DSMEM) latency and
// bandwidth, and the cluster barrier. Every kernel is launched with cluster dimensions (the case's
// `cluster`); each times its own loop with clock64 and writes the cycles to cycles[blockIdx.x]
// (block rank 0 of a cluster only where one thread measures). `sink` keeps results alive; the write
// never happens for the inputs used. The same source runs on the H100 (scripts/h100/cluster_micro.cu)
// and, as committed sm_90 PTX (scripts/gen_micro_ptx.sh), on the model through the launch files in
// cluster/ (scripts/gen_cluster_micro_launch.py).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CHASE_WORDS 4096
#define READ_WORDS 8192

// One thread of block rank 0 follows a chain of `hops` indices through the shared memory of block
// rank `target` of its cluster (0: its own, through the same generic pointer path).
extern "C" __global__ void dsmem_chase(int target, int hops, long long* cycles, unsigned* sink) {
  __shared__ unsigned s[CHASE_WORDS];
  cg::cluster_group cl = cg::this_cluster();
  for (int i = threadIdx.x; i < CHASE_WORDS; i += blockDim.x) s[i] = (i + 97) % CHASE_WORDS;
  cl.sync();
  if (cl.block_rank() == 0 && threadIdx.x == 0) {
    volatile unsigned* remote = cl.map_shared_rank(s, target);
    unsigned p = 0;
    long long t0 = clock64();
    for (int i = 0; i < hops; ++i) p = remote[p];
    long long t1 = clock64();
    cycles[blockIdx.x] = t1 - t0;
    if (p == 0xFFFFFFFFu) sink[0] = p;
  }
  cl.sync();  // the target's shared memory must outlive the chase
}

// Every thread reads 4-byte words of the next block's shared memory (rank + 1 in its cluster; a
// cluster of 1 reads its own), 8 per iteration, consecutive lanes on consecutive words.
extern "C" __global__ void dsmem_read(int iters, long long* cycles, unsigned* sink) {
  __shared__ unsigned s[READ_WORDS];
  cg::cluster_group cl = cg::this_cluster();
  for (int i = threadIdx.x; i < READ_WORDS; i += blockDim.x) s[i] = i;
  cl.sync();
  volatile unsigned* remote = cl.map_shared_rank(s, (cl.block_rank() + 1) % cl.num_blocks());
  unsigned acc = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += remote[(threadIdx.x + k * 1024 + i * 32) % READ_WORDS];
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
  cl.sync();
}

// Every thread adds 1 to words of the shared memory of cluster block `target` (distinct words per
// lane, no bank conflict), 8 per iteration, result unused (reductions), timed between barriers.
__device__ __forceinline__ void timedReductions(unsigned target, int iters, long long* cycles, unsigned* sink) {
  __shared__ unsigned s[READ_WORDS];
  cg::cluster_group cl = cg::this_cluster();
  for (int i = threadIdx.x; i < READ_WORDS; i += blockDim.x) s[i] = 0;
  cl.sync();
  unsigned* remote = cl.map_shared_rank(s, target);
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) atomicAdd(remote + ((threadIdx.x + k * 1024) % READ_WORDS), 1u);
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  cl.sync();
  if (threadIdx.x == 0 && s[0] == 0xFFFFFFFFu) sink[0] = s[0];
}

// DSMEM atomic throughput: every lane to block rank + `offset` of its cluster. offset 0: the
// block's own shared memory, through the same generic path.
extern "C" __global__ void dsmem_red(int offset, int iters, long long* cycles, unsigned* sink) {
  cg::cluster_group cl = cg::this_cluster();
  timedReductions((cl.block_rank() + unsigned(offset)) % cl.num_blocks(), iters, cycles, sink);
}

// dsmem_red with a warp's lanes spread over blocks: lane L to block rank + offset + L % spread (mod
// the cluster's size): the cost of a warp's reductions to several blocks at once (as a histogram
// over the cluster's shared memories makes them).
extern "C" __global__ void dsmem_red_spread(int offset, int spread, int iters, long long* cycles, unsigned* sink) {
  cg::cluster_group cl = cg::this_cluster();
  timedReductions((cl.block_rank() + unsigned(offset) + (threadIdx.x % 32) % unsigned(spread)) % cl.num_blocks(), iters,
                  cycles, sink);
}

// `iters` cluster barriers back to back (barrier.cluster.arrive + wait).
extern "C" __global__ void cluster_sync_loop(int iters, long long* cycles) {
  cg::cluster_group cl = cg::this_cluster();
  cl.sync();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) cl.sync();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// Every block adds its rank + 1 to a word of block rank 0's shared memory with a DSMEM atomic,
// then rank 0 writes the sum: checks distributed atomics and the cluster's block ranks.
extern "C" __global__ void dsmem_atomic_sum(unsigned* out) {
  __shared__ unsigned total;
  cg::cluster_group cl = cg::this_cluster();
  if (threadIdx.x == 0) total = 0;
  cl.sync();
  unsigned* t = cl.map_shared_rank(&total, 0);
  atomicAdd(t, cl.block_rank() + 1);
  cl.sync();
  if (cl.block_rank() == 0 && threadIdx.x == 0) out[blockIdx.x / cl.num_blocks()] = total;
}
