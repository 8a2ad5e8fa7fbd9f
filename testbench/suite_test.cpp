// Every workload of the kernel suite, on every arch it has PTX for, must match its CPU reference
// (the reference is computed by the workload's host program, independently of the model).
#include <gtest/gtest.h>

#include "kernels/workload.h"
#include "tlm/gpu_config.h"

namespace scgpu {
namespace {

struct Case {
  std::string workload, arch;
};
// Names the case in gtest's messages instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.workload << " on " << c.arch; }

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& w : kernels::allWorkloads())
    for (const auto& a : w.archs) out.push_back({w.name, a});
  return out;
}

class SuiteTest : public ::testing::TestWithParam<Case> {};

TEST_P(SuiteTest, MatchesCpuReference) {
  const Case& c = GetParam();
  const kernels::Workload* w = kernels::findWorkload(c.workload);
  ASSERT_NE(w, nullptr);
  driver::Runtime rt(GpuConfig::loadDefault());
  kernels::WorkloadOptions opt;
  opt.arch = c.arch;
  kernels::WorkloadResult r = w->run(rt, opt);
  if (rt.lastFault()) ADD_FAILURE() << rt.lastFault()->toString();
  EXPECT_EQ(r.error, driver::Error::Success) << driver::errorName(r.error);
  EXPECT_TRUE(r.passed) << r.message;
  // Every workload launches at least one kernel and executes instructions.
  ASSERT_FALSE(rt.launches().empty());
  EXPECT_GT(rt.launches().front().thread_instructions, 0u);
}

TEST(Suite, HasTheRequiredWorkloads) {
  for (const char* name : {"vector_add", "saxpy", "reduce_tree", "reduce_shuffle", "reduce_atomic", "sgemm_tiled",
                           "dgemm_tiled", "transpose", "histogram", "scan_block", "bitonic_sort", "stencil2d",
                           "conv_const", "nbody", "mandelbrot", "recursion", "printf", "spmv_csr", "bfs", "f16_math",
                           "int_hash"})
    EXPECT_NE(kernels::findWorkload(name), nullptr) << name;
  EXPECT_GE(kernels::allWorkloads().size(), 20u);
}

INSTANTIATE_TEST_SUITE_P(AllWorkloads, SuiteTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.workload + "_" + i.param.arch; });

}  // namespace
}  // namespace scgpu
