// tma_transpose: out = in^T for a rows x cols float matrix, moved by the copy engine (TMA, sm_90).
// A block of 32 x 8 threads has thread 0 load a 32 x 32 tile through the tensor map of `in`
// (cp.async.bulk.tensor, completion on an mbarrier, 128-byte swizzle so that reading a column
// of the tile touches 8 banks, not 1), transposes it into a second tile, and stores that through
// the tensor map of `out` (bulk group). Tiles at the right and bottom edges are partly outside the
// matrix: the load fills zeros there and the store clips, so no bounds checks are needed.
#include <cuda.h>
#include <cuda/barrier>

namespace {
namespace cde = cuda::device::experimental;
using Barrier = cuda::barrier<cuda::thread_scope_block>;
constexpr int kTile = 32;

// Element (r, c) of a 32 x 32 float tile stored with CU_TENSOR_MAP_SWIZZLE_128B: 16-byte chunk
// c / 4 of row r sits at chunk (c / 4) ^ (r % 8).
__device__ __forceinline__ float& swizzled(float (&t)[kTile][kTile], int r, int c) {
  return t[r][((c >> 2) ^ (r & 7)) << 2 | (c & 3)];
}
}  // namespace

extern "C" __global__ void tma_transpose(const __grid_constant__ CUtensorMap in_map,
                                         const __grid_constant__ CUtensorMap out_map) {
  __shared__ alignas(1024) float tile[kTile][kTile];
  __shared__ alignas(128) float tr[kTile][kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ Barrier bar;
  const int x0 = blockIdx.x * kTile, y0 = blockIdx.y * kTile;
  const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
  if (leader) {
    init(&bar, blockDim.x * blockDim.y);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  Barrier::arrival_token token;
  if (leader) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &in_map, x0, y0, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int j = threadIdx.y; j < kTile; j += blockDim.y) tr[j][threadIdx.x] = swizzled(tile, threadIdx.x, j);
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (leader) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&out_map, y0, x0, &tr);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}
