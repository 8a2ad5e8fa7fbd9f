// Functional semantics of the ALU handlers (sm/exec/alu*.cpp) at the edges: integer wrap and
// saturation, carries, division by zero, bit-field ops, shifts, every rounding mode, .ftz/.sat,
// NaN rules, half precision, comparisons and conversions. Expected values are derived by hand or,
// where marked "(sm_90)", were measured with the same PTX instruction on an H100.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <random>

#include "ptx/decoded.h"
#include "sm/exec/alu.h"
#include "sm/exec/float_util.h"
#include "sm/exec_context.h"

using namespace scgpu;
using ptx::Cmp;
using ptx::DecodedInst;
using ptx::Op;
using ptx::Round;
using ptx::SubOp;
using ptx::Type;
using sm::kFullMask;

namespace {

std::uint64_t F(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
std::uint64_t D(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
float toF(std::uint64_t u) {
  std::uint32_t v = std::uint32_t(u);
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
double toD(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

constexpr std::uint64_t kGarbage = 0xA5A5A5A5A5A5A5A5ull;
constexpr int kSlots = 12;

// A warp's register and predicate files and an ExecContext over them.
struct Warp {
  std::uint64_t R[kSlots * sm::kWarpSize];
  std::uint32_t P[8];
  sm::ExecContext c;

  Warp() {
    for (auto& r : R) r = kGarbage;
    for (auto& p : P) p = 0;
    c.R = R;
    c.P = P;
    c.mask = kFullMask;
    c.active = kFullMask;
  }
  std::uint64_t& at(std::uint32_t slot, int lane) { return R[slot * sm::kWarpSize + lane]; }
  void setAll(std::uint32_t slot, std::uint64_t v) {
    for (int l = 0; l < sm::kWarpSize; ++l) at(slot, l) = v;
  }
  bool run(const DecodedInst& in) {
    ptx::ExecFn fn = sm::selectAluHandler(in);
    if (!fn) return false;
    fn(c, in);
    return true;
  }
};

DecodedInst inst(Op op, Type t, int nsrc, std::uint32_t flags = 0, Round r = Round::None) {
  DecodedInst in;
  in.op = op;
  in.type = t;
  in.flags = flags;
  in.round = r;
  in.ndst = 1;
  in.nsrc = std::uint8_t(nsrc);
  in.dst[0] = 0;
  for (int i = 0; i < nsrc; ++i) in.src[i] = std::uint32_t(i + 1);
  return in;
}

// Runs `in` with the sources (slots 1..) equal in every lane and returns dst[0] of lane 0, after
// checking that every lane got the same value.
std::uint64_t eval(const DecodedInst& in, std::initializer_list<std::uint64_t> srcs) {
  Warp w;
  std::uint32_t slot = 1;
  for (std::uint64_t v : srcs) w.setAll(slot++, v);
  if (!w.run(in)) {
    ADD_FAILURE() << "no handler for op " << int(in.op) << " type " << int(in.type);
    return 0xBADBADBADull;
  }
  for (int l = 1; l < sm::kWarpSize; ++l) EXPECT_EQ(w.at(0, l), w.at(0, 0)) << "lane " << l;
  return w.at(0, 0);
}
std::uint64_t ev(Op op, Type t, std::initializer_list<std::uint64_t> srcs, std::uint32_t flags = 0,
                 Round r = Round::None) {
  return eval(inst(op, t, int(srcs.size()), flags, r), srcs);
}
// The result as an instruction reading a 32-bit register sees it (64-bit results whole): a narrow
// signed result reads back sign-extended, as on the GPU.
std::uint64_t cvt(Type dst, Type src, std::uint64_t v, std::uint32_t flags = 0, Round r = Round::None) {
  DecodedInst in = inst(Op::Cvt, dst, 1, flags, r);
  in.type2 = src;
  const std::uint64_t slot = eval(in, {v});
  return ptx::sizeOf(dst) == 8 ? slot : slot & 0xFFFFFFFFu;
}
bool supported(const DecodedInst& in) { return sm::selectAluHandler(in) != nullptr; }

constexpr std::uint64_t u32(std::int64_t v) { return std::uint64_t(std::uint32_t(v)); }
constexpr std::uint64_t u16(std::int64_t v) { return std::uint64_t(std::uint16_t(v)); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Integer arithmetic

TEST(AluInt, AddSubWrapAndSat) {
  EXPECT_EQ(ev(Op::Add, Type::U32, {0xFFFFFFFFu, 2}), 1u);
  EXPECT_EQ(ev(Op::Sub, Type::U32, {0, 1}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Add, Type::S16, {0x7FFF, 1}), 0x8000u);  // zero-extended from 16 bits
  EXPECT_EQ(ev(Op::Add, Type::S64, {0x7FFFFFFFFFFFFFFFull, 1}), 0x8000000000000000ull);
  EXPECT_EQ(ev(Op::Add, Type::S32, {0x7FFFFFFF, 1}, ptx::kSat), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Add, Type::S32, {0x80000000u, u32(-1)}, ptx::kSat), 0x80000000u);
  EXPECT_EQ(ev(Op::Sub, Type::S32, {0x80000000u, 1}, ptx::kSat), 0x80000000u);
  EXPECT_EQ(ev(Op::Sub, Type::S32, {0x7FFFFFFF, u32(-1)}, ptx::kSat), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Add, Type::S32, {u32(-5), 3}, ptx::kSat), u32(-2));
  EXPECT_FALSE(supported(inst(Op::Add, Type::U32, 2, ptx::kSat)));
}

TEST(AluInt, CarryChains) {
  // 64-bit add from 32-bit halves: 0x00000001_FFFFFFFF + 0x00000002_00000001 = 0x4_00000000.
  Warp w;
  const std::uint32_t cc = 9;
  w.setAll(1, 0xFFFFFFFFu); w.setAll(2, 0x00000001u);
  w.setAll(3, 0x00000001u); w.setAll(4, 0x00000002u);
  DecodedInst lo = inst(Op::Add, Type::U32, 2, ptx::kCcOut);
  lo.aux = cc;
  DecodedInst hi = inst(Op::Add, Type::U32, 2, ptx::kCcIn);
  hi.aux = cc; hi.dst[0] = 5; hi.src[0] = 3; hi.src[1] = 4;
  ASSERT_TRUE(w.run(lo));
  ASSERT_TRUE(w.run(hi));
  EXPECT_EQ(w.at(0, 7), 0u);
  EXPECT_EQ(w.at(cc, 7), 1u);
  EXPECT_EQ(w.at(5, 7), 4u);
  // subc uses a borrow (sm_90): sub.cc 0-1 then subc 0-0 = 0xFFFFFFFF; 3-5 then 7-2 = 4.
  Warp s;
  s.setAll(1, 0); s.setAll(2, 1); s.setAll(3, 7); s.setAll(4, 2);
  DecodedInst sl = inst(Op::Sub, Type::U32, 2, ptx::kCcOut);
  sl.aux = cc;
  DecodedInst sh = inst(Op::Sub, Type::U32, 2, ptx::kCcIn | ptx::kCcOut);
  sh.aux = cc; sh.dst[0] = 5; sh.src[0] = 6; sh.src[1] = 6;
  s.setAll(6, 0);
  ASSERT_TRUE(s.run(sl));
  ASSERT_TRUE(s.run(sh));
  EXPECT_EQ(s.at(5, 0), 0xFFFFFFFFu);
  EXPECT_EQ(s.at(cc, 0), 1u);  // the borrow propagates
  s.setAll(1, 3); s.setAll(2, 5);
  DecodedInst sh2 = inst(Op::Sub, Type::U32, 2, ptx::kCcIn);
  sh2.aux = cc; sh2.dst[0] = 5; sh2.src[0] = 3; sh2.src[1] = 4;
  ASSERT_TRUE(s.run(sl));
  ASSERT_TRUE(s.run(sh2));
  EXPECT_EQ(s.at(5, 0), 4u);
  // mad.lo.cc 0xFFFFFFFF*1+1 -> carry; madc.hi 0*0+0+carry = 1 (sm_90).
  Warp m;
  m.setAll(1, 0xFFFFFFFFu); m.setAll(2, 1); m.setAll(3, 1); m.setAll(4, 0);
  DecodedInst ml = inst(Op::Mad, Type::U32, 3, ptx::kLo | ptx::kCcOut);
  ml.aux = cc;
  DecodedInst mh = inst(Op::Mad, Type::U32, 3, ptx::kHi | ptx::kCcIn);
  mh.aux = cc; mh.dst[0] = 5; mh.src[0] = 4; mh.src[1] = 4; mh.src[2] = 4;
  ASSERT_TRUE(m.run(ml));
  ASSERT_TRUE(m.run(mh));
  EXPECT_EQ(m.at(0, 0), 0u);
  EXPECT_EQ(m.at(5, 0), 1u);
  // 64-bit: add.cc.u64 max+1, addc.u64 0+0 = 1.
  Warp q;
  q.setAll(1, ~0ull); q.setAll(2, 1); q.setAll(3, 0);
  DecodedInst ql = inst(Op::Add, Type::U64, 2, ptx::kCcOut);
  ql.aux = cc;
  DecodedInst qh = inst(Op::Add, Type::S64, 2, ptx::kCcIn);
  qh.aux = cc; qh.dst[0] = 5; qh.src[0] = 3; qh.src[1] = 3;
  ASSERT_TRUE(q.run(ql));
  ASSERT_TRUE(q.run(qh));
  EXPECT_EQ(q.at(5, 3), 1u);
}

TEST(AluInt, MulHiLoWide) {
  EXPECT_EQ(ev(Op::Mul, Type::U32, {0x10000, 0x10000}, ptx::kLo), 0u);
  EXPECT_EQ(ev(Op::Mul, Type::U32, {0x10000, 0x10000}, ptx::kHi), 1u);
  EXPECT_EQ(ev(Op::Mul, Type::S32, {u32(-2), 3}, ptx::kHi), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Mul, Type::U16, {0xFFFF, 0xFFFF}, ptx::kLo), 1u);
  EXPECT_EQ(ev(Op::Mul, Type::S16, {u16(-32768), u16(-32768)}, ptx::kWide), 0x40000000u);  // (sm_90)
  EXPECT_EQ(ev(Op::Mul, Type::U32, {0xFFFFFFFFu, 0xFFFFFFFFu}, ptx::kWide), 0xFFFFFFFE00000001ull);
  EXPECT_EQ(ev(Op::Mul, Type::S32, {0x80000000u, 2}, ptx::kWide), 0xFFFFFFFF00000000ull);
  EXPECT_EQ(ev(Op::Mul, Type::S64, {0x8000000000000000ull, 3}, ptx::kHi), 0xFFFFFFFFFFFFFFFEull);  // (sm_90)
  EXPECT_EQ(ev(Op::Mul, Type::U64, {~0ull, ~0ull}, ptx::kHi), 0xFFFFFFFFFFFFFFFEull);  // (sm_90)
  EXPECT_EQ(ev(Op::Mul, Type::S64, {u32(-1) | 0xFFFFFFFF00000000ull, 5}, ptx::kLo), std::uint64_t(-5));
  EXPECT_FALSE(supported(inst(Op::Mul, Type::U64, 2, ptx::kWide)));
}

TEST(AluInt, MadForms) {
  EXPECT_EQ(ev(Op::Mad, Type::U32, {0xFFFFFFFFu, 0xFFFFFFFFu, 5}, ptx::kHi), 3u);  // (sm_90)
  EXPECT_EQ(ev(Op::Mad, Type::S32, {u32(-3), 4, 2}, ptx::kLo), u32(-10));
  EXPECT_EQ(ev(Op::Mad, Type::S32, {0x80000000u, 0x80000000u, 0x8000000000000000ull}, ptx::kWide),
            0xC000000000000000ull);  // (sm_90)
  EXPECT_EQ(ev(Op::Mad, Type::S32, {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF}, ptx::kHi | ptx::kSat),
            0x7FFFFFFFu);  // (sm_90)
  EXPECT_EQ(ev(Op::Mad, Type::S32, {0x80000000u, 0x7FFFFFFF, 0x80000000u}, ptx::kHi | ptx::kSat),
            0x80000000u);
  EXPECT_FALSE(supported(inst(Op::Mad, Type::S32, 3, ptx::kLo | ptx::kSat)));
}

TEST(AluInt, Mul24Mad24) {
  EXPECT_EQ(ev(Op::Mul24, Type::S32, {0xFF800000u, 0x7FFFFF}, ptx::kHi), 0xC0000080u);  // (sm_90)
  EXPECT_EQ(ev(Op::Mul24, Type::U32, {0xFFFFFF, 0xFFFFFF}, ptx::kHi), 0xFFFFFE00u);     // (sm_90)
  EXPECT_EQ(ev(Op::Mul24, Type::S32, {0x12FFFFFF, 2}, ptx::kLo), 0xFFFFFFFEu);          // (sm_90)
  EXPECT_EQ(ev(Op::Mul24, Type::U32, {0x12000003, 0xAB000005}, ptx::kLo), 15u);
  EXPECT_EQ(ev(Op::Mad24, Type::S32, {0x7FFFFF, 0x7FFFFF, 0x7FFFFFFF}, ptx::kHi | ptx::kSat),
            0x7FFFFFFFu);  // (sm_90)
  EXPECT_EQ(ev(Op::Mad24, Type::U32, {3, 5, 7}, ptx::kLo), 22u);
}

TEST(AluInt, DivRemEdges) {
  // (sm_90): division and remainder by zero give all ones for every type.
  EXPECT_EQ(ev(Op::Div, Type::U32, {7, 0}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Rem, Type::U32, {7, 0}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Div, Type::S32, {u32(-7), 0}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Rem, Type::S32, {7, 0}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Div, Type::U64, {7, 0}), ~0ull);
  EXPECT_EQ(ev(Op::Rem, Type::S64, {std::uint64_t(-7), 0}), ~0ull);
  EXPECT_EQ(ev(Op::Div, Type::U16, {5, 0}), 0xFFFFu);
  EXPECT_EQ(ev(Op::Rem, Type::S16, {u16(-7), 0}), 0xFFFFu);
  // MIN / -1 wraps, MIN % -1 = 0 (no host trap).
  EXPECT_EQ(ev(Op::Div, Type::S32, {0x80000000u, u32(-1)}), 0x80000000u);
  EXPECT_EQ(ev(Op::Rem, Type::S32, {0x80000000u, u32(-1)}), 0u);
  EXPECT_EQ(ev(Op::Div, Type::S64, {0x8000000000000000ull, ~0ull}), 0x8000000000000000ull);
  EXPECT_EQ(ev(Op::Rem, Type::S64, {0x8000000000000000ull, ~0ull}), 0u);
  EXPECT_EQ(ev(Op::Div, Type::S16, {0x8000, 0xFFFF}), 0x8000u);
  // Truncation toward zero.
  EXPECT_EQ(ev(Op::Div, Type::S32, {u32(-7), 2}), u32(-3));
  EXPECT_EQ(ev(Op::Rem, Type::S32, {u32(-7), 2}), u32(-1));
  EXPECT_EQ(ev(Op::Div, Type::U32, {0xFFFFFFFFu, 2}), 0x7FFFFFFFu);
}

TEST(AluInt, AbsNegMinMaxSad) {
  EXPECT_EQ(ev(Op::Abs, Type::S32, {0x80000000u}), 0x80000000u);
  EXPECT_EQ(ev(Op::Abs, Type::S16, {u16(-5)}), 5u);
  EXPECT_EQ(ev(Op::Neg, Type::S64, {1}), ~0ull);
  EXPECT_EQ(ev(Op::Neg, Type::S32, {0x80000000u}), 0x80000000u);
  EXPECT_EQ(ev(Op::Min, Type::S32, {u32(-1), 1}), u32(-1));
  EXPECT_EQ(ev(Op::Min, Type::U32, {u32(-1), 1}), 1u);
  EXPECT_EQ(ev(Op::Max, Type::S16, {u16(-1), 1}), 1u);
  EXPECT_EQ(ev(Op::Max, Type::U64, {~0ull, 1}), ~0ull);
  EXPECT_EQ(ev(Op::Min, Type::S32, {u32(-5), u32(-3)}, ptx::kRelu), 0u);  // (sm_90)
  EXPECT_EQ(ev(Op::Max, Type::S32, {u32(-5), 7}, ptx::kRelu), 7u);
  EXPECT_EQ(ev(Op::Sad, Type::S32, {0x80000000u, 0x7FFFFFFF, 1}), 0u);  // (sm_90)
  EXPECT_EQ(ev(Op::Sad, Type::U32, {3, 10, 100}), 107u);
}

TEST(AluInt, DotProducts) {
  DecodedInst d4 = inst(Op::Dp4a, Type::S32, 3);
  d4.type2 = Type::U32;
  EXPECT_EQ(eval(d4, {0xFF7F8001u, 0xFF010203u, 5}), 0xFFFFFE88u);  // (sm_90)
  DecodedInst d4u = inst(Op::Dp4a, Type::U32, 3);
  d4u.type2 = Type::U32;
  EXPECT_EQ(eval(d4u, {0xFFFFFFFFu, 0xFFFFFFFFu, 0}), 4u * 255 * 255);
  DecodedInst d2 = inst(Op::Dp2a, Type::S32, 3, ptx::kHi);
  d2.type2 = Type::U32;
  EXPECT_EQ(eval(d2, {0xFFFF0002u, 0x80FF0000u, 10}), 0x188u);  // (sm_90)
  DecodedInst d2lo = inst(Op::Dp2a, Type::U32, 3, ptx::kLo);
  d2lo.type2 = Type::S32;
  EXPECT_EQ(eval(d2lo, {0x00020003u, 0x000001FFu, 0}), u32(3 * -1 + 2 * 1));
}

// ---------------------------------------------------------------------------------------------
// Bit operations

TEST(AluBits, CountsAndFind) {
  EXPECT_EQ(ev(Op::Popc, Type::B32, {0xF0F0F0F1u}), 17u);
  EXPECT_EQ(ev(Op::Popc, Type::B64, {~0ull}), 64u);
  EXPECT_EQ(ev(Op::Clz, Type::B32, {0}), 32u);
  EXPECT_EQ(ev(Op::Clz, Type::B64, {0}), 64u);
  EXPECT_EQ(ev(Op::Clz, Type::B32, {0x00010000u}), 15u);
  EXPECT_EQ(ev(Op::Bfind, Type::U32, {0}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Bfind, Type::S32, {0x80000000u}), 30u);  // (sm_90)
  EXPECT_EQ(ev(Op::Bfind, Type::S32, {u32(-1)}, ptx::kShiftAmountIsB32), 0xFFFFFFFFu);  // (sm_90)
  EXPECT_EQ(ev(Op::Bfind, Type::U32, {0x10000}, ptx::kShiftAmountIsB32), 15u);  // (sm_90)
  EXPECT_EQ(ev(Op::Bfind, Type::U64, {0x8000000000000000ull}), 63u);
  EXPECT_EQ(ev(Op::Bfind, Type::S64, {1}), 0u);
  EXPECT_EQ(ev(Op::Brev, Type::B32, {0x12345678u}), 0x1E6A2C48u);  // (sm_90)
  EXPECT_EQ(ev(Op::Brev, Type::B64, {1}), 0x8000000000000000ull);
}

TEST(AluBits, BfeBfi) {
  // (sm_90)
  EXPECT_EQ(ev(Op::Bfe, Type::S32, {0x80000000u, 40, 0}), 0u);
  EXPECT_EQ(ev(Op::Bfe, Type::S32, {0x80000000u, 40, 3}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Bfe, Type::S32, {0xF0000000u, 28, 8}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Bfe, Type::U32, {0xF0000000u, 28, 8}), 0xFu);
  EXPECT_EQ(ev(Op::Bfe, Type::S32, {0x800, 8, 4}), 0xFFFFFFF8u);
  EXPECT_EQ(ev(Op::Bfe, Type::U32, {0x12345678, 0x104, 0x108}), 0x67u);
  EXPECT_EQ(ev(Op::Bfe, Type::S64, {0xF000000000000000ull, 60, 8}), ~0ull);
  EXPECT_EQ(ev(Op::Bfe, Type::U64, {0x123456789ABCDEF0ull, 32, 32}), 0x12345678u);
  EXPECT_EQ(ev(Op::Bfi, Type::B32, {0xFF, 0, 28, 8}), 0xF0000000u);
  EXPECT_EQ(ev(Op::Bfi, Type::B32, {0xAB, 0x12345678, 4, 8}), 0x12345AB8u);
  EXPECT_EQ(ev(Op::Bfi, Type::B64, {0xFF, 0, 60, 8}), 0xF000000000000000ull);
  EXPECT_EQ(ev(Op::Bfi, Type::B32, {0xFF, 0x12345678, 32, 8}), 0x12345678u);
  EXPECT_EQ(ev(Op::Bfi, Type::B32, {0xFF, 0x12345678, 0, 0}), 0x12345678u);
  EXPECT_EQ(ev(Op::Bfi, Type::B32, {0xAB, 0x12345678, 0x104, 8}), 0x12345AB8u);  // 32-bit: low 8 bits
  // (sm_90) 64-bit forms use the whole 32-bit position and length.
  EXPECT_EQ(ev(Op::Bfi, Type::B64, {0x2F408DE8, 0x2071AE018CDAFD02ull, 0x104, 0x10}), 0x2071AE018CDAFD02ull);
  EXPECT_EQ(ev(Op::Bfi, Type::B64, {0x8373B298F3F0DF53ull, 0xFFFFFFFFFFFFECA2ull, 0x1F, 0x104}), 0x79F86FA9FFFFECA2ull);
  EXPECT_EQ(ev(Op::Bfe, Type::U64, {0x8000000000000000ull, 8, 0xA11C7426}), 0x0080000000000000ull);
  EXPECT_EQ(ev(Op::Bfe, Type::U64, {0x5D7E9CBD453970CCull, 0x87177830, 0x18}), 0u);
  EXPECT_EQ(ev(Op::Bfe, Type::S64, {0x7FFFFFFFFFFFFFFFull, 0x104, 0x28}), 0u);
  EXPECT_EQ(ev(Op::Bfe, Type::S64, {0x9E5B9F33A81FB3AAull, 0x1C, 0x104}), 0xFFFFFFF9E5B9F33Aull);
}

TEST(AluBits, PrmtAllModes) {
  const std::uint64_t a = 0x44332211, b = 0x88776655;
  auto prmt = [&](std::uint32_t mode, std::uint64_t sel) {
    DecodedInst in = inst(Op::Prmt, Type::B32, 3);
    in.aux = mode;
    return eval(in, {a, b, sel});
  };
  // (sm_90) default mode, then f4e, b4e, rc8, ecl, ecr, rc16 with selectors 0..3.
  EXPECT_EQ(prmt(0, 0x7531), 0x88664422u);
  EXPECT_EQ(prmt(0, 0x8C4A), 0x5500u);  // sign replication of bytes 0x11, 0x55, 0x33
  EXPECT_EQ(prmt(0, 0x0123), 0x11223344u);
  const std::uint32_t expect[6][4] = {
      {0x44332211, 0x55443322, 0x66554433, 0x77665544},  // f4e
      {0x66778811, 0x77881122, 0x88112233, 0x11223344},  // b4e
      {0x11111111, 0x22222222, 0x33333333, 0x44444444},  // rc8
      {0x44332211, 0x44332222, 0x44333333, 0x44444444},  // ecl
      {0x11111111, 0x22222211, 0x33332211, 0x44332211},  // ecr
      {0x22112211, 0x44334433, 0x22112211, 0x44334433},  // rc16
  };
  for (std::uint32_t m = 1; m <= 6; ++m)
    for (std::uint64_t s = 0; s < 4; ++s) EXPECT_EQ(prmt(m, s), expect[m - 1][s]) << "mode " << m << " sel " << s;
  EXPECT_EQ(prmt(1, 0xFFFFFFF4), 0x44332211u);  // only the low 2 bits select
}

TEST(AluBits, Lop3) {
  auto lop3 = [](std::uint32_t lut, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    DecodedInst in = inst(Op::Lop3, Type::B32, 3);
    in.aux = lut;
    return eval(in, {a, b, c});
  };
  // (sm_90)
  EXPECT_EQ(lop3(0xE8, 0xF0F0F0F0, 0xCCCCCCCC, 0x12345678), 0xD0F4D4F8u);
  EXPECT_EQ(lop3(0x01, 0xF0F0F0F0, 0xCCCCCCCC, 0x12345678), 0x01030103u);
  EXPECT_EQ(lop3(0x96, 0xF0F0F0F0, 0xCCCCCCCC, 0x12345678), 0x2E086A44u);
  // The LUT applied to the canonical operands reproduces itself.
  for (std::uint32_t lut : {0x00u, 0xFFu, 0x80u, 0xF0u, 0xCCu, 0xAAu, 0x6Au, 0x1Bu})
    EXPECT_EQ(lop3(lut, 0xF0, 0xCC, 0xAA) & 0xFF, lut) << lut;
}

TEST(AluBits, Shifts) {
  EXPECT_EQ(ev(Op::Shl, Type::B32, {1, 31}), 0x80000000u);
  EXPECT_EQ(ev(Op::Shl, Type::B32, {1, 32}), 0u);
  EXPECT_EQ(ev(Op::Shl, Type::B32, {1, 0xFFFFFFFFu}), 0u);  // (sm_90)
  EXPECT_EQ(ev(Op::Shl, Type::B16, {0xFFFF, 16}), 0u);       // (sm_90)
  EXPECT_EQ(ev(Op::Shl, Type::B64, {1, 63}), 0x8000000000000000ull);
  EXPECT_EQ(ev(Op::Shl, Type::B64, {1, 64}), 0u);
  EXPECT_EQ(ev(Op::Shr, Type::U32, {0x80000000u, 40}), 0u);
  EXPECT_EQ(ev(Op::Shr, Type::B32, {0x80000000u, 31}), 1u);
  EXPECT_EQ(ev(Op::Shr, Type::S32, {0x80000000u, 40}), 0xFFFFFFFFu);  // (sm_90)
  EXPECT_EQ(ev(Op::Shr, Type::S32, {0x40000000u, 40}), 0u);
  EXPECT_EQ(ev(Op::Shr, Type::U16, {0x8000, 17}), 0u);       // (sm_90)
  EXPECT_EQ(ev(Op::Shr, Type::S16, {0x8000, 15}), 0xFFFFu);  // (sm_90)
  EXPECT_EQ(ev(Op::Shr, Type::S64, {0x8000000000000000ull, 100}), ~0ull);  // (sm_90)
  // shf (sm_90): a = low word, b = high word.
  const std::uint64_t lo = 0x12345678, hi = 0x9ABCDEF0;
  EXPECT_EQ(ev(Op::Shf, Type::B32, {lo, hi, 40}, ptx::kLeft | ptx::kClamp), 0x12345678u);
  EXPECT_EQ(ev(Op::Shf, Type::B32, {lo, hi, 36}, ptx::kLeft), 0xABCDEF01u);
  EXPECT_EQ(ev(Op::Shf, Type::B32, {lo, hi, 40}, ptx::kClamp), 0x9ABCDEF0u);
  EXPECT_EQ(ev(Op::Shf, Type::B32, {lo, hi, 36}), 0x01234567u);
  EXPECT_EQ(ev(Op::Shf, Type::B32, {lo, hi, 0}, ptx::kLeft), 0x9ABCDEF0u);
  EXPECT_EQ(ev(Op::Shf, Type::S32, {lo, hi, 32}, ptx::kClamp), 0x9ABCDEF0u);
  EXPECT_EQ(ev(Op::Shf, Type::S32, {lo, hi, 8}, ptx::kClamp), 0xF0123456u);
}

TEST(AluBits, LogicAndFns) {
  EXPECT_EQ(ev(Op::And, Type::B32, {0xFF00FF00u, 0x0FF00FF0u}), 0x0F000F00u);
  EXPECT_EQ(ev(Op::Or, Type::B16, {0xF000, 0x000F}), 0xF00Fu);
  EXPECT_EQ(ev(Op::Xor, Type::B64, {~0ull, 1}), ~1ull);
  EXPECT_EQ(ev(Op::Not, Type::B16, {0x00FF}), 0xFF00u);  // zero-extended
  EXPECT_EQ(ev(Op::Cnot, Type::B32, {5}), 0u);           // (sm_90)
  EXPECT_EQ(ev(Op::Cnot, Type::B32, {0}), 1u);
  // fns (sm_90)
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0xAAAAAAAAu, 2, u32(-1)}), 1u);
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0xAAAAAAAAu, 2, 3}), 7u);
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0xAAAAAAAAu, 30, 2}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0xAAAAAAAAu, 2, 0}), 0xFFFFFFFFu);
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0xAAAAAAAAu, 3, 1}), 3u);
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0xAAAAAAAAu, 3, u32(-1)}), 3u);
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0x0C114D67u, 0x28, 3}), 0xFFFFFFFFu);     // base > 31 (sm_90)
  EXPECT_EQ(ev(Op::Fns, Type::B32, {0x7FFFFFFFu, 0x1C, 0x80000000u}), 0u);    // INT_MIN (sm_90)
}

