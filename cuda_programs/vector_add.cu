// vector_add: c = a + b over 64K floats, grid-stride loop with a capped grid (64 blocks of 256).
// Plain CUDA runtime port of kernels/host/vector_add.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: vector_add [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/vector_add.cu"

#define CUDA_PROGRAM_NAME "vector_add"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 65536;
  Rng rng(seedFrom(argc, argv));
  const std::vector<float> a = rng.floats(n, -1.0f, 1.0f);
  const std::vector<float> b = rng.floats(n, -1.0f, 1.0f);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];

  const float* da = upload(a);
  const float* db = upload(b);
  float* dc = deviceZeros<float>(n);
  const unsigned block = 256;
  vector_add<<<blocksFor(n, block, 64), block>>>(da, db, dc, n);
  CHECK_LAUNCH("vector_add");
  const std::vector<float> got = download(dc, n);
  // One IEEE addition per element, correctly rounded on both sides: bit-exact.
  if (long i = firstMismatch(got, want, 0.0f, 0.0f); i >= 0) return failed(mismatchMessage("c", i, got[i], want[i]));
  return passed(std::to_string(n) + " floats match exactly");
}
