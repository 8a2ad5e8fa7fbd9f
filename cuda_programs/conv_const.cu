// conv_const: 1D convolution of 16K floats with an 11-tap filter in __constant__ memory (written
// with cudaMemcpyToSymbol): conv1d_const (direct, grid-stride, 32 blocks) and conv1d_const_tiled
// (shared-memory tile with halo), blocks of 256.
// Plain CUDA runtime port of kernels/host/conv_const.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: conv_const [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/conv_const.cu"

#define CUDA_PROGRAM_NAME "conv_const"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 16384, radius = 5, taps = 2 * radius + 1;
  Rng rng(seedFrom(argc, argv));
  const std::vector<float> in = rng.floats(n, -1.0f, 1.0f);
  const std::vector<float> filter = rng.floats(taps, 0.0f, 1.0f);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    double sum = 0.0;
    for (int k = -radius; k <= radius; ++k)
      if (i + k >= 0 && i + k < n) sum += double(filter[k + radius]) * in[i + k];
    want[i] = float(sum);
  }

  CHECK(cudaMemcpyToSymbol(c_filter, filter.data(), filter.size() * sizeof(float)));
  const float* din = upload(in);
  float* dout = deviceAlloc<float>(n);
  const unsigned block = 256;  // conv1d_const_tiled needs blockDim.x <= TILE (256)
  struct Variant {
    const char* name;
    void (*kernel)(const float*, float*, int, int);
    unsigned grid;
  };
  const Variant variants[] = {{"conv1d_const", conv1d_const, blocksFor(n, block, 32)},
                              {"conv1d_const_tiled", conv1d_const_tiled, blocksFor(n, block)}};
  for (const Variant& v : variants) {
    CHECK(cudaMemset(dout, 0xff, n * sizeof(float)));  // NaNs: an output left unwritten is caught
    v.kernel<<<v.grid, block>>>(din, dout, n, radius);
    CHECK_LAUNCH(v.name);
    const std::vector<float> got = download(dout, n);
    // 11 float multiply-adds against a double reference: error <= 11 * eps * sum|w*x| <= 11 * 6e-8 * 11.
    const float rel = 1e-5f, abs = 1e-5f;
    if (long i = firstMismatch(got, want, rel, abs); i >= 0)
      return failed(mismatchMessage(std::string(v.name) + " out", i, got[i], want[i]));
  }
  return passed("2 kernels: " + std::to_string(n) + " outputs of an " + std::to_string(taps) +
                "-tap constant-memory filter match within 1e-05 rel + 1e-05 abs");
}
