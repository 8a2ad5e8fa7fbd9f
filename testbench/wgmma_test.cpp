// wgmma.mma_async (sm_90a warpgroup MMA) in the functional core, against a CPU reference computed
// here from the input matrices. The test lays A and B out in shared memory itself, from the PTX
// ISA's canonical layouts written as CuTe layouts with a CuTe swizzle (and, in
// IsaExampleLayouts, from the ISA's worked examples' exact layouts), builds the descriptors,
// spreads C (and A in registers) over the warpgroup's threads as the ISA's fragment figures
// show, and compares every D word. Inputs are small dyadic numbers whose products and sums are
// exact in every accumulator type, so the reference needs no model of the tensor cores'
// rounding (that is checked against the H100 in WgmmaVsH100 and TensorVsH100).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "driver/runtime.h"
#include "tlm/gpu_config.h"
#include "validation/tensor/wgmma_inputs.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Runtime;

enum class El { F16, BF16, TF32, E4M3, E5M2, S8, U8, B1, F32, S32 };

int bits(El e) {
  switch (e) {
    case El::F16: case El::BF16: return 16;
    case El::TF32: case El::F32: case El::S32: return 32;
    case El::E4M3: case El::E5M2: case El::S8: case El::U8: return 8;
    case El::B1: return 1;
  }
  return 0;
}
const char* name(El e) {
  static const char* n[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "f32", "s32"};
  return n[int(e)];
}
bool isInt(El e) { return e == El::S8 || e == El::U8 || e == El::B1 || e == El::S32; }

// v (zero, or normal and exactly representable) in a binary float format.
std::uint32_t encode(double v, int ebits, int mbits) {
  if (v == 0) return 0;
  const std::uint32_t sign = v < 0;
  int x;
  const double f = std::frexp(std::fabs(v), &x);  // |v| = f 2^x, f in [0.5, 1)
  const int exponent = x - 1, bias = (1 << (ebits - 1)) - 1;
  const double frac = f * 2 - 1;
  const auto mant = std::uint32_t(std::ldexp(frac, mbits));
  EXPECT_EQ(std::ldexp(double(mant), -mbits), frac) << v << " is not exact";
  EXPECT_GE(exponent + bias, 1) << v;
  return sign << (ebits + mbits) | std::uint32_t(exponent + bias) << mbits | mant;
}
std::uint32_t encodeAs(El e, double v) {
  switch (e) {
    case El::F16: return encode(v, 5, 10);
    case El::BF16: return encode(v, 8, 7);
    case El::TF32: case El::F32: return encode(v, 8, 23);
    case El::E4M3: return encode(v, 4, 3);
    case El::E5M2: return encode(v, 5, 2);
    default: return std::uint32_t(std::int64_t(v)) & (bits(e) == 32 ? 0xFFFFFFFFu : (1u << bits(e)) - 1);
  }
}

// A matrix in shared memory as the test lays it out: K-major or MN-major, a swizzle of 0
// (none/interleave), 32, 64 or 128 bytes, and the byte offsets the descriptor carries.
struct Layout {
  bool k_major = true;
  int swizzle = 0;
  std::uint32_t start = 0, lbo = 0, sbo = 0;
};

// The bit address of element (mn, k): the ISA's canonical layout in CuTe form, strides in
// elements (T elements fill 16 bytes), then CuTe's Swizzle<B,4,3> on the byte address.
std::uint64_t bitAddress(const Layout& s, int ebits, int mn, int k) {
  const std::uint64_t T = 128 / std::uint64_t(ebits);
  auto el = [&](std::uint64_t bytes) { return bytes * 8 / std::uint64_t(ebits); };
  std::uint64_t e;
  if (s.k_major) {  // ((8,m),(T,2k)) : ((S/16 T | 1T, SBO), (1, T | LBO))
    const std::uint64_t r0 = mn % 8, r1 = mn / 8, c0 = k % T, c1 = k / T;
    const std::uint64_t row = s.swizzle ? s.swizzle / 16 * T : T, col = s.swizzle ? T : el(s.lbo);
    e = r0 * row + r1 * el(s.sbo) + c0 + c1 * col;
  } else {  // ((T,W,m),(8,k)) : ((1,T,LBO | SBO),(W T, SBO | LBO)), W = S/16 (1 without swizzle)
    const std::uint64_t W = s.swizzle ? s.swizzle / 16 : 1;
    const std::uint64_t i0 = mn % T, i1 = (mn / T) % W, i2 = mn / (T * W), k0 = k % 8, k1 = k / 8;
    e = i0 + i1 * T + i2 * el(s.swizzle ? s.lbo : s.sbo) + k0 * W * T + k1 * el(s.swizzle ? s.sbo : s.lbo);
  }
  std::uint64_t byte = s.start + e * std::uint64_t(ebits) / 8;
  const std::uint64_t bit = e * std::uint64_t(ebits) % 8;
  if (s.swizzle) {
    const std::uint64_t b = s.swizzle == 32 ? 1 : s.swizzle == 64 ? 2 : 3;
    byte ^= (byte & (((1ull << b) - 1) << 7)) >> 3;
  }
  return byte * 8 + bit;
}

