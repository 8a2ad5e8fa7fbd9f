// Generic-address windows. A generic address in the shared window is a shared-memory offset of
// the executing block, one in the local window a local-memory offset of the executing thread;
// every other generic address is a global address (checked against the live allocations).
#pragma once

#include <cstdint>

namespace scgpu::sm {

constexpr std::uint64_t kSharedWindowBase = 0x0001'0000'0000'0000ull;
constexpr std::uint64_t kLocalWindowBase = 0x0002'0000'0000'0000ull;
constexpr std::uint64_t kWindowBytes = 0x0000'0001'0000'0000ull;  // 4 GiB each
// Function "addresses" for indirect calls: an index into the program's functions.
constexpr std::uint64_t kFunctionAddressBase = 0x0003'0000'0000'0000ull;

inline bool inSharedWindow(std::uint64_t a) { return a - kSharedWindowBase < kWindowBytes; }
inline bool inLocalWindow(std::uint64_t a) { return a - kLocalWindowBase < kWindowBytes; }

}  // namespace scgpu::sm
