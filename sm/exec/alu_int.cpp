// Integer and bit instructions: add/sub (.sat, .cc, addc/subc), mul/mad (.lo/.hi/.wide, .sat,
// .cc, madc), mul24/mad24, sad, div/rem, abs/neg, min/max (.relu), popc/clz/bfind/brev,
// bfe/bfi/prmt/lop3, shf/shl/shr, and/or/xor/not/cnot (also on .pred), dp4a/dp2a, fns.
//
// Every handler is a template instantiated per type and modifier; the lane loop has no switch.
// All arithmetic that may wrap is done in unsigned types, so no C++ undefined behaviour arises
// from overflow, INT_MIN / -1 or shift counts >= the width.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "sm/exec/alu.h"

namespace scgpu::sm::alu {
namespace {

using ptx::DecodedInst;
using ptx::ExecFn;
using ptx::InstFlag;
using ptx::Op;
using ptx::Type;

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

template <class T>
using U = std::make_unsigned_t<T>;
// An unsigned type at least as wide as int, so that arithmetic never promotes to signed int.
template <class T>
using UA = std::conditional_t<(sizeof(T) < 4), std::uint32_t, U<T>>;

template <class T> struct WideOf;
template <> struct WideOf<std::int16_t> { using type = std::int32_t; };
template <> struct WideOf<std::uint16_t> { using type = std::uint32_t; };
template <> struct WideOf<std::int32_t> { using type = std::int64_t; };
template <> struct WideOf<std::uint32_t> { using type = std::uint64_t; };
template <> struct WideOf<std::int64_t> { using type = i128; };
template <> struct WideOf<std::uint64_t> { using type = u128; };
template <class T>
using Wide = typename WideOf<T>::type;

template <class T>
constexpr int kBits = int(sizeof(T) * 8);

template <class T>
inline T wrapAdd(T a, T b) { return T(UA<T>(a) + UA<T>(b)); }
template <class T>
inline T wrapSub(T a, T b) { return T(UA<T>(a) - UA<T>(b)); }
template <class T>
inline T wrapMul(T a, T b) { return T(UA<T>(a) * UA<T>(b)); }
template <class T>
inline T mulHi(T a, T b) {
  using W = Wide<T>;
  return T((W(a) * W(b)) >> kBits<T>);
}

// x + y + cin with carry-out; x - y - bin with borrow-out (32- and 64-bit types).
template <class T>
inline T addCarry(T x, T y, unsigned cin, unsigned& cout) {
  const U<T> ux = U<T>(x), uy = U<T>(y);
  const U<T> r = U<T>(ux + uy);
  const U<T> r2 = U<T>(r + cin);
  cout = unsigned(r < ux) | unsigned(r2 < r);
  return T(r2);
}
template <class T>
inline T subBorrow(T x, T y, unsigned bin, unsigned& bout) {
  const U<T> ux = U<T>(x), uy = U<T>(y);
  const U<T> r = U<T>(ux - uy);
  const U<T> r2 = U<T>(r - bin);
  bout = unsigned(ux < uy) | unsigned(r < bin);
  return T(r2);
}

inline std::int32_t sat32(std::int64_t v) {
  return v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : std::int32_t(v));
}

// Type dispatch helpers: call f(Tag<T>{}) for the C++ type of a PTX type.
template <class F>
ExecFn byIntType(Type t, F&& f) {
  switch (t) {
    case Type::U16: return f(Tag<std::uint16_t>{});
    case Type::U32: return f(Tag<std::uint32_t>{});
    case Type::U64: return f(Tag<std::uint64_t>{});
    case Type::S16: return f(Tag<std::int16_t>{});
    case Type::S32: return f(Tag<std::int32_t>{});
    case Type::S64: return f(Tag<std::int64_t>{});
    default: return nullptr;
  }
}
template <class F>
ExecFn byWideableType(Type t, F&& f) {  // 16- and 32-bit (mul.wide, mad.wide)
  switch (t) {
    case Type::U16: return f(Tag<std::uint16_t>{});
    case Type::U32: return f(Tag<std::uint32_t>{});
    case Type::S16: return f(Tag<std::int16_t>{});
    case Type::S32: return f(Tag<std::int32_t>{});
    default: return nullptr;
  }
}
template <class F>
ExecFn byBitType(Type t, F&& f) {  // b16/b32/b64 and same-width u/s: treated as unsigned bits
  switch (t) {
    case Type::B16: case Type::U16: case Type::S16: return f(Tag<std::uint16_t>{});
    case Type::B32: case Type::U32: case Type::S32: return f(Tag<std::uint32_t>{});
    case Type::B64: case Type::U64: case Type::S64: return f(Tag<std::uint64_t>{});
    default: return nullptr;
  }
}
template <class F>
ExecFn by3264Type(Type t, F&& f) {  // 32/64-bit integer, signedness kept
  switch (t) {
    case Type::U32: return f(Tag<std::uint32_t>{});
    case Type::U64: return f(Tag<std::uint64_t>{});
    case Type::S32: return f(Tag<std::int32_t>{});
    case Type::S64: return f(Tag<std::int64_t>{});
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// add / sub

template <class T, bool Sub>
void addSub(ExecContext& c, const DecodedInst& in) {
  map2<T, T, T>(c, in, [](T a, T b) { return Sub ? wrapSub(a, b) : wrapAdd(a, b); });
}

template <bool Sub>
void addSubSatS32(ExecContext& c, const DecodedInst& in) {
  map2<std::int32_t, std::int32_t, std::int32_t>(c, in, [](std::int32_t a, std::int32_t b) {
    return sat32(Sub ? std::int64_t(a) - b : std::int64_t(a) + b);
  });
}

// add.cc / addc(.cc) / sub.cc / subc(.cc): carry (borrow for sub) in the register slot aux.
template <class T, bool Sub, bool CIn, bool COut>
void addSubCc(ExecContext& c, const DecodedInst& in) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  std::uint64_t* cc = lanes(c, in.aux);
  forLanes(c.mask, [&](int l) {
    const unsigned cin = CIn ? unsigned(cc[l] & 1) : 0u;
    unsigned cout;
    const T r = Sub ? subBorrow(as<T>(a[l]), as<T>(b[l]), cin, cout)
                    : addCarry(as<T>(a[l]), as<T>(b[l]), cin, cout);
    d[l] = bitsOf<T>(r);
    if (COut) cc[l] = cout;
  });
}

// ---------------------------------------------------------------------------------------------
// mul / mad

enum class MulMode { Lo, Hi, Wide };

template <class T, MulMode M>
void mul(ExecContext& c, const DecodedInst& in) {
  if constexpr (M == MulMode::Lo) {
    map2<T, T, T>(c, in, [](T a, T b) { return wrapMul(a, b); });
  } else if constexpr (M == MulMode::Hi) {
    map2<T, T, T>(c, in, [](T a, T b) { return mulHi(a, b); });
  } else {
    using W = Wide<T>;
    map2<W, T, T>(c, in, [](T a, T b) { return W(W(a) * W(b)); });
  }
}

template <class T, MulMode M>
inline T mulPart(T a, T b) {
  if constexpr (M == MulMode::Lo) return wrapMul(a, b);
  else return mulHi(a, b);
}

// mad.lo / mad.hi (wrapping), mad.hi.sat.s32.
template <class T, MulMode M, bool Sat>
void mad(ExecContext& c, const DecodedInst& in) {
  if constexpr (M == MulMode::Wide) {
    using W = Wide<T>;
    map3<W, T, T, W>(c, in, [](T a, T b, W s) { return wrapAdd(W(W(a) * W(b)), s); });
  } else if constexpr (Sat) {
    map3<T, T, T, T>(c, in, [](T a, T b, T s) {
      return T(sat32(std::int64_t(mulPart<T, M>(a, b)) + std::int64_t(s)));
    });
  } else {
    map3<T, T, T, T>(c, in, [](T a, T b, T s) { return wrapAdd(mulPart<T, M>(a, b), s); });
  }
}

// mad.cc / madc(.cc) for .lo and .hi.
template <class T, MulMode M, bool CIn, bool COut>
void madCc(ExecContext& c, const DecodedInst& in) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  const std::uint64_t* s = lanes(c, in.src[2]);
  std::uint64_t* cc = lanes(c, in.aux);
  forLanes(c.mask, [&](int l) {
    const unsigned cin = CIn ? unsigned(cc[l] & 1) : 0u;
    unsigned cout;
    const T r = addCarry(mulPart<T, M>(as<T>(a[l]), as<T>(b[l])), as<T>(s[l]), cin, cout);
    d[l] = bitsOf<T>(r);
    if (COut) cc[l] = cout;
  });
}

// mul24 / mad24: 24-bit operands (low bits, sign-extended for .s32), 48-bit product; .lo keeps
// bits 31..0, .hi bits 47..16.
template <bool Signed>
inline std::int64_t ext24(std::uint32_t v) {
  if constexpr (Signed) return std::int64_t(std::int32_t(v << 8) >> 8);
  else return std::int64_t(v & 0xFFFFFFu);
}
template <bool Signed, bool Hi>
inline std::uint32_t mul24(std::uint32_t a, std::uint32_t b) {
  const std::int64_t p = ext24<Signed>(a) * ext24<Signed>(b);
  return Hi ? std::uint32_t(std::uint64_t(p) >> 16) : std::uint32_t(p);
}
template <bool Signed, bool Hi>
void mul24H(ExecContext& c, const DecodedInst& in) {
  map2<std::uint32_t, std::uint32_t, std::uint32_t>(c, in, [](std::uint32_t a, std::uint32_t b) {
    return mul24<Signed, Hi>(a, b);
  });
}
template <bool Signed, bool Hi, bool Sat>
void mad24H(ExecContext& c, const DecodedInst& in) {
  map3<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>(
      c, in, [](std::uint32_t a, std::uint32_t b, std::uint32_t s) {
        const std::uint32_t t = mul24<Signed, Hi>(a, b);
        if constexpr (Sat) return std::uint32_t(sat32(std::int64_t(std::int32_t(t)) + std::int32_t(s)));
        else return t + s;
      });
}

// ---------------------------------------------------------------------------------------------
// sad, div, rem, abs, neg, min, max

template <class T>
void sad(ExecContext& c, const DecodedInst& in) {
  map3<T, T, T, T>(c, in, [](T a, T b, T s) {
    const UA<T> diff = a < b ? UA<T>(UA<T>(b) - UA<T>(a)) : UA<T>(UA<T>(a) - UA<T>(b));
    return T(UA<T>(s) + diff);
  });
}

// Division or remainder by zero gives all ones (-1 for signed), as measured on the GPU for every
// width and signedness; MIN / -1 wraps to MIN with remainder 0.
template <class T, bool Rem>
void divRem(ExecContext& c, const DecodedInst& in) {
  map2<T, T, T>(c, in, [](T a, T b) -> T {
    if (b == 0) return T(~U<T>(0));
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return Rem ? T(0) : T(UA<T>(0) - UA<T>(a));
    }
    return Rem ? T(a % b) : T(a / b);
  });
}