void put(std::vector<std::uint8_t>& img, std::uint64_t bitaddr, int ebits, std::uint32_t v) {
  for (int i = 0; i < ebits; ++i) {
    const std::uint64_t b = bitaddr + std::uint64_t(i);
    img.at(b / 8) = std::uint8_t((img.at(b / 8) & ~(1u << (b % 8))) | (((v >> i) & 1u) << (b % 8)));
  }
}

std::uint64_t descriptor(const Layout& s, std::uint32_t base_offset = 0) {
  const std::uint64_t mode = s.swizzle == 128 ? 1 : s.swizzle == 64 ? 2 : s.swizzle == 32 ? 3 : 0;
  return ((s.start & 0x3FFFF) >> 4) | std::uint64_t((s.lbo & 0x3FFFF) >> 4) << 16 |
         std::uint64_t((s.sbo & 0x3FFFF) >> 4) << 32 | std::uint64_t(base_offset & 7) << 49 | mode << 62;
}

// A typical layout of a rows x K operand (rows = 64 for A, N for B) at `start`, and the bytes it spans.
Layout canonical(bool k_major, int swizzle, std::uint32_t start, int rows, int ebits, std::uint32_t* bytes) {
  Layout s;
  s.k_major = k_major;
  s.swizzle = swizzle;
  s.start = start;
  if (k_major) {
    if (!swizzle) {  // core matrices (8 rows x 16 bytes); row groups side by side, then the second K piece
      s.sbo = 128;
      s.lbo = std::uint32_t(rows / 8) * 128;
      *bytes = s.lbo * 2;
    } else {  // rows of `swizzle` bytes, 8-row atoms one after another
      s.lbo = 16;
      s.sbo = 8 * std::uint32_t(swizzle);
      *bytes = std::uint32_t(rows) * std::uint32_t(swizzle);
    }
  } else {  // 16-bit elements, K = 16: two groups of 8 K-rows
    if (!swizzle) {  // 8 MN x 8 K core matrices: MN pieces side by side, then the second K group
      s.sbo = 128;
      s.lbo = std::uint32_t(rows / 8) * 128;
      *bytes = s.lbo * 2;
    } else {  // atoms of 8 K-rows of `swizzle` bytes (swizzle/2 MN elements); MN atoms, then K groups
      const std::uint32_t per_row = std::uint32_t(swizzle) * 8 / std::uint32_t(ebits);
      const std::uint32_t atoms = (std::uint32_t(rows) + per_row - 1) / per_row;
      s.lbo = 8 * std::uint32_t(swizzle);
      s.sbo = atoms * s.lbo;
      *bytes = 2 * s.sbo;
    }
  }
  return s;
}

struct Case {
  El d, a, b;
  int n;
  bool a_regs = false;
  int swz_a = 0, swz_b = 0;
  bool trans_a = false, trans_b = false;
  bool scale_d = true, neg_a = false, neg_b = false, satfinite = false;
  int groups = 1;               // warpgroups in the block
  bool big_c = false;           // C near the s32 limits (satfinite)
};

int kOf(El a) {
  switch (a) {
    case El::F16: case El::BF16: return 16;
    case El::TF32: return 8;
    case El::B1: return 256;
    default: return 32;
  }
}

std::string caseName(const Case& c) {
  std::string s = std::string(name(c.d)) + "_" + name(c.a) + "_" + name(c.b) + "_n" + std::to_string(c.n) +
                  (c.a_regs ? "_areg" : "_adesc") + "_swz" + std::to_string(c.swz_a) + "_" + std::to_string(c.swz_b);
  if (c.trans_a) s += "_ta";
  if (c.trans_b) s += "_tb";
  if (!c.scale_d) s += "_d0";
  if (c.neg_a) s += "_na";
  if (c.neg_b) s += "_nb";
  if (c.satfinite) s += "_sat";
  if (c.groups > 1) s += "_g" + std::to_string(c.groups);
  return s;
}

