// tma_im2col: the copy engine's im2col mode (cp.async.bulk.tensor.{3,4,5}d...im2col), case by case,
// against a CPU reference of what the PTX ISA says the mode loads. A tensor of f32 elements whose
// values are their own indices (so that every loaded element says where it came from) is described
// by an im2col tensor map (cuTensorMapEncodeIm2col, from cudaGetDriverEntryPoint); one thread loads
// pixelsPerColumn pixels of channelsPerPixel channels into shared memory, and the block copies the
// tile out as it lies there (swizzle included). The reference:
//   dimension 0 is the channels, the last the batch (N), those between the spatial ones (W, H, D);
//   in spatial dimension s the bounding box holds the base positions lower[s] .. size[s] - 1 +
//   upper[s]; the instruction's coordinates give the first pixel's base position, channel and
//   batch; pixel k+1 is pixel k's base moved by the element stride along W, wrapping to lower[W]
//   (and one stride on along H) past the box's upper end, H wrapping into D and D into the next
//   image; a pixel loads the elements at its base plus the im2col offsets, channels c ..
//   c + channelsPerPixel - 1; elements outside the tensor read as zero.
// Built with -arch=sm_90 (cp.async.bulk.tensor and the mbarrier's transaction counts). Usage:
// tma_im2col. Prints each case's first mismatch and PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstring>

#define CUDA_PROGRAM_NAME "tma_im2col"
#include "../program_support.cuh"

namespace {

constexpr int kMaxTileBytes = 32768;

// One im2col load: coordinates c, w, [h, [d]], n and offsets (W first), into a 1024-byte aligned
// tile; then every thread copies the tile out.
template <int kRank>
__global__ void im2colLoad(const __grid_constant__ CUtensorMap map, int4 coord_lo, int coord_n, ushort4 offsets,
                           unsigned bytes, unsigned* out) {
  __shared__ alignas(1024) unsigned tile[kMaxTileBytes / 4];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned tile_s = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned bar_s = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  for (unsigned i = threadIdx.x; i < bytes / 4; i += blockDim.x) tile[i] = 0xDEADBEEFu;  // what no load wrote
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_s));
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_s), "r"(bytes) : "memory");
    const unsigned long long m = reinterpret_cast<unsigned long long>(&map);
    if constexpr (kRank == 3) {
      asm volatile(
          "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
          "[%5], {%6};" ::"r"(tile_s),
          "l"(m), "r"(coord_lo.x), "r"(coord_lo.y), "r"(coord_n), "r"(bar_s), "h"(offsets.x)
          : "memory");
    } else if constexpr (kRank == 4) {
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
          "[%6], {%7, %8};" ::"r"(tile_s),
          "l"(m), "r"(coord_lo.x), "r"(coord_lo.y), "r"(coord_lo.z), "r"(coord_n), "r"(bar_s), "h"(offsets.x),
          "h"(offsets.y)
          : "memory");
    } else {
      asm volatile(
          "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, "
          "%6}], [%7], {%8, %9, %10};" ::"r"(tile_s),
          "l"(m), "r"(coord_lo.x), "r"(coord_lo.y), "r"(coord_lo.z), "r"(coord_lo.w), "r"(coord_n), "r"(bar_s),
          "h"(offsets.x), "h"(offsets.y), "h"(offsets.z)
          : "memory");
    }
  }
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar_s)
        : "memory");
  for (unsigned i = threadIdx.x; i < bytes / 4; i += blockDim.x) out[i] = tile[i];
}

struct Case {
  const char* name;
  int rank;
  std::uint64_t dims[5];     // C, W, [H, [D]], N
  int lower[3], upper[3];    // W, H, D
  unsigned cpp, ppc;
  unsigned estride[5];       // per dimension (C first)
  int swizzle;               // CU_TENSOR_MAP_SWIZZLE_*
  int coord[5];              // c, w, [h, [d]], n
  unsigned short off[3];     // W, H, D
};

