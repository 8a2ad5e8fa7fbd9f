// Matrix transpose out[x][y] = in[y][x] for a row-major height x width matrix.
// Block (TILE_DIM, BLOCK_ROWS) = (32, 8): each thread moves TILE_DIM/BLOCK_ROWS = 4 elements.
// Grid (ceil(width/32), ceil(height/32)).
//   transpose_naive:         reads coalesced, writes strided.
//   transpose_shared:        through a 32x32 shared tile (bank conflicts on the column reads).
//   transpose_shared_padded: the same tile padded to 33 columns (no bank conflicts).
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_naive(float* __restrict__ out, const float* __restrict__ in,
                                           int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && y + j < height) out[x * height + (y + j)] = in[(y + j) * width + x];
  }
}

extern "C" __global__ void transpose_shared(float* __restrict__ out, const float* __restrict__ in,
                                            int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transposed block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

extern "C" __global__ void transpose_shared_padded(float* __restrict__ out, const float* __restrict__ in,
                                                   int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}