// The wgmma.mma_async kernel of a case: copies the shared-memory image in, loads C (and A)
// fragments, adds the shared base to the descriptors, runs fence / mma_async / commit / wait 0
// (or, for the asynchrony tests, the `body` given), stores D.
std::string kernelPtx(const Case& c, std::uint32_t smem_bytes, int d_regs, const std::string& body = "") {
  const int k = kOf(c.a);
  const bool f32d = c.d == El::F32;
  std::string dl, al;
  for (int i = 0; i < d_regs; ++i) dl += (i ? ", %d" : "%d") + std::to_string(i);
  std::string s = ".version 8.0\n.target sm_90a\n.address_size 64\n";
  s += ".visible .entry wg(.param .u64 p_img, .param .u64 p_frag, .param .u64 p_out, .param .u64 p_da, .param .u64 p_db, "
       ".param .u32 p_scale)\n{\n";
  s += "  .shared .align 1024 .b8 smem[" + std::to_string(smem_bytes) + "];\n";
  s += "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n  .reg .b32 %a<4>;\n";
  s += std::string("  .reg .") + (f32d ? "f32" : "b32") + " %d<" + std::to_string(d_regs) + ">;\n";
  s += R"(  ld.param.u64 %rd1, [p_img];
  ld.param.u64 %rd2, [p_frag];
  ld.param.u64 %rd3, [p_out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  shl.b32 %r3, %r1, 2;
$copy:
  setp.ge.u32 %p1, %r3, )" + std::to_string(smem_bytes) + R"(;
  @%p1 bra $copied;
  cvt.u64.u32 %rd4, %r3;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r4, [%rd5];
  add.u32 %r5, %r2, %r3;
  st.shared.u32 [%r5], %r4;
  add.u32 %r3, %r3, )" + std::to_string(128 * c.groups * 4) + R"(;
  bra $copy;
$copied:
  bar.sync 0;
  mul.wide.u32 %rd6, %r1, )" + std::to_string((d_regs + 4) * 4) + R"(;
  add.s64 %rd7, %rd2, %rd6;
)";
  for (int i = 0; i < d_regs; ++i)
    s += std::string("  ld.global.") + (f32d ? "f32" : "b32") + " %d" + std::to_string(i) + ", [%rd7+" +
         std::to_string(4 * i) + "];\n";
  for (int i = 0; i < 4; ++i) s += "  ld.global.b32 %a" + std::to_string(i) + ", [%rd7+" + std::to_string(4 * (d_regs + i)) + "];\n";
  s += R"(  ld.param.u64 %rd8, [p_da];
  ld.param.u64 %rd9, [p_db];
  cvt.u64.u32 %rd10, %r2;
  shr.u64 %rd10, %rd10, 4;
  add.s64 %rd8, %rd8, %rd10;
  add.s64 %rd9, %rd9, %rd10;
  ld.param.u32 %r6, [p_scale];
  setp.ne.u32 %p2, %r6, 0;
)";
  std::string mods = "m64n" + std::to_string(c.n) + "k" + std::to_string(k);
  if (c.satfinite) mods += ".satfinite";
  mods += std::string(".") + name(c.d) + "." + name(c.a) + "." + name(c.b);
  if (c.a == El::B1) mods += ".and.popc";
  std::string ops = "{" + dl + "}, " + (c.a_regs ? std::string("{%a0, %a1, %a2, %a3}") : std::string("%rd8")) + ", %rd9, %p2";
  if (!isInt(c.a)) ops += std::string(", ") + (c.neg_a ? "-1" : "1") + ", " + (c.neg_b ? "-1" : "1");
  if (c.a == El::F16 || c.a == El::BF16) {
    if (!c.a_regs) ops += std::string(", ") + (c.trans_a ? "1" : "0");
    ops += std::string(", ") + (c.trans_b ? "1" : "0");
  }
  const std::string mma = "  wgmma.mma_async.sync.aligned." + mods + " " + ops + ";\n";
  if (body.empty()) {
    s += "  wgmma.fence.sync.aligned;\n" + mma + "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n";
  } else {
    std::string b = body;
    for (std::size_t at; (at = b.find("MMA\n")) != std::string::npos;) b.replace(at, 4, mma);
    s += b;
  }
  s += "  mul.wide.u32 %rd11, %r1, " + std::to_string(d_regs * 4) + ";\n  add.s64 %rd12, %rd3, %rd11;\n";
  for (int i = 0; i < d_regs; ++i)
    s += std::string("  st.global.") + (f32d ? "f32" : "b32") + " [%rd12+" + std::to_string(4 * i) + "], %d" +
         std::to_string(i) + ";\n";
  s += "  ret;\n}\n";
  return s;
}

// Small values every input format holds exactly, and whose products and sums every accumulator holds.
double randomValue(El e, std::mt19937& rng) {
  static const double f[] = {-3, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3};
  switch (e) {
    case El::S8: return double(int(rng() % 256) - 128);
    case El::U8: return double(rng() % 256);
    case El::B1: return double(rng() % 2);
    default: return f[rng() % 11];
  }
}

struct Matrices {
  std::vector<double> a, b;                 // 64 x K (row-major), K x N (b[k * n + j])
  std::vector<std::vector<double>> c;       // per warpgroup: 64 x N
};

// D as the ISA defines it, exactly, then as the accumulator's bits.
std::vector<std::uint32_t> reference(const Case& c, const Matrices& m, int g) {
  const int k = kOf(c.a), n = c.n;
  std::vector<std::uint32_t> d(64 * std::size_t(n));
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = c.scale_d ? m.c[std::size_t(g)][std::size_t(i) * n + j] : 0;
      for (int kk = 0; kk < k; ++kk)
        sum += m.a[std::size_t(i) * k + kk] * (c.neg_a ? -1 : 1) * m.b[std::size_t(kk) * n + j] * (c.neg_b ? -1 : 1);
      if (c.d == El::S32) {
        if (c.satfinite) sum = std::min(2147483647.0, std::max(-2147483648.0, sum));
        d[std::size_t(i) * n + j] = std::uint32_t(std::int64_t(sum));
      } else {
        d[std::size_t(i) * n + j] = encodeAs(c.d, sum);
      }
    }
  return d;
}

// D's element i of lane L in warp w of a warpgroup (ISA figure "WGMMA .m64nNk* register fragment
// layout for accumulator matrix D"), and A's (figure "... for matrix A"), `per` elements a register.
void dCell(int w, int lane, int i, int& row, int& col) {
  row = 16 * w + lane / 4 + 8 * ((i / 2) % 2);
  col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
}
void aCell(int w, int lane, int i, int per, int& row, int& col) {
  const int r = i / per, j = i % per;
  row = 16 * w + lane / 4 + 8 * (r % 2);
  col = (lane % 4) * per + j + (r / 2) * 4 * per;
}

