// Two runs of the same workload on the same config give bit-identical statistics (wall-clock
// figures aside). Each run is its own `scgpu` process, as a user would run it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cmath>
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
                           "vector_add --config ampere",
                           // TMA copies, mbarrier waits (sleeping) and wgmma groups (warpgroup_arrive)
                           "hgemm_tma_wgmma --config hopper"}) {
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
// cycles in bulk; a stalled warp is looked at again only when its reason may change; L2 slices
// sleep while results wait out their latency; a clock domain whose components all wait skips the
// edges before the first one due: the statistics (stall reasons per cycle included) must be those
// of ticking everything every cycle, bit for bit, on every preset.
TEST(Determinism, SkippingStalledCyclesGivesTheStatisticsOfTickingEveryCycle) {
  const auto dir = std::filesystem::temp_directory_path() / "scgpu_determinism_sleep";
  std::filesystem::create_directories(dir);
  for (const char* args : {"reduce_atomic --config tiny", "bfs --config tiny", "transpose --config tiny",
                           "histogram --config tiny", "recursion --config tiny", "reduce_atomic --config hopper",
                           "saxpy --config hopper", "spmv_csr --config fermi", "scan_block --config kepler",
                           "vote_match --config turing", "nbody --config ampere",
                           // 132 SMs whose requests back up at the crossbar while the core clock skips edges
                           "transpose --config hopper --scale 3",
                           // TMA copies, mbarrier waits (sleeping) and wgmma groups (warpgroup_arrive)
                           "hgemm_tma_wgmma --config hopper"}) {
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

TEST(Determinism, SamplingTheCountersChangesNoStatistic) {
  // --stats-interval adds `samples` and nothing else; the intervals cover the kernels' cycles and
  // instructions (each sample counts its own interval, so they add up to at most the totals).
  const auto dir = std::filesystem::temp_directory_path() / "scgpu_determinism_samples";
  std::filesystem::create_directories(dir);
  for (const char* args : {"transpose --config hopper", "bfs --config tiny"}) {
    nlohmann::json plain = runScgpu(args, (dir / "plain.json").string());
    nlohmann::json sampled = runScgpu(std::string(args) + " --stats-interval 500", (dir / "sampled.json").string());
    ASSERT_TRUE(sampled.contains("samples")) << args;
    const nlohmann::json samples = sampled["samples"];
    ASSERT_GT(samples.size(), 2u) << args;
    double cycles = 0, instructions = 0;
    std::uint64_t last = 0;
    for (const auto& s : samples) {
      EXPECT_GT(s["core_cycles"].get<std::uint64_t>(), last) << "samples in time order";
      last = s["core_cycles"].get<std::uint64_t>();
      cycles += s["interval_cycles"].get<double>();
      instructions += s["warp_instructions"].get<double>();
      double stall = 0;
      for (const auto& [reason, pct] : s["stall_pct"].items()) stall += pct.get<double>();
      // The shares of an interval add up to 100 %, or to 0 when no SM held a block (a launch's
      // completion latency, say).
      EXPECT_TRUE(std::abs(stall - 100.0) < 1e-6 || stall == 0.0) << "stall shares of an interval: " << stall;
      for (const char* key : {"ipc", "l1_hit_rate_pct", "l2_hit_rate_pct", "l2_bytes_per_second", "dram_bytes_per_second",
                              "dram_row_hit_rate_pct", "active_sms", "occupancy_pct"})
        EXPECT_TRUE(s.contains(key)) << key;
    }
    double total_instructions = 0;
    for (const auto& l : plain["launches"]) total_instructions += l["warp_instructions"].get<double>();
    EXPECT_LE(instructions, total_instructions) << args;
    EXPECT_GT(instructions, 0.5 * total_instructions) << args;
    EXPECT_LE(cycles, double(last)) << args;
    sampled.erase("samples");
    dropHostTimes(plain);
    dropHostTimes(sampled);
    plain.erase("config");
    sampled.erase("config");
    EXPECT_EQ(plain, sampled) << args;
  }
}

}  // namespace
