// vote_match: __ballot_sync, __any_sync, __all_sync, __match_any_sync, __match_all_sync,
// __reduce_add_sync (a shuffle sum before sm_80) and a ballot under divergence, over 4096 threads
// (x scale). Bit-exact.
#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 4096 * scaleOf(opt);  // whole warps
  Rng rng(opt.seed);
  std::vector<std::int32_t> in(n);
  for (int i = 0; i < n; ++i) {
    const int warp = i / 32;
    // Every 4th warp (odd index 3, 7, ...) holds even positive values only: ballots of all ones,
    // __all_sync true, and __match_all_sync on v & 1 matching.
    in[i] = (warp % 4 == 3) ? std::int32_t(2 * rng.range(1, 400)) : std::int32_t(rng.range(-1000, 1000));
  }
  constexpr int K = 8;
  std::vector<std::uint32_t> want(std::size_t(K) * n);
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

  DeviceArena mem(rt);
  const driver::DevicePtr din = mem.upload(in), dout = mem.zeros<std::uint32_t>(want.size());
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "vote_match", opt), "vote_match");
  if (auto e = rt.launch(fn, blocksFor(n, 128), 128, 0, driver::KernelArgs().add(din).add(dout).add(n));
      e != driver::Error::Success)
    return launchFailed("vote_match", e);
  static const char* const names[K] = {"ballot", "any", "all", "match_any", "match_all", "reduce_add",
                                       "divergent ballot", "match_all pred"};
  const std::vector<std::uint32_t> got = rt.download<std::uint32_t>(dout, want.size());
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage(names[i / n], i % n, got[i], want[i]));
  return passed(std::to_string(n) + " threads x " + std::to_string(K) + " vote/match results match exactly");
}

const WorkloadRegistrar reg({"vote_match", "warp vote, match and reduce intrinsics, with a divergent ballot",
                             "vote_match", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
