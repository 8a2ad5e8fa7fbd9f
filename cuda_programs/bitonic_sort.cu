// bitonic_sort: sorts 2048 unsigned keys twice: with one global bitonic_step launch per step (66
// launches), and with bitonic_sort_shared over 256-key chunks, then per stage bitonic_step for the
// steps that cross chunks and bitonic_merge_shared for the rest. 8 blocks of 256.
// Plain CUDA runtime port of kernels/host/bitonic_sort.cpp (the suite at scale 1); the kernels are
// the suite's own. Usage: bitonic_sort [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/bitonic_sort.cu"

#include <algorithm>

#define CUDA_PROGRAM_NAME "bitonic_sort"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const unsigned n = 2048;
  const unsigned block = 256, blocks = n / block;
  Rng rng(seedFrom(argc, argv));
  std::vector<unsigned> keys(n);
  for (auto& k : keys) k = unsigned(rng.range(0, 4999)) * 859'433u;  // duplicates, spread bits
  std::vector<unsigned> want = keys;
  std::sort(want.begin(), want.end());

  // 1. Global steps only.
  unsigned* a = upload(keys);
  int launches_global = 0;
  for (unsigned k = 2; k <= n; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      ++launches_global;
      bitonic_step<<<blocks, block>>>(a, j, k);
      CHECK_LAUNCH("bitonic_step");
    }
  }
  std::vector<unsigned> got = download(a, n);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("global sort", i, got[i], want[i]));

  // 2. Shared-memory sort of chunks, then per stage k: global steps for j >= block, shared merge.
  unsigned* b = upload(keys);
  int launches_shared = 1;
  bitonic_sort_shared<<<blocks, block>>>(b);
  CHECK_LAUNCH("bitonic_sort_shared");
  for (unsigned k = block << 1; k <= n; k <<= 1) {
    for (unsigned j = k >> 1; j >= block; j >>= 1) {
      ++launches_shared;
      bitonic_step<<<blocks, block>>>(b, j, k);
      CHECK_LAUNCH("bitonic_step");
    }
    ++launches_shared;
    bitonic_merge_shared<<<blocks, block>>>(b, k);
    CHECK_LAUNCH("bitonic_merge_shared");
  }
  got = download(b, n);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("shared sort", i, got[i], want[i]));
  return passed(std::to_string(n) + " keys sorted exactly twice: " + std::to_string(launches_global) +
                " global-step launches, and " + std::to_string(launches_shared) + " shared/global launches");
}
