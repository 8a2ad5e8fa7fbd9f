// Microbenchmarks of the SM's own mechanisms: shared-memory bandwidth with 1- to 32-way bank
// conflicts, shared-memory and global atomics, FFMA/IMAD/MUFU/DFMA throughput and dependent
// latency, and pointer-chase latencies (L1, L2, DRAM, shared memory). Every kernel times its own
// loop with clock64 between two __syncthreads and thread 0 writes the cycles to
// cycles[blockIdx.x], so launch overhead and block dispatch are not part of the number: the same
// cycles come out of the H100 (scripts/h100/sm_micro.cu) and of the model (launch files here,
// output: cycles.npy). `sink` keeps the compiler from removing the loops (the write never
// happens for the inputs used).
//
// Built into validation/micro/sm_micro.ptx by scripts/gen_micro_ptx.sh.

#include "../../kernels/cuda/mandelbrot_loop.cuh"

// Enough 4-byte words for lane * 32 + 7 * 32 + 7 * 1024 (the largest offsets used below).
#define SMEM_WORDS 9216

__device__ __forceinline__ long long syncedClock() {
  __syncthreads();
  return clock64();
}

__device__ __forceinline__ void report(long long t0, long long t1, long long* cycles) {
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// 32-bit shared loads; lane L reads word L * stride (plus multiples of 32 words, which keep the
// bank): `stride` 1 is conflict-free, a power of two s gives an s-way conflict (32: all lanes in
// one bank). Eight independent loads per iteration.
extern "C" __global__ void smem_load(unsigned stride, int iters, long long* cycles, int* sink) {
  __shared__ int s[SMEM_WORDS];
  for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x) s[i] = i;
  volatile int* vs = s;
  const unsigned lane = threadIdx.x & 31;
  int acc = 0;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    const unsigned off = lane * stride + ((i & 7) << 5);
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += vs[off + k * 1024];
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (acc == 0x7fffffff) sink[0] = acc;
}

// 32-bit shared stores, same addresses as smem_load.
extern "C" __global__ void smem_store(unsigned stride, int iters, long long* cycles, int* sink) {
  __shared__ int s[SMEM_WORDS];
  volatile int* vs = s;
  const unsigned lane = threadIdx.x & 31;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    const unsigned off = lane * stride + ((i & 7) << 5);
#pragma unroll
    for (int k = 0; k < 8; ++k) vs[off + k * 1024] = i + k;
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (vs[lane] == 0x7fffffff) sink[0] = 1;
}

// 128-bit shared loads. Lane L reads the 16 bytes at index L >> shift: shift 0 is conflict-free
// (each quarter warp reads 128 consecutive bytes), 4 gives two addresses per warp (half warps
// broadcast, as a tiled GEMM reads a row of its A tile), 5 one address for the whole warp.
extern "C" __global__ void smem_load_v4(unsigned shift, int iters, long long* cycles, int* sink) {
  __shared__ int4 s[SMEM_WORDS / 4];
  for (int i = threadIdx.x; i < SMEM_WORDS / 4; i += blockDim.x) s[i] = make_int4(i, i, i, i);
  volatile int4* vs = s;
  const unsigned lane = (threadIdx.x & 31) >> shift;
  int acc = 0;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    const unsigned off = lane + ((i & 7) << 5);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int4 v = const_cast<const int4&>(vs[off + k * 256]);
      acc += (v.x ^ v.y) + (v.z ^ v.w);  // all four words: ptxas splits a v4 load whose words go unused
    }
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (acc == 0x7fffffff) sink[0] = acc;
}

// 64-bit shared loads, conflict-free (each half warp reads 128 consecutive bytes).
extern "C" __global__ void smem_load_v2(int iters, long long* cycles, int* sink) {
  __shared__ int2 s[SMEM_WORDS / 2];
  for (int i = threadIdx.x; i < SMEM_WORDS / 2; i += blockDim.x) s[i] = make_int2(i, i);
  volatile int2* vs = s;
  const unsigned lane = threadIdx.x & 31;
  int acc = 0;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    const unsigned off = lane + ((i & 7) << 5);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int2 v = const_cast<const int2&>(vs[off + k * 512]);
      acc += v.x ^ v.y;
    }
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (acc == 0x7fffffff) sink[0] = acc;
}

