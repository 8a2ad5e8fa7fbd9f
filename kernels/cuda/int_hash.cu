// Integer mixing and bit manipulation, one input word per thread; out[k*n+i] for k:
//   0 murmur3 fmix32(x)            1 xorshift32(x)                2 __umulhi(x, golden)
//   3 __popc | __clz<<8 | __ffs<<16 4 __brev(x)                    5 __byte_perm(x, h, 0x7531)
//   6 __funnelshift_l(x, h, h)     7 __funnelshift_r(x, h, h)     8 __funnelshift_lc(x, h, h & 63)
//   9 __mulhi((int)x, (int)h)     10 x / (h | 1)                 11 x % (h | 1)
//  12 rotl(x, h & 31)             13 (int)x >> (h & 31) (arithmetic)
// out64[k*n+i] for k: 0 splitmix64(x:h)  1 __umul64hi(x:h, golden64)
//                     2 __popcll | __clzll<<8 | __ffsll<<16    3 __brevll(x:h)
// where h = fmix32(x) and x:h is the 64-bit concatenation.
__device__ __forceinline__ unsigned fmix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

__device__ __forceinline__ unsigned xorshift32(unsigned x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

extern "C" __global__ void int_hash(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                    unsigned long long* __restrict__ out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i];
  unsigned h = fmix32(x);
  out[0 * n + i] = h;
  out[1 * n + i] = xorshift32(x);
  out[2 * n + i] = __umulhi(x, 0x9e3779b9u);
  out[3 * n + i] = __popc(x) | (__clz(x) << 8) | (__ffs(x) << 16);
  out[4 * n + i] = __brev(x);
  out[5 * n + i] = __byte_perm(x, h, 0x7531);
  out[6 * n + i] = __funnelshift_l(x, h, h);
  out[7 * n + i] = __funnelshift_r(x, h, h);
  out[8 * n + i] = __funnelshift_lc(x, h, h & 63);
  out[9 * n + i] = (unsigned)__mulhi((int)x, (int)h);
  out[10 * n + i] = x / (h | 1u);
  out[11 * n + i] = x % (h | 1u);
  unsigned r = h & 31;
  out[12 * n + i] = (x << r) | (x >> ((32 - r) & 31));
  out[13 * n + i] = (unsigned)((int)x >> r);
  unsigned long long xh = ((unsigned long long)x << 32) | h;
  out64[0 * n + i] = splitmix64(xh);
  out64[1 * n + i] = __umul64hi(xh, 0x9e3779b97f4a7c15ull);
  out64[2 * n + i] = (unsigned long long)(__popcll(xh) | (__clzll(xh) << 8) | (__ffsll(xh) << 16));
  out64[3 * n + i] = __brevll(xh);
}
