#include "cudart/fatbin.h"

#include <cstring>

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

namespace scgpu::cudart {
namespace {

constexpr std::uint32_t kContainerMagic = 0xBA55ED50u;
constexpr std::size_t kContainerHeaderBytes = 16;
constexpr std::size_t kEntryHeaderMinBytes = 64;
constexpr std::uint16_t kKindPtx = 1, kKindElf = 2;
// Entry flags: how the payload is compressed.
constexpr std::uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;
// Set on nvcc 13's sm_90a ELF and compute_90a PTX entries (not on compute_90's).
constexpr std::uint64_t kFlagArchSpecific = 0x100000;

template <typename T> T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string decompress(const std::uint8_t* src, std::size_t src_bytes, std::uint64_t flags, std::uint64_t out_bytes,
                       std::size_t max_text_bytes, std::size_t entry_offset) {
  if (out_bytes > max_text_bytes)
    throw FatbinError(fmt::format("fat binary entry at offset {}: {} bytes of PTX once decompressed, above the "
                                  "limit of {} (--limit ptx_bytes)",
                                  entry_offset, out_bytes, max_text_bytes));
  std::string out(out_bytes, '\0');
  if (flags & kFlagLz4) {
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src), out.data(), int(src_bytes), int(out_bytes));
    if (n < 0 || std::uint64_t(n) != out_bytes)
      throw FatbinError(fmt::format("fat binary entry at offset {}: the LZ4 payload does not decompress to its "
                                    "recorded {} bytes",
                                    entry_offset, out_bytes));
  } else {
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), src, src_bytes);
    if (ZSTD_isError(n) || n != out_bytes)
      throw FatbinError(fmt::format("fat binary entry at offset {}: the Zstandard payload does not decompress to its "
                                    "recorded {} bytes ({})",
                                    entry_offset, out_bytes, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size differs"));
  }
  return out;
}

}  // namespace

std::uint64_t fatbinContainerBytes(const void* container) {
  const auto* p = static_cast<const std::uint8_t*>(container);
  if (load<std::uint32_t>(p) != kContainerMagic)
    throw FatbinError(fmt::format("not a fat binary: magic 0x{:08x}, expected 0x{:08x}", load<std::uint32_t>(p),
                                  kContainerMagic));
  const std::uint16_t header = load<std::uint16_t>(p + 6);
  if (header < kContainerHeaderBytes) throw FatbinError(fmt::format("fat binary header of {} bytes", header));
  return std::uint64_t(header) + load<std::uint64_t>(p + 8);
}

std::vector<FatbinEntry> parseFatbin(const void* data, std::size_t bytes, std::size_t max_text_bytes) {
  const auto* base = static_cast<const std::uint8_t*>(data);
  if (bytes < kContainerHeaderBytes) throw FatbinError(fmt::format("fat binary of {} bytes: no header", bytes));
  const std::uint64_t total = fatbinContainerBytes(data);
  if (total > bytes)
    throw FatbinError(fmt::format("fat binary says it holds {} bytes, but only {} are there", total, bytes));
  std::vector<FatbinEntry> entries;
  std::uint64_t at = load<std::uint16_t>(base + 6);
  while (at < total) {
    if (total - at < kEntryHeaderMinBytes)
      throw FatbinError(fmt::format("fat binary entry at offset {}: {} bytes left, a header needs {}", at, total - at,
                                    kEntryHeaderMinBytes));
    const std::uint8_t* e = base + at;
    const std::uint16_t kind = load<std::uint16_t>(e);
    const std::uint32_t header = load<std::uint32_t>(e + 4);
    const std::uint64_t payload = load<std::uint64_t>(e + 8);
    if (header < kEntryHeaderMinBytes || header > total - at || payload > total - at - header)
      throw FatbinError(fmt::format("fat binary entry at offset {}: header of {} and payload of {} bytes run past "
                                    "the container's {} bytes",
                                    at, header, payload, total));
    const std::uint32_t compressed_bytes = load<std::uint32_t>(e + 16);
    const std::uint16_t minor = load<std::uint16_t>(e + 24), major = load<std::uint16_t>(e + 26);
    const std::uint64_t flags = load<std::uint64_t>(e + 40);
    const std::uint64_t decompressed_bytes = load<std::uint64_t>(e + 56);

    FatbinEntry entry;
    entry.kind = kind == kKindPtx ? FatbinEntry::Kind::Ptx : kind == kKindElf ? FatbinEntry::Kind::Elf
                                                                              : FatbinEntry::Kind::Other;
    entry.arch = load<std::uint32_t>(e + 28);
    entry.ptx_version = major * 10u + minor;
    entry.compressed = (flags & (kFlagLz4 | kFlagZstd)) != 0;
    entry.arch_specific = (flags & kFlagArchSpecific) != 0;
    if (entry.kind == FatbinEntry::Kind::Ptx) {
      const std::uint8_t* p = e + header;
      if (entry.compressed) {
        const std::uint64_t in = compressed_bytes && compressed_bytes <= payload ? compressed_bytes : payload;
        entry.text = decompress(p, in, flags, decompressed_bytes, max_text_bytes, at);
      } else {
        if (payload > max_text_bytes)
          throw FatbinError(fmt::format("fat binary entry at offset {}: {} bytes of PTX, above the limit of {}", at,
                                        payload, max_text_bytes));
        entry.text.assign(reinterpret_cast<const char*>(p), payload);
      }
      const std::size_t nul = entry.text.find('\0');
      if (nul != std::string::npos) entry.text.resize(nul);
    }
    entries.push_back(std::move(entry));
    at += header + payload;
  }
  return entries;
}

const FatbinEntry* bestPtx(const std::vector<FatbinEntry>& entries, unsigned arch) {
  const FatbinEntry* best = nullptr;
  for (const FatbinEntry& e : entries) {
    if (e.kind != FatbinEntry::Kind::Ptx || e.arch > arch || (e.arch_specific && e.arch != arch)) continue;
    if (!best || e.arch > best->arch || (e.arch == best->arch && e.arch_specific && !best->arch_specific)) best = &e;
  }
  return best;
}

}  // namespace scgpu::cudart
