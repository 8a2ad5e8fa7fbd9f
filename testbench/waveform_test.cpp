// Waveforms of real runs, checked against the run's own statistics: every issue of every
// scheduler is one change of its `issues` signal, and the DRAM command signal shows exactly the
// commands the controller counted. Filters and windows keep exactly what they should, and the
// same run traced twice gives byte-identical files. Each run is its own `scgpu` process.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct Vcd {
  std::map<std::string, std::string> name_of;         // id -> full name
  std::map<std::string, std::vector<std::string>> values;  // full name -> values in order
  std::map<std::string, std::vector<std::uint64_t>> times;  // full name -> the times of its values
  std::uint64_t first_time = ~0ull, last_time = 0;
};

// A small VCD reader: scopes, $var, #time and scalar/vector/string value changes.
Vcd readVcd(const fs::path& path) {
  Vcd v;
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> scope;
  bool header = true;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string tok;
    ss >> tok;
    if (tok.empty()) continue;
    if (header) {
      if (tok == "$scope") {
        std::string kind, name;
        ss >> kind >> name;
        scope.push_back(name);
      } else if (tok == "$upscope") {
        scope.pop_back();
      } else if (tok == "$var") {
        std::string type, width, id, name;
        ss >> type >> width >> id >> name;
        std::string full;
        for (const auto& s : scope) full += s + ".";
        v.name_of[id] = full + name;
      } else if (tok == "$enddefinitions") {
        header = false;
      }
      continue;
    }
    if (tok[0] == '#') {
      v.last_time = std::stoull(tok.substr(1));
      v.first_time = std::min(v.first_time, v.last_time);
    } else if (tok[0] == 'b' || tok[0] == 's' || tok[0] == 'r') {
      std::string id;
      ss >> id;
      if (v.name_of.count(id)) {
        v.values[v.name_of[id]].push_back(tok.substr(1));
        v.times[v.name_of[id]].push_back(v.last_time);
      }
    } else if (tok[0] == '0' || tok[0] == '1' || tok[0] == 'x' || tok[0] == 'z') {
      const std::string id = tok.substr(1);
      if (v.name_of.count(id)) {
        v.values[v.name_of[id]].push_back(tok.substr(0, 1));
        v.times[v.name_of[id]].push_back(v.last_time);
      }
    }
  }
  return v;
}

// Core cycles a 1-bit signal was high: the time from each rise to the next fall, in periods of
// `period_ps` (each interval rounded: the file's times are whole picoseconds).
std::uint64_t cyclesHigh(const Vcd& v, const std::string& name, double period_ps) {
  const auto& vals = v.values.at(name);
  const auto& times = v.times.at(name);
  std::uint64_t cycles = 0, rose = 0;
  bool high = false;
  for (std::size_t i = 0; i < vals.size(); ++i) {
    const bool now = vals[i] == "1";
    if (now && !high) rose = times[i];
    if (!now && high) cycles += std::uint64_t(std::llround(double(times[i] - rose) / period_ps));
    high = now;
  }
  EXPECT_FALSE(high) << name << " is still high at the end";
  return cycles;
}

// The largest value an integer signal took.
std::uint64_t maxValue(const Vcd& v, const std::string& name) {
  std::uint64_t most = 0;
  for (const auto& s : v.values.at(name)) most = std::max<std::uint64_t>(most, std::stoull(s, nullptr, 2));
  return most;
}

class Waveform : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("scgpu_wave_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  nlohmann::json run(const std::string& workload, const std::string& trace_args, const std::string& tag) {
    const fs::path json = dir_ / (tag + ".json");
    const std::string cmd = std::string(SCGPU_BINARY) + " run " + workload + " --mode timing --quiet --stats-json " +
                            json.string() + " " + trace_args + " > /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(json);
    return nlohmann::json::parse(in);
  }
  fs::path dir_;
};

