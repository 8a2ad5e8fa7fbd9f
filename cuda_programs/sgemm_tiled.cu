// sgemm_tiled: C = alpha*A*B + beta*C in single precision, M x N x K = 64 x 72 x 40 (N and K not
// multiples of the 16x16 shared-memory tile, so the edge guards run); block (16, 16).
// Plain CUDA runtime port of kernels/host/sgemm_tiled.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: sgemm_tiled [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/sgemm_tiled.cu"

#define CUDA_PROGRAM_NAME "sgemm_tiled"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int M = 64, N = 72, K = 40;
  const float alpha = 1.5f, beta = -0.5f;
  Rng rng(seedFrom(argc, argv));
  const std::vector<float> A = rng.floats(std::size_t(M) * K, -1.0f, 1.0f);
  const std::vector<float> B = rng.floats(std::size_t(K) * N, -1.0f, 1.0f);
  const std::vector<float> C = rng.floats(std::size_t(M) * N, -1.0f, 1.0f);
  std::vector<float> want(std::size_t(M) * N);
  for (int r = 0; r < M; ++r) {
    for (int c = 0; c < N; ++c) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += double(A[std::size_t(r) * K + k]) * B[std::size_t(k) * N + c];
      want[std::size_t(r) * N + c] = float(alpha * acc + beta * double(C[std::size_t(r) * N + c]));
    }
  }

  const float* dA = upload(A);
  const float* dB = upload(B);
  float* dC = upload(C);
  const dim3 block(TILE, TILE), grid(blocksFor(N, TILE), blocksFor(M, TILE));
  sgemm_tiled<<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
  CHECK_LAUNCH("sgemm_tiled");
  const std::vector<float> got = download(dC, want.size());
  // K float FMAs against a double reference: error <= K * eps * sum|a*b|, ~sqrt(K) * eps
  // typically; with |a|,|b| <= 1: 1e-5 rel + 2e-6 * K abs.
  const float rel = 1e-5f, abs = 2e-6f * float(K);
  if (long i = firstMismatch(got, want, rel, abs); i >= 0) return failed(mismatchMessage("C", i, got[i], want[i]));
  return passed(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " sgemm: " +
                std::to_string(want.size()) + " floats match within " + tolText(rel) + " rel + " + tolText(abs) + " abs");
}
