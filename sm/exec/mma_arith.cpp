#include "sm/exec/mma_arith.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "sm/exec/float_util.h"

namespace scgpu::sm::mma {
namespace {

using ptx::MatElem;

// Fields of a binary float format: exponent bits, fraction bits; `e4m3` for that format's
// encoding (no infinities, NaN = all ones).
Element decodeFloat(std::uint32_t bits, int ebits, int fbits, bool e4m3 = false) {
  Element v;
  const int bias = (1 << (ebits - 1)) - 1;
  v.neg = (bits >> (ebits + fbits)) & 1;
  const std::uint32_t e = (bits >> fbits) & ((1u << ebits) - 1), f = bits & ((1u << fbits) - 1);
  if (e4m3) {
    if (e == 15 && f == 7) { v.nan = true; return v; }
  } else if (e == (1u << ebits) - 1) {
    (f ? v.nan : v.inf) = true;
    return v;
  }
  if (e == 0) {
    v.sig = f;
    v.lsb = 1 - bias - fbits;
  } else {
    v.sig = f | (1u << fbits);
    v.lsb = int(e) - bias - fbits;
  }
  if (v.sig) v.msb = v.lsb + (63 - __builtin_clzll(v.sig));
  return v;
}

}  // namespace

Element decode(std::uint32_t bits, MatElem t) {
  switch (t) {
    case MatElem::F16: return decodeFloat(bits & 0xFFFF, 5, 10);
    case MatElem::BF16: return decodeFloat(bits & 0xFFFF, 8, 7);
    case MatElem::TF32: return decodeFloat(bits >> 13, 8, 10);  // the low 13 bits are ignored
    case MatElem::F32: return decodeFloat(bits, 8, 23);
    case MatElem::E4M3: return decodeFloat(bits & 0xFF, 4, 3, true);
    case MatElem::E5M2: return decodeFloat(bits & 0xFF, 5, 2);
    default: return {};
  }
}

namespace {

// A fused sum's result: sum * 2^q toward zero to f32, or to nearest even to f16.
std::uint32_t roundSum(std::int64_t sum, int q, bool f16acc) {
  const bool neg = sum < 0;
  const std::uint64_t mag = neg ? std::uint64_t(-sum) : std::uint64_t(sum);
  return f16acc ? std::uint32_t(fp::roundPack<fp::FmtF16>(neg, mag, q, fp::RMode::Rn))
                : std::uint32_t(fp::roundPack<fp::FmtF32>(neg, mag, q, fp::RMode::Rz));
}

}  // namespace

std::uint32_t fusedDot(const Element* a, const Element* b, std::size_t b_stride, int k, std::uint32_t c,
                       MatElem acc, int align_bits) {
  const bool f16acc = acc == MatElem::F16;
  const std::uint32_t nan_bits = f16acc ? 0x7FFFu : 0x7FFFFFFFu;
  struct Term { bool neg; std::uint64_t sig; int lsb, top; };
  Term terms[257];
  int n = 0;
  bool pos_inf = false, neg_inf = false;
  for (int i = 0; i < k; ++i) {
    const Element& x = a[i];
    const Element& y = b[std::size_t(i) * b_stride];
    if (x.nan || y.nan) return nan_bits;
    const bool neg = x.neg != y.neg;
    if (x.inf || y.inf) {
      if ((x.inf && !y.inf && y.sig == 0) || (y.inf && !x.inf && x.sig == 0)) return nan_bits;  // inf * 0
      (neg ? neg_inf : pos_inf) = true;
      continue;
    }
    if (x.sig == 0 || y.sig == 0) continue;
    terms[n++] = {neg, x.sig * y.sig, x.lsb + y.lsb, x.msb + y.msb};
  }
  const Element z = decode(c, f16acc ? MatElem::F16 : MatElem::F32);
  if (z.nan) return nan_bits;
  if (z.inf) (z.neg ? neg_inf : pos_inf) = true;
  if (pos_inf && neg_inf) return nan_bits;
  if (pos_inf || neg_inf) return f16acc ? (neg_inf ? 0xFC00u : 0x7C00u) : (neg_inf ? 0xFF800000u : 0x7F800000u);
  if (z.sig) terms[n++] = {z.neg, z.sig, z.lsb, z.msb};
  if (n == 0) return 0;
  int top = INT_MIN;
  for (int i = 0; i < n; ++i) top = std::max(top, terms[i].top);
  const int q = top - align_bits;
  std::int64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    const int shift = q - terms[i].lsb;
    const std::uint64_t v = shift <= 0 ? terms[i].sig << -shift : (shift >= 64 ? 0 : terms[i].sig >> shift);
    sum += terms[i].neg ? -std::int64_t(v) : std::int64_t(v);
  }
  return roundSum(sum, q, f16acc);
}

