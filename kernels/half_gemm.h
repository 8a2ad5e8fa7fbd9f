// Inputs and reference of the suite's f16 GEMMs (hgemm_tensor, hgemm_wgmma, hgemm_tma_wgmma): A
// (M x K) and B (K x N), row-major binary16, each element k / 1024 for a random k in [-1024, 1024]
// (exact in binary16 and in double); the reference is the exact sum of products in double,
// rounded to float. Beside rng.h and, like it, free of project libraries: the plain CUDA programs
// of cuda_programs/ (built by nvcc) include it too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "rng.h"

namespace scgpu::kernels {

// k / 1024 for |k| <= 1024 in binary16 (exact: at most 11 significant bits).
inline std::uint16_t halfOf(int k) {
  if (k == 0) return 0;
  const std::uint16_t sign = k < 0 ? 0x8000 : 0;
  const unsigned m = unsigned(std::abs(k));
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;  // 2^e <= m < 2^(e+1)
  const unsigned frac = (m << (10 - e)) & 0x3FF;
  return std::uint16_t(sign | unsigned(e - 10 + 15) << 10 | frac);
}

struct HalfGemm {
  std::vector<std::uint16_t> A, B;  // M x K and K x N
  std::vector<float> want;          // M x N
};

// A first, then B, from `rng`.
inline HalfGemm makeHalfGemm(Rng& rng, int M, int N, int K) {
  HalfGemm g;
  g.A.resize(std::size_t(M) * K);
  g.B.resize(std::size_t(K) * N);
  std::vector<double> a(g.A.size()), b(g.B.size());
  for (std::size_t i = 0; i < g.A.size(); ++i) {
    const int k = int(rng.range(-1024, 1024));
    g.A[i] = halfOf(k);
    a[i] = k / 1024.0;
  }
  for (std::size_t i = 0; i < g.B.size(); ++i) {
    const int k = int(rng.range(-1024, 1024));
    g.B[i] = halfOf(k);
    b[i] = k / 1024.0;
  }
  g.want.resize(std::size_t(M) * N);
  std::vector<double> row(N);
  for (int r = 0; r < M; ++r) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int k = 0; k < K; ++k) {
      const double x = a[std::size_t(r) * K + k];
      for (int c = 0; c < N; ++c) row[c] += x * b[std::size_t(k) * N + c];
    }
    for (int c = 0; c < N; ++c) g.want[std::size_t(r) * N + c] = float(row[c]);
  }
  return g;
}

}  // namespace scgpu::kernels
