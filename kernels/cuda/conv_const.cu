// 1D convolution with zero padding; the filter (2*radius+1 taps) lives in __constant__ memory
// and is written by the host through the symbol's address.
//   conv1d_const:       direct, grid-stride over the output.
//   conv1d_const_tiled: stages blockDim.x inputs plus a halo of MAX_RADIUS on each side in shared
//                       memory first. blockDim.x <= TILE.
#define MAX_RADIUS 16
#define TILE 256

__constant__ float c_filter[2 * MAX_RADIUS + 1];

extern "C" __global__ void conv1d_const(const float* __restrict__ in, float* __restrict__ out, int n,
                                        int radius) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
      int j = i + k;
      if (j >= 0 && j < n) sum += c_filter[k + radius] * in[j];
    }
    out[i] = sum;
  }
}

extern "C" __global__ void conv1d_const_tiled(const float* __restrict__ in, float* __restrict__ out, int n,
                                              int radius) {
  __shared__ float tile[TILE + 2 * MAX_RADIUS];
  int base = blockIdx.x * blockDim.x;
  // Load [base - MAX_RADIUS, base + blockDim.x + MAX_RADIUS) with zeros outside [0, n).
  for (int t = threadIdx.x; t < blockDim.x + 2 * MAX_RADIUS; t += blockDim.x) {
    int j = base - MAX_RADIUS + t;
    tile[t] = (j >= 0 && j < n) ? in[j] : 0.0f;
  }
  __syncthreads();
  int i = base + threadIdx.x;
  if (i < n) {
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k) sum += c_filter[k + radius] * tile[threadIdx.x + MAX_RADIUS + k];
    out[i] = sum;
  }
}
