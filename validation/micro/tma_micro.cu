// TMA (cp.async.bulk.tensor) microbenchmarks, run on the H100 by scripts/h100/tma_probe.cu and on
// the model through the launch files in validation/micro/tma/ (PTX: tma_micro.ptx, nvcc -arch=sm_90).
//   tma_box_dump:  one box of a 2-d or 3-d tensor map into shared memory, dumped word for word (the
//                  layout: swizzles, out-of-bound fill, element strides)
//   tma_latency:   one thread, one box at a time: cycles from the copy's issue to its mbarrier phase
//   tma_stream:    one thread per block keeps `stages` boxes in flight through a ring of mbarriers;
//                  cycles per block for `boxes` boxes (throughput per SM)
//   tma_stream_shared: the same with `share` blocks loading each box at about the same time
#include <cuda.h>
#include <cstdint>

namespace {
__device__ __forceinline__ std::uint32_t smem(const void* p) { return std::uint32_t(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbarInit(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count));
}
__device__ __forceinline__ void mbarExpect(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes));
}
__device__ __forceinline__ void mbarWait(std::uint64_t* bar, std::uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}" ::"r"(
          smem(bar)),
      "r"(parity));
}
__device__ __forceinline__ void load2d(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem(bar))
      : "memory");
}
__device__ __forceinline__ void load3d(void* dst, const CUtensorMap* map, int x, int y, int z, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(
          smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(smem(bar))
      : "memory");
}
__device__ __forceinline__ void fenceInit() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
}  // namespace

// Thread 0 loads the box at (x, y, z) (rank 2 ignores z) into a 1024-byte-aligned buffer; the block
// copies `bytes` of it to out, word by word.
extern "C" __global__ void tma_box_dump(const __grid_constant__ CUtensorMap map, std::uint32_t* out, int rank, int x,
                                        int y, int z, std::uint32_t bytes) {
  __shared__ alignas(1024) std::uint32_t box[4096];
  __shared__ alignas(8) std::uint64_t bar;
  if (threadIdx.x == 0) {
    mbarInit(&bar, 1);
    fenceInit();
    if (rank == 3) load3d(box, &map, x, y, z, &bar);
    else load2d(box, &map, x, y, &bar);
    mbarExpect(&bar, bytes);
    mbarWait(&bar, 0);
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) out[i] = box[i];
}

// One thread: n boxes of 32 x rows floats, one after another, box i at row (i * 97 * rows) mod
// tensor_rows; cycles[i] = clock64 from before the copy to the end of its mbarrier wait.
extern "C" __global__ void tma_latency(const __grid_constant__ CUtensorMap map, long long* cycles, int n, int rows,
                                       int tensor_rows) {
  __shared__ alignas(1024) float box[32 * 256];
  __shared__ alignas(8) std::uint64_t bar;
  if (threadIdx.x != 0) return;
  mbarInit(&bar, 1);
  fenceInit();
  for (int i = 0; i < n; ++i) {
    const int y = int((long long)i * 97 * rows % tensor_rows);
    const long long t0 = clock64();
    load2d(box, &map, 0, y, &bar);
    mbarExpect(&bar, 32 * 4 * rows);
    mbarWait(&bar, i & 1);
    cycles[i] = clock64() - t0;
  }
}

// One thread per block keeps `stages` (at most 4) boxes of 32 x rows floats in flight, the k-th box
// it loads at row (first_row + k * step) mod tensor_rows, column 0, until it has loaded `boxes`;
// cycles[b] = clock64 from the first issue to the last completion.
__device__ __forceinline__ void streamBoxes(const CUtensorMap* map, long long* cycles, int boxes, int rows,
                                            int tensor_rows, int stages, int first_row, int step) {
  extern __shared__ __align__(1024) float ring[];
  __shared__ alignas(8) std::uint64_t bars[4];
  if (threadIdx.x != 0) return;
  const int stage_floats = 32 * rows;
  const std::uint32_t bytes = std::uint32_t(stage_floats) * 4;
  for (int s = 0; s < stages; ++s) mbarInit(&bars[s], 1);
  fenceInit();
  // The row of the next box to issue, stepped without a division (a 64-bit remainder costs a
  // single thread hundreds of cycles).
  int next_row = first_row;
  auto next = [&]() {
    const int r = next_row;
    next_row += step;
    if (next_row >= tensor_rows) next_row -= tensor_rows;
    return r;
  };
  const long long t0 = clock64();
  for (int s = 0; s < stages && s < boxes; ++s) {
    mbarExpect(&bars[s], bytes);
    load2d(ring + s * stage_floats, map, 0, next(), &bars[s]);
  }
  int s = 0;
  std::uint32_t phase = 0;
  for (int i = 0; i < boxes; ++i) {
    mbarWait(&bars[s], phase);
    if (i + stages < boxes) {
      mbarExpect(&bars[s], bytes);
      load2d(ring + s * stage_floats, map, 0, next(), &bars[s]);
    }
    if (++s == stages) {
      s = 0;
      phase ^= 1;
    }
  }
  cycles[blockIdx.x] = clock64() - t0;
}

// Block b loads boxes b, b + grid, b + 2 grid, ...: every line from one SM.
extern "C" __global__ void tma_stream(const __grid_constant__ CUtensorMap map, long long* cycles, int boxes, int rows,
                                      int tensor_rows, int stages) {
  streamBoxes(&map, cycles, boxes, rows, tensor_rows, stages, int((long long)blockIdx.x * rows % tensor_rows),
              int((long long)gridDim.x * rows % tensor_rows));
}

// Blocks in groups of `share` (grid a multiple of it) load the same boxes at about the same time:
// group g loads boxes g, g + groups, ... So `share` SMs ask the L2 for each line at once, as the
// blocks of a GEMM that share a tile of A or B do.
extern "C" __global__ void tma_stream_shared(const __grid_constant__ CUtensorMap map, long long* cycles, int boxes,
                                             int rows, int tensor_rows, int stages, int share) {
  const int groups = int(gridDim.x) / share;
  streamBoxes(&map, cycles, boxes, rows, tensor_rows, stages,
              int((long long)(blockIdx.x / unsigned(share)) * rows % tensor_rows),
              int((long long)groups * rows % tensor_rows));
}
