#include "memsys/address_map.h"

#include <stdexcept>
#include <string>

namespace scgpu::memsys {
namespace {

bool isPow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::uint32_t ceilLog2(std::uint64_t v) {
  std::uint32_t b = 0;
  while ((std::uint64_t(1) << b) < v) ++b;
  return b;
}

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("address map: " + what); }

}  // namespace

AddressMap::AddressMap(const L2Params& l2, const DramParams& dram) : slices_(l2.slices), channels_(dram.channels) {
  if (slices_ == 0) bad("l2.slices must be at least 1");
  if (channels_ == 0) bad("dram.channels must be at least 1");
  if (slices_ % channels_ != 0 && channels_ % slices_ != 0)
    bad("l2.slices (" + std::to_string(slices_) + ") and dram.channels (" + std::to_string(channels_) +
        ") must divide one another: each channel serves a whole number of slices or each slice a whole number of "
        "channels");
  if (!isPow2(l2.interleave_bytes))
    bad("l2.interleave_bytes must be a power of two, got " + std::to_string(l2.interleave_bytes));
  if (!isPow2(dram.channel_interleave_bytes) || dram.channel_interleave_bytes > l2.interleave_bytes)
    bad("dram.channel_interleave_bytes (" + std::to_string(dram.channel_interleave_bytes) +
        ") must be a power of two no larger than l2.interleave_bytes (" + std::to_string(l2.interleave_bytes) +
        "): channels are interleaved through the slices that own them");
  if (l2.hash == "linear")
    xor_ = false;
  else if (l2.hash == "xor")
    xor_ = true;
  else
    bad("l2.hash must be linear or xor, got '" + l2.hash + "'");
  shift_ = ceilLog2(l2.interleave_bytes);
  channel_shift_ = ceilLog2(dram.channel_interleave_bytes);
  slice_bits_ = ceilLog2(slices_);
  pow2_slices_ = isPow2(slices_);
}

std::uint64_t AddressMap::fold(std::uint64_t high) const {
  if (slice_bits_ == 0) return 0;
  const std::uint64_t mask = (std::uint64_t(1) << slice_bits_) - 1;
  std::uint64_t h = 0;
  for (; high != 0; high >>= slice_bits_) h ^= high & mask;
  return h;
}

std::uint32_t AddressMap::sliceOf(std::uint64_t addr) const {
  const std::uint64_t chunk = addr >> shift_;
  if (!xor_ || slices_ == 1) return std::uint32_t(chunk % slices_);
  if (pow2_slices_) return std::uint32_t((chunk ^ fold(chunk >> slice_bits_)) & (slices_ - 1));
  return std::uint32_t((chunk % slices_ + fold(chunk / slices_)) % slices_);
}

std::uint32_t AddressMap::channelOfSlice(std::uint32_t slice) const {
  return slices_ >= channels_ ? slice / (slices_ / channels_) : slice * (channels_ / slices_);
}

std::uint64_t AddressMap::sliceUnit(std::uint64_t addr) const {
  // Each aligned group of `slices` chunks gives each slice one chunk; its channel-sized pieces are
  // the slice's units, numbered densely.
  const std::uint64_t chunk = addr >> shift_;
  const std::uint32_t per_chunk_bits = shift_ - channel_shift_;
  const std::uint64_t piece = (addr >> channel_shift_) & ((std::uint64_t(1) << per_chunk_bits) - 1);
  return ((chunk / slices_) << per_chunk_bits) | piece;
}

std::uint32_t AddressMap::channelOf(std::uint64_t addr) const {
  const std::uint32_t slice = sliceOf(addr);
  if (slices_ >= channels_) return slice / (slices_ / channels_);
  const std::uint32_t cps = channels_ / slices_;
  return slice * cps + std::uint32_t(sliceUnit(addr) % cps);
}

std::uint64_t AddressMap::channelLocal(std::uint64_t addr) const {
  const std::uint64_t offset = addr & ((std::uint64_t(1) << channel_shift_) - 1);
  const std::uint64_t unit = sliceUnit(addr);
  std::uint64_t local;
  if (slices_ >= channels_) {
    // A channel's slices take turns, a chunk (its units) each.
    const std::uint32_t spc = slices_ / channels_;
    const std::uint32_t per_chunk_bits = shift_ - channel_shift_;
    const std::uint64_t group = unit >> per_chunk_bits, piece = unit & ((std::uint64_t(1) << per_chunk_bits) - 1);
    local = (((group * spc + sliceOf(addr) % spc)) << per_chunk_bits) | piece;
  } else {
    // A slice deals its units over its channels in turn.
    local = unit / (channels_ / slices_);
  }
  return (local << channel_shift_) | offset;
}

}  // namespace scgpu::memsys