const Case kCases[] = {
    // 3x3 convolution, padding 1, over a 2-image 10 x 6 NHWC tensor of 8 channels: the box of base
    // positions is W -1..8, H -1..4 (60 pixels an image), so 64 pixels run into the second image.
    {"nhwc_pad1_k00", 4, {8, 10, 6, 2}, {-1, -1}, {-1, -1}, 8, 64, {1, 1, 1, 1}, 0, {0, -1, -1, 0}, {0, 0}},
    {"nhwc_pad1_k11", 4, {8, 10, 6, 2}, {-1, -1}, {-1, -1}, 8, 64, {1, 1, 1, 1}, 0, {0, -1, -1, 0}, {1, 1}},
    {"nhwc_pad1_k21", 4, {8, 10, 6, 2}, {-1, -1}, {-1, -1}, 8, 64, {1, 1, 1, 1}, 0, {0, -1, -1, 0}, {2, 1}},
    {"nhwc_pad1_k22_mid", 4, {8, 10, 6, 2}, {-1, -1}, {-1, -1}, 8, 32, {1, 1, 1, 1}, 0, {0, 3, 2, 0}, {2, 2}},
    // Asymmetric corners (W and H told apart) and a start in the middle of the box.
    {"nhwc_asym", 4, {4, 12, 7, 3}, {-2, 0}, {0, -3}, 4, 96, {1, 1, 1, 1}, 0, {0, 5, 1, 1}, {1, 2}},
    // Channels 8..15 of 16, and 12..19 (16..19 outside the tensor).
    {"nhwc_channels_hi", 4, {16, 6, 5, 1}, {0, 0}, {-1, -1}, 8, 20, {1, 1, 1, 1}, 0, {8, 0, 0, 0}, {1, 0}},
    {"nhwc_channels_oob", 4, {16, 6, 5, 1}, {0, 0}, {-1, -1}, 8, 20, {1, 1, 1, 1}, 0, {12, 0, 0, 0}, {0, 1}},
    // Traversal stride 2 in W and H (a stride-2 convolution).
    {"nhwc_stride2", 4, {4, 11, 9, 2}, {-1, -1}, {-1, -1}, 4, 40, {1, 2, 2, 1}, 0, {0, -1, -1, 0}, {1, 1}},
    // NWC (rank 3): one spatial dimension; offsets past the end read zeros.
    {"nwc_tail", 3, {16, 40, 3}, {0}, {0}, 16, 32, {1, 1, 1}, 0, {0, 20, 0}, {3}},
    {"nwc_pad2", 3, {8, 9, 2}, {-2}, {-2}, 8, 24, {1, 1, 1}, 0, {0, -2, 0}, {4}},
    // NDHWC (rank 5).
    {"ndhwc", 5, {4, 5, 4, 3, 2}, {-1, 0, -1}, {-1, -1, 0}, 4, 64, {1, 1, 1, 1, 1}, 0, {0, -1, 0, -1, 0}, {1, 1, 1}},
    // The 128-byte swizzle: 32 f32 channels a pixel, one 128-byte row each.
    {"nhwc_swizzle128", 4, {32, 8, 4, 1}, {-1, -1}, {-1, -1}, 32, 24, {1, 1, 1, 1}, 3, {0, -1, -1, 0}, {1, 0}},
};

// Element index of (c, w, h, d, n) in a dense tensor, or -1 outside it.
long long elementAt(const Case& k, const long long* pos) {
  long long idx = 0, mul = 1;
  for (int d = 0; d < k.rank; ++d) {
    if (pos[d] < 0 || pos[d] >= (long long)k.dims[d]) return -1;
    idx += pos[d] * mul;
    mul *= (long long)k.dims[d];
  }
  return idx;
}

// The reference tile (f32 bit patterns, before the swizzle).
std::vector<unsigned> reference(const Case& k) {
  const int spatial = k.rank - 2;
  std::vector<unsigned> t(std::size_t(k.cpp) * k.ppc);
  long long base[3] = {};
  for (int s = 0; s < spatial; ++s) base[s] = k.coord[1 + s];
  long long n = k.coord[k.rank - 1];
  for (unsigned p = 0; p < k.ppc; ++p) {
    for (unsigned ch = 0; ch < k.cpp; ++ch) {
      long long pos[5];
      pos[0] = k.coord[0] + ch;
      for (int s = 0; s < spatial; ++s) pos[1 + s] = base[s] + k.off[s];
      pos[k.rank - 1] = n;
      const long long e = elementAt(k, pos);
      const float v = e < 0 ? 0.0f : float(e);
      std::memcpy(&t[std::size_t(p) * k.cpp + ch], &v, 4);
    }
    // The next base position: W first, wrapping within the bounding box.
    int s = 0;
    for (; s < spatial; ++s) {
      base[s] += k.estride[1 + s];
      if (base[s] <= (long long)k.dims[1 + s] - 1 + k.upper[s]) break;
      base[s] = k.lower[s];
    }
    if (s == spatial) n += k.estride[k.rank - 1];
  }
  return t;
}

