// int_hash: integer mixing (murmur3 fmix32, xorshift32, splitmix64) and the bit-manipulation
// intrinsics (__umulhi, __mulhi, __umul64hi, __popc, __clz, __ffs, __brev, __byte_perm, funnel
// shifts, 64-bit variants), integer division and shifts over 16K words, 128-thread blocks. Bit-exact.
// Plain CUDA runtime port of kernels/host/int_hash.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: int_hash [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/int_hash.cu"

#define CUDA_PROGRAM_NAME "int_hash"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
// Host reference (in a namespace: the kernel file defines __device__ fmix32, xorshift32, splitmix64).
namespace ref {

inline std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
inline std::uint32_t xorshift32(std::uint32_t x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}
inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
inline int popc64(std::uint64_t x) {
  int c = 0;
  for (; x != 0; x &= x - 1) ++c;
  return c;
}
inline int clz64(std::uint64_t x, int width) {  // leading zeros of the low `width` bits
  int c = 0;
  for (int b = width - 1; b >= 0 && !((x >> b) & 1); --b) ++c;
  return c;
}
inline int ffs64(std::uint64_t x) {  // 1 + index of the lowest set bit, 0 for 0
  if (x == 0) return 0;
  int i = 1;
  for (; !(x & 1); x >>= 1) ++i;
  return i;
}
inline std::uint64_t brev(std::uint64_t x, int width) {
  std::uint64_t r = 0;
  for (int b = 0; b < width; ++b) r |= ((x >> b) & 1) << (width - 1 - b);
  return r;
}
// High 64 bits of a 64x64 product from 32-bit halves (no __int128 needed).
inline std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
  const std::uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
// __byte_perm(x, y, s): byte k of the result is byte (s >> 4k) & 7 of the 8-byte value y:x.
inline std::uint32_t bytePerm(std::uint32_t x, std::uint32_t y, std::uint32_t s) {
  const std::uint64_t v = (std::uint64_t(y) << 32) | x;
  std::uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= std::uint32_t((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
}
// Funnel shifts of hi:lo: left returns the high word of (hi:lo) << s, right the low word of >> s.
inline std::uint32_t funnelLeft(std::uint32_t lo, std::uint32_t hi, std::uint32_t s) {
  return std::uint32_t(((std::uint64_t(hi) << 32 | lo) << s) >> 32);
}
inline std::uint32_t funnelRight(std::uint32_t lo, std::uint32_t hi, std::uint32_t s) {
  return std::uint32_t((std::uint64_t(hi) << 32 | lo) >> s);
}
inline std::uint32_t sar32(std::uint32_t x, std::uint32_t r) {  // arithmetic shift right, r < 32
  const std::uint32_t fill = (x & 0x80000000u) && r ? ~(0xffffffffu >> r) : 0u;
  return (x >> r) | fill;
}

}  // namespace ref

int main(int argc, char** argv) {
  const int n = 16384;
  Rng rng(seedFrom(argc, argv));
  std::vector<std::uint32_t> in = rng.words(n);
  const std::uint32_t specials[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x00010000u, 0xdeadbeefu};
  for (std::size_t k = 0; k < sizeof specials / sizeof specials[0] && k < in.size(); ++k) in[k] = specials[k];

  constexpr int K32 = 14, K64 = 4;
  std::vector<unsigned> want(std::size_t(K32) * n);
  std::vector<unsigned long long> want64(std::size_t(K64) * n);
  for (int i = 0; i < n; ++i) {
    const std::uint32_t x = in[i], h = ref::fmix32(x);
    auto at = [&](int k) -> unsigned& { return want[std::size_t(k) * n + i]; };
    at(0) = h;
    at(1) = ref::xorshift32(x);
    at(2) = std::uint32_t((std::uint64_t(x) * 0x9e3779b9u) >> 32);
    at(3) = std::uint32_t(ref::popc64(x) | (ref::clz64(x, 32) << 8) | (ref::ffs64(x) << 16));
    at(4) = std::uint32_t(ref::brev(x, 32));
    at(5) = ref::bytePerm(x, h, 0x7531);
    at(6) = ref::funnelLeft(x, h, h & 31);
    at(7) = ref::funnelRight(x, h, h & 31);
    at(8) = ref::funnelLeft(x, h, (h & 63) > 32 ? 32 : (h & 63));  // the clamping variant
    at(9) = std::uint32_t(std::uint64_t(std::int64_t(std::int32_t(x)) * std::int64_t(std::int32_t(h))) >> 32);
    at(10) = x / (h | 1u);
    at(11) = x % (h | 1u);
    const std::uint32_t r = h & 31;
    at(12) = (x << r) | (x >> ((32 - r) & 31));
    at(13) = ref::sar32(x, r);
    const std::uint64_t xh = (std::uint64_t(x) << 32) | h;
    want64[0 * std::size_t(n) + i] = ref::splitmix64(xh);
    want64[1 * std::size_t(n) + i] = ref::mulhi64(xh, 0x9e3779b97f4a7c15ull);
    want64[2 * std::size_t(n) + i] =
        std::uint64_t(ref::popc64(xh) | (ref::clz64(xh, 64) << 8) | (ref::ffs64(xh) << 16));
    want64[3 * std::size_t(n) + i] = ref::brev(xh, 64);
  }

  const unsigned* din = upload(in);
  unsigned* dout = deviceZeros<unsigned>(want.size());
  unsigned long long* dout64 = deviceZeros<unsigned long long>(want64.size());
  int_hash<<<blocksFor(n, 128), 128>>>(din, dout, dout64, n);
  CHECK_LAUNCH("int_hash");
  static const char* const names[K32] = {"fmix32", "xorshift32", "umulhi", "popc|clz|ffs", "brev", "byte_perm",
                                         "funnelshift_l", "funnelshift_r", "funnelshift_lc", "mulhi", "div", "rem",
                                         "rotl", "sar"};
  static const char* const names64[K64] = {"splitmix64", "umul64hi", "popcll|clzll|ffsll", "brevll"};
  const std::vector<unsigned> got = download(dout, want.size());
  if (long i = firstDifference(got, want); i >= 0)
    return failed(mismatchMessage(names[i / n], i % n, got[i], want[i]) + " for x=" + std::to_string(in[i % n]));
  const std::vector<unsigned long long> got64 = download(dout64, want64.size());
  if (long i = firstDifference(got64, want64); i >= 0)
    return failed(mismatchMessage(names64[i / n], i % n, got64[i], want64[i]) + " for x=" + std::to_string(in[i % n]));
  return passed(std::to_string(n) + " words x " + std::to_string(K32 + K64) + " hash/bit results match exactly");
}
