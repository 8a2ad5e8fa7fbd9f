// ld, st, atom, red, cvta and isspacep.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "sm/exec/handlers.h"
#include "sm/exec/mem_access.h"

namespace scgpu::sm {
namespace {

using ptx::DecodedInst;
using ptx::ExecFn;
using ptx::Space;
using ptx::Type;

// Sign-extends the low `bytes` of v to 64 bits.
inline std::uint64_t signExtend(std::uint64_t v, std::uint32_t bytes) {
  if (bytes >= 8) return v;
  const unsigned shift = 64 - bytes * 8;
  return std::uint64_t(std::int64_t(v << shift) >> shift);
}

// The host bytes of global [va, va + len) from the launch's spans (LaunchState::spans), or null.
inline std::uint8_t* spanHost(ExecContext& c, std::uint64_t va, std::uint64_t len, bool write) {
  GlobalSpans& s = c.launch->spans;
  if (s.generation != c.launch->memory->generation()) return nullptr;
  const GlobalSpans::Entry& e = s.entryOf(va);
  if (va >= e.lo && va < e.end && e.end - va >= len && (e.writable || !write)) return e.host + (va - e.lo);
  return nullptr;
}

// After the checked path let an access at global `va` (physical `pa`, in a translation page of
// page_mask + 1 bytes) through: remembers the span around it that the translation page, the
// allocation and the backing-store page all hold.
void rememberSpan(ExecContext& c, std::uint64_t va, std::uint64_t pa, std::uint64_t page_mask, bool write) {
  memsys::BackingStore& m = *c.launch->memory;
  std::uint64_t base, size;
  if (!m.findAllocation(pa, base, size)) return;
  const std::uint64_t store_page = pa & ~(memsys::BackingStore::kPageBytes - 1);
  const std::uint64_t lo = std::max({pa & ~page_mask, base, store_page});
  std::uint64_t end = std::min(base + size, store_page + memsys::BackingStore::kPageBytes);
  if (page_mask != ~std::uint64_t{0}) end = std::min(end, (pa & ~page_mask) + page_mask + 1);
  std::uint8_t* host = m.hostPtr(lo);  // (may create the page: a new generation)
  GlobalSpans& s = c.launch->spans;
  if (s.generation != m.generation()) {
    s = GlobalSpans{};
    s.generation = m.generation();
  }
  GlobalSpans::Entry& e = s.entryOf(va);
  e.lo = lo - pa + va;
  e.end = end - pa + va;
  e.host = host;
  e.writable = write;
}

// resolve() for a lane's global (or generic) access, through the spans in the functional core: a
// gather whose lanes fall in several pages takes this path a lane at a time.
template <Space S>
inline std::uint8_t* laneBytes(ExecContext& c, int lane, std::uint64_t addr, std::uint32_t size, bool write) {
  if constexpr (S == Space::Global || S == Space::Generic) {
    const bool spans = !c.effects && !c.trace && (addr & (size - 1)) == 0 && (S == Space::Global || !inAnyWindow(addr));
    if (spans)
      if (std::uint8_t* p = spanHost(c, addr, size, write)) return p;
    std::uint8_t* p = resolve<S>(c, lane, addr, size, write);
    if (spans) {
      std::uint64_t pa = addr, mask = ~std::uint64_t{0};
      const memsys::LastPage& last = c.launch->page;
      if (!c.launch->page_table_root || last.hit(c.launch->page_table_root, addr, write, &pa, &mask))
        rememberSpan(c, addr, pa, mask, write);
    }
    return p;
  } else {
    return resolve<S>(c, lane, addr, size, write);
  }
}

// The functional core's per-warp path for a global (or generic-to-global) access of `bytes` per
// lane: when the warp's accesses are aligned and their span lies in the last translated page, in
// one live allocation and in one backing-store page, the span is translated and checked once
// instead of once per lane (a coalesced warp's 32 lanes share one line). Returns the host bytes
// of address `lo` (and lo, and either *contiguous, when all 32 lanes are active and lane i is at
// lo + i * bytes, or each active lane's address in addr) or null: then the per-lane path runs,
// and names the lane that faults.
template <Space S>
std::uint8_t* warpGlobalSpan(ExecContext& c, const DecodedInst& in, std::uint32_t bytes, bool write,
                             std::uint64_t addr[kWarpSize], std::uint64_t* lo_out, bool* contiguous) {
  if constexpr (S != Space::Global && S != Space::Generic) {
    return nullptr;
  } else {
    if (c.trace || c.effects || c.mask == 0) return nullptr;  // the timing model traces each lane
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0, any_bits = 0;
    bool windowed = false;
    const std::uint64_t* base = in.aux == ptx::kNoSlot ? nullptr : c.R + std::size_t(in.aux) * kWarpSize;
    const std::uint64_t imm = std::uint64_t(in.imm);
    *contiguous = false;
    if (c.mask == kFullMask && base) {
      // The common case of a streaming kernel: lane i at the first lane's address + i elements.
      // One comparison a lane, and the caller copies the span without per-lane addresses.
      const std::uint64_t first = base[0];
      std::uint64_t differ = 0, expected = first;
      for (int lane = 0; lane < kWarpSize; ++lane, expected += bytes) differ |= base[lane] ^ expected;
      const std::uint64_t a = first + imm;
      if (differ == 0 && a <= ~std::uint64_t{0} - kWarpSize * bytes) {
        *contiguous = true;
        lo = a;
        hi = a + (kWarpSize - 1) * bytes;
        any_bits = a;
        if constexpr (S == Space::Generic) windowed = inAnyWindow(lo) || inAnyWindow(hi);
      }
    }
    if (!*contiguous) {
      forLanes(c.mask, [&](int lane) {
        const std::uint64_t a = (base ? base[lane] : 0) + imm;
        addr[lane] = a;
        lo = std::min(lo, a);
        hi = std::max(hi, a);
        any_bits |= a;
        if constexpr (S == Space::Generic) windowed |= inAnyWindow(a);
      });
    }
    const std::uint64_t end = hi + bytes;
    if (windowed || (any_bits & (bytes - 1)) || end < hi) return nullptr;
    if (std::uint8_t* host = spanHost(c, lo, end - lo, write)) {
      *lo_out = lo;
      return host;
    }
    std::uint64_t pa = lo, page_mask = ~std::uint64_t{0};
    if (c.launch->page_table_root) {
      // Both ends in one page: the span's translation is contiguous. A page not among the last
      // ones is looked up here (a failed translation takes the per-lane path, which names the
      // lane and the walk's fault).
      memsys::LastPage& last = c.launch->page;
      const std::uint64_t root = c.launch->page_table_root;
      if (!last.hit(root, lo, write, &pa, &page_mask)) {
        const memsys::Translation t = c.launch->mmu->translate(root, lo, write);
        if (!t.ok) return nullptr;
        last.remember(root, lo, t);
        pa = t.pa;
        page_mask = t.page_bytes - 1;
      }
      std::uint64_t pa_end;
      if (!last.hit(root, end - 1, write, &pa_end) || pa_end - pa != end - 1 - lo) return nullptr;
    }
    memsys::BackingStore& m = *c.launch->memory;
    const std::uint64_t page = memsys::BackingStore::kPageBytes;
    if (pa / page != (pa + (end - lo) - 1) / page || !m.valid(pa, end - lo)) return nullptr;
    *lo_out = lo;
    std::uint8_t* host = m.hostPtr(pa);
    rememberSpan(c, lo, pa, page_mask, write);
    return host;
  }
}

// Loads of `Bytes`-sized elements; `in.vec` elements per lane, one vector access per lane.
template <Space S, std::uint32_t Bytes>
void load(ExecContext& c, const DecodedInst& in) {
  const std::uint32_t vec = in.vec;
  const bool sign = ptx::isSigned(in.type);
  if constexpr (S == Space::KernelParam || S == Space::Const) {
    // One address for every lane (a kernel parameter, whose address the decoder holds in a
    // constant slot, or a constant): resolved once, for the first lane (the one the per-lane path
    // would name in a fault), and broadcast. (A warp's global access has warpGlobalSpan.)
    bool uniform = !c.trace && c.mask;
    const int first = c.mask ? __builtin_ctz(c.mask) : 0;
    const std::uint64_t addr = uniform ? effectiveAddress(c, in, first) : 0;
    if (uniform && in.aux != ptx::kNoSlot) {
      const std::uint64_t* base = c.R + std::size_t(in.aux) * kWarpSize;
      if (c.mask == kFullMask) uniform = sameInEveryLane(base);
      else forLanes(c.mask, [&](int lane) { uniform &= base[lane] == base[first]; });
    }
    if (uniform) {
      const std::uint8_t* p = resolve<S>(c, first, addr, Bytes * vec, false);
      for (std::uint32_t e = 0; e < vec; ++e) {
        std::uint64_t v = 0;
        std::memcpy(&v, p + e * Bytes, Bytes);
        if (sign) v = signExtend(v, Bytes);
        std::uint64_t* d = c.R + std::size_t(in.dst[e]) * kWarpSize;
        if (c.mask == kFullMask) std::fill(d, d + kWarpSize, v);
        else forLanes(c.mask, [&](int lane) { d[lane] = v; });
      }
      return;
    }
  }
  std::uint64_t lo, addr[kWarpSize];
  bool contiguous;
  if (std::uint8_t* span = warpGlobalSpan<S>(c, in, Bytes * vec, false, addr, &lo, &contiguous)) {
    if (contiguous && vec == 1) {
      // The span copied whole into a local array first, then widened lane by lane: a loop the
      // compiler vectorises (from the span itself, which may alias the registers, it did not).
      using E = typename detail::UIntOf<Bytes>::type;
      E raw[kWarpSize];
      std::memcpy(raw, span, sizeof raw);
      std::uint64_t* d = c.R + std::size_t(in.dst[0]) * kWarpSize;
      using SignedE = std::make_signed_t<E>;
      if (sign)
        for (int lane = 0; lane < kWarpSize; ++lane) d[lane] = std::uint64_t(std::int64_t(SignedE(raw[lane])));
      else
        for (int lane = 0; lane < kWarpSize; ++lane) d[lane] = raw[lane];
      return;
    }
    if (contiguous)
      for (int lane = 0; lane < kWarpSize; ++lane) addr[lane] = lo + std::uint64_t(lane) * Bytes * vec;
    forLanes(c.mask, [&](int lane) {
      const std::uint8_t* p = span + (addr[lane] - lo);
      for (std::uint32_t e = 0; e < vec; ++e) {
        std::uint64_t v = 0;
        std::memcpy(&v, p + e * Bytes, Bytes);
        if (sign) v = signExtend(v, Bytes);
        c.R[std::size_t(in.dst[e]) * kWarpSize + lane] = v;
      }
    });
    return;
  }
  forLanes(c.mask, [&](int lane) {
    const std::uint64_t addr = effectiveAddress(c, in, lane);
    const std::uint8_t* p = laneBytes<S>(c, lane, addr, Bytes * vec, false);
    if (c.trace) traceAccess<S>(c, lane, addr, Bytes * vec, false, false);
    for (std::uint32_t e = 0; e < vec; ++e) {
      std::uint64_t v = 0;
      std::memcpy(&v, p + e * Bytes, Bytes);
      if (sign) v = signExtend(v, Bytes);
      c.R[std::size_t(in.dst[e]) * kWarpSize + lane] = v;
    }
  });
}

// resolve() out of line, for the lane of a warp's fast path that faults (or needs the general
// rules): the fast loop stays free of its body.
template <Space S>
[[gnu::noinline, gnu::cold]] const std::uint8_t* resolveCold(ExecContext& c, int lane, std::uint64_t addr,
                                                               std::uint32_t size, bool write) {
  return resolve<S>(c, lane, addr, size, write);
}

// The warp-wide shared paths' test that an access of Bytes (a power of two) at `addr` is aligned
// and inside the block's `size` bytes, in one comparison: rotated right by log2(Bytes), an aligned
// address is its element index, and a misaligned one has a top bit set and so is larger than any
// index (an address that wraps past 2^64 is one too). Three compares and branches a lane before.
template <std::uint32_t Bytes>
class SharedBounds {
 public:
  explicit SharedBounds(std::uint64_t size) : end_(size >= Bytes ? (size - Bytes) / Bytes + 1 : 0) {}
  bool ok(std::uint64_t addr) const {
    constexpr int kShift = __builtin_ctz(Bytes);
    if constexpr (kShift == 0) return addr < end_;
    else return ((addr >> kShift) | (addr << (64 - kShift))) < end_;
  }