TEST(AluBits, PredicateLogic) {
  Warp w;
  w.P[1] = 0xF0F0F0F0u;
  w.P[2] = 0xFF00FF00u;
  w.P[0] = 0x12345678u;
  w.c.mask = 0x0000FFFFu;  // only the low lanes execute
  DecodedInst in = inst(Op::And, Type::Pred, 2);
  ASSERT_TRUE(w.run(in));
  EXPECT_EQ(w.P[0], 0x1234F000u);
  in.flags = ptx::kNegPredSrc0;  // and !p1, p2
  ASSERT_TRUE(w.run(in));
  EXPECT_EQ(w.P[0], 0x12340F00u);
  DecodedInst o = inst(Op::Or, Type::Pred, 2, ptx::kNegPredSrc1);
  ASSERT_TRUE(w.run(o));
  EXPECT_EQ(w.P[0], 0x1234F0FFu);
  DecodedInst x = inst(Op::Xor, Type::Pred, 2);
  ASSERT_TRUE(w.run(x));
  EXPECT_EQ(w.P[0], 0x12340FF0u);
  DecodedInst n = inst(Op::Not, Type::Pred, 1);
  ASSERT_TRUE(w.run(n));
  EXPECT_EQ(w.P[0], 0x12340F0Fu);
  DecodedInst m = inst(Op::Mov, Type::Pred, 1);
  ASSERT_TRUE(w.run(m));
  EXPECT_EQ(w.P[0], 0x1234F0F0u);
}

