// The fat binary nvcc embeds in a program (.nv_fatbin): a container of entries, each a PTX text or
// an ELF cubin for one architecture, possibly compressed (LZ4 block or Zstandard frame: nvcc 13
// compresses by default). scgpu runs PTX, so it takes the PTX entries out and picks the one for
// the configured architecture, as the CUDA driver does when it JIT-compiles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace scgpu::cudart {

// A fat binary that does not parse: a bad magic, an entry running past its container, a payload
// that does not decompress to its recorded size.
class FatbinError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FatbinEntry {
  enum class Kind { Ptx, Elf, Other };
  Kind kind = Kind::Other;
  unsigned arch = 0;             // 75 for sm_75 / compute_75
  std::uint32_t ptx_version = 0; // major * 10 + minor of the entry header (PTX ISA version)
  bool compressed = false;
  // sm_90a / compute_90a: architecture-specific features (wgmma), for exactly that architecture.
  bool arch_specific = false;
  std::string text;              // PTX entries: the decompressed text (NULs at the end removed)
};

// The container header's size and the whole container's size in bytes (header included), read
// from the first 16 bytes; throws FatbinError for a bad magic or version.
std::uint64_t fatbinContainerBytes(const void* container);

// Every entry of the container at `data`, which holds `bytes` bytes. PTX payloads are decompressed
// (at most `max_text_bytes` each); ELF entries are listed without their payload.
std::vector<FatbinEntry> parseFatbin(const void* data, std::size_t bytes, std::size_t max_text_bytes);

// The PTX entry to run on a device of compute capability `arch` (90 for sm_90): the highest
// architecture not above it, as the driver JIT-compiles, its architecture-specific PTX (compute_90a,
// which nvcc -arch=sm_90a embeds beside plain compute_90) first when it is the device's own: the
// simulated device has sm_90a's features; null when every PTX entry is for a newer architecture or
// there is none.
const FatbinEntry* bestPtx(const std::vector<FatbinEntry>& entries, unsigned arch);

}  // namespace scgpu::cudart