struct Outcome {
  std::vector<std::uint32_t> got, want;
  std::string error;
};

// Runs a case on the model (with `body` in place of fence / mma / commit / wait 0, MMA standing for
// the wgmma.mma_async) and spreads the reference D (`expected`, else reference()) as the kernel stores it.
Outcome runCase(const Case& c, const std::string& body = "", std::uint32_t seed = 1,
            std::vector<std::vector<std::uint32_t>> (*expected)(const Case&, const Matrices&) = nullptr) {
  const int k = kOf(c.a), n = c.n, ab = bits(c.a), bb = bits(c.b), db = bits(c.d);
  std::mt19937 rng(seed);
  Matrices m;
  m.a.resize(64 * std::size_t(k));
  m.b.resize(std::size_t(k) * n);
  for (auto& v : m.a) v = randomValue(c.a, rng);
  for (auto& v : m.b) v = randomValue(c.b, rng);
  m.c.resize(std::size_t(c.groups));
  for (auto& cm : m.c) {
    cm.resize(64 * std::size_t(n));
    for (auto& v : cm) {
      v = isInt(c.d) ? double(int(rng() % 2001) - 1000) : randomValue(El::F16, rng);
      if (c.big_c) v = (rng() % 2 ? 2147483647.0 - double(rng() % 1000) : -2147483648.0 + double(rng() % 1000));
    }
  }
  std::uint32_t bytes_a = 0, bytes_b = 0;
  const Layout la = canonical(!c.trans_a, c.swz_a, 0, 64, ab, &bytes_a);
  std::uint32_t start_b = c.a_regs ? 0 : (bytes_a + 1023) / 1024 * 1024;
  const Layout lb = canonical(!c.trans_b, c.swz_b, start_b, n, bb, &bytes_b);
  const std::uint32_t smem = (start_b + bytes_b + 1023) / 1024 * 1024;
  std::vector<std::uint8_t> img(smem, 0);
  if (!c.a_regs)
    for (int i = 0; i < 64; ++i)
      for (int kk = 0; kk < k; ++kk) put(img, bitAddress(la, ab, i, kk), ab, encodeAs(c.a, m.a[std::size_t(i) * k + kk]));
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk) put(img, bitAddress(lb, bb, j, kk), bb, encodeAs(c.b, m.b[std::size_t(kk) * n + j]));
  const int d_regs = c.d == El::F16 ? n / 4 : n / 2, per_d = 32 / db, per_a = 32 / ab;
  const int threads = 128 * c.groups;
  std::vector<std::uint32_t> frag(std::size_t(threads) * (d_regs + 4), 0);
  for (int t = 0; t < threads; ++t) {
    const int g = t / 128, w = (t / 32) % 4, lane = t % 32;
    std::uint32_t* f = &frag[std::size_t(t) * (d_regs + 4)];
    for (int i = 0; i < d_regs * per_d; ++i) {
      int row, col;
      dCell(w, lane, i, row, col);
      const std::uint32_t v = encodeAs(c.d, m.c[std::size_t(g)][std::size_t(row) * n + col]);
      f[i / per_d] |= per_d == 1 ? v : (v & 0xFFFFu) << (16 * (i % 2));
    }
    for (int i = 0; i < 4 * per_a; ++i) {
      int row, col;
      aCell(w, lane, i, per_a, row, col);
      const std::uint32_t v = encodeAs(c.a, m.a[std::size_t(row) * k + col]);
      f[d_regs + i / per_a] |= ab == 32 ? v : (v & ((1u << ab) - 1)) << (ab * (i % per_a));
    }
  }
  Outcome r;
  Runtime rt;
  driver::Module* mod = nullptr;
  try {
    mod = &rt.loadModuleString(kernelPtx(c, smem, d_regs, body), "wgmma.ptx");
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  std::vector<std::uint32_t> img32(img.size() / 4);
  std::memcpy(img32.data(), img.data(), img.size());
  const DevicePtr dimg = rt.upload(img32), dfrag = rt.upload(frag), dout = rt.malloc(std::size_t(threads) * d_regs * 4);
  const Error e = rt.launch(rt.getFunction(*mod, "wg"), Dim3(1), Dim3(std::uint32_t(threads)), 0,
                            KernelArgs().add(dimg).add(dfrag).add(dout).add(descriptor(la)).add(descriptor(lb))
                                .add(std::uint32_t(c.scale_d)));
  if (e != Error::Success) {
    r.error = std::string(driver::errorName(e)) + ": " + rt.lastLaunchError() +
              (rt.lastFault() ? " " + rt.lastFault()->kind + " " + rt.lastFault()->message : "");
    return r;
  }
  r.got = rt.download<std::uint32_t>(dout, std::size_t(threads) * d_regs);
  // The reference D, spread over the threads as the kernel stores it.
  std::vector<std::vector<std::uint32_t>> want_mats;
  if (expected) want_mats = expected(c, m);
  else
    for (int g = 0; g < c.groups; ++g) want_mats.push_back(reference(c, m, g));
  r.want.assign(r.got.size(), 0);
  for (int t = 0; t < threads; ++t) {
    const int g = t / 128, w = (t / 32) % 4, lane = t % 32;
    for (int i = 0; i < d_regs * per_d; ++i) {
      int row, col;
      dCell(w, lane, i, row, col);
      const std::uint32_t v = want_mats[std::size_t(g)][std::size_t(row) * n + col];
      r.want[std::size_t(t) * d_regs + i / per_d] |= per_d == 1 ? v : (v & 0xFFFFu) << (16 * (i % 2));
    }
  }
  return r;
}

