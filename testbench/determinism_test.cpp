// Two runs of the same workload on the same config give bit-identical statistics (wall-clock
// figures aside). Each run is its own `scgpu` process, as a user would run it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace {

nlohmann::json runScgpu(const std::string& args, const std::string& json_path) {
  const std::string cmd = std::string(SCGPU_BINARY) + " run " + args + " --quiet --stats-json " + json_path + " > /dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(json_path);
  return nlohmann::json::parse(in);
}

// Drops what measures the host rather than the model.
void dropHostTimes(nlohmann::json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      const std::string& k = it.key();
      if (k.find("wall_seconds") != std::string::npos || k.find("per_second") != std::string::npos) {
        it = j.erase(it);
      } else {
        dropHostTimes(it.value());
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) dropHostTimes(e);
  }
}

TEST(Determinism, TwoTimingRunsGiveIdenticalStatistics) {
  const auto dir = std::filesystem::temp_directory_path() / "scgpu_determinism";
  std::filesystem::create_directories(dir);
  for (const char* workload : {"sgemm_tiled", "histogram", "bfs"}) {
    nlohmann::json a = runScgpu(std::string(workload) + " --mode timing", (dir / "a.json").string());
    nlohmann::json b = runScgpu(std::string(workload) + " --mode timing", (dir / "b.json").string());
    ASSERT_TRUE(a.contains("stats")) << workload;
    ASSERT_GT(a["stats"]["components"]["counters"].size(), 10u) << workload;
    dropHostTimes(a);
    dropHostTimes(b);
    EXPECT_EQ(a, b) << workload;
  }
}

// `--threads N` ticks the SMs, L2 slices and DRAM channels of a cycle on N host threads: results
// and statistics must be those of one thread, bit for bit. `always` sends every cycle to the
// threads (the adaptive policy might keep a small run on one). The workloads cover global
// atomics with return values (reduce_atomic, histogram, bfs), printf, device-side calls, and
// hopper's MMU (the shared L2 TLB).
TEST(Determinism, AnyThreadCountGivesTheStatisticsOfOne) {
  const auto dir = std::filesystem::temp_directory_path() / "scgpu_determinism_threads";
  std::filesystem::create_directories(dir);
  const std::string always = " --set simulation.parallel_ticks=always";
  for (const char* args : {"reduce_atomic --config tiny", "histogram --config tiny", "bfs --config tiny",
                           "printf --config tiny", "recursion --config tiny", "spmv_csr --config tiny",
                           "reduce_atomic --config hopper", "bfs --config hopper", "transpose --config hopper",
                           "vector_add --config ampere"}) {
    nlohmann::json one = runScgpu(std::string(args) + " --threads 1", (dir / "one.json").string());
    ASSERT_TRUE(one.contains("stats")) << args;
    EXPECT_EQ(one["passed"], true) << args;
    dropHostTimes(one);
    one.erase("config");  // it says how many threads
    for (const char* n : {"2", "3"}) {
      nlohmann::json many = runScgpu(std::string(args) + " --threads " + n + always, (dir / "many.json").string());
      dropHostTimes(many);
      EXPECT_EQ(many["config"]["simulation"]["host_threads"], std::atoi(n)) << args;
      many.erase("config");
      EXPECT_EQ(one, many) << args << " --threads " << n;
    }
  }
}

// An SM whose warps all wait sleeps until its next event, and its next tick counts the skipped
// cycles in bulk: the statistics (stall reasons per cycle included) must be those of ticking every
// cycle, bit for bit, on every preset.
TEST(Determinism, SkippingStalledCyclesGivesTheStatisticsOfTickingEveryCycle) {
  const auto dir = std::filesystem::temp_directory_path() / "scgpu_determinism_sleep";
  std::filesystem::create_directories(dir);
  for (const char* args : {"reduce_atomic --config tiny", "bfs --config tiny", "transpose --config tiny",
                           "histogram --config tiny", "recursion --config tiny", "reduce_atomic --config hopper",
                           "saxpy --config hopper", "spmv_csr --config fermi", "scan_block --config kepler",
                           "vote_match --config turing", "nbody --config ampere"}) {
    nlohmann::json every = runScgpu(std::string(args) + " --set simulation.skip_stalled_cycles=false",
                                    (dir / "every.json").string());
    nlohmann::json skip = runScgpu(args, (dir / "skip.json").string());
    ASSERT_TRUE(every.contains("stats")) << args;
    EXPECT_EQ(every["passed"], true) << args;
    dropHostTimes(every);
    dropHostTimes(skip);
    every.erase("config");
    skip.erase("config");
    EXPECT_EQ(every, skip) << args;
  }
}

}  // namespace