TEST(AluInt, InactiveLanesUntouchedAndZeroExtension) {
  Warp w;
  w.setAll(1, 0xFFFF);  // s16 -1
  w.setAll(2, 0x0001);
  w.c.mask = 0x80000005u;
  ASSERT_TRUE(w.run(inst(Op::Sub, Type::S16, 2)));
  for (int l = 0; l < 32; ++l) {
    if ((w.c.mask >> l) & 1) EXPECT_EQ(w.at(0, l), 0xFFFEu) << l;
    else EXPECT_EQ(w.at(0, l), kGarbage) << l;
  }
  // Per-lane operands.
  Warp v;
  for (int l = 0; l < 32; ++l) {
    v.at(1, l) = std::uint64_t(l);
    v.at(2, l) = std::uint64_t(100 * l);
  }
  ASSERT_TRUE(v.run(inst(Op::Add, Type::U32, 2)));
  for (int l = 0; l < 32; ++l) EXPECT_EQ(v.at(0, l), std::uint64_t(101 * l));
  // The destination may be a source.
  DecodedInst self = inst(Op::Mul, Type::U32, 2, ptx::kLo);
  self.dst[0] = 1;
  ASSERT_TRUE(v.run(self));
  EXPECT_EQ(v.at(1, 3), 3u * 300u);
}

// ---------------------------------------------------------------------------------------------
// f32 / f64

TEST(AluFloat, F32RoundingModes) {
  const std::uint64_t one = F(1.0f), tiny = F(0x1p-24f);
  EXPECT_EQ(ev(Op::Add, Type::F32, {one, tiny}, 0, Round::Rn), F(1.0f));  // tie to even
  EXPECT_EQ(ev(Op::Add, Type::F32, {one, tiny}, 0, Round::Rz), F(1.0f));
  EXPECT_EQ(ev(Op::Add, Type::F32, {one, tiny}, 0, Round::Rm), F(1.0f));
  EXPECT_EQ(ev(Op::Add, Type::F32, {one, tiny}, 0, Round::Rp), 0x3F800001u);  // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F32, {F(-1.0f), F(-0x1p-24f)}, 0, Round::Rm), 0xBF800001u);  // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F32, {F(-1.0f), F(-0x1p-24f)}, 0, Round::Rz), F(-1.0f));
  const std::uint64_t t3 = F(3 * 0x1p-25f);  // 1 + 1.5 ulp/2: rn rounds up
  EXPECT_EQ(ev(Op::Add, Type::F32, {one, t3}), 0x3F800001u);
  EXPECT_EQ(ev(Op::Sub, Type::F32, {one, tiny}, 0, Round::Rz), F(1.0f - 0x1p-24f));
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(1.0f + 0x1p-23f), F(1.0f + 0x1p-23f)}, 0, Round::Rz), 0x3F800002u);
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(1.0f + 0x1p-23f), F(1.0f + 0x1p-23f)}, 0, Round::Rp), 0x3F800003u);
  EXPECT_EQ(ev(Op::Fma, Type::F32, {one, one, tiny}, 0, Round::Rp), 0x3F800001u);
  EXPECT_EQ(ev(Op::Fma, Type::F32, {F(1.0f + 0x1p-12f), F(1.0f - 0x1p-12f), F(-1.0f)}, 0, Round::Rn),
            F(-0x1p-24f));  // fused: no intermediate rounding
  EXPECT_EQ(ev(Op::Div, Type::F32, {one, F(3.0f)}, 0, Round::Rz), 0x3EAAAAAAu);
  EXPECT_EQ(ev(Op::Div, Type::F32, {one, F(3.0f)}, 0, Round::Rp), 0x3EAAAAABu);
  EXPECT_EQ(ev(Op::Sqrt, Type::F32, {F(2.0f)}, 0, Round::Rm), 0x3FB504F3u);
  EXPECT_EQ(ev(Op::Sqrt, Type::F32, {F(2.0f)}, 0, Round::Rp), 0x3FB504F4u);
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {F(3.0f)}, 0, Round::Rn), 0x3EAAAAABu);
  // Overflow: rz and rm stay finite for positive results.
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(3e38f), F(2.0f)}, 0, Round::Rz), 0x7F7FFFFFu);
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(3e38f), F(2.0f)}, 0, Round::Rm), 0x7F7FFFFFu);
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(3e38f), F(2.0f)}, 0, Round::Rp), 0x7F800000u);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);  // the host mode is restored
}

TEST(AluFloat, F64RoundingModes) {
  const std::uint64_t one = D(1.0), tiny = D(0x1p-53);
  EXPECT_EQ(ev(Op::Add, Type::F64, {one, tiny}, 0, Round::Rn), D(1.0));
  EXPECT_EQ(ev(Op::Add, Type::F64, {one, tiny}, 0, Round::Rz), D(1.0));
  EXPECT_EQ(ev(Op::Add, Type::F64, {one, tiny}, 0, Round::Rm), D(1.0));
  EXPECT_EQ(ev(Op::Add, Type::F64, {one, tiny}, 0, Round::Rp), 0x3FF0000000000001ull);
  EXPECT_EQ(ev(Op::Add, Type::F64, {D(-1.0), D(-0x1p-53)}, 0, Round::Rm), 0xBFF0000000000001ull);
  EXPECT_EQ(ev(Op::Add, Type::F64, {D(-1.0), D(-0x1p-53)}, 0, Round::Rp), D(-1.0));
  EXPECT_EQ(ev(Op::Div, Type::F64, {one, D(3.0)}, 0, Round::Rz), 0x3FD5555555555555ull);
  EXPECT_EQ(ev(Op::Div, Type::F64, {one, D(3.0)}, 0, Round::Rp), 0x3FD5555555555556ull);
  EXPECT_EQ(ev(Op::Fma, Type::F64, {one, one, tiny}, 0, Round::Rp), 0x3FF0000000000001ull);
  EXPECT_EQ(ev(Op::Fma, Type::F64, {one, one, D(-0x1p-54)}, 0, Round::Rm), 0x3FEFFFFFFFFFFFFFull);
  EXPECT_EQ(ev(Op::Sqrt, Type::F64, {D(2.0)}, 0, Round::Rz), 0x3FF6A09E667F3BCCull);
  EXPECT_EQ(ev(Op::Sqrt, Type::F64, {D(2.0)}, 0, Round::Rp), 0x3FF6A09E667F3BCDull);
  EXPECT_EQ(ev(Op::Mul, Type::F64, {D(-1e308), D(10.0)}, 0, Round::Rp), 0xFFEFFFFFFFFFFFFFull);
  EXPECT_EQ(ev(Op::Mul, Type::F64, {D(-1e308), D(10.0)}, 0, Round::Rn), 0xFFF0000000000000ull);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(AluFloat, FtzAndSubnormals) {
  const std::uint64_t sub = 0x00000005u, nsub = 0x80000005u;
  EXPECT_EQ(ev(Op::Add, Type::F32, {sub, 0}), sub);                    // kept without .ftz
  EXPECT_EQ(ev(Op::Add, Type::F32, {sub, 0}, ptx::kFtz), 0u);
  EXPECT_EQ(ev(Op::Add, Type::F32, {nsub, 0x80000000u}, ptx::kFtz), 0x80000000u);  // sign kept
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(0x1p-100f), F(0x1p-30f)}), F(0x1p-130f));
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(0x1p-100f), F(0x1p-30f)}, ptx::kFtz), 0u);
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(-0x1p-100f), F(0x1p-30f)}, ptx::kFtz), 0x80000000u);
  // (sm_90) tininess before rounding: (1 - 2^-24) * 2^-126 rounds to 2^-126 but is flushed.
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(1.0f - 0x1p-24f), F(0x1p-126f)}), 0x00800000u);
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(1.0f - 0x1p-24f), F(0x1p-126f)}, ptx::kFtz), 0u);
  // (sm_90) the fma product is not flushed: 2^-70 * 2^-70 + 2^-126.
  EXPECT_EQ(ev(Op::Fma, Type::F32, {F(0x1p-70f), F(0x1p-70f), F(0x1p-126f)}, ptx::kFtz, Round::Rn), 0x00800200u);
  // (sm_90) tininess is decided after rounding to 24 bits with an unbounded exponent:
  // 2^-126 - 2^-150 is tiny (flushed), 2^-126 - 2^-152 rounds to 2^-126 and is kept.
  EXPECT_EQ(ev(Op::Fma, Type::F32, {0xB239B7AFu, 0x008B8451u, 0x00800000u}, ptx::kFtz, Round::Rn), 0x00800000u);
  EXPECT_EQ(ev(Op::Fma, Type::F32, {0x3F7FFFFFu, 0x00800000u, 0}, ptx::kFtz, Round::Rn), 0u);
  EXPECT_EQ(ev(Op::Mul, Type::F32, {0x3F7FFFFFu, 0x00800000u}, ptx::kFtz, Round::Rp), 0u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {0x3F7FFFFFu, 0x7E800000u}, ptx::kFtz, Round::Rn), 0u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {0x3F7FFFFFu, 0x7E800000u}, 0, Round::Rn), 0x00800000u);
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {0x7E800001u}, ptx::kFtz, Round::Rn), 0u);
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {0x7E800001u}, 0, Round::Rn), 0x007FFFFFu);
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {0x7E800001u}, ptx::kFtz, Round::Rp), 0u);  // rounds up to 2^-126, tiny
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {0x7E800001u}, 0, Round::Rp), 0x00800000u);
  EXPECT_EQ(ev(Op::Sub, Type::F32, {0x00800001u, 0x00000001u}, ptx::kFtz), 0x00800001u);  // input flushed
  EXPECT_EQ(ev(Op::Sub, Type::F32, {F(0x1p-125f), F(0x1p-126f + 0x1p-140f)}, ptx::kFtz), 0u);  // (sm_90)
  EXPECT_EQ(ev(Op::Abs, Type::F32, {nsub}, ptx::kFtz), 0u);               // (sm_90)
  EXPECT_EQ(ev(Op::Neg, Type::F32, {sub}, ptx::kFtz), 0x80000000u);       // (sm_90)
  EXPECT_EQ(ev(Op::Min, Type::F32, {0x80000001u, 0}, ptx::kFtz), 0x80000000u);  // (sm_90)
  EXPECT_EQ(ev(Op::Max, Type::F32, {0x80000001u, 0}), 0u);                        // (sm_90)
  EXPECT_EQ(ev(Op::Lg2, Type::F32, {0x100}, ptx::kApprox), F(-141.0f));           // (sm_90)
  EXPECT_EQ(ev(Op::Lg2, Type::F32, {0x100}, ptx::kApprox | ptx::kFtz), 0xFF800000u);  // (sm_90)
  EXPECT_EQ(ev(Op::Ex2, Type::F32, {F(-126.5f)}, ptx::kApprox | ptx::kFtz), 0u);     // (sm_90)
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(0x1p-140f), F(0.5f)}, ptx::kFtz, Round::Rn), 0u);  // (sm_90)
  // f64 arithmetic keeps subnormals.
  EXPECT_EQ(ev(Op::Mul, Type::F64, {D(0x1p-1000), D(0x1p-70)}), D(0x1p-1070));
}

