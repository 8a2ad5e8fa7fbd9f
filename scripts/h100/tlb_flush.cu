// Does a profiler's cache flush (ncu --cache-control all) also empty the TLBs? One thread chases
// one line in each of 128 pages of 2 MiB (256 MiB, within the L1 TLB's reach when warm), with
// ld.global.cg, and reports cycles per hop. Run under ncu --cache-control all: every hop misses
// the L2 (flushed); a hop costs the DRAM latency alone if the translations survive the flush
// (the same pages chased by the launch before), plus a page walk if they do not. Controls, also
// printed: the same chase with no profiler after a 512 MiB write empties the L2 of the chain but
// not the TLBs of its pages, and a chase over pages no SM has translated yet.
//   nvcc -O3 -arch=sm_90 scripts/h100/tlb_flush.cu -o tlb_flush
//   ./tlb_flush plain; ncu --cache-control all --metrics gpu__time_duration.sum ./tlb_flush ncu
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_check.h"

constexpr size_t kPage = 2ull << 20;
constexpr int kPages = 128;

__global__ void chase(const unsigned* buf, unsigned first, int hops, long long* cycles, unsigned* sink) {
  unsigned i = first;
  long long t0 = clock64();
  for (int h = 0; h < hops; ++h) i = __ldcg(buf + i);
  long long t1 = clock64();
  cycles[0] = t1 - t0;
  sink[0] = i;
}

__global__ void fill(float4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_float4(1, 2, 3, 4);
}

// The chain: page p's line (at a different offset in each page, so the lines spread over the
// channels) holds the word index of page p+1's line; the last holds the first's.
static unsigned lineOf(int p) { return unsigned(p * kPage / 4 + (size_t(p) * 37 % 2048) * 32); }

static void build(unsigned* dev) {
  for (int p = 0; p < kPages; ++p) {
    const unsigned next = lineOf((p + 1) % kPages);
    CHECK(cudaMemcpy(dev + lineOf(p), &next, 4, cudaMemcpyHostToDevice));
  }
}

int main(int argc, char** argv) {
  const bool under_ncu = argc > 1 && std::strcmp(argv[1], "ncu") == 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  unsigned *a, *b, *c, *sink;
  float4* big;
  long long* cyc;
  const size_t bytes = kPages * kPage;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMalloc(&big, 512ull << 20));
  CHECK(cudaMalloc(&cyc, 8));
  CHECK(cudaMalloc(&sink, 4));
  build(a);
  build(b);
  build(c);
  std::printf("# %s, %d SMs, %s\n", prop.name, prop.multiProcessorCount, under_ncu ? "under ncu" : "plain");
  std::printf("step,buffer,cycles_per_hop\n");
  auto run = [&](const char* step, const char* name, const unsigned* buf) {
    chase<<<1, 1>>>(buf, lineOf(0), kPages, cyc, sink);
    CHECK(cudaDeviceSynchronize());
    long long h = 0;
    CHECK(cudaMemcpy(&h, cyc, 8, cudaMemcpyDeviceToHost));
    std::printf("%s,%s,%.1f\n", step, name, double(h) / kPages);
  };
  auto flushL2 = [&] {
    fill<<<prop.multiProcessorCount * 8, 256>>>(big, (512ull << 20) / 16);
    CHECK(cudaDeviceSynchronize());
  };
  run("first_touch", "a", a);
  run("again_l2_warm", "a", a);  // under ncu: flushed by the profiler
  flushL2();
  run("after_512MiB_write", "a", a);
  flushL2();
  run("after_512MiB_write_again", "a", a);
  run("first_touch", "b", b);
  run("again", "b", b);
  run("again", "a", a);
  flushL2();
  run("first_touch_after_write", "c", c);
  run("again", "c", c);
  CHECK(cudaGetLastError());
  return 0;
}