// Shared-memory atomicAdd (result unused). mode 0: every lane of the block its own word (no
// conflict); 1: the lanes of a warp in one bank, distinct words (32-way); 2: every thread the
// same word; 3: 256 bins chosen by a hash of thread and iteration (a byte histogram); 4: every
// thread the same word, adding a value that differs per thread (not a constant increment).
extern "C" __global__ void smem_atomic(int mode, int iters, long long* cycles, int* sink) {
  __shared__ int s[SMEM_WORDS];
  for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x) s[i] = 0;
  const unsigned lane = threadIdx.x & 31;
  unsigned idx = mode == 0 ? threadIdx.x : mode == 1 ? lane * 32 : 0;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    if (mode == 3) idx = ((threadIdx.x * 2654435761u) ^ (i * 40503u)) >> 24;
    atomicAdd(&s[idx], mode == 4 ? int(threadIdx.x) : 1);
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (s[lane] == 0x7fffffff) sink[0] = 1;
}

// Global atomicAdd (result unused, a RED). mode 0: every thread of the grid its own word; 1: every
// thread the same word; 2: float adds to one word; 3: float adds, every thread its own word;
// 4: integer adds of a per-thread value to one word; 5: float adds of a per-thread value to one word;
// 6: integer adds of 1 to 256 bins (1 KiB) chosen by a hash of thread and iteration (a byte
// histogram in global memory); 7: the same over 4096 bins (16 KiB).
extern "C" __global__ void global_atomic(int mode, int iters, int* buf, long long* cycles) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned idx = (mode == 0 || mode == 3) ? tid : 0;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    if (mode >= 6) atomicAdd(buf + (((tid * 2654435761u) ^ (i * 40503u)) >> (mode == 6 ? 24 : 20)), 1);
    else if (mode == 5) atomicAdd(reinterpret_cast<float*>(buf), float(threadIdx.x));
    else if (mode == 4) atomicAdd(buf, int(threadIdx.x));
    else if (mode >= 2) atomicAdd(reinterpret_cast<float*>(buf) + idx, 1.0f);
    else atomicAdd(buf + idx, 1);
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
}

// Global integer reductions under controlled contention (the same kernel as
// scripts/h100/atomic_probe.cu): every warp instruction updates `words` distinct words (lanes share
// them evenly; 1: all 32 lanes on one word) of one of `lines` lines, `stride_words` words apart; a
// warp walks the lines with a stride of its own, so consecutive requests to a slice come from many
// warps. Timed by the host (kernel_ns): the result is not used, so these are REDs.
extern "C" __global__ void hot_lines(unsigned* buf, unsigned lines, unsigned words, unsigned stride_words, int iters) {
  const unsigned lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned word = (lane % words) * (32 / words);
  for (int i = 0; i < iters; ++i) {
    const unsigned line = (warp * 7u + unsigned(i) * 13u) % lines;
    atomicAdd(buf + line * stride_words + word, 1u);
  }
}

// Arithmetic: CHAINS independent dependency chains per thread, UNROLL steps each per iteration.
// Launched with many warps they measure throughput; with one warp and chains = 1, the latency
// of a dependent instruction. Inputs come from parameters so nothing folds.
#define ALU_KERNEL(NAME, T, CHAINS, STEP)                                             \
  extern "C" __global__ void NAME(int iters, T b, T c, long long* cycles, T* sink) {  \
    T a[CHAINS];                                                                      \
    _Pragma("unroll") for (int k = 0; k < CHAINS; ++k) a[k] = b + T(threadIdx.x + k); \
    long long t0 = syncedClock();                                                     \
    for (int i = 0; i < iters; ++i) {                                                 \
      _Pragma("unroll") for (int u = 0; u < 8; ++u) {                                \
        _Pragma("unroll") for (int k = 0; k < CHAINS; ++k) a[k] = STEP(a[k], b, c);   \
      }                                                                               \
    }                                                                                 \
    long long t1 = syncedClock();                                                     \
    report(t0, t1, cycles);                                                           \
    T r = a[0];                                                                       \
    _Pragma("unroll") for (int k = 1; k < CHAINS; ++k) r += a[k];                     \
    if (r == T(-12345)) sink[0] = r;                                                  \
  }