TEST(AluFloat, Saturation) {
  EXPECT_EQ(ev(Op::Add, Type::F32, {0x80000000u, 0x80000000u}, ptx::kSat), 0u);  // -0 -> +0 (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F32, {0x7FC00001u, F(1.0f)}, ptx::kSat), 0u);       // NaN -> 0 (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F32, {0xFFC00001u, 0}, ptx::kSat, Round::Rn), 0u);  // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F32, {F(0.75f), F(0.75f)}, ptx::kSat), F(1.0f));    // (sm_90)
  EXPECT_EQ(ev(Op::Mul, Type::F32, {F(-2.0f), F(3.0f)}, ptx::kSat), 0u);
  EXPECT_EQ(ev(Op::Fma, Type::F32, {F(0.5f), F(0.5f), F(0.25f)}, ptx::kSat, Round::Rn), F(0.5f));
  EXPECT_EQ(ev(Op::Mul, Type::F32, {0x7F800000u, F(1.0f)}, ptx::kSat), F(1.0f));
  EXPECT_FALSE(supported(inst(Op::Add, Type::F64, 2, ptx::kSat)));
}

TEST(AluFloat, NaNResults) {
  // f32: every NaN result is the canonical 0x7FFFFFFF (sm_90).
  EXPECT_EQ(ev(Op::Add, Type::F32, {0x7FC00001u, F(1.0f)}), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Add, Type::F32, {0x7F800001u, F(1.0f)}), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Add, Type::F32, {0xFFC00001u, F(1.0f)}), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Mul, Type::F32, {0, 0x7F800000u}), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Fma, Type::F32, {0x7FC00001u, F(1.0f), F(1.0f)}, 0, Round::Rn), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Sqrt, Type::F32, {F(-1.0f)}, 0, Round::Rn), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Abs, Type::F32, {0xFFC00001u}), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Neg, Type::F32, {0x7FC00001u}), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Lg2, Type::F32, {F(-1.0f)}, ptx::kApprox), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Sin, Type::F32, {0x7F800000u}, ptx::kApprox), 0x7FFFFFFFu);
  // f64 (sm_90): operand b's NaN wins, then a's, then c's, quieted; invalid gives 0xFFF8....
  const std::uint64_t n1 = 0x7FF8000000000001ull, n2 = 0xFFF8000000000002ull, sn = 0x7FF0000000000001ull;
  EXPECT_EQ(ev(Op::Add, Type::F64, {n1, D(1.0)}), n1);
  EXPECT_EQ(ev(Op::Add, Type::F64, {D(1.0), n1}), n1);
  EXPECT_EQ(ev(Op::Add, Type::F64, {n1, n2}), n2);
  EXPECT_EQ(ev(Op::Add, Type::F64, {n2, n1}), n1);
  EXPECT_EQ(ev(Op::Add, Type::F64, {sn, D(1.0)}), 0x7FF8000000000001ull);
  EXPECT_EQ(ev(Op::Mul, Type::F64, {n1, n2}), n2);
  EXPECT_EQ(ev(Op::Mul, Type::F64, {0, 0x7FF0000000000000ull}), 0xFFF8000000000000ull);
  EXPECT_EQ(ev(Op::Fma, Type::F64, {n1, n2, 0x7FF8000000000003ull}, 0, Round::Rn), n2);
  EXPECT_EQ(ev(Op::Fma, Type::F64, {D(1.0), D(1.0), n2}, 0, Round::Rn), n2);
  EXPECT_EQ(ev(Op::Sqrt, Type::F64, {D(-1.0)}, 0, Round::Rn), 0xFFF8000000000000ull);
  EXPECT_EQ(ev(Op::Div, Type::F64, {0, 0}, 0, Round::Rn), 0xFFF8000000000000ull);
  EXPECT_EQ(ev(Op::Rcp, Type::F64, {n2}, 0, Round::Rn), n2);
  EXPECT_EQ(ev(Op::Div, Type::F64, {n2, sn}, 0, Round::Rz), n2);  // div: a's NaN first
  EXPECT_EQ(ev(Op::Div, Type::F64, {n1, n2}, 0, Round::Rm), n1);
  EXPECT_EQ(ev(Op::Fma, Type::F64, {0x7FF8000000000000ull, D(3.0), n2}, 0, Round::Rn), n2);  // fma: b, c, a
  EXPECT_EQ(ev(Op::Fma, Type::F64, {n2, D(3.0), sn}, 0, Round::Rn), 0x7FF8000000000001ull);
  EXPECT_EQ(ev(Op::Neg, Type::F64, {sn}), 0x7FF8000000000001ull);
  EXPECT_EQ(ev(Op::Abs, Type::F64, {sn | 0x8000000000000000ull}), 0xFFF8000000000001ull);
  EXPECT_EQ(ev(Op::Neg, Type::F64, {D(2.0)}), D(-2.0));
}

// fma.rn on the host's FMA unit gives libm's bits: random lanes mixed with zeros, subnormals,
// infinities and NaNs (f64 NaNs propagate by operand), under partial masks and with the
// destination aliasing a source.
TEST(AluFloat, HostFmaEqualsLibm) {
  std::mt19937_64 rng(20261128);
  const std::uint64_t specials32[] = {0, 0x80000000u, 1, 0x807FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00001u,
                                      0x7F800001u, 0x7F7FFFFFu, F(1.0f), F(-0x1p-126f)};
  const std::uint64_t specials64[] = {0, 0x8000000000000000ull, 1, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
                                      0x7FF8000000000001ull, 0xFFF0000000000002ull, 0x7FEFFFFFFFFFFFFFull, D(1.0),
                                      D(-0x1p-1022)};
  for (Type t : {Type::F32, Type::F64}) {
    const bool wide = t == Type::F64;
    for (int rep = 0; rep < 400; ++rep) {
      const std::uint32_t mask = rep % 4 == 0 ? kFullMask : std::uint32_t(rng());
      const std::uint32_t dst = std::uint32_t(rep % 3);  // 0: its own slot; 1, 2: a source's
      std::uint64_t src[3][sm::kWarpSize];
      for (auto& slot : src)
        for (auto& v : slot) {
          const std::uint64_t r = rng();
          if (r % 8 != 0) v = wide ? r : (r & 0xFFFFFFFFu);
          else if (wide) v = specials64[r / 8 % std::size(specials64)];
          else v = specials32[r / 8 % std::size(specials32)];
        }
      std::uint64_t got[2][sm::kWarpSize];
      for (int host = 0; host < 2; ++host) {
        sm::alu::useHostFma(host == 1);
        Warp w;
        w.c.mask = mask;
        for (int i = 0; i < 3; ++i)
          for (int l = 0; l < sm::kWarpSize; ++l) w.at(std::uint32_t(i + 1), l) = src[i][l];
        DecodedInst in = inst(Op::Fma, t, 3, 0, Round::Rn);
        in.dst[0] = dst;
        ASSERT_TRUE(w.run(in));
        for (int l = 0; l < sm::kWarpSize; ++l) got[host][l] = w.at(dst, l);
      }
      for (int l = 0; l < sm::kWarpSize; ++l)
        ASSERT_EQ(got[0][l], got[1][l]) << "type " << int(t) << " rep " << rep << " lane " << l;
    }
  }
  sm::alu::useHostFma(true);
}

TEST(AluFloat, MinMaxRules) {
  // (sm_90)
  EXPECT_EQ(ev(Op::Min, Type::F32, {0x7FC00001u, 0xFFC00002u}), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Min, Type::F32, {0x7FC00001u, F(1.0f)}), F(1.0f));
  EXPECT_EQ(ev(Op::Min, Type::F32, {F(1.0f), 0x7F800001u}), F(1.0f));
  EXPECT_EQ(ev(Op::Min, Type::F32, {F(1.0f), 0xFFC00002u}, ptx::kNaN), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Max, Type::F32, {F(1.0f), F(2.0f)}, ptx::kNaN), F(2.0f));
  EXPECT_EQ(ev(Op::Min, Type::F32, {0x80000000u, 0}), 0x80000000u);
  EXPECT_EQ(ev(Op::Min, Type::F32, {0, 0x80000000u}), 0x80000000u);
  EXPECT_EQ(ev(Op::Max, Type::F32, {0x80000000u, 0}), 0u);
  EXPECT_EQ(ev(Op::Max, Type::F32, {0, 0x80000000u}), 0u);
  EXPECT_EQ(ev(Op::Max, Type::F32, {F(-1.0f), 0xFF800000u}), F(-1.0f));
  EXPECT_EQ(ev(Op::Min, Type::F64, {0x7FF8000000000001ull, 0xFFF8000000000002ull}), 0xFFF8000000000002ull);
  EXPECT_EQ(ev(Op::Max, Type::F64, {0x7FF8000000000001ull, 0xFFF8000000000002ull}), 0xFFF8000000000002ull);
  EXPECT_EQ(ev(Op::Min, Type::F64, {0x7FF0000000000001ull, 0x7FF0000000000002ull}), 0x7FF8000000000002ull);
  EXPECT_EQ(ev(Op::Min, Type::F64, {D(1.0), 0x7FF8000000000001ull}), D(1.0));
  EXPECT_EQ(ev(Op::Min, Type::F64, {0x7FF0000000000001ull, D(1.0)}), D(1.0));
  EXPECT_EQ(ev(Op::Max, Type::F64, {0x8000000000000000ull, 0}), 0u);
  EXPECT_EQ(ev(Op::Min, Type::F64, {0, 0x8000000000000000ull}), 0x8000000000000000ull);
}