void expectEqual(const Outcome& r, const std::string& what) {
  ASSERT_TRUE(r.error.empty()) << what << ": " << r.error;
  ASSERT_EQ(r.got.size(), r.want.size());
  int shown = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < r.got.size(); ++i)
    if (r.got[i] != r.want[i]) {
      ++bad;
      if (++shown <= 5)
        ADD_FAILURE() << what << ": word " << i << " (thread " << i / (r.got.size() / 128) << "): model " << std::hex
                      << r.got[i] << ", reference " << r.want[i];
    }
  EXPECT_EQ(bad, 0u) << what;
}

class WgmmaTypes : public ::testing::TestWithParam<Case> {};

TEST_P(WgmmaTypes, DEqualsTheCpuReference) {
  const Case& c = GetParam();
  expectEqual(runCase(c), caseName(c));
}

std::vector<Case> typeCases() {
  std::vector<Case> v;
  auto both = [&](Case c) {
    c.a_regs = false;
    v.push_back(c);
    c.a_regs = true;
    v.push_back(c);
  };
  both({El::F32, El::F16, El::F16, 8});
  both({El::F32, El::F16, El::F16, 64});
  both({El::F32, El::F16, El::F16, 256});
  both({El::F16, El::F16, El::F16, 24});
  both({El::F16, El::F16, El::F16, 128});
  both({El::F32, El::BF16, El::BF16, 128});
  both({El::F32, El::BF16, El::BF16, 40});
  both({El::F32, El::TF32, El::TF32, 16});
  both({El::F32, El::TF32, El::TF32, 72});
  both({El::F32, El::E4M3, El::E4M3, 32});
  both({El::F32, El::E5M2, El::E4M3, 96});
  both({El::F16, El::E4M3, El::E5M2, 64});
  both({El::F16, El::E5M2, El::E5M2, 8});
  both({El::S32, El::S8, El::S8, 48});
  both({El::S32, El::S8, El::U8, 16});
  both({El::S32, El::U8, El::S8, 24});
  both({El::S32, El::U8, El::U8, 256});
  both({El::S32, El::B1, El::B1, 8});
  both({El::S32, El::B1, El::B1, 64});
  return v;
}
INSTANTIATE_TEST_SUITE_P(Wgmma, WgmmaTypes, ::testing::ValuesIn(typeCases()),
                         [](const ::testing::TestParamInfo<Case>& p) { return caseName(p.param); });

// Every swizzle mode, K-major and (imm-trans) MN-major, for A and B; f16, bf16 and tf32 / e4m3 / s8
// (K-major only: the ISA transposes 16-bit types only).
std::vector<Case> layoutCases() {
  std::vector<Case> v;
  for (int swz : {0, 32, 64, 128})
    for (int t = 0; t < 4; ++t) {
      Case c{El::F32, t < 2 ? El::F16 : El::BF16, t < 2 ? El::F16 : El::BF16, t % 2 ? 64 : 32};
      c.swz_a = swz, c.swz_b = swz;
      c.trans_a = t == 1 || t == 3;
      c.trans_b = t == 1 || t == 2;
      v.push_back(c);
      Case mixed = c;  // A and B in different modes
      mixed.swz_b = swz == 0 ? 128 : 0;
      v.push_back(mixed);
    }
  for (int swz : {0, 32, 64, 128}) {
    for (El e : {El::TF32, El::E4M3, El::S8}) {
      Case c{e == El::S8 ? El::S32 : El::F32, e, e, 48};
      c.swz_a = swz, c.swz_b = swz;
      v.push_back(c);
    }
    Case r{El::F32, El::F16, El::F16, 128};  // A in registers, B N-major, N wider than one swizzle row
    r.a_regs = true;
    r.swz_b = swz;
    r.trans_b = true;
    v.push_back(r);
  }
  return v;
}
class WgmmaLayouts : public ::testing::TestWithParam<Case> {};
TEST_P(WgmmaLayouts, DEqualsTheCpuReference) { expectEqual(runCase(GetParam()), caseName(GetParam())); }
INSTANTIATE_TEST_SUITE_P(Wgmma, WgmmaLayouts, ::testing::ValuesIn(layoutCases()),
                         [](const ::testing::TestParamInfo<Case>& p) { return caseName(p.param); });

TEST(Wgmma, ScaleDZeroAndNegativeScales) {
  for (bool regs : {false, true})
    for (int v = 0; v < 8; ++v) {
      Case c{v < 4 ? El::F32 : El::F16, v < 4 ? El::BF16 : El::E4M3, v < 4 ? El::BF16 : El::E4M3, 32};
      c.a_regs = regs;
      c.scale_d = v % 2;
      c.neg_a = (v / 2) % 2;
      c.neg_b = v % 3 == 0;
      expectEqual(runCase(c), caseName(c));
    }
}

