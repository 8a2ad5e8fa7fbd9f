// The arithmetic of matrix (tensor-core) instructions, bit for bit as the H100 computes it.
//
// Identified from the H100's outputs on random and adversarial register words
// (scripts/h100/mma_bits.cu, docs/data/h100_mma_bits.txt, checked by testbench/tensor_test.cpp):
// - f16, bf16 and tf32 inputs (tf32: the low 13 bits of each f32 word are ignored): one fused
//   sum of C and all K products of a row and a column. Products are exact; each term is aligned
//   to the largest term's exponent, taking a product's exponent as the sum of its factors'
//   exponents (its significand in [1, 4)), and truncated toward zero below 2^(max - 25); the exact
//   sum of the truncated terms is rounded toward zero to f32 (an f16 accumulator: to nearest even).
// - f64 (DMMA): one IEEE fused multiply-add per k, in k order, rounded to nearest even.
// - integers: exact, wrapping to 32 bits (.satfinite: clamped).
// - wgmma.mma_async (sm_90a) on e4m3/e5m2: one fused sum of C and the 32 products as above but
//   truncated 13 bits below the largest term (kWgmmaFp8AlignBits), rounded toward zero to f32 and
//   then to 13 fraction bits (an f16 accumulator: to nearest even), bit-exact against the GH100
//   (docs/data/h200_wgmma_bits.txt); its f16, bf16, tf32 and integer forms compute as mma.sync's.
// - mma.sync e4m3/e5m2 into f32 (sm_90 has no native 8-bit mma.sync): what ptxas makes of it
//   (SASS on an H200: F2FP.F16.E4M3.UNPACK_B, two HMMA.16816.F32, FADD): the f16 rule over the k
//   with k % 4 < 2 from a zero accumulator, the same over the other k accumulating that, then C
//   added in f32 rounded to nearest; bit-exact against the H100 (sm/exec/tensor.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/decoded.h"

namespace scgpu::sm::mma {

// The exponent below the largest term's at which fused sums truncate their terms.
constexpr int kAlignBits = 25;
// The same for wgmma's 8-bit float inputs (sm_90a's native FP8 tensor cores).
constexpr int kWgmmaFp8AlignBits = 13;

// An input element decoded once per instruction: a finite value sig * 2^lsb (sig 0: zero) with
// its top bit's exponent msb, or a NaN or infinity.
struct Element {
  std::uint64_t sig = 0;
  std::int32_t lsb = 0, msb = 0;
  bool neg = false, nan = false, inf = false;
};
// Raw bits of type F16, BF16, TF32, F32, E4M3 or E5M2.
Element decode(std::uint32_t bits, ptx::MatElem type);

// d = c + sum_i a[i] * b[i * b_stride] for i < k: c and the result f32 bits (acc F32) or f16 bits
// (acc F16); terms truncated `align_bits` below the largest.
std::uint32_t fusedDot(const Element* a, const Element* b, std::size_t b_stride, int k, std::uint32_t c,
                       ptx::MatElem acc, int align_bits = kAlignBits);
// Finite elements side by side, for the common case (no NaN or infinity among an instruction's
// inputs): each element's exact value as a double (every input type's values are doubles, and so
// is the product of two of them), its weight 2^msb (0 for a zero: a product's alignment exponent
// is the sum of its factors' msb, so the product of their weights is 2^that, exactly) and its
// raw bits (for the rare general path: a NaN or infinite accumulator).
struct FiniteElements {
  std::vector<double> value, weight;
  std::vector<std::uint64_t> raw;
  ptx::MatElem type = ptx::MatElem::None;
  bool finite = false;
  // Decodes raw[0 .. n) in order; false (and nothing usable) when one is a NaN or an infinity.
  // The same elements as the last call's are not decoded again: the four warps of a warpgroup
  // read the same B.
  bool assign(const std::uint64_t* raw, std::size_t n, ptx::MatElem type);
};
// The largest n of fusedDotRow (wgmma's m64n256).
constexpr int kMaxRowColumns = 256;
// One row of D, fusedDot for each of its n <= kMaxRowColumns columns: d[j] = c[j] + sum_kk
// a[a0 + kk] * b[(b_row0 + kk) * n + j] for kk < k (b stored row by row, n to a row, as PTX's K x N
// B), terms truncated `align_bits` (at most 28) below each column's largest term. c and d may be
// the same array.
void fusedDotRow(const FiniteElements& a, std::size_t a0, const FiniteElements& b, std::size_t b_row0, int n, int k,
                 const std::uint32_t* c, std::uint32_t* d, ptx::MatElem acc, int align_bits = kAlignBits);

// fusedDotRow's vectors: the host's widest (AVX2 where it has it; the default) or SSE2's (false).
// For tests, which run both; returns whether the wide ones are in use. Not thread-safe.
bool useWideVectors(bool on);

}  // namespace scgpu::sm::mma
