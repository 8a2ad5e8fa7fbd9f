// Matrix (tensor-core) instructions: mma.sync, wmma.load/store/mma, ldmatrix, stmatrix and
// movmatrix. The fragments of mma.sync, ldmatrix, stmatrix and movmatrix are laid out across the
// lanes as the PTX ISA specifies (checked against the H100: testbench/tensor_test.cpp); wmma
// fragments are opaque in PTX, so scgpu gives lane L the elements L*n .. L*n+n-1 of the matrix in
// row-major order (n = elements / 32), repeated when the fragment has more registers than that.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "sm/exec/float_util.h"
#include "sm/exec/handlers.h"
#include "sm/exec/mem_access.h"
#include "sm/exec/mma_arith.h"
#include "sm/exec/mma_multiply.h"

namespace scgpu::sm {
namespace {

using ptx::DecodedInst;
using ptx::MatElem;
using ptx::TensorOp;

// Element `idx` of a lane's fragment held in `slots`.
std::uint64_t fragGet(const ExecContext& c, const std::vector<std::uint32_t>& slots, MatElem e, int lane,
                      std::uint32_t idx) {
  if (e == MatElem::F64) return c.R[std::size_t(slots[idx]) * kWarpSize + lane];
  const std::uint32_t bits = ptx::bitsOf(e), per = ptx::elementsPerSlot(e);
  const std::uint64_t word = c.R[std::size_t(slots[idx / per]) * kWarpSize + lane];
  const std::uint64_t mask = bits == 32 ? 0xFFFFFFFFull : (1ull << bits) - 1;
  return (word >> ((idx % per) * bits)) & mask;
}
// Elements 0 .. n-1 of a lane's fragment, in order: fn(idx, element bits), each register read once.
template <class Fn>
void forFragment(const ExecContext& c, const std::vector<std::uint32_t>& slots, MatElem e, int lane, std::uint32_t n,
                 Fn&& fn) {
  if (e == MatElem::F64) {
    for (std::uint32_t idx = 0; idx < n; ++idx) fn(idx, c.R[std::size_t(slots[idx]) * kWarpSize + lane]);
    return;
  }
  const std::uint32_t bits = ptx::bitsOf(e), per = ptx::elementsPerSlot(e);
  const std::uint64_t mask = bits == 32 ? 0xFFFFFFFFull : (1ull << bits) - 1;
  for (std::uint32_t idx = 0; idx < n;) {
    const std::uint64_t word = c.R[std::size_t(slots[idx / per]) * kWarpSize + lane];
    for (std::uint32_t i = 0; i < per && idx < n; ++i, ++idx) fn(idx, (word >> (i * bits)) & mask);
  }
}
void fragSet(ExecContext& c, const std::vector<std::uint32_t>& slots, MatElem e, int lane, std::uint32_t idx,
             std::uint64_t v) {
  const std::uint32_t per = ptx::elementsPerSlot(e);
  std::uint64_t& word = c.R[std::size_t(slots[idx / per]) * kWarpSize + lane];
  if (e == MatElem::F64) { word = v; return; }
  const std::uint32_t bits = ptx::bitsOf(e), shift = (idx % per) * bits;
  const std::uint64_t mask = (bits == 32 ? 0xFFFFFFFFull : (1ull << bits) - 1) << shift;
  word = ((word & ~mask) | ((v << shift) & mask)) & 0xFFFFFFFFull;
}

// mma.sync layouts (PTX ISA, "Matrix fragments for mma.m16n8k*"): element `idx` of lane `lane`.
// g = lane / 4 (group), t = lane % 4 (thread in group); `per` elements share a 32-bit register.
void mmaA(int m, int lane, std::uint32_t idx, std::uint32_t per, int& row, int& col) {
  const int g = lane >> 2, t = lane & 3, r = int(idx / per), i = int(idx % per);
  if (m == 8) { row = g; col = t * int(per) + i + r * 4 * int(per); return; }
  row = g + 8 * (r & 1);
  col = t * int(per) + i + (r >> 1) * 4 * int(per);
}
void mmaB(int lane, std::uint32_t idx, std::uint32_t per, int& row, int& col) {
  const int g = lane >> 2, t = lane & 3, r = int(idx / per), i = int(idx % per);
  row = t * int(per) + i + r * 4 * int(per);
  col = g;
}
void mmaC(int m, int lane, std::uint32_t idx, int& row, int& col) {
  const int g = lane >> 2, t = lane & 3;
  if (m == 8) { row = g; col = t * 2 + int(idx); return; }
  row = g + 8 * int(idx >> 1);
  col = t * 2 + int(idx & 1);
}

std::int64_t signExtendBits(std::uint64_t v, std::uint32_t bits) {
  return std::int64_t(v << (64 - bits)) >> (64 - bits);
}
bool signedElem(MatElem e) { return e == MatElem::S8 || e == MatElem::S4 || e == MatElem::S32; }

// One DMMA step: IEEE fma, except for NaNs: an input NaN comes out (quieted), B's before the
// accumulator's before A's (as the H100's outputs show), and an invalid operation (inf * 0, inf - inf) gives the negative quiet NaN 0xFFF8...0.
double fmaF64(double x, double y, double acc) {
  auto quiet = [](double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    b |= 1ull << 51;
    std::memcpy(&v, &b, 8);
    return v;
  };
  if (std::isnan(y)) return quiet(y);
  if (std::isnan(acc)) return quiet(acc);
  if (std::isnan(x)) return quiet(x);
  const double r = std::fma(x, y, acc);
  if (!std::isnan(r)) return r;
  const std::uint64_t negative_qnan = 0xFFF8000000000000ull;
  double n;
  std::memcpy(&n, &negative_qnan, 8);
  return n;
}

}  // namespace

void mmaMultiply(const TensorOp& t, int m, const std::vector<std::uint64_t>& a_in, const std::vector<std::uint64_t>& b_in,
                 const std::vector<std::uint64_t>& c, std::vector<std::uint64_t>& d) {
  const int n = t.n, k = t.k;
  // wgmma's native 8-bit float tensor cores: one fused sum with C, 13 alignment bits, an f32
  // result cut to 13 fraction bits (mma_arith.h); mma.sync's: two f16 passes, then C.
  const bool fp8 = t.a == MatElem::E4M3 || t.a == MatElem::E5M2, wgmma_fp8 = fp8 && t.kind == TensorOp::Kind::Wgmma;
  const bool fp8_f32 = fp8 && !wgmma_fp8 && t.c == MatElem::F32;
  // The H100 computes wmma's tf32 m16n16k8 as two k = 4 steps (its outputs differ from one fused
  // k = 8 sum in the last place), and mma.sync's 8-bit floats into f32 as two k = 16 HMMA passes
  // (below); every other shape is one fused sum over its k.
  const int k_block = t.kind == TensorOp::Kind::WmmaMma && t.a == MatElem::TF32 ? 4 : fp8_f32 ? k / 2 : k;
  // sm_90 has no 8-bit mma.sync: ptxas unpacks each register's four 8-bit floats into two f16
  // pairs (F2FP.F16.E4M3.UNPACK_B of its low and high halves) and runs HMMA.16816.F32 on the low
  // halves with a zero accumulator, then on the high halves accumulating that, then FADDs C
  // (SASS of scripts/h100/mma_bits.cu on an H200). A register holds k = 4q .. 4q + 3, so the
  // first pass sums the k with k % 4 < 2, the second the others: A's columns and B's rows are
  // put in that order, the passes being k_block = k / 2 each.
  static thread_local std::vector<std::uint64_t> a_pass, b_pass;  // every element written below
  if (fp8_f32) {
    a_pass.resize(a_in.size());
    b_pass.resize(b_in.size());
    for (int kk = 0; kk < k; ++kk) {
      const int to = (kk % 4 < 2 ? 0 : k / 2) + kk / 4 * 2 + kk % 2;
      for (int i = 0; i < m; ++i) a_pass[std::size_t(i) * k + to] = a_in[std::size_t(i) * k + kk];
      for (int j = 0; j < n; ++j) b_pass[std::size_t(to) * n + j] = b_in[std::size_t(kk) * n + j];
    }
  }
  const std::vector<std::uint64_t>& a = fp8_f32 ? a_pass : a_in;
  const std::vector<std::uint64_t>& b = fp8_f32 ? b_pass : b_in;
  const int align_bits = wgmma_fp8 ? mma::kWgmmaFp8AlignBits : mma::kAlignBits;
  // After a float element's fused sums: wgmma's 8-bit float result cut to 13 fraction bits;
  // mma.sync's 8-bit floats into f32 (whose passes left C out) add C in f32, rounded to nearest
  // (the FADD; sm/exec/mma_arith.h).
  const auto finishFloat = [&](std::uint32_t acc, std::uint64_t cij) -> std::uint64_t {
    if (wgmma_fp8 && t.c == MatElem::F32 && (acc & 0x7F800000u) != 0x7F800000u) acc &= ~0x3FFu;
    if (fp8_f32) {
      const float sum = fp::f32(std::uint32_t(cij)) + fp::f32(acc);
      acc = std::isnan(sum) ? 0x7FFFFFFFu : fp::bits(sum);
    }
    return acc;
  };
  d.resize(std::size_t(m) * n);  // every element written below
  // Float inputs decoded once per instruction (each is used n or m times), A and B row by row as
  // they come, and D computed a row at a time (mma::fusedDotRow); the general path when one of
  // them is a NaN or an infinity.
  static thread_local std::vector<mma::Element> ea, eb;
  static thread_local mma::FiniteElements fa, fb;
  const bool floats = t.a == MatElem::F16 || t.a == MatElem::BF16 || t.a == MatElem::TF32 || t.a == MatElem::E4M3 ||
                      t.a == MatElem::E5M2;
  if (floats && n <= mma::kMaxRowColumns && fa.assign(a.data(), a.size(), t.a) && fb.assign(b.data(), b.size(), t.b)) {
    std::uint32_t row[mma::kMaxRowColumns];
    for (int i = 0; i < m; ++i) {
      // 8-bit floats into f32 on mma.sync: the two passes from zero first, C added after (below).
      for (int j = 0; j < n; ++j) row[j] = fp8_f32 ? 0u : std::uint32_t(c[std::size_t(i) * n + j]);
      for (int k0 = 0; k0 < k; k0 += k_block)
        mma::fusedDotRow(fa, std::size_t(i) * k + k0, fb, std::size_t(k0), n, std::min(k_block, k - k0), row, row,
                         t.c, align_bits);
      if (wgmma_fp8 || fp8_f32)
        for (int j = 0; j < n; ++j) d[std::size_t(i) * n + j] = finishFloat(row[j], c[std::size_t(i) * n + j]);
      else
        std::copy(row, row + n, d.begin() + std::ptrdiff_t(i) * n);
    }
    return;
  }
  if (floats) {
    ea.resize(a.size());
    eb.resize(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ea[i] = mma::decode(std::uint32_t(a[i]), t.a);
    for (std::size_t i = 0; i < b.size(); ++i) eb[i] = mma::decode(std::uint32_t(b[i]), t.b);
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const std::uint64_t cij = c[std::size_t(i) * n + j];
      std::uint64_t& out = d[std::size_t(i) * n + j];
      switch (t.a) {
        case MatElem::F64: {
          double acc;
          std::memcpy(&acc, &cij, 8);
          for (int kk = 0; kk < k; ++kk) {
            double x, y;
            std::memcpy(&x, &a[std::size_t(i) * k + kk], 8);
            std::memcpy(&y, &b[std::size_t(kk) * n + j], 8);
            acc = fmaF64(x, y, acc);
          }
          std::memcpy(&out, &acc, 8);
          break;
        }
        case MatElem::S8: case MatElem::U8: case MatElem::S4: case MatElem::U4: {
          const std::uint32_t ab = ptx::bitsOf(t.a), bb = ptx::bitsOf(t.b);
          std::int64_t acc = std::int32_t(std::uint32_t(cij));
          for (int kk = 0; kk < k; ++kk) {
            const std::uint64_t x = a[std::size_t(i) * k + kk], y = b[std::size_t(kk) * n + j];
            acc += (signedElem(t.a) ? signExtendBits(x, ab) : std::int64_t(x)) *
                   (signedElem(t.b) ? signExtendBits(y, bb) : std::int64_t(y));
          }
          if (t.satfinite) acc = std::min<std::int64_t>(INT32_MAX, std::max<std::int64_t>(INT32_MIN, acc));
          out = std::uint32_t(acc);
          break;
        }
        case MatElem::B1: {
          std::int64_t acc = std::int32_t(std::uint32_t(cij));
          for (int kk = 0; kk < k; ++kk) {
            const std::uint64_t x = a[std::size_t(i) * k + kk], y = b[std::size_t(kk) * n + j];
            acc += t.b1_and ? (x & y) : (x ^ y);
          }
          out = std::uint32_t(acc);
          break;
        }
        default: {  // f16, bf16, tf32, e4m3, e5m2: one fused sum per block of k
          std::uint32_t acc = fp8_f32 ? 0u : std::uint32_t(cij);
          for (int k0 = 0; k0 < k; k0 += k_block) {
            const int kb = std::min(k_block, k - k0);
            acc = mma::fusedDot(&ea[std::size_t(i) * k + k0], &eb[std::size_t(k0) * n + j], std::size_t(n), kb, acc, t.c,
                                align_bits);
          }
          out = finishFloat(acc, cij);
          break;
        }
      }
    }
}

namespace {

void multiply(const TensorOp& t, const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
              const std::vector<std::uint64_t>& c, std::vector<std::uint64_t>& d) {
  mmaMultiply(t, t.m, a, b, c, d);
}

const TensorOp& tensorOp(const ExecContext& c, const DecodedInst& in) { return c.program->tensor_ops[in.target]; }

// Where element e of lane L of an mma.sync fragment sits in its row-major matrix (mmaA, mmaB,
// mmaC), as tables per shape and packing: [L * elements + e].
struct MmaLayout {
  int m = 0, n = 0, k = 0;
  std::uint32_t pa = 0, pb = 0;
  std::vector<std::uint32_t> a_at, b_at, c_at;
};
const MmaLayout& mmaLayout(const TensorOp& t) {
  static thread_local std::vector<MmaLayout> known;  // a program uses a few shapes
  const std::uint32_t pa = ptx::elementsPerSlot(t.a), pb = ptx::elementsPerSlot(t.b);
  for (const MmaLayout& l : known)
    if (l.m == t.m && l.n == t.n && l.k == t.k && l.pa == pa && l.pb == pb) return l;
  MmaLayout l;
  l.m = t.m, l.n = t.n, l.k = t.k, l.pa = pa, l.pb = pb;
  const std::uint32_t na = std::uint32_t(t.m) * t.k / 32, nb = std::uint32_t(t.k) * t.n / 32, nc = std::uint32_t(t.m) * t.n / 32;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    int row, col;
    for (std::uint32_t e = 0; e < na; ++e) {
      mmaA(t.m, lane, e, pa, row, col);
      l.a_at.push_back(std::uint32_t(row * t.k + col));
    }
    for (std::uint32_t e = 0; e < nb; ++e) {
      mmaB(lane, e, pb, row, col);
      l.b_at.push_back(std::uint32_t(row * t.n + col));
    }
    for (std::uint32_t e = 0; e < nc; ++e) {
      mmaC(t.m, lane, e, row, col);
      l.c_at.push_back(std::uint32_t(row * t.n + col));
    }
  }
  known.push_back(std::move(l));
  return known.back();
}

void mmaSync(ExecContext& c, const DecodedInst& in) {
  const TensorOp& t = tensorOp(c, in);
  // Scratch kept from instruction to instruction (one per host thread): no allocation per mma.
  static thread_local std::vector<std::uint64_t> a, b, cm, d;
  a.resize(std::size_t(t.m) * t.k);
  b.resize(std::size_t(t.k) * t.n);
  cm.resize(std::size_t(t.m) * t.n);
  const MmaLayout& l = mmaLayout(t);
  const std::uint32_t na = std::uint32_t(t.m) * t.k / 32, nb = std::uint32_t(t.k) * t.n / 32, nc = std::uint32_t(t.m) * t.n / 32;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const std::uint32_t* at = &l.a_at[std::size_t(lane) * na];
    forFragment(c, t.src_a, t.a, lane, na, [&](std::uint32_t e, std::uint64_t v) { a[at[e]] = v; });
    at = &l.b_at[std::size_t(lane) * nb];
    forFragment(c, t.src_b, t.b, lane, nb, [&](std::uint32_t e, std::uint64_t v) { b[at[e]] = v; });
    at = &l.c_at[std::size_t(lane) * nc];
    forFragment(c, t.src_c, t.c, lane, nc, [&](std::uint32_t e, std::uint64_t v) { cm[at[e]] = v; });
  }
  multiply(t, a, b, cm, d);
  // One element a register (f32, s32 D): the register is the element (fragSet without its packing).
  const bool whole = ptx::elementsPerSlot(t.d) == 1 && t.d != MatElem::F64;
  forLanes(c.mask, [&](int lane) {
    const std::uint32_t* at = &l.c_at[std::size_t(lane) * nc];
    for (std::uint32_t e = 0; e < nc; ++e) {
      if (whole)
        c.R[std::size_t(t.dst[e]) * kWarpSize + lane] = d[at[e]] & 0xFFFFFFFFull;
      else
        fragSet(c, t.dst, t.d, lane, e, d[at[e]]);
    }
  });
}

// wmma: lane L holds the row-major elements L*n .. L*n+n-1 (n = rows * cols / 32), repeated.
void wmmaGather(const ExecContext& c, const std::vector<std::uint32_t>& slots, MatElem e, int rows, int cols,
                std::vector<std::uint64_t>& m) {
  const std::uint32_t n = std::uint32_t(rows * cols / 32);
  m.assign(std::size_t(rows) * cols, 0);
  for (int lane = 0; lane < kWarpSize; ++lane)
    forFragment(c, slots, e, lane, n, [&](std::uint32_t i, std::uint64_t v) { m[std::size_t(lane) * n + i] = v; });
}
void wmmaScatter(ExecContext& c, const std::vector<std::uint32_t>& slots, MatElem e, int rows, int cols,
                 const std::vector<std::uint64_t>& m, std::uint32_t mask) {
  const std::uint32_t n = std::uint32_t(rows * cols / 32), per = ptx::elementsPerSlot(e), bits = ptx::bitsOf(e);
  const std::uint64_t elem_mask = bits >= 32 ? ~0ull : (1ull << bits) - 1;
  forLanes(mask, [&](int lane) {
    // Every element of every slot is written, so each register is assembled whole.
    const std::uint64_t* mine = &m[std::size_t(lane) * n];
    for (std::size_t s = 0; s < slots.size(); ++s) {
      std::uint64_t word = 0;
      for (std::uint32_t i = 0; i < per; ++i)
        word |= (mine[(std::uint32_t(s) * per + i) % n] & elem_mask) << (i * bits);
      c.R[std::size_t(slots[s]) * kWarpSize + lane] = e == MatElem::F64 ? word : word & 0xFFFFFFFFull;
    }
  });
}

void wmmaMma(ExecContext& c, const DecodedInst& in) {
  const TensorOp& t = tensorOp(c, in);
  static thread_local std::vector<std::uint64_t> a, b, cm, d;  // scratch, as in mmaSync
  wmmaGather(c, t.src_a, t.a, t.m, t.k, a);
  wmmaGather(c, t.src_b, t.b, t.k, t.n, b);
  wmmaGather(c, t.src_c, t.c, t.m, t.n, cm);
  multiply(t, a, b, cm, d);
  wmmaScatter(c, t.dst, t.d, t.m, t.n, d, c.mask);
}

template <ptx::Space S>
void wmmaLoadStore(ExecContext& c, const DecodedInst& in) {
  const TensorOp& t = tensorOp(c, in);
  const bool load = t.kind == TensorOp::Kind::WmmaLoad;
  const int rows = int(t.rows()), cols = int(t.cols());
  const std::uint32_t bytes = ptx::bitsOf(t.a) / 8, n = std::uint32_t(rows * cols / 32);
  const std::vector<std::uint32_t>& slots = load ? t.dst : t.src_a;
  static thread_local std::vector<std::uint64_t> m;  // scratch, as in mmaSync
  m.resize(std::size_t(rows) * cols);
  if (!load) wmmaGather(c, slots, t.a, rows, cols, m);
  forLanes(c.mask, [&](int lane) {
    const std::uint64_t base = effectiveAddress(c, in, lane);
    const std::uint64_t stride =
        t.stride == ptx::kNoSlot ? std::uint64_t(t.mem_row ? cols : rows) : (c.R[std::size_t(t.stride) * kWarpSize + lane] & 0xFFFFFFFFu);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t idx = std::uint32_t(lane) * n + i, r = idx / std::uint32_t(cols), col = idx % std::uint32_t(cols);
      const std::uint64_t addr = base + (t.mem_row ? r * stride + col : col * stride + r) * bytes;
      if (c.trace && i == 0) traceAccess<S>(c, lane, addr, n * bytes, !load, false);
      std::uint64_t v = 0;
      if (load) {
        std::memcpy(&v, resolve<S>(c, lane, addr, bytes, false), bytes);
        m[idx] = v;
      } else {
        v = m[idx];
        std::uint64_t pa;
        if (heldBackGlobal<S>(c, lane, addr, bytes, &pa)) {
          std::uint8_t buf[8];
          std::memcpy(buf, &v, bytes);
          c.effects->store(pa, buf, bytes);
        } else {
          std::memcpy(resolve<S>(c, lane, addr, bytes, true), &v, bytes);
        }
      }
    }
  });
  if (load) wmmaScatter(c, slots, t.a, rows, cols, m, c.mask);
}

