// What a run records besides statistics: a waveform (VCD or FST, with a GTKWave save file) of the
// signals matching the filters inside a window of core cycles, and a Chrome trace-event timeline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scgpu {

struct TraceOptions {
  std::string path;                   // .vcd or .fst; empty: no waveform
  std::vector<std::string> filters;   // component-path globs, e.g. "sm[0-3].*", "l2.*"
  std::uint64_t window_start = 0, window_end = UINT64_MAX;  // core cycles
  std::string timeline_path;          // Chrome trace-event JSON; empty: none
  // The chip's waveform and timeline come from the timing model:
  bool enabled() const { return !path.empty() || !timeline_path.empty(); }
  // The host interface's waveform (device time) and MMIO log, in either mode; empty: none.
  std::string host_trace_path;
  std::string mmio_log_path;
};

}  // namespace scgpu
