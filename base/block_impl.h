// What the three implementations of a carved-out block (`impl: model | rtl | cosim`, see
// docs/rtl-cosim.md) share, whatever the block: the check of the impl name, and the recent
// transactions a co-simulation keeps for its divergence report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <string>

namespace scgpu {

// Throws std::invalid_argument unless `impl` is model, rtl or cosim, and, for rtl and cosim, the
// RTL implementation is linked in. `key` names the config key in the message ("crossbar.impl").
void checkBlockImpl(const std::string& key, const std::string& impl, bool rtl_available);

// rtl-verif: where a co-simulation divergence's waveform goes: "<dir>/cosim_<instance>_<when>"
// (to which .fst and .gtkw are added), <dir> being $SCGPU_COSIM_WAVE_DIR or the working directory;
// the instance's brackets and dots become underscores ("gpu_sm_1_coalescer"); <when> is
// "cycle<N>" for a core cycle, or what the caller gives ("pick<N>").
std::string cosimWaveformStem(const std::string& instance, const std::string& when);
inline std::string cosimWaveformStem(const std::string& instance, std::uint64_t cycle) {
  return cosimWaveformStem(instance, "cycle" + std::to_string(cycle));
}

// rtl-verif: the report's lines about a divergence's waveform: rtl.writeWaveform(stem), or, when
// writing it fails, a line saying why (reported in its place, not instead of the divergence).
template <typename Rtl>
std::string cosimWaveform(Rtl& rtl, const std::string& stem) {
  try {
    return rtl.writeWaveform(stem);
  } catch (const std::exception& e) {
    return "  waveform: not written: " + std::string(e.what()) + "\n";
  }
}

// The last `capacity` transactions of one block instance, oldest first.
class CosimHistory {
 public:
  explicit CosimHistory(std::size_t capacity) : capacity_(capacity) {}
  void remember(std::string transaction);
  std::size_t size() const { return entries_.size(); }
  // One line per transaction, each indented by four spaces.
  std::string text() const;

 private:
  std::size_t capacity_;
  std::deque<std::string> entries_;
};

}  // namespace scgpu