 private:
  std::uint64_t end_;  // the number of aligned elements that fit
};

// A lane's Bytes of the block's shared memory for the warp-wide shared paths: in bounds and
// aligned, straight into the block's array; otherwise resolve() (the lane's fault, or the rules).
template <std::uint32_t Bytes>
inline std::uint8_t* sharedLane(ExecContext& c, std::uint8_t* shared, const SharedBounds<Bytes>& bounds, int lane,
                                std::uint64_t addr, bool write) {
  if (__builtin_expect(!bounds.ok(addr), 0))
    return const_cast<std::uint8_t*>(resolveCold<Space::Shared>(c, lane, addr, Bytes, write));
  return shared + addr;
}

// A shared load or store of Vec elements of Bytes each per lane (most of a tiled kernel's
// accesses): the block's shared memory and the register columns are looked up once per warp
// instead of once per lane; lane by lane, a lane out of bounds or misaligned takes resolve() for
// its fault (after the lanes before it, as the general path; each lane reads its address before
// its result is written, so a destination may be the base).
template <std::uint32_t Bytes, bool Signed, std::uint32_t Vec>
void loadShared(ExecContext& c, const DecodedInst& in) {
  constexpr std::uint32_t kSize = Bytes * Vec;
  std::uint8_t* const shared = c.block->shared.data();
  const SharedBounds<kSize> bounds(c.block->shared.size());
  const std::uint64_t* base = in.aux == ptx::kNoSlot ? nullptr : lanes(c, in.aux);
  std::uint64_t* d[Vec];
  for (std::uint32_t e = 0; e < Vec; ++e) d[e] = lanes(c, in.dst[e]);
  const std::uint64_t imm = std::uint64_t(in.imm);
  // with_base and traced are bools, or std::true_type/false_type where they are known.
  auto readLane = [&](int lane, auto with_base, auto traced) {
    const std::uint64_t addr = (with_base ? base[lane] : 0) + imm;
    const std::uint8_t* p = sharedLane<kSize>(c, shared, bounds, lane, addr, false);
    if (traced) traceAccess<Space::Shared>(c, lane, addr, kSize, false, false);
    for (std::uint32_t e = 0; e < Vec; ++e) {
      std::uint64_t v = 0;
      std::memcpy(&v, p + e * Bytes, Bytes);
      d[e][lane] = Signed ? signExtend(v, Bytes) : v;
    }
  };
  if (c.mask == kFullMask && base && !c.trace) {
    // The common case, with the tests of the general one known: a tenth fewer instructions in a
    // tiled SGEMM.
    for (int lane = 0; lane < kWarpSize; ++lane) readLane(lane, std::true_type{}, std::false_type{});
    return;
  }
  forLanes(c.mask, [&](int lane) { readLane(lane, base != nullptr, c.trace != nullptr); });
}

template <std::uint32_t Bytes, std::uint32_t Vec>
void storeShared(ExecContext& c, const DecodedInst& in) {
  constexpr std::uint32_t kSize = Bytes * Vec;
  std::uint8_t* const shared = c.block->shared.data();
  const SharedBounds<kSize> bounds(c.block->shared.size());
  const std::uint64_t* base = in.aux == ptx::kNoSlot ? nullptr : lanes(c, in.aux);
  const std::uint64_t* v[Vec];
  for (std::uint32_t e = 0; e < Vec; ++e) v[e] = lanes(c, in.src[e]);
  const std::uint64_t imm = std::uint64_t(in.imm);
  auto writeLane = [&](int lane, auto with_base, auto traced) {
    const std::uint64_t addr = (with_base ? base[lane] : 0) + imm;
    std::uint8_t* p = sharedLane<kSize>(c, shared, bounds, lane, addr, true);
    if (traced) traceAccess<Space::Shared>(c, lane, addr, kSize, true, false);
    for (std::uint32_t e = 0; e < Vec; ++e) std::memcpy(p + e * Bytes, &v[e][lane], Bytes);
  };
  if (c.mask == kFullMask && base && !c.trace) {
    for (int lane = 0; lane < kWarpSize; ++lane) writeLane(lane, std::true_type{}, std::false_type{});
    return;
  }
  forLanes(c.mask, [&](int lane) { writeLane(lane, base != nullptr, c.trace != nullptr); });
}

template <Space S, std::uint32_t Bytes>
void store(ExecContext& c, const DecodedInst& in) {
  const std::uint32_t vec = in.vec;
  std::uint64_t lo, addr[kWarpSize];
  bool contiguous;
  if (std::uint8_t* span = warpGlobalSpan<S>(c, in, Bytes * vec, true, addr, &lo, &contiguous)) {
    if (contiguous && vec == 1) {  // narrowed into a local array, then copied whole (as load)
      using E = typename detail::UIntOf<Bytes>::type;
      E raw[kWarpSize];
      const std::uint64_t* v = c.R + std::size_t(in.src[0]) * kWarpSize;
      for (int lane = 0; lane < kWarpSize; ++lane) raw[lane] = E(v[lane]);
      std::memcpy(span, raw, sizeof raw);
      return;
    }
    if (contiguous)
      for (int lane = 0; lane < kWarpSize; ++lane) addr[lane] = lo + std::uint64_t(lane) * Bytes * vec;
    forLanes(c.mask, [&](int lane) {
      std::uint8_t* p = span + (addr[lane] - lo);
      for (std::uint32_t e = 0; e < vec; ++e) {
        std::uint64_t v = c.R[std::size_t(in.src[e]) * kWarpSize + lane];
        std::memcpy(p + e * Bytes, &v, Bytes);
      }
    });
    return;
  }
  forLanes(c.mask, [&](int lane) {
    const std::uint64_t addr = effectiveAddress(c, in, lane);
    std::uint64_t pa;
    if (heldBackGlobal<S>(c, lane, addr, Bytes * vec, &pa)) {  // timing model: at the end of the cycle
      if (c.trace) traceAccess<S>(c, lane, addr, Bytes * vec, true, false);
      std::uint8_t bytes[Bytes * 4];
      for (std::uint32_t e = 0; e < vec; ++e) {
        std::uint64_t v = c.R[std::size_t(in.src[e]) * kWarpSize + lane];
        std::memcpy(bytes + e * Bytes, &v, Bytes);
      }
      c.effects->store(pa, bytes, Bytes * vec);
      return;
    }
    std::uint8_t* p = laneBytes<S>(c, lane, addr, Bytes * vec, true);
    if (c.trace) traceAccess<S>(c, lane, addr, Bytes * vec, true, false);
    for (std::uint32_t e = 0; e < vec; ++e) {
      std::uint64_t v = c.R[std::size_t(in.src[e]) * kWarpSize + lane];
      std::memcpy(p + e * Bytes, &v, Bytes);
    }
  });
}

// One atomic read-modify-write on T; returns the new value. Inline: the functional core's
// handlers know `op` at compile time (one instantiation per operation), and the switch folds away.
template <typename T>
[[gnu::always_inline]] inline T atomicApply(ptx::SubOp op, T old, T b, T cmp) {
  using ptx::SubOp;
  switch (op) {
    case SubOp::AAdd: return T(old + b);
    case SubOp::AMin: return b < old ? b : old;
    case SubOp::AMax: return b > old ? b : old;
    case SubOp::AExch: return b;
    case SubOp::ACas: return old == cmp ? b : old;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case SubOp::AInc: return old >= b ? T(0) : T(old + 1);
      case SubOp::ADec: return (old == 0 || old > b) ? b : T(old - 1);
      case SubOp::AAnd: return old & b;
      case SubOp::AOr: return old | b;
      case SubOp::AXor: return old ^ b;
      default: break;
    }
  }
  return old;
}

// A held-back global atomic, applied at the end of the cycle (GlobalEffects).
template <typename T>
void applyHeldBack(std::uint8_t* p, const GlobalEffects::Effect& e) {
  T old;
  std::memcpy(&old, p, sizeof(T));
  const T next = atomicApply<T>(e.op, old, as<T>(e.b), as<T>(e.cmp));
  std::memcpy(p, &next, sizeof(T));
  if (e.dst) *e.dst = bitsOf<T>(old);
}

// Lanes apply their atomics one after another in lane order: deterministic, and exactly the
// serialisation a GPU's atomic unit guarantees for conflicting addresses. Op is in.sub, fixed at
// decode time (a switch per lane was a third of a histogram's atomics).
template <Space S, typename T, ptx::SubOp Op>
void atomic(ExecContext& c, const DecodedInst& in) {
  const bool returns = in.op == ptx::Op::Atom;
  // The functional core's warp-wide paths: the lanes' addresses checked once per warp (global:
  // warpGlobalSpan) or against the block's shared memory without resolve() (shared; a lane that
  // faults takes resolve() after the lanes before it applied theirs, as below). Same order.
  // The register columns looked up once: the lambdas capture them by value, so a store into
  // memory (which may alias anything) does not make every lane read them again from c and in.
  const std::uint64_t* const src_b = lanes(c, in.src[0]);
  const std::uint64_t* const src_c = Op == ptx::SubOp::ACas ? lanes(c, in.src[1]) : nullptr;
  std::uint64_t* const dst = returns ? lanes(c, in.dst[0]) : nullptr;
  auto operands = [src_b, src_c](int lane, T& b, T& cmp) {
    b = as<T>(src_b[lane]);
    cmp = T{};
    if constexpr (Op == ptx::SubOp::ACas) {  // atom.cas d, [a], b, c: compare with b, store c
      cmp = b;
      b = as<T>(src_c[lane]);
    }
  };
  auto apply = [operands, dst](int lane, std::uint8_t* p) {
    T b, cmp;
    operands(lane, b, cmp);
    T old;
    std::memcpy(&old, p, sizeof(T));
    T next = atomicApply<T>(Op, old, b, cmp);
    std::memcpy(p, &next, sizeof(T));
    if (dst) dst[lane] = bitsOf<T>(old);
  };
  if constexpr (S == Space::Global || S == Space::Generic) {
    std::uint64_t lo, addr[kWarpSize];
    bool contiguous;
    if (std::uint8_t* span = warpGlobalSpan<S>(c, in, sizeof(T), true, addr, &lo, &contiguous)) {
      if (contiguous)
        for (int lane = 0; lane < kWarpSize; ++lane) addr[lane] = lo + std::uint64_t(lane) * sizeof(T);
      forLanes(c.mask, [&](int lane) { apply(lane, span + (addr[lane] - lo)); });
      return;
    }
  } else if constexpr (S == Space::Shared) {
    if (!c.trace) {
      std::uint8_t* const shared = c.block->shared.data();
      const SharedBounds<sizeof(T)> bounds(c.block->shared.size());
      const std::uint64_t* const base = in.aux == ptx::kNoSlot ? nullptr : lanes(c, in.aux);
      const std::uint64_t imm = std::uint64_t(in.imm);
      forLanes(c.mask, [&](int lane) {
        const std::uint64_t addr = (base ? base[lane] : 0) + imm;
        apply(lane, sharedLane<sizeof(T)>(c, shared, bounds, lane, addr, true));
      });
      return;
    }
  }
  forLanes(c.mask, [&](int lane) {
    const std::uint64_t addr = effectiveAddress(c, in, lane);
    std::uint64_t pa;
    if (heldBackGlobal<S>(c, lane, addr, sizeof(T), &pa)) {  // timing model: at the end of the cycle
      if (c.trace) traceAccess<S>(c, lane, addr, sizeof(T), true, true);
      T b, cmp;
      operands(lane, b, cmp);
      c.effects->atomic(pa, &applyHeldBack<T>, Op, bitsOf<T>(b), bitsOf<T>(cmp), dst ? &dst[lane] : nullptr);
      return;
    }
    std::uint8_t* p = laneBytes<S>(c, lane, addr, sizeof(T), true);
    if (c.trace) traceAccess<S>(c, lane, addr, sizeof(T), true, true);
    apply(lane, p);
  });
}

void cvta(ExecContext& c, const DecodedInst& in) {
  const bool to_space = in.aux == 1;
  std::uint64_t base = 0;
  if (in.space == Space::Shared) base = kSharedWindowBase;
  if (in.space == Space::Local) base = kLocalWindowBase;
  if (in.space == Space::KernelParam) base = kParamWindowBase;
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const bool narrow = ptx::sizeOf(in.type) == 4;
  forLanes(c.mask, [&](int lane) {
    std::uint64_t v = to_space ? a[lane] - base : a[lane] + base;
    d[lane] = narrow ? (v & 0xFFFFFFFFu) : v;
  });
}

void isspacep(ExecContext& c, const DecodedInst& in) {
  const std::uint64_t* a = lanes(c, in.src[0]);
  std::uint32_t result = 0;
  forLanes(c.mask, [&](int lane) {
    std::uint64_t v = a[lane];
    bool yes = false;
    switch (in.space) {
      case Space::Shared: yes = inSharedWindow(v); break;
      case Space::Local: yes = inLocalWindow(v); break;
      case Space::KernelParam: yes = inParamWindow(v); break;
      case Space::Global: yes = !inAnyWindow(v); break;
      default: yes = false; break;
    }
    if (yes) result |= 1u << lane;
  });
  std::uint32_t& p = c.P[in.dst[0]];
  p = (p & ~c.mask) | result;
}

template <std::uint32_t Bytes, std::uint32_t Vec>
ExecFn selectSharedSized(bool ld, bool sign) {
  if (!ld) return &storeShared<Bytes, Vec>;
  if constexpr (Bytes < 8) {
    if (sign) return &loadShared<Bytes, true, Vec>;
  }
  return &loadShared<Bytes, false, Vec>;
}
template <std::uint32_t Bytes>
ExecFn selectSharedVec(std::uint32_t vec, bool ld, bool sign) {
  switch (vec) {
    case 1: return selectSharedSized<Bytes, 1>(ld, sign);
    case 2: return selectSharedSized<Bytes, 2>(ld, sign);
    case 4: return selectSharedSized<Bytes, 4>(ld, sign);
    default: return nullptr;  // (the general handler)
  }
}
// A shared ld/st's warp-wide handler, or nullptr for the general one.
ExecFn selectShared(const DecodedInst& in, bool ld) {
  const bool sign = ptx::isSigned(in.type);
  switch (ptx::sizeOf(in.type)) {
    case 1: return selectSharedVec<1>(in.vec, ld, sign);
    case 2: return selectSharedVec<2>(in.vec, ld, sign);
    case 4: return selectSharedVec<4>(in.vec, ld, sign);
    case 8: return selectSharedVec<8>(in.vec, ld, sign);
    default: return nullptr;
  }
}

template <Space S>
ptx::ExecFn selectLdSt(const DecodedInst& in) {
  const bool ld = in.op == ptx::Op::Ld;
  if constexpr (S == Space::Shared) {
    if (ExecFn f = selectShared(in, ld)) return f;
  }
  switch (ptx::sizeOf(in.type)) {
    case 1: return ld ? &load<S, 1> : &store<S, 1>;
    case 2: return ld ? &load<S, 2> : &store<S, 2>;
    case 4: return ld ? &load<S, 4> : &store<S, 4>;
    case 8: return ld ? &load<S, 8> : &store<S, 8>;
    default: return nullptr;
  }
}

// The atomic handler for operation `op` on T (an operation T does not have reads the old value
// and stores it back, as atomicApply's default).
template <Space S, typename T>
ptx::ExecFn atomicFor(ptx::SubOp op) {
  using ptx::SubOp;
  switch (op) {
    case SubOp::AAdd: return &atomic<S, T, SubOp::AAdd>;
    case SubOp::AMin: return &atomic<S, T, SubOp::AMin>;
    case SubOp::AMax: return &atomic<S, T, SubOp::AMax>;
    case SubOp::AExch: return &atomic<S, T, SubOp::AExch>;
    case SubOp::ACas: return &atomic<S, T, SubOp::ACas>;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case SubOp::AInc: return &atomic<S, T, SubOp::AInc>;
      case SubOp::ADec: return &atomic<S, T, SubOp::ADec>;
      case SubOp::AAnd: return &atomic<S, T, SubOp::AAnd>;
      case SubOp::AOr: return &atomic<S, T, SubOp::AOr>;
      case SubOp::AXor: return &atomic<S, T, SubOp::AXor>;
      default: break;
    }
  }
  return &atomic<S, T, SubOp::None>;
}