__device__ __forceinline__ float ffmaStep(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ unsigned imadStep(unsigned a, unsigned b, unsigned c) { return a * b + c; }
__device__ __forceinline__ double dfmaStep(double a, double b, double c) { return fma(a, b, c); }
// MUFU.EX2 (ex2.approx.ftz.f32); the add keeps the chain from under- or overflowing to a
// constant, and makes a step one MUFU plus one FADD, as in most real uses.
__device__ __forceinline__ float mufuStep(float a, float b, float) {
  float r;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r * b;
}

// Integer division and remainder by a divisor known only at run time (div/rem.u32, .u64 in PTX):
// ptxas expands each into a sequence of SASS instructions (and a call for 64 bits). The 64-bit
// divisor is above 2^32 and the addend keeps the dividend large, so the full 64-bit path runs.
__device__ __forceinline__ unsigned udivStep(unsigned a, unsigned b, unsigned c) { return a / b + c; }
__device__ __forceinline__ unsigned uremStep(unsigned a, unsigned b, unsigned c) { return a % b + c; }
using u64 = unsigned long long;  // one token, for ALU_KERNEL's T(...) casts
__device__ __forceinline__ u64 udiv64Step(u64 a, u64 b, u64 c) { return a / b + c; }
__device__ __forceinline__ u64 urem64Step(u64 a, u64 b, u64 c) { return a % b + c; }

// Single PTX instructions that ptxas expands into a sequence (the model's `sass_sequences`):
// the IEEE-rounded division, reciprocal and square root and the approximations without .ftz
// (which scale denormal inputs around the MUFU). Each step is OP(a) * b + c or b / a + c, so a
// step is the sequence plus one FFMA/FADD (DFMA for f64), as in most real uses; b and c keep the
// chain on normal numbers, off the sequences' slow paths.
__device__ __forceinline__ float rsqrtStep(float a, float b, float c) { return rsqrtf(a) * b + c; }
__device__ __forceinline__ float sqrtStep(float a, float b, float c) { return sqrtf(a) * b + c; }
__device__ __forceinline__ float fdivStep(float a, float b, float c) { return b / a + c; }
__device__ __forceinline__ float frcpStep(float a, float b, float c) { return (1.0f / a) * b + c; }
__device__ __forceinline__ float ex2Step(float a, float b, float c) { return exp2f(a) * b + c; }
__device__ __forceinline__ float fdivfastStep(float a, float b, float c) { return __fdividef(b, a) + c; }
__device__ __forceinline__ double ddivStep(double a, double b, double c) { return b / a + c; }
__device__ __forceinline__ double dsqrtStep(double a, double b, double c) { return sqrt(a) * b + c; }
__device__ __forceinline__ double drcpStep(double a, double b, double c) { return (1.0 / a) * b + c; }
__device__ __forceinline__ double drsqrtStep(double a, double b, double c) { return rsqrt(a) * b + c; }

// Warp-uniform integer arithmetic (Turing and later have a uniform datapath: ptxas computes values
// that are the same in every lane, from parameters and loop counters, in uniform registers).
// Each step is two uniform ops (u = (u ^ b) + c) and two vector ALU ops that read u
// (v = (v ^ u) >> 1). uniform_mix: u comes from parameters only; vector_mix: u also depends on
// threadIdx.x >> shift (shift = 31: the same value, but not provably uniform), so all four ops
// are vector ops. With `vector` = 0 and one warp, uniform_mix's chain through u alone measures
// the uniform ops' latency.
#define INT_MIX_KERNEL(NAME, U0)                                                            \
  extern "C" __global__ void NAME(int iters, unsigned b, unsigned c, unsigned shift, int vector, \
                                  long long* cycles, unsigned* sink) {                     \
    unsigned u = U0, v = threadIdx.x;                                                      \
    long long t0 = syncedClock();                                                          \
    for (int i = 0; i < iters; ++i) {                                                      \
      _Pragma("unroll") for (int k = 0; k < 8; ++k) {                                      \
        u = (u ^ b) + c;                                                                   \
        if (vector) v = (v ^ u) >> 1;                                                      \
      }                                                                                    \
    }                                                                                      \
    long long t1 = syncedClock();                                                          \
    report(t0, t1, cycles);                                                                \
    if ((u ^ v) == 0x7fffffffu) sink[0] = u + v;                                           \
  }
INT_MIX_KERNEL(uniform_mix, b)
INT_MIX_KERNEL(vector_mix, b ^ (threadIdx.x >> shift))

ALU_KERNEL(ffma_tput, float, 8, ffmaStep)
ALU_KERNEL(ffma_lat, float, 1, ffmaStep)
ALU_KERNEL(imad_tput, unsigned, 8, imadStep)
ALU_KERNEL(imad_lat, unsigned, 1, imadStep)
ALU_KERNEL(dfma_tput, double, 8, dfmaStep)
ALU_KERNEL(dfma_lat, double, 1, dfmaStep)
ALU_KERNEL(mufu_tput, float, 8, mufuStep)
ALU_KERNEL(mufu_lat, float, 1, mufuStep)
ALU_KERNEL(udiv_tput, unsigned, 8, udivStep)
ALU_KERNEL(udiv_lat, unsigned, 1, udivStep)
ALU_KERNEL(urem_tput, unsigned, 8, uremStep)
ALU_KERNEL(urem_lat, unsigned, 1, uremStep)
ALU_KERNEL(udiv64_tput, u64, 8, udiv64Step)
ALU_KERNEL(udiv64_lat, u64, 1, udiv64Step)
ALU_KERNEL(urem64_tput, u64, 8, urem64Step)
ALU_KERNEL(urem64_lat, u64, 1, urem64Step)
ALU_KERNEL(rsqrt_tput, float, 8, rsqrtStep)
ALU_KERNEL(rsqrt_lat, float, 1, rsqrtStep)
ALU_KERNEL(sqrt_tput, float, 8, sqrtStep)
ALU_KERNEL(sqrt_lat, float, 1, sqrtStep)
ALU_KERNEL(fdiv_tput, float, 8, fdivStep)
ALU_KERNEL(fdiv_lat, float, 1, fdivStep)
ALU_KERNEL(frcp_tput, float, 8, frcpStep)
ALU_KERNEL(frcp_lat, float, 1, frcpStep)
ALU_KERNEL(ex2_tput, float, 8, ex2Step)
ALU_KERNEL(ex2_lat, float, 1, ex2Step)
ALU_KERNEL(fdivfast_tput, float, 8, fdivfastStep)
ALU_KERNEL(fdivfast_lat, float, 1, fdivfastStep)
ALU_KERNEL(ddiv_tput, double, 8, ddivStep)
ALU_KERNEL(ddiv_lat, double, 1, ddivStep)
ALU_KERNEL(dsqrt_tput, double, 8, dsqrtStep)
ALU_KERNEL(dsqrt_lat, double, 1, dsqrtStep)
ALU_KERNEL(drcp_tput, double, 8, drcpStep)
ALU_KERNEL(drcp_lat, double, 1, drcpStep)
ALU_KERNEL(drsqrt_tput, double, 8, drsqrtStep)
ALU_KERNEL(drsqrt_lat, double, 1, drsqrtStep)

// Pointer chase in global memory, one thread: idx = (idx + stride + a[idx]) & mask over a
// zero-filled buffer, so every load depends on the previous one and touches a new line when
// stride is a whole line. `pass` passes over the same `iters` addresses; only the last is
// timed (pass 2: warm; pass 1: cold). cg != 0 uses ld.global.cg (L2 only).
extern "C" __global__ void chase(const unsigned* a, unsigned stride, unsigned mask, int iters, int passes, int cg,
                                 long long* cycles, unsigned* sink) {
  unsigned idx = 0;
  long long t0 = 0, t1 = 0;
  for (int p = 0; p < passes; ++p) {
    idx = 0;
    t0 = clock64();
    for (int i = 0; i < iters; ++i) idx = (idx + stride + (cg ? __ldcg(a + idx) : a[idx])) & mask;
    t1 = clock64();
  }
  cycles[blockIdx.x] = t1 - t0;
  if (idx == 0xffffffffu) sink[0] = idx;
}

// The same chase in shared memory (one warp's worth of words, stride one word).
extern "C" __global__ void smem_chase(int iters, long long* cycles, unsigned* sink) {
  __shared__ unsigned s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
  __syncthreads();
  volatile unsigned* vs = s;
  unsigned idx = threadIdx.x;
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) idx = (idx + 1 + vs[idx]) & 1023;
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (idx == 0xffffffffu) sink[0] = idx;
}

