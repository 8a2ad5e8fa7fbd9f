// histogram: 256-bin histogram of 64K bytes, skewed (half the bytes in 16 hot bins) so that atomics
// collide: histogram_shared (shared-memory atomics, merged with global atomics) and
// histogram_global (one global atomicAdd per byte), 32 blocks of 256 each.
// Plain CUDA runtime port of kernels/host/histogram.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: histogram [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/histogram.cu"

#define CUDA_PROGRAM_NAME "histogram"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 65536;
  Rng rng(seedFrom(argc, argv));
  std::vector<std::uint8_t> data(n);
  // Half the bytes in 16 hot bins, the rest uniform.
  for (auto& b : data) b = std::uint8_t(rng.range(0, 1) == 0 ? rng.range(64, 79) : rng.range(0, 255));
  std::vector<unsigned> want(NUM_BINS, 0);
  for (std::uint8_t b : data) ++want[b];

  const unsigned char* ddata = upload(data);
  unsigned* dbins = deviceAlloc<unsigned>(NUM_BINS);
  struct Variant {
    const char* name;
    void (*kernel)(const unsigned char*, int, unsigned*);
  };
  for (const Variant& v : {Variant{"histogram_shared", histogram_shared}, Variant{"histogram_global", histogram_global}}) {
    CHECK(cudaMemset(dbins, 0, NUM_BINS * sizeof(unsigned)));
    v.kernel<<<blocksFor(n, 256, 32), 256>>>(ddata, n, dbins);
    CHECK_LAUNCH(v.name);
    const std::vector<unsigned> got = download(dbins, NUM_BINS);
    if (long i = firstDifference(got, want); i >= 0)
      return failed(mismatchMessage(std::string(v.name) + " bin", i, got[i], want[i]));
  }
  return passed("2 kernels: 256 bins of " + std::to_string(n) + " bytes match exactly");
}
