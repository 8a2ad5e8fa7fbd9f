// spmv_csr: y = A*x for a random 2048 x 2048 (x scale) CSR matrix with 0..24 entries per row,
// one thread per row (scalar) and one warp per row (vector, shuffle reduction).
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int rows = 2048 * scaleOf(opt);
  Rng rng(opt.seed);
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

  DeviceArena mem(rt);
  const driver::DevicePtr drp = mem.upload(row_ptr), dcols = mem.upload(cols), dvals = mem.upload(vals),
                          dx = mem.upload(x), dy = mem.alloc(rows * sizeof(float));
  driver::Module& mod = loadWorkloadModule(rt, "spmv_csr", opt);
  const std::uint32_t block = 128;
  struct Variant { const char* kernel; std::uint32_t grid; };
  const Variant variants[] = {{"spmv_csr_scalar", blocksFor(rows, block)},
                              {"spmv_csr_vector", blocksFor(std::uint64_t(rows) * 32, block, 256)}};
  // Up to 24 float products summed in another order than the double reference: error <=
  // 24 * 6e-8 * sum|a*x| <= 24 * 6e-8 * 24 = 3.5e-5 absolute.
  const float rel = 1e-5f, abs = 4e-5f;
  for (const Variant& v : variants) {
    rt.memset(dy, 0xff, rows * sizeof(float));
    if (auto e = rt.launch(rt.getFunction(mod, v.kernel), v.grid, block, 0,
                           driver::KernelArgs().add(rows).add(drp).add(dcols).add(dvals).add(dx).add(dy));
        e != driver::Error::Success)
      return launchFailed(v.kernel, e);
    const std::vector<float> got = rt.download<float>(dy, rows);
    if (long i = firstMismatch(got, want, rel, abs); i >= 0)
      return failed(mismatchMessage(std::string(v.kernel) + " y", i, got[i], want[i]));
  }
  return passed("2 kernels: " + std::to_string(rows) + " rows (" + std::to_string(vals.size()) +
                " nonzeros) match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}

const WorkloadRegistrar reg({"spmv_csr", "CSR sparse matrix-vector product, 2048 rows: scalar and warp-per-row",
                             "spmv_csr", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
