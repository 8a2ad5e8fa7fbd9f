// recursion: per thread, fib(i % 13) through a doubly recursive __noinline__ device function and
// factorial(i % 21) in 64 bits (real calls with a stack in local memory); 1024 threads, blocks of 128.
// Plain CUDA runtime port of kernels/host/recursion.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: recursion (no seed: the inputs are the thread indices). Prints PASSED/FAILED;
// exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/recursion.cu"

#define CUDA_PROGRAM_NAME "recursion"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main() {
  const int n = 1024;
  std::vector<unsigned> fibs(13);
  fibs[0] = 0;
  fibs[1] = 1;
  for (int k = 2; k < 13; ++k) fibs[k] = fibs[k - 1] + fibs[k - 2];
  std::vector<unsigned long long> facts(21);
  facts[0] = 1;
  for (int k = 1; k < 21; ++k) facts[k] = facts[k - 1] * (unsigned long long)k;
  std::vector<unsigned> want_fib(n);
  std::vector<unsigned long long> want_fact(n);
  for (int i = 0; i < n; ++i) {
    want_fib[i] = fibs[i % 13];
    want_fact[i] = facts[i % 21];
  }

  unsigned* dfib = deviceZeros<unsigned>(n);
  unsigned long long* dfact = deviceZeros<unsigned long long>(n);
  recursion<<<blocksFor(n, 128), 128>>>(dfib, dfact, n);
  CHECK_LAUNCH("recursion");
  const std::vector<unsigned> got_fib = download(dfib, n);
  if (long i = firstDifference(got_fib, want_fib); i >= 0)
    return failed(mismatchMessage("fib", i, got_fib[i], want_fib[i]));
  const std::vector<unsigned long long> got_fact = download(dfact, n);
  if (long i = firstDifference(got_fact, want_fact); i >= 0)
    return failed(mismatchMessage("factorial", i, got_fact[i], want_fact[i]));
  return passed(std::to_string(n) + " recursive fib and factorial results match exactly");
}
