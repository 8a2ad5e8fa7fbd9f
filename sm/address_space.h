// Generic-address windows. A generic address in the shared window is a shared-memory offset of
// the executing block, one in the local window a local-memory offset of the executing thread;
// every other generic address is a global address (checked against the live allocations).
#pragma once

#include <cstdint>

namespace scgpu::sm {

constexpr std::uint64_t kSharedWindowBase = 0x0001'0000'0000'0000ull;
constexpr std::uint64_t kLocalWindowBase = 0x0002'0000'0000'0000ull;
// Kernel parameters (cvta.param, the address of a __grid_constant__ parameter such as a tensor
// map): read-only; an offset into the launch's parameter buffer.
constexpr std::uint64_t kParamWindowBase = 0x0004'0000'0000'0000ull;
constexpr std::uint64_t kWindowBytes = 0x0000'0001'0000'0000ull;  // 4 GiB each
// Function "addresses" for indirect calls: an index into the program's functions.
constexpr std::uint64_t kFunctionAddressBase = 0x0003'0000'0000'0000ull;

// Distributed shared memory: a shared::cluster address below kClusterSharedStride is the executing
// block's own; above, bits 24 and up hold 1 + the rank of the cluster's block it lies in (mapa), the
// rest the offset in that block's shared memory. The shared window of generic addresses holds
// both kinds, so shared::cta addresses stay shared::cluster addresses of the block itself.
constexpr std::uint64_t kClusterSharedStride = 0x0100'0000ull;  // 16 MiB, above any block's shared memory
// What the timing model's LSU sees of a distributed shared-memory access (sm/exec/mem_access.h
// traceAccess): the offset, with kDsmemNear or kDsmemFar times the stride added for a block in the
// same TPC as the accessing one or in another.
constexpr std::uint64_t kDsmemNear = 1, kDsmemFar = 2;
// The whole tag: near or far in the two bits above the offset, the target block's rank above them
// (the LSU counts a warp's target blocks: one transaction each).
inline std::uint64_t dsmemTag(std::uint64_t where, std::uint32_t rank) {
  return (where + 4 * std::uint64_t(rank)) * kClusterSharedStride;
}
inline std::uint64_t dsmemWhere(std::uint64_t traced) { return traced / kClusterSharedStride % 4; }
inline std::uint32_t dsmemRank(std::uint64_t traced) { return std::uint32_t(traced / kClusterSharedStride / 4); }

inline bool inSharedWindow(std::uint64_t a) { return a - kSharedWindowBase < kWindowBytes; }
inline bool inLocalWindow(std::uint64_t a) { return a - kLocalWindowBase < kWindowBytes; }
inline bool inParamWindow(std::uint64_t a) { return a - kParamWindowBase < kWindowBytes; }
// Any window a generic address can fall into other than global memory.
inline bool inAnyWindow(std::uint64_t a) { return inSharedWindow(a) || inLocalWindow(a) || inParamWindow(a); }

}  // namespace scgpu::sm
