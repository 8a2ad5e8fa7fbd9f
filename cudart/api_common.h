// What every extern "C" entry point of libcudart.so.13 shares: the export attribute, the lock and
// the guard that keeps a C++ exception from crossing into the program.
#pragma once

#include <mutex>
#include <new>

#include <fmt/format.h>

#include "cudart/runtime_state.h"

// The symbols a program binds to: listed in cudart/libcudart.map (version node libcudart.so.13,
// as nvcc's programs ask for it).
#define SCGPU_CUDART_API extern "C" __attribute__((visibility("default")))

// The per-thread-default-stream spellings a program compiled with --default-stream per-thread
// calls (cudaMemcpy_ptds, cudaMemcpyAsync_ptsz, ...): the same function, since scgpu's runtime
// treats the per-thread default stream as the legacy one.
#define SCGPU_CUDART_PTDS(name) \
  SCGPU_CUDART_API __attribute__((alias(#name))) decltype(name) name##_ptds;
#define SCGPU_CUDART_PTSZ(name) \
  SCGPU_CUDART_API __attribute__((alias(#name))) decltype(name) name##_ptsz;

namespace scgpu::cudart {

// Runs body(State&) under the runtime's lock and returns its error; an exception becomes
// cudaErrorMemoryAllocation or cudaErrorUnknown with its message on stderr.
template <typename Body>
abi::Error guarded(const char* what, Body&& body) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  try {
    return body(s);
  } catch (const std::bad_alloc&) {
    return s.fail(abi::kMemoryAllocation, fmt::format("{}: out of host memory", what));
  } catch (const std::exception& e) {
    return s.fail(abi::kUnknown, fmt::format("{}: {}", what, e.what()));
  }
}

// The same for an entry point that needs the device open first.
template <typename Body>
abi::Error onDevice(const char* what, Body&& body) {
  return guarded(what, [&](State& s) {
    if (const abi::Error e = s.ensureDevice()) return e;
    return body(s);
  });
}

}  // namespace scgpu::cudart