TEST(AluFloat, DivApproxAndFull) {
  // (sm_90): a * (1/b) with the reciprocal rounded to f32; .approx flushes 1/b below 2^-126.
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(3.0f), F(7.0f)}, ptx::kApprox), 0x3EDB6DB8u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(3.0f), F(7.0f)}, ptx::kFull), 0x3EDB6DB8u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(3.0f), F(7.0f)}, 0, Round::Rn), 0x3EDB6DB7u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(1.0f), F(0x1p127f)}, ptx::kApprox), 0u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {0x3D680D66u, F(0x1p126f)}, ptx::kApprox), 0x0007406Bu);  // 1/2^126 is normal
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(1.0f), F(0x1p127f)}, ptx::kFull), 0x00400000u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(1.0f), F(0x1p127f)}, ptx::kFull | ptx::kFtz), 0u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(3e38f), F(0x1p127f)}, ptx::kFull), 0x3FE1B1E6u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {0x00300000u, 0x00200000u}, ptx::kApprox), F(1.5f));
  EXPECT_EQ(ev(Op::Div, Type::F32, {0x00300000u, 0x00200000u}, ptx::kFull), F(1.5f));
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(0x1p-140f), F(0.5f)}, ptx::kApprox), 0x400u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(0x1p-140f), F(0.5f)}, ptx::kApprox | ptx::kFtz), 0u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(1.0f), F(3.0f)}, ptx::kFull), 0x3EAAAAABu);
  EXPECT_EQ(ev(Op::Div, Type::F32, {0, 0}, ptx::kFull), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Div, Type::F32, {0x7F800000u, 0x7F800000u}, ptx::kFull), 0x7FFFFFFFu);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(1.0f), 0x7F800000u}, ptx::kApprox), 0u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {0x7F800000u, F(2.0f)}, ptx::kApprox), 0x7F800000u);
  EXPECT_EQ(ev(Op::Div, Type::F32, {F(1.0f), 0x00200000u}, ptx::kFull), 0x7F800000u);
}

TEST(AluFloat, ApproxFunctions) {
  // (sm_90) special values and the f64 .ftz approximations (upper 32 bits kept).
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {F(3.0f)}, ptx::kApprox), 0x3EAAAAABu);
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {F(0x1p127f)}, ptx::kApprox), 0x00400000u);
  EXPECT_EQ(ev(Op::Rcp, Type::F32, {0x80000000u}, ptx::kApprox), 0xFF800000u);
  EXPECT_EQ(ev(Op::Rcp, Type::F64, {D(3.0)}, ptx::kApprox | ptx::kFtz), 0x3FD5555500000000ull);
  EXPECT_EQ(ev(Op::Rcp, Type::F64, {D(7.0)}, ptx::kApprox | ptx::kFtz), 0x3FC2492400000000ull);
  EXPECT_EQ(ev(Op::Rcp, Type::F64, {D(-0.1)}, ptx::kApprox | ptx::kFtz), D(-10.0));
  EXPECT_EQ(ev(Op::Rsqrt, Type::F64, {D(2.0)}, ptx::kApprox | ptx::kFtz), 0x3FE6A09E00000000ull);
  EXPECT_EQ(ev(Op::Rcp, Type::F64, {0x7FF0000000000001ull}, ptx::kApprox | ptx::kFtz), 0u);  // upper word only
  EXPECT_EQ(ev(Op::Rcp, Type::F64, {0x40D4828F40000000ull}, ptx::kApprox | ptx::kFtz), 0x3F08F6A300000000ull);
  EXPECT_EQ(ev(Op::Rsqrt, Type::F64, {D(-4.0)}, ptx::kApprox | ptx::kFtz), 0x7FFFFFFF00000000ull);
  EXPECT_EQ(ev(Op::Rsqrt, Type::F64, {D(2.0)}, ptx::kApprox), 0x3FE6A09E667F3BCDull);
  EXPECT_EQ(ev(Op::Rsqrt, Type::F64, {D(3.0)}, ptx::kApprox), 0x3FE279A74590331Cull);
  EXPECT_EQ(ev(Op::Rsqrt, Type::F32, {0x80000000u}, ptx::kApprox), 0xFF800000u);
  EXPECT_EQ(ev(Op::Rsqrt, Type::F32, {0x7F800000u}, ptx::kApprox), 0u);
  EXPECT_EQ(ev(Op::Sqrt, Type::F32, {0x80000000u}, ptx::kApprox), 0x80000000u);
  EXPECT_EQ(ev(Op::Sqrt, Type::F32, {F(2.0f)}, ptx::kApprox), 0x3FB504F3u);
  EXPECT_EQ(ev(Op::Ex2, Type::F32, {0x80000000u}, ptx::kApprox), F(1.0f));
  EXPECT_EQ(ev(Op::Ex2, Type::F32, {0xFF800000u}, ptx::kApprox), 0u);
  EXPECT_EQ(ev(Op::Lg2, Type::F32, {0x80000000u}, ptx::kApprox), 0xFF800000u);
  EXPECT_EQ(ev(Op::Sin, Type::F32, {0x80000000u}, ptx::kApprox), 0x80000000u);
  EXPECT_EQ(ev(Op::Tanh, Type::F32, {0x7F800000u}, ptx::kApprox), F(1.0f));
  EXPECT_EQ(ev(Op::Tanh, Type::F32, {0x80000000u}, ptx::kApprox), 0x80000000u);
  // Accuracy on ordinary values (the GPU's own results differ by a few ulp, see alu_float.cpp).
  EXPECT_NEAR(toF(ev(Op::Sin, Type::F32, {F(1.0f)}, ptx::kApprox)), 0.841470985f, 1e-6f);
  EXPECT_NEAR(toF(ev(Op::Cos, Type::F32, {F(1.0f)}, ptx::kApprox)), 0.540302306f, 1e-6f);
  EXPECT_NEAR(toF(ev(Op::Lg2, Type::F32, {F(3.0f)}, ptx::kApprox)), 1.58496250f, 1e-6f);
  EXPECT_NEAR(toF(ev(Op::Ex2, Type::F32, {F(0.5f)}, ptx::kApprox)), 1.41421356f, 1e-6f);
  EXPECT_NEAR(toF(ev(Op::Tanh, Type::F32, {F(0.5f)}, ptx::kApprox)), 0.462117157f, 1e-6f);
  EXPECT_NEAR(toF(ev(Op::Rsqrt, Type::F32, {F(2.0f)}, ptx::kApprox)), 0.707106781f, 1e-6f);
}

TEST(AluFloat, AbsNegCopysignTestp) {
  EXPECT_EQ(ev(Op::Abs, Type::F32, {F(-2.5f)}), F(2.5f));
  EXPECT_EQ(ev(Op::Neg, Type::F32, {0}), 0x80000000u);
  EXPECT_EQ(ev(Op::Abs, Type::F64, {D(-0.0)}), 0u);
  // copysign d, a, b: b's magnitude, a's sign; a pure bit operation (sm_90).
  EXPECT_EQ(ev(Op::Copysign, Type::F32, {F(-1.0f), F(2.0f)}), F(-2.0f));
  EXPECT_EQ(ev(Op::Copysign, Type::F32, {F(-1.0f), 0x7FC00001u}), 0xFFC00001u);
  EXPECT_EQ(ev(Op::Copysign, Type::F32, {0xFFC00001u, F(2.0f)}), F(-2.0f));
  EXPECT_EQ(ev(Op::Copysign, Type::F64, {D(-1.0), 0x7FF8000000000001ull}), 0xFFF8000000000001ull);
  // testp (sm_90): bits finite, infinite, number, notanumber, normal, subnormal.
  auto classify = [](Type t, std::uint64_t v) {
    const SubOp ops[6] = {SubOp::TestFinite, SubOp::TestInfinite, SubOp::TestNumber,
                          SubOp::TestNotANumber, SubOp::TestNormal, SubOp::TestSubnormal};
    std::uint32_t r = 0;
    for (int k = 0; k < 6; ++k) {
      Warp w;
      w.setAll(1, v);
      DecodedInst in = inst(Op::Testp, t, 1);
      in.sub = ops[k];
      EXPECT_TRUE(w.run(in));
      EXPECT_TRUE(w.P[0] == 0 || w.P[0] == kFullMask);
      if (w.P[0]) r |= 1u << k;
    }
    return r;
  };
  EXPECT_EQ(classify(Type::F32, 0), 0x15u);  // zero counts as normal on the GPU
  EXPECT_EQ(classify(Type::F32, 0x80000000u), 0x15u);
  EXPECT_EQ(classify(Type::F32, 1), 0x25u);
  EXPECT_EQ(classify(Type::F32, 0x80000001u), 0x25u);
  EXPECT_EQ(classify(Type::F32, 0x7F800000u), 0x6u);
  EXPECT_EQ(classify(Type::F32, 0x7FC00001u), 0x8u);
  EXPECT_EQ(classify(Type::F32, 0x00800000u), 0x15u);
  EXPECT_EQ(classify(Type::F64, 1), 0x25u);
  EXPECT_EQ(classify(Type::F64, D(1.0)), 0x15u);
  EXPECT_EQ(classify(Type::F64, 0x7FF0000000000000ull), 0x6u);
}

// ---------------------------------------------------------------------------------------------
// Half precision

TEST(AluHalf, F16Arithmetic) {
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x3C00, 0x3C00}), 0x4000u);
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x3C00, 0x1000}, 0, Round::Rn), 0x3C00u);  // 1 + 2^-11: tie to even (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x3C01, 0x1000}), 0x3C02u);                 // tie to even, upwards
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x3C01, 0x3C01, 0x0001}, 0, Round::Rn), 0x3C02u);  // (sm_90)
  // (1+2^-10)(1-2^-11) + 9*2^-24 = 1 + 2^-11 + 2^-24 rounds up; through f32 it would be a tie
  // rounded down to 1.0 (double rounding).
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x3C01, 0x3BFF, 0x0009}, 0, Round::Rn), 0x3C01u);
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x7BFF, 0x4000, 0}, 0, Round::Rn), 0x7C00u);  // overflow (sm_90)
  EXPECT_EQ(ev(Op::Mul, Type::F16, {0x7E01, 0x3C00}), 0x7FFFu);                   // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x7C00, 0xFC00}), 0x7FFFu);                   // (sm_90)
  EXPECT_EQ(ev(Op::Sub, Type::F16, {0x3C00, 0x3C00}), 0u);                        // +0 (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x0001, 0}), 1u);                              // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x0001, 0}, ptx::kFtz), 0u);                   // (sm_90)
  EXPECT_EQ(ev(Op::Mul, Type::F16, {0x3BFF, 0x0400}, ptx::kFtz), 0u);  // rounds up to 2^-14: flushed (sm_90)
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x3BFF, 0x0400, 0x8000}, ptx::kFtz, Round::Rn), 0u);      // (sm_90)
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0xBBFF, 0x0400, 0x0000}, ptx::kFtz, Round::Rn), 0x8000u);  // (sm_90)
  // (sm_90) 2^-14 - 2^-34 rounds to 2^-14 even with an unbounded exponent: not tiny, kept.
  EXPECT_EQ(ev(Op::Mul, Type::F16, {0x2001, 0x1FFE}, ptx::kFtz), 0x0400u);
  EXPECT_EQ(ev(Op::Mul, Type::F16x2, {0x20012001u, 0x1FFE1FFEu}, ptx::kFtz), 0x04000400u);
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x2001, 0x1FFE, 0}, ptx::kFtz, Round::Rn), 0x0400u);
  EXPECT_EQ(ev(Op::Mul, Type::F16, {0x3BFF, 0x0400}), 0x0400u);
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x8000, 0x8000}, ptx::kSat), 0u);             // (sm_90)
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x7E01, 0x3C00, 0}, ptx::kSat, Round::Rn), 0u);  // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::F16, {0x3C00, 0x3C00}, ptx::kSat), 0x3C00u);
  // fma .relu (sm_90): negative and -0 give +0, NaN gives the canonical NaN.
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x8000, 0x3C00, 0x8000}, ptx::kRelu, Round::Rn), 0u);
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0xBC00, 0x3C00, 0}, ptx::kRelu, Round::Rn), 0u);
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x7E01, 0x3C00, 0}, ptx::kRelu, Round::Rn), 0x7FFFu);
  EXPECT_EQ(ev(Op::Fma, Type::F16, {0x3C00, 0x3C00, 0x3C00}, ptx::kRelu, Round::Rn), 0x4000u);
  // f16x2: each half separately.
  EXPECT_EQ(ev(Op::Add, Type::F16x2, {0x3C00BC00u, 0x3C003C00u}), 0x40000000u);
  EXPECT_EQ(ev(Op::Fma, Type::F16x2, {0x40003C00u, 0x40004000u, 0xBC003C00u}, 0, Round::Rn), 0x42004200u);
  EXPECT_FALSE(supported(inst(Op::Add, Type::F16, 2, 0, Round::Rz)));
}

