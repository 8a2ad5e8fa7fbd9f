// The tag and MSHR stage of an L2 slice: the sectored tag array (valid and dirty bit per sector),
// the replacement policy, and the MSHRs (allocate, merge, fill, complete). A block boundary of its
// own so that an RTL version can take its place (rtl/l2_tag_mshr.sv): `l2.impl: model | rtl | cosim`.
// The slice (memsys/l2_slice.h) calls it once per tag operation and keeps the data path: request
// queue, latency pipes, atomic unit, DRAM traffic, and the waiting requests themselves, in a target
// store addressed by (MSHR entry, slot) as this stage hands them out.
//
// Operations (one per call; each is one RTL clock):
//   Read, Atomic  a lookup whose sectors must be present: Hit, or Miss (a new MSHR entry; read
//                 dram_mask from DRAM), Merge (into the line's entry; read dram_mask, the sectors not
//                 yet requested), or a stall that changes nothing: MshrFull (no free entry) or
//                 MergeFull (the entry holds mshr_max_merge requests). An atomic hit marks its sectors
//                 dirty (write-back). mshr/count: the entry and the request's slot in it.
//   Write         full-sector write: hit sectors become dirty (write-back); with allocate_on_write the
//                 missing ones are installed (dirty under write-back), evicting a line if needed.
//                 Hit or WriteMiss.
//   Fill          sectors back from DRAM: installed (evicting a line if the line is absent); the
//                 line's entry stops waiting for them: Fill, or FillDone when none is left (the entry
//                 is freed; count: its requests, slots 0 .. count-1 in arrival order). error: the
//                 sectors were not outstanding for a pending line (nothing changes).
//   Update        an atomic whose line was just filled executes: its sectors become dirty (write-back)
//                 and the line most recently used. Hit or WriteMiss (the line was evicted meanwhile).
// line_present, hit_mask and miss_mask describe the line before the operation, for every operation.
// Replacement: an invalid way first (the lowest), else the least recently used (lru) or the first
// installed (fifo) line. MSHR entries: the lowest free index.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "memsys/memsys_params.h"
#include "memsys/sector_cache.h"

namespace scgpu::memsys {

struct L2TagParams {
  CacheParams cache;  // sets and ways from size_bytes, line_bytes and associativity
};

enum class L2TagOp : std::uint8_t { Read, Atomic, Write, Fill, Update };
enum class L2TagOutcome : std::uint8_t { Hit, Miss, Merge, MshrFull, MergeFull, WriteMiss, Fill, FillDone };
const char* toString(L2TagOp op);
const char* toString(L2TagOutcome outcome);

struct L2TagRequest {
  L2TagOp op = L2TagOp::Read;
  std::uint64_t line = 0;  // line address (aligned)
  std::uint32_t mask = 0;  // sectors of the line
};

struct L2TagResult {
  L2TagOutcome outcome = L2TagOutcome::Hit;
  bool line_present = false;
  std::uint32_t hit_mask = 0, miss_mask = 0;
  std::uint32_t dram_mask = 0;  // Miss, Merge: sectors to read from DRAM now
  std::uint32_t mshr = 0;       // Miss, Merge, MergeFull, Fill, FillDone: the entry
  std::uint32_t count = 0;      // Miss, Merge, MergeFull: the request's slot; FillDone: requests
  bool victim = false;          // a valid line was evicted
  std::uint64_t victim_line = 0;
  std::uint32_t victim_dirty = 0;  // its dirty sectors, to write back
  bool error = false;
  bool operator==(const L2TagResult& o) const;
  bool operator!=(const L2TagResult& o) const { return !(*this == o); }
};

class L2TagMshr {
 public:
  virtual ~L2TagMshr() = default;
  virtual L2TagResult operate(const L2TagRequest& req, std::uint64_t cycle) = 0;
  // Co-simulation: the first operation on which the RTL differed from the model (null otherwise).
  virtual const std::string* divergence() const { return nullptr; }
  // Drops every line (not the MSHRs); false where the stage cannot (a Verilated tag array).
  virtual bool invalidateAll() { return false; }
  // rtl-verif, used by cosim only (an implementation that keeps no waveform ignores them):
  // keepWaveform() asks the RTL to keep the window of its last cycles from now on; expect() gives
  // it the model's answer to the operation about to be made, for the waveform's model side;
  // writeWaveform() writes the window (stem.fst, stem.gtkw) and returns the report's lines about
  // it ("" when it keeps none).
  virtual void keepWaveform() {}
  virtual void expect(const L2TagResult& /*model_result*/) {}
  virtual std::string writeWaveform(const std::string& /*stem*/) { return ""; }
};

// The C++ model: SectorCache for the tags, an indexed MSHR table beside it.
class ModelL2TagMshr : public L2TagMshr {
 public:
  // Throws std::invalid_argument on inconsistent cache parameters.
  explicit ModelL2TagMshr(const L2TagParams& p);
  L2TagResult operate(const L2TagRequest& req, std::uint64_t cycle) override;
  bool invalidateAll() override {
    cache_.invalidateAll();
    return true;
  }

 private:
  struct Entry {
    std::uint64_t line = 0;
    std::uint32_t requested = 0, outstanding = 0, count = 0;
  };
  L2TagParams p_;
  SectorCache cache_;
  bool write_back_;
  // Entries grow on demand (a config may allow 65536 per slice): those below entries_.size() are in
  // use or in free_, those above are free, so the lowest free one is free_'s first, else the next.
  std::vector<Entry> entries_;
  std::map<std::uint64_t, std::uint32_t> by_line_;  // line -> entry
  std::set<std::uint32_t> free_;                    // freed entries below entries_.size(), lowest first
};

// The RTL implementation's factory, registered by rtl/ when it is linked in. Throws
// std::invalid_argument when the RTL cannot honour a parameter.
using L2TagFactory = std::function<std::unique_ptr<L2TagMshr>(const L2TagParams& params, const std::string& instance)>;
void registerRtlL2TagMshr(L2TagFactory factory);

// impl: "model", "rtl" or "cosim" (both; the model's result is used, the first difference kept).
std::unique_ptr<L2TagMshr> makeL2TagMshr(const std::string& impl, const L2TagParams& params,
                                         const std::string& instance);

}  // namespace scgpu::memsys
