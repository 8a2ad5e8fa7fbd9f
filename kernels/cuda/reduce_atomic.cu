#include <climits>

// Reductions through global atomics.
// reduce_atomic_int: each thread sums its grid-stride slice, then one atomicAdd per thread into
//   out[0]; out[1] and out[2] receive atomicMax / atomicMin of the values, and total64[0] the
//   64-bit sum through atomicAdd on unsigned long long.
// reduce_atomic_float: one float atomicAdd per element (order-dependent rounding).
extern "C" __global__ void reduce_atomic_int(const int* __restrict__ in, int* out,
                                             unsigned long long* total64, int n) {
  int sum = 0, mx = INT_MIN, mn = INT_MAX;
  unsigned long long sum64 = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int v = in[i];
    sum += v;
    mx = max(mx, v);
    mn = min(mn, v);
    sum64 += (unsigned long long)(unsigned)v;
  }
  atomicAdd(&out[0], sum);
  atomicMax(&out[1], mx);
  atomicMin(&out[2], mn);
  atomicAdd(total64, sum64);
}

extern "C" __global__ void reduce_atomic_float(const float* __restrict__ in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}