TEST(Wgmma, SatfiniteClampsAndWithoutItWraps) {
  Case c{El::S32, El::S8, El::S8, 16};
  c.big_c = true;
  c.satfinite = true;
  const Outcome sat = runCase(c);
  expectEqual(sat, "satfinite");
  c.satfinite = false;
  const Outcome wrap = runCase(c);
  expectEqual(wrap, "wrapping");
  std::size_t clamped = 0;
  for (std::uint32_t w : sat.got) clamped += w == 0x7FFFFFFFu || w == 0x80000000u;
  EXPECT_GT(clamped, 100u) << "the test's C should overflow";
}

TEST(Wgmma, EachWarpgroupOfABlockComputesItsOwnD) {
  for (bool regs : {false, true}) {
    Case c{El::F32, El::F16, El::F16, 16};
    c.groups = 2;
    c.a_regs = regs;
    expectEqual(runCase(c), caseName(c));
  }
}

// D reaches the registers at the wgmma.wait_group that waits for its group: read before it, the
// registers still hold C; two wgmma of one group chain through the accumulator; wait_group 1
// lands all but the newest group.
std::vector<std::vector<std::uint32_t>> cOnly(const Case& c, const Matrices& m) {
  std::vector<std::uint32_t> d(64 * std::size_t(c.n));
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = encodeAs(c.d, m.c[0][i]);
  return {d};
}
std::vector<std::vector<std::uint32_t>> twice(const Case& c, const Matrices& m) {
  Matrices m2 = m;
  Case once = c;
  m2.c[0].clear();
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < c.n; ++j) {
      double sum = m.c[0][std::size_t(i) * c.n + j];
      for (int kk = 0; kk < kOf(c.a); ++kk) sum += m.a[std::size_t(i) * kOf(c.a) + kk] * m.b[std::size_t(kk) * c.n + j];
      m2.c[0].push_back(sum);
    }
  return {reference(once, m2, 0)};
}
TEST(Wgmma, ResultsLandAtTheirWaitGroup) {
  Case c{El::F32, El::F16, El::F16, 32};
  // Stores before the wait see C (the registers are written at wait_group, not at issue).
  const std::string early = "  wgmma.fence.sync.aligned;\nMMA\n  wgmma.commit_group.sync.aligned;\n";
  expectEqual(runCase(c, early, 3, &cOnly), "read before wait_group");
  // Uncommitted: wait_group 0 does not wait for a wgmma after the last commit_group.
  const std::string uncommitted = "  wgmma.fence.sync.aligned;\nMMA\n  wgmma.wait_group.sync.aligned 0;\n";
  expectEqual(runCase(c, uncommitted, 3, &cOnly), "not committed");
  // Chained in one group: D = A B + (A B + C).
  const std::string chained = "  wgmma.fence.sync.aligned;\nMMA\nMMA\n  wgmma.commit_group.sync.aligned;\n"
                              "  wgmma.wait_group.sync.aligned 0;\n";
  expectEqual(runCase(c, chained, 3, &twice), "chained");
  // Two groups: wait_group 1 lands the first, whose D the second took as its accumulator, so after
  // wait_group 1 the registers hold A B + C; after wait_group 0, A B + (A B + C).
  const std::string groups1 = "  wgmma.fence.sync.aligned;\nMMA\n  wgmma.commit_group.sync.aligned;\nMMA\n"
                              "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 1;\n";
  expectEqual(runCase(c, groups1, 3), "wait_group 1");
  expectEqual(runCase(c, groups1 + "  wgmma.wait_group.sync.aligned 0;\n", 3, &twice), "wait_group 1 then 0");
}