// ldmatrix/stmatrix: matrix j's row r lives at the address lane 8j + r gives; lane L holds
// elements (L / 4, 2 (L % 4) + {0, 1}) of matrix j in register j (.trans: of its transpose).
void ldStMatrix(ExecContext& c, const DecodedInst& in) {
  const TensorOp& t = tensorOp(c, in);
  const bool load = t.kind == TensorOp::Kind::Ldmatrix;
  const std::vector<std::uint32_t>& slots = load ? t.dst : t.src_a;
  std::uint8_t* rows[32] = {};
  const int nrows = 8 * t.count;
  for (int lane = 0; lane < nrows; ++lane) {
    const std::uint64_t addr = effectiveAddress(c, in, lane);
    rows[lane] = resolve<ptx::Space::Shared>(c, lane, addr, 16, !load);
    if (c.trace) traceAccess<ptx::Space::Shared>(c, lane, addr, 16, !load, false);
  }
  std::uint16_t stored[4][8][8];
  for (int j = 0; j < t.count; ++j)
    for (int lane = 0; lane < kWarpSize; ++lane)
      for (int i = 0; i < 2; ++i) {
        int r = lane / 4, col = 2 * (lane % 4) + i;
        if (t.trans) std::swap(r, col);
        std::uint16_t* cell = reinterpret_cast<std::uint16_t*>(rows[8 * j + r]) + col;
        if (load) {
          if ((c.mask >> lane) & 1) {
            std::uint16_t v;
            std::memcpy(&v, cell, 2);
            fragSet(c, slots, MatElem::F16, lane, std::uint32_t(2 * j + i), v);
          }
        } else {
          stored[j][r][col] = std::uint16_t(fragGet(c, slots, MatElem::F16, lane, std::uint32_t(2 * j + i)));
        }
      }
  if (!load)
    for (int j = 0; j < t.count; ++j)
      for (int r = 0; r < 8; ++r) std::memcpy(rows[8 * j + r], stored[j][r], 16);
}

