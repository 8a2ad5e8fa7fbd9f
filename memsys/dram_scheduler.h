// The DRAM channel's command scheduler: which command (ACT, PRE, RD, WR, REF or none) the
// controller issues in a DRAM command-clock cycle. A block boundary of its own so that an RTL
// version can take its place (rtl/dram_cmd_sched.sv): `dram.impl: model | rtl | cosim`.
//
// Behind the boundary: the read and write queues of bursts (each known by its bank, row, a tag
// the channel gave it, and the cycle from which it may be scheduled), the per-bank state (open
// row) and every timing constraint (tRCD, tRP, tRAS, tRC, tCCD_S/L, tRRD_S/L, tFAW, tWTR, tRTW,
// tWR, tRTP, the data bus, refresh tREFI/tRFC), FR-FCFS or FCFS, the write-drain watermarks and
// the open or closed page policy. In front of it (memsys/dram_channel.cpp): splitting requests
// into bursts, address mapping, queue admission, responses and statistics. The channel enqueues a
// burst the cycle it accepts the request, and calls step() for the cycles in which a command may
// issue (every cycle from wake() on); a RD/WR removes its burst from the queue.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "memsys/memsys_params.h"

namespace scgpu::memsys {

// The scheduler's view of DramParams (memsys_params.h), already checked by DramChannel.
struct DramSchedParams {
  std::uint32_t bank_groups = 4, banks_per_group = 4;
  std::uint32_t read_queue_entries = 32, write_queue_entries = 32;  // bursts (admission is the channel's)
  std::uint32_t write_drain_high_watermark = 24, write_drain_low_watermark = 8;
  bool fr_fcfs = true, closed_page = false, refresh = true;
  std::uint32_t rows = 16384;
  std::uint32_t burst_cycles = 1;  // data-bus cycles per burst
  std::uint32_t controller_latency_cycles = 4;
  DramTimingParams timing;
  static DramSchedParams from(const DramParams& p);
};

// One burst entering a queue.
struct DramSchedRequest {
  std::uint32_t tag = 0;  // the channel's name for it, returned in the commands served for it
  std::uint32_t bank = 0; // flat bank index: bank_group * banks_per_group + bank
  std::uint32_t row = 0;
  bool write = false;       // write queue (else read queue)
  std::uint64_t ready = 0;  // first cycle it may be scheduled (the channel's arrival pipeline)
};

// The command issued in one cycle.
struct DramSchedCommand {
  enum Kind : std::uint8_t { None = 0, Act = 1, Pre = 2, Rd = 3, Wr = 4, Ref = 5 } kind = None;
  static constexpr std::uint32_t kAllBanks = 0xffffffffu;
  static constexpr std::uint32_t kNoTag = 0xffffffffu;
  std::uint32_t bank = 0;      // kAllBanks for Ref
  std::uint32_t row = 0;       // Act: the row opened; Rd/Wr: the row accessed; else 0
  std::uint32_t tag = kNoTag;  // the burst the command serves (Act, Pre, Rd, Wr); kNoTag for Ref and refresh's Pre
  bool operator==(const DramSchedCommand& o) const {
    return kind == o.kind && bank == o.bank && row == o.row && tag == o.tag;
  }
  bool operator!=(const DramSchedCommand& o) const { return !(*this == o); }
};
const char* dramCommandName(DramSchedCommand::Kind k);

class DramScheduler {
 public:
  static constexpr std::uint64_t kNever = ~0ull;
  virtual ~DramScheduler() = default;
  // A burst joins its queue; it takes part in the decision of the next step(). Ready cycles do
  // not decrease from one enqueue to the next (the arrival pipeline is in order): a bank's older
  // bursts are ready whenever a younger one is, which the RTL's oldest-first selection relies on.
  virtual void enqueue(const DramSchedRequest& r) = 0;
  // The decision of cycle t (t later than the last step's; no command could have issued in the
  // cycles skipped since, as wake() said). A RD/WR leaves the queue.
  virtual DramSchedCommand step(std::uint64_t t) = 0;
  // No command can issue before this cycle unless a burst is enqueued first. The model computes
  // a lower bound (so the channel visits only the cycles where something happens); a clocked RTL
  // must see every cycle.
  virtual std::uint64_t wake() const = 0;
  // Co-simulation: the first cycle on which the RTL's command differed from the model's.
  virtual const std::string* divergence() const { return nullptr; }
  // rtl-verif, used by cosim only (an implementation that keeps no waveform ignores them):
  // keepWaveform() asks the RTL to keep the window of its last cycles from now on; expect() gives
  // it the model's answer to the step about to be made, for the waveform's model side;
  // writeWaveform() writes the window (stem.fst, stem.gtkw) and returns the report's lines about
  // it ("" when it keeps none).
  virtual void keepWaveform() {}
  virtual void expect(const DramSchedCommand& /*model_command*/) {}
  virtual std::string writeWaveform(const std::string& /*stem*/) { return ""; }
};

// The RTL implementation's factory, registered by rtl/ when it is linked in. Throws
// std::invalid_argument when the RTL cannot honour a parameter.
using DramSchedulerFactory =
    std::function<std::unique_ptr<DramScheduler>(const DramSchedParams& params, const std::string& instance)>;
void registerRtlDramScheduler(DramSchedulerFactory factory);

// impl: "model", "rtl" or "cosim" (both; the model's command is used, the first difference kept).
std::unique_ptr<DramScheduler> makeDramScheduler(const std::string& impl, const DramSchedParams& params,
                                                 const std::string& instance);
// The C++ model alone (the block testbench runs it beside the RTL).
std::unique_ptr<DramScheduler> makeModelDramScheduler(const DramSchedParams& params);

}  // namespace scgpu::memsys
