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

namespace {

double fromBits(std::uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
// 2^e, for e in a double's normal range.
double pow2(int e) { return fromBits(std::uint64_t(1023 + e) << 52); }

// fusedDot from the raw bits, for a column whose accumulator is a NaN or an infinity.
[[gnu::noinline]] std::uint32_t fusedDotGeneral(const FiniteElements& a, std::size_t a0, const FiniteElements& b,
                                                std::size_t b0, std::size_t b_stride, int k, std::uint32_t c,
                                                MatElem acc, int align_bits) {
  const std::size_t count = std::size_t(k);
  std::vector<Element> x(count), y(count);
  for (int i = 0; i < k; ++i) {
    x[std::size_t(i)] = decode(std::uint32_t(a.raw[a0 + std::size_t(i)]), a.type);
    y[std::size_t(i)] = decode(std::uint32_t(b.raw[b0 + std::size_t(i) * b_stride]), b.type);
  }
  return fusedDot(x.data(), y.data(), 1, k, c, acc, align_bits);
}

// The columns of one row of D (fusedDotRow), as arrays of doubles.
struct RowColumns {
  const double *wa, *va;             // A's row: weights, values (k)
  const double *wb, *vb;             // B's rows from the first: weights, values (k x stride)
  const double *c_weight, *c_value;  // C (n)
  double *top, *value;               // out (n): the largest weight, the fused sum's exact value
  float* f32;                        // out (n): the value toward zero as an f32 where that is normal, else 0
  std::size_t stride;
  int n, k;
  std::int64_t numerator;  // (2 x 1023 + align_bits) << 52: scale = 2^align_bits / top as bits
  double unit;             // 2^-align_bits: the truncation unit is top x unit
};

// 2^(align_bits - log2 top) for a power of two `top` (the exponent fields subtracted), 0 for 0.
double scaleOf(double top, std::int64_t numerator) {
  std::int64_t t;
  std::memcpy(&t, &top, sizeof t);
  const std::int64_t s = t ? numerator - t : 0;
  return fromBits(std::uint64_t(s));
}

// A double's exponent fields from 2^-126 to 2^127 (normal f32s), and the mask that cuts its
// fraction to f32's 23 bits toward zero (the result is then exact as an f32).
constexpr std::int64_t kF32NormalLow = 1023 - 126, kF32NormalHigh = 1023 + 127;
constexpr std::int64_t kF32Cut = ~((std::int64_t(1) << 29) - 1);

// One column: the largest weight, then each term in units of 2^(top - align_bits) truncated
// toward zero (through a 32-bit integer: |term| < 2^(align_bits + 2)) and summed, and the sum
// times the unit (exact: powers of two, far from a double's limits).
void rowColumn(const RowColumns& r, int j) {
  double t = r.c_weight[j];
  for (int kk = 0; kk < r.k; ++kk) t = std::max(t, r.wa[kk] * r.wb[std::size_t(kk) * r.stride + std::size_t(j)]);
  const double scale = scaleOf(t, r.numerator);
  double s = double(std::int32_t(r.c_value[j] * scale));
  for (int kk = 0; kk < r.k; ++kk)
    s += double(std::int32_t(r.va[kk] * r.vb[std::size_t(kk) * r.stride + std::size_t(j)] * scale));
  r.top[j] = t;
  r.value[j] = s * t * r.unit;
  std::uint64_t vb;
  std::memcpy(&vb, &r.value[j], sizeof vb);
  const std::uint64_t e = (vb >> 52) & 0x7FF;
  r.f32[j] = e >= kF32NormalLow && e <= kF32NormalHigh ? float(fromBits(vb & kF32Cut)) : 0.0f;
}

// rowColumn on 2 x W columns at once in vectors of W doubles V (GCC/Clang vector extensions;
// I: the same bits as integers, I32: W 32-bit integers, F: W floats), as long as whole groups fit; `done` is
// the columns done. A macro, not a template (GCC 12 refuses __builtin_convertvector on a
// template's vector types) nor helper functions (they would pass the vectors through memory where
// they are wider than the default target's registers), so that it compiles for the vector units of
// each function below.
#define SCGPU_ROW_COLUMNS_VECTOR(V, I, I32, F, W, r, done)                                             \
  for (done = 0; done + 2 * (W) <= (r).n; done += 2 * (W)) {                                       \
    V t0, t1, c0, c1, b0, b1;                                                                      \
    std::memcpy(&t0, (r).c_weight + done, sizeof t0);                                              \
    std::memcpy(&t1, (r).c_weight + done + (W), sizeof t1);                                        \
    for (int kk = 0; kk < (r).k; ++kk) {                                                           \
      const double* row = (r).wb + std::size_t(kk) * (r).stride + std::size_t(done);               \
      std::memcpy(&b0, row, sizeof b0);                                                            \
      std::memcpy(&b1, row + (W), sizeof b1);                                                      \
      const V p0 = (r).wa[kk] * b0, p1 = (r).wa[kk] * b1;                                          \
      t0 = t0 < p0 ? p0 : t0;                                                                      \
      t1 = t1 < p1 ? p1 : t1;                                                                      \
    }                                                                                              \
    /* The scale: 2^align_bits / top as bits (vector casts keep the bits), 0 where top is 0. */    \
    const V scale0 = (V)(((r).numerator - (I)t0) & ((I)t0 != 0));                                  \
    const V scale1 = (V)(((r).numerator - (I)t1) & ((I)t1 != 0));                                  \
    std::memcpy(&c0, (r).c_value + done, sizeof c0);                                               \
    std::memcpy(&c1, (r).c_value + done + (W), sizeof c1);                                         \
    /* Toward zero through 32-bit integers. */                                                     \
    V s0 = __builtin_convertvector(__builtin_convertvector(c0 * scale0, I32), V);                  \
    V s1 = __builtin_convertvector(__builtin_convertvector(c1 * scale1, I32), V);                  \
    for (int kk = 0; kk < (r).k; ++kk) {                                                           \
      const double* row = (r).vb + std::size_t(kk) * (r).stride + std::size_t(done);               \
      std::memcpy(&b0, row, sizeof b0);                                                            \
      std::memcpy(&b1, row + (W), sizeof b1);                                                      \
      s0 += __builtin_convertvector(__builtin_convertvector((r).va[kk] * b0 * scale0, I32), V);    \
      s1 += __builtin_convertvector(__builtin_convertvector((r).va[kk] * b1 * scale1, I32), V);    \
    }                                                                                              \
    std::memcpy((r).top + done, &t0, sizeof t0);                                                   \
    std::memcpy((r).top + done + (W), &t1, sizeof t1);                                             \
    s0 *= t0 * (r).unit;                                                                           \
    s1 *= t1 * (r).unit;                                                                           \
    std::memcpy((r).value + done, &s0, sizeof s0);                                                 \
    std::memcpy((r).value + done + (W), &s1, sizeof s1);                                           \
    /* As an f32 where that is normal (else 0): the fraction cut toward zero, then exact. */       \
    const I e0 = ((I)s0 >> 52) & 0x7FF, e1 = ((I)s1 >> 52) & 0x7FF;                                \
    const I keep0 = (e0 >= kF32NormalLow) & (e0 <= kF32NormalHigh) & kF32Cut;                      \
    const I keep1 = (e1 >= kF32NormalLow) & (e1 <= kF32NormalHigh) & kF32Cut;                      \
    const F f0 = __builtin_convertvector((V)((I)s0 & keep0), F);                                   \
    const F f1 = __builtin_convertvector((V)((I)s1 & keep1), F);                                   \
    std::memcpy((r).f32 + done, &f0, sizeof f0);                                                   \
    std::memcpy((r).f32 + done + (W), &f1, sizeof f1);                                             \
  }

// The vector widths: SSE2's two doubles everywhere on x86-64, AVX2's four where the host has it
// (chosen at run time, so that the build still runs on any x86-64); the results are the same.
// The 32-byte vectors live inside rowColumnsAvx2 only, so the warning that they would pass
// differently with and without AVX concerns no interface.
#pragma GCC diagnostic ignored "-Wpsabi"
int rowColumnsBase(const RowColumns& r) {
  typedef double V __attribute__((vector_size(16)));
  typedef std::int64_t I __attribute__((vector_size(16)));
  typedef std::int32_t I32 __attribute__((vector_size(8)));
  typedef float F __attribute__((vector_size(8)));
  int done;
  SCGPU_ROW_COLUMNS_VECTOR(V, I, I32, F, 2, r, done)
  return done;
}
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2")]] int rowColumnsAvx2(const RowColumns& r) {
  typedef double V __attribute__((vector_size(32)));
  typedef std::int64_t I __attribute__((vector_size(32)));
  typedef std::int32_t I32 __attribute__((vector_size(16)));
  typedef float F __attribute__((vector_size(16)));
  int done;
  SCGPU_ROW_COLUMNS_VECTOR(V, I, I32, F, 4, r, done)
  return done;
}
bool use_avx2 = __builtin_cpu_supports("avx2");
#endif
#undef SCGPU_ROW_COLUMNS_VECTOR
void rowColumns(const RowColumns& r) {
#if defined(__x86_64__) && defined(__GNUC__)
  int done = use_avx2 ? rowColumnsAvx2(r) : rowColumnsBase(r);
#else
  int done = rowColumnsBase(r);
#endif
  for (; done < r.n; ++done) rowColumn(r, done);
}

// A normal double's top bit's weight 2^msb (its exponent field alone), 0 for a zero.
double weightOf(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return fromBits(b & 0x7FF0000000000000ull);
}

}  // namespace

