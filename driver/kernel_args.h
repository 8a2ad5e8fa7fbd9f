// Kernel arguments collected by value, in order. The runtime lays them out against the PTX
// parameter list of the kernel (sizes and alignments) when it launches.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace scgpu::driver {

class KernelArgs {
 public:
  struct Arg {
    std::vector<std::uint8_t> bytes;
  };

  // Any trivially copyable value: pointers as DevicePtr (uint64_t), ints, floats, structs.
  template <typename T> KernelArgs& add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied by value");
    Arg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &value, sizeof(T));
    args_.push_back(std::move(a));
    return *this;
  }
  KernelArgs& addBytes(const void* data, std::size_t size) {
    Arg a;
    a.bytes.assign(static_cast<const std::uint8_t*>(data), static_cast<const std::uint8_t*>(data) + size);
    args_.push_back(std::move(a));
    return *this;
  }
  const std::vector<Arg>& args() const { return args_; }
  std::size_t size() const { return args_.size(); }

 private:
  std::vector<Arg> args_;
};

}  // namespace scgpu::driver
