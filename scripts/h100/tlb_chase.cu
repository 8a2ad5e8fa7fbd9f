// Measures, on a real GPU, the address-translation constants of the hopper preset (config `mmu.*`):
// the page size of cudaMalloc's allocations, the reach of the L1 and L2 TLBs, and the extra cycles
// of an L1-TLB miss that hits the L2 TLB and of a miss in both (page walk).
//
// Method: one thread chases pointers (each load's address is the value the previous load returned,
// so loads cannot overlap) through H hops. Hop i lies at  base + i * stride + skew(i), so successive
// hops land on distinct pages whenever the stride is at least the page size; skew(i) moves each hop
// to a different cache line offset inside its page so that the hops do not all fall into one cache
// set. The chain is cyclic; one warm pass fills the caches and TLBs, then three timed passes of at
// least kMinTimedHops hops each are measured with clock64 (SM cycles).
//
// Cache effects are separated by keeping the number of distinct lines small enough to stay in the
// L2 (at most kMaxHops lines = 8 MiB) and by a baseline chase with stride 128 B: the same number of
// lines packed into a few pages, which pays the cache latency but (almost) no TLB misses. Two load
// kinds: `cg` (ld.global.cg, bypasses the L1 data cache, every hop is an L2 access through the
// TLBs) and `ca` (default loads, cached in L1: shows whether an L1 hit needs a translation).
//
// Stride S and page size P: for S < P, S/P of the hops start a new page, so a TLB step appears at
// the footprint E * P (E entries) and its height is the miss cost times S/P; for S >= P every hop
// is a new page and the step appears at H = E hops. Comparing S = 4 KiB, 64 KiB and 2 MiB therefore
// gives P; S = 32 MiB (16 pages of 2 MiB) shows whether the TLB is set-associative (its sets are
// then indexed by low virtual page bits, and fewer distinct pages fit).
//
// A second chain measures L2 misses: 1 Mi lines (128 MiB, more than the L2 holds) spread round
// robin over P 2 MiB slots (P = 64 .. 16384), rows with load `cg_l2miss` and hops = P. Rows whose
// load ends in `_random` visit the pages in a random (fixed-seed) order instead of by address.
//
// Part 5 maps the same physical pages twice and times the first pass through a never-translated
// alias (rows `cg_first_pass`: page walks over data in the L2) against the later passes; rows
// `_after_touch` first load another line of every page, which warms the translations but, if the
// L2 were virtually tagged, would not bring the chain's lines into it under the new addresses.
// Part 4 chases pinned host memory (cudaHostAlloc, mapped), which the driver maps with small
// pages, to reach more pages than device memory holds. Three device-memory mappings: one large cudaMalloc (the driver picks the page size) and the same kind of range
// built from separate 2 MiB physical allocations mapped back to back with cuMemCreate/cuMemMap,
// which forces 2 MiB pages.
//
// Build and run: nvcc -O2 -arch=sm_90 -o tlb_chase tlb_chase.cu -lcuda && ./tlb_chase [PARTS] > h100_tlb.csv
// Output: CSV rows  mapping,load,stride_bytes,hops,footprint_bytes,cycles_per_hop_min,
// cycles_per_hop_median  after comment lines (#) naming the device, its clock and the mappings.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "cuda_check.h"