// Global loads through the L1 with `lines` 128-byte lines per warp instruction: lane L reads
// word L * lines of 8 rows of a per-warp 32 KiB window, so lines = 1 is one coalesced line and 32
// is one line per lane. The addresses are computed once and the loads are `asm volatile`, so the
// loop is the 8 loads and their adds (the compiler may not merge or hoist them). Launched with
// 4 warps per block the windows (128 KiB) fit the L1; the first pass warms it, the second is timed.
__device__ __forceinline__ int ldCa(const int* p) {
  int v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

extern "C" __global__ void l1_load(unsigned lines, int iters, const int* buf, long long* cycles, int* sink) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int* p = buf + (blockIdx.x * (blockDim.x >> 5) + warp) * 8192 + lane * lines;
  int acc = 0;
  for (int pass = 0; pass < 2; ++pass) {
    long long t0 = syncedClock();
    for (int i = 0; i < iters; ++i) {
      acc += ldCa(p) + ldCa(p + 1024) + ldCa(p + 2048) + ldCa(p + 3072) + ldCa(p + 4096) + ldCa(p + 5120) +
             ldCa(p + 6144) + ldCa(p + 7168);
    }
    long long t1 = syncedClock();
    if (pass == 1) report(t0, t1, cycles);
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

// Global stores with `lines` lines per warp instruction (as l1_load): write-through stores of 4
// bytes per lane, one request per line.
__device__ __forceinline__ void stWb(int* p, int v) { asm volatile("st.global.wb.u32 [%0], %1;" ::"l"(p), "r"(v)); }

extern "C" __global__ void st_global(unsigned lines, int iters, int* buf, long long* cycles) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int* p = buf + (blockIdx.x * (blockDim.x >> 5) + warp) * 8192 + lane * lines;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    stWb(p, i);
    stWb(p + 1024, i);
    stWb(p + 2048, i);
    stWb(p + 3072, i);
    stWb(p + 4096, i);
    stWb(p + 5120, i);
    stWb(p + 6144, i);
    stWb(p + 7168, i);
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
}

// Scattered 4-byte accesses from the whole chip: lane L of a warp accesses word L * stride of the
// warp's span (stride 1: one 128-byte line per warp instruction; 8: a sector per lane, 8 lines;
// 32: a line per lane), warps take consecutive spans and the grid sweeps a footprint of mask + 1
// words (a power of two: 8 MiB stays in the L2, 256 MiB does not). mode 0: stores (a 4-byte write
// to a sector the L2 otherwise does not hold); 1: loads that bypass the L1 (ld.global.cg), four
// in flight per warp. Every lane's word is the first of its sector, so with stride 8 or 32 no
// sector is ever written whole.
__device__ __forceinline__ int ldCg(const int* p) {
  int v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

extern "C" __global__ void scatter(int mode, unsigned stride, unsigned mask, int iters, int* buf, long long* cycles,
                                   int* sink) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = (gridDim.x * blockDim.x) >> 5;
  const unsigned step = warps * 32u * stride;
  unsigned idx = warp * 32u * stride + lane * stride;
  int acc = 0;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i, idx += 4 * step) {
    if (mode == 0) {
      stWb(buf + (idx & mask), i);
      stWb(buf + ((idx + step) & mask), i);
      stWb(buf + ((idx + 2 * step) & mask), i);
      stWb(buf + ((idx + 3 * step) & mask), i);
    } else {
      acc += ldCg(buf + (idx & mask)) + ldCg(buf + ((idx + step) & mask)) + ldCg(buf + ((idx + 2 * step) & mask)) +
             ldCg(buf + ((idx + 3 * step) & mask));
    }
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (acc == 0x7fffffff) sink[0] = acc;
}

// Local memory (a per-thread array indexed at run time, which ptxas cannot keep in registers):
// each iteration one load and one store of the thread's own array, dependent through the sum.
extern "C" __global__ void local_mem(int iters, unsigned seed, long long* cycles, int* sink) {
  int a[64];
  for (int k = 0; k < 64; ++k) a[k] = k ^ int(seed);
  unsigned j = threadIdx.x * seed;
  int acc = 0;
  long long t0 = syncedClock();
  for (int i = 0; i < iters; ++i) {
    j = j * 1664525u + 1013904223u;
    const unsigned k = j >> 26;
    acc += a[k];
    a[(k + 7) & 63] = acc;
  }
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (acc == 0x7fffffff) sink[0] = acc + a[seed & 63];
}

// Calls of a function that is not inlined (the ABI's call, return, and argument registers), one
// warp, dependent: cycles per call and return.
__device__ __noinline__ unsigned callee(unsigned x) { return x * 3u + 1u; }

extern "C" __global__ void call_chain(int iters, long long* cycles, unsigned* sink) {
  unsigned x = threadIdx.x;
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) x = callee(x);
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (x == 0xffffffffu) sink[0] = x;
}

