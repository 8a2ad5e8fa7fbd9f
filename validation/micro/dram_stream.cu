// DRAM and L2 streaming microbenchmarks: read, write and copy of a buffer with 16-byte accesses,
// grid-stride, every SM full. The same kernels run on the H100 (scripts/h100/micro_stream.cu
// times them with CUDA events) and on the model (the launch files beside this file), so that the
// model's bandwidth can be pinned to silicon mechanism by mechanism (issue 9).
// Build the PTX: scripts/gen_micro_ptx.sh.

// Reads every element; the sum keeps the loads, and the store never happens for real data.
extern "C" __global__ void read_stream(const float4* __restrict__ in, float* __restrict__ out,
                                       unsigned long long n4) {
  float acc = 0.f;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5f) out[0] = acc;
}

// Writes every element once.
extern "C" __global__ void write_stream(float4* __restrict__ out, unsigned long long n4, float value) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
    out[i] = make_float4(value, value, value, value);
}

// Copies every element: as many bytes read as written.
extern "C" __global__ void copy_stream(const float4* __restrict__ in, float4* __restrict__ out,
                                       unsigned long long n4) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
    out[i] = in[i];
}

// L2 read bandwidth: `passes` grid-stride passes over a buffer that fits the L2, loads that skip
// the L1 (ld.global.cg), so every pass after the first reads the L2.
extern "C" __global__ void l2_read_passes(const float4* __restrict__ in, float* __restrict__ out,
                                          unsigned long long n4, int passes) {
  float acc = 0.f;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (int p = 0; p < passes; ++p)
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
      const float4 v = __ldcg(&in[i]);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 1234.5f) out[0] = acc;
}

// Concurrent misses to the same L2 lines: block b reads chunk b / k of the buffer (all of it, its
// threads striding by the block), so k blocks, which the dispatcher puts on k different SMs, ask
// the L2 for each line at about the same time. With the L2 empty (the cold condition) every line
// comes from DRAM once and k - 1 of its requests wait for that fill: how many can wait on one
// line, and whether a line with waiters holds up the slice's other requests, shows as time per k.
extern "C" __global__ void read_shared_k(const float4* __restrict__ in, float* __restrict__ out,
                                         unsigned long long n4_per_chunk, int k) {
  const float4* chunk = in + (unsigned long long)(blockIdx.x / k) * n4_per_chunk;
  float acc = 0.f;
  for (unsigned long long i = threadIdx.x; i < n4_per_chunk; i += blockDim.x) {
    const float4 v = chunk[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5f) out[0] = acc;
}