template <Space S>
ptx::ExecFn selectAtomic(const DecodedInst& in) {
  using ptx::SubOp;
  const bool bitwise = in.sub == SubOp::AAnd || in.sub == SubOp::AOr || in.sub == SubOp::AXor;
  const bool incdec = in.sub == SubOp::AInc || in.sub == SubOp::ADec;
  switch (in.type) {
    case Type::U32: case Type::B32: return atomicFor<S, std::uint32_t>(in.sub);
    case Type::S32: return bitwise || incdec ? nullptr : atomicFor<S, std::int32_t>(in.sub);
    case Type::U64: case Type::B64: return incdec ? nullptr : atomicFor<S, std::uint64_t>(in.sub);
    case Type::S64: return bitwise || incdec ? nullptr : atomicFor<S, std::int64_t>(in.sub);
    case Type::F32:
      return (in.sub == SubOp::AAdd || in.sub == SubOp::AExch || in.sub == SubOp::AMin || in.sub == SubOp::AMax)
                 ? atomicFor<S, float>(in.sub) : nullptr;
    case Type::F64:
      return (in.sub == SubOp::AAdd || in.sub == SubOp::AExch) ? atomicFor<S, double>(in.sub) : nullptr;
    default: return nullptr;
  }
}

template <template <Space> class Sel>
ptx::ExecFn bySpace(const DecodedInst& in) {
  switch (in.space) {
    case Space::Global: return Sel<Space::Global>::pick(in);
    case Space::Shared: return Sel<Space::Shared>::pick(in);
    case Space::Local: return Sel<Space::Local>::pick(in);
    case Space::Const: return Sel<Space::Const>::pick(in);
    case Space::KernelParam: return Sel<Space::KernelParam>::pick(in);
    case Space::Generic: return Sel<Space::Generic>::pick(in);
    default: return nullptr;
  }
}
template <Space S> struct LdStSel { static ptx::ExecFn pick(const DecodedInst& in) { return selectLdSt<S>(in); } };
template <Space S> struct AtomSel {
  static ptx::ExecFn pick(const DecodedInst& in) {
    if constexpr (S == Space::Global || S == Space::Shared || S == Space::Generic) return selectAtomic<S>(in);
    return nullptr;
  }
};