template <class T, bool Neg>
void absNeg(ExecContext& c, const DecodedInst& in) {
  map1<T, T>(c, in, [](T a) {
    if constexpr (Neg) return T(UA<T>(0) - UA<T>(a));
    else return a < 0 ? T(UA<T>(0) - UA<T>(a)) : a;
  });
}

template <class T, bool Max, bool Relu>
void minMax(ExecContext& c, const DecodedInst& in) {
  map2<T, T, T>(c, in, [](T a, T b) {
    T r = Max ? (a > b ? a : b) : (a < b ? a : b);
    if constexpr (Relu) r = r < 0 ? T(0) : r;
    return r;
  });
}

// ---------------------------------------------------------------------------------------------
// popc, clz, bfind, brev

template <class T>
void popc(ExecContext& c, const DecodedInst& in) {
  map1<std::uint32_t, T>(c, in, [](T a) {
    return popCount(std::uint64_t(std::make_unsigned_t<T>(a)));
  });
}

template <class T>
void clz(ExecContext& c, const DecodedInst& in) {
  map1<std::uint32_t, T>(c, in, [](T a) {
    if (a == 0) return std::uint32_t(kBits<T>);
    if constexpr (sizeof(T) == 8) return std::uint32_t(__builtin_clzll(a));
    else return std::uint32_t(__builtin_clz(a));
  });
}

