// A memory transaction as it travels SM -> crossbar -> L2 slice -> DRAM channel and back. It
// carries no data: values are exact in the functional core; the timing model moves only the
// bytes' timing. Between blocks it rides in a tlm_generic_payload (tlm/payload.h).
#pragma once

#include <cstdint>

namespace scgpu::memsys {

enum class MemOp : std::uint8_t {
  Read,      // load (sectors in sector_mask)
  Write,     // store (write-through from L1, or L2 write-back to DRAM)
  Atomic,    // read-modify-write executed at the L2 slice
  Fetch,     // instruction fetch (icache miss)
};

struct MemRequest {
  std::uint64_t id = 0;            // unique within a run, assigned by the initiator
  MemOp op = MemOp::Read;
  std::uint64_t addr = 0;          // address of the 128-byte line (aligned), or of the access
  std::uint32_t sector_mask = 0;   // 32-byte sectors of the line touched (bit i = sector i)
  std::uint32_t bytes = 0;         // payload bytes this transaction carries (data, not header)
  std::uint16_t sm = 0;            // source SM: routes the response back
  std::uint16_t warp = 0;          // warp slot in the SM (statistics and tracing)
  std::uint32_t tag = 0;           // the initiator's own cookie (e.g. its MSHR index)
  std::uint64_t issue_cycle = 0;   // core cycle the SM sent it (latency statistics)
  bool response = false;           // false on the way out, true on the way back
  bool needs_response = true;      // writes from L2 write-back need none
  // Atomic: lane updates of the most-updated address in this request. The slice's atomic unit
  // serialises updates to one address, so 32 lanes adding to one counter cost 32 updates.
  std::uint16_t atomic_ops = 1;
  bool atomic_integer = false;     // integer add/min/max/and/or/xor/inc/dec (l2.integer_atomic_op_cycles)
  // Write from an SM: the 4-byte words of the line it writes (bit w: bytes 4w .. 4w+3; a byte or
  // half-word store marks its whole word). 0: not known, every sector of sector_mask written whole.
  // The L2 tells whole sectors from partly written ones by it (l2.write_*_cycles, partial fills).
  std::uint32_t word_mask = 0;
};

// The words of sector s of a line (8 words of 4 bytes per 32-byte sector).
inline std::uint32_t sectorWords(std::uint32_t sector) { return 0xFFu << (8 * sector); }

inline std::uint32_t sectorCount(std::uint32_t mask) { return std::uint32_t(__builtin_popcount(mask)); }

}  // namespace scgpu::memsys