TEST(AluHalf, Bf16Arithmetic) {
  EXPECT_EQ(ev(Op::Mul, Type::BF16, {0x3F81, 0x3F81}, 0, Round::Rn), 0x3F82u);        // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::BF16x2, {0x3F803F80u, 0x40003F80u}, 0, Round::Rn), 0x40404000u);  // (sm_90)
  EXPECT_EQ(ev(Op::Fma, Type::BF16, {0x8001, 0x3F80, 0}, ptx::kRelu, Round::Rn), 0u);  // (sm_90)
  EXPECT_EQ(ev(Op::Add, Type::BF16, {0x3F80, 0x3B80}), 0x3F80u);  // 1 + 2^-8: tie to even
  EXPECT_EQ(ev(Op::Add, Type::BF16, {0x3F80, 0x3BC0}), 0x3F81u);  // 1 + 1.5*2^-8
  EXPECT_EQ(ev(Op::Fma, Type::BF16, {0x7F7F, 0x4000, 0}, 0, Round::Rn), 0x7F80u);
  EXPECT_EQ(ev(Op::Sub, Type::BF16, {0x7F80, 0x7F80}), 0x7FFFu);
  EXPECT_FALSE(supported(inst(Op::Add, Type::BF16, 2, ptx::kFtz)));
}

TEST(AluHalf, MinMaxAbsNegApprox) {
  // (sm_90)
  EXPECT_EQ(ev(Op::Min, Type::F16, {0x7E01, 0xFE02}), 0x7FFFu);
  EXPECT_EQ(ev(Op::Max, Type::F16, {0x3C00, 0xFE02}, ptx::kNaN), 0x7FFFu);
  EXPECT_EQ(ev(Op::Max, Type::F16, {0x3C00, 0xFE02}), 0x3C00u);
  EXPECT_EQ(ev(Op::Min, Type::BF16, {0x8000, 0x0000}), 0x8000u);
  EXPECT_EQ(ev(Op::Min, Type::F16x2, {0x3C007E00u, 0x4000BC00u}, ptx::kNaN), 0x3C007FFFu);
  EXPECT_EQ(ev(Op::Max, Type::BF16x2, {0x7FC13F80u, 0x40004000u}), 0x40004000u);
  EXPECT_EQ(ev(Op::Min, Type::F16, {0x8001, 0x0000}, ptx::kFtz), 0x8000u);
  EXPECT_EQ(ev(Op::Abs, Type::F16, {0xFE01}), 0x7FFFu);
  EXPECT_EQ(ev(Op::Neg, Type::F16, {0x7D01}), 0x7FFFu);
  EXPECT_EQ(ev(Op::Neg, Type::BF16, {0x7FC1}), 0x7FFFu);
  EXPECT_EQ(ev(Op::Abs, Type::F16x2, {0xBC00FE01u}), 0x3C007FFFu);
  EXPECT_EQ(ev(Op::Neg, Type::F16, {0x3C00}), 0xBC00u);
  EXPECT_EQ(ev(Op::Abs, Type::F16, {0x8001}, ptx::kFtz), 0u);
  EXPECT_EQ(ev(Op::Ex2, Type::F16, {0x3C00}, ptx::kApprox), 0x4000u);
  EXPECT_EQ(ev(Op::Ex2, Type::F16x2, {0x3C00BC00u}, ptx::kApprox), 0x40003800u);
  EXPECT_EQ(ev(Op::Ex2, Type::BF16, {0x3F80}, ptx::kApprox | ptx::kFtz), 0x4000u);  // (sm_90)
  EXPECT_NEAR(sm::fp::halfToFloat(std::uint16_t(ev(Op::Tanh, Type::F16, {0x3800}, ptx::kApprox))), 0.4621f, 1e-3f);
}

// ---------------------------------------------------------------------------------------------
// Comparison and selection

TEST(AluCompare, SetpIntegerAndCombine) {
  auto setp = [](Type t, Cmp cmp, std::uint64_t a, std::uint64_t b) {
    DecodedInst in = inst(Op::Setp, t, 2);
    in.cmp = cmp;
    Warp w;
    w.setAll(1, a);
    w.setAll(2, b);
    EXPECT_TRUE(w.run(in));
    return w.P[0] == kFullMask;
  };
  EXPECT_TRUE(setp(Type::S32, Cmp::Lt, u32(-1), 1));
  EXPECT_FALSE(setp(Type::U32, Cmp::Lt, u32(-1), 1));
  EXPECT_TRUE(setp(Type::U32, Cmp::Hi, u32(-1), 1));
  EXPECT_TRUE(setp(Type::B32, Cmp::Ls, 1, 1));
  EXPECT_FALSE(setp(Type::U64, Cmp::Lo, 1, 1));
  EXPECT_TRUE(setp(Type::U16, Cmp::Hs, 0xFFFF, 0xFFFE));
  EXPECT_TRUE(setp(Type::S16, Cmp::Le, 0x8000, 0x7FFF));
  EXPECT_TRUE(setp(Type::S64, Cmp::Ge, 5, 5));
  EXPECT_TRUE(setp(Type::B64, Cmp::Ne, 5, 6));
  EXPECT_FALSE(supported([] { DecodedInst in = inst(Op::Setp, Type::S32, 2); in.cmp = Cmp::Ltu; return in; }()));
  // p|q with .and/.or/.xor and a negated source predicate (sm_90 values in comments).
  auto dual = [](SubOp op, bool neg, std::uint64_t a, std::uint64_t b, bool c) {
    Warp w;
    w.setAll(1, a);
    w.setAll(2, b);
    w.P[3] = c ? kFullMask : 0;
    DecodedInst in = inst(Op::Setp, Type::S32, 2, ptx::kDualPred | (neg ? std::uint32_t(ptx::kNegPredSrc) : 0u));
    in.cmp = Cmp::Lt;
    in.sub = op;
    in.ndst = 2;
    in.dst[1] = 1;
    in.src[2] = 3;
    EXPECT_TRUE(w.run(in));
    return (w.P[0] == kFullMask ? 1 : 0) | (w.P[1] == kFullMask ? 2 : 0);
  };
  EXPECT_EQ(dual(SubOp::BoolAnd, true, 1, 2, true), 0);   // p = T & !T, q = F & !T
  EXPECT_EQ(dual(SubOp::BoolXor, false, 1, 2, true), 2);  // p = T ^ T, q = F ^ T
  EXPECT_EQ(dual(SubOp::BoolOr, false, 3, 2, false), 2);  // p = F | F, q = T | F
  EXPECT_EQ(dual(SubOp::BoolAnd, false, 1, 2, true), 1);
  EXPECT_EQ(dual(SubOp::None, false, 1, 2, false), 1);
  // Only executing lanes are written; a sink destination is skipped.
  Warp w;
  for (int l = 0; l < 32; ++l) {
    w.at(1, l) = std::uint64_t(l);
    w.at(2, l) = 16;
  }
  w.P[0] = 0xAAAAAAAAu;
  w.P[1] = 0x55555555u;
  w.c.mask = 0x00FF00FFu;
  DecodedInst in = inst(Op::Setp, Type::U32, 2, ptx::kDualPred);
  in.cmp = Cmp::Lt;
  in.dst[1] = ptx::kNoSlot;
  ASSERT_TRUE(w.run(in));
  EXPECT_EQ(w.P[0], (0xAAAAAAAAu & ~0x00FF00FFu) | 0x000000FFu);
  EXPECT_EQ(w.P[1], 0x55555555u);
}

TEST(AluCompare, SetpFloatUnorderedAndHalf) {
  auto setp = [](Type t, Cmp cmp, std::uint64_t a, std::uint64_t b, std::uint32_t flags = 0) {
    DecodedInst in = inst(Op::Setp, t, 2, flags);
    in.cmp = cmp;
    Warp w;
    w.setAll(1, a);
    w.setAll(2, b);
    EXPECT_TRUE(w.run(in));
    return w.P[0] == kFullMask;
  };
  const std::uint64_t nan = 0x7FC00001u, one = F(1.0f), two = F(2.0f);
  const Cmp ordered[] = {Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge};
  const Cmp unordered[] = {Cmp::Equ, Cmp::Neu, Cmp::Ltu, Cmp::Leu, Cmp::Gtu, Cmp::Geu};
  for (Cmp c : ordered) {
    EXPECT_FALSE(setp(Type::F32, c, nan, one)) << int(c);
    EXPECT_FALSE(setp(Type::F64, c, D(1.0), 0x7FF8000000000001ull)) << int(c);
  }
  for (Cmp c : unordered) {
    EXPECT_TRUE(setp(Type::F32, c, one, nan)) << int(c);
    EXPECT_TRUE(setp(Type::F64, c, 0xFFF8000000000000ull, D(1.0))) << int(c);
  }
  EXPECT_FALSE(setp(Type::F32, Cmp::Neu, one, one));  // (sm_90)
  EXPECT_TRUE(setp(Type::F32, Cmp::Ne, one, two));
  EXPECT_TRUE(setp(Type::F32, Cmp::Leu, one, two));
  EXPECT_FALSE(setp(Type::F32, Cmp::Gtu, one, two));
  EXPECT_TRUE(setp(Type::F32, Cmp::Eq, 0x80000000u, 0));  // -0 == +0
  EXPECT_TRUE(setp(Type::F32, Cmp::Num, one, one));
  EXPECT_FALSE(setp(Type::F32, Cmp::Num, one, nan));
  EXPECT_TRUE(setp(Type::F32, Cmp::Nan, nan, one));
  EXPECT_TRUE(setp(Type::F32, Cmp::Lt, 0x80000001u, 0));             // (sm_90)
  EXPECT_FALSE(setp(Type::F32, Cmp::Lt, 0x80000001u, 0, ptx::kFtz));  // (sm_90)
  EXPECT_TRUE(setp(Type::BF16, Cmp::Nan, 0x7FC1, 0x3F80));            // (sm_90)
  EXPECT_TRUE(setp(Type::F16, Cmp::Lt, 0xBC00, 0x3C00));
  EXPECT_FALSE(supported([] { DecodedInst in = inst(Op::Setp, Type::F32, 2); in.cmp = Cmp::Lo; return in; }()));
  // f16x2 (sm_90): p from the lower halves, q from the upper halves.
  Warp w;
  w.setAll(1, 0x42003C00u);  // {hi 3, lo 1}
  w.setAll(2, 0x40004000u);  // {hi 2, lo 2}
  DecodedInst in = inst(Op::Setp, Type::F16x2, 2, ptx::kDualPred);
  in.cmp = Cmp::Lt;
  in.dst[1] = 1;
  ASSERT_TRUE(w.run(in));
  EXPECT_EQ(w.P[0], kFullMask);
  EXPECT_EQ(w.P[1], 0u);
}

TEST(AluCompare, SetSelpSlct) {
  auto set = [](Type dt, Type st, Cmp cmp, std::uint64_t a, std::uint64_t b) {
    DecodedInst in = inst(Op::Set, st, 2);
    in.type2 = dt;
    in.cmp = cmp;
    return eval(in, {a, b});
  };
  // (sm_90)
  EXPECT_EQ(set(Type::U32, Type::F32, Cmp::Lt, F(1.0f), F(2.0f)), 0xFFFFFFFFu);
  EXPECT_EQ(set(Type::F32, Type::F32, Cmp::Lt, F(1.0f), F(2.0f)), F(1.0f));
  EXPECT_EQ(set(Type::S32, Type::F32, Cmp::Gt, 0x7FC00001u, F(1.0f)), 0u);
  EXPECT_EQ(set(Type::F32, Type::F32, Cmp::Gtu, 0x7FC00001u, F(1.0f)), F(1.0f));
  EXPECT_EQ(set(Type::F16x2, Type::F16x2, Cmp::Lt, 0x42003C00u, 0x40004000u), 0x3C00u);
  EXPECT_EQ(set(Type::U32, Type::F16x2, Cmp::Lt, 0x42003C00u, 0x40004000u), 0xFFFFu);
  EXPECT_EQ(set(Type::U32, Type::S32, Cmp::Ge, 5, 5), 0xFFFFFFFFu);
  // selp: src[2] is a predicate slot.
  Warp w;
  w.setAll(1, 0x1111);
  w.setAll(2, 0x2222);
  w.P[5] = 0x0000FFFFu;
  DecodedInst sel = inst(Op::Selp, Type::B32, 3);
  sel.src[2] = 5;
  ASSERT_TRUE(w.run(sel));
  EXPECT_EQ(w.at(0, 0), 0x1111u);
  EXPECT_EQ(w.at(0, 31), 0x2222u);
  DecodedInst sel64 = inst(Op::Selp, Type::F64, 3);
  sel64.src[2] = 5;
  w.setAll(1, D(1.5));
  ASSERT_TRUE(w.run(sel64));
  EXPECT_EQ(w.at(0, 1), D(1.5));
  // slct (sm_90): c >= 0 selects a; -0 counts as >= 0, NaN does not.
  auto slct = [](Type ct, std::uint32_t flags, std::uint64_t c) {
    DecodedInst in = inst(Op::Slct, Type::U32, 3, flags);
    in.type2 = ct;
    return eval(in, {1, 2, c});
  };
  EXPECT_EQ(slct(Type::F32, 0, 0x80000000u), 1u);
  EXPECT_EQ(slct(Type::F32, 0, 0x7FC00001u), 2u);
  EXPECT_EQ(slct(Type::F32, 0, 0x80000001u), 2u);
  EXPECT_EQ(slct(Type::F32, ptx::kFtz, 0x80000001u), 1u);
  EXPECT_EQ(slct(Type::S32, 0, u32(-1)), 2u);
  EXPECT_EQ(slct(Type::S32, 0, 0), 1u);
}