bool useWideVectors(bool on) {
#if defined(__x86_64__) && defined(__GNUC__)
  use_avx2 = on && __builtin_cpu_supports("avx2");
  return use_avx2;
#else
  return false;
#endif
}

bool FiniteElements::assign(const std::uint64_t* in, std::size_t n, MatElem t) {
  if (t == type && n == raw.size() && std::memcmp(in, raw.data(), n * sizeof *in) == 0) return finite;
  type = t;
  raw.assign(in, in + n);
  value.resize(n);
  weight.resize(n);
  finite = false;
  // Each element's exact value (at most 11 significant bits; every one a normal double); the
  // 16- and 19-bit types straight from their fields, the others through decode.
  const auto f32Value = [](std::uint32_t f) {
    float v;
    std::memcpy(&v, &f, sizeof v);
    return double(v);
  };
  // One loop per type (the type's test out of the loop).
  const auto each = [&](auto&& valueOf) {
    for (std::size_t o = 0; o < n; ++o) {
      double v;
      if (!valueOf(std::uint32_t(raw[o]), v)) return false;
      value[o] = v;
      weight[o] = weightOf(v);
    }
    return finite = true;
  };
  switch (t) {
    case MatElem::F16:
      return each([](std::uint32_t x, double& v) {
        const std::uint32_t e = (x >> 10) & 0x1F, f = x & 0x3FF;
        const double mag = e ? fromBits(std::uint64_t(e + 1023 - 15) << 52 | std::uint64_t(f) << 42) : double(f) * pow2(-24);
        v = (x & 0x8000) ? -mag : mag;
        return e != 0x1F;
      });
    case MatElem::BF16:
      return each([&](std::uint32_t x, double& v) {
        v = f32Value((x & 0xFFFF) << 16);
        return (x & 0x7F80) != 0x7F80;
      });
    case MatElem::TF32:  // the low 13 bits are ignored
      return each([&](std::uint32_t x, double& v) {
        v = f32Value(x & ~0x1FFFu);
        return (x & 0x7F800000u) != 0x7F800000u;
      });
    default:
      return each([t](std::uint32_t x, double& v) {
        const Element e = decode(x, t);
        const double mag = double(e.sig) * pow2(e.lsb);
        v = e.neg ? -mag : mag;
        return !e.nan && !e.inf;
      });
  }
}