#define CHECK_CU(x)                                                                               \
  do {                                                                                            \
    CUresult r = (x);                                                                             \
    if (r != CUDA_SUCCESS) {                                                                      \
      const char* msg = "?";                                                                      \
      cuGetErrorString(r, &msg);                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, msg);                       \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

constexpr uint64_t kLineBytes = 128;           // L1/L2 line; one hop touches one line
constexpr uint64_t kSkewSpanBytes = 64 << 10;  // skew(i) stays below this (and below the stride)
constexpr uint64_t kMaxHops = 65536;           // 8 MiB of lines: fits the 50 MiB L2 with room
constexpr uint64_t kMinTimedHops = 16384;      // each timed pass is at least this long
constexpr int kTimedPasses = 3;

__device__ __forceinline__ uint64_t loadCg(uint64_t addr) {
  uint64_t v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
  return v;
}

__device__ __forceinline__ uint64_t loadCa(uint64_t addr) {
  uint64_t v;
  asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
  return v;
}

// Hop i's slot is i (sequential) or order[i] (a random permutation with order[0] == 0, so the
// chain still starts at base): the random order defeats anything that fetches or caches the
// translations of neighbouring virtual pages together.
__host__ __device__ uint64_t hopAddress(uint64_t base, uint64_t stride, const uint32_t* order,
                                        uint64_t i) {
  uint64_t span = stride < kSkewSpanBytes ? stride : kSkewSpanBytes;
  uint64_t slots = span / kLineBytes;
  uint64_t skew = slots > 1 ? (i % slots) * kLineBytes : 0;
  return base + (order ? order[i] : i) * stride + skew;
}

// Hop i holds the address of hop i + 1; the last holds the first.
__global__ void buildChain(uint64_t base, uint64_t stride, const uint32_t* order, uint64_t hops) {
  uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
  if (i >= hops) return;
  uint64_t next = i + 1 == hops ? 0 : i + 1;
  *reinterpret_cast<uint64_t*>(hopAddress(base, stride, order, i)) =
      hopAddress(base, stride, order, next);
}

// The L2-miss chain: kMissLines lines (more than the L2 holds) spread round robin over `pages`
// 2 MiB slots, so that successive hops land on different pages and every hop misses in the L2.
constexpr uint64_t kMissLines = 1 << 20;  // 128 MiB of lines against a 50 MiB L2
constexpr uint64_t kSlotBytes = 2 << 20;

__host__ __device__ uint64_t missAddress(uint64_t base, uint64_t pages, const uint32_t* order,
                                         uint64_t i) {
  uint64_t slot = order ? order[i % pages] : i % pages;
  return base + slot * kSlotBytes + (i / pages) * kLineBytes;
}

__global__ void buildMissChain(uint64_t base, uint64_t pages, const uint32_t* order) {
  uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
  if (i >= kMissLines) return;
  uint64_t next = i + 1 == kMissLines ? 0 : i + 1;
  *reinterpret_cast<uint64_t*>(missAddress(base, pages, order, i)) =
      missAddress(base, pages, order, next);
}

// The chain of part 5: written through one mapping (va1), pointing into another (va2) of the same
// physical memory; hop i is one line in page order[i] (or i).
__global__ void buildAliasChain(uint64_t va1, uint64_t va2, uint64_t page_bytes,
                                const uint32_t* order, uint64_t hops) {
  uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
  if (i >= hops) return;
  uint64_t next = i + 1 == hops ? 0 : i + 1;
  *reinterpret_cast<uint64_t*>(hopAddress(va1, page_bytes, order, i)) =
      hopAddress(va2, page_bytes, order, next);
}

// Part 5's check of where translation happens: first one load from the last line of each page of
// the chain (never a chain line: the skew stays below 64 KiB), which fills the TLBs for va2 but
// brings no chain line into the L2 under va2, then the timed passes.
__global__ void touchThenChase(uint64_t va2, uint64_t page_bytes, uint64_t pages,
                               long long* cycles, uint64_t* sink) {
  uint64_t acc = 0;
  for (uint64_t i = 0; i < pages; ++i) acc += loadCg(va2 + i * page_bytes + page_bytes - kLineBytes);
  uint64_t p = va2;
  asm volatile("" : "+l"(p) : "l"(acc));  // the chain starts after the touches have returned
  for (int pass = 0; pass < kTimedPasses; ++pass) {
    long long t0 = clock64();
    for (uint64_t i = 0; i < pages; ++i) p = loadCg(p);
    long long t1 = clock64();
    cycles[pass] = t1 - t0;
  }
  *sink = p + acc;
}

template <bool kCg>
__global__ void chase(uint64_t start, uint64_t warm_hops, uint64_t timed_hops, long long* cycles,
                      uint64_t* sink) {
  uint64_t p = start;
  for (uint64_t i = 0; i < warm_hops; ++i) p = kCg ? loadCg(p) : loadCa(p);
  for (int pass = 0; pass < kTimedPasses; ++pass) {
    long long t0 = clock64();
#pragma unroll 8
    for (uint64_t i = 0; i < timed_hops; ++i) p = kCg ? loadCg(p) : loadCa(p);
    long long t1 = clock64();
    cycles[pass] = t1 - t0;
  }
  *sink = p;  // keeps the chain live
}

// SM clock in MHz: clock64 against the nanosecond global timer over a busy wait.
__global__ void clockRate(long long* out) {
  long long c0 = clock64();
  uint64_t g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  uint64_t g1 = g0;
  while (g1 - g0 < 20000000) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));  // 20 ms
  long long c1 = clock64();
  out[0] = c1 - c0;
  out[1] = static_cast<long long>(g1 - g0);
}

