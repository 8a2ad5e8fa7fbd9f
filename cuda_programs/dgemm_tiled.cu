// dgemm_tiled: C = alpha*A*B + beta*C in double precision, M x N x K = 64 x 72 x 40 (N and K not
// multiples of the 16x16 shared-memory tile, so the edge guards run); block (16, 16).
// Plain CUDA runtime port of kernels/host/dgemm_tiled.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: dgemm_tiled [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/dgemm_tiled.cu"

#define CUDA_PROGRAM_NAME "dgemm_tiled"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int M = 64, N = 72, K = 40;
  const double alpha = 1.5, beta = -0.5;
  Rng rng(seedFrom(argc, argv));
  const std::vector<double> A = rng.doubles(std::size_t(M) * K, -1.0, 1.0);
  const std::vector<double> B = rng.doubles(std::size_t(K) * N, -1.0, 1.0);
  const std::vector<double> C = rng.doubles(std::size_t(M) * N, -1.0, 1.0);
  std::vector<double> want(std::size_t(M) * N);
  for (int r = 0; r < M; ++r) {
    for (int c = 0; c < N; ++c) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += A[std::size_t(r) * K + k] * B[std::size_t(k) * N + c];
      want[std::size_t(r) * N + c] = alpha * acc + beta * C[std::size_t(r) * N + c];
    }
  }

  const double* dA = upload(A);
  const double* dB = upload(B);
  double* dC = upload(C);
  const dim3 block(TILE, TILE), grid(blocksFor(N, TILE), blocksFor(M, TILE));
  dgemm_tiled<<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
  CHECK_LAUNCH("dgemm_tiled");
  const std::vector<double> got = download(dC, want.size());
  // The kernel fuses multiply-adds, the reference need not: both round K times, error <=
  // K * 1.1e-16 * sum|a*b| with |a|,|b| <= 1.
  const double rel = 1e-12, abs = 1e-15 * K * K;
  if (long i = firstMismatch(got, want, rel, abs); i >= 0) return failed(mismatchMessage("C", i, got[i], want[i]));
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " dgemm: " +
                std::to_string(want.size()) + " doubles match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}
