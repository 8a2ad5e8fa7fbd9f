// ALU handlers: integer, bit, floating-point, half-precision, comparison, selection, conversion
// and move instructions. selectAluHandler picks, once at decode time, the handler instantiated
// for an instruction's op, type and modifiers; it returns nullptr for a combination that is not
// supported (the decoder reports that as a load-time error naming the instruction).
//
// Operand conventions are those of sm/exec/README.md; beyond them the handlers rely on:
//   bfe  d, a, pos, len         src = {a, pos, len}
//   bfi  f, a, b, pos, len      src = {a, b, pos, len} (nsrc 4)
//   prmt d, a, b, sel           src = {a, b, sel}, mode in aux
//   lop3 d, a, b, c, immLut     src = {a, b, c}, immLut in aux
//   shf  d, a(lo), b(hi), n     src = {a, b, n}; kLeft = .l, kClamp = .clamp (else .wrap)
//   mul/mad .wide               dst (and mad's c) are twice the width of `type`
//   bfind.shiftamt              kShiftAmountIsB32 (InstFlag has no .shiftamt bit)
//   dp4a/dp2a                   type = .atype, type2 = .btype; dp2a .hi = kHi (else .lo)
//   fns  d, mask, base, offset  src = {mask, base, offset}
//   min/max .relu (s32)         kRelu; float min/max .NaN: kNaN
//   div.full / .approx          kFull / kApprox (round None); div/rcp/sqrt IEEE forms use round
//   slct d, a, b, c             type = d/a/b type, type2 = c's type (.s32 or .f32)
//   cvt                         type = destination, type2 = source; .f16x2/.bf16x2 with
//                               nsrc 2 packs cvt(a) in the upper and cvt(b) in the lower half;
//                               float -> int with round None means .rzi; f32 -> tf32 uses
//                               type TF32 and round Rna/Rn/Rz
//   cvt.pack.sat.T.s32(.b32)    type = T (u16/s16/u8/s8), type2 = s32; src = {a, b[, c]}
//   testp                       dst[0] is a predicate slot, sub = Test*
//   mov                         nsrc > 1: pack src[0] (least significant) ... into dst[0];
//                               ndst > 1: unpack src[0] into dst[0] (least significant) ...;
//                               a kNoSlot element (sink `_`) is skipped
//   setp/set/selp/.pred logic   as README; a kNoSlot setp destination (sink `_`) is skipped
#pragma once

#include <cstdint>

#include "ptx/decoded.h"
#include "sm/exec_context.h"

namespace scgpu::sm {

ptx::ExecFn selectAluHandler(const ptx::DecodedInst& inst);

namespace alu {

// Per-family selectors (nullptr when the family does not handle the instruction).
ptx::ExecFn selectIntHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectFloatHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectHalfHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectCompareHandler(const ptx::DecodedInst& inst);
ptx::ExecFn selectConvertHandler(const ptx::DecodedInst& inst);

// fma.rn on the host's FMA unit (where it has FMA and AVX2; the default) or through libm (false),
// for the handlers selected from then on. For tests, which run both; returns whether the host's
// is in use. Not thread-safe.
bool useHostFma(bool on);

template <class T>
struct Tag {
  using type = T;
};

// Lane loops: read sources as their types, write the result zero-extended. Each reads its lane's
// sources before writing, so a destination may alias a source.
template <class D, class A, class F>
inline void map1(ExecContext& c, const ptx::DecodedInst& in, F&& f) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  forLanes(c.mask, [&](int l) { d[l] = bitsOf<D>(f(as<A>(a[l]))); });
}
// As map1, but a signed integer result is sign-extended to the whole 64-bit slot: a narrow
// signed cvt into a wider register reads back sign-extended at any width, as on the GPU
// (cvt.rzi.s8.f32 into a 32-bit register gives 0xFFFFFF80).
template <class D, class A, class F>
inline void map1Widen(ExecContext& c, const ptx::DecodedInst& in, F&& f) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  forLanes(c.mask, [&](int l) {
    const D v = f(as<A>(a[l]));
    if constexpr (std::is_signed_v<D>) d[l] = std::uint64_t(std::int64_t(v));
    else d[l] = bitsOf<D>(v);
  });
}
template <class D, class A, class B, class F>
inline void map2(ExecContext& c, const ptx::DecodedInst& in, F&& f) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  forLanes(c.mask, [&](int l) { d[l] = bitsOf<D>(f(as<A>(a[l]), as<B>(b[l]))); });
}
template <class D, class A, class B, class C, class F>
inline void map3(ExecContext& c, const ptx::DecodedInst& in, F&& f) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  const std::uint64_t* s = lanes(c, in.src[2]);
  forLanes(c.mask, [&](int l) { d[l] = bitsOf<D>(f(as<A>(a[l]), as<B>(b[l]), as<C>(s[l]))); });
}

// map2 and map3 for an operation whose last source is usually the same in every lane (a shift
// count, a permutation selector): for a full warp with such a source the lane loop takes it as one
// value, and the compiler vectorises what it cannot with a value per lane (SSE2 has no per-lane
// shift counts). The same results as map2/map3 (the value is read before any lane is written).
template <class D, class A, class B, class F>
inline void map2Uniform(ExecContext& c, const ptx::DecodedInst& in, F&& f) {
  const std::uint64_t* b = lanes(c, in.src[1]);
  if (c.mask != kFullMask || !sameInEveryLane(b)) return map2<D, A, B>(c, in, f);
  const B bv = as<B>(b[0]);
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  for (int l = 0; l < kWarpSize; ++l) d[l] = bitsOf<D>(f(as<A>(a[l]), bv));
}
template <class D, class A, class B, class C, class F>
inline void map3Uniform(ExecContext& c, const ptx::DecodedInst& in, F&& f) {
  const std::uint64_t* s = lanes(c, in.src[2]);
  if (c.mask != kFullMask || !sameInEveryLane(s)) return map3<D, A, B, C>(c, in, f);
  const C sv = as<C>(s[0]);
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  for (int l = 0; l < kWarpSize; ++l) d[l] = bitsOf<D>(f(as<A>(a[l]), as<B>(b[l]), sv));
}

// Writes the lanes of `value` selected by the execution mask into predicate slot `slot`.
inline void writePred(ExecContext& c, std::uint32_t slot, std::uint32_t value) {
  if (slot == ptx::kNoSlot) return;
  c.P[slot] = (c.P[slot] & ~c.mask) | (value & c.mask);
}

}  // namespace alu
}  // namespace scgpu::sm