void fusedDotRow(const FiniteElements& a, std::size_t a0, const FiniteElements& b, std::size_t b_row0, int n, int k,
                 const std::uint32_t* c, std::uint32_t* d, MatElem acc, int align_bits) {
  // Per column: the largest term's weight `top` (2^(its msb); a product's, the product of its
  // factors' weights: exact powers of two), then each term in units of 2^(top - align_bits)
  // truncated toward zero, summed (rowColumns); then the sum rounded.
  const bool f16acc = acc == MatElem::F16;
  alignas(32) double c_value[kMaxRowColumns], c_weight[kMaxRowColumns], top[kMaxRowColumns], value[kMaxRowColumns];
  float f32[kMaxRowColumns];
  bool special = false;  // a NaN or infinite accumulator: its column takes the general path
  for (int j = 0; j < n; ++j) {
    double v;
    if (f16acc) {
      const Element z = decode(c[j], MatElem::F16);
      special |= z.nan || z.inf;
      v = z.nan || z.inf ? 0.0 : (z.neg ? -1.0 : 1.0) * double(z.sig) * pow2(z.lsb);
    } else {
      float f;
      std::memcpy(&f, &c[j], sizeof f);
      special |= (c[j] & 0x7F800000u) == 0x7F800000u;
      v = (c[j] & 0x7F800000u) == 0x7F800000u ? 0.0 : double(f);
    }
    c_value[j] = v;
    c_weight[j] = weightOf(v);
  }
  const std::size_t stride = std::size_t(n);
  RowColumns r;
  r.wa = a.weight.data() + a0;
  r.va = a.value.data() + a0;
  r.wb = b.weight.data() + b_row0 * stride;
  r.vb = b.value.data() + b_row0 * stride;
  r.c_weight = c_weight;
  r.c_value = c_value;
  r.top = top;
  r.value = value;
  r.f32 = f32;
  r.stride = stride;
  r.n = n;
  r.k = k;
  r.numerator = std::int64_t(2 * 1023 + align_bits) << 52;
  r.unit = pow2(-align_bits);
  // A term: the product (exact: significands of at most 11 bits) times the scale (exact: a power
  // of two, and the result lies below 2^(align_bits + 2) <= 2^30 and, when not zero, above
  // 2^-600), truncated through a 32-bit integer. C (at most 24 significant bits) is one more term.
  // The sums of these integers are exact in a double (below 2^53).
  rowColumns(r);
  for (int j = 0; j < n; ++j) {
    if (special && (f16acc ? (c[j] & 0x7C00u) == 0x7C00u : (c[j] & 0x7F800000u) == 0x7F800000u)) {
      d[j] = fusedDotGeneral(a, a0, b, b_row0 * stride + std::size_t(j), stride, k, c[j], acc, align_bits);
      continue;
    }
    if (!f16acc && f32[j] != 0.0f) {  // most: rowColumns rounded it
      std::memcpy(&d[j], &f32[j], sizeof d[j]);
      continue;
    }
    if (top[j] == 0.0) {  // every term is zero
      d[j] = 0;
      continue;
    }
    // The sum of the truncated terms again (exact: a power of two divides it) and its unit.
    std::uint64_t tb;
    std::memcpy(&tb, &top[j], sizeof tb);
    const int q = int(tb >> 52) - 1023 - align_bits;
    d[j] = roundSum(std::int64_t(value[j] / (top[j] * r.unit)), q, f16acc);
  }
}

}  // namespace scgpu::sm::mma