void movMatrix(ExecContext& c, const DecodedInst& in) {
  const TensorOp& t = tensorOp(c, in);
  std::uint16_t m[8][8];
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < 2; ++i) m[lane / 4][2 * (lane % 4) + i] = std::uint16_t(fragGet(c, t.src_a, MatElem::F16, lane, std::uint32_t(i)));
  forLanes(c.mask, [&](int lane) {
    for (int i = 0; i < 2; ++i) fragSet(c, t.dst, MatElem::F16, lane, std::uint32_t(i), m[2 * (lane % 4) + i][lane / 4]);
  });
}

}  // namespace

ptx::ExecFn selectTensorHandler(const DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::Mma: return &mmaSync;
    case ptx::Op::Ldmatrix: case ptx::Op::Stmatrix: return &ldStMatrix;
    case ptx::Op::Movmatrix: return &movMatrix;
    case ptx::Op::Wmma:
      if (in.space == ptx::Space::None) return &wmmaMma;  // wmma.mma has no address
      switch (in.space) {
        case ptx::Space::Global: return &wmmaLoadStore<ptx::Space::Global>;
        case ptx::Space::Shared: return &wmmaLoadStore<ptx::Space::Shared>;
        case ptx::Space::Generic: return &wmmaLoadStore<ptx::Space::Generic>;
        default: return nullptr;
      }
    default: return nullptr;
  }
}

}  // namespace scgpu::sm
