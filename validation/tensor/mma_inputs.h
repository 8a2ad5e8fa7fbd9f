// The tensor-core probe's variants and inputs, shared by the H100 runner
// (scripts/h100/mma_bits.cu) and the model's test (testbench/tensor_test.cpp): both build the same
// register words from the same generator, so only the H100's outputs need committing
// (docs/data/h100_mma_bits.txt).
//
// Each variant is one kernel `mma_<name>` (or `ldm_<name>`), one warp per tile: lane L of tile T
// reads its A, B and C register words from in[(T * 32 + L) * (a + b + c) ...] and writes its D
// words to out[(T * 32 + L) * d ...]. Register words, not matrices: the comparison checks the
// fragment layouts as well as the arithmetic.
#pragma once

#include <cstdint>
#include <cstring>

namespace mma_probe {

// How a register word's elements are drawn.
enum class Elem : std::uint8_t { F16, BF16, TF32, F32, F64, E4M3, E5M2, Bits };

struct Variant {
  const char* name;          // kernel name without its prefix
  std::uint8_t a, b, c, d;   // 32-bit words per lane (an f64 register is two words)
  Elem ea, eb, ec;
};

constexpr Variant kVariants[] = {
    {"f16_f32_m16n8k16", 4, 2, 4, 4, Elem::F16, Elem::F16, Elem::F32},
    {"f16_f16_m16n8k16", 4, 2, 2, 2, Elem::F16, Elem::F16, Elem::F16},
    {"f16_f32_m16n8k8", 2, 1, 4, 4, Elem::F16, Elem::F16, Elem::F32},
    {"bf16_f32_m16n8k16", 4, 2, 4, 4, Elem::BF16, Elem::BF16, Elem::F32},
    {"bf16_f32_m16n8k8", 2, 1, 4, 4, Elem::BF16, Elem::BF16, Elem::F32},
    {"tf32_f32_m16n8k8", 4, 2, 4, 4, Elem::TF32, Elem::TF32, Elem::F32},
    {"tf32_f32_m16n8k4", 2, 1, 4, 4, Elem::TF32, Elem::TF32, Elem::F32},
    {"e4m3_f32_m16n8k32", 4, 2, 4, 4, Elem::E4M3, Elem::E4M3, Elem::F32},
    {"e5m2_f32_m16n8k32", 4, 2, 4, 4, Elem::E5M2, Elem::E5M2, Elem::F32},
    {"s8_s32_m16n8k32", 4, 2, 4, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"u8s8_s32_m16n8k32_satfinite", 4, 2, 4, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"s8_s32_m16n8k16", 2, 1, 4, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"s8_s32_m8n8k16", 1, 1, 2, 2, Elem::Bits, Elem::Bits, Elem::Bits},
    {"s4_s32_m16n8k64", 4, 2, 4, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"b1_s32_m16n8k256_xor", 4, 2, 4, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"b1_s32_m16n8k256_and", 4, 2, 4, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"f64_m8n8k4", 2, 2, 4, 4, Elem::F64, Elem::F64, Elem::F64},
    {"f64_m16n8k8", 8, 4, 8, 8, Elem::F64, Elem::F64, Elem::F64},
    // ldmatrix: A is 16 words of shared memory per lane (2 KiB per tile), B and C unused; the
    // lane's row address is a permutation of the rows (see the kernel).
    {"ldmatrix_x1", 16, 0, 0, 1, Elem::Bits, Elem::Bits, Elem::Bits},
    {"ldmatrix_x2", 16, 0, 0, 2, Elem::Bits, Elem::Bits, Elem::Bits},
    {"ldmatrix_x4", 16, 0, 0, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"ldmatrix_x4_trans", 16, 0, 0, 4, Elem::Bits, Elem::Bits, Elem::Bits},
    {"movmatrix_trans", 1, 0, 0, 1, Elem::Bits, Elem::Bits, Elem::Bits},
    // wmma (CUDA's nvcuda::wmma, through shared memory): the lanes' words, lane after lane, are
    // the A, B and C matrices (A row-major, B column-major, C and D row-major); D comes back the
    // same way. Fragments are opaque, so only the matrices are compared.
    {"wmma_f16_f32_m16n16k16", 4, 4, 8, 8, Elem::F16, Elem::F16, Elem::F32},
    {"wmma_f16_f16_m16n16k16", 4, 4, 4, 4, Elem::F16, Elem::F16, Elem::F16},
    {"wmma_bf16_f32_m16n16k16", 4, 4, 8, 8, Elem::BF16, Elem::BF16, Elem::F32},
    {"wmma_f16_f32_m32n8k16", 8, 2, 8, 8, Elem::F16, Elem::F16, Elem::F32},
    {"wmma_tf32_f32_m16n16k8", 4, 4, 8, 8, Elem::TF32, Elem::TF32, Elem::F32},
    {"wmma_s8_s32_m16n16k16", 2, 2, 8, 8, Elem::Bits, Elem::Bits, Elem::Bits},
    {"wmma_f64_m8n8k4", 2, 2, 4, 4, Elem::F64, Elem::F64, Elem::F64},
};
constexpr int kNumVariants = int(sizeof(kVariants) / sizeof(kVariants[0]));
constexpr int kTiles = 32;  // tile % 4 picks the value class (see word())

inline std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A random exponent offset for a value class: 0 near 1, 1 wide, 2 wide and larger for C (so that
// alignment truncates the products), 3 near 1 with specials mixed in.
inline int exponentFor(std::uint64_t r, int cls, int span_wide) {
  const int near = int(r % 7) - 3;
  return cls == 1 || cls == 2 ? int(r % (2 * span_wide + 1)) - span_wide : near;
}

// One f16/bf16 element.
inline std::uint16_t half16(std::uint64_t& s, int cls, bool bf16) {
  const std::uint64_t r = splitmix(s);
  const std::uint16_t sign = std::uint16_t((r >> 40) & 1) << 15;
  if (cls == 3 && (r >> 48) % 8 == 0) {
    const std::uint16_t sp_h[] = {0x0000, 0x0001, 0x03FF, 0x7C00, 0x7E00, 0x0400};
    const std::uint16_t sp_b[] = {0x0000, 0x0001, 0x007F, 0x7F80, 0x7FC0, 0x0080};
    return std::uint16_t(sign | (bf16 ? sp_b : sp_h)[(r >> 52) % 6]);
  }
  if (bf16) {
    const int e = 127 + exponentFor(r >> 8, cls, 40);
    return std::uint16_t(sign | std::uint16_t(e << 7) | std::uint16_t(r & 0x7F));
  }
  const int e = 15 + exponentFor(r >> 10, cls, 12);
  return std::uint16_t(sign | std::uint16_t(e << 10) | std::uint16_t(r & 0x3FF));
}

inline std::uint32_t single32(std::uint64_t& s, int cls, bool big) {
  const std::uint64_t r = splitmix(s);
  const std::uint32_t sign = std::uint32_t((r >> 40) & 1) << 31;
  if (cls == 3 && (r >> 48) % 8 == 0) {
    const std::uint32_t sp[] = {0x00000000u, 0x00000001u, 0x007FFFFFu, 0x7F800000u, 0x7FC00000u, 0x00800000u};
    return sign | sp[(r >> 52) % 6];
  }
  const int e = 127 + exponentFor(r >> 24, cls, 40) + (big && cls == 2 ? 12 : 0);
  return sign | std::uint32_t(e) << 23 | std::uint32_t(r & 0x7FFFFF);
}

inline std::uint64_t double64(std::uint64_t& s, int cls) {
  const std::uint64_t r = splitmix(s), m = splitmix(s);
  const std::uint64_t sign = ((r >> 40) & 1) << 63;
  if (cls == 3 && (r >> 48) % 8 == 0) {
    const std::uint64_t sp[] = {0, 1, 0x000FFFFFFFFFFFFFull, 0x7FF0000000000000ull, 0x7FF8000000000000ull,
                                0x0010000000000000ull};
    return sign | sp[(r >> 52) % 6];
  }
  const int e = 1023 + exponentFor(r >> 8, cls, 60);
  return sign | std::uint64_t(e) << 52 | (m & 0x000FFFFFFFFFFFFFull);
}

// An 8-bit float: any code, NaN and infinity included in class 3 only.
inline std::uint8_t fp8(std::uint64_t& s, int cls, bool e5m2) {
  for (;;) {
    const std::uint8_t v = std::uint8_t(splitmix(s));
    const bool special = e5m2 ? ((v & 0x7C) == 0x7C) : ((v & 0x7F) == 0x7F);
    if (!special || cls == 3) return v;
  }
}

// Fills `n` 32-bit words of element kind `e` for tile class `cls`; `is_c` marks the accumulator.
inline void fillWords(std::uint32_t* w, int n, Elem e, int cls, bool is_c, std::uint64_t& s) {
  for (int i = 0; i < n; ++i) {
    switch (e) {
      case Elem::F16: case Elem::BF16:
        w[i] = half16(s, cls, e == Elem::BF16) | std::uint32_t(half16(s, cls, e == Elem::BF16)) << 16;
        break;
      case Elem::TF32: case Elem::F32: w[i] = single32(s, cls, is_c); break;
      case Elem::E4M3: case Elem::E5M2: {
        std::uint32_t v = 0;
        for (int k = 0; k < 4; ++k) v |= std::uint32_t(fp8(s, cls, e == Elem::E5M2)) << (8 * k);
        w[i] = v;
        break;
      }
      case Elem::F64: {
        const std::uint64_t d = double64(s, cls);
        w[i] = std::uint32_t(d);
        if (i + 1 < n) w[++i] = std::uint32_t(d >> 32);
        break;
      }
      case Elem::Bits: w[i] = std::uint32_t(splitmix(s)); break;
    }
  }
}

// The input words of one variant: kTiles x 32 lanes x (a + b + c) words.
inline void makeInputs(int variant, std::uint32_t* in) {
  const Variant& v = kVariants[variant];
  const int per_lane = v.a + v.b + v.c;
  for (int t = 0; t < kTiles; ++t) {
    std::uint64_t s = 0x5CA1AB1Eull * std::uint64_t(variant + 1) + std::uint64_t(t) * 0x10001ull;
    for (int lane = 0; lane < 32; ++lane) {
      std::uint32_t* w = in + (std::size_t(t) * 32 + lane) * per_lane;
      fillWords(w, v.a, v.ea, t % 4, false, s);
      fillWords(w + v.a, v.b, v.eb, t % 4, false, s);
      fillWords(w + v.a + v.b, v.c, v.ec, t % 4, true, s);
    }
  }
}

}  // namespace mma_probe
