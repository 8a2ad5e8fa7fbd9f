// wgmma (sm_90a warpgroup MMA; PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"): wgmma.mma_async, wgmma.fence, wgmma.commit_group, wgmma.wait_group.
//
// A warpgroup is four consecutive warps of a block (warp index / 4); warp w of it holds rows
// 16w .. 16w+15 of the 64-row D (and of A when A is in registers), laid out in each warp as
// mma.sync's m16n8 accumulator repeated over N/8 column blocks (and m16n8k* A). So each warp
// computes its own 16 rows from its registers and shared memory, whatever order the functional
// core runs the warps in; the four warps' instructions together are the warpgroup's one MMA.
//
// Shared-memory operands come through 64-bit matrix descriptors (start address, leading- and
// stride-dimension byte offsets, base offset, swizzle mode: none, 128B, 64B, 32B) in the ISA's
// canonical layouts of 8 x 16-byte core matrices, K-major or (imm-trans, 16-bit types only)
// MN-major. An address outside the block's shared memory is a kernel fault.
//
// Asynchrony: the product is computed when the warp issues wgmma.mma_async (reading A, B and the
// accumulator then), but D reaches the registers only when a wgmma.wait_group waits for its group
// (Warp::wgmma_pending). A kernel that reads D before waiting sees the old values, as it may on
// the H100 (the ISA leaves it undefined), instead of results silently early. A wgmma that takes
// the D of an earlier one still pending as its accumulator gets that pending value: the ISA lets
// wgmma.mma_async of one group chain through the same accumulator registers.
#include <algorithm>
#include <cstring>
#include <vector>

#include "sm/exec/handlers.h"
#include "sm/exec/mem_access.h"
#include "sm/exec/mma_multiply.h"
#include "sm/warp.h"

