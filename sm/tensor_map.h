// The tensor map (CUDA's CUtensorMap: 128 opaque bytes, 64-byte aligned) that a bulk tensor copy
// (cp.async.bulk.tensor, the TMA unit) reads from memory: where a tensor lies in global memory,
// its element type, sizes and strides, the box one copy moves, and how the box is laid out in
// shared memory (swizzle). CUDA's encoder (cuTensorMapEncodeTiled) writes it on the host and the
// kernel gets it as a __grid_constant__ parameter; scgpu's encoder (cudart, launch files) writes
// the layout below, and the copy engine (sm/exec/bulk_copy.cpp) decodes it on every copy.
//
// Layout (little-endian): 0 global address (u64); 8 magic "TMAP"; 12 rank, element type, interleave,
// swizzle (u8 each); 16 L2 promotion, OOB fill, mode (0 tiled, 1 im2col), 0; 20 sizes (5 x u32);
// 40 byte strides of dimensions 1-4 (4 x u64); 72 box sizes (5 x u16); 82 element strides (5 x u8);
// 88 im2col lower corner, 94 upper corner (3 x s16 each); 100 channels per pixel, 102 pixels per
// column (u16 each). The rest is zero.
#pragma once

#include <cstdint>
#include <string>

namespace scgpu::sm {

constexpr std::uint32_t kTensorMapBytes = 128;
constexpr std::uint32_t kTensorMapAlign = 64;

// CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapFloatOOBfill values.
enum class TmaType : std::uint8_t { U8, U16, U32, S32, U64, S64, F16, F32, F64, BF16, F32Ftz, TF32, TF32Ftz, Count };
enum class TmaSwizzle : std::uint8_t { None, B32, B64, B128 };

struct TensorMap {
  std::uint64_t global_address = 0;
  std::uint32_t rank = 0;
  TmaType type = TmaType::U8;
  std::uint8_t interleave = 0;   // only 0 (none) is implemented
  TmaSwizzle swizzle = TmaSwizzle::None;
  std::uint8_t l2_promotion = 0; // accepted, not modelled
  bool oob_nan = false;          // out-of-bound float elements read as NaN (else zero)
  bool im2col = false;
  std::uint64_t size[5] = {};         // elements per dimension
  std::uint64_t stride_bytes[5] = {}; // [0] is the element size; [1..rank-1] from the encoder
  std::uint32_t box[5] = {};          // tiled: box extent per dimension; im2col: box[0] = channels
  std::uint32_t element_stride[5] = {1, 1, 1, 1, 1};
  std::int32_t lower_corner[3] = {}, upper_corner[3] = {};  // im2col, dimensions 1 .. rank-2
  std::uint32_t channels_per_pixel = 0, pixels_per_column = 0;

  std::uint32_t elementBytes() const;
  // Elements the box holds along dimension d (ceil(box / element stride); dimension 0 is never strided).
  std::uint32_t boxCount(std::uint32_t d) const;
  // Bytes one copy moves into or out of shared memory (what complete_tx counts).
  std::uint64_t boxBytes() const;
};

std::uint32_t tmaTypeBytes(TmaType t);
bool tmaTypeIsFloat(TmaType t);

// The rules cuTensorMapEncodeTiled / Im2col check ("" when the map is valid, else why not).
std::string checkTensorMap(const TensorMap& m);
// Writes the 128 bytes of a valid map.
void encodeTensorMap(const TensorMap& m, std::uint8_t out[kTensorMapBytes]);
// Reads 128 bytes back; false (and why) when they are not a valid map.
bool decodeTensorMap(const std::uint8_t in[kTensorMapBytes], TensorMap& m, std::string* why);

// Where byte `addr` of a box lands in shared memory under a swizzle: 16-byte chunks within a
// 32/64/128-byte span are exchanged by the XOR of the 128-byte row index (address bits 7-9).
inline std::uint64_t swizzleSharedAddress(std::uint64_t addr, TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::B32: return addr ^ (((addr >> 7) & 1) << 4);
    case TmaSwizzle::B64: return addr ^ (((addr >> 7) & 3) << 4);
    case TmaSwizzle::B128: return addr ^ (((addr >> 7) & 7) << 4);
    default: return addr;
  }
}

}  // namespace scgpu::sm