// ---------------------------------------------------------------------------------------------
// Conversions and moves

TEST(AluCvt, IntToInt) {
  EXPECT_EQ(cvt(Type::S32, Type::S8, 0x80), 0xFFFFFF80u);  // (sm_90)
  EXPECT_EQ(cvt(Type::U16, Type::S8, 0x80), 0xFF80u);      // (sm_90)
  EXPECT_EQ(cvt(Type::U32, Type::U8, 0xFFFFFF80u), 0x80u);  // only the source's bits are read
  EXPECT_EQ(cvt(Type::S64, Type::S32, 0x80000000u), 0xFFFFFFFF80000000ull);
  EXPECT_EQ(cvt(Type::U64, Type::S32, 0xFFFFFFFFu), ~0ull);
  EXPECT_EQ(cvt(Type::S8, Type::S32, 0x1FF), 0xFFFFFFFFu);  // narrow signed: sign-extended in the register (sm_90)
  EXPECT_EQ(cvt(Type::S16, Type::S64, 0x123456789ull), 0x6789u);
  EXPECT_EQ(cvt(Type::U8, Type::S32, u32(-5), ptx::kSat), 0u);  // (sm_90)
  EXPECT_EQ(cvt(Type::U8, Type::S32, 300, ptx::kSat), 255u);
  EXPECT_EQ(cvt(Type::S8, Type::S32, u32(-300), ptx::kSat), 0xFFFFFF80u);
  EXPECT_EQ(cvt(Type::S32, Type::U32, 0xFFFFFFFFu, ptx::kSat), 0x7FFFFFFFu);
  EXPECT_EQ(cvt(Type::U32, Type::S64, 0x8000000000000000ull, ptx::kSat), 0u);
  EXPECT_EQ(cvt(Type::S64, Type::U64, ~0ull, ptx::kSat), 0x7FFFFFFFFFFFFFFFull);
  EXPECT_EQ(cvt(Type::U64, Type::S64, std::uint64_t(-1), ptx::kSat), 0u);
}

TEST(AluCvt, FloatToInt) {
  // (sm_90)
  EXPECT_EQ(cvt(Type::S32, Type::F32, 0x7FC00001u, 0, Round::Rzi), 0u);
  EXPECT_EQ(cvt(Type::U32, Type::F32, F(-1.5f), 0, Round::Rzi), 0u);
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(2.5f), 0, Round::Rni), 2u);
  EXPECT_EQ(cvt(Type::S32, Type::F64, D(-2.5), 0, Round::Rni), u32(-2));
  EXPECT_EQ(cvt(Type::S64, Type::F64, D(1e30), 0, Round::Rzi), 0x7FFFFFFFFFFFFFFFull);
  EXPECT_EQ(cvt(Type::U64, Type::F64, 0xFFF0000000000000ull, 0, Round::Rzi), 0u);
  EXPECT_EQ(cvt(Type::S16, Type::F32, F(1e6f), 0, Round::Rzi), 0x7FFFu);
  EXPECT_EQ(cvt(Type::S32, Type::F32, 0x80000001u, 0, Round::Rmi), 0xFFFFFFFFu);
  EXPECT_EQ(cvt(Type::S32, Type::F32, 0x80000001u, ptx::kFtz, Round::Rmi), 0u);
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(-2147483904.0f), 0, Round::Rzi), 0x80000000u);
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(0.1f), 0, Round::Rpi), 1u);
  EXPECT_EQ(cvt(Type::U8, Type::F32, F(300.0f), 0, Round::Rzi), 0xFFu);
  EXPECT_EQ(cvt(Type::S8, Type::F32, F(-300.0f), 0, Round::Rzi), 0xFFFFFF80u);  // -128, sign-extended (sm_90)
  EXPECT_EQ(cvt(Type::U16, Type::F16, 0x7C00, 0, Round::Rzi), 0xFFFFu);
  // NaN gives 0, but the sign bit alone into 64-bit integers or from f64 (sm_90).
  EXPECT_EQ(cvt(Type::U32, Type::F32, 0x7FC00001u, 0, Round::Rni), 0u);
  EXPECT_EQ(cvt(Type::S16, Type::F16, 0x7E01, 0, Round::Rzi), 0u);
  EXPECT_EQ(cvt(Type::U64, Type::F32, 0x7FC00000u, 0, Round::Rzi), 0x8000000000000000ull);
  EXPECT_EQ(cvt(Type::S64, Type::BF16, 0x7FC1, 0, Round::Rmi), 0x8000000000000000ull);
  EXPECT_EQ(cvt(Type::U8, Type::F64, 0x7FF8000000000001ull, 0, Round::Rni), 0x80u);
  EXPECT_EQ(cvt(Type::S32, Type::F64, 0xFFF8000000000002ull, 0, Round::Rzi), 0x80000000u);
  // Hand-derived.
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(-2.5f), 0, Round::Rni), u32(-2));
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(3.5f), 0, Round::Rni), 4u);
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(-2.5f), 0, Round::Rmi), u32(-3));
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(-2.5f), 0, Round::Rpi), u32(-2));
  EXPECT_EQ(cvt(Type::S32, Type::F32, F(-2.7f)), u32(-2));  // no modifier: .rzi
  EXPECT_EQ(cvt(Type::U64, Type::F32, F(0x1p64f), 0, Round::Rzi), ~0ull);
  EXPECT_EQ(cvt(Type::U64, Type::F32, F(0x1p63f), 0, Round::Rzi), 0x8000000000000000ull);
  EXPECT_EQ(cvt(Type::S64, Type::F32, F(-0x1p63f), 0, Round::Rzi), 0x8000000000000000ull);
  EXPECT_EQ(cvt(Type::S64, Type::F64, D(-0x1p64), 0, Round::Rzi), 0x8000000000000000ull);
  EXPECT_EQ(cvt(Type::S32, Type::BF16, 0xC2F7, 0, Round::Rzi), u32(-123));
}

TEST(AluCvt, IntToFloat) {
  // (sm_90)
  EXPECT_EQ(cvt(Type::F32, Type::U64, ~0ull, 0, Round::Rn), 0x5F800000u);
  EXPECT_EQ(cvt(Type::F32, Type::U64, ~0ull, 0, Round::Rz), 0x5F7FFFFFu);
  EXPECT_EQ(cvt(Type::F16, Type::S32, 70000, 0, Round::Rn), 0x7C00u);
  EXPECT_EQ(cvt(Type::F16, Type::S32, 70000, 0, Round::Rz), 0x7BFFu);
  EXPECT_EQ(cvt(Type::F16, Type::U16, 65535, 0, Round::Rn), 0x7C00u);
  EXPECT_EQ(cvt(Type::F32, Type::S32, 5, ptx::kSat, Round::Rn), F(1.0f));
  EXPECT_EQ(cvt(Type::F32, Type::S64, std::uint64_t(-((std::int64_t(1) << 62) + 1)), 0, Round::Rm), 0xDE800001u);
  EXPECT_EQ(cvt(Type::F64, Type::U64, ~0ull, 0, Round::Rp), 0x43F0000000000000ull);
  // Hand-derived: 2^24 + 1 under each mode, and a 64-bit value needing a sticky bit.
  EXPECT_EQ(cvt(Type::F32, Type::S32, 0x1000001, 0, Round::Rn), F(16777216.0f));
  EXPECT_EQ(cvt(Type::F32, Type::S32, 0x1000001, 0, Round::Rp), F(16777218.0f));
  EXPECT_EQ(cvt(Type::F32, Type::S32, u32(-0x1000001), 0, Round::Rm), F(-16777218.0f));
  EXPECT_EQ(cvt(Type::F32, Type::S32, u32(-0x1000001), 0, Round::Rz), F(-16777216.0f));
  EXPECT_EQ(cvt(Type::F32, Type::U64, 0x8000008000000001ull, 0, Round::Rn), 0x5F000001u);
  EXPECT_EQ(cvt(Type::F64, Type::U64, 0x8000000000000401ull, 0, Round::Rn), 0x43E0000000000001ull);
  EXPECT_EQ(cvt(Type::F64, Type::S64, 0x8000000000000000ull), D(-0x1p63));
  EXPECT_EQ(cvt(Type::BF16, Type::S32, 257, 0, Round::Rn), 0x4380u);  // tie to even
  EXPECT_EQ(cvt(Type::BF16, Type::S32, 259, 0, Round::Rn), 0x4382u);
  EXPECT_EQ(cvt(Type::F16, Type::S8, 0x80, 0, Round::Rn), 0xD800u);
  EXPECT_EQ(cvt(Type::F32, Type::U32, 0, 0, Round::Rm), 0u);  // +0 under every mode
}

TEST(AluCvt, FloatToFloat) {
  // (sm_90) rounding to f16/bf16/tf32, overflow, subnormals, ties.
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(65520.0f), 0, Round::Rn), 0x7C00u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(1e6f), 0, Round::Rz), 0x7BFFu);
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0xFF800000u, 0, Round::Rz), 0xFC00u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(1.0f + 0x1p-11f), 0, Round::Rn), 0x3C00u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(1.0f + 3 * 0x1p-11f), 0, Round::Rn), 0x3C02u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(0x1p-25f), 0, Round::Rn), 0u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(3 * 0x1p-25f), 0, Round::Rn), 2u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0x80000000u, 0, Round::Rn), 0x8000u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(2.0f), ptx::kSat, Round::Rn), 0x3C00u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, F(1.0f + 0x1p-8f), 0, Round::Rn), 0x3F80u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, F(1.0f + 3 * 0x1p-8f), 0, Round::Rn), 0x3F82u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, 0x7F7FFFFFu, 0, Round::Rn), 0x7F80u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, 0x7F7FFFFFu, 0, Round::Rz), 0x7F7Fu);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, 0x00008000u, 0, Round::Rn), 0u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, 0x00018000u, 0, Round::Rn), 2u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(1.0 + 0x1p-30), 0, Round::Rz), F(1.0f));
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(1.0 + 0x1p-30), 0, Round::Rp), 0x3F800001u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(1e39), 0, Round::Rn), 0x7F800000u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(1e39), 0, Round::Rz), 0x7F7FFFFFu);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(1e-40), 0, Round::Rn), 0x000116C2u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(1e-40), ptx::kFtz, Round::Rn), 0u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(0x1p-126 - 0x1p-152), ptx::kFtz, Round::Rn), 0x00800000u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(0x1p-126 - 0x1p-150), ptx::kFtz, Round::Rn), 0u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, D(0x1p-126 - 0x1p-152), ptx::kFtz, Round::Rz), 0u);
  EXPECT_EQ(cvt(Type::F32, Type::F32, 0x80000000u, ptx::kSat), 0u);
  EXPECT_EQ(cvt(Type::F32, Type::F32, F(-0.5f), 0, Round::Rzi), 0x80000000u);
  EXPECT_EQ(cvt(Type::F32, Type::F32, F(2.5f), 0, Round::Rni), F(2.0f));
  EXPECT_EQ(cvt(Type::F32, Type::F32, F(-2.5f), 0, Round::Rmi), F(-3.0f));
  EXPECT_EQ(cvt(Type::F64, Type::F64, D(2.5), 0, Round::Rpi), D(3.0));
  EXPECT_EQ(cvt(Type::F32, Type::F32, 0x80000001u, ptx::kFtz, Round::Rmi), 0x80000000u);
  EXPECT_EQ(cvt(Type::F64, Type::F32, 1), D(0x1p-149));
  EXPECT_EQ(cvt(Type::F32, Type::F16, 0x0001), F(0x1p-24f));
  EXPECT_EQ(cvt(Type::F32, Type::BF16, 0xC2F7), F(-123.5f));
  EXPECT_EQ(cvt(Type::BF16, Type::F16, 0x3C01, 0, Round::Rz), 0x3F80u);
  EXPECT_EQ(cvt(Type::F16, Type::F64, D(1.0 + 0x1p-11 + 0x1p-40), 0, Round::Rn), 0x3C01u);  // no double rounding
  // .relu (sm_90): negatives and -0 become +0, NaN stays the canonical NaN.
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0x80000000u, ptx::kRelu, Round::Rn), 0u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, F(-1.0f), ptx::kRelu, Round::Rn), 0u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0x7FC00001u, ptx::kRelu, Round::Rn), 0x7FFFu);
  // (sm_90) .ftz does not flush an f32 source converted to f16 (it does for bf16).
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0x80741B94u, ptx::kFtz, Round::Rm), 0x8001u);
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0x00741B94u, ptx::kFtz, Round::Rp), 0x0001u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, 0x80741B94u, ptx::kFtz, Round::Rm), 0x8000u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, 0x80741B94u, 0, Round::Rm), 0x8075u);
  // tf32 (sm_90): 10-bit mantissa, rounded to nearest with ties away.
  EXPECT_EQ(cvt(Type::TF32, Type::F32, F(1.0f + 0x1p-11f), 0, Round::Rna), 0x3F802000u);
  EXPECT_EQ(cvt(Type::TF32, Type::F32, F(1.0f + 0x1p-11f + 0x1p-23f), 0, Round::Rna), 0x3F802000u);
  EXPECT_EQ(cvt(Type::TF32, Type::F32, 0x7F7FFFFFu, 0, Round::Rna), 0x7F800000u);
  EXPECT_EQ(cvt(Type::TF32, Type::F32, 0x00000FFFu, 0, Round::Rna), 0u);
  EXPECT_EQ(cvt(Type::TF32, Type::F32, F(1.0f + 0x1p-11f), 0, Round::Rn), 0x3F800000u);
}

