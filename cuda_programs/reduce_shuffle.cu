// reduce_shuffle: sum of 64K floats, warp shuffles (__shfl_down_sync) per block (64 blocks of
// 256), then a second launch of the same kernel with one block of 64 threads over the partial sums.
// Plain CUDA runtime port of kernels/host/reduce_shuffle.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: reduce_shuffle [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/reduce_shuffle.cu"

#define CUDA_PROGRAM_NAME "reduce_shuffle"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 65536;
  const unsigned block = 256, blocks = 64;
  Rng rng(seedFrom(argc, argv));
  const std::vector<float> in = rng.floats(n, 0.0f, 1.0f);
  // Reference in double: partial b sums the grid-stride slice of block b.
  std::vector<double> want_partial(blocks, 0.0);
  double want_total = 0.0;
  for (int i = 0; i < n; ++i) {
    want_partial[(i / block) % blocks] += in[i];
    want_total += in[i];
  }

  const float* din = upload(in);
  float* dpart = deviceZeros<float>(blocks);
  float* dtotal = deviceZeros<float>(1);
  reduce_shuffle<<<blocks, block>>>(din, dpart, n);
  CHECK_LAUNCH("reduce_shuffle");
  reduce_shuffle<<<1, blocks>>>(dpart, dtotal, int(blocks));
  CHECK_LAUNCH("reduce_shuffle (partials)");

  // Float sums in a different order than the reference: the error grows like log2(n) * eps *
  // sum|x|; all inputs are positive, so 1e-5 relative is a comfortable bound.
  const double rel = 1e-5;
  const std::vector<float> part = download(dpart, blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    if (std::fabs(part[b] - want_partial[b]) > rel * want_partial[b])
      return failed(mismatchMessage("partial", long(b), double(part[b]), want_partial[b]));
  }
  const float total = download(dtotal, 1)[0];
  if (std::fabs(total - want_total) > rel * want_total)
    return failed(mismatchMessage("total", 0, double(total), want_total));
  return passed(std::to_string(blocks) + " block partials and the total of " + std::to_string(n) +
                " floats match within " + tolText(rel) + " rel");
}
