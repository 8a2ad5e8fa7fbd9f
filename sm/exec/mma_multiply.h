// The matrix product of every mma-like instruction (sm/exec/tensor.cpp), shared by mma.sync,
// wmma.mma and wgmma.mma_async (sm/exec/wgmma.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/decoded.h"

namespace scgpu::sm {

// D = A x B + C on whole matrices of raw element bits, as the H100's tensor cores compute it
// (sm/exec/mma_arith.h): a is m x t.k (row-major), b is t.k x t.n (b[kk * n + j]), c and d are
// m x t.n; element types, .satfinite and .b1's operation from t.
void mmaMultiply(const ptx::TensorOp& t, int m, const std::vector<std::uint64_t>& a,
                 const std::vector<std::uint64_t>& b, const std::vector<std::uint64_t>& c,
                 std::vector<std::uint64_t>& d);

}  // namespace scgpu::sm