// Where byte `off` of the tile (rows of cpp * 4 bytes) lies in shared memory under the swizzle.
std::size_t placed(const Case& k, std::size_t off) {
  if (k.swizzle == 0) return off;
  const std::size_t row = k.cpp * 4, span = k.swizzle == 1 ? 32 : k.swizzle == 2 ? 64 : 128;
  const std::size_t srow = (row + span - 1) / span * span;
  const std::size_t a = off / row * srow + off % row;
  const std::size_t bits = k.swizzle == 1 ? 1 : k.swizzle == 2 ? 3 : 7;
  return a ^ (((a >> 7) & bits) << 4);
}

}  // namespace

int main() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &fn, 12000, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || !fn) return failed("cudaGetDriverEntryPoint found no cuTensorMapEncodeIm2col");
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeIm2col_v12000>(fn);
  int bad = 0;
  for (const Case& k : kCases) {
    std::size_t count = 1;
    for (int d = 0; d < k.rank; ++d) count *= k.dims[d];
    std::vector<float> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = float(i);
    float* tensor = deviceAlloc<float>(count);
    CHECK(cudaMemcpy(tensor, host.data(), count * 4, cudaMemcpyHostToDevice));
    cuuint64_t dims[5], strides[4];
    cuuint32_t es[5];
    std::uint64_t stride = 4;
    for (int d = 0; d < k.rank; ++d) {
      dims[d] = k.dims[d];
      es[d] = k.estride[d];
      if (d) strides[d - 1] = stride;
      stride *= k.dims[d];
    }
    CUtensorMap map;
    const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, k.rank, tensor, dims, strides, k.lower, k.upper, k.cpp,
                              k.ppc, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CUtensorMapSwizzle(k.swizzle),
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      std::printf("%s: cuTensorMapEncodeIm2col failed (%d)\n", k.name, int(r));
      ++bad;
      continue;
    }
    const std::vector<unsigned> want = reference(k);
    const unsigned bytes = unsigned(want.size() * 4);
    unsigned* out = deviceAlloc<unsigned>(kMaxTileBytes / 4);
    const int4 lo = make_int4(k.coord[1], k.rank > 3 ? k.coord[2] : 0, k.rank > 4 ? k.coord[3] : 0, 0);
    const int4 lo5 = make_int4(k.coord[1], k.coord[2], k.coord[3], 0);
    const ushort4 off = make_ushort4(k.off[0], k.off[1], k.off[2], 0);
    if (k.rank == 3) im2colLoad<3><<<1, 128>>>(map, make_int4(k.coord[0], k.coord[1], 0, 0), k.coord[2], off, bytes, out);
    if (k.rank == 4) im2colLoad<4><<<1, 128>>>(map, make_int4(k.coord[0], lo.x, lo.y, 0), k.coord[3], off, bytes, out);
    if (k.rank == 5) im2colLoad<5><<<1, 128>>>(map, make_int4(k.coord[0], lo5.x, lo5.y, lo5.z), k.coord[4], off, bytes, out);
    CHECK_LAUNCH(k.name);
    std::vector<unsigned> got(bytes / 4);
    CHECK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    int shown = 0, wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const unsigned g = got[placed(k, i * 4) / 4];
      if (g == want[i]) continue;
      ++wrong;
      if (shown++ < 4) {
        float gf, wf;
        std::memcpy(&gf, &g, 4);
        std::memcpy(&wf, &want[i], 4);
        std::printf("%s: pixel %zu channel %zu: got %g (0x%08x), want %g\n", k.name, i / k.cpp, i % k.cpp, gf, g, wf);
      }
    }
    std::printf("%s: %s (%d of %zu elements differ)\n", k.name, wrong ? "MISMATCH" : "ok", wrong, want.size());
    bad += wrong != 0;
  }
  if (bad) return failed(std::to_string(bad) + " im2col case(s) differ from the reference");
  return passed(std::to_string(sizeof(kCases) / sizeof(kCases[0])) + " im2col loads (ranks 3-5, padding, strides, "
                "channel ranges, 128-byte swizzle) match the reference");
}
