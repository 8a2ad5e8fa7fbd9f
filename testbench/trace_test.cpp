// Waveform tracing core (tlm/trace): a small trace of every kind of signal is written as VCD and
// FST, read back (a tiny VCD parser here; FST through GTKWave's fst2vcd) and checked change by
// change, with filters and a window; the .gtkw save file names only signals of the trace; the
// same trace written twice gives the same bytes; GTKWave loads it headless when Xvfb is there.
#include <gtest/gtest.h>

#include "testbench/test_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tlm/trace/tracer.h"

namespace fs = std::filesystem;
using scgpu::trace::Kind;
using scgpu::trace::PathFilter;
using scgpu::trace::Radix;
using scgpu::trace::Tracer;

namespace {

// ---- helpers ------------------------------------------------------------------------------

class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("scgpu_trace_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
             std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

using scgpu::test::readFile;

bool haveProgram(const char* name) {
  return std::system(("command -v " + std::string(name) + " > /dev/null 2>&1").c_str()) == 0;
}

// Undoes fst2vcd's string escapes (C escapes and \ooo).
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    const char c = s[++i];
    switch (c) {
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      default:
        if (c >= '0' && c <= '7' && i + 2 < s.size()) {
          out.push_back(char((c - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0')));
          i += 2;
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

// A tiny VCD reader: declarations under their full GTKWave names ("gpu.sm[0].pc[31:0]"), every
// value change as (time, value) with integers in decimal and strings unescaped.
struct Vcd {
  std::string timescale;
  std::vector<std::string> names;  // declaration order
  std::map<std::string, std::string> type;  // "wire" / "string"
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> changes;
  std::vector<std::uint64_t> times;  // every #time, in order
  std::uint64_t dumpvars_time = ~std::uint64_t(0);
  std::size_t dumpvars_count = 0;

  const std::vector<std::pair<std::uint64_t, std::string>>& of(const std::string& name) const {
    static const std::vector<std::pair<std::uint64_t, std::string>> none;
    auto it = changes.find(name);
    return it == changes.end() ? none : it->second;
  }
  // The value at time t (the last change at or before t); "?" before the first.
  std::string at(const std::string& name, std::uint64_t t) const {
    std::string v = "?";
    for (const auto& [ct, cv] : of(name)) {
      if (ct <= t) v = cv;
    }
    return v;
  }
  // Changes with same-time repeats folded to the last value and repeated values dropped: what a
  // viewer shows (fst2vcd writes an 'x' and the value at the first time).
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> shown() const {
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> out;
    for (const auto& [name, list] : changes) {
      auto& o = out[name];
      for (const auto& c : list) {
        if (!o.empty() && o.back().first == c.first) o.pop_back();
        if (!o.empty() && o.back().second == c.second) continue;
        o.push_back(c);
      }
    }
    return out;
  }
};

Vcd parseVcd(const std::string& path) {
  std::istringstream in(readFile(path));
  Vcd v;
  std::vector<std::string> scope;
  std::map<std::string, std::string> name_of;  // id -> full name
  std::uint64_t now = 0;
  bool in_dumpvars = false;
  std::string tok;
  auto record = [&](const std::string& id, std::string value) {
    auto it = name_of.find(id);
    ASSERT_NE(it, name_of.end()) << "undeclared id " << id;
    v.changes[it->second].emplace_back(now, std::move(value));
    if (in_dumpvars) ++v.dumpvars_count;
  };
  while (in >> tok) {
    if (tok == "$scope") {
      std::string kind, name, end;
      in >> kind >> name >> end;
      scope.push_back(name);
    } else if (tok == "$upscope") {
      in >> tok;
      scope.pop_back();
    } else if (tok == "$var") {
      std::string type, size, id, name, range;
      in >> type >> size >> id >> name >> range;
      if (range != "$end") {
        name += range;
        in >> tok;
      }
      std::string full;
      for (const auto& s : scope) full += s + ".";
      full += name;
      v.names.push_back(full);
      v.type[full] = type;
      name_of[id] = full;
    } else if (tok == "$timescale") {
      while (in >> tok && tok != "$end") v.timescale += tok;
    } else if (tok == "$dumpvars") {
      in_dumpvars = true;
      v.dumpvars_time = now;
    } else if (tok == "$end") {
      in_dumpvars = false;
    } else if (tok == "$enddefinitions" || tok == "$dumpall" || tok == "$dumpon" || tok == "$dumpoff") {
      if (tok == "$enddefinitions") in >> tok;
    } else if (tok[0] == '$') {  // $version, $date, $comment: skip to $end
      while (in >> tok && tok != "$end") {
      }
    } else if (tok[0] == '#') {
      now = std::stoull(tok.substr(1));
      v.times.push_back(now);
    } else if (tok[0] == 'b' || tok[0] == 'B') {
      std::string id;
      in >> id;
      const std::string bits = tok.substr(1);
      record(id, bits.find_first_not_of("01") == std::string::npos ? std::to_string(std::stoull(bits, nullptr, 2)) : bits);
    } else if (tok[0] == 's') {
      std::string id;
      in >> id;
      record(id, unescape(tok.substr(1)));
    } else if (tok[0] == '0' || tok[0] == '1' || tok[0] == 'x' || tok[0] == 'z') {
      record(tok.substr(1), tok.substr(0, 1));
    } else {
      ADD_FAILURE() << "unexpected VCD token '" << tok << "' in " << path;
    }
  }
  return v;
}

// The .gtkw save file: its signal lines, group begin/end lines and the flags of each line.
struct Gtkw {
  std::map<std::string, std::string> tags;  // "[dumpfile]" -> rest of line
  std::vector<std::string> signals;
  std::map<std::string, unsigned long> flags_of;  // signal or "-group" -> flags in force
  std::vector<std::pair<std::string, unsigned long>> blanks;  // "-name" lines with their flags
};

Gtkw parseGtkw(const std::string& path) {
  std::istringstream in(readFile(path));
  Gtkw g;
  unsigned long flags = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '*') continue;
    if (line[0] == '[') {
      const auto sp = line.find(' ');
      g.tags[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
    } else if (line[0] == '@') {
      flags = std::stoul(line.substr(1), nullptr, 16);
    } else if (line[0] == '-') {
      g.blanks.emplace_back(line.substr(1), flags);
    } else {
      g.signals.push_back(line);
      g.flags_of[line] = flags;
    }
  }
  return g;
}

// ---- the scenario ---------------------------------------------------------------------------

struct Scenario {
  int clk, pc0, op0, issued0, lsu0, pc1, l2q, dram_cmd, launched;
};

constexpr std::uint64_t kPeriodPs = 1000;  // 1 GHz core clock
constexpr int kCycles = 10;

const char* opAt(int c) { return c % 3 == 0 ? "FFMA" : c % 3 == 1 ? "LD.global" : "ST shared"; }
const char* dramAt(int c) { return c == 2 ? "ACT b3" : c == 4 ? "RD b3" : c == 7 ? "PRE b3" : ""; }

// Registers the signals and runs kCycles core cycles of made-up activity; every cycle the
// clock rises at c*1000 ps and falls at c*1000+500 ps.
Scenario runScenario(Tracer& t) {
  Scenario s;
  s.clk = t.add("gpu.clk_core", Kind::Clock);
  s.pc0 = t.add("gpu.sm[0].sched[0].pc", Kind::Int, 32, Radix::Hex);
  s.op0 = t.add("gpu.sm[0].sched[0].op", Kind::String);
  s.issued0 = t.add("gpu.sm[0].sched[0].issued", Kind::Int, 1);
  s.lsu0 = t.add("gpu.sm[0].lsu_depth", Kind::Analog, 8);
  s.pc1 = t.add("gpu.sm[1].sched[0].pc", Kind::Int, 32, Radix::Hex);
  s.l2q = t.add("gpu.l2[0].queue_depth", Kind::Analog, 16);
  s.dram_cmd = t.add("gpu.dram[0].cmd", Kind::String);
  s.launched = t.add("gpu.gigathread.blocks_launched", Kind::Int, 64);
  for (int c = 0; c < kCycles; ++c) {
    t.advance(std::uint64_t(c) * kPeriodPs, std::uint64_t(c));
    t.set(s.clk, 1);
    t.set(s.pc0, 0x100 + 8 * std::uint64_t(c));
    t.set(s.pc0, 0x100 + 8 * std::uint64_t(c));  // unchanged: not recorded twice
    t.setString(s.op0, opAt(c));
    t.set(s.issued0, std::uint64_t(c % 2));
    t.set(s.lsu0, 7);  // a glitch within the step: only the last value counts
    t.set(s.lsu0, std::uint64_t(c < 5 ? c : 5));
    t.set(s.pc1, 0);
    t.set(s.l2q, std::uint64_t(c / 3));
    t.setString(s.dram_cmd, dramAt(c));
    t.set(s.launched, (std::uint64_t(1) << 40) + std::uint64_t(c));
    t.advance(std::uint64_t(c) * kPeriodPs + kPeriodPs / 2, std::uint64_t(c));
    t.set(s.clk, 0);
  }
  t.advance(std::uint64_t(kCycles) * kPeriodPs, kCycles);
  t.close();
  return s;
}

Tracer::Options options(const std::string& path) {
  Tracer::Options o;
  o.path = path;
  return o;
}

// In declaration order: a scope's own signals before its sub-scopes, scopes in order of first use.
const std::vector<std::string> kAllNames = {
    "gpu.clk_core",
    "gpu.sm[0].lsu_depth[7:0]",
    "gpu.sm[0].sched[0].pc[31:0]",
    "gpu.sm[0].sched[0].op",
    "gpu.sm[0].sched[0].issued",
    "gpu.sm[1].sched[0].pc[31:0]",
    "gpu.l2[0].queue_depth[15:0]",
    "gpu.dram[0].cmd",
    "gpu.gigathread.blocks_launched[63:0]",
};

std::set<std::string> asSet(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// ---- tests ----------------------------------------------------------------------------------

TEST(TraceFilter, GlobsOverComponentPaths) {
  const PathFilter f({"sm[0-3].*", "l2.*"});
  EXPECT_TRUE(f.matches("gpu.sm[0].sched[1].pc"));
  EXPECT_TRUE(f.matches("gpu.sm[3].active_warps"));
  EXPECT_FALSE(f.matches("gpu.sm[4].active_warps"));
  EXPECT_FALSE(f.matches("gpu.sm[13].active_warps"));
  EXPECT_TRUE(f.matches("gpu.l2[5].queue_depth"));  // "l2" matches any l2[i]
  EXPECT_TRUE(f.matches("gpu.l2.hits"));
  EXPECT_FALSE(f.matches("gpu.dram[0].cmd"));
  EXPECT_FALSE(f.matches("gpu.l2_total"));      // whole components only
  EXPECT_FALSE(f.matches("gpu.xbar.sm[0].flits"));  // from the top: sm[0] is not xbar.sm[0]
  EXPECT_FALSE(f.matches("gpu.xbar.l2[0].flits"));
  EXPECT_TRUE(f.matches("sm[2].x"));              // a path without a top component
  EXPECT_TRUE(PathFilter({"xbar.sm[0-1]"}).matches("gpu.xbar.sm[1].flits"));
  EXPECT_TRUE(PathFilter({"gpu.sm[1]"}).matches("gpu.sm[1].pc"));
  EXPECT_TRUE(PathFilter({"*flits"}).matches("gpu.xbar.l2[3].flits"));

  const PathFilter g({"*.sched[1]", "dram[0,2-3].bank[*].cmd", "gigathread"});
  EXPECT_TRUE(g.matches("gpu.sm[7].sched[1].pc"));
  EXPECT_FALSE(g.matches("gpu.sm[7].sched[0].pc"));
  EXPECT_TRUE(g.matches("gpu.dram[3].bank[15].cmd"));
  EXPECT_FALSE(g.matches("gpu.dram[1].bank[15].cmd"));
  EXPECT_FALSE(g.matches("gpu.dram[2].bank[15].depth"));
  EXPECT_TRUE(g.matches("gpu.gigathread.blocks_launched"));

  EXPECT_TRUE(PathFilter().matches("anything.at.all"));
  EXPECT_TRUE(PathFilter(std::vector<std::string>{}).matches("anything.at.all"));
  EXPECT_TRUE(PathFilter({"*"}).matches("gpu.x"));
  EXPECT_TRUE(PathFilter({"gpu.sm?0?.*"}).matches("gpu.sm[0].x"));
  EXPECT_THROW(PathFilter({"sm[0-"}), std::invalid_argument);
  EXPECT_THROW(PathFilter({"sm[3-1]"}), std::invalid_argument);
  EXPECT_THROW(PathFilter({"sm[a]"}), std::invalid_argument);
  EXPECT_THROW(PathFilter({"sm/0"}), std::invalid_argument);

  EXPECT_EQ(PathFilter::split("sm[0,2].*, l2.*,,dram[1-2]"),
            (std::vector<std::string>{"sm[0,2].*", "l2.*", "dram[1-2]"}));
}

TEST(TraceApi, DisabledAndInvalidUse) {
  ScratchDir dir;
  {
    Tracer off(Tracer::Options{});
    EXPECT_FALSE(off.enabled());
    EXPECT_EQ(off.add("gpu.x", Kind::Int), -1);
    off.set(-1, 5);
    off.setString(-1, "x");
    off.advance(10, 1);
    off.close();
  }
  EXPECT_THROW(Tracer{options(dir / "t.txt")}, std::invalid_argument);
  EXPECT_THROW(Tracer{options((dir / "missing") + "/t.vcd")}, std::runtime_error);
  Tracer::Options bad_filter = options(dir / "f.vcd");
  bad_filter.filters = {"sm["};
  EXPECT_THROW(Tracer{bad_filter}, std::invalid_argument);

  Tracer t(options(dir / "t.vcd"));
  EXPECT_TRUE(t.enabled());
  const int a = t.add("gpu.sm[0].a", Kind::Int, 4);
  EXPECT_GE(a, 0);
  EXPECT_THROW(t.add("gpu.sm[0].a", Kind::Int), std::invalid_argument);      // twice
  EXPECT_THROW(t.add("gpu.sm[0].a.b", Kind::Int), std::invalid_argument);    // a signal as scope
  EXPECT_THROW(t.add("gpu.sm[0]", Kind::Int), std::invalid_argument);        // a scope as signal
  EXPECT_THROW(t.add("gpu.sm[0].b[3]", Kind::Int), std::invalid_argument);   // index on the leaf
  EXPECT_THROW(t.add("gpu.sm[x].b", Kind::Int), std::invalid_argument);
  EXPECT_THROW(t.add("gpu..b", Kind::Int), std::invalid_argument);
  EXPECT_THROW(t.add("gpu.b c", Kind::Int), std::invalid_argument);
  EXPECT_THROW(t.add("gpu.w", Kind::Int, 65), std::invalid_argument);
  EXPECT_THROW(t.add("gpu.w", Kind::Int, 0), std::invalid_argument);
  const int w = t.add("gpu.w64", Kind::Int, 64);
  t.set(a, 0x1f);  // cut to 4 bits
  t.set(w, ~std::uint64_t(0));
  t.advance(1000, 1);  // recording began at time 0
  EXPECT_THROW(t.add("gpu.late", Kind::Int), std::logic_error);
  EXPECT_THROW(t.advance(999, 1), std::logic_error);
  t.close();
  t.close();  // twice is fine
  t.set(a, 3);  // after close: ignored
  t.advance(5000, 5);

  const Vcd v = parseVcd(dir / "t.vcd");
  EXPECT_EQ(v.of("gpu.sm[0].a[3:0]"), (std::vector<std::pair<std::uint64_t, std::string>>{{0, "15"}}));
  EXPECT_EQ(v.of("gpu.w64[63:0]"), (std::vector<std::pair<std::uint64_t, std::string>>{{0, "18446744073709551615"}}));
}

TEST(TraceVcd, RecordsEveryChangeOnceAtItsTime) {
  ScratchDir dir;
  Tracer t(options(dir / "all.vcd"));
  runScenario(t);
  const Vcd v = parseVcd(dir / "all.vcd");

  EXPECT_EQ(v.timescale, "1ps");
  EXPECT_EQ(v.names, kAllNames);
  EXPECT_EQ(v.type.at("gpu.sm[0].sched[0].op"), "string");
  EXPECT_EQ(v.type.at("gpu.sm[0].sched[0].pc[31:0]"), "wire");
  EXPECT_EQ(v.dumpvars_time, 0u);
  EXPECT_EQ(v.dumpvars_count, kAllNames.size());
  EXPECT_EQ(v.times.front(), 0u);
  EXPECT_EQ(v.times.back(), kCycles * kPeriodPs);  // the end mark at close()

  // The clock: a change at every edge.
  const auto& clk = v.of("gpu.clk_core");
  ASSERT_EQ(clk.size(), 2u * kCycles);
  for (int c = 0; c < kCycles; ++c) {
    EXPECT_EQ(clk[2 * c], std::make_pair(c * kPeriodPs, std::string("1")));
    EXPECT_EQ(clk[2 * c + 1], std::make_pair(c * kPeriodPs + kPeriodPs / 2, std::string("0")));
  }
  // pc: once per cycle though set twice; op: only when it changes (every cycle here).
  const auto& pc = v.of("gpu.sm[0].sched[0].pc[31:0]");
  ASSERT_EQ(pc.size(), std::size_t(kCycles));
  for (int c = 0; c < kCycles; ++c) {
    EXPECT_EQ(pc[c], std::make_pair(c * kPeriodPs, std::to_string(0x100 + 8 * c)));
    EXPECT_EQ(v.at("gpu.sm[0].sched[0].op", c * kPeriodPs), opAt(c));
  }
  EXPECT_EQ(v.of("gpu.sm[0].sched[0].op").size(), std::size_t(kCycles));
  EXPECT_EQ(v.of("gpu.sm[0].sched[0].issued").size(), std::size_t(kCycles));
  // The analog depth: 0 1 2 3 4 5 5 5 5 5 -> six records; the 7 glitches never show.
  const auto& lsu = v.of("gpu.sm[0].lsu_depth[7:0]");
  ASSERT_EQ(lsu.size(), 6u);
  for (int c = 0; c < 6; ++c) EXPECT_EQ(lsu[c], std::make_pair(c * kPeriodPs, std::to_string(c)));
  // Set every cycle to the same value: one record, at the start.
  EXPECT_EQ(v.of("gpu.sm[1].sched[0].pc[31:0]"), (std::vector<std::pair<std::uint64_t, std::string>>{{0, "0"}}));
  // l2 depth c/3: 0 at 0, 1 at 3, 2 at 6, 3 at 9.
  EXPECT_EQ(v.of("gpu.l2[0].queue_depth[15:0]"),
            (std::vector<std::pair<std::uint64_t, std::string>>{{0, "0"}, {3000, "1"}, {6000, "2"}, {9000, "3"}}));
  // DRAM commands as strings, with the empty string in between.
  EXPECT_EQ(v.of("gpu.dram[0].cmd"), (std::vector<std::pair<std::uint64_t, std::string>>{
                                          {0, ""}, {2000, "ACT b3"}, {3000, ""}, {4000, "RD b3"},
                                          {5000, ""}, {7000, "PRE b3"}, {8000, ""}}));
  const auto& launched = v.of("gpu.gigathread.blocks_launched[63:0]");
  ASSERT_EQ(launched.size(), std::size_t(kCycles));
  EXPECT_EQ(launched.back().second, std::to_string((std::uint64_t(1) << 40) + kCycles - 1));
}

TEST(TraceVcd, FiltersKeepExactlyTheMatchingSignals) {
  ScratchDir dir;
  Tracer::Options o = options(dir / "f.vcd");
  o.filters = PathFilter::split("sm[1].*,l2,gigathread");
  Tracer t(o);
  const Scenario s = runScenario(t);
  EXPECT_GE(s.clk, 0);  // clocks pass every filter
  EXPECT_EQ(s.pc0, -1);
  EXPECT_EQ(s.op0, -1);
  EXPECT_EQ(s.issued0, -1);
  EXPECT_EQ(s.lsu0, -1);
  EXPECT_GE(s.pc1, 0);
  EXPECT_GE(s.l2q, 0);
  EXPECT_EQ(s.dram_cmd, -1);
  EXPECT_GE(s.launched, 0);
  const Vcd v = parseVcd(dir / "f.vcd");
  EXPECT_EQ(v.names, (std::vector<std::string>{"gpu.clk_core", "gpu.sm[1].sched[0].pc[31:0]",
                                               "gpu.l2[0].queue_depth[15:0]",
                                               "gpu.gigathread.blocks_launched[63:0]"}));
  EXPECT_EQ(v.of("gpu.l2[0].queue_depth[15:0]").size(), 4u);
  EXPECT_EQ(v.of("gpu.clk_core").size(), 2u * kCycles);
}

TEST(TraceVcd, WindowRecordsExactlyItsCycles) {
  ScratchDir dir;
  Tracer::Options o = options(dir / "w.vcd");
  o.window_start = 3;
  o.window_end = 6;
  Tracer t(o);
  runScenario(t);
  const Vcd v = parseVcd(dir / "w.vcd");
  EXPECT_EQ(v.names, kAllNames);
  // Opens at cycle 3 with every signal's value then, including those set long before.
  EXPECT_EQ(v.times.front(), 3000u);
  EXPECT_EQ(v.dumpvars_time, 3000u);
  EXPECT_EQ(v.dumpvars_count, kAllNames.size());
  EXPECT_EQ(v.at("gpu.sm[1].sched[0].pc[31:0]", 3000), "0");
  EXPECT_EQ(v.at("gpu.l2[0].queue_depth[15:0]", 3000), "1");
  EXPECT_EQ(v.at("gpu.sm[0].lsu_depth[7:0]", 3000), "3");
  EXPECT_EQ(v.at("gpu.dram[0].cmd", 3000), "");
  EXPECT_EQ(v.at("gpu.sm[0].sched[0].pc[31:0]", 3000), std::to_string(0x100 + 8 * 3));
  // Ends with a bare time mark at cycle 6; nothing changes at or after it.
  EXPECT_EQ(v.times.back(), 6000u);
  for (const auto& [name, list] : v.changes) {
    for (const auto& [time, value] : list) {
      EXPECT_GE(time, 3000u) << name;
      EXPECT_LT(time, 6000u) << name;
    }
  }
  // Inside: the changes of cycles 3, 4, 5, both clock edges of each.
  EXPECT_EQ(v.of("gpu.clk_core").size(), 6u);
  EXPECT_EQ(v.of("gpu.sm[0].sched[0].pc[31:0]").size(), 3u);
  EXPECT_EQ(v.of("gpu.dram[0].cmd"), (std::vector<std::pair<std::uint64_t, std::string>>{
                                          {3000, ""}, {4000, "RD b3"}, {5000, ""}}));
  EXPECT_EQ(v.of("gpu.l2[0].queue_depth[15:0]"), (std::vector<std::pair<std::uint64_t, std::string>>{{3000, "1"}}));
}

TEST(TraceVcd, WindowThatNeverOpensGivesHeaderOnly) {
  ScratchDir dir;
  Tracer::Options o = options(dir / "n.vcd");
  o.window_start = 100;
  o.window_end = 200;
  Tracer t(o);
  runScenario(t);
  const Vcd v = parseVcd(dir / "n.vcd");
  EXPECT_EQ(v.names, kAllNames);
  EXPECT_TRUE(v.times.empty());
  EXPECT_TRUE(v.changes.empty());
}

TEST(TraceFst, Fst2vcdGivesTheSameChangesAsTheVcd) {
  if (!haveProgram("fst2vcd")) GTEST_SKIP() << "fst2vcd (gtkwave) not installed";
  ScratchDir dir;
  for (const bool windowed : {false, true}) {
    SCOPED_TRACE(windowed ? "window [2,8) and a filter" : "everything");
    auto opts = [&](const std::string& path) {
      Tracer::Options o = options(path);
      if (windowed) {
        o.window_start = 2;
        o.window_end = 8;
        o.filters = {"sm[0]", "dram"};
      }
      return o;
    };
    {
      Tracer a(opts(dir / "t.vcd"));
      runScenario(a);
      Tracer b(opts(dir / "t.fst"));
      runScenario(b);
    }
    const std::string cmd = "fst2vcd -f " + (dir / "t.fst") + " -o " + (dir / "conv.vcd") + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const Vcd mine = parseVcd(dir / "t.vcd");
    const Vcd conv = parseVcd(dir / "conv.vcd");
    EXPECT_EQ(conv.timescale, "1ps");
    EXPECT_EQ(conv.names, mine.names);
    for (const auto& n : mine.names) EXPECT_EQ(conv.type.at(n), mine.type.at(n)) << n;
    EXPECT_EQ(conv.shown(), mine.shown());
    EXPECT_EQ(mine.shown(), mine.changes);  // the VCD itself holds no redundant record
    EXPECT_EQ(conv.times.front(), mine.times.front());
    EXPECT_EQ(conv.times.back(), mine.times.back());
  }
}

TEST(TraceGtkw, NamesOnlySignalsOfTheTraceGroupedByBlock) {
  ScratchDir dir;
  for (const char* ext : {".vcd", ".fst"}) {
    SCOPED_TRACE(ext);
    Tracer::Options o = options(dir / (std::string("g") + ext));
    o.filters = {"sm", "l2", "dram"};  // no gigathread
    Tracer t(o);
    runScenario(t);
    EXPECT_EQ(t.gtkwPath(), dir / "g.gtkw");
    const Gtkw g = parseGtkw(dir / "g.gtkw");
    EXPECT_EQ(g.tags.at("[dumpfile]"), std::string("\"g") + ext + "\"");
    EXPECT_EQ(g.tags.at("[savefile]"), "\"g.gtkw\"");
    EXPECT_EQ(g.tags.at("[timestart]"), "0");

    std::vector<std::string> expected;
    for (const auto& n : kAllNames) {
      if (n.find("gigathread") == std::string::npos) expected.push_back(n);
    }
    // Every signal line is a signal of the trace, and every signal of the trace is shown.
    EXPECT_EQ(asSet(g.signals), asSet(expected));
    EXPECT_EQ(g.signals.size(), expected.size());
    if (std::string(ext) == ".vcd") {
      EXPECT_EQ(asSet(parseVcd(dir / "g.vcd").names), asSet(g.signals));
    }

    // Formats (GTKWave TraceEntFlagBits): 0x28 binary, 0x22 hex, 0x24 decimal, 0x820 ASCII,
    // 0x8024 analog step.
    EXPECT_EQ(g.flags_of.at("gpu.clk_core"), 0x28u);
    EXPECT_EQ(g.flags_of.at("gpu.sm[0].sched[0].issued"), 0x28u);
    EXPECT_EQ(g.flags_of.at("gpu.sm[0].sched[0].pc[31:0]"), 0x22u);
    EXPECT_EQ(g.flags_of.at("gpu.sm[0].sched[0].op"), 0x820u);
    EXPECT_EQ(g.flags_of.at("gpu.dram[0].cmd"), 0x820u);
    EXPECT_EQ(g.flags_of.at("gpu.sm[0].lsu_depth[7:0]"), 0x8024u);
    EXPECT_EQ(g.flags_of.at("gpu.l2[0].queue_depth[15:0]"), 0x8024u);
    EXPECT_EQ(g.signals.front(), "gpu.clk_core");  // clocks first

    // Groups: balanced and named per block; the first block of each kind open, the rest closed.
    std::vector<std::pair<std::string, unsigned long>> stack;
    std::vector<std::string> opened;
    std::map<std::string, unsigned long> begin_flags;  // the first of each name
    for (const auto& [name, flags] : g.blanks) {
      if (flags & 0x800000) {
        EXPECT_EQ(flags & ~0x400000ul, 0x800200u) << name;
        stack.emplace_back(name, flags);
        opened.push_back(name);
        begin_flags.emplace(name, flags);
      } else if (flags & 0x1000000) {
        ASSERT_FALSE(stack.empty()) << name;
        EXPECT_EQ(stack.back().first, name);
        EXPECT_EQ(flags, (stack.back().second & 0x400000) ? 0x1401200u : 0x1000200u) << name;
        stack.pop_back();
      } else {
        EXPECT_EQ(flags, 0x20000u) << name;  // the analog curves' second row
        EXPECT_EQ(name, "");
      }
    }
    EXPECT_TRUE(stack.empty());
    EXPECT_EQ(opened, (std::vector<std::string>{"sm[0]", "sched[0]", "sm[1]", "sched[0]", "l2[0]", "dram[0]"}));
    EXPECT_EQ(begin_flags.at("sm[0]"), 0x800200u);
    EXPECT_EQ(begin_flags.at("sm[1]"), 0xc00200u);
  }
}

TEST(TraceDeterminism, SameTraceTwiceIsByteIdentical) {
  ScratchDir dir;
  fs::create_directories(dir.path() / "a");
  fs::create_directories(dir.path() / "b");
  for (const char* ext : {".vcd", ".fst"}) {
    SCOPED_TRACE(ext);
    for (const char* sub : {"a", "b"}) {
      Tracer::Options o = options(dir / (std::string(sub) + "/run" + ext));
      o.window_start = 1;
      o.window_end = 9;
      Tracer t(o);
      runScenario(t);
    }
    const std::string a = readFile(dir / (std::string("a/run") + ext));
    EXPECT_GT(a.size(), 100u);
    EXPECT_EQ(a, readFile(dir / (std::string("b/run") + ext)));
    EXPECT_EQ(readFile(dir / "a/run.gtkw"), readFile(dir / "b/run.gtkw"));
  }
}

// GTKWave itself (3.3.118 under Xvfb) opens the .gtkw: every signal line resolves, with the
// flags written, and the strings read back as written. Skipped without xvfb-run.
TEST(TraceGtkwave, LoadsTheSaveFileHeadless) {
  if (!haveProgram("xvfb-run") || !haveProgram("gtkwave")) GTEST_SKIP() << "xvfb-run or gtkwave not installed";
  ScratchDir dir;
  for (const char* ext : {".vcd", ".fst"}) {
    SCOPED_TRACE(ext);
    {
      Tracer t(options(dir / (std::string("h") + ext)));
      runScenario(t);
    }
    const std::string out = dir / "gtkwave_out.txt";
    std::ofstream(dir / "q.tcl")
        << "set f [open \"" << out << "\" w]\n"
        << "puts $f \"visible [gtkwave::getVisibleNumTraces]\"\n"
        << "foreach s [gtkwave::getDisplayedSignals] { puts $f \"signal $s\" }\n"
        << "gtkwave::setMarker 7250\n"
        << "set n [gtkwave::getTotalNumTraces]\n"
        << "for {set i 0} {$i < $n} {incr i} {\n"
        << "  puts $f \"trace [format %x [gtkwave::getTraceFlagsFromIndex $i]] "
           "[gtkwave::getTraceNameFromIndex $i]=[gtkwave::getTraceValueAtMarkerFromIndex $i]\"\n"
        << "}\n"
        << "close $f\n"
        << "gtkwave::/File/Quit\n";
    std::remove(out.c_str());
    const std::string cmd = "cd " + dir.path().string() + " && timeout 60 xvfb-run -a gtkwave -S q.tcl h.gtkw > gtkwave_log.txt 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << readFile(dir / "gtkwave_log.txt");

    const Gtkw g = parseGtkw(dir / "h.gtkw");
    std::vector<std::string> shown;
    std::map<std::string, std::string> value_of;  // short trace name -> value at 7250 ps
    std::vector<unsigned long> flags;
    std::istringstream in(readFile(out));
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("signal ", 0) == 0) shown.push_back(line.substr(7));
      if (line.rfind("trace ", 0) == 0) {
        const auto sp = line.find(' ', 6);
        flags.push_back(std::stoul(line.substr(6, sp - 6), nullptr, 16));
        const auto eq = line.find('=', sp);
        value_of.emplace(line.substr(sp + 1, eq - sp - 1), line.substr(eq + 1));  // first wins
      }
    }
    EXPECT_EQ(shown, g.signals);  // GTKWave drops names it cannot find: none dropped
    std::vector<unsigned long> written;
    {
      std::istringstream gin(readFile(dir / "h.gtkw"));
      unsigned long f = 0;
      while (std::getline(gin, line)) {
        if (line.empty() || line[0] == '[' || line[0] == '*') continue;
        if (line[0] == '@') {
          f = std::stoul(line.substr(1), nullptr, 16);
        } else {
          written.push_back(f);
        }
      }
    }
    EXPECT_EQ(flags, written);
    EXPECT_EQ(value_of["op"], opAt(7));
    EXPECT_EQ(value_of["cmd"], "PRE b3");  // the space survives
    EXPECT_EQ(value_of["lsu_depth[7:0]"], "5");
    EXPECT_EQ(value_of["pc[31:0]"], "00000138");  // hex, 0x100 + 8*7 (sm[0] comes first)
  }
}

}  // namespace