// The ISA's worked examples of the canonical layouts, laid out from their exact CuTe layouts
// (element offsets), independent of the test's canonical() and bitAddress().
TEST(Wgmma, IsaExampleLayouts) {
  // "K-Major, no-swizzling and tf32 type": ((8,2),(4,4)):((4,32),(1,64)), LBO 64*4 bytes, SBO 32*4:
  // here B (N = 16 columns, K = 8: the first two of the four K pieces).
  // "MN-Major, 64B swizzling and bf16 type": Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512)),
  // LBO 256*2 bytes, SBO 512*2: here A (64 rows, K = 16), transposed.
  std::mt19937 rng(7);
  const int n = 16;
  std::vector<double> cm(64 * n);
  for (auto& v : cm) v = randomValue(El::F16, rng);
  for (int which = 0; which < 2; ++which) {
    const bool tf32 = which == 0;
    const El e = tf32 ? El::TF32 : El::BF16;
    const int k = tf32 ? 8 : 16;
    std::vector<std::uint8_t> img(4096 * 4, 0);
    std::vector<double> ma(64 * std::size_t(k)), mb(std::size_t(k) * n);
    for (auto& v : ma) v = randomValue(e, rng);
    for (auto& v : mb) v = randomValue(e, rng);
    Layout la, lb;
    std::uint64_t da, db;
    const std::uint32_t bstart = 8192;
    if (tf32) {
      // A: plain K-major interleave via the test's own layout; B: the ISA example.
      std::uint32_t bytes;
      la = canonical(true, 0, 0, 64, 32, &bytes);
      for (int i = 0; i < 64; ++i)
        for (int kk = 0; kk < 8; ++kk) put(img, bitAddress(la, 32, i, kk), 32, encodeAs(e, ma[std::size_t(i) * 8 + kk]));
      for (int j = 0; j < n; ++j)
        for (int kk = 0; kk < 8; ++kk) {
          const std::uint64_t off = std::uint64_t(j % 8) * 4 + std::uint64_t(j / 8) * 32 + std::uint64_t(kk % 4) +
                                    std::uint64_t(kk / 4) * 64;  // elements
          put(img, (bstart + off * 4) * 8, 32, encodeAs(e, mb[std::size_t(kk) * n + j]));
        }
      da = descriptor(la);
      db = std::uint64_t(bstart >> 4) | std::uint64_t(16) << 16 | std::uint64_t(8) << 32;  // LBO 256 B, SBO 128 B
    } else {
      // A: the ISA example (MN-major, 64B swizzle); B: K-major 128B via the test's own layout.
      for (int i = 0; i < 64; ++i)
        for (int kk = 0; kk < 16; ++kk) {
          const std::uint64_t off = std::uint64_t(i % 8) + std::uint64_t((i / 8) % 4) * 8 + std::uint64_t(i / 32) * 256 +
                                    std::uint64_t(kk % 8) * 32 + std::uint64_t(kk / 8) * 512;  // elements
          std::uint64_t byte = off * 2;
          byte ^= (byte & (3ull << 7)) >> 3;  // Swizzle<2,4,3>
          put(img, byte * 8, 16, encodeAs(e, ma[std::size_t(i) * 16 + kk]));
        }
      std::uint32_t bytes;
      lb = canonical(true, 128, bstart, n, 16, &bytes);
      for (int j = 0; j < n; ++j)
        for (int kk = 0; kk < 16; ++kk) put(img, bitAddress(lb, 16, j, kk), 16, encodeAs(e, mb[std::size_t(kk) * n + j]));
      da = std::uint64_t(0) | std::uint64_t(32) << 16 | std::uint64_t(64) << 32 | 2ull << 62;  // LBO 512 B, SBO 1024 B, 64B
      db = descriptor(lb);
    }
    Case c{El::F32, e, e, n};
    c.trans_a = !tf32;
    const int d_regs = n / 2;
    Runtime rt;
    auto& mod = rt.loadModuleString(kernelPtx(c, std::uint32_t(img.size()), d_regs), "ex.ptx");
    std::vector<std::uint32_t> frag(128 * std::size_t(d_regs + 4), 0), img32(img.size() / 4);
    std::memcpy(img32.data(), img.data(), img.size());
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < d_regs; ++i) {
        int row, col;
        dCell(t / 32, t % 32, i, row, col);
        frag[std::size_t(t) * (d_regs + 4) + i] = encodeAs(El::F32, cm[std::size_t(row) * n + col]);
      }
    const DevicePtr dimg = rt.upload(img32), dfrag = rt.upload(frag), dout = rt.malloc(128 * std::size_t(d_regs) * 4);
    ASSERT_EQ(rt.launch(rt.getFunction(mod, "wg"), Dim3(1), Dim3(128), 0,
                        KernelArgs().add(dimg).add(dfrag).add(dout).add(da).add(db).add(std::uint32_t(1))),
              Error::Success);
    const auto got = rt.download<std::uint32_t>(dout, 128 * std::size_t(d_regs));
    std::size_t bad = 0;
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < d_regs; ++i) {
        int row, col;
        dCell(t / 32, t % 32, i, row, col);
        double sum = cm[std::size_t(row) * n + col];
        for (int kk = 0; kk < k; ++kk) sum += ma[std::size_t(row) * k + kk] * mb[std::size_t(kk) * n + col];
        bad += got[std::size_t(t) * d_regs + i] != encodeAs(El::F32, sum);
      }
    EXPECT_EQ(bad, 0u) << (tf32 ? "K-major tf32 example" : "MN-major 64B bf16 example");
  }
}

// A descriptor whose matrix reaches past the block's shared memory faults the kernel, naming the
// instruction.
TEST(Wgmma, DescriptorOutsideSharedMemoryFaults) {
  Case c{El::F32, El::F16, El::F16, 64};
  Runtime rt;
  auto& mod = rt.loadModuleString(kernelPtx(c, 1024, 32), "bad.ptx");
  const DevicePtr dimg = rt.malloc(1024), dfrag = rt.malloc(128 * 36 * 4), dout = rt.malloc(128 * 32 * 4);
  Layout l;
  l.start = 0x3F000;  // 252 KiB: beyond the 1 KiB the kernel has
  l.sbo = 128, l.lbo = 1024;
  const Error e = rt.launch(rt.getFunction(mod, "wg"), Dim3(1), Dim3(128), 0,
                            KernelArgs().add(dimg).add(dfrag).add(dout).add(descriptor(l)).add(descriptor(l)).add(1u));
  EXPECT_EQ(e, Error::IllegalAddress);
  ASSERT_TRUE(rt.lastFault().has_value());
  EXPECT_NE(rt.lastFault()->instruction.find("wgmma.mma_async"), std::string::npos) << rt.lastFault()->instruction;
  EXPECT_NE(rt.lastFault()->message.find("shared"), std::string::npos) << rt.lastFault()->message;
}