bool FiniteElements::assign(const std::uint64_t* raw, std::size_t n, std::size_t stride, std::size_t count,
                            std::size_t step, MatElem t) {
  // Element j of run r is raw[r * stride + j * step] (r < count, j < n): rows of A (stride k,
  // step 1) or columns of B (stride 1, step n) laid one after another.
  const std::size_t total = n * count;
  type = t;
  value.resize(total);
  msb.resize(total);
  bits.resize(total);
  std::size_t o = 0;
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t j = 0; j < n; ++j, ++o) {
      bits[o] = std::uint32_t(raw[r * stride + j * step]);
      const Element e = decode(bits[o], t);
      if (e.nan || e.inf) return false;
      // sig * 2^lsb, exact (at most 24 bits; 2^lsb is a normal double for every input type).
      const std::uint64_t pow2_bits = std::uint64_t(1023 + e.lsb) << 52;
      double pow2;
      std::memcpy(&pow2, &pow2_bits, sizeof pow2);
      const double magnitude = double(e.sig) * pow2;
      value[o] = e.neg ? -magnitude : magnitude;
      msb[o] = e.sig ? e.msb : -(1 << 20);
    }
  return true;
}

std::uint32_t fusedDotFinite(const FiniteElements& a, std::size_t a0, const FiniteElements& b, std::size_t b0, int k,
                             std::uint32_t c, MatElem acc, int align_bits) {
  const bool f16acc = acc == MatElem::F16;
  const Element z = decode(c, f16acc ? MatElem::F16 : MatElem::F32);
  if (z.nan || z.inf) {  // rare: the general path
    std::vector<Element> x(k), y(k);
    for (int i = 0; i < k; ++i) {
      x[i] = decode(a.bits[a0 + i], a.type);
      y[i] = decode(b.bits[b0 + i], b.type);
    }
    return fusedDot(x.data(), y.data(), 1, k, c, acc, align_bits);
  }
  const double* va = a.value.data() + a0;
  const double* vb = b.value.data() + b0;
  const std::int32_t* ma = a.msb.data() + a0;
  const std::int32_t* mb = b.msb.data() + b0;
  // A zero factor's msb is so low that its product never sets the top.
  int top = z.sig ? z.msb : -(1 << 22);
  for (int i = 0; i < k; ++i) top = std::max(top, ma[i] + mb[i]);
  if (top < -(1 << 19)) return 0;  // every term is zero
  // A term truncated toward zero below 2^(top - align_bits), in units of that: the product (exact
  // in a double: significands of at most 11 bits) times 2^(align_bits - top) (exact: the result
  // is at most 2^27 and at least 2^-600, far from a double's limits), converted toward zero.
  // The terms' sum is exact in 64 bits.
  std::uint64_t scale_bits = std::uint64_t(1023 + align_bits - top) << 52;
  double scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  // Four partial sums (k is a multiple of 4 in every shape) for the host's parallel units.
  std::int64_t part[4] = {0, 0, 0, 0};
  int i = 0;
  for (; i + 4 <= k; i += 4)
    for (int j = 0; j < 4; ++j) part[j] += std::int64_t(va[i + j] * vb[i + j] * scale);
  for (; i < k; ++i) part[0] += std::int64_t(va[i] * vb[i] * scale);
  std::int64_t sum = part[0] + part[1] + part[2] + part[3];
  if (z.sig) {
    const int shift = top - z.lsb;
    const std::uint64_t v = shift >= 64 ? 0 : (z.sig << align_bits) >> shift;
    sum += z.neg ? -std::int64_t(v) : std::int64_t(v);
  }
  return roundSum(sum, top - align_bits, f16acc);
}

}  // namespace scgpu::sm::mma
