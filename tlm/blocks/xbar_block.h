// The crossbar as a SystemC block: request links in from every SM and out to every L2 slice,
// response links in from every slice and out to every SM; ticked by the interconnect clock.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "memsys/crossbar.h"
#include "tlm/clock_domain.h"
#include "tlm/mem_link.h"

namespace scgpu {

class XbarBlock : public sc_core::sc_module {
 public:
  XbarBlock(sc_core::sc_module_name name, const CrossbarParams& p, std::uint32_t sms, std::uint32_t slices,
            const memsys::AddressMap& map, StatsRegistry& stats, ClockDomain& icnt);
  memsys::Crossbar xbar;
  std::vector<std::unique_ptr<MemIn>> req_in;     // from SM i
  std::vector<std::unique_ptr<MemOut>> req_out;   // to slice j
  std::vector<std::unique_ptr<MemIn>> resp_in;    // from slice j
  std::vector<std::unique_ptr<MemOut>> resp_out;  // to SM i

 private:
  void transfer();
  ClockDomain& domain_;
  // The inputs whose link holds a message the crossbar refused (a flag per input, and their
  // number): only they need a retry, and most cycles there are none among the 212 links.
  struct Holders {
    std::vector<char> holding;
    std::uint32_t count = 0;
    std::uint64_t seen_room_events = ~std::uint64_t{0};
    void refused(std::size_t input) {
      if (!holding[input]) ++count;
      holding[input] = 1;
    }
    // Retries the holding links in input order, as when every link was asked, skipping those
    // whose port has no room (`room(i)`: they would be refused again; under a queue of atomics
    // to one slice every SM's link waits so, and asking each link cost more than the crossbar).
    // `room_events` (Crossbar::responseRoomEvents) unchanged since the last look: no port gained
    // room, so none would take its message.
    template <typename Room>
    void retry(std::vector<std::unique_ptr<MemIn>>& inputs, Room&& room, std::uint64_t room_events) {
      if (!count || room_events == seen_room_events) return;
      seen_room_events = room_events;
      for (std::size_t i = 0; i < inputs.size() && count; ++i) retryOne(inputs, room, i);
    }
    // The same for inputs whose room is their own (requests): only those in `drained` (a bitset of
    // the inputs that gained room since the last look) are asked, in input order. Under a queue of
    // atomics to one slice a flit leaves some input every few cycles, and asking all 132 links
    // each time cost more than the crossbar's own work.
    template <typename Room>
    void retryDrained(std::vector<std::unique_ptr<MemIn>>& inputs, Room&& room, const std::vector<std::uint64_t>& drained) {
      for (std::size_t w = 0; w < drained.size() && count; ++w)
        for (std::uint64_t bits = drained[w]; bits && count; bits &= bits - 1)
          retryOne(inputs, room, w * 64 + std::size_t(__builtin_ctzll(bits)));
    }
    // Input i's held message, offered again if its port has room.
    template <typename Room>
    void retryOne(std::vector<std::unique_ptr<MemIn>>& inputs, Room& room, std::size_t i) {
      if (!holding[i] || !room(i)) return;
      inputs[i]->retry();
      if (!inputs[i]->holding()) {
        holding[i] = 0;
        --count;
      }
    }
  };
  Holders req_held_, resp_held_;
};

}  // namespace scgpu
