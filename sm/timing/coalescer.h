// The LSU coalescer: one warp's global access (the active lanes' addresses and the access width)
// in, the cache lines it touches out, in the order the lanes first touch them, each with the mask
// of sectors touched. It is a block boundary of its own so that an RTL version can take its place
// (rtl/lsu_coalescer.sv): the config picks `sm.coalescer.impl: model | rtl | cosim`.
//
// The model is plain C++. The RTL implementation lives in rtl/ and registers its factory here
// (rtl/ depends on sm/, not the other way round); cosim runs both on every access and reports the
// first access on which they differ.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace scgpu::sm::timing {

struct CoalescerParams {
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 32;
};

// One access: `addr[lane]` for every lane set in `mask`, `bytes` per lane.
struct LaneAccesses {
  std::uint32_t mask = 0;
  std::uint32_t bytes = 0;
  const std::uint64_t* addr = nullptr;  // 32 entries
  std::uint64_t cycle = 0;              // for reports
};

struct LineAccess {
  std::uint64_t line = 0;     // line address
  std::uint32_t sectors = 0;  // bit i: sector i of the line
  bool operator==(const LineAccess& o) const { return line == o.line && sectors == o.sectors; }
  bool operator!=(const LineAccess& o) const { return !(*this == o); }
};

class Coalescer {
 public:
  virtual ~Coalescer() = default;
  // Appends the lines of `in` to `out`.
  virtual void coalesce(const LaneAccesses& in, std::vector<LineAccess>& out) = 0;
  virtual const char* implName() const = 0;

  // rtl-verif, used by cosim only (an implementation that keeps no waveform ignores them):
  // keepWaveform() asks the RTL to keep the window of its last cycles from now on; expect() gives
  // it the model's lines of the access about to be coalesced, to show beside its own; and
  // writeWaveform() writes the window (stem.fst, stem.gtkw), returning the report's lines about it
  // ("" when none is kept).
  virtual void keepWaveform() {}
  virtual void expect(const std::vector<LineAccess>& /*model_lines*/) {}
  virtual std::string writeWaveform(const std::string& /*stem*/) { return ""; }
};

// The C++ model; also the reference in cosim.
class ModelCoalescer : public Coalescer {
 public:
  explicit ModelCoalescer(const CoalescerParams& p) : p_(p) {}
  void coalesce(const LaneAccesses& in, std::vector<LineAccess>& out) override;
  const char* implName() const override { return "model"; }
  // The lines one lane's `bytes` at `addr` touch, merged into `out` (lines after `first` are
  // searched for a match): shared with the LSU's local-memory path.
  static void touch(const CoalescerParams& p, std::uint64_t addr, std::uint32_t bytes, std::vector<LineAccess>& out,
                    std::size_t first);

 private:
  CoalescerParams p_;
};

// The RTL implementation's factory, registered by rtl/ when it is linked in. `instance` names the
// block in reports ("gpu.sm[3].coalescer"). Throws std::invalid_argument when the RTL cannot
// honour a parameter (the message names the config key and the RTL parameter).
using CoalescerFactory =
    std::function<std::unique_ptr<Coalescer>(const CoalescerParams& params, const std::string& instance)>;
void registerRtlCoalescer(CoalescerFactory factory);
bool rtlCoalescerAvailable();

// impl: "model", "rtl" or "cosim". A divergence in cosim throws FaultSignal{"cosim divergence"}
// with the cycle, instance, port, expected and got lines, and the instance's recent accesses.
std::unique_ptr<Coalescer> makeCoalescer(const std::string& impl, const CoalescerParams& params,
                                         const std::string& instance);

}  // namespace scgpu::sm::timing
