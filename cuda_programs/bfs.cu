// bfs: level-synchronous breadth-first search from node 0 of a random directed graph with 4096
// nodes and 0..6 out-edges per node: one bfs_level launch per level (16 blocks of 256).
// Plain CUDA runtime port of kernels/host/bfs.cpp (the suite at scale 1); the kernel is the
// suite's own. Usage: bfs [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/bfs.cu"

#include <algorithm>
#include <deque>

#define CUDA_PROGRAM_NAME "bfs"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int nodes = 4096;
  Rng rng(seedFrom(argc, argv));
  std::vector<std::int32_t> row_ptr(nodes + 1, 0), cols;
  for (int v = 0; v < nodes; ++v) {
    const int degree = int(rng.range(0, 6));
    for (int e = 0; e < degree; ++e) cols.push_back(std::int32_t(rng.range(0, nodes - 1)));
    row_ptr[v + 1] = std::int32_t(cols.size());
  }
  std::vector<std::int32_t> want(nodes, -1);
  std::deque<int> queue{0};
  want[0] = 0;
  int max_level = 0, reached = 1;
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
      const int u = cols[e];
      if (want[u] < 0) {
        want[u] = want[v] + 1;
        max_level = std::max(max_level, want[u]);
        ++reached;
        queue.push_back(u);
      }
    }
  }

  std::vector<std::int32_t> levels(nodes, -1), frontier(nodes, 0);
  levels[0] = 0;
  frontier[0] = 1;
  const int* drp = upload(row_ptr);
  const int* dcols = upload(cols);
  int* dlevels = upload(levels);
  int* dfront[2] = {upload(frontier), deviceAlloc<int>(nodes)};
  int* dchanged = deviceAlloc<int>(1);
  int level = 0;
  for (;; ++level) {
    if (level > nodes) return failed("bfs did not terminate after " + std::to_string(level) + " levels");
    CHECK(cudaMemset(dchanged, 0, sizeof(int)));
    CHECK(cudaMemset(dfront[(level + 1) & 1], 0, nodes * sizeof(int)));
    bfs_level<<<blocksFor(nodes, 256, 16), 256>>>(nodes, drp, dcols, dlevels, dfront[level & 1],
                                                   dfront[(level + 1) & 1], dchanged, level);
    CHECK_LAUNCH("bfs_level");
    if (download(dchanged, 1)[0] == 0) break;
  }
  const std::vector<int> got = download(dlevels, nodes);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("level", i, got[i], want[i]));
  if (level != max_level)
    return failed("bfs took " + std::to_string(level + 1) + " launches, want " + std::to_string(max_level + 1));
  return passed(std::to_string(nodes) + " node levels match exactly (" + std::to_string(reached) + " reached, " +
                std::to_string(level + 1) + " launches)");
}
