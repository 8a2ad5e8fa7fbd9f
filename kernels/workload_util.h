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

#include "kernels/rng.h"
#include "kernels/workload.h"

namespace scgpu::kernels {

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