TEST_F(Waveform, IssueEventsAndDramCommandsMatchTheCounters) {
  const fs::path vcd = dir_ / "run.vcd";
  const nlohmann::json j = run("reduce_tree", "--trace " + vcd.string(), "run");
  const Vcd v = readVcd(vcd);
  const auto& counters = j["stats"]["components"]["counters"];
  int schedulers = 0;
  for (auto it = counters.begin(); it != counters.end(); ++it) {
    const std::string& name = it.key();
    const std::string suffix = ".issued";
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    // "gpu.sm[0].sched[1].issued" -> "gpu.sm[0].sched[1].issues[31:0]" in the VCD.
    const std::string signal = name.substr(0, name.size() - suffix.size()) + ".issues";
    std::uint64_t changes = 0;
    for (const auto& [n, vals] : v.values)
      if (n.rfind(signal, 0) == 0) changes = vals.size();
    // The first recorded value (0 when the window opens) is not an issue.
    const std::uint64_t issued = it.value().get<std::uint64_t>();
    EXPECT_EQ(changes ? changes - 1 : 0, issued) << signal;
    ++schedulers;
  }
  EXPECT_GT(schedulers, 0);
  std::uint64_t rd = 0, wr = 0, act = 0;
  for (const auto& [n, vals] : v.values) {
    if (n.rfind("gpu.dram[0].cmd", 0) != 0) continue;
    for (const auto& s : vals) {
      rd += s.rfind("RD", 0) == 0;
      wr += s.rfind("WR", 0) == 0;
      act += s.rfind("ACT", 0) == 0;
    }
  }
  EXPECT_EQ(rd, counters["gpu.dram[0].reads"].get<std::uint64_t>());
  EXPECT_EQ(wr, counters["gpu.dram[0].writes"].get<std::uint64_t>());
  EXPECT_EQ(act, counters["gpu.dram[0].activates"].get<std::uint64_t>());
  EXPECT_GT(rd, 0u);
}

// hgemm_tma_wgmma (TMA loads into an mbarrier-guarded ring, wgmma consumers): each sub-core's
// tensor_busy is high for exactly the cycles its counter says the tensor pipe was held, the TMA
// unit has copies in flight and warps sleep on mbarriers, and the save file shows the signals.
TEST_F(Waveform, TensorPipeAndTmaActivityMatchTheCounters) {
  const fs::path vcd = dir_ / "hgemm.vcd";
  const nlohmann::json j = run("hgemm_tma_wgmma --config hopper", "--trace " + vcd.string() + " --trace-filter 'sm[0]'", "hgemm");
  const Vcd v = readVcd(vcd);
  const auto& counters = j["stats"]["components"]["counters"];
  const double period_ps = 1e6 / j["config"]["clocks"]["core_clock_mhz"].get<double>();
  std::uint64_t busy = 0;
  for (int s = 0; s < 4; ++s) {
    const std::string sc = "gpu.sm[0].sched[" + std::to_string(s) + "]";
    const std::uint64_t held = counters[sc + ".tensor.busy_cycles"].get<std::uint64_t>();
    EXPECT_EQ(cyclesHigh(v, sc + ".tensor_busy", period_ps), held) << sc;
    busy += held;
  }
  EXPECT_GT(busy, 0u);
  EXPECT_GT(maxValue(v, "gpu.sm[0].tma_in_flight"), 0u);
  EXPECT_EQ(v.values.at("gpu.sm[0].tma_in_flight").back(), "0");
  EXPECT_GT(maxValue(v, "gpu.sm[0].mbarrier_waits"), 0u);
  std::ifstream gtkw(fs::path(vcd).replace_extension(".gtkw"));
  const std::string save((std::istreambuf_iterator<char>(gtkw)), {});
  for (const char* name : {"gpu.sm[0].sched[0].tensor_busy", "gpu.sm[0].tma_in_flight[15:0]", "gpu.sm[0].mbarrier_waits[7:0]"})
    EXPECT_NE(save.find(name), std::string::npos) << name;
}

