// saxpy: y = a*x + y over 64K floats, one element per thread.
// Plain CUDA runtime port of kernels/host/saxpy.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: saxpy [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/saxpy.cu"

#define CUDA_PROGRAM_NAME "saxpy"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 65536;
  const float a = 2.5f;
  Rng rng(seedFrom(argc, argv));
  const std::vector<float> x = rng.floats(n, -1.0f, 1.0f);
  const std::vector<float> y = rng.floats(n, -1.0f, 1.0f);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a * x[i] + y[i];

  const float* dx = upload(x);
  float* dy = upload(y);
  const unsigned block = 256;
  saxpy<<<blocksFor(n, block), block>>>(n, a, dx, dy);
  CHECK_LAUNCH("saxpy");
  const std::vector<float> got = download(dy, n);
  // nvcc contracts a*x + y into one fma (one rounding), the reference may round the product first:
  // they differ by at most half an ulp of a*x (|a*x| <= 2.5), i.e. < 2e-7 absolute.
  const float rel = 1e-6f, abs = 1e-6f;
  if (long i = firstMismatch(got, want, rel, abs); i >= 0) return failed(mismatchMessage("y", i, got[i], want[i]));
  return passed(std::to_string(n) + " floats match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}
