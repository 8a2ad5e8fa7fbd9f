// Address-to-slice and address-to-DRAM-channel mapping of the memory system.
//
// Boundary: pure functions of an address, used by the crossbar (which L2 slice owns a request) and
// by the L2-to-DRAM path (which channel serves a slice's miss, and the channel-local address the
// DRAM controller decodes into bank, row and column). No state, no timing.
//
// Mapping. Addresses are split into chunks of L2Params::interleave_bytes; chunk = addr / interleave.
// - hash "linear": slice = chunk mod slices.
// - hash "xor" (power-of-two slices, b = log2(slices) bits): slice = (chunk XOR fold(chunk >> b))
//   mod slices, where fold XORs together the successive b-bit groups of the higher chunk bits. Every
//   slice-select bit is thus the XOR of one low chunk bit and every b-th higher bit: a linear (GF(2))
//   hash of the kind the published reverse engineering of NVIDIA L2 slice selection finds (each
//   slice bit the parity of a set of physical address bits), which breaks power-of-two strides that
//   a linear map sends to one slice.
// - hash "xor" with a slice count that is not a power of two: XOR is not closed on [0, slices), so
//   the folded higher bits (b = ceil(log2(slices))) rotate instead:
//   slice = (chunk mod slices + fold(chunk / slices)) mod slices.
// In every case each aligned group of `slices` consecutive chunks maps to all slices exactly once
// (the higher bits are constant within a group), so sequential addresses spread perfectly evenly.
//
// Slices and channels: slices % channels == 0 or channels % slices == 0 (checked).
// - slices >= channels: a channel (memory partition) owns slices/channels consecutive slices:
//   channel = slice / (slices/channels).
// - channels > slices: a slice owns channels/slices consecutive channels and deals its pieces of
//   dram.channel_interleave_bytes over them in turn (the chunk bits just above the slice bits, and
//   the piece bits inside a chunk when a chunk holds several pieces).
// channelLocal() removes the interleave bits: the pieces one channel receives are numbered densely,
// so channel c sees addresses [0, total/channels) with no holes. DramParams::channel_interleave_bytes
// is a power of two no larger than L2Params::interleave_bytes (checked): equal, a slice's chunk stays
// on one channel; smaller, it is spread over its channels (the H100 keeps 512 bytes on a slice).
#pragma once

#include <cstdint>

#include "memsys/memsys_params.h"

namespace scgpu::memsys {

class AddressMap {
 public:
  // Throws std::invalid_argument with a message naming the keys when the combination is invalid.
  AddressMap(const L2Params& l2, const DramParams& dram);

  std::uint32_t sliceOf(std::uint64_t addr) const;
  std::uint32_t channelOf(std::uint64_t addr) const;
  std::uint64_t channelLocal(std::uint64_t addr) const;

  // Channel that serves slice `slice` when slices >= channels; the first of its channels otherwise.
  std::uint32_t channelOfSlice(std::uint32_t slice) const;
  std::uint32_t slices() const { return slices_; }
  std::uint32_t channels() const { return channels_; }

 private:
  std::uint64_t fold(std::uint64_t high) const;
  // The slice's dense number of the dram.channel_interleave_bytes piece holding addr.
  std::uint64_t sliceUnit(std::uint64_t addr) const;

  std::uint32_t slices_, channels_;
  std::uint32_t shift_;       // log2(l2.interleave_bytes)
  std::uint32_t channel_shift_;  // log2(dram.channel_interleave_bytes)
  std::uint32_t slice_bits_;  // ceil(log2(slices))
  bool xor_, pow2_slices_;
};

}  // namespace scgpu::memsys
