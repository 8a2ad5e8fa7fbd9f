// reduce_atomic: reductions through global atomics over 64K values: reduce_atomic_int (int
// atomicAdd/atomicMax/atomicMin and a 64-bit atomicAdd, one of each per thread, 32 blocks of 256)
// and reduce_atomic_float (one float atomicAdd per element).
// Plain CUDA runtime port of kernels/host/reduce_atomic.cpp (the suite at scale 1); the kernels are
// the suite's own. Usage: reduce_atomic [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/reduce_atomic.cu"

#include <algorithm>

#define CUDA_PROGRAM_NAME "reduce_atomic"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 65536;
  Rng rng(seedFrom(argc, argv));
  const std::vector<std::int32_t> ints = rng.ints(n, -1000, 1000);
  std::vector<float> floats(n);
  for (float& f : floats) f = float(rng.range(0, 255)) / 256.0f;  // k/256: exact partial sums

  std::int64_t sum = 0;
  std::int32_t mx = INT_MIN, mn = INT_MAX;
  unsigned long long sum64 = 0;
  double fsum = 0.0;
  for (int i = 0; i < n; ++i) {
    sum += ints[i];
    mx = std::max(mx, ints[i]);
    mn = std::min(mn, ints[i]);
    sum64 += (unsigned long long)std::uint32_t(ints[i]);
    fsum += floats[i];
  }

  const int* din = upload(ints);
  const float* dfin = upload(floats);
  int* dout = upload(std::vector<int>{0, INT_MIN, INT_MAX});
  unsigned long long* d64 = deviceZeros<unsigned long long>(1);
  float* dfsum = deviceZeros<float>(1);
  reduce_atomic_int<<<32, 256>>>(din, dout, d64, n);
  CHECK_LAUNCH("reduce_atomic_int");
  reduce_atomic_float<<<blocksFor(n, 256), 256>>>(dfin, dfsum, n);
  CHECK_LAUNCH("reduce_atomic_float");

  const std::vector<int> out = download(dout, 3);
  if (out[0] != std::int32_t(sum)) return failed(mismatchMessage("sum", 0, out[0], std::int32_t(sum)));
  if (out[1] != mx) return failed(mismatchMessage("max", 0, out[1], mx));
  if (out[2] != mn) return failed(mismatchMessage("min", 0, out[2], mn));
  const unsigned long long got64 = download(d64, 1)[0];
  if (got64 != sum64) return failed(mismatchMessage("sum64", 0, got64, sum64));
  // The float atomics add in any order. Inputs are multiples of 1/256 and n * 255/256 < 2^16, so
  // every partial sum is exact in 24 bits: the sum must be exact in any order.
  const double rel = n <= 65536 ? 0.0 : double(n) * 0x1p-24;
  const float gotf = download(dfsum, 1)[0];
  if (std::fabs(gotf - fsum) > rel * fsum) return failed(mismatchMessage("float sum", 0, double(gotf), fsum));
  return passed("int sum/max/min and u64 sum of " + std::to_string(n) + " ints exact; float atomic sum " +
                (rel == 0.0 ? std::string("exact") : "within " + tolText(rel) + " rel"));
}