template <class T, bool ShiftAmt>
void bfind(ExecContext& c, const DecodedInst& in) {
  map1<std::uint32_t, T>(c, in, [](T a) {
    U<T> v = U<T>(a);
    if constexpr (std::is_signed_v<T>) {
      if (a < 0) v = U<T>(~v);
    }
    if (v == 0) return 0xFFFFFFFFu;
    std::uint32_t pos;
    if constexpr (sizeof(T) == 8) pos = 63u - std::uint32_t(__builtin_clzll(v));
    else pos = 31u - std::uint32_t(__builtin_clz(v));
    return ShiftAmt ? std::uint32_t(kBits<T> - 1) - pos : pos;
  });
}

// Swaps ever larger groups of bits in shifts and masks only (no byte swap instruction, which
// SSE2 has no vector form of): the lane loop vectorises.
template <class T>
inline T brevBits(T v) {
  constexpr T k1 = T(0x5555555555555555ull), k2 = T(0x3333333333333333ull), k4 = T(0x0F0F0F0F0F0F0F0Full);
  constexpr T k8 = T(0x00FF00FF00FF00FFull), k16 = T(0x0000FFFF0000FFFFull);
  v = T(((v >> 1) & k1) | ((v & k1) << 1));
  v = T(((v >> 2) & k2) | ((v & k2) << 2));
  v = T(((v >> 4) & k4) | ((v & k4) << 4));
  v = T(((v >> 8) & k8) | ((v & k8) << 8));
  if constexpr (sizeof(T) == 4) {
    return T((v >> 16) | (v << 16));
  } else {
    v = T(((v >> 16) & k16) | ((v & k16) << 16));
    return T((v >> 32) | (v << 32));
  }
}
template <class T>
void brev(ExecContext& c, const DecodedInst& in) {
  map1<T, T>(c, in, [](T a) { return brevBits(a); });
}

