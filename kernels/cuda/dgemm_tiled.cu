// C = alpha * A * B + beta * C in double precision, row-major, 16x16 shared-memory tiles.
// Block (16,16), grid (ceil(N/16), ceil(M/16)). Any M, N, K.
#define TILE 16

extern "C" __global__ void dgemm_tiled(int M, int N, int K, double alpha, const double* __restrict__ A,
                                       const double* __restrict__ B, double beta, double* __restrict__ C) {
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  double acc = 0.0;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