std::vector<uint64_t> hopCounts(uint64_t max_hops) {
  // 1..16 densely, then four points per octave: enough to place a step within 25%.
  std::vector<uint64_t> out;
  for (uint64_t n = 1; n <= 16 && n <= max_hops; ++n) out.push_back(n);
  for (uint64_t octave = 16; octave < max_hops; octave *= 2)
    for (uint64_t q = 1; q <= 4; ++q) {
      uint64_t n = octave + octave * q / 4;
      if (n <= max_hops) out.push_back(n);
    }
  return out;
}

// A random permutation of 0 .. n-1 with element 0 first, on the device (fixed seed).
uint32_t* randomOrder(uint64_t n) {
  std::vector<uint32_t> h(n);
  for (uint64_t i = 0; i < n; ++i) h[i] = uint32_t(i);
  std::mt19937_64 rng(12345);
  std::shuffle(h.begin() + 1, h.end(), rng);
  uint32_t* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(uint32_t)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  return d;
}

// One row per (stride, hop count): the chain over [base, base + bytes) is rebuilt, warmed and timed.
void sweep(const char* mapping, bool cg, uint64_t base, uint64_t bytes,
           std::initializer_list<uint64_t> strides, uint64_t max_hops_cap, long long* d_cycles,
           uint64_t* d_sink, bool random = false) {
  for (uint64_t stride : strides) {
    uint64_t max_hops = std::min<uint64_t>(max_hops_cap, (bytes - kSkewSpanBytes) / stride);
    for (uint64_t hops : hopCounts(max_hops)) {
      uint32_t* order = random ? randomOrder(hops) : nullptr;
      buildChain<<<unsigned((hops + 255) / 256), 256>>>(base, stride, order, hops);
      CHECK(cudaGetLastError());
      uint64_t timed = std::max(hops, kMinTimedHops);
      uint64_t warm = std::max(hops, uint64_t(1024));
      if (cg)
        chase<true><<<1, 1>>>(base, warm, timed, d_cycles, d_sink);
      else
        chase<false><<<1, 1>>>(base, warm, timed, d_cycles, d_sink);
      CHECK(cudaGetLastError());
      long long c[kTimedPasses];
      CHECK(cudaMemcpy(c, d_cycles, sizeof(c), cudaMemcpyDeviceToHost));
      std::sort(c, c + kTimedPasses);
      if (order) CHECK(cudaFree(order));
      std::printf("%s,%s%s,%llu,%llu,%llu,%.1f,%.1f\n", mapping, cg ? "cg" : "ca",
                  random ? "_random" : "",
                  (unsigned long long)stride, (unsigned long long)hops,
                  (unsigned long long)(hops * stride), double(c[0]) / double(timed),
                  double(c[kTimedPasses / 2]) / double(timed));
      std::fflush(stdout);
    }
  }
}

