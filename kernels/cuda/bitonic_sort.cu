// Bitonic sort of n = 2^m unsigned keys, ascending.
//   bitonic_step:         one compare-exchange step (k, j) over the whole array in global memory;
//                         the host launches it for every k = 2..n and j = k/2..1 (one thread per key).
//   bitonic_sort_shared:  sorts each blockDim.x-key chunk in shared memory, i.e. every step with
//                         k <= blockDim.x, in alternating directions as the global network wants.
//   bitonic_merge_shared: the steps j = blockDim.x/2..1 of one stage k > blockDim.x in shared memory.
// blockDim.x must be a power of two no larger than 1024.
#define MAX_BLOCK 1024

__device__ __forceinline__ void compare_exchange(unsigned& a, unsigned& b, bool ascending) {
  if ((a > b) == ascending) {
    unsigned t = a;
    a = b;
    b = t;
  }
}

extern "C" __global__ void bitonic_step(unsigned* __restrict__ data, unsigned j, unsigned k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ixj = i ^ j;
  if (ixj > i) {
    unsigned a = data[i], b = data[ixj];
    compare_exchange(a, b, (i & k) == 0);
    data[i] = a;
    data[ixj] = b;
  }
}

extern "C" __global__ void bitonic_sort_shared(unsigned* __restrict__ data) {
  __shared__ unsigned keys[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + tid;
  keys[tid] = data[gid];
  __syncthreads();
  for (unsigned k = 2; k <= blockDim.x; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      unsigned partner = tid ^ j;
      if (partner > tid) {
        unsigned a = keys[tid], b = keys[partner];
        compare_exchange(a, b, (gid & k) == 0);
        keys[tid] = a;
        keys[partner] = b;
      }
      __syncthreads();
    }
  }
  data[gid] = keys[tid];
}

extern "C" __global__ void bitonic_merge_shared(unsigned* __restrict__ data, unsigned k) {
  __shared__ unsigned keys[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + tid;
  keys[tid] = data[gid];
  __syncthreads();
  for (unsigned j = blockDim.x >> 1; j > 0; j >>= 1) {
    unsigned partner = tid ^ j;
    if (partner > tid) {
      unsigned a = keys[tid], b = keys[partner];
      compare_exchange(a, b, (gid & k) == 0);
      keys[tid] = a;
      keys[partner] = b;
    }
    __syncthreads();
  }
  data[gid] = keys[tid];
}