// Malformed wgmma text stops the module with file:line:col; valid forms scgpu does not implement
// (sparse A) refuse their kernel at launch.
TEST(Wgmma, MalformedTextAndUnimplementedForms) {
  const std::string head = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                           "  .reg .f32 %f<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n";
  struct Bad { const char* line; const char* why; };
  const Bad bad[] = {
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2}, %rd1, %rd2, 1, 1, 1, 0, 0;", "D is a vector of 4"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 2, 1, 0, 0;", "imm-scale-a"},
      {"wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1, 0, 0;", "shape"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.bf16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1, 0, 0;", "combination"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1;", "operands"},
      {"wgmma.wait_group.sync.aligned %rd1;", "non-negative integer constant"},
      {"wgmma.fence.aligned;", ".sync.aligned"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %r1, 1, 1, 0, 0;",
       "undeclared"},
  };
  for (const Bad& b : bad) {
    Runtime rt;
    try {
      rt.loadModuleString(head + "  " + b.line + "\n  ret;\n}\n", "m.ptx");
      ADD_FAILURE() << "loaded: " << b.line;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("m.ptx:9:"), std::string::npos) << what;
      EXPECT_NE(what.find(b.why), std::string::npos) << what;
    }
  }
  Runtime rt;
  auto& m = rt.loadModuleString(head + "  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, "
                                       "%rd1, %rd2, %rd3, 0, 1, 1, 1, 0, 0;\n  ret;\n}\n",
                                "sp.ptx");
  EXPECT_EQ(rt.launch(rt.getFunction(m, "k"), Dim3(1), Dim3(128), 0, KernelArgs().add(std::uint64_t(0))),
            Error::InvalidConfiguration);
  EXPECT_NE(rt.lastLaunchError().find("sp.ptx:9:3"), std::string::npos) << rt.lastLaunchError();
}

}  // namespace
}  // namespace scgpu

namespace scgpu {
namespace {

const std::string kSource = SCGPU_SOURCE_DIR;

// name -> (tile * 128 + thread) * d words, from the silicon run of the probe.
std::map<std::string, std::vector<std::uint32_t>> siliconOutputs() {
  std::map<std::string, std::vector<std::uint32_t>> out;
  std::ifstream in(kSource + "/docs/data/h200_wgmma_bits.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name;
    int tile, thread;
    ss >> name >> tile >> thread;
    std::string w;
    while (ss >> w) out[name].push_back(std::uint32_t(std::stoul(w, nullptr, 16)));
  }
  return out;
}

// The probe's variants (validation/tensor/wgmma_inputs.h) on the model, with the shared-memory
// images and register words the GPU ran, against its D words, bit for bit: every type (8-bit floats
// too: wgmma's own arithmetic, sm/exec/mma_arith.h), swizzle mode, transpose, A from registers,
// scale-d 0, negation and a descriptor base offset. The silicon is an H200 (GH100, the H100's die
// and tensor cores).
class WgmmaVsH200 : public ::testing::TestWithParam<int> {};

TEST_P(WgmmaVsH200, OutputsEqualTheSiliconsBitForBit) {
  static const auto reference = siliconOutputs();
  const wgmma_probe::Variant& v = wgmma_probe::kVariants[GetParam()];
  const wgmma_probe::Shape sh = wgmma_probe::shapeOf(v);
  auto it = reference.find(v.name);
  ASSERT_NE(it, reference.end()) << "no silicon data for " << v.name;
  const std::vector<std::uint32_t>& want = it->second;
  ASSERT_EQ(want.size(), std::size_t(wgmma_probe::kTiles) * 128 * std::size_t(sh.d_words));
  std::vector<std::uint8_t> img;
  std::vector<std::uint32_t> frag;
  wgmma_probe::makeInputs(GetParam(), img, frag);
  static const std::string ptx = wgmma_probe::modulePtx();
  Runtime rt;
  auto& m = rt.loadModuleString(ptx, "wgmma_probe.ptx");
  std::vector<std::uint32_t> img32(img.size() / 4);
  std::memcpy(img32.data(), img.data(), img.size());
  const DevicePtr dimg = rt.upload(img32), dfrag = rt.upload(frag), dout = rt.malloc(want.size() * 4);
  ASSERT_EQ(rt.launch(rt.getFunction(m, std::string("wgmma_") + v.name), Dim3(wgmma_probe::kTiles), Dim3(128), 0,
                      KernelArgs().add(dimg).add(dfrag).add(dout).add(wgmma_probe::descriptor(sh.a))
                          .add(wgmma_probe::descriptor(sh.b))),
            Error::Success)
      << rt.lastLaunchError();
  const auto got = rt.download<std::uint32_t>(dout, want.size());
  std::size_t exact = 0;
  int shown = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    exact += got[i] == want[i];
    if (got[i] != want[i] && ++shown <= 5)
      ADD_FAILURE() << v.name << " tile " << i / sh.d_words / 128 << " thread " << i / sh.d_words % 128 << " word "
                    << i % sh.d_words << ": model " << std::hex << got[i] << ", silicon " << want[i];
  }
  std::printf("%s: %zu of %zu equal\n", v.name, exact, want.size());
  EXPECT_EQ(exact, want.size());
}

INSTANTIATE_TEST_SUITE_P(Variants, WgmmaVsH200, ::testing::Range(0, wgmma_probe::kNumVariants),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::string(wgmma_probe::kVariants[p.param].name);
                         });

}  // namespace
}  // namespace scgpu
