// Runs the cluster microbenchmarks of validation/micro/cluster_micro.cu on a real GPU, case by case as
// validation/micro/cluster_micro_cases.csv lists them (the model runs the same cases through launch
// files). Each case: one warm-up launch, then kRuns launches with cudaLaunchKernelEx and the case's
// cluster dimension; a run's value is the mean over the measured blocks (rank 0 of each cluster for
// rank0_cycles, every block for block_cycles) of the cycles the kernel timed itself; the median run
// is printed, with the median run's CUDA-event time. Then dsmem_atomic_sum is checked for clusters of
// 1 to 8. Prints CSV: name,kernel,cluster,grid,block,metric,value,ns
//   nvcc -O3 -arch=sm_90 scripts/h100/cluster_micro.cu -o cluster_micro && ./cluster_micro validation/micro/cluster_micro_cases.csv
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../validation/micro/cluster_micro.cu"

#include "cuda_check.h"

constexpr int kRuns = 5;

static std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

template <typename... Args>
static void launch(void (*k)(Args...), int cluster, int grid, int block, Args... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, k, args...));
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s cluster_micro_cases.csv\n", argv[0]);
    return 2;
  }
  CHECK(cudaFuncSetAttribute(cluster_sync_loop, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  long long* cycles;
  unsigned* sink;
  CHECK(cudaMalloc(&cycles, 4096 * sizeof(long long)));
  CHECK(cudaMalloc(&sink, 4096 * sizeof(unsigned)));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::ifstream in(argv[1]);
  std::string line;
  std::getline(in, line);
  std::printf("name,kernel,cluster,grid,block,metric,value,ns\n");
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = split(line, ',');
    const std::string name = f[0], kernel = f[1], metric = f[6];
    const int cluster = std::atoi(f[2].c_str()), grid = std::atoi(f[3].c_str()), block = std::atoi(f[4].c_str());
    const auto args = split(f[5], ' ');
    auto run = [&] {
      if (kernel == "dsmem_chase")
        launch(dsmem_chase, cluster, grid, block, std::atoi(args[0].c_str()), std::atoi(args[1].c_str()), cycles, sink);
      else if (kernel == "dsmem_red")
        launch(dsmem_red, cluster, grid, block, std::atoi(args[0].c_str()), std::atoi(args[1].c_str()), cycles, sink);
      else if (kernel == "dsmem_red_spread")
        launch(dsmem_red_spread, cluster, grid, block, std::atoi(args[0].c_str()), std::atoi(args[1].c_str()),
               std::atoi(args[2].c_str()), cycles, sink);
      else if (kernel == "dsmem_read")
        launch(dsmem_read, cluster, grid, block, std::atoi(args[0].c_str()), cycles, sink);
      else
        launch(cluster_sync_loop, cluster, grid, block, std::atoi(args[0].c_str()), cycles);
    };
    run();
    CHECK(cudaDeviceSynchronize());
    std::vector<std::pair<double, float>> runs;
    for (int r = 0; r < kRuns; ++r) {
      CHECK(cudaEventRecord(a));
      run();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      CHECK(cudaGetLastError());
      float ms;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      std::vector<long long> host(grid);
      CHECK(cudaMemcpy(host.data(), cycles, grid * sizeof(long long), cudaMemcpyDeviceToHost));
      double sum = 0;
      int n = 0;
      for (int i = 0; i < grid; i += metric == "rank0_cycles" ? cluster : 1, ++n) sum += double(host[i]);
      runs.push_back({sum / n, ms});
    }
    std::sort(runs.begin(), runs.end());
    std::printf("%s,%s,%d,%d,%d,%s,%.1f,%.0f\n", name.c_str(), kernel.c_str(), cluster, grid, block, metric.c_str(),
                runs[kRuns / 2].first, runs[kRuns / 2].second * 1e6);
  }
  // DSMEM atomics: each cluster's rank 0 holds the sum 1 + 2 + ... + cluster.
  for (int c = 1; c <= 8; c *= 2) {
    unsigned* out;
    CHECK(cudaMalloc(&out, 64 * sizeof(unsigned)));
    launch(dsmem_atomic_sum, c, 64 * c, 64, out);
    std::vector<unsigned> host(64);
    CHECK(cudaMemcpy(host.data(), out, sizeof(unsigned) * 64, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (unsigned v : host) bad += v != 64u * unsigned(c * (c + 1) / 2);
    std::printf("# dsmem_atomic_sum cluster %d: %s (cluster 0: %u)\n", c, bad ? "WRONG" : "ok", host[0]);
    CHECK(cudaFree(out));
  }
  return 0;
}
