// scan_block: inclusive prefix sum of 16K - 37 ints: scan_block (Hillis-Steele per 256-thread
// block in dynamic shared memory, block totals out), the block totals scanned the same way
// (recursively), then scan_add_offsets.
// Plain CUDA runtime port of kernels/host/scan_block.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: scan_block [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/scan_block.cu"

#include <functional>

#define CUDA_PROGRAM_NAME "scan_block"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 16384 - 37;  // not a multiple of the block: the guards run
  const unsigned block = 256;
  Rng rng(seedFrom(argc, argv));
  const std::vector<std::int32_t> in = rng.ints(n, -100, 100);
  std::vector<std::int32_t> want(n);
  std::int32_t acc = 0;
  for (int i = 0; i < n; ++i) want[i] = acc += in[i];

  const std::size_t smem = 2 * block * sizeof(int);
  int launches = 0;
  // Scans `count` ints from src into dst (device), recursing on the block totals.
  std::function<void(const int*, int*, int)> scanLevel = [&](const int* src, int* dst, int count) {
    const unsigned blocks = blocksFor(count, block);
    int* sums = nullptr;
    int* scanned = nullptr;
    if (blocks > 1) {
      sums = deviceAlloc<int>(blocks);
      scanned = deviceAlloc<int>(blocks);
    }
    ++launches;
    scan_block<<<blocks, block, smem>>>(src, dst, sums, count);
    CHECK_LAUNCH("scan_block");
    if (blocks == 1) return;
    scanLevel(sums, scanned, int(blocks));
    ++launches;
    scan_add_offsets<<<blocks, block>>>(dst, scanned, count);
    CHECK_LAUNCH("scan_add_offsets");
  };

  const int* din = upload(in);
  int* dout = deviceAlloc<int>(n);
  scanLevel(din, dout, n);
  const std::vector<int> got = download(dout, n);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("scan", i, got[i], want[i]));
  return passed(std::to_string(n) + " inclusive prefix sums match exactly (" + std::to_string(launches) + " launches)");
}
