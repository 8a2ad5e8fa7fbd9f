// Inclusive prefix sum of ints, in two levels.
//   scan_block:       each block scans blockDim.x elements with Hillis-Steele in double-buffered
//                     dynamic shared memory (2 * blockDim.x ints) and writes the block total to
//                     block_sums[blockIdx.x] (when block_sums is not null).
//   scan_add_offsets: adds the scanned total of all previous blocks to each element.
// Host: scan_block(data) -> scan_block(block_sums) (one block) -> scan_add_offsets.
extern "C" __global__ void scan_block(const int* __restrict__ in, int* __restrict__ out,
                                      int* __restrict__ block_sums, int n) {
  extern __shared__ int temp[];  // 2 * blockDim.x
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  int pout = 0, pin = 1;
  temp[tid] = gid < n ? in[gid] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset <<= 1) {
    pout = 1 - pout;
    pin = 1 - pout;
    int v = temp[pin * blockDim.x + tid];
    if (tid >= offset) v += temp[pin * blockDim.x + tid - offset];
    temp[pout * blockDim.x + tid] = v;
    __syncthreads();
  }
  int result = temp[pout * blockDim.x + tid];
  if (gid < n) out[gid] = result;
  if (block_sums != nullptr && tid == blockDim.x - 1) block_sums[blockIdx.x] = result;
}

extern "C" __global__ void scan_add_offsets(int* __restrict__ data, const int* __restrict__ scanned_sums,
                                            int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && gid < n) data[gid] += scanned_sums[blockIdx.x - 1];
}
