// Helpers shared by the host programs in kernels/host/: deterministic inputs, device buffers
// that free themselves, module loading and result messages.
#pragma once

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/workload.h"

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

// Device allocations of one workload run, freed when it ends (also on an early return).
class DeviceArena {
 public:
  explicit DeviceArena(driver::Runtime& rt) : rt_(rt) {}
  ~DeviceArena() {
    for (driver::DevicePtr p : ptrs_) {
      try {
        rt_.free(p);
      } catch (...) {  // a runtime left in an error state must not turn a result into a crash
      }
    }
  }
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  driver::DevicePtr alloc(std::size_t bytes) {
    driver::DevicePtr p = rt_.malloc(bytes);
    ptrs_.push_back(p);
    return p;
  }
  template <typename T> driver::DevicePtr upload(const std::vector<T>& host) {
    driver::DevicePtr p = alloc(host.size() * sizeof(T));
    rt_.memcpyHtoD(p, host.data(), host.size() * sizeof(T));
    return p;
  }
  template <typename T> driver::DevicePtr zeros(std::size_t count) {
    driver::DevicePtr p = alloc(count * sizeof(T));
    rt_.memset(p, 0, count * sizeof(T));
    return p;
  }

 private:
  driver::Runtime& rt_;
  std::vector<driver::DevicePtr> ptrs_;
};

// Loads the workload's PTX for opt.arch; a clear error when the suite has none for that arch.
inline driver::Module& loadWorkloadModule(driver::Runtime& rt, const std::string& ptx_name,
                                          const WorkloadOptions& opt) {
  const std::string path = ptxPath(ptx_name, opt.arch);
  if (!std::ifstream(path).good()) {
    throw std::runtime_error("no PTX for workload '" + ptx_name + "' and arch " + opt.arch + ": " + path +
                             " is missing (scripts/gen_ptx.sh generates it)");
  }
  return rt.loadModuleFile(path);
}

// Blocks to cover n items with `block` threads each, at most max_blocks (0: no limit; the
// kernels with a cap use grid-stride loops).
inline std::uint32_t blocksFor(std::uint64_t n, std::uint32_t block, std::uint32_t max_blocks = 0) {
  std::uint64_t b = (n + block - 1) / block;
  if (b == 0) b = 1;
  if (max_blocks != 0 && b > max_blocks) b = max_blocks;
  return std::uint32_t(b);
}

inline int scaleOf(const WorkloadOptions& opt) { return opt.scale < 1 ? 1 : opt.scale; }

inline WorkloadResult passed(std::string message) {
  return {true, std::move(message), driver::Error::Success};
}
inline WorkloadResult failed(std::string message) {
  return {false, std::move(message), driver::Error::Success};
}
inline WorkloadResult launchFailed(const std::string& kernel, driver::Error e) {
  return {false, kernel + ": launch failed: " + driver::errorName(e), e};
}

template <typename T> std::string formatValue(T v) {
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>) {
    s << std::setprecision(std::is_same_v<T, float> ? 9 : 17) << v;
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) {
    s << int(v);
  } else {
    s << v;
  }
  return s.str();
}

// "what[index]: got G, want W".
template <typename T> std::string mismatchMessage(const std::string& what, long index, T got, T want) {
  return what + "[" + std::to_string(index) + "]: got " + formatValue(got) + ", want " + formatValue(want);
}

// Index of the first element that differs (bit-exact for integers), or -1; sizes must match.
template <typename T> long firstDifference(const std::vector<T>& got, const std::vector<T>& want) {
  static_assert(std::is_integral_v<T>, "use firstMismatch for floating point");
  const std::size_t n = got.size() < want.size() ? got.size() : want.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (got[i] != want[i]) return long(i);
  }
  return got.size() == want.size() ? -1 : long(n);
}

// Formats a tolerance as "1e-05" style for messages.
inline std::string tolText(double tol) {
  std::ostringstream s;
  s << tol;
  return s.str();
}

}  // namespace scgpu::kernels
