// vote_match: __ballot_sync, __any_sync, __all_sync, __match_any_sync, __match_all_sync,
// __reduce_add_sync (sm_80+; a shuffle sum when compiled for older archs) and a ballot under
// divergence, over 4096 threads in blocks of 128. Bit-exact. Built with -arch=sm_90, like the
// suite's PTX, so that the __reduce_add_sync path is the one that runs.
// Plain CUDA runtime port of kernels/host/vote_match.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: vote_match [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/vote_match.cu"

#define CUDA_PROGRAM_NAME "vote_match"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 4096;  // whole warps
  Rng rng(seedFrom(argc, argv));
  std::vector<std::int32_t> in(n);
  for (int i = 0; i < n; ++i) {
    const int warp = i / 32;
    // Every 4th warp (odd index 3, 7, ...) holds even positive values only: ballots of all ones,
    // __all_sync true, and __match_all_sync on v & 1 matching.
    in[i] = (warp % 4 == 3) ? std::int32_t(2 * rng.range(1, 400)) : std::int32_t(rng.range(-1000, 1000));
  }
  constexpr int K = 8;
  std::vector<unsigned> want(std::size_t(K) * n);
  for (int w = 0; w < n / 32; ++w) {
    const std::int32_t* v = &in[std::size_t(w) * 32];
    std::uint32_t ballot = 0, any = 0, all = 1, odd = 0, even = 0, sum = 0;
    bool keys_equal = true;
    auto key = [&](int lane) { return (w & 1) == 0 ? 7 : (v[lane] & 1); };
    for (int l = 0; l < 32; ++l) {
      if (v[l] > 0) ballot |= 1u << l;
      if (v[l] > 900) any = 1;
      if (!(v[l] > -900)) all = 0;
      sum += std::uint32_t(v[l]) & 0xffu;
      if ((l & 1) && v[l] > 0) odd |= 1u << l;
      if (!(l & 1) && v[l] < 0) even |= 1u << l;
      if (key(l) != key(0)) keys_equal = false;
    }
    for (int l = 0; l < 32; ++l) {
      const std::size_t i = std::size_t(w) * 32 + l;
      std::uint32_t match = 0;
      for (int m = 0; m < 32; ++m)
        if ((v[m] & 3) == (v[l] & 3)) match |= 1u << m;
      want[0 * std::size_t(n) + i] = ballot;
      want[1 * std::size_t(n) + i] = any;
      want[2 * std::size_t(n) + i] = all;
      want[3 * std::size_t(n) + i] = match;
      want[4 * std::size_t(n) + i] = keys_equal ? 0xffffffffu : 0u;
      want[5 * std::size_t(n) + i] = sum;
      want[6 * std::size_t(n) + i] = (l & 1) ? odd : even;
      want[7 * std::size_t(n) + i] = keys_equal ? 1u : 0u;
    }
  }

  const int* din = upload(in);
  unsigned* dout = deviceZeros<unsigned>(want.size());
  vote_match<<<blocksFor(n, 128), 128>>>(din, dout, n);
  CHECK_LAUNCH("vote_match");
  static const char* const names[K] = {"ballot", "any", "all", "match_any", "match_all", "reduce_add",
                                       "divergent ballot", "match_all pred"};
  const std::vector<unsigned> got = download(dout, want.size());
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage(names[i / n], i % n, got[i], want[i]));
  return passed(std::to_string(n) + " threads x " + std::to_string(K) + " vote/match results match exactly");
}
