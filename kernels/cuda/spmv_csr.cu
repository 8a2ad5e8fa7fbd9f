// y = A * x for a CSR matrix (row_ptr[rows+1], cols[nnz], vals[nnz]).
//   spmv_csr_scalar: one thread per row (grid-stride over rows).
//   spmv_csr_vector: one warp per row; lanes stride through the row and the partial sums are
//                    combined with __shfl_xor_sync. blockDim.x must be a multiple of 32.
extern "C" __global__ void spmv_csr_scalar(int rows, const int* __restrict__ row_ptr,
                                           const int* __restrict__ cols, const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += blockDim.x * gridDim.x) {
    float sum = 0.0f;
    for (int e = row_ptr[r]; e < row_ptr[r + 1]; ++e) sum += vals[e] * x[cols[e]];
    y[r] = sum;
  }
}

extern "C" __global__ void spmv_csr_vector(int rows, const int* __restrict__ row_ptr,
                                           const int* __restrict__ cols, const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y) {
  int lane = threadIdx.x & 31;
  int warps_total = (blockDim.x * gridDim.x) >> 5;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < rows; r += warps_total) {
    float sum = 0.0f;
    for (int e = row_ptr[r] + lane; e < row_ptr[r + 1]; e += 32) sum += vals[e] * x[cols[e]];
    for (int mask = 16; mask > 0; mask >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, mask);
    if (lane == 0) y[r] = sum;
  }
}
