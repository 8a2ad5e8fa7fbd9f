// Waveform tracing: components register signals under hierarchical paths
// ("gpu.sm[3].sched[1].pc"), set their values as the simulation runs, and the tracer writes the
// changes to a VCD (plain text) or FST file (Verilator's FST writer) on one time base in
// picoseconds, plus a GTKWave save file (.gtkw) beside it that groups the signals by block.
//
// Cheap by construction: a signal excluded by the filters gets id -1 and set(-1, ...) returns at
// once; set() on an unchanged value is one compare; only changes are written, and only inside
// the window of core cycles. Deterministic: no dates or host paths in the files, signals in a
// fixed order, and the changes of one time step written in id order.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scgpu::trace {

enum class Kind {
  Int,     // unsigned integer of 1..64 bits
  String,  // text (an opcode, a DRAM command); GTKWave shows it as text
  Analog,  // integer (queue depth, occupancy) shown by GTKWave as an analog step curve
  Clock,   // 1-bit clock; passes every filter and sits at the top of the .gtkw view
};

// How GTKWave shows an integer. Auto: binary for 1 bit, decimal otherwise.
enum class Radix { Auto, Dec, Hex, Bin };

// Component-path globs ("sm[0-3].*", "l2.*", "*.sched[1]"). A pattern is matched against the
// signal's path from its start, with or without the top component ("gpu."), up to the end of any
// component: "sm[0-3].*" and "sm[0-3]" select everything under gpu.sm[0] .. gpu.sm[3] (but not
// gpu.xbar.sm[2].flits), "*.sched[1]" everything under every scheduler 1. In a pattern, '*' is
// any sequence of characters (dots included), '?' one character, and "[...]" an index set matched
// against a bracketed index of the path: "[3]", "[0-3]", "[0,2,5-7]", "[*]". A name without an
// index set matches the name with any index too ("l2" matches "l2[5]"). Throws
// std::invalid_argument on a malformed pattern.
class PathFilter {
 public:
  PathFilter() = default;  // matches everything
  explicit PathFilter(const std::vector<std::string>& patterns);
  bool matches(std::string_view path) const;
  bool matchesAll() const { return patterns_.empty(); }

  // Splits a command-line list "sm[0,2].*,l2.*" at the commas outside brackets; drops empties.
  static std::vector<std::string> split(std::string_view list);

  struct Token {  // one element of a compiled pattern
    enum Type : std::uint8_t { Lit, Star, Quest, Index, OptIndex } type = Lit;
    char c = 0;                                                     // Lit
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // Index; empty: any index
  };

 private:
  std::vector<std::vector<Token>> patterns_;
};

class Writer;  // VCD or FST back end (writer.h)

class Tracer {
 public:
  struct Options {
    std::string path;                  // ".vcd" or ".fst"; empty: tracing off (enabled() false)
    std::vector<std::string> filters;  // PathFilter patterns; empty: every signal
    std::uint64_t window_start = 0;    // core cycles; changes are recorded for cycles in
    std::uint64_t window_end = UINT64_MAX;  // [window_start, window_end)
    double core_clock_mhz = 1000;      // sets the initial zoom of the .gtkw view (~100 cycles)
  };

  // Opens the file (throws std::runtime_error when it cannot, std::invalid_argument for an
  // unknown extension or a malformed filter).
  explicit Tracer(Options o);
  ~Tracer();  // closes if close() was not called (errors are then swallowed)
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // Registers a signal under a dotted path; returns its id, or -1 when tracing is off or the
  // filters exclude it. Every component is an identifier [A-Za-z_][A-Za-z0-9_]*; scope
  // components may carry one index ("sm[3]"), the signal's own name may not (put the index on a
  // scope: "dram[0].bank[3].cmd"). width_bits: 1..64 for Int and Analog, ignored for Clock (1)
  // and String. All signals must be registered before the first recorded change: add() after
  // that, a path registered twice, or a name that is both a signal and a scope throw
  // std::logic_error / std::invalid_argument.
  int add(const std::string& path, Kind kind, int width_bits = 32, Radix radix = Radix::Auto);

  // Int, Analog and Clock (the value is cut to the signal's width). Values set after
  // advance(t, c) belong to time t; the last value set within a time step is the one recorded.
  void set(int id, std::uint64_t value) {
    if (id < 0) return;
    assert(std::size_t(id) < sigs_.size() && sigs_[id].kind != Kind::String);
    Sig& s = sigs_[std::size_t(id)];
    value &= s.mask;
    if (value == s.cur) return;
    s.cur = value;
    if (recording_ && !s.dirty) {
      s.dirty = true;
      dirty_.push_back(id);
    }
  }
  void setString(int id, std::string_view value) {
    if (id < 0) return;
    assert(std::size_t(id) < sigs_.size() && sigs_[id].kind == Kind::String);
    Sig& s = sigs_[std::size_t(id)];
    if (value == s.str) return;
    s.str.assign(value.data(), value.size());
    if (recording_ && !s.dirty) {
      s.dirty = true;
      dirty_.push_back(id);
    }
  }

  // Moves time forward to time_ps (simulated picoseconds, the one time base of every clock
  // domain) where the core clock has done core_cycle cycles. Call it from every clock domain's
  // edge before that domain sets its values. Time must not go back (std::logic_error). When
  // the window opens, the current value of every signal is recorded; when it closes, an end
  // mark is written and nothing more is recorded.
  void advance(std::uint64_t time_ps, std::uint64_t core_cycle) {
    if (!enabled_ || (time_ps == time_ && core_cycle == cycle_)) return;
    advanceSlow(time_ps, core_cycle);
  }

  // Flushes, closes the trace and writes the .gtkw save file beside it (same stem). After
  // close(), set() and advance() do nothing. Throws std::runtime_error on an I/O error.
  void close();

  bool enabled() const { return enabled_; }
  // The file names written (empty when tracing is off).
  const std::string& tracePath() const { return opt_.path; }
  std::string gtkwPath() const;

 private:
  struct Sig {
    std::uint64_t mask = 0, cur = 0, written = 0;
    std::string str, written_str;
    Kind kind = Kind::Int;
    Radix radix = Radix::Auto;
    int width = 1;
    int handle = -1;  // the writer's index (declaration order)
    bool dirty = false;
    std::string path;
  };
  struct Scope;
  enum class Window { Before, In, After };

  void advanceSlow(std::uint64_t time_ps, std::uint64_t core_cycle);
  void flush();
  void writeHeader();
  void writeGtkw() const;

  Options opt_;
  PathFilter filter_;
  std::unique_ptr<Writer> writer_;
  std::unique_ptr<Scope> root_;
  std::vector<Sig> sigs_;
  std::vector<int> dirty_;
  std::uint64_t time_ = 0, cycle_ = 0;
  std::uint64_t first_time_ = 0;    // when the window opened (the .gtkw view starts there)
  std::uint64_t written_time_ = 0;  // the last time written
  Window window_ = Window::Before;
  bool enabled_ = false, recording_ = false, dump_all_ = false, header_written_ = false;
  bool closed_ = false;
};

}  // namespace scgpu::trace
