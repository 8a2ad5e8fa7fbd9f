// The crossbar's switch allocator, one per network (requests SM -> L2, responses L2 -> SM): for a
// free output port, which input's head packet it takes next. A block boundary of its own so that
// an RTL version can take its place (rtl/xbar_arbiter.sv): `crossbar.impl: model | rtl | cosim`.
// A grant holds until the packet's last flit is switched (wormhole); then done() lets a
// round-robin arbiter move past that input. Back-pressure (output buffer room) stays with the
// crossbar's flit logic: a granted packet waits there, not here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace scgpu::memsys {

struct ArbiterParams {
  std::uint32_t inputs = 1, outputs = 1;
  bool round_robin = true;  // else fixed priority (lowest input first)
};

class CrossbarArbiter {
 public:
  static constexpr std::uint32_t kNone = ~0u;
  virtual ~CrossbarArbiter() = default;
  // `requests` (a bitset over inputs, 64 per word): the inputs whose head packet targets `output`
  // and may be switched this cycle. Returns the granted input, or kNone when there is none.
  virtual std::uint32_t grant(std::uint32_t output, const std::vector<std::uint64_t>& requests, std::uint64_t cycle) = 0;
  // The packet from `input` has fully left through `output`.
  virtual void done(std::uint32_t output, std::uint32_t input) = 0;
  // The input a grant on `output` looks at first, the others following in circular order (a
  // round-robin pointer; 0 for fixed priority), when the grant is the first requester from there:
  // the crossbar then stops testing requesters at the first that can go and passes only that one
  // (under a hot output 132 SMs request, and testing them all was a tenth of a run of serialised
  // atomics). kNone: grant() must see every request (the RTL and co-simulation compare the grant
  // made on the whole vector).
  virtual std::uint32_t firstConsidered(std::uint32_t /*output*/) const { return kNone; }
  // Co-simulation: the first grant on which the RTL differed from the model (null otherwise).
  virtual const std::string* divergence() const { return nullptr; }
  // rtl-verif, used by cosim only (an implementation that keeps no waveform ignores them):
  // keepWaveform() asks the RTL to keep the window of its last cycles from now on; expect() gives
  // it the model's answer to the grant about to be made, for the waveform's model side;
  // writeWaveform() writes the window (stem.fst, stem.gtkw) and returns the report's lines about
  // it ("" when it keeps none).
  virtual void keepWaveform() {}
  virtual void expect(std::uint32_t /*model_grant*/) {}
  virtual std::string writeWaveform(const std::string& /*stem*/) { return ""; }
};

// In a bitset over n inputs, the first set bit at or after `from` for which pred(bit) holds, else
// the first such bit below `from` (round-robin order from `from`); kNone when there is none.
// Every set bit is offered to pred at most once, in that order.
template <typename Pred>
std::uint32_t firstFromWhere(const std::vector<std::uint64_t>& bits, std::uint32_t from, std::uint32_t n, Pred&& pred) {
  for (int pass = 0; pass < 2; ++pass) {
    const std::uint32_t lo = pass == 0 ? from : 0, hi = pass == 0 ? n : std::min(from, n);
    for (std::uint32_t w = lo >> 6; lo < hi && w <= (hi - 1) >> 6; ++w) {
      std::uint64_t word = bits[w];
      if (w == lo >> 6) word &= ~std::uint64_t(0) << (lo & 63);
      if (w == (hi - 1) >> 6 && (hi & 63)) word &= (std::uint64_t(1) << (hi & 63)) - 1;
      for (; word; word &= word - 1) {
        const std::uint32_t i = w * 64 + std::uint32_t(__builtin_ctzll(word));
        if (pred(i)) return i;
      }
    }
  }
  return CrossbarArbiter::kNone;
}

// The C++ model: a round-robin pointer per output (the input after the last one served).
class ModelArbiter : public CrossbarArbiter {
 public:
  explicit ModelArbiter(const ArbiterParams& p) : p_(p), next_(p.outputs, 0) {}
  std::uint32_t grant(std::uint32_t output, const std::vector<std::uint64_t>& requests, std::uint64_t cycle) override;
  void done(std::uint32_t output, std::uint32_t input) override;
  std::uint32_t firstConsidered(std::uint32_t output) const override { return p_.round_robin ? next_[output] : 0; }

 private:
  ArbiterParams p_;
  std::vector<std::uint32_t> next_;
};

// The RTL implementation's factory, registered by rtl/ when it is linked in. Throws
// std::invalid_argument when the RTL cannot honour a parameter.
using ArbiterFactory =
    std::function<std::unique_ptr<CrossbarArbiter>(const ArbiterParams& params, const std::string& instance)>;
void registerRtlCrossbarArbiter(ArbiterFactory factory);

// impl: "model", "rtl" or "cosim" (both; the model's grant is used, the first difference kept).
std::unique_ptr<CrossbarArbiter> makeCrossbarArbiter(const std::string& impl, const ArbiterParams& params,
                                                     const std::string& instance);

}  // namespace scgpu::memsys
