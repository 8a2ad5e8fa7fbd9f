// Parameters of the memory-system blocks, filled from YAML by tlm/gpu_params.cpp. Field names
// are the YAML keys; units are in the names.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace scgpu {

struct CacheParams {
  std::uint64_t size_bytes = 0;
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 32;
  std::uint32_t associativity = 4;
  std::uint32_t hit_latency_cycles = 1;
  std::uint32_t mshr_entries = 32;        // outstanding line misses
  std::uint32_t mshr_max_merge = 8;       // requests merged into one MSHR
  std::string replacement = "lru";        // lru | fifo
  std::string write_policy = "write_through";  // write_through | write_back
  bool allocate_on_write = false;
};

struct CrossbarParams {
  std::uint32_t flit_bytes = 32;
  // The response network's flit (L2 to SM: fills, acknowledgements), when it differs; 0: flit_bytes.
  std::uint32_t response_flit_bytes = 0;
  std::uint32_t responseFlitBytes() const { return response_flit_bytes ? response_flit_bytes : flit_bytes; }
  std::uint32_t latency_cycles = 8;              // traversal, in interconnect cycles
  std::uint32_t input_buffer_flits = 64;         // per input port
  std::uint32_t output_buffer_flits = 64;        // per output port
  std::string arbitration = "round_robin";       // round_robin | fixed_priority
  // Packets at the front of an input's queue that outputs may take, one packet per input at a time
  // and in order per output; 1: a FIFO (head-of-line blocking).
  std::uint32_t input_window_packets = 1;
  // Each network's window when it differs (0: input_window_packets): the request network's inputs
  // are the SMs', the response network's the slices' (and their copy inputs).
  std::uint32_t request_window_packets = 0, response_window_packets = 0;
  std::uint32_t request_header_bytes = 8;        // a read request's size on the wire
  // A read response whose line's data is still in its slice's output buffer (the response
  // network's input: an earlier response for the same line to another SM, not yet switched) goes
  // out from there to its SM too: it takes none of the slice's port, only the SM's (each SM port has
  // a second input for such copies).
  bool multicast_responses = false;
  // ... or whose line the slice sent to another SM at most this many cycles before (the GH100
  // serves two to sixteen SMs streaming the same lines from the L2 at the SMs' port rate).
  std::uint32_t multicast_window_cycles = 0;
  std::string impl = "model";                    // switch allocators: model | rtl | cosim (docs/rtl-cosim.md)
  // Each network's allocator alone (`crossbar.request.impl`, `crossbar.response.impl`); empty: as
  // `impl` (the config check fills them in, so the effective config shows what is built).
  std::string request_impl, response_impl;
  const std::string& requestImpl() const { return request_impl.empty() ? impl : request_impl; }
  const std::string& responseImpl() const { return response_impl.empty() ? impl : response_impl; }
};

struct L2Params {
  std::uint32_t slices = 2;
  CacheParams cache;                             // per slice: size_bytes is per slice
  std::uint32_t atomic_latency_cycles = 4;       // extra cycles of an atomic at the slice
  std::uint32_t atomic_request_cycles = 1;       // cycles the atomic unit spends per request (at least)
  double atomic_op_cycles = 1;                   // cycles the atomic unit spends per update of one address
  std::uint32_t integer_atomic_op_cycles = 1;    // the same for integer reductions (add, min, max, and, ...)
  double atomic_cycles_per_sector = 0.0;         // ... and per 32-byte sector a request updates (fractions accumulate)
  // ... more per sector when the request's line is not among the last atomic_unit_lines lines the
  // unit worked on (most recent first)
  double atomic_line_change_cycles_per_sector = 0.0;
  std::uint32_t atomic_unit_lines = 1;
  // Atomics waiting for the unit (looked up, not yet started): with this many the lookup stage
  // holds the next atomic at the head of the request queue. 0: no limit (the unit's backlog only
  // delays results).
  std::uint32_t atomic_queue_entries = 0;
  // A read (or instruction fetch) that misses fetches its missing sectors in aligned pieces of this many bytes:
  // the other sectors of a piece come along (looked up as a request of their own that nothing waits
  // for) and are filled too. The sector size (or 0): only the sectors asked for.
  std::uint32_t dram_fetch_granule_bytes = 0;
  // At most this many dirty lines a set (write_back): a write that would make one more dirty
  // writes the set's least recently written dirty line back to DRAM first, and that line stays
  // valid and clean. 0: no limit (lines are written back only when evicted).
  std::uint32_t max_dirty_ways = 0;
  // A write holds the slice's lookup stage max(write_request_cycles, its sectors x the cycles of a
  // whole or a partly written sector) interconnect cycles (fractions accumulate); reads take one.
  double write_request_cycles = 1.0;
  double write_cycles_per_sector = 0.0;
  double write_cycles_per_partial_sector = 0.0;
  // A sector allocated by a write that did not cover it whole is filled from DRAM before it is
  // written back (the DRAM's ECC words need every byte): an evicted line's partly written dirty
  // sectors cost a DRAM read before their write.
  bool partial_sector_fill = false;
  std::uint32_t request_queue_entries = 32;
  std::string hash = "xor";                      // linear | xor
  std::uint32_t interleave_bytes = 256;          // consecutive bytes mapped to one slice
  std::string impl = "model";                    // tag/MSHR stage: model | rtl | cosim (docs/rtl-cosim.md)
  // Per-instance choices (`l2[3].impl`: slice 3's tag/MSHR stage), by slice; `impl` for the rest.
  std::map<std::uint32_t, std::string> impl_of;
  const std::string& implOf(std::uint32_t slice) const {
    auto it = impl_of.find(slice);
    return it == impl_of.end() ? impl : it->second;
  }
};

