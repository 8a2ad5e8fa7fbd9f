// The suite's deterministic input generator, on its own so that the plain CUDA programs of
// cuda_programs/ (built by nvcc, no project library) generate exactly the suite's inputs.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace scgpu::kernels {

// Deterministic random inputs. std::mt19937_64's output sequence is fixed by the C++ standard,
// but the standard distributions are not (libstdc++ and libc++ differ), so every conversion from
// raw bits to a value is spelled out here: the same seed gives the same inputs everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0)
      : gen_(seed * 0x9e3779b97f4a7c15ull + stream * 0xd1b54a32d192ed03ull + 1) {}

  std::uint64_t u64() { return gen_(); }
  std::uint32_t u32() { return std::uint32_t(gen_() >> 32); }
  // Integer in [lo, hi]. Modulo reduction: its bias (range / 2^64) does not matter for test data.
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = std::uint64_t(hi - lo) + 1;
    return lo + std::int64_t(span == 0 ? gen_() : gen_() % span);
  }
  // Float in [0, 1): 24 random bits scaled exactly by 2^-24.
  float unitFloat() { return std::ldexp(float(gen_() >> 40), -24); }
  // Float in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * unitFloat(); }
  // Double in [0, 1): 53 random bits scaled exactly by 2^-53.
  double unitDouble() { return std::ldexp(double(gen_() >> 11), -53); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unitDouble(); }

  std::vector<float> floats(std::size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (float& x : v) x = uniform(lo, hi);
    return v;
  }
  std::vector<double> doubles(std::size_t n, double lo, double hi) {
    std::vector<double> v(n);
    for (double& x : v) x = uniform(lo, hi);
    return v;
  }
  std::vector<std::int32_t> ints(std::size_t n, std::int32_t lo, std::int32_t hi) {
    std::vector<std::int32_t> v(n);
    for (auto& x : v) x = std::int32_t(range(lo, hi));
    return v;
  }
  std::vector<std::uint32_t> words(std::size_t n) {
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = u32();
    return v;
  }

 private:
  std::mt19937_64 gen_;
};

}  // namespace scgpu::kernels