// L2 misses over a growing number of pages: does translation cost show on the way to DRAM?
void sweepMiss(const char* mapping, uint64_t base, uint64_t bytes, long long* d_cycles,
               uint64_t* d_sink, bool random = false) {
  constexpr uint64_t kLinesPerSlot = kSlotBytes / kLineBytes;
  constexpr uint64_t kMissTimedHops = 1 << 18;  // a quarter of the chain: every hop still misses
  for (uint64_t pages = kMissLines / kLinesPerSlot; pages <= bytes / kSlotBytes; pages *= 2) {
    uint32_t* order = random ? randomOrder(pages) : nullptr;
    buildMissChain<<<unsigned(kMissLines / 256), 256>>>(base, pages, order);
    CHECK(cudaGetLastError());
    chase<true><<<1, 1>>>(base, kMissTimedHops, kMissTimedHops, d_cycles, d_sink);
    CHECK(cudaGetLastError());
    long long c[kTimedPasses];
    CHECK(cudaMemcpy(c, d_cycles, sizeof(c), cudaMemcpyDeviceToHost));
    std::sort(c, c + kTimedPasses);
    if (order) CHECK(cudaFree(order));
    std::printf("%s,cg_l2miss%s,%llu,%llu,%llu,%.1f,%.1f\n", mapping, random ? "_random" : "",
                (unsigned long long)kSlotBytes, (unsigned long long)pages,
                (unsigned long long)(pages * kSlotBytes), double(c[0]) / double(kMissTimedHops),
                double(c[kTimedPasses / 2]) / double(kMissTimedHops));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Optional argument: the parts to run, e.g. "13" (default: all).
  auto wanted = [&](int part) {
    return argc < 2 || std::strchr(argv[1], char('0' + part)) != nullptr;
  };
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  long long* d_clock;
  CHECK(cudaMalloc(&d_clock, 2 * sizeof(long long)));
  clockRate<<<1, 1>>>(d_clock);
  long long h_clock[2];
  CHECK(cudaMemcpy(h_clock, d_clock, sizeof(h_clock), cudaMemcpyDeviceToHost));
  std::printf("# device %s, %d SMs, L2 %d bytes, SM clock %.0f MHz (clock64 vs globaltimer)\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize,
              1e3 * double(h_clock[0]) / double(h_clock[1]));
  long long* d_cycles;
  uint64_t* d_sink;
  CHECK(cudaMalloc(&d_cycles, kTimedPasses * sizeof(long long)));
  CHECK(cudaMalloc(&d_sink, sizeof(uint64_t)));
  std::printf("mapping,load,stride_bytes,hops,footprint_bytes,cycles_per_hop_min,"
              "cycles_per_hop_median\n");

  // Part 1: one cudaMalloc, the largest the card grants, so the sweep reaches tens of GiB. The
  // driver chooses the page size here.
  if (wanted(1)) {
    void* buf = nullptr;
    uint64_t alloc_bytes = 0;
    for (uint64_t gib : {64, 56, 48, 40, 32, 24, 16, 8}) {
      if (cudaMalloc(&buf, gib << 30) == cudaSuccess) {
        alloc_bytes = gib << 30;
        break;
      }
      cudaGetLastError();  // clear the failed allocation's error
    }
    if (alloc_bytes == 0) {
      std::fprintf(stderr, "no allocation of 8 GiB or more\n");
      return 1;
    }
    const uint64_t base = reinterpret_cast<uint64_t>(buf);
    std::printf("# cudaMalloc: %llu bytes at 0x%llx\n", (unsigned long long)alloc_bytes,
                (unsigned long long)base);
    for (int cg = 1; cg >= 0; --cg)
      sweep("cudaMalloc", cg, base, alloc_bytes,
            {128, 4ull << 10, 64ull << 10, 2ull << 20, 32ull << 20}, kMaxHops, d_cycles, d_sink);
    // Strides of 512 MiB and 1 GiB: one hop per 512 MiB page, should the driver use them.
    sweep("cudaMalloc", true, base, alloc_bytes, {512ull << 20, 1ull << 30}, kMaxHops, d_cycles,
          d_sink);
    sweepMiss("cudaMalloc", base, 32ull << 30, d_cycles, d_sink);
    sweep("cudaMalloc", true, base, alloc_bytes, {2ull << 20}, kMaxHops, d_cycles, d_sink, true);
    sweepMiss("cudaMalloc", base, 32ull << 30, d_cycles, d_sink, true);
    CHECK(cudaFree(buf));
  }

  // Parts 2 and 3: the same kind of range built from separate 2 MiB physical allocations
  // (cuMemCreate, the smallest granularity) mapped back to back, which forces 2 MiB pages. Part 2
  // maps them in allocation order, so neighbouring virtual pages are probably physically
  // contiguous too; part 3 scatters them (chunk k at virtual slot k * kScatter mod n), so that no
  // translation can cover more than one 2 MiB page even if the hardware merges contiguous ones.
  for (int part = 2; part <= 3; ++part) {
    if (!wanted(part)) continue;
    const bool scatter = part == 3;
    CUmemAllocationProp ap = {};
    ap.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.location.id = 0;
    size_t gran = 0;
    CHECK_CU(cuMemGetAllocationGranularity(&gran, &ap, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const uint64_t chunk = gran;
    const uint64_t total = 32ull << 30;
    const uint64_t n = total / chunk;  // a power of two, so an odd multiplier permutes
    constexpr uint64_t kScatter = 7919;
    CUdeviceptr va = 0;
    CHECK_CU(cuMemAddressReserve(&va, total, 512ull << 20, 0, 0));
    std::vector<CUmemGenericAllocationHandle> handles;
    for (uint64_t k = 0; k < n; ++k) {
      CUmemGenericAllocationHandle h;
      CHECK_CU(cuMemCreate(&h, chunk, &ap, 0));
      uint64_t slot = scatter ? (k * kScatter) % n : k;
      CHECK_CU(cuMemMap(va + slot * chunk, chunk, 0, h, 0));
      handles.push_back(h);
    }
    CUmemAccessDesc ad = {};
    ad.location = ap.location;
    ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_CU(cuMemSetAccess(va, total, &ad, 1));
    const char* mapping = scatter ? "cuMemMap_2MiB_scattered" : "cuMemMap_2MiB";
    std::printf("# %s: %llu bytes at 0x%llx in chunks of %llu bytes\n", mapping,
                (unsigned long long)total, (unsigned long long)va, (unsigned long long)chunk);
    sweep(mapping, true, va, total, {4ull << 10, 64ull << 10, 2ull << 20, 32ull << 20}, kMaxHops,
          d_cycles, d_sink);
    // Default loads, as many lines as the L1 holds: does an L1 hit need a translation?
    sweep(mapping, false, va, total, {2ull << 20}, 1280, d_cycles, d_sink);
    sweepMiss(mapping, va, total, d_cycles, d_sink);
    // The same in random page order (rows load cg_random and cg_l2miss_random).
    sweep(mapping, true, va, total, {2ull << 20}, kMaxHops, d_cycles, d_sink, true);
    sweepMiss(mapping, va, total, d_cycles, d_sink, true);
    CHECK_CU(cuMemUnmap(va, total));
    for (auto h : handles) CHECK_CU(cuMemRelease(h));
    CHECK_CU(cuMemAddressFree(va, total));
  }

  // Part 4: pinned host memory mapped into the GPU's address space (cudaHostAlloc), which the
  // driver maps with the host's small pages: a way to put far more pages in reach of the chase
  // than device memory allows, at the cost of a PCIe round trip per hop.
  if (wanted(4)) {
    const uint64_t bytes = 1ull << 30;
    void* host = nullptr;
    CHECK(cudaHostAlloc(&host, bytes, cudaHostAllocMapped));
    void* dev = nullptr;
    CHECK(cudaHostGetDevicePointer(&dev, host, 0));
    std::printf("# cudaHostAlloc: %llu bytes at device address 0x%llx\n",
                (unsigned long long)bytes, (unsigned long long)reinterpret_cast<uint64_t>(dev));
    sweep("cudaHostAlloc", true, reinterpret_cast<uint64_t>(dev), bytes,
          {128, 4ull << 10, 64ull << 10, 2ull << 20}, kMaxHops, d_cycles, d_sink);
    CHECK(cudaFreeHost(host));
  }

  // Part 5: cold translations over warm data. 2 MiB physical chunks are mapped at a first virtual
  // range (where the chain is written, so its lines sit in the L2) and again, for each
  // measurement, at a fresh second range that the GPU has never translated. The chain holds
  // second-range addresses; the first pass through it must translate every page afresh (a page
  // walk), the later passes hit the TLBs. If the L2 were virtually tagged, the first pass would
  // miss in the L2 as well (about 680 cycles, the DRAM latency) instead.
  if (wanted(5)) {
    CUmemAllocationProp ap = {};
    ap.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.location.id = 0;
    size_t gran = 0;
    CHECK_CU(cuMemGetAllocationGranularity(&gran, &ap, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const uint64_t chunk = gran;
    const uint64_t n = 4096;
    const uint64_t total = n * chunk;
    CUmemAccessDesc ad = {};
    ad.location = ap.location;
    ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    std::vector<CUmemGenericAllocationHandle> handles(n);
    for (auto& h : handles) CHECK_CU(cuMemCreate(&h, chunk, &ap, 0));
    auto mapAll = [&](CUdeviceptr* va) {
      CHECK_CU(cuMemAddressReserve(va, total, 512ull << 20, 0, 0));
      for (uint64_t k = 0; k < n; ++k) CHECK_CU(cuMemMap(*va + k * chunk, chunk, 0, handles[k], 0));
      CHECK_CU(cuMemSetAccess(*va, total, &ad, 1));
    };
    auto unmapAll = [&](CUdeviceptr va) {
      CHECK_CU(cuMemUnmap(va, total));
      CHECK_CU(cuMemAddressFree(va, total));
    };
    CUdeviceptr va1 = 0;
    mapAll(&va1);
    std::printf("# alias: %llu chunks of %llu bytes, written at 0x%llx\n", (unsigned long long)n,
                (unsigned long long)chunk, (unsigned long long)va1);
    for (int variant = 0; variant <= 2; ++variant) {
      const bool random = variant == 1;
      const bool touch = variant == 2;  // translations warmed first, sequential order
      for (uint64_t pages : {16ull, 256ull, 4096ull}) {
        CUdeviceptr va2 = 0;
        mapAll(&va2);
        uint32_t* order = random ? randomOrder(pages) : nullptr;
        buildAliasChain<<<unsigned((pages + 255) / 256), 256>>>(va1, va2, chunk, order, pages);
        CHECK(cudaGetLastError());
        if (touch)
          touchThenChase<<<1, 1>>>(va2, chunk, pages, d_cycles, d_sink);
        else
          chase<true><<<1, 1>>>(va2, 0, pages, d_cycles, d_sink);
        CHECK(cudaGetLastError());
        long long c[kTimedPasses];
        CHECK(cudaMemcpy(c, d_cycles, sizeof(c), cudaMemcpyDeviceToHost));
        if (order) CHECK(cudaFree(order));
        const char* what[kTimedPasses] = {"first_pass", "second_pass", "third_pass"};
        for (int pass = 0; pass < kTimedPasses; ++pass)
          std::printf("alias_2MiB,cg_%s%s,%llu,%llu,%llu,%.1f,%.1f\n", what[pass],
                      random ? "_random" : touch ? "_after_touch" : "", (unsigned long long)chunk,
                      (unsigned long long)pages, (unsigned long long)(pages * chunk),
                      double(c[pass]) / double(pages), double(c[pass]) / double(pages));
        std::fflush(stdout);
        unmapAll(va2);
      }
    }
    unmapAll(va1);
    for (auto h : handles) CHECK_CU(cuMemRelease(h));
  }
  return 0;
}
