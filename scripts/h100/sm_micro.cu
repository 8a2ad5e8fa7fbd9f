// Runs the SM microbenchmarks of validation/micro/sm_micro.cu on a real GPU, case by case as
// validation/micro/sm_micro_cases.csv lists them (the model runs the same cases through the
// launch files scripts/gen_sm_micro_launch.py writes from that table).
//   block_cycles cases: one warm-up launch, then kRuns launches; each reports the mean over its
//     blocks of the clock64 cycles the kernel timed itself; the median run is printed. A case
//     whose name contains "dram" writes a 512 MiB buffer before each launch (flushing the L2).
//   launch_ns cases: one warm-up launch, then kLaunches back-to-back launches between two CUDA
//     events (mean per launch), and kLaunches launches each followed by cudaDeviceSynchronize.
// Prints CSV: name,kernel,grid,block,metric,value,min_block_cycles,max_block_cycles,ns
//   (ns: block_cycles cases, the median launch's CUDA-event time; launch_ns cases, the mean time
//   of a launch followed by cudaDeviceSynchronize, from the host clock)
//   nvcc -O3 -arch=sm_90 scripts/h100/sm_micro.cu -o sm_micro && ./sm_micro validation/micro/sm_micro_cases.csv
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../validation/micro/sm_micro.cu"

#include "cuda_check.h"

constexpr int kRuns = 5;
constexpr int kLaunches = 1000;
constexpr size_t kBufBytes = 256ull << 20;  // the scatter cases' largest footprint

struct Case {
  std::string name, kernel, metric;
  int grid = 1, block = 1;
  std::vector<std::string> args;
};

