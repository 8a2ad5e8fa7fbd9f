// spmv_csr: y = A*x for a random 2048 x 2048 CSR matrix with 0..24 entries per row: spmv_csr_scalar
// (one thread per row) and spmv_csr_vector (one warp per row, __shfl_xor_sync reduction), blocks of 128.
// Plain CUDA runtime port of kernels/host/spmv_csr.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: spmv_csr [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/spmv_csr.cu"

#define CUDA_PROGRAM_NAME "spmv_csr"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int rows = 2048;
  Rng rng(seedFrom(argc, argv));
  std::vector<std::int32_t> row_ptr(rows + 1, 0), cols;
  std::vector<float> vals;
  for (int r = 0; r < rows; ++r) {
    const int len = int(rng.range(0, 24));
    for (int e = 0; e < len; ++e) {
      cols.push_back(std::int32_t(rng.range(0, rows - 1)));
      vals.push_back(rng.uniform(-1.0f, 1.0f));
    }
    row_ptr[r + 1] = std::int32_t(cols.size());
  }
  const std::vector<float> x = rng.floats(rows, -1.0f, 1.0f);
  std::vector<float> want(rows);
  for (int r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (int e = row_ptr[r]; e < row_ptr[r + 1]; ++e) sum += double(vals[e]) * x[cols[e]];
    want[r] = float(sum);
  }

  const int* drp = upload(row_ptr);
  const int* dcols = upload(cols);
  const float* dvals = upload(vals);
  const float* dx = upload(x);
  float* dy = deviceAlloc<float>(rows);
  const unsigned block = 128;
  struct Variant {
    const char* name;
    void (*kernel)(int, const int*, const int*, const float*, const float*, float*);
    unsigned grid;
  };
  const Variant variants[] = {{"spmv_csr_scalar", spmv_csr_scalar, blocksFor(rows, block)},
                              {"spmv_csr_vector", spmv_csr_vector, blocksFor(std::uint64_t(rows) * 32, block, 256)}};
  // Up to 24 float products summed in another order than the double reference: error <=
  // 24 * 6e-8 * sum|a*x| <= 24 * 6e-8 * 24 = 3.5e-5 absolute.
  const float rel = 1e-5f, abs = 4e-5f;
  for (const Variant& v : variants) {
    CHECK(cudaMemset(dy, 0xff, rows * sizeof(float)));  // NaNs: a row left unwritten is caught
    v.kernel<<<v.grid, block>>>(rows, drp, dcols, dvals, dx, dy);
    CHECK_LAUNCH(v.name);
    const std::vector<float> got = download(dy, rows);
    if (long i = firstMismatch(got, want, rel, abs); i >= 0)
      return failed(mismatchMessage(std::string(v.name) + " y", i, got[i], want[i]));
  }
  return passed("2 kernels: " + std::to_string(rows) + " rows (" + std::to_string(vals.size()) +
                " nonzeros) match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}
