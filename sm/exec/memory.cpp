// ld, st, atom, red, cvta and isspacep.
#include <algorithm>
#include <cstring>

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
    std::uint64_t pa = lo;
    if (c.launch->page_table_root) {
      // Both ends in one page: the span's translation is contiguous. A page not among the last
      // ones is looked up here (a failed translation takes the per-lane path, which names the
      // lane and the walk's fault).
      memsys::LastPage& last = c.launch->page;
      const std::uint64_t root = c.launch->page_table_root;
      if (!last.hit(root, lo, write, &pa)) {
        const memsys::Translation t = c.launch->mmu->translate(root, lo, write);
        if (!t.ok) return nullptr;
        last.remember(root, lo, t);
        pa = t.pa;
      }
      std::uint64_t pa_end;
      if (!last.hit(root, end - 1, write, &pa_end) || pa_end - pa != end - 1 - lo) return nullptr;
    }
    memsys::BackingStore& m = *c.launch->memory;
    const std::uint64_t page = memsys::BackingStore::kPageBytes;
    if (pa / page != (pa + (end - lo) - 1) / page || !m.valid(pa, end - lo)) return nullptr;
    *lo_out = lo;
    return m.hostPtr(pa);
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
      forLanes(c.mask, [&](int lane) { uniform &= base[lane] == base[first]; });
    }
    if (uniform) {
      const std::uint8_t* p = resolve<S>(c, first, addr, Bytes * vec, false);
      for (std::uint32_t e = 0; e < vec; ++e) {
        std::uint64_t v = 0;
        std::memcpy(&v, p + e * Bytes, Bytes);
        if (sign) v = signExtend(v, Bytes);
        std::uint64_t* d = c.R + std::size_t(in.dst[e]) * kWarpSize;
        forLanes(c.mask, [&](int lane) { d[lane] = v; });
      }
      return;
    }
  }
  std::uint64_t lo, addr[kWarpSize];
  bool contiguous;
  if (std::uint8_t* span = warpGlobalSpan<S>(c, in, Bytes * vec, false, addr, &lo, &contiguous)) {
    if (contiguous && vec == 1) {
      std::uint64_t* d = c.R + std::size_t(in.dst[0]) * kWarpSize;
      auto copy = [&](auto extend) {  // a loop per signedness, which the compiler vectorises
        for (int lane = 0; lane < kWarpSize; ++lane) {
          std::uint64_t v = 0;
          std::memcpy(&v, span + lane * Bytes, Bytes);
          d[lane] = extend ? signExtend(v, Bytes) : v;
        }
      };
      if (sign) copy(std::true_type{});
      else copy(std::false_type{});
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
    const std::uint8_t* p = resolve<S>(c, lane, addr, Bytes * vec, false);
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

// A lane's Bytes of the block's shared memory for the warp-wide shared paths: in bounds and
// aligned, straight into the block's array; otherwise resolve() (the lane's fault, or the rules).
template <std::uint32_t Bytes>
inline std::uint8_t* sharedLane(ExecContext& c, std::uint8_t* shared, std::uint64_t size, int lane,
                                std::uint64_t addr, bool write) {
  if (__builtin_expect((addr & (Bytes - 1)) || addr + Bytes > size || addr + Bytes < addr, 0))
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
  const std::uint64_t size = c.block->shared.size();
  const std::uint64_t* base = in.aux == ptx::kNoSlot ? nullptr : lanes(c, in.aux);
  std::uint64_t* d[Vec];
  for (std::uint32_t e = 0; e < Vec; ++e) d[e] = lanes(c, in.dst[e]);
  const std::uint64_t imm = std::uint64_t(in.imm);
  // with_base and traced are bools, or std::true_type/false_type where they are known.
  auto readLane = [&](int lane, auto with_base, auto traced) {
    const std::uint64_t addr = (with_base ? base[lane] : 0) + imm;
    const std::uint8_t* p = sharedLane<kSize>(c, shared, size, lane, addr, false);
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
  const std::uint64_t size = c.block->shared.size();
  const std::uint64_t* base = in.aux == ptx::kNoSlot ? nullptr : lanes(c, in.aux);
  const std::uint64_t* v[Vec];
  for (std::uint32_t e = 0; e < Vec; ++e) v[e] = lanes(c, in.src[e]);
  const std::uint64_t imm = std::uint64_t(in.imm);
  auto writeLane = [&](int lane, auto with_base, auto traced) {
    const std::uint64_t addr = (with_base ? base[lane] : 0) + imm;
    std::uint8_t* p = sharedLane<kSize>(c, shared, size, lane, addr, true);
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
    if (contiguous && vec == 1) {
      const std::uint64_t* v = c.R + std::size_t(in.src[0]) * kWarpSize;
      for (int lane = 0; lane < kWarpSize; ++lane) std::memcpy(span + lane * Bytes, &v[lane], Bytes);
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
    std::uint8_t* p = resolve<S>(c, lane, addr, Bytes * vec, true);
    if (c.trace) traceAccess<S>(c, lane, addr, Bytes * vec, true, false);
    for (std::uint32_t e = 0; e < vec; ++e) {
      std::uint64_t v = c.R[std::size_t(in.src[e]) * kWarpSize + lane];
      std::memcpy(p + e * Bytes, &v, Bytes);
    }
  });
}

// One atomic read-modify-write on T; returns the old value.
template <typename T>
T atomicApply(ptx::SubOp op, T old, T b, T cmp) {
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
// serialisation a GPU's atomic unit guarantees for conflicting addresses.
template <Space S, typename T>
void atomic(ExecContext& c, const DecodedInst& in) {
  const bool returns = in.op == ptx::Op::Atom;
  // The functional core's warp-wide paths: the lanes' addresses checked once per warp (global:
  // warpGlobalSpan) or against the block's shared memory without resolve() (shared; a lane that
  // faults takes resolve() after the lanes before it applied theirs, as below). Same order.
  auto operands = [&](int lane, T& b, T& cmp) {
    b = as<T>(c.R[std::size_t(in.src[0]) * kWarpSize + lane]);
    cmp = T{};
    if (in.sub == ptx::SubOp::ACas) {  // atom.cas d, [a], b, c: compare with b, store c
      cmp = b;
      b = as<T>(c.R[std::size_t(in.src[1]) * kWarpSize + lane]);
    }
  };
  auto apply = [&](int lane, std::uint8_t* p) {
    T b, cmp;
    operands(lane, b, cmp);
    T old;
    std::memcpy(&old, p, sizeof(T));
    T next = atomicApply<T>(in.sub, old, b, cmp);
    std::memcpy(p, &next, sizeof(T));
    if (returns) c.R[std::size_t(in.dst[0]) * kWarpSize + lane] = bitsOf<T>(old);
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
      const std::uint64_t size = c.block->shared.size();
      forLanes(c.mask, [&](int lane) {
        apply(lane, sharedLane<sizeof(T)>(c, shared, size, lane, effectiveAddress(c, in, lane), true));
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
      c.effects->atomic(pa, &applyHeldBack<T>, in.sub, bitsOf<T>(b), bitsOf<T>(cmp),
                        returns ? &c.R[std::size_t(in.dst[0]) * kWarpSize + lane] : nullptr);
      return;
    }
    std::uint8_t* p = resolve<S>(c, lane, addr, sizeof(T), true);
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

template <Space S>
ptx::ExecFn selectAtomic(const DecodedInst& in) {
  using ptx::SubOp;
  const bool bitwise = in.sub == SubOp::AAnd || in.sub == SubOp::AOr || in.sub == SubOp::AXor;
  const bool incdec = in.sub == SubOp::AInc || in.sub == SubOp::ADec;
  switch (in.type) {
    case Type::U32: case Type::B32: return &atomic<S, std::uint32_t>;
    case Type::S32: return bitwise || incdec ? nullptr : &atomic<S, std::int32_t>;
    case Type::U64: case Type::B64: return incdec ? nullptr : &atomic<S, std::uint64_t>;
    case Type::S64: return bitwise || incdec ? nullptr : &atomic<S, std::int64_t>;
    case Type::F32:
      return (in.sub == SubOp::AAdd || in.sub == SubOp::AExch || in.sub == SubOp::AMin || in.sub == SubOp::AMax)
                 ? &atomic<S, float> : nullptr;
    case Type::F64:
      return (in.sub == SubOp::AAdd || in.sub == SubOp::AExch) ? &atomic<S, double> : nullptr;
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