struct DramTimingParams {
  // In DRAM command-clock cycles (tCK = 1 / clocks.dram_clock_mhz).
  std::uint32_t tRCD = 12, tRP = 12, tRAS = 28, tRC = 40, tCL = 12, tCWL = 8;
  std::uint32_t tCCD_S = 2, tCCD_L = 4, tRRD_S = 4, tRRD_L = 6, tFAW = 16;
  std::uint32_t tWTR = 5, tRTW = 6, tWR = 12, tRTP = 4, tREFI = 3900, tRFC = 180;
  std::uint32_t burst_length = 16;               // transfers per access
};

struct DramParams {
  std::string standard = "gddr6";                // gddr5 | gddr6 | hbm2 | hbm3 (names the preset)
  std::uint32_t channels = 1;
  std::uint32_t bank_groups = 4;
  std::uint32_t banks_per_group = 4;
  std::uint32_t rows = 16384;
  std::uint32_t row_bytes = 2048;                // page size per bank
  std::uint32_t bus_width_bits = 32;             // per channel
  std::uint32_t transfers_per_clock = 2;         // data rate per command clock (DDR = 2)
  std::uint32_t access_bytes = 32;               // bytes moved by one RD/WR (bus width x burst length / 8)
  std::uint32_t read_queue_entries = 32;
  std::uint32_t write_queue_entries = 32;
  std::uint32_t write_drain_high_watermark = 24;
  std::uint32_t write_drain_low_watermark = 8;
  std::string scheduler = "fr_fcfs";             // fr_fcfs | fcfs
  std::string page_policy = "open";              // open | closed
  bool refresh = true;
  std::string address_mapping = "row_bank_column";  // row_bank_column | row_column_bank
  // row_column_bank only: consecutive channel-local bytes that stay in one bank and row before the
  // next bank group (a multiple of access_bytes, at most row_bytes): access_bytes rotates every
  // access; more keeps a chunk's accesses in one open row.
  std::uint32_t bank_interleave_bytes = 32;
  bool bank_xor_row = false;                     // permute bank and bank group with the row's low bits
  std::uint32_t channel_interleave_bytes = 256;
  std::uint32_t controller_latency_cycles = 4;   // queueing pipeline, in DRAM cycles, each way
  std::string impl = "model";                    // command scheduler: model | rtl | cosim (docs/rtl-cosim.md)
  // Per-instance choices (`dram[3].impl`: channel 3's command scheduler), by channel; `impl` for the rest.
  std::map<std::uint32_t, std::string> impl_of;
  const std::string& implOf(std::uint32_t channel) const {
    auto it = impl_of.find(channel);
    return it == impl_of.end() ? impl : it->second;
  }
  DramTimingParams timing;
};

// Address translation's timing (memsys/tlb.h): an L1 TLB per SM, one L2 TLB shared by all SMs, and
// a page walk after a miss in both. Values for the hopper preset come from docs/validation.md "TLB".
struct MmuParams {
  bool enabled = false;                          // off: global accesses pay no translation cycles
  std::uint64_t page_bytes = 2ull << 20;         // what one TLB entry covers
  std::uint32_t l1_tlb_entries = 16;             // per SM
  std::uint32_t l1_tlb_associativity = 16;
  std::uint32_t l2_tlb_entries = 512;            // shared by all SMs
  std::uint32_t l2_tlb_associativity = 16;
  std::uint32_t l2_tlb_hit_latency_cycles = 10;  // extra core cycles of an L1 TLB miss that hits the L2 TLB
  std::uint32_t walk_latency_cycles = 400;       // extra core cycles of a miss in both (page walk)
};

}  // namespace scgpu
