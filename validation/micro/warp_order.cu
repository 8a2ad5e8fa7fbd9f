// The order in which the warps of a block finish when they compete for one resource: which warp a
// sub-core's scheduler picks when several are ready decides it. A policy that favours the oldest
// warp (GTO) finishes warp 0 first and leaves the youngest to run alone at the end, with the
// resource half idle; a round-robin policy finishes them together. Each warp writes the clock64
// values at which it started its loop (after the block's __syncthreads) and ended it, so the
// spread of the ends, from the block's first start, shows the policy (scripts/h100/warp_order.cu on the H100, the launch
// files validation/micro/warp_order/*.yaml on the model, compared by scripts/warp_order_vs_h100.py).
//
// Built into validation/micro/warp_order.ptx by scripts/gen_micro_ptx.sh.

#define WO_SMEM_INT4 2304  // 36 KiB: lane + 7 * 32 + 7 * 256 int4s

// mode 0: 128-bit shared loads without conflict (the shared-memory pipe is the bottleneck);
// mode 1: four independent FFMA chains per thread (the FP32 pipes);
// mode 2: 16-byte global loads, each warp its own contiguous slice of `buf` (DRAM bandwidth);
// mode 3: 32-bit volatile shared loads without conflict (the LSU's issue rate).
extern "C" __global__ void warp_finish(int mode, int iters, const int4* buf, long long* clocks, int* sink) {
  __shared__ int4 s[WO_SMEM_INT4];
  for (int i = threadIdx.x; i < WO_SMEM_INT4; i += blockDim.x) s[i] = make_int4(i, i + 1, i + 2, i + 3);
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int acc = 0;
  float f0 = lane, f1 = lane + 1.f, f2 = lane + 2.f, f3 = lane + 3.f;
  __syncthreads();
  const long long t0 = clock64();
  if (mode == 0) {
    volatile int4* vs = s;
    for (int i = 0; i < iters; ++i) {
      const unsigned off = lane + ((i & 7) << 5);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int4 v = const_cast<const int4&>(vs[off + k * 256]);
        acc += (v.x ^ v.y) + (v.z ^ v.w);
      }
    }
  } else if (mode == 1) {
    const float b = 1.0001f, c = 0.5f;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        f0 = f0 * b + c;
        f1 = f1 * b + c;
        f2 = f2 * b + c;
        f3 = f3 * b + c;
      }
    }
  } else if (mode == 2) {
    const int4* p = buf + (size_t(blockIdx.x) * (blockDim.x >> 5) + warp) * size_t(iters) * 32 + lane;
    for (int i = 0; i < iters; ++i) {
      const int4 v = p[size_t(i) * 32];
      acc += (v.x ^ v.y) + (v.z ^ v.w);
    }
  } else {
    volatile int* vs = reinterpret_cast<int*>(s);
    for (int i = 0; i < iters; ++i) {
      const unsigned off = lane + ((i & 7) << 5);
#pragma unroll
      for (int k = 0; k < 8; ++k) acc += vs[off + k * 1024];
    }
  }
  const long long t1 = clock64();
  if (lane == 0) {
    const unsigned slot = blockIdx.x * (blockDim.x >> 5) + warp;
    clocks[2 * slot] = t0;
    clocks[2 * slot + 1] = t1;
  }
  if (acc == 0x7fffffff || f0 + f1 + f2 + f3 == 0.f) sink[0] = acc;
}
