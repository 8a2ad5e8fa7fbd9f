// What a semantic handler sees while it executes one instruction for one warp: the current frame's
// register and predicate files, the lanes that execute, and the warp, block and launch around it.
// Handlers are plain functions (ptx::ExecFn) chosen at decode time; see sm/exec/README.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ptx/decoded.h"

namespace scgpu::sm {

constexpr int kWarpSize = 32;
constexpr std::uint32_t kFullMask = 0xFFFFFFFFu;

class Warp;
class GlobalEffects;
struct BlockState;
struct LaunchState;

// The addresses a memory instruction touched, lane by lane, for the timing model's coalescer,
// shared-memory bank model and caches. Filled only when ExecContext::trace is set.
struct MemTrace {
  std::uint32_t mask = 0;                 // lanes that accessed memory
  std::uint32_t bytes = 0;                // bytes per lane (element size x vector width)
  bool write = false, atomic = false;
  // Per lane: the address in its resolved space (generic addresses resolved through the windows;
  // shared and local addresses are offsets in their space).
  std::uint64_t addr[kWarpSize] = {};
  ptx::Space space[kWarpSize] = {};
  bool generic = false;                   // the instruction addressed generically (resolved per lane)
  void clear() { mask = 0; }
};

// What a bulk copy (cp.async.bulk*, the TMA unit) did, for the timing model (ExecContext::bulk
// set): the global sectors it read or wrote, line by line, the shared-memory bytes, and the
// mbarrier completions it owes. The functional core completes a copy at once; the timing model
// applies `completions` when the copy's memory accesses are done, so that a warp waiting on the
// mbarrier waits for the copy.
struct BulkTrace {
  struct Line {
    std::uint64_t addr;    // global (virtual) address of the 128-byte line
    std::uint8_t sectors;  // 32-byte sectors touched, bit i for sector i
  };
  struct Completion {
    BlockState* block;     // the block whose shared memory holds the mbarrier
    std::uint32_t offset;  // the mbarrier's offset in that block's shared memory
    std::uint32_t bytes;   // complete_tx count
  };
  std::vector<Line> lines;
  bool write = false;      // to global memory (stores and reductions)
  bool prefetch = false;   // to the L2 only: nothing waits for it
  std::uint64_t shared_bytes = 0;
  std::vector<Completion> completions;
  void clear() {
    lines.clear();
    completions.clear();
    write = prefetch = false;
    shared_bytes = 0;
  }
  // Records global bytes [addr, addr + len).
  void touch(std::uint64_t addr, std::uint64_t len) {
    if (!len) return;
    for (std::uint64_t a = addr & ~std::uint64_t{31}; a < addr + len; a += 32) {
      const std::uint64_t line = a & ~std::uint64_t{127};
      const std::uint8_t bit = std::uint8_t(1u << ((a >> 5) & 3));
      if (!lines.empty() && lines.back().addr == line) lines.back().sectors |= bit;
      else lines.push_back({line, bit});
    }
  }
};

struct ExecContext {
  // Register file of the current frame: R[slot * 32 + lane], each slot 64 bits wide; narrower
  // types live in the low bits, zero-extended when written.
  std::uint64_t* R = nullptr;
  // Predicate file of the current frame: one 32-bit lane mask per predicate slot.
  std::uint32_t* P = nullptr;
  // Lanes that execute this instruction: active lanes, guard predicate applied.
  std::uint32_t mask = 0;
  // Active lanes before the guard (a predicated branch needs both).
  std::uint32_t active = 0;
  std::uint32_t pc = 0;
  Warp* warp = nullptr;
  BlockState* block = nullptr;
  LaunchState* launch = nullptr;
  const ptx::Program* program = nullptr;
  // Set by the timing model: memory instructions record their per-lane addresses here.
  MemTrace* trace = nullptr;
  // Set by the timing model: bulk copies record their accesses and owed completions here.
  BulkTrace* bulk = nullptr;
  // Set by the timing model: global stores, atomics, printf and malloc/free are held back here
  // and applied at the end of the cycle (sm/global_effects.h); global reads change nothing.
  GlobalEffects* effects = nullptr;
  // Set by the functional engine: an mbarrier.try_wait whose phase has not completed suspends the
  // warp (sets `suspended`, leaves the PC on it and counts nothing) instead of returning false, as
  // the hardware suspends the thread; the engine runs other warps and tries again.
  bool suspend_try_wait = false;
  bool suspended = false;
  // Set by the timing model: the core cycle (%clock, %globaltimer); else launch->clock counts.
  std::uint64_t cycle = kNoCycle;
  static constexpr std::uint64_t kNoCycle = ~std::uint64_t{0};
};

// Runs f(lane) for every lane in mask, in lane order. The full-mask case is a plain loop the
// compiler can vectorise.
template <typename F>
inline void forLanes(std::uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (int lane = 0; lane < kWarpSize; ++lane) f(lane);
  } else {
    while (mask) {
      int lane = __builtin_ctz(mask);
      mask &= mask - 1;
      f(lane);
    }
  }
}

// Whether a register slot holds the same value in all 32 lanes (a constant, a shift count, a
// kernel parameter's address). A loop the compiler vectorises.
inline bool sameInEveryLane(const std::uint64_t* v) {
  std::uint64_t differ = 0;
  for (int l = 0; l < kWarpSize; ++l) differ |= v[l] ^ v[0];
  return differ == 0;
}

namespace detail {
template <std::size_t N> struct UIntOf;
template <> struct UIntOf<1> { using type = std::uint8_t; };
template <> struct UIntOf<2> { using type = std::uint16_t; };
template <> struct UIntOf<4> { using type = std::uint32_t; };
template <> struct UIntOf<8> { using type = std::uint64_t; };
// Integers convert by value; other types (floats, halves) through an unsigned integer of their
// size. The same bits as a memcpy of the slot's low bytes (x86-64 is little-endian), but a lane
// loop over them vectorises: a 4-byte memcpy into a 64-bit variable is an access pattern the
// vectoriser gives up on, and every ALU handler's loop stayed scalar.
template <typename T>
constexpr bool kByValue = std::is_integral_v<T> && !std::is_same_v<T, bool>;
}  // namespace detail

// The number of set bits of x. Without -mpopcnt (the build runs on any x86-64)
// __builtin_popcount is a call into libgcc; this is the same count inline, and it vectorises in a
// lane loop.
inline std::uint32_t popCount(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return std::uint32_t((x * 0x0101010101010101ull) >> 56);
}

// Reads a slot's low bits as T; writes T zero-extended to 64 bits.
template <typename T>
inline T as(std::uint64_t bits) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
  if constexpr (detail::kByValue<T>) {
    return T(bits);
  } else {
    using U = typename detail::UIntOf<sizeof(T)>::type;
    const U low = U(bits);
    T v;
    std::memcpy(&v, &low, sizeof(T));
    return v;
  }
}
template <typename T>
inline std::uint64_t bitsOf(T v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
  if constexpr (detail::kByValue<T>) {
    return std::uint64_t(std::make_unsigned_t<T>(v));
  } else {
    using U = typename detail::UIntOf<sizeof(T)>::type;
    U bits;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
  }
}

// Pointer to the 32 lanes of a register slot.
inline std::uint64_t* lanes(ExecContext& c, std::uint32_t slot) { return c.R + std::size_t(slot) * kWarpSize; }

}  // namespace scgpu::sm