// ---------------------------------------------------------------------------------------------
// bfe, bfi, prmt, lop3

// bfe/bfi: position and length are the low 8 bits of their operands for 32-bit types; for 64-bit
// types the GPU (measured on sm_90) uses the whole 32-bit values (a position of 0x104 is out of
// range, not 4), which the same code expresses by not masking.
template <class T>
inline std::uint32_t fieldArg(std::uint32_t v) {
  return sizeof(T) == 8 ? v : (v & 0xFFu);
}

template <class T>
void bfe(ExecContext& c, const DecodedInst& in) {
  map3<T, T, std::uint32_t, std::uint32_t>(c, in, [](T a, std::uint32_t b, std::uint32_t cl) -> T {
    constexpr std::uint32_t W = kBits<T>;
    const std::uint32_t pos = fieldArg<T>(b), len = fieldArg<T>(cl);
    if (len == 0) return T(0);
    const U<T> ua = U<T>(a);
    const std::uint32_t avail = pos >= W ? 0u : W - pos;
    const std::uint32_t n = len < avail ? len : avail;
    const U<T> mask = n >= W ? U<T>(~U<T>(0)) : U<T>((U<T>(1) << n) - 1);
    const U<T> field = pos >= W ? U<T>(0) : U<T>(ua >> pos);
    U<T> r = U<T>(field & mask);
    if constexpr (std::is_signed_v<T>) {
      const std::uint64_t last = std::uint64_t(pos) + len - 1;
      const std::uint32_t top = last < W - 1 ? std::uint32_t(last) : W - 1;
      if ((ua >> top) & 1) r = U<T>(r | ~mask);
    }
    return T(r);
  });
}

template <class T>
void bfi(ExecContext& c, const DecodedInst& in) {
  std::uint64_t* d = lanes(c, in.dst[0]);
  const std::uint64_t* a = lanes(c, in.src[0]);
  const std::uint64_t* b = lanes(c, in.src[1]);
  const std::uint64_t* p = lanes(c, in.src[2]);
  const std::uint64_t* n = lanes(c, in.src[3]);
  forLanes(c.mask, [&](int l) {
    constexpr std::uint32_t W = kBits<T>;
    const std::uint32_t pos = fieldArg<T>(std::uint32_t(p[l])), len = fieldArg<T>(std::uint32_t(n[l]));
    const T bv = as<T>(b[l]);
    if (pos >= W || len == 0) {
      d[l] = bitsOf<T>(bv);
      return;
    }
    const std::uint32_t k = len < W - pos ? len : W - pos;
    const T mask = T((k >= W ? T(~T(0)) : T((T(1) << k) - 1)) << pos);
    d[l] = bitsOf<T>(T((bv & ~mask) | (T(as<T>(a[l]) << pos) & mask)));
  });
}

// prmt modes (aux): 0 default, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16.
template <int Mode>
inline std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
  const std::uint64_t x = (std::uint64_t(b) << 32) | a;
  auto byteAt = [&](unsigned i) { return std::uint32_t(x >> ((i & 7u) * 8)) & 0xFFu; };
  std::uint32_t r = 0;
  if constexpr (Mode == 0) {
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned s = (sel >> (4 * i)) & 0xFu;
      std::uint32_t v = byteAt(s);
      if (s & 8u) v = (v & 0x80u) ? 0xFFu : 0u;
      r |= v << (8 * i);
    }
  } else {
    const unsigned s = sel & 3u;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned k;
      if constexpr (Mode == 1) k = s + i;
      else if constexpr (Mode == 2) k = (s - i) & 7u;
      else if constexpr (Mode == 3) k = s;
      else if constexpr (Mode == 4) k = i > s ? i : s;
      else if constexpr (Mode == 5) k = i < s ? i : s;
      else k = ((s & 1u) << 1) | (i & 1u);
      r |= byteAt(k) << (8 * i);
    }
  }
  return r;
}
template <int Mode>
void prmtH(ExecContext& c, const DecodedInst& in) {
  map3Uniform<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>(
      c, in, [](std::uint32_t a, std::uint32_t b, std::uint32_t s) { return prmt<Mode>(a, b, s); });
}

