// 256-bin byte histogram.
//   histogram_shared: per-block histogram with shared-memory atomics, merged into the global
//                     histogram with one global atomicAdd per bin per block.
//   histogram_global: every byte does a global atomicAdd.
// bins must be zeroed before the launch. Grid-stride loops over n bytes.
#define NUM_BINS 256

extern "C" __global__ void histogram_shared(const unsigned char* __restrict__ data, int n,
                                            unsigned int* __restrict__ bins) {
  __shared__ unsigned int local[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    unsigned int c = local[b];
    if (c != 0) atomicAdd(&bins[b], c);
  }
}

extern "C" __global__ void histogram_global(const unsigned char* __restrict__ data, int n,
                                            unsigned int* __restrict__ bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i]], 1u);
}
