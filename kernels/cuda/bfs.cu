// Level-synchronous breadth-first search on a CSR graph, one launch per level.
// Every node in the current frontier visits its neighbours; an unvisited neighbour gets level+1 and
// joins the next frontier, and *changed is set. All writers of a node write the same values.
extern "C" __global__ void bfs_level(int num_nodes, const int* __restrict__ row_ptr,
                                     const int* __restrict__ cols, int* __restrict__ levels,
                                     const int* __restrict__ frontier, int* __restrict__ next_frontier,
                                     int* __restrict__ changed, int level) {
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < num_nodes; v += blockDim.x * gridDim.x) {
    if (!frontier[v]) continue;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
      int u = cols[e];
      if (levels[u] < 0) {
        levels[u] = level + 1;
        next_frontier[u] = 1;
        *changed = 1;
      }
    }
  }
}