// Recursive non-inlined calls, as the suite's `recursion` makes them: a function that calls keeps
// its return address and what lives across its calls in a stack frame (STL on entry, LDL before
// the return). Lane L computes fib(n - L % spread): spread 1 has every lane take the same calls,
// larger spreads make the lanes' call trees differ (the warp runs their union, divergent).
__device__ __noinline__ unsigned rfib(unsigned n) {
  if (n < 2) return n;
  return rfib(n - 1) + rfib(n - 2);
}

extern "C" __global__ void call_recursive(int n, int spread, long long* cycles, unsigned* sink) {
  // The clock reads take the argument and the result as operands, so that the compiler keeps the
  // calls between them (a plain clock64() moved above the call: 2 cycles).
  long long t0, t1;
  unsigned k = unsigned(n) - threadIdx.x % unsigned(spread);
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0) : "r"(k) : "memory");
  k += unsigned(t0 >> 62);  // 0, but not before the first clock read
  const unsigned x = rfib(k);
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1) : "r"(x) : "memory");
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (x == 0xffffffffu) sink[0] = x;
}

// Nothing: launch overhead and block dispatch (timed from the host, and by the model's
// simulated_ns over back-to-back launches).
// The suite's Mandelbrot loop (kernels/cuda/mandelbrot_loop.cuh: 12 SASS instructions an
// iteration, FMUL/FADD/FFMA, FSETP, IADD3, ISETP and two branches), each lane on
// c = (cr + lane * spread, ci): with spread 0 and c inside the set every lane runs max_iter
// iterations (no divergence: the issue rate of the mix), with spread > 0 the lanes leave the loop
// at different iterations (divergence: the warp runs as long as its last lane, the others wait at
// the reconvergence).
extern "C" __global__ void mandel_loop(int max_iter, float cr, float ci, float spread, long long* cycles, int* sink) {
  const float c_r = __fmaf_rn(float(threadIdx.x % 32), spread, cr);
  float zr, zi;
  long long t0 = syncedClock();
  const int it = mandelbrotIterations(c_r, ci, max_iter, zr, zi);
  long long t1 = syncedClock();
  report(t0, t1, cycles);
  if (__float_as_int(zr) + __float_as_int(zi) + it == 0x7fffffff) sink[0] = it;
}

extern "C" __global__ void empty_kernel() {}