TEST_F(Waveform, FilterAndWindowKeepExactlyWhatTheySay) {
  const fs::path vcd = dir_ / "f.vcd";
  const nlohmann::json j =
      run("saxpy", "--trace " + vcd.string() + " --trace-filter 'sm[1].*,l2.*' --trace-window 1000:2000", "f");
  const Vcd v = readVcd(vcd);
  // A glob matches any run of whole path components: "sm[1].*" takes everything under an
  // sm[1] (the SM and the crossbar's port for it), "l2.*" everything under any l2[...].
  bool sm1 = false, l2 = false;
  for (const auto& [id, name] : v.name_of) {
    const bool clock = name.find("_clk") != std::string::npos;
    const bool in_sm1 = name.find(".sm[1].") != std::string::npos;
    const bool in_l2 = name.find(".l2[") != std::string::npos;
    EXPECT_TRUE(clock || in_sm1 || in_l2) << name;
    EXPECT_EQ(name.find(".sm[0]."), std::string::npos) << name;
    sm1 |= name.rfind("gpu.sm[1].", 0) == 0;
    l2 |= name.rfind("gpu.l2[", 0) == 0;
  }
  EXPECT_TRUE(sm1);
  EXPECT_TRUE(l2);
  // Only core cycles 1000 to 2000 are recorded (cycles count from the start of the simulation;
  // the waveform's time is device time, which also holds the copies before the kernel).
  const double period_ps = 1e6 / j["config"]["clocks"]["core_clock_mhz"].get<double>();
  EXPECT_LE(double(v.last_time - v.first_time), 1000 * period_ps + 1);
  EXPECT_GE(double(v.last_time - v.first_time), 999 * period_ps - 1);
}

TEST_F(Waveform, SameRunTracedTwiceIsByteIdentical) {
  run("histogram", "--trace " + (dir_ / "a.vcd").string() + " --timeline " + (dir_ / "ta.json").string(), "a");
  run("histogram", "--trace " + (dir_ / "b.vcd").string() + " --timeline " + (dir_ / "tb.json").string(), "b");
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string a = slurp(dir_ / "a.vcd"), b = slurp(dir_ / "b.vcd");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(slurp(dir_ / "ta.json"), slurp(dir_ / "tb.json"));
  // The timeline is a Chrome trace-event file with kernel and block events.
  const nlohmann::json t = nlohmann::json::parse(slurp(dir_ / "ta.json"));
  int kernels = 0, blocks = 0, warp_begins = 0, warp_ends = 0;
  for (const auto& e : t["traceEvents"]) {
    kernels += e.value("cat", "") == "kernel";
    blocks += e.value("cat", "") == "block";
    warp_begins += e.value("ph", "") == "b";
    warp_ends += e.value("ph", "") == "e";
  }
  EXPECT_EQ(kernels, 2);       // histogram launches two kernels
  EXPECT_EQ(blocks, 2 * 64);   // 2 x 32 blocks, each a begin and an end
  EXPECT_EQ(warp_begins, 2 * 32 * 8);  // 8 warps per 256-thread block
  EXPECT_EQ(warp_ends, warp_begins);
}

TEST_F(Waveform, AFaultWritesTheLastCyclesAndNamesTheFile) {
  std::ofstream(dir_ / "trap.ptx") << ".version 8.0\n.target sm_90\n.address_size 64\n"
                                      ".visible .entry trapper()\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n"
                                      "  mov.u32 %r1, 0;\nLOOP:\n  add.u32 %r1, %r1, 1;\n"
                                      "  setp.lt.u32 %p1, %r1, 3000;\n  @%p1 bra LOOP;\n  trap;\n}\n";
  std::ofstream(dir_ / "trap.yaml") << "ptx: trap.ptx\nkernel: trapper\ngrid: 1\nblock: 32\nargs: []\n";
  const std::string cmd = "cd " + dir_.string() + " && " + SCGPU_BINARY +
                          " run trap.yaml --mode timing --fault-trace-cycles 500 > out.txt 2> err.txt";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 2);  // a kernel fault
  std::ifstream err(dir_ / "err.txt");
  const std::string text((std::istreambuf_iterator<char>(err)), {});
  EXPECT_NE(text.find("scgpu-fault-trap.vcd"), std::string::npos) << text;
  ASSERT_TRUE(fs::exists(dir_ / "scgpu-fault-trap.vcd"));
  ASSERT_TRUE(fs::exists(dir_ / "scgpu-fault-trap.gtkw"));
  const Vcd v = readVcd(dir_ / "scgpu-fault-trap.vcd");
  EXPECT_FALSE(v.values.empty());
}

}  // namespace
