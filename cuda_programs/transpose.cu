// transpose: out = in^T for a 232 x 136 float matrix (not a multiple of the 32x32 tile) with
// transpose_naive, transpose_shared and transpose_shared_padded; block (32, 8).
// Plain CUDA runtime port of kernels/host/transpose.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: transpose [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/transpose.cu"

#define CUDA_PROGRAM_NAME "transpose"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int width = 232, height = 136;
  const std::size_t count = std::size_t(width) * height;
  Rng rng(seedFrom(argc, argv));
  const std::vector<float> in = rng.floats(count, -100.0f, 100.0f);
  std::vector<float> want(count);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) want[std::size_t(x) * height + y] = in[std::size_t(y) * width + x];

  const float* din = upload(in);
  float* dout = deviceAlloc<float>(count);
  const dim3 block(TILE_DIM, BLOCK_ROWS), grid(blocksFor(width, TILE_DIM), blocksFor(height, TILE_DIM));
  struct Variant {
    const char* name;
    void (*kernel)(float*, const float*, int, int);
  };
  const Variant variants[] = {{"transpose_naive", transpose_naive},
                              {"transpose_shared", transpose_shared},
                              {"transpose_shared_padded", transpose_shared_padded}};
  for (const Variant& v : variants) {
    CHECK(cudaMemset(dout, 0xff, count * sizeof(float)));  // NaNs: an element left unwritten is caught
    v.kernel<<<grid, block>>>(dout, din, width, height);
    CHECK_LAUNCH(v.name);
    const std::vector<float> got = download(dout, count);
    // Data movement only: bit-exact.
    if (long i = firstMismatch(got, want, 0.0f, 0.0f); i >= 0)
      return failed(mismatchMessage(std::string(v.name) + " out", i, got[i], want[i]));
  }
  return passed("3 kernels: " + std::to_string(width) + "x" + std::to_string(height) + " transposes match exactly");
}
