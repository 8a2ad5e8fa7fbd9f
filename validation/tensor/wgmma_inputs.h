// The wgmma probe's variants, inputs and kernels, shared by the H100 runner
// (scripts/h100/wgmma_bits.cu, which loads the kernels' PTX through the CUDA driver) and the model's
// test (testbench/wgmma_test.cpp, WgmmaVsH100): both build the same shared-memory images and
// register words from the same generator and run the same PTX text, so only the H100's outputs
// need committing (docs/data/h100_wgmma_bits.txt).
//
// Each variant is one kernel `wgmma_<name>`, one warpgroup (128 threads) per tile: tile T copies
// img[T * smem_bytes ...] into its shared memory, thread t loads its D (accumulator) words and A's
// four register words from frag[(T * 128 + t) * (d + 4) ...], runs one wgmma.mma_async (fence,
// commit, wait 0) with the variant's descriptors (their start addresses offset by the shared
// array's), and writes its D words to out[(T * 128 + t) * d ...]. The elements come from
// validation/tensor/mma_inputs.h's classes (tile % 4: near 1, wide, wide with a large C, specials),
// so the comparison checks descriptors, swizzles, fragment layouts and the arithmetic at once.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "validation/tensor/mma_inputs.h"

namespace wgmma_probe {

enum class T : std::uint8_t { F16, BF16, TF32, E4M3, E5M2, S8, U8, B1, F32, S32 };

inline int bitsOf(T t) {
  switch (t) {
    case T::F16: case T::BF16: return 16;
    case T::TF32: case T::F32: case T::S32: return 32;
    case T::B1: return 1;
    default: return 8;
  }
}
inline const char* nameOf(T t) {
  static const char* n[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "f32", "s32"};
  return n[int(t)];
}
inline int kOf(T a) { return a == T::F16 || a == T::BF16 ? 16 : a == T::TF32 ? 8 : a == T::B1 ? 256 : 32; }

struct Variant {
  const char* name;
  T d, a, b;
  int n;
  bool a_regs;
  int swz_a, swz_b;        // 0 (none), 32, 64, 128 bytes
  bool trans_a, trans_b;   // MN-major (16-bit types)
  bool neg_a, neg_b;
  bool satfinite;
  int a_start;             // A's start within its 1024-byte-aligned region (base-offset experiment)
  int scale_d;             // 1: D = A B + D; 0: D = A B
};

constexpr Variant kVariants[] = {
    {"f16_f32_n64_sw128", T::F32, T::F16, T::F16, 64, false, 128, 128, false, false, false, false, false, 0, 1},
    {"f16_f32_n256_areg_sw64", T::F32, T::F16, T::F16, 256, true, 0, 64, false, false, false, false, false, 0, 1},
    {"f16_f16_n32_interleave", T::F16, T::F16, T::F16, 32, false, 0, 0, false, false, false, false, false, 0, 1},
    {"f16_f32_n128_trans_sw128_sw32", T::F32, T::F16, T::F16, 128, false, 128, 32, true, true, false, false, false, 0, 1},
    {"bf16_f32_n64_trans_sw64", T::F32, T::BF16, T::BF16, 64, false, 64, 64, true, false, true, false, false, 0, 1},
    {"bf16_f32_n96_interleave_transb", T::F32, T::BF16, T::BF16, 96, false, 0, 0, false, true, false, true, false, 0, 0},
    {"tf32_f32_n32_sw32", T::F32, T::TF32, T::TF32, 32, false, 32, 32, false, false, false, false, false, 0, 1},
    {"tf32_f32_n64_areg_sw128", T::F32, T::TF32, T::TF32, 64, true, 0, 128, false, false, false, false, false, 0, 1},
    {"e4m3_f32_n64_sw128", T::F32, T::E4M3, T::E4M3, 64, false, 128, 128, false, false, false, false, false, 0, 1},
    {"e5m2e4m3_f32_n32_sw64", T::F32, T::E5M2, T::E4M3, 32, false, 64, 64, false, false, false, false, false, 0, 1},
    {"e4m3_f16_n64_areg", T::F16, T::E4M3, T::E4M3, 64, true, 0, 128, false, false, true, false, false, 0, 1},
    {"s8_s32_n64_sw128", T::S32, T::S8, T::S8, 64, false, 128, 128, false, false, false, false, false, 0, 1},
    {"u8s8_s32_n32_satfinite", T::S32, T::U8, T::S8, 32, false, 32, 0, false, false, false, false, true, 0, 1},
    {"b1_s32_n64_and", T::S32, T::B1, T::B1, 64, false, 128, 64, false, false, false, false, false, 0, 1},
    // A's 128-byte swizzle pattern starting 384 bytes into its 1024-byte block (descriptor base
    // offset (384 >> 7) & 7 = 3; the image is laid out with the pattern counted from its start).
    {"f16_f32_n64_sw128_base3", T::F32, T::F16, T::F16, 64, false, 128, 128, false, false, false, false, false, 384, 1},
};
constexpr int kNumVariants = int(sizeof(kVariants) / sizeof(kVariants[0]));
constexpr int kTiles = 8;

// A matrix in shared memory: K-major or MN-major, swizzle bytes, descriptor offsets.
struct Layout {
  bool k_major = true;
  int swizzle = 0;
  std::uint32_t start = 0, lbo = 0, sbo = 0, base = 0;
};

// The bit address of element (mn, k) (mn: row of A, column of B): the PTX ISA's canonical layouts
// in CuTe form ("Canonical Layouts"; T elements fill 16 bytes), strides in elements, then CuTe's
// Swizzle<B,4,3> on the byte address counted from the pattern's start (base offset).
inline std::uint64_t bitAddress(const Layout& s, int ebits, int mn, int k) {
  const std::uint64_t T = 128 / std::uint64_t(ebits);
  auto el = [&](std::uint64_t bytes) { return bytes * 8 / std::uint64_t(ebits); };
  std::uint64_t e;
  if (s.k_major) {  // ((8,m),(T,2k)) : ((S/16 T | 1T, SBO), (1, T | LBO))
    const std::uint64_t r0 = std::uint64_t(mn) % 8, r1 = std::uint64_t(mn) / 8, c0 = std::uint64_t(k) % T,
                        c1 = std::uint64_t(k) / T;
    const std::uint64_t row = s.swizzle ? std::uint64_t(s.swizzle) / 16 * T : T, col = s.swizzle ? T : el(s.lbo);
    e = r0 * row + r1 * el(s.sbo) + c0 + c1 * col;
  } else {  // ((T,W,m),(8,k)) : ((1,T,LBO | SBO),(W T, SBO | LBO)), W = S/16 (1 without swizzle)
    const std::uint64_t W = s.swizzle ? std::uint64_t(s.swizzle) / 16 : 1;
    const std::uint64_t i0 = std::uint64_t(mn) % T, i1 = (std::uint64_t(mn) / T) % W, i2 = std::uint64_t(mn) / (T * W),
                        k0 = std::uint64_t(k) % 8, k1 = std::uint64_t(k) / 8;
    e = i0 + i1 * T + i2 * el(s.swizzle ? s.lbo : s.sbo) + k0 * W * T + k1 * el(s.swizzle ? s.sbo : s.lbo);
  }
  std::uint64_t byte = s.start + e * std::uint64_t(ebits) / 8;
  const std::uint64_t bit = e * std::uint64_t(ebits) % 8;
  if (s.swizzle) {
    const std::uint64_t b = s.swizzle == 32 ? 1 : s.swizzle == 64 ? 2 : 3;
    const std::uint64_t rel = byte - (std::uint64_t(s.base) << 7);  // counted from the pattern's start
    byte ^= (rel & (((1ull << b) - 1) << 7)) >> 3;
  }
  return byte * 8 + bit;
}

inline std::uint64_t descriptor(const Layout& s) {
  const std::uint64_t mode = s.swizzle == 128 ? 1 : s.swizzle == 64 ? 2 : s.swizzle == 32 ? 3 : 0;
  return ((s.start & 0x3FFFF) >> 4) | std::uint64_t((s.lbo & 0x3FFFF) >> 4) << 16 |
         std::uint64_t((s.sbo & 0x3FFFF) >> 4) << 32 | std::uint64_t(s.base & 7) << 49 | mode << 62;
}

// A rows x K operand (rows: 64 for A, N for B) of `ebits`-bit elements at `start`: core matrices
// or swizzle atoms one after another; *bytes: the bytes it spans from start.
inline Layout canonical(bool k_major, int swizzle, std::uint32_t start, int rows, int ebits, std::uint32_t* bytes) {
  Layout s;
  s.k_major = k_major;
  s.swizzle = swizzle;
  s.start = start;
  const std::uint32_t r = std::uint32_t(rows);
  if (k_major) {
    if (!swizzle) {
      s.sbo = 128;
      s.lbo = r / 8 * 128;
      *bytes = s.lbo * 2;
    } else {
      s.lbo = 16;
      s.sbo = 8 * std::uint32_t(swizzle);
      *bytes = r * std::uint32_t(swizzle);
    }
  } else if (!swizzle) {
    s.sbo = 128;
    s.lbo = r / 8 * 128;
    *bytes = s.lbo * 2;
  } else {
    const std::uint32_t per_row = std::uint32_t(swizzle) * 8 / std::uint32_t(ebits);
    s.lbo = 8 * std::uint32_t(swizzle);
    s.sbo = (r + per_row - 1) / per_row * s.lbo;
    *bytes = 2 * s.sbo;
  }
  return s;
}

struct Shape {
  Layout a, b;
  std::uint32_t smem_bytes = 0;
  int d_words = 0;  // per thread
};
inline Shape shapeOf(const Variant& v) {
  Shape s;
  std::uint32_t ba = 0, bb = 0;
  s.a = canonical(!v.trans_a, v.swz_a, std::uint32_t(v.a_start), 64, bitsOf(v.a), &ba);
  if (v.a_start) s.a.base = (std::uint32_t(v.a_start) >> 7) & 7;
  const std::uint32_t b_start = v.a_regs ? 0 : (std::uint32_t(v.a_start) + ba + 1023) / 1024 * 1024;
  s.b = canonical(!v.trans_b, v.swz_b, b_start, v.n, bitsOf(v.b), &bb);
  s.smem_bytes = (b_start + bb + 1023) / 1024 * 1024;
  s.d_words = v.d == T::F16 ? v.n / 4 : v.n / 2;
  return s;
}

// One element's bits for tile class `cls` (mma_inputs.h's generators).
inline std::uint32_t element(T t, int cls, bool is_c, std::uint64_t& s) {
  switch (t) {
    case T::F16: case T::BF16: return mma_probe::half16(s, cls, t == T::BF16);
    case T::TF32: case T::F32: return mma_probe::single32(s, cls, is_c);
    case T::E4M3: case T::E5M2: return mma_probe::fp8(s, cls, t == T::E5M2);
    case T::B1: return std::uint32_t(mma_probe::splitmix(s) & 1);
    case T::S32: return std::uint32_t(mma_probe::splitmix(s)) >> (cls == 2 ? 1 : 8) ^ (cls == 2 ? 0x40000000u : 0);
    default: return std::uint32_t(mma_probe::splitmix(s) & 0xFF);
  }
}

// Fragment cells (PTX ISA figures "WGMMA .m64nNk* register fragment layout"): D's element i of lane
// L in warp w of the warpgroup; A's element i (`per` elements a register).
inline void dCell(int w, int lane, int i, int& row, int& col) {
  row = 16 * w + lane / 4 + 8 * ((i / 2) % 2);
  col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
}
inline void aCell(int w, int lane, int i, int per, int& row, int& col) {
  const int r = i / per, j = i % per;
  row = 16 * w + lane / 4 + 8 * (r % 2);
  col = (lane % 4) * per + j + (r / 2) * 4 * per;
}

inline void putBits(std::uint8_t* img, std::uint64_t bitaddr, int ebits, std::uint32_t v) {
  for (int i = 0; i < ebits; ++i) {
    const std::uint64_t b = bitaddr + std::uint64_t(i);
    img[b / 8] = std::uint8_t((img[b / 8] & ~(1u << (b % 8))) | (((v >> i) & 1u) << (b % 8)));
  }
}

// Inputs of all tiles of a variant: img (kTiles x smem_bytes) and frag (kTiles x 128 x (d + 4) words).
inline void makeInputs(int variant, std::vector<std::uint8_t>& img, std::vector<std::uint32_t>& frag) {
  const Variant& v = kVariants[variant];
  const Shape sh = shapeOf(v);
  const int k = kOf(v.a), ab = bitsOf(v.a), bb = bitsOf(v.b), db = bitsOf(v.d);
  const int fw = sh.d_words + 4;
  img.assign(std::size_t(kTiles) * sh.smem_bytes, 0);
  frag.assign(std::size_t(kTiles) * 128 * std::size_t(fw), 0);
  for (int t = 0; t < kTiles; ++t) {
    std::uint64_t s = 0x3C0FFEEull * std::uint64_t(variant + 1) + std::uint64_t(t) * 0x10001ull;
    const int cls = t % 4;
    std::vector<std::uint32_t> a(64 * std::size_t(k)), b(std::size_t(k) * std::size_t(v.n)),
        c(64 * std::size_t(v.n));
    for (auto& x : a) x = element(v.a, cls, false, s);
    for (auto& x : b) x = element(v.b, cls, false, s);
    for (auto& x : c) x = element(v.d, cls, true, s) & (db == 32 ? 0xFFFFFFFFu : 0xFFFFu);
    std::uint8_t* im = img.data() + std::size_t(t) * sh.smem_bytes;
    if (!v.a_regs)
      for (int i = 0; i < 64; ++i)
        for (int kk = 0; kk < k; ++kk) putBits(im, bitAddress(sh.a, ab, i, kk), ab, a[std::size_t(i) * k + kk]);
    for (int j = 0; j < v.n; ++j)
      for (int kk = 0; kk < k; ++kk) putBits(im, bitAddress(sh.b, bb, j, kk), bb, b[std::size_t(kk) * v.n + j]);
    const int per_d = 32 / db, per_a = 32 / ab;
    for (int th = 0; th < 128; ++th) {
      const int w = th / 32, lane = th % 32;
      std::uint32_t* f = &frag[(std::size_t(t) * 128 + std::size_t(th)) * std::size_t(fw)];
      for (int i = 0; i < sh.d_words * per_d; ++i) {
        int row, col;
        dCell(w, lane, i, row, col);
        const std::uint32_t x = c[std::size_t(row) * v.n + col];
        f[i / per_d] |= per_d == 1 ? x : x << (16 * (i % 2));
      }
      for (int i = 0; i < 4 * per_a; ++i) {
        int row, col;
        aCell(w, lane, i, per_a, row, col);
        const std::uint32_t x = a[std::size_t(row) * k + col];
        f[sh.d_words + i / per_a] |= ab == 32 ? x : x << (ab * (i % per_a));
      }
    }
  }
}

// The PTX module of every variant's kernel: wgmma_<name>(img, frag, out, desc_a, desc_b).
inline std::string modulePtx() {
  std::string s = ".version 8.4\n.target sm_90a\n.address_size 64\n\n";
  for (int vi = 0; vi < kNumVariants; ++vi) {
    const Variant& v = kVariants[vi];
    const Shape sh = shapeOf(v);
    const int nd = sh.d_words, fw = nd + 4, k = kOf(v.a);
    const std::string bytes = std::to_string(sh.smem_bytes);
    s += ".visible .entry wgmma_" + std::string(v.name) +
         "(.param .u64 p_img, .param .u64 p_frag, .param .u64 p_out, .param .u64 p_da, .param .u64 p_db)\n{\n";
    s += "  .shared .align 1024 .b8 smem[" + bytes + "];\n";
    s += "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<20>;\n  .reg .b32 %a<4>;\n";
    s += "  .reg .b32 %d<" + std::to_string(nd) + ">;\n";
    s += "  ld.param.u64 %rd1, [p_img];\n  ld.param.u64 %rd2, [p_frag];\n  ld.param.u64 %rd3, [p_out];\n";
    s += "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n  cvta.to.global.u64 %rd3, %rd3;\n";
    s += "  mov.u32 %r1, %tid.x;\n  mov.u32 %r7, %ctaid.x;\n  mov.u32 %r2, smem;\n";
    s += "  mul.wide.u32 %rd13, %r7, " + bytes + ";\n  add.s64 %rd1, %rd1, %rd13;\n";
    s += "  shl.b32 %r3, %r1, 2;\n$copy:\n  setp.ge.u32 %p1, %r3, " + bytes + ";\n  @%p1 bra $copied;\n";
    s += "  cvt.u64.u32 %rd4, %r3;\n  add.s64 %rd5, %rd1, %rd4;\n  ld.global.u32 %r4, [%rd5];\n";
    s += "  add.u32 %r5, %r2, %r3;\n  st.shared.u32 [%r5], %r4;\n  add.u32 %r3, %r3, 512;\n  bra $copy;\n$copied:\n";
    s += "  bar.sync 0;\n  fence.proxy.async.shared::cta;\n";
    s += "  mad.lo.u32 %r8, %r7, 128, %r1;\n";
    s += "  mul.wide.u32 %rd6, %r8, " + std::to_string(fw * 4) + ";\n  add.s64 %rd7, %rd2, %rd6;\n";
    for (int i = 0; i < nd; ++i) s += "  ld.global.b32 %d" + std::to_string(i) + ", [%rd7+" + std::to_string(4 * i) + "];\n";
    for (int i = 0; i < 4; ++i)
      s += "  ld.global.b32 %a" + std::to_string(i) + ", [%rd7+" + std::to_string(4 * (nd + i)) + "];\n";
    s += "  ld.param.u64 %rd8, [p_da];\n  ld.param.u64 %rd9, [p_db];\n  cvt.u64.u32 %rd10, %r2;\n";
    s += "  shr.u64 %rd10, %rd10, 4;\n  add.s64 %rd8, %rd8, %rd10;\n  add.s64 %rd9, %rd9, %rd10;\n";
    std::string mods = "m64n" + std::to_string(v.n) + "k" + std::to_string(k);
    if (v.satfinite) mods += ".satfinite";
    mods += std::string(".") + nameOf(v.d) + "." + nameOf(v.a) + "." + nameOf(v.b);
    if (v.a == T::B1) mods += ".and.popc";
    std::string dl;
    for (int i = 0; i < nd; ++i) dl += (i ? ", %d" : "%d") + std::to_string(i);
    std::string ops = "{" + dl + "}, " + (v.a_regs ? std::string("{%a0, %a1, %a2, %a3}") : std::string("%rd8")) +
                      ", %rd9, " + std::to_string(v.scale_d);
    const bool ints = v.a == T::S8 || v.a == T::U8 || v.a == T::B1;
    if (!ints) ops += std::string(", ") + (v.neg_a ? "-1" : "1") + ", " + (v.neg_b ? "-1" : "1");
    if (v.a == T::F16 || v.a == T::BF16) {
      if (!v.a_regs) ops += std::string(", ") + (v.trans_a ? "1" : "0");
      ops += std::string(", ") + (v.trans_b ? "1" : "0");
    }
    s += "  wgmma.fence.sync.aligned;\n  wgmma.mma_async.sync.aligned." + mods + " " + ops + ";\n";
    s += "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n";
    s += "  mul.wide.u32 %rd11, %r8, " + std::to_string(nd * 4) + ";\n  add.s64 %rd12, %rd3, %rd11;\n";
    for (int i = 0; i < nd; ++i)
      s += "  st.global.b32 [%rd12+" + std::to_string(4 * i) + "], %d" + std::to_string(i) + ";\n";
    s += "  ret;\n}\n\n";
  }
  return s;
}

// Throughput and latency: m64n256k16 .f32.f16.f16, A and B from descriptors on zeroed shared memory;
// `iters` wgmma chained through one accumulator, one group (throughput), or each waited for
// (latency). Thread 0 of each warpgroup writes its clock64 span.
inline std::string timingPtx() {
  std::string d;
  for (int i = 0; i < 128; ++i) d += (i ? ", %d" : "%d") + std::to_string(i);
  std::string s = ".version 8.4\n.target sm_90a\n.address_size 64\n";
  for (int wait_each = 0; wait_each < 2; ++wait_each) {
    s += std::string(".visible .entry ") + (wait_each ? "wgmma_latency" : "wgmma_throughput") +
         "(.param .u64 p_out, .param .u32 p_iters)\n{\n"
         "  .shared .align 1024 .b8 smem[10240];\n  .reg .f32 %d<128>;\n  .reg .b64 %rd<12>;\n"
         "  .reg .b32 %r<12>;\n  .reg .pred %p<2>;\n  .reg .f32 %f<2>;\n"
         "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, smem;\n  shl.b32 %r3, %r1, 2;\n"
         "$z:\n  setp.ge.u32 %p1, %r3, 10240;\n  @%p1 bra $zd;\n  add.u32 %r4, %r2, %r3;\n"
         "  st.shared.u32 [%r4], 0;\n  add.u32 %r3, %r3, 512;\n  bra $z;\n$zd:\n  bar.sync 0;\n"
         "  fence.proxy.async.shared::cta;\n";
    for (int i = 0; i < 128; ++i) s += "  mov.f32 %d" + std::to_string(i) + ", 0f00000000;\n";
    // A: 64 x 16 K-major interleave (SBO 128, LBO 1024) at 0; B: 256 x 16 (SBO 128, LBO 4096) at 2048.
    s += "  cvt.u64.u32 %rd1, %r2;\n  shr.u64 %rd1, %rd1, 4;\n"
         "  add.s64 %rd2, %rd1, " + std::to_string((1024ull >> 4) << 16 | (128ull >> 4) << 32) + ";\n"
         "  add.s64 %rd3, %rd1, " + std::to_string((2048ull >> 4) | (4096ull >> 4) << 16 | (128ull >> 4) << 32) + ";\n"
         "  ld.param.u32 %r5, [p_iters];\n  mov.u32 %r6, 0;\n  wgmma.fence.sync.aligned;\n"
         "  bar.sync 0;\n  mov.u64 %rd4, %clock64;\n$loop:\n";
    const std::string mma = "  wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {" + d + "}, %rd2, %rd3, 1, 1, 1, 0, 0;\n";
    s += "  wgmma.fence.sync.aligned;\n";
    if (wait_each)
      s += mma + "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n  add.u32 %r6, %r6, 1;\n";
    else
      s += mma + mma + mma + mma + "  add.u32 %r6, %r6, 4;\n";
    s += "  setp.lt.u32 %p1, %r6, %r5;\n  @%p1 bra $loop;\n"
         "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n"
         "  mov.u64 %rd5, %clock64;\n  sub.s64 %rd6, %rd5, %rd4;\n"
         "  add.f32 %f1, %d0, %d127;\n  setp.eq.f32 %p1, %f1, 0f3F800000;\n  @%p1 add.s64 %rd6, %rd6, 1;\n"
         "  and.b32 %r7, %r1, 127;\n  setp.ne.u32 %p1, %r7, 0;\n  @%p1 bra $done;\n"
         "  mov.u32 %r8, %ctaid.x;\n  mov.u32 %r9, %ntid.x;\n  shr.u32 %r9, %r9, 7;\n  shr.u32 %r10, %r1, 7;\n"
         "  mad.lo.u32 %r11, %r8, %r9, %r10;\n  ld.param.u64 %rd7, [p_out];\n  cvta.to.global.u64 %rd7, %rd7;\n"
         "  mul.wide.u32 %rd8, %r11, 8;\n  add.s64 %rd9, %rd7, %rd8;\n  st.global.u64 [%rd9], %rd6;\n$done:\n  ret;\n}\n";
  }
  return s;
}

}  // namespace wgmma_probe
