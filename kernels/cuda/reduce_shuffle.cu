// Sum reduction with warp shuffles: each warp reduces with __shfl_down_sync, lane 0 of each warp
// stores its sum in shared memory, and the first warp reduces those. One partial per block; a
// second launch with one block sums the partials. blockDim.x must be a multiple of 32.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

extern "C" __global__ void reduce_shuffle(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float warp_sums[32];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    unsigned nwarps = blockDim.x >> 5;
    sum = lane < nwarps ? warp_sums[lane] : 0.0f;
    sum = warp_sum(sum);
    if (lane == 0) out[blockIdx.x] = sum;
  }
}