void nop(ExecContext&, const DecodedInst&) {}

// cp.async: the copy happens at once (a thread may not read the destination before its
// cp.async.wait_group, so no program can tell); the timing model times the global read and the
// group waits (sm/timing). src-size bytes are read, the rest of cp-size is zero-filled.
void cpAsync(ExecContext& c, const DecodedInst& in) {
  const std::uint32_t size = in.vec;
  forLanes(c.mask, [&](int lane) {
    const std::uint64_t dst = effectiveAddress(c, in, lane);
    const std::uint64_t base = in.src[0] == ptx::kNoSlot ? 0 : c.R[std::size_t(in.src[0]) * kWarpSize + lane];
    const std::uint64_t src = base + c.R[std::size_t(in.src[1]) * kWarpSize + lane];
    std::uint32_t src_size = size;
    if (in.src[2] != ptx::kNoSlot)
      src_size = std::uint32_t(std::min<std::uint64_t>(size, c.R[std::size_t(in.src[2]) * kWarpSize + lane] & 0xFFFFFFFFu));
    std::uint8_t bytes[16] = {};
    if (src_size == size) {
      std::memcpy(bytes, resolve<Space::Global>(c, lane, src, size, false), size);
    } else if (src_size > 0) {
      if (src & (size - 1)) memFault("misaligned address", "a", src, size, lane, "read");
      for (std::uint32_t i = 0; i < src_size; ++i) bytes[i] = *resolve<Space::Global>(c, lane, src + i, 1, false);
    }
    if (c.trace && src_size > 0) traceAccess<Space::Global>(c, lane, src, size, false, false);
    std::memcpy(resolve<Space::Shared>(c, lane, dst, size, true), bytes, size);
  });
}

}  // namespace

ptx::ExecFn selectMemoryHandler(const DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::Ld:
    case ptx::Op::St: return bySpace<LdStSel>(in);
    case ptx::Op::Atom:
    case ptx::Op::Red: return bySpace<AtomSel>(in);
    case ptx::Op::Cvta: return &cvta;
    case ptx::Op::Isspacep: return &isspacep;
    case ptx::Op::Prefetch:
    case ptx::Op::Fence:
    case ptx::Op::CpAsyncCommit:
    case ptx::Op::CpAsyncWait: return &nop;  // the timing model times the groups
    case ptx::Op::CpAsync: return &cpAsync;
    default: return nullptr;
  }
}

}  // namespace scgpu::sm
