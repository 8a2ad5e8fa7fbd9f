// bfs: level-synchronous breadth-first search from node 0 of a random directed graph with 4096
// nodes (x scale) and 0..6 out-edges per node, one launch per level.
#include <algorithm>
#include <deque>

#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int nodes = 4096 * scaleOf(opt);
  Rng rng(opt.seed);
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

  DeviceArena mem(rt);
  std::vector<std::int32_t> levels(nodes, -1), frontier(nodes, 0);
  levels[0] = 0;
  frontier[0] = 1;
  const driver::DevicePtr drp = mem.upload(row_ptr), dcols = mem.upload(cols), dlevels = mem.upload(levels);
  driver::DevicePtr dfront[2] = {mem.upload(frontier), mem.alloc(nodes * sizeof(std::int32_t))};
  const driver::DevicePtr dchanged = mem.alloc(sizeof(std::int32_t));
  driver::Function& fn = rt.getFunction(loadWorkloadModule(rt, "bfs", opt), "bfs_level");
  int level = 0;
  for (;; ++level) {
    if (level > nodes) return failed("bfs did not terminate after " + std::to_string(level) + " levels");
    rt.memset(dchanged, 0, sizeof(std::int32_t));
    rt.memset(dfront[(level + 1) & 1], 0, nodes * sizeof(std::int32_t));
    if (auto e = rt.launch(fn, blocksFor(nodes, 256, 16), 256, 0,
                           driver::KernelArgs().add(nodes).add(drp).add(dcols).add(dlevels).add(dfront[level & 1])
                               .add(dfront[(level + 1) & 1]).add(dchanged).add(level));
        e != driver::Error::Success)
      return launchFailed("bfs_level", e);
    if (rt.download<std::int32_t>(dchanged, 1)[0] == 0) break;
  }
  const std::vector<std::int32_t> got = rt.download<std::int32_t>(dlevels, nodes);
  if (long i = firstDifference(got, want); i >= 0) return failed(mismatchMessage("level", i, got[i], want[i]));
  if (level != max_level) return failed("bfs took " + std::to_string(level + 1) + " launches, want " + std::to_string(max_level + 1));
  return passed(std::to_string(nodes) + " node levels match exactly (" + std::to_string(reached) + " reached, " +
                std::to_string(level + 1) + " launches)");
}

const WorkloadRegistrar reg({"bfs", "level-synchronous BFS on a 4096-node random graph, one launch per level", "bfs",
                             {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