TEST(AluCvt, NaNConversions) {
  // (sm_90)
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0x7FC00001u, 0, Round::Rn), 0x7FFFu);
  EXPECT_EQ(cvt(Type::F16, Type::F32, 0xFFC00001u, 0, Round::Rn), 0x7FFFu);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, 0x7FC00001u, 0, Round::Rn), 0x7FFFu);
  EXPECT_EQ(cvt(Type::F32, Type::F16, 0x7E01), 0x7FFFFFFFu);
  EXPECT_EQ(cvt(Type::F32, Type::F16, 0xFE01), 0x7FFFFFFFu);
  EXPECT_EQ(cvt(Type::F32, Type::BF16, 0x7FC1), 0x7FC10000u);
  EXPECT_EQ(cvt(Type::F64, Type::F32, 0x7FC00001u), 0x7FF8000020000000ull);
  EXPECT_EQ(cvt(Type::F64, Type::F32, 0x7F800001u), 0x7FF8000020000000ull);
  EXPECT_EQ(cvt(Type::F64, Type::F16, 0x7E01), 0x7FF8040000000000ull);
  EXPECT_EQ(cvt(Type::F64, Type::BF16, 0x7FC1), 0x7FF8200000000000ull);
  EXPECT_EQ(cvt(Type::F32, Type::F64, 0x7FF8000000000001ull, 0, Round::Rn), 0x7FC00000u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, 0xFFF8123456789ABCull, 0, Round::Rn), 0xFFC091A2u);
  EXPECT_EQ(cvt(Type::F32, Type::F64, 0x7FF0000000000001ull, 0, Round::Rn), 0x7FC00000u);
  EXPECT_EQ(cvt(Type::F16, Type::F64, 0xFFF8000000000002ull, 0, Round::Rn), 0xFE00u);
  EXPECT_EQ(cvt(Type::BF16, Type::F64, 0xFFF8000000000002ull, 0, Round::Rn), 0xFFC0u);
  EXPECT_EQ(cvt(Type::F32, Type::F32, 0x7F800001u), 0x7F800001u);
  EXPECT_EQ(cvt(Type::F64, Type::F64, 0x7FF0000000000001ull), 0x7FF0000000000001ull);
  EXPECT_EQ(cvt(Type::F64, Type::F32, 0x7FC00001u, ptx::kFtz), 0x7FFFFFFFE0000000ull);
  EXPECT_EQ(cvt(Type::F32, Type::BF16, 0xFFC1, ptx::kFtz), 0x7FFFFFFFu);
  EXPECT_EQ(cvt(Type::F32, Type::F32, 0x7FC00001u, ptx::kFtz), 0x7FFFFFFFu);
  EXPECT_EQ(cvt(Type::F32, Type::F32, 0x7FC00001u, 0, Round::Rni), 0x7FFFFFFFu);
  EXPECT_EQ(cvt(Type::F64, Type::F64, 0xFFF8000000000002ull, 0, Round::Rzi), 0xFFF8000000000002ull);
  EXPECT_EQ(cvt(Type::F16, Type::F16, 0x7E01, 0, Round::Rni), 0x7FFFu);
  EXPECT_EQ(cvt(Type::TF32, Type::F32, 0x7F800001u, 0, Round::Rna), 0x7F800000u);
  EXPECT_EQ(cvt(Type::TF32, Type::F32, 0xFFC12345u, 0, Round::Rna), 0xFFC12000u);
}

TEST(AluCvt, PackedAndPackSat) {
  // cvt.rn.f16x2.f32 d, a, b: a in the upper half (sm_90).
  DecodedInst p = inst(Op::Cvt, Type::F16x2, 2, 0, Round::Rn);
  p.type2 = Type::F32;
  EXPECT_EQ(eval(p, {F(1.0f), F(2.0f)}), 0x3C004000u);
  p.round = Round::Rz;
  EXPECT_EQ(eval(p, {F(1.0f + 0x1p-11f + 0x1p-20f), F(-(1.0f + 0x1p-11f + 0x1p-20f))}), 0x3C00BC00u);
  DecodedInst b = inst(Op::Cvt, Type::BF16x2, 2, ptx::kRelu, Round::Rn);
  b.type2 = Type::F32;
  EXPECT_EQ(eval(b, {F(-1.0f), F(1.0f)}), 0x00003F80u);
  // cvt.pack.sat (sm_90).
  DecodedInst u8 = inst(Op::CvtPack, Type::U8, 3, ptx::kSat);
  u8.type2 = Type::S32;
  EXPECT_EQ(eval(u8, {300, u32(-5), 0x12345678}), 0x5678FF00u);
  DecodedInst s8 = inst(Op::CvtPack, Type::S8, 3, ptx::kSat);
  s8.type2 = Type::S32;
  EXPECT_EQ(eval(s8, {300, u32(-500), 0x12345678}), 0x56787F80u);
  DecodedInst s16 = inst(Op::CvtPack, Type::S16, 2, ptx::kSat);
  s16.type2 = Type::S32;
  EXPECT_EQ(eval(s16, {40000, u32(-40000)}), 0x7FFF8000u);
  DecodedInst u16 = inst(Op::CvtPack, Type::U16, 2, ptx::kSat);
  u16.type2 = Type::S32;
  EXPECT_EQ(eval(u16, {40000, u32(-40000)}), 0x9C400000u);
}

TEST(AluCvt, ExhaustiveHalfRoundTripAndRandomRounding) {
  // Every f16 and bf16 value survives f16 -> f32 -> f16.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const std::uint16_t v = std::uint16_t(h);
    const bool nan16 = (v & 0x7FFF) > 0x7C00, nanb = (v & 0x7FFF) > 0x7F80;
    if (!nan16) {
      ASSERT_EQ(sm::fp::floatToHalf(sm::fp::halfToFloat(v)), v) << h;
    }
    if (!nanb) {
      ASSERT_EQ(sm::fp::floatToBf16(sm::fp::bf16ToFloat(v)), v) << h;
    }
  }
  // roundPack to f32 agrees with the host's conversion under each rounding mode.
  std::mt19937_64 rng(12345);
  const sm::fp::RMode modes[4] = {sm::fp::RMode::Rn, sm::fp::RMode::Rz, sm::fp::RMode::Rm, sm::fp::RMode::Rp};
  const int fe[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t u = rng();
    const int e = int((u >> 52) & 0x7FF);
    u = (u & 0x800FFFFFFFFFFFFFull) | (std::uint64_t(e % 320 + 1023 - 170) << 52);  // near f32 range
    if (i % 4 == 0) u &= 0xFFFFFFFFE0000000ull | (std::uint64_t(1) << (rng() % 29));  // near ties
    const double d = toD(u);
    for (int m = 0; m < 4; ++m) {
      std::fesetround(fe[m]);
      volatile double vd = d;
      volatile float host = float(vd);  // volatile: keeps the conversion before the mode reset
      std::fesetround(FE_TONEAREST);
      ASSERT_EQ(sm::fp::fromDouble<sm::fp::FmtF32>(d, modes[m], 0), F(host)) << std::hexfloat << d << " mode " << m;
    }
  }
}

TEST(AluCvt, FastHalfRoundingMatchesGenericRounder) {
  // toHalfRn (bit tricks) against roundPack (generic) on every f32 near the f16/bf16 ranges'
  // interesting points and on random doubles, including values rounded to odd.
  auto check = [](double d) {
    ASSERT_EQ(sm::fp::toHalfRn<sm::fp::FmtF16>(d), sm::fp::fromDouble<sm::fp::FmtF16>(d, sm::fp::RMode::Rn, 0x7FFF))
        << std::hexfloat << d;
    ASSERT_EQ(sm::fp::toHalfRn<sm::fp::FmtBF16>(d), sm::fp::fromDouble<sm::fp::FmtBF16>(d, sm::fp::RMode::Rn, 0x7FFF))
        << std::hexfloat << d;
  };
  for (double base : {65504.0, 65520.0, 0x1p-14, 0x1p-24, 0x1p-25, 0x1p-126, 0x1p-133, 0x1p-134, 0x1.fep127, 0x1.ffp127, 1.0}) {
    std::uint32_t b = std::uint32_t(F(float(base)));
    for (std::uint32_t k = b - 40000; k != b + 40000; ++k) {
      check(toF(k));
      check(-toF(k));
    }
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t u = rng();
    u = (u & 0x800FFFFFFFFFFFFFull) | (std::uint64_t(1023 - 140 + int(rng() % 290)) << 52);
    check(toD(u));
  }
  check(0.0);
  check(-0.0);
  check(toD(0x7FF0000000000000ull));
  check(toD(0xFFF0000000000000ull));
}

TEST(AluMov, ScalarPackUnpack) {
  EXPECT_EQ(ev(Op::Mov, Type::B32, {0xFFFFFFFF12345678ull}), 0x12345678u);  // only the type's bits
  EXPECT_EQ(ev(Op::Mov, Type::F64, {D(2.5)}), D(2.5));
  EXPECT_EQ(ev(Op::Mov, Type::U16, {0xABCDEF}), 0xCDEFu);
  EXPECT_EQ(ev(Op::Mov, Type::B64, {0x11111111, 0x22222222}), 0x2222222211111111ull);  // {lo, hi}
  EXPECT_EQ(ev(Op::Mov, Type::B32, {0x1111, 0x2222}), 0x22221111u);
  EXPECT_EQ(ev(Op::Mov, Type::B64, {0x1, 0x2, 0x3, 0x4}), 0x0004000300020001ull);
  EXPECT_EQ(ev(Op::Mov, Type::B32, {0x1, 0x2, 0x3, 0xFF4}), 0xF4030201u);
  // Unpack with a sink element.
  Warp w;
  w.setAll(1, 0x8877665544332211ull);
  DecodedInst un = inst(Op::Mov, Type::B64, 1);
  un.ndst = 4;
  un.dst[0] = 2; un.dst[1] = ptx::kNoSlot; un.dst[2] = 3; un.dst[3] = 4;
  w.c.mask = 0x1;
  ASSERT_TRUE(w.run(un));
  EXPECT_EQ(w.at(2, 0), 0x2211u);
  EXPECT_EQ(w.at(3, 0), 0x6655u);
  EXPECT_EQ(w.at(4, 0), 0x8877u);
  EXPECT_EQ(w.at(2, 1), kGarbage);
  DecodedInst un2 = inst(Op::Mov, Type::B64, 1);
  un2.ndst = 2;
  un2.dst[0] = 5; un2.dst[1] = 6;
  ASSERT_TRUE(w.run(un2));
  EXPECT_EQ(w.at(5, 0), 0x44332211u);
  EXPECT_EQ(w.at(6, 0), 0x88776655u);
}

TEST(AluSelect, UnsupportedCombinations) {
  EXPECT_FALSE(supported(inst(Op::Add, Type::B8, 2)));
  EXPECT_FALSE(supported(inst(Op::Div, Type::B32, 2)));
  EXPECT_FALSE(supported(inst(Op::Sin, Type::F64, 1, ptx::kApprox)));
  EXPECT_FALSE(supported(inst(Op::Add, Type::F32, 2, 0, Round::Rni)));
  EXPECT_FALSE(supported(inst(Op::Ld, Type::U32, 1)));
  EXPECT_FALSE(supported(inst(Op::Min, Type::F64, 2, ptx::kNaN)));
  EXPECT_FALSE(supported(inst(Op::Bfe, Type::B32, 3)));
  DecodedInst p = inst(Op::Prmt, Type::B32, 3);
  p.aux = 7;
  EXPECT_FALSE(supported(p));
  DecodedInst c = inst(Op::Cvt, Type::F32, 1);
  c.type2 = Type::B32;
  EXPECT_FALSE(supported(c));
  EXPECT_TRUE(supported(inst(Op::Fma, Type::F32, 3, ptx::kFtz | ptx::kSat, Round::Rp)));
}