// lop3: bit i of immLut is the result for (a, b, c) = (i>>2 & 1, i>>1 & 1, i & 1).
template <class T>
void lop3(ExecContext& c, const DecodedInst& in) {
  T m[8];
  for (unsigned i = 0; i < 8; ++i) m[i] = ((in.aux >> i) & 1u) ? T(~T(0)) : T(0);
  map3<T, T, T, T>(c, in, [&](T a, T b, T s) {
    const T na = T(~a), nb = T(~b), ns = T(~s);
    return T((m[0] & na & nb & ns) | (m[1] & na & nb & s) | (m[2] & na & b & ns) |
             (m[3] & na & b & s) | (m[4] & a & nb & ns) | (m[5] & a & nb & s) |
             (m[6] & a & b & ns) | (m[7] & a & b & s));
  });
}

// ---------------------------------------------------------------------------------------------
// shf, shl, shr

// shf.l: upper 32 bits of ({b,a} << n); shf.r: lower 32 bits of ({b,a} >> n) (arithmetic for
// .s32). .clamp: n = min(c, 32); .wrap: n = c & 31.
template <bool Left, bool Clamp, bool SignedRight>
void shf(ExecContext& c, const DecodedInst& in) {
  map3<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>(
      c, in, [](std::uint32_t a, std::uint32_t b, std::uint32_t cnt) {
        const unsigned n = Clamp ? (cnt < 32u ? cnt : 32u) : (cnt & 31u);
        const std::uint64_t x = (std::uint64_t(b) << 32) | a;
        if constexpr (Left) return std::uint32_t((x << n) >> 32);
        else if constexpr (SignedRight) return std::uint32_t(std::int64_t(x) >> n);
        else return std::uint32_t(x >> n);
      });
}

