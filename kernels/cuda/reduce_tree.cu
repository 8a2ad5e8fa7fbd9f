// Sum reduction: each block reduces a grid-stride slice in shared memory with a tree of
// halving strides and writes one partial sum; a second launch with one block sums the partials.
// blockDim.x must be a power of two no larger than 256.
#define MAX_THREADS 256

extern "C" __global__ void reduce_tree(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float sdata[MAX_THREADS];
  unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
