// The tracer's back ends: a VCD writer (plain text, IEEE 1364 with GTKWave's string extension)
// and an FST writer (Verilator's copy of GTKWave's fstapi). Internal to tlm/trace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tlm/trace/tracer.h"

namespace scgpu::trace {

class Writer {
 public:
  virtual ~Writer() = default;
  // Header: scopes and variables, in the order given; handles count 0, 1, 2, ... in declaration
  // order. leaf is the signal's own name (no range); width is 0 for strings.
  virtual void pushScope(const std::string& name) = 0;
  virtual void popScope() = 0;
  virtual void declare(int handle, const std::string& leaf, Kind kind, int width) = 0;
  virtual void endDefinitions() = 0;
  // Body: a time, then the values that change at it. beginDump/endDump bracket the values
  // recorded when the window opens (VCD's $dumpvars).
  virtual void time(std::uint64_t t) = 0;
  virtual void beginDump() {}
  virtual void endDump() {}
  virtual void value(int handle, std::uint64_t v) = 0;
  virtual void text(int handle, std::string_view s) = 0;
  // Flushes and closes; throws std::runtime_error on an I/O error.
  virtual void finish() = 0;
};

std::unique_ptr<Writer> makeVcdWriter(const std::string& path);
std::unique_ptr<Writer> makeFstWriter(const std::string& path);

// VCD identifier of a handle, the way GTKWave's fst2vcd numbers them ("!", "\"", ..., "~", "!!").
std::string vcdId(int handle);
// Escapes a string value for VCD the way fst2vcd does (C escapes, \ooo for space and
// non-printables), so that it holds no white space.
void vcdEscape(std::string& out, std::string_view s);

}  // namespace scgpu::trace