static std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s sm_micro_cases.csv\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1]);
  std::string line;
  std::getline(f, line);  // header
  std::vector<Case> cases;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    auto c = split(line, ',');
    Case k;
    k.name = c[0];
    k.kernel = c[1];
    k.grid = std::atoi(c[2].c_str());
    k.block = std::atoi(c[3].c_str());
    k.args = split(c[4], ' ');
    k.args.erase(std::remove(k.args.begin(), k.args.end(), std::string()), k.args.end());
    k.metric = c[5];
    cases.push_back(k);
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("# %s, %d SMs, clock %d kHz\n", prop.name, prop.multiProcessorCount, clock_khz);
  std::printf("name,kernel,grid,block,metric,value,min_block_cycles,max_block_cycles,ns\n");
  long long* cycles;
  int* sink;
  unsigned* buf;
  char* flush;
  CHECK(cudaMalloc(&cycles, 1 << 20));
  CHECK(cudaMalloc(&sink, 64));
  CHECK(cudaMalloc(&buf, kBufBytes));
  CHECK(cudaMalloc(&flush, 512ull << 20));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (const Case& k : cases) {
    const auto I = [&](int i) { return std::atoi(k.args[i].c_str()); };
    const auto U = [&](int i) { return unsigned(std::strtoul(k.args[i].c_str(), nullptr, 10)); };
    const auto F = [&](int i) { return std::strtod(k.args[i].c_str(), nullptr); };
    const auto U64 = [&](int i) { return u64(std::strtoull(k.args[i].c_str(), nullptr, 10)); };
    const dim3 g(k.grid), b(k.block);
    auto launch = [&] {
      const std::string& n = k.kernel;
      if (n == "smem_load") smem_load<<<g, b>>>(U(0), I(1), cycles, sink);
      else if (n == "smem_store") smem_store<<<g, b>>>(U(0), I(1), cycles, sink);
      else if (n == "smem_load_v4") smem_load_v4<<<g, b>>>(U(0), I(1), cycles, sink);
      else if (n == "smem_load_v2") smem_load_v2<<<g, b>>>(I(0), cycles, sink);
      else if (n == "smem_atomic") smem_atomic<<<g, b>>>(I(0), I(1), cycles, sink);
      else if (n == "global_atomic") global_atomic<<<g, b>>>(I(0), I(1), reinterpret_cast<int*>(buf), cycles);
      else if (n == "mandel_loop") mandel_loop<<<g, b>>>(I(0), float(F(1)), float(F(2)), float(F(3)), cycles, sink);
      else if (n == "ffma_tput") ffma_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "ffma_lat") ffma_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "imad_tput") imad_tput<<<g, b>>>(I(0), U(1), U(2), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "imad_lat") imad_lat<<<g, b>>>(I(0), U(1), U(2), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "dfma_tput") dfma_tput<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "dfma_lat") dfma_lat<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "mufu_tput") mufu_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "mufu_lat") mufu_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "udiv_tput") udiv_tput<<<g, b>>>(I(0), U(1), U(2), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "udiv_lat") udiv_lat<<<g, b>>>(I(0), U(1), U(2), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "urem_tput") urem_tput<<<g, b>>>(I(0), U(1), U(2), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "urem_lat") urem_lat<<<g, b>>>(I(0), U(1), U(2), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "udiv64_tput") udiv64_tput<<<g, b>>>(I(0), U64(1), U64(2), cycles, reinterpret_cast<u64*>(sink));
      else if (n == "udiv64_lat") udiv64_lat<<<g, b>>>(I(0), U64(1), U64(2), cycles, reinterpret_cast<u64*>(sink));
      else if (n == "urem64_tput") urem64_tput<<<g, b>>>(I(0), U64(1), U64(2), cycles, reinterpret_cast<u64*>(sink));
      else if (n == "urem64_lat") urem64_lat<<<g, b>>>(I(0), U64(1), U64(2), cycles, reinterpret_cast<u64*>(sink));
      else if (n == "rsqrt_tput") rsqrt_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "rsqrt_lat") rsqrt_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "sqrt_tput") sqrt_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "sqrt_lat") sqrt_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "fdiv_tput") fdiv_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "fdiv_lat") fdiv_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "frcp_tput") frcp_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "frcp_lat") frcp_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "ex2_tput") ex2_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "ex2_lat") ex2_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "fdivfast_tput") fdivfast_tput<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "fdivfast_lat") fdivfast_lat<<<g, b>>>(I(0), float(F(1)), float(F(2)), cycles, reinterpret_cast<float*>(sink));
      else if (n == "ddiv_tput") ddiv_tput<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "ddiv_lat") ddiv_lat<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "dsqrt_tput") dsqrt_tput<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "dsqrt_lat") dsqrt_lat<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "drcp_tput") drcp_tput<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "drcp_lat") drcp_lat<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "drsqrt_tput") drsqrt_tput<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "drsqrt_lat") drsqrt_lat<<<g, b>>>(I(0), F(1), F(2), cycles, reinterpret_cast<double*>(sink));
      else if (n == "uniform_mix") uniform_mix<<<g, b>>>(I(0), U(1), U(2), U(3), I(4), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "vector_mix") vector_mix<<<g, b>>>(I(0), U(1), U(2), U(3), I(4), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "chase") chase<<<g, b>>>(buf, U(1), U(2), I(3), I(4), I(5), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "smem_chase") smem_chase<<<g, b>>>(I(0), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "l1_load") l1_load<<<g, b>>>(U(0), I(1), reinterpret_cast<const int*>(buf), cycles, sink);
      else if (n == "st_global") st_global<<<g, b>>>(U(0), I(1), reinterpret_cast<int*>(buf), cycles);
      else if (n == "scatter") scatter<<<g, b>>>(I(0), U(1), U(2), I(3), reinterpret_cast<int*>(buf), cycles, sink);
      else if (n == "local_mem") local_mem<<<g, b>>>(I(0), U(1), cycles, sink);
      else if (n == "call_chain") call_chain<<<g, b>>>(I(0), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "call_recursive") call_recursive<<<g, b>>>(I(0), I(1), cycles, reinterpret_cast<unsigned*>(sink));
      else if (n == "empty_kernel") empty_kernel<<<g, b>>>();
      else {
        std::fprintf(stderr, "unknown kernel %s\n", n.c_str());
        std::exit(2);
      }
      CHECK(cudaGetLastError());
    };
    CHECK(cudaMemset(buf, 0, kBufBytes));
    CHECK(cudaDeviceSynchronize());
    launch();  // warm-up (code, TLBs, and for warm chases nothing else: each chase warms itself)
    CHECK(cudaDeviceSynchronize());
    if (k.metric != "launch_ns") {  // block_cycles, kernel_ns and none: the kernel times itself
      std::vector<double> means, event_ns;
      std::vector<long long> host(k.grid);
      for (int r = 0; r < kRuns; ++r) {
        if (k.kernel == "global_atomic") CHECK(cudaMemset(buf, 0, kBufBytes));
        if (k.name.find("dram") != std::string::npos) CHECK(cudaMemset(flush, r + 1, 512ull << 20));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        event_ns.push_back(ms * 1e6);
        CHECK(cudaMemcpy(host.data(), cycles, sizeof(long long) * k.grid, cudaMemcpyDeviceToHost));
        double sum = 0;
        for (long long c : host) sum += double(c);
        means.push_back(sum / k.grid);
      }
      std::sort(means.begin(), means.end());
      std::sort(event_ns.begin(), event_ns.end());
      const auto mm = std::minmax_element(host.begin(), host.end());
      std::printf("%s,%s,%d,%d,%s,%.1f,%lld,%lld,%.0f\n", k.name.c_str(), k.kernel.c_str(), k.grid, k.block,
                  k.metric.c_str(), means[kRuns / 2], *mm.first, *mm.second, event_ns[kRuns / 2]);
    } else {
      CHECK(cudaEventRecord(start));
      for (int i = 0; i < kLaunches; ++i) launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kLaunches; ++i) {
        launch();
        CHECK(cudaDeviceSynchronize());
      }
      const double synced =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kLaunches;
      std::printf("%s,%s,%d,%d,%s,%.1f,,,%.1f\n", k.name.c_str(), k.kernel.c_str(), k.grid, k.block,
                  k.metric.c_str(), ms * 1e6 / kLaunches, synced);
    }
    std::fflush(stdout);
  }
  return 0;
}