// The shift amount is a .u32 for every width; amounts >= the width give 0 (shl, shr.u/.b) or
// the sign fill (shr.s).
template <class T>
void shl(ExecContext& c, const DecodedInst& in) {
  map2Uniform<T, T, std::uint32_t>(c, in, [](T a, std::uint32_t n) {
    return n >= unsigned(kBits<T>) ? T(0) : T(UA<T>(a) << n);
  });
}
template <class T>
void shr(ExecContext& c, const DecodedInst& in) {
  map2Uniform<T, T, std::uint32_t>(c, in, [](T a, std::uint32_t n) {
    if constexpr (std::is_signed_v<T>) {
      return T(a >> (n < unsigned(kBits<T> - 1) ? n : unsigned(kBits<T> - 1)));
    } else {
      return n >= unsigned(kBits<T>) ? T(0) : T(UA<T>(a) >> n);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// and, or, xor, not, cnot

enum class Logic { And, Or, Xor };

template <class T, Logic L>
void logic(ExecContext& c, const DecodedInst& in) {
  map2<T, T, T>(c, in, [](T a, T b) {
    if constexpr (L == Logic::And) return T(a & b);
    else if constexpr (L == Logic::Or) return T(a | b);
    else return T(a ^ b);
  });
}
template <class T>
void notH(ExecContext& c, const DecodedInst& in) {
  map1<T, T>(c, in, [](T a) { return T(~a); });
}
template <class T>
void cnot(ExecContext& c, const DecodedInst& in) {
  map1<T, T>(c, in, [](T a) { return T(a == 0 ? 1 : 0); });
}

// On .pred the operands are whole lane masks: one word operation per warp.
template <Logic L>
void logicPred(ExecContext& c, const DecodedInst& in) {
  const std::uint32_t a = c.P[in.src[0]] ^ ((in.flags & ptx::kNegPredSrc0) ? ~0u : 0u);
  const std::uint32_t b = c.P[in.src[1]] ^ ((in.flags & ptx::kNegPredSrc1) ? ~0u : 0u);
  std::uint32_t r;
  if constexpr (L == Logic::And) r = a & b;
  else if constexpr (L == Logic::Or) r = a | b;
  else r = a ^ b;
  writePred(c, in.dst[0], r);
}
void notPred(ExecContext& c, const DecodedInst& in) {
  const std::uint32_t a = c.P[in.src[0]] ^ ((in.flags & ptx::kNegPredSrc0) ? ~0u : 0u);
  writePred(c, in.dst[0], ~a);
}

// ---------------------------------------------------------------------------------------------
// dp4a, dp2a, fns

template <bool Signed>
inline std::int32_t extByte(std::uint32_t v, unsigned i) {
  return Signed ? std::int32_t(std::int8_t(std::uint8_t(v >> (8 * i))))
                : std::int32_t(std::uint8_t(v >> (8 * i)));
}
template <bool Signed>
inline std::int32_t extHalf(std::uint32_t v, unsigned i) {
  return Signed ? std::int32_t(std::int16_t(std::uint16_t(v >> (16 * i))))
                : std::int32_t(std::uint16_t(v >> (16 * i)));
}

template <bool SA, bool SB>
void dp4a(ExecContext& c, const DecodedInst& in) {
  map3<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>(
      c, in, [](std::uint32_t a, std::uint32_t b, std::uint32_t s) {
        std::uint32_t r = s;
        for (unsigned i = 0; i < 4; ++i)
          r += std::uint32_t(extByte<SA>(a, i) * extByte<SB>(b, i));
        return r;
      });
}
template <bool SA, bool SB, bool Hi>
void dp2a(ExecContext& c, const DecodedInst& in) {
  map3<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>(
      c, in, [](std::uint32_t a, std::uint32_t b, std::uint32_t s) {
        const unsigned base = Hi ? 2u : 0u;
        std::uint32_t r = s;
        for (unsigned i = 0; i < 2; ++i)
          r += std::uint32_t(extHalf<SA>(a, i) * extByte<SB>(b, base + i));
        return r;
      });
}

// fns.b32 d, mask, base, offset: position of the |offset|-th set bit of mask counting from base
// upwards (offset > 0) or downwards (offset < 0); offset 0 tests bit base; 0xFFFFFFFF if none.
void fns(ExecContext& c, const DecodedInst& in) {
  map3<std::uint32_t, std::uint32_t, std::uint32_t, std::int32_t>(
      c, in, [](std::uint32_t mask, std::uint32_t base, std::int32_t offset) {
        // Measured on sm_90: an offset of INT_MIN gives 0; a base above 31 (undefined in the ISA)
        // finds nothing.
        if (offset == INT32_MIN) return 0u;
        if (base > 31u) return 0xFFFFFFFFu;
        if (offset == 0) return ((mask >> base) & 1u) ? base : 0xFFFFFFFFu;
        std::uint32_t count = offset > 0 ? std::uint32_t(offset) : std::uint32_t(0) - std::uint32_t(offset);
        std::uint32_t m = offset > 0 ? (mask & (~0u << base)) : (mask & (0xFFFFFFFFu >> (31u - base)));
        if (std::uint32_t(__builtin_popcount(m)) < count) return 0xFFFFFFFFu;
        if (offset > 0) {
          for (std::uint32_t k = 1; k < count; ++k) m &= m - 1;  // drop the lowest set bits
          return std::uint32_t(__builtin_ctz(m));
        }
        for (std::uint32_t k = 1; k < count; ++k) m &= ~(0x80000000u >> __builtin_clz(m));
        return 31u - std::uint32_t(__builtin_clz(m));
      });
}

// ---------------------------------------------------------------------------------------------
// Selection

ExecFn selectAddSub(const DecodedInst& in, bool sub) {
  const bool cin = in.flags & ptx::kCcIn, cout = in.flags & ptx::kCcOut;
  if (cin || cout) {
    if (in.flags & ptx::kSat) return nullptr;
    auto pick = [&](auto tag) -> ExecFn {
      using T = U<typename decltype(tag)::type>;
      if (sub) {
        if (cin) return cout ? &addSubCc<T, true, true, true> : &addSubCc<T, true, true, false>;
        return &addSubCc<T, true, false, true>;
      }
      if (cin) return cout ? &addSubCc<T, false, true, true> : &addSubCc<T, false, true, false>;
      return &addSubCc<T, false, false, true>;
    };
    return by3264Type(in.type, pick);
  }
  if (in.flags & ptx::kSat) {
    if (in.type != Type::S32) return nullptr;
    return sub ? &addSubSatS32<true> : &addSubSatS32<false>;
  }
  return byIntType(in.type, [&](auto tag) -> ExecFn {
    using T = typename decltype(tag)::type;
    return sub ? &addSub<T, true> : &addSub<T, false>;
  });
}

ExecFn selectMul(const DecodedInst& in) {
  if (in.flags & ptx::kWide) {
    return byWideableType(in.type, [](auto tag) -> ExecFn {
      return &mul<typename decltype(tag)::type, MulMode::Wide>;
    });
  }
  const bool hi = in.flags & ptx::kHi;
  return byIntType(in.type, [&](auto tag) -> ExecFn {
    using T = typename decltype(tag)::type;
    return hi ? &mul<T, MulMode::Hi> : &mul<T, MulMode::Lo>;
  });
}

ExecFn selectMad(const DecodedInst& in) {
  const bool cin = in.flags & ptx::kCcIn, cout = in.flags & ptx::kCcOut;
  const bool hi = in.flags & ptx::kHi, sat = in.flags & ptx::kSat;
  if (in.flags & ptx::kWide) {
    if (cin || cout || sat) return nullptr;
    return byWideableType(in.type, [](auto tag) -> ExecFn {
      return &mad<typename decltype(tag)::type, MulMode::Wide, false>;
    });
  }
  if (cin || cout) {
    if (sat) return nullptr;
    return by3264Type(in.type, [&](auto tag) -> ExecFn {
      using T = typename decltype(tag)::type;
      if (hi) {
        if (cin) return cout ? &madCc<T, MulMode::Hi, true, true> : &madCc<T, MulMode::Hi, true, false>;
        return &madCc<T, MulMode::Hi, false, true>;
      }
      if (cin) return cout ? &madCc<T, MulMode::Lo, true, true> : &madCc<T, MulMode::Lo, true, false>;
      return &madCc<T, MulMode::Lo, false, true>;
    });
  }
  if (sat) {
    if (!hi || in.type != Type::S32) return nullptr;
    return &mad<std::int32_t, MulMode::Hi, true>;
  }
  return byIntType(in.type, [&](auto tag) -> ExecFn {
    using T = typename decltype(tag)::type;
    return hi ? &mad<T, MulMode::Hi, false> : &mad<T, MulMode::Lo, false>;
  });
}

ExecFn selectMul24(const DecodedInst& in, bool isMad) {
  const bool hi = in.flags & ptx::kHi, sat = in.flags & ptx::kSat;
  bool sgn;
  if (in.type == Type::S32) sgn = true;
  else if (in.type == Type::U32) sgn = false;
  else return nullptr;
  if (!isMad) {
    if (sat) return nullptr;
    if (sgn) return hi ? &mul24H<true, true> : &mul24H<true, false>;
    return hi ? &mul24H<false, true> : &mul24H<false, false>;
  }
  if (sat) return (sgn && hi) ? &mad24H<true, true, true> : nullptr;
  if (sgn) return hi ? &mad24H<true, true, false> : &mad24H<true, false, false>;
  return hi ? &mad24H<false, true, false> : &mad24H<false, false, false>;
}

ExecFn selectShf(const DecodedInst& in) {
  const bool left = in.flags & ptx::kLeft, clamp = in.flags & ptx::kClamp;
  bool sgn;
  if (in.type == Type::B32 || in.type == Type::U32) sgn = false;
  else if (in.type == Type::S32) sgn = true;
  else return nullptr;
  if (left) {
    if (sgn) return nullptr;
    return clamp ? &shf<true, true, false> : &shf<true, false, false>;
  }
  if (sgn) return clamp ? &shf<false, true, true> : &shf<false, false, true>;
  return clamp ? &shf<false, true, false> : &shf<false, false, false>;
}

ExecFn selectDot(const DecodedInst& in, bool four) {
  auto sgn = [](Type t, bool& s) {
    if (t == Type::S32) s = true;
    else if (t == Type::U32) s = false;
    else return false;
    return true;
  };
  bool sa, sb;
  if (!sgn(in.type, sa) || !sgn(in.type2 == Type::None ? in.type : in.type2, sb)) return nullptr;
  if (four) {
    if (sa) return sb ? &dp4a<true, true> : &dp4a<true, false>;
    return sb ? &dp4a<false, true> : &dp4a<false, false>;
  }
  const bool hi = in.flags & ptx::kHi;
  if (sa) {
    if (sb) return hi ? &dp2a<true, true, true> : &dp2a<true, true, false>;
    return hi ? &dp2a<true, false, true> : &dp2a<true, false, false>;
  }
  if (sb) return hi ? &dp2a<false, true, true> : &dp2a<false, true, false>;
  return hi ? &dp2a<false, false, true> : &dp2a<false, false, false>;
}

ExecFn selectLogic(const DecodedInst& in, Logic L) {
  if (in.type == Type::Pred) {
    switch (L) {
      case Logic::And: return &logicPred<Logic::And>;
      case Logic::Or: return &logicPred<Logic::Or>;
      case Logic::Xor: return &logicPred<Logic::Xor>;
    }
    return nullptr;
  }
  return byBitType(in.type, [&](auto tag) -> ExecFn {
    using T = typename decltype(tag)::type;
    switch (L) {
      case Logic::And: return &logic<T, Logic::And>;
      case Logic::Or: return &logic<T, Logic::Or>;
      case Logic::Xor: return &logic<T, Logic::Xor>;
    }
    return nullptr;
  });
}

template <class F>
ExecFn by3264Bits(Type t, F&& f) {  // b32/b64 (u/s accepted) as unsigned
  switch (t) {
    case Type::B32: case Type::U32: case Type::S32: return f(Tag<std::uint32_t>{});
    case Type::B64: case Type::U64: case Type::S64: return f(Tag<std::uint64_t>{});
    default: return nullptr;
  }
}

}  // namespace

ExecFn selectIntHandler(const DecodedInst& in) {
  switch (in.op) {
    case Op::Add: return selectAddSub(in, false);
    case Op::Sub: return selectAddSub(in, true);
    case Op::Mul: return selectMul(in);
    case Op::Mad: return selectMad(in);
    case Op::Mul24: return selectMul24(in, false);
    case Op::Mad24: return selectMul24(in, true);
    case Op::Sad:
      return byIntType(in.type, [](auto tag) -> ExecFn { return &sad<typename decltype(tag)::type>; });
    case Op::Div:
      return byIntType(in.type, [](auto tag) -> ExecFn { return &divRem<typename decltype(tag)::type, false>; });
    case Op::Rem:
      return byIntType(in.type, [](auto tag) -> ExecFn { return &divRem<typename decltype(tag)::type, true>; });
    case Op::Abs:
    case Op::Neg: {
      const bool neg = in.op == Op::Neg;
      switch (in.type) {
        case Type::S16: return neg ? &absNeg<std::int16_t, true> : &absNeg<std::int16_t, false>;
        case Type::S32: return neg ? &absNeg<std::int32_t, true> : &absNeg<std::int32_t, false>;
        case Type::S64: return neg ? &absNeg<std::int64_t, true> : &absNeg<std::int64_t, false>;
        default: return nullptr;
      }
    }
    case Op::Min:
    case Op::Max: {
      const bool mx = in.op == Op::Max;
      if (in.flags & ptx::kRelu) {
        if (in.type != Type::S32) return nullptr;
        return mx ? &minMax<std::int32_t, true, true> : &minMax<std::int32_t, false, true>;
      }
      return byIntType(in.type, [&](auto tag) -> ExecFn {
        using T = typename decltype(tag)::type;
        return mx ? &minMax<T, true, false> : &minMax<T, false, false>;
      });
    }
    case Op::Popc:
      return by3264Bits(in.type, [](auto tag) -> ExecFn { return &popc<typename decltype(tag)::type>; });
    case Op::Clz:
      return by3264Bits(in.type, [](auto tag) -> ExecFn { return &clz<typename decltype(tag)::type>; });
    case Op::Brev:
      return by3264Bits(in.type, [](auto tag) -> ExecFn { return &brev<typename decltype(tag)::type>; });
    case Op::Bfind: {
      // .shiftamt: InstFlag has no dedicated bit; the decoder sets kShiftAmountIsB32.
      const bool sh = (in.flags & ptx::kShiftAmountIsB32) != 0;
      return by3264Type(in.type, [&](auto tag) -> ExecFn {
        using T = typename decltype(tag)::type;
        return sh ? &bfind<T, true> : &bfind<T, false>;
      });
    }
    case Op::Bfe:
      return by3264Type(in.type, [](auto tag) -> ExecFn { return &bfe<typename decltype(tag)::type>; });
    case Op::Bfi:
      return by3264Bits(in.type, [](auto tag) -> ExecFn { return &bfi<typename decltype(tag)::type>; });
    case Op::Prmt:
      if (in.type != Type::B32 && in.type != Type::U32 && in.type != Type::S32) return nullptr;
      switch (in.aux) {
        case 0: return &prmtH<0>;
        case 1: return &prmtH<1>;
        case 2: return &prmtH<2>;
        case 3: return &prmtH<3>;
        case 4: return &prmtH<4>;
        case 5: return &prmtH<5>;
        case 6: return &prmtH<6>;
        default: return nullptr;
      }
    case Op::Lop3:
      if (in.aux > 0xFF) return nullptr;
      return by3264Bits(in.type, [](auto tag) -> ExecFn { return &lop3<typename decltype(tag)::type>; });
    case Op::Shf: return selectShf(in);
    case Op::Shl:
      return byBitType(in.type, [](auto tag) -> ExecFn { return &shl<typename decltype(tag)::type>; });
    case Op::Shr:
      if (in.type == Type::S16) return &shr<std::int16_t>;
      if (in.type == Type::S32) return &shr<std::int32_t>;
      if (in.type == Type::S64) return &shr<std::int64_t>;
      return byBitType(in.type, [](auto tag) -> ExecFn { return &shr<typename decltype(tag)::type>; });
    case Op::And: return selectLogic(in, Logic::And);
    case Op::Or: return selectLogic(in, Logic::Or);
    case Op::Xor: return selectLogic(in, Logic::Xor);
    case Op::Not:
      if (in.type == Type::Pred) return &notPred;
      return byBitType(in.type, [](auto tag) -> ExecFn { return &notH<typename decltype(tag)::type>; });
    case Op::Cnot:
      return byBitType(in.type, [](auto tag) -> ExecFn { return &cnot<typename decltype(tag)::type>; });
    case Op::Dp4a: return selectDot(in, true);
    case Op::Dp2a: return selectDot(in, false);
    case Op::Fns:
      if (in.type != Type::B32 && in.type != Type::U32 && in.type != Type::S32) return nullptr;
      return &fns;
    default: return nullptr;
  }
}

}  // namespace scgpu::sm::alu