namespace scgpu::sm {
namespace {

using ptx::DecodedInst;
using ptx::MatElem;
using ptx::TensorOp;

// The fields of a matrix descriptor ("Matrix Descriptor Format"): byte values.
struct Descriptor {
  std::uint32_t start = 0, lbo = 0, sbo = 0, base = 0;
  std::uint32_t swizzle = 0;  // bytes of the swizzle pattern's row: 0 (none/interleave), 32, 64, 128
};

Descriptor decodeDescriptor(std::uint64_t v) {
  Descriptor d;
  d.start = std::uint32_t(v & 0x3FFF) << 4;
  d.lbo = std::uint32_t((v >> 16) & 0x3FFF) << 4;
  d.sbo = std::uint32_t((v >> 32) & 0x3FFF) << 4;
  d.base = std::uint32_t((v >> 49) & 7);
  static const std::uint32_t kSwizzle[4] = {0, 128, 64, 32};
  d.swizzle = kSwizzle[v >> 62];
  return d;
}

// The shared-memory byte address of the 16-byte piece that holds element (mn, kk) of a matrix (mn:
// the row of A or the column of B; kk: along K), and the element's index within the piece, for
// elements of `bits` bits: the ISA's canonical layouts ("Canonical Layouts", in CuTe terms, with
// T = 128 / bits elements a 16-byte piece):
//   K-major,  none:      ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//   K-major,  swizzled:  ((8,m),(T,2k)):((S/16 T,SBO),(1,T))        S = 32, 64 or 128 bytes
//   MN-major, none:      ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//   MN-major, swizzled:  ((T,S/16,m),(8,k)):((1,T,LBO),(S/16 T,SBO))
// then Swizzle<log2(S/16), 4, 3> on the byte address: address bits 4.. take the XOR of bits 7..,
// counted from the pattern's start (the base offset: (pattern start >> 7) & 7, 0 on a boundary).
std::uint64_t pieceAddress(const Descriptor& d, bool k_major, std::uint32_t bits, std::uint32_t mn, std::uint32_t kk,
                           std::uint32_t* index) {
  const std::uint32_t per = 128 / bits;
  std::uint64_t off;
  if (k_major) {
    *index = kk % per;
    const std::uint32_t r0 = mn % 8, r1 = mn / 8, c1 = kk / per;
    off = d.swizzle ? std::uint64_t(r0) * d.swizzle + std::uint64_t(r1) * d.sbo + c1 * 16u
                    : r0 * 16u + std::uint64_t(r1) * d.sbo + std::uint64_t(c1) * d.lbo;
  } else {
    *index = mn % per;
    const std::uint32_t piece = mn / per, k0 = kk % 8, k1 = kk / 8;
    if (!d.swizzle) {
      off = std::uint64_t(piece) * d.sbo + k0 * 16u + std::uint64_t(k1) * d.lbo;
    } else {
      const std::uint32_t row = d.swizzle / 16;  // 16-byte pieces in a pattern row
      off = (piece % row) * 16u + std::uint64_t(piece / row) * d.lbo + std::uint64_t(k0) * d.swizzle +
            std::uint64_t(k1) * d.sbo;
    }
  }
  std::uint64_t addr = d.start + off;
  if (d.swizzle) {
    const std::uint32_t mask = d.swizzle / 16 - 1;  // 1, 3 or 7
    const std::uint64_t phase = ((addr >> 7) - d.base) & mask;
    addr ^= phase << 4;
  }
  return addr;
}

// Element `index` of a 16-byte piece of Bits-bit elements.
template <std::uint32_t Bits>
std::uint64_t pieceElement(const std::uint8_t* piece, std::uint32_t index) {
  if constexpr (Bits == 1) {
    return (piece[index / 8] >> (index % 8)) & 1u;
  } else if constexpr (Bits == 8) {
    return piece[index];
  } else if constexpr (Bits == 16) {
    std::uint16_t v;
    std::memcpy(&v, piece + 2 * index, 2);
    return v;
  } else {
    static_assert(Bits == 32);
    std::uint32_t v;
    std::memcpy(&v, piece + 4 * index, 4);
    return v;
  }
}

// Elements (mn0 + i, kk) of a matrix in shared memory for i < mn_count, kk < k_count, through its
// descriptor, into out[i * mn_stride + kk * k_stride]; `lane` reports a fault. Each 16-byte piece
// is looked up once for the elements it holds, in the order in which an element-by-element walk
// (mn, then kk) first reaches the pieces, so that a fault names the same address.
template <std::uint32_t Bits>
void sharedMatrixOf(ExecContext& c, int lane, const Descriptor& d, bool k_major, std::uint32_t mn0,
                    std::uint32_t mn_count, std::uint32_t k_count, std::uint64_t* out, std::size_t mn_stride,
                    std::size_t k_stride) {
  constexpr std::uint32_t per = 128 / Bits;  // elements a piece
  std::uint32_t index;
  if (k_major) {  // a piece holds `per` consecutive kk of one mn
    for (std::uint32_t i = 0; i < mn_count; ++i)
      for (std::uint32_t k0 = 0; k0 < k_count; k0 += per) {
        const std::uint64_t addr = pieceAddress(d, true, Bits, mn0 + i, k0, &index);
        const std::uint8_t* piece = resolve<ptx::Space::Shared>(c, lane, addr, 16, false);
        for (std::uint32_t kk = k0; kk < std::min(k_count, k0 + per); ++kk)
          out[i * mn_stride + kk * k_stride] = pieceElement<Bits>(piece, index + (kk - k0));
      }
  } else {  // a piece holds `per` consecutive mn (from a multiple of per) of one kk
    for (std::uint32_t i = 0; i < mn_count;) {
      const std::uint32_t mn = mn0 + i, next = std::min(mn_count, i + (per - mn % per));
      for (std::uint32_t kk = 0; kk < k_count; ++kk) {
        const std::uint64_t addr = pieceAddress(d, false, Bits, mn, kk, &index);
        const std::uint8_t* piece = resolve<ptx::Space::Shared>(c, lane, addr, 16, false);
        for (std::uint32_t i2 = i; i2 < next; ++i2)
          out[i2 * mn_stride + kk * k_stride] = pieceElement<Bits>(piece, index + (i2 - i));
      }
      i = next;
    }
  }
}
void sharedMatrix(ExecContext& c, int lane, const Descriptor& d, bool k_major, std::uint32_t bits, std::uint32_t mn0,
                  std::uint32_t mn_count, std::uint32_t k_count, std::uint64_t* out, std::size_t mn_stride,
                  std::size_t k_stride) {
  switch (bits) {  // the decoder admits the ISA's types only: 1, 8, 16 or 32 bits
    case 1: return sharedMatrixOf<1>(c, lane, d, k_major, mn0, mn_count, k_count, out, mn_stride, k_stride);
    case 8: return sharedMatrixOf<8>(c, lane, d, k_major, mn0, mn_count, k_count, out, mn_stride, k_stride);
    case 16: return sharedMatrixOf<16>(c, lane, d, k_major, mn0, mn_count, k_count, out, mn_stride, k_stride);
    default: return sharedMatrixOf<32>(c, lane, d, k_major, mn0, mn_count, k_count, out, mn_stride, k_stride);
  }
}

// Element `idx` of a lane's fragment in `slots` (elements packed from the low bits, 32 bits a slot).
std::uint64_t fragmentElement(std::uint64_t word, MatElem e, std::uint32_t idx) {
  const std::uint32_t bits = ptx::bitsOf(e), per = ptx::elementsPerSlot(e);
  const std::uint64_t mask = bits == 32 ? 0xFFFFFFFFull : (1ull << bits) - 1;
  return (word >> ((idx % per) * bits)) & mask;
}

// The accumulator's layout in a warp (the ISA's "WGMMA .m64nNk* register fragment layout for
// accumulator matrix D"): element i of lane L is row L/4 + 8 ((i/2) % 2), column 8 (i/4) + 2 (L%4) + i%2.
void accumulatorCell(int lane, std::uint32_t i, int& row, int& col) {
  row = (lane >> 2) + 8 * int((i >> 1) & 1);
  col = 8 * int(i >> 2) + 2 * (lane & 3) + int(i & 1);
}
// A in registers (as mma.sync's m16n8k* A): element i of lane L, `per` elements a register.
void aCell(int lane, std::uint32_t i, std::uint32_t per, int& row, int& col) {
  const int g = lane >> 2, t = lane & 3, r = int(i / per), j = int(i % per);
  row = g + 8 * (r & 1);
  col = t * int(per) + j + (r >> 1) * 4 * int(per);
}

// The words that the next wgmma reads as absolute register slot `abs` (its `index`-th D
// register), lane by lane: from the newest pending result that writes it for the lane, else from
// the register. Chained wgmma name the same D registers in the same order, so a result's
// `index`-th slot is looked at first.
void accumulatorInput(const Warp& w, std::uint32_t abs, std::size_t index, std::uint64_t words[kWarpSize]) {
  std::uint32_t left = ~0u;  // lanes still to find
  for (auto it = w.wgmma_pending.rbegin(); it != w.wgmma_pending.rend() && left; ++it) {
    const std::uint32_t lanes = left & it->mask;
    if (!lanes) continue;
    std::size_t at = index;
    if (at >= it->slots.size() || it->slots[at] != abs)
      at = std::size_t(std::find(it->slots.begin(), it->slots.end(), abs) - it->slots.begin());
    if (at == it->slots.size()) continue;
    forLanes(lanes, [&](int lane) { words[lane] = it->values[at * kWarpSize + std::size_t(lane)]; });
    left &= ~lanes;
  }
  forLanes(left, [&](int lane) { words[lane] = w.regs[std::size_t(abs) * kWarpSize + std::size_t(lane)]; });
}

// Result buffers that a wait_group has emptied, for the next wgmma.mma_async to fill (one pool per
// host thread, at most kPooledResults): no allocation per wgmma.
constexpr std::size_t kPooledResults = 64;
std::vector<Warp::WgmmaResult>& resultPool() {
  static thread_local std::vector<Warp::WgmmaResult> pool;
  return pool;
}

int firstLane(std::uint32_t mask) { return mask ? __builtin_ctz(mask) : 0; }

void wgmmaMmaAsync(ExecContext& c, const DecodedInst& in) {
  const TensorOp& t = c.program->tensor_ops[in.target];
  Warp& w = *c.warp;
  const int lead = firstLane(c.mask);
  const std::uint32_t row0 = 16 * (w.index % 4);  // this warp's rows of the warpgroup's 64
  const int n = t.n, k = t.k;
  const std::uint32_t abits = ptx::bitsOf(t.a), bbits = ptx::bitsOf(t.b);
  static thread_local std::vector<std::uint64_t> a, b, cm, d;
  // A and B are written whole below, C unless scale-d is false.
  a.resize(std::size_t(16) * k);
  b.resize(std::size_t(k) * n);
  cm.resize(std::size_t(16) * n);
  auto negate = [](std::uint64_t v, std::uint32_t bits) { return v ^ (1ull << (bits - 1)); };
  // A: this warp's 16 rows.
  if (t.a_desc) {
    const Descriptor da = decodeDescriptor(c.R[std::size_t(t.src_a[0]) * kWarpSize + std::size_t(lead)]);
    sharedMatrix(c, lead, da, t.a_row, abits, row0, 16, std::uint32_t(k), a.data(), std::size_t(k), 1);
  } else {
    const std::uint32_t per = ptx::elementsPerSlot(t.a), elems = std::uint32_t(16 * k / kWarpSize);
    for (int lane = 0; lane < kWarpSize; ++lane)
      for (std::uint32_t i = 0; i < elems; ++i) {
        int row, col;
        aCell(lane, i, per, row, col);
        const std::uint64_t word = c.R[std::size_t(t.src_a[i / per]) * kWarpSize + std::size_t(lane)];
        a[std::size_t(row) * k + col] = fragmentElement(word, t.a, i);
      }
  }
  // B: all N columns (B is K x N; K-major: column j's K elements are contiguous).
  const Descriptor db = decodeDescriptor(c.R[std::size_t(t.src_b[0]) * kWarpSize + std::size_t(lead)]);
  sharedMatrix(c, lead, db, !t.b_row, bbits, 0, std::uint32_t(n), std::uint32_t(k), b.data(), 1, std::size_t(n));
  if (t.neg_a)
    for (auto& v : a) v = negate(v, abits);
  if (t.neg_b)
    for (auto& v : b) v = negate(v, bbits);
  // The accumulator: D's registers (or the pending results of earlier wgmma), unless scale-d is false.
  const bool scale_d = (c.P[t.scale_d] >> lead) & 1;
  const std::uint32_t nd = std::uint32_t(t.dst.size()), per_d = ptx::elementsPerSlot(t.d);
  const std::uint32_t reg_base = w.frames.back().reg_base;
  // With one element a register (f32, s32 D), element i of lane L sits at lane_at[L] + slot_at[i]
  // of D (accumulatorCell, split into its lane's and its register's parts).
  std::size_t lane_at[kWarpSize];
  for (int lane = 0; lane < kWarpSize; ++lane) lane_at[lane] = std::size_t(lane >> 2) * n + 2 * std::size_t(lane & 3);
  const auto slotAt = [n](std::uint32_t i) { return std::size_t(8 * ((i >> 1) & 1)) * n + 8 * (i >> 2) + (i & 1); };
  if (scale_d) {
    std::uint64_t words[kWarpSize];
    for (std::uint32_t s = 0; s < nd; ++s) {
      accumulatorInput(w, reg_base + t.dst[s], s, words);
      if (per_d == 1) {
        const std::size_t at = slotAt(s);
        for (int lane = 0; lane < kWarpSize; ++lane) cm[lane_at[lane] + at] = words[lane] & 0xFFFFFFFFull;
        continue;
      }
      for (int lane = 0; lane < kWarpSize; ++lane)
        for (std::uint32_t j = 0; j < per_d; ++j) {
          int row, col;
          accumulatorCell(lane, s * per_d + j, row, col);
          cm[std::size_t(row) * n + col] = fragmentElement(words[lane], t.d, j);
        }
    }
  } else {
    std::fill(cm.begin(), cm.end(), 0);
  }
  mmaMultiply(t, 16, a, b, cm, d);
  // D waits for its wgmma.wait_group, in a pooled buffer (slots and values written whole below).
  Warp::WgmmaResult res;
  std::vector<Warp::WgmmaResult>& pool = resultPool();
  if (!pool.empty()) {
    res = std::move(pool.back());
    pool.pop_back();
  }
  res.group = w.wgmma_groups;
  res.mask = c.mask;
  res.slots.resize(nd);
  res.values.resize(std::size_t(nd) * kWarpSize);
  const std::uint32_t dbits = ptx::bitsOf(t.d);
  const std::uint64_t emask = dbits == 32 ? 0xFFFFFFFFull : (1ull << dbits) - 1;
  for (std::uint32_t s = 0; s < nd; ++s) {
    res.slots[s] = reg_base + t.dst[s];
    if (per_d == 1) {
      const std::size_t at = slotAt(s);
      for (int lane = 0; lane < kWarpSize; ++lane)
        res.values[std::size_t(s) * kWarpSize + std::size_t(lane)] = d[lane_at[lane] + at] & emask;
      continue;
    }
    for (int lane = 0; lane < kWarpSize; ++lane) {
      std::uint64_t word = 0;
      for (std::uint32_t j = 0; j < per_d; ++j) {
        int row, col;
        accumulatorCell(lane, s * per_d + j, row, col);
        word |= (d[std::size_t(row) * n + col] & emask) << (j * dbits);
      }
      res.values[std::size_t(s) * kWarpSize + std::size_t(lane)] = word & 0xFFFFFFFFull;
    }
  }
  w.wgmma_pending.push_back(std::move(res));
}

void wgmmaFence(ExecContext&, const DecodedInst&) {}

void wgmmaCommit(ExecContext& c, const DecodedInst&) { c.warp->wgmma_groups++; }

// wgmma.wait_group N: the results of every group but the newest N committed ones land, oldest first.
void wgmmaWait(ExecContext& c, const DecodedInst& in) {
  Warp& w = *c.warp;
  const std::uint64_t keep = std::uint64_t(in.imm);
  if (w.wgmma_groups < keep) return;
  const std::uint32_t done_below = w.wgmma_groups - std::uint32_t(keep);
  auto& pending = w.wgmma_pending;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Warp::WgmmaResult& r = pending[i];
    if (r.group >= done_below) {
      if (kept != i) std::swap(pending[kept], r);  // the landed result moves back, to the pool
      ++kept;
      continue;
    }
    for (std::size_t s = 0; s < r.slots.size(); ++s)
      forLanes(r.mask, [&](int lane) {
        w.regs[std::size_t(r.slots[s]) * kWarpSize + std::size_t(lane)] = r.values[s * kWarpSize + std::size_t(lane)];
      });
  }
  std::vector<Warp::WgmmaResult>& pool = resultPool();
  for (std::size_t i = kept; i < pending.size() && pool.size() < kPooledResults; ++i) pool.push_back(std::move(pending[i]));
  pending.resize(kept);
}

}  // namespace

ptx::ExecFn selectWgmmaHandler(const DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::Wgmma: return &wgmmaMmaAsync;
    case ptx::Op::WgmmaFence: return &wgmmaFence;
    case ptx::Op::WgmmaCommit: return &wgmmaCommit;
    case ptx::Op::WgmmaWait: return &wgmmaWait;
    default: return nullptr;
  }
}

}  // namespace scgpu::sm
