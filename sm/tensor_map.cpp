#include "sm/tensor_map.h"

#include <cstring>

#include <fmt/format.h>

namespace scgpu::sm {
namespace {

constexpr std::uint32_t kMagic = 0x50414D54u;  // "TMAP"

template <typename T>
void put(std::uint8_t* p, std::size_t at, T v) { std::memcpy(p + at, &v, sizeof v); }
template <typename T>
T get(const std::uint8_t* p, std::size_t at) {
  T v;
  std::memcpy(&v, p + at, sizeof v);
  return v;
}

}  // namespace

std::uint32_t tmaTypeBytes(TmaType t) {
  switch (t) {
    case TmaType::U8: return 1;
    case TmaType::U16: case TmaType::F16: case TmaType::BF16: return 2;
    case TmaType::U64: case TmaType::S64: case TmaType::F64: return 8;
    default: return 4;
  }
}

bool tmaTypeIsFloat(TmaType t) {
  return t == TmaType::F16 || t == TmaType::F32 || t == TmaType::F64 || t == TmaType::BF16 || t == TmaType::F32Ftz ||
         t == TmaType::TF32 || t == TmaType::TF32Ftz;
}

std::uint32_t TensorMap::elementBytes() const { return tmaTypeBytes(type); }

std::uint32_t TensorMap::boxCount(std::uint32_t d) const {
  if (d == 0 || im2col) return box[d];
  return (box[d] + element_stride[d] - 1) / element_stride[d];
}

std::uint64_t TensorMap::boxBytes() const {
  if (im2col) return std::uint64_t(channels_per_pixel) * pixels_per_column * elementBytes();
  std::uint64_t n = elementBytes();
  for (std::uint32_t d = 0; d < rank; ++d) n *= boxCount(d);
  return n;
}

std::string checkTensorMap(const TensorMap& m) {
  if (m.rank < 1 || m.rank > 5) return fmt::format("the rank is {}; it must be 1 to 5", m.rank);
  if (m.im2col && m.rank < 3) return "an im2col tensor map needs a rank of 3 to 5";
  if (m.type >= TmaType::Count) return "unknown element type (the packed 4- and 6-bit types are not implemented)";
  if (m.interleave != 0) return "interleaved layouts (CU_TENSOR_MAP_INTERLEAVE_16B/32B) are not implemented";
  if (m.swizzle > TmaSwizzle::B128) return "unknown swizzle (only NONE, 32B, 64B and 128B)";
  if (m.global_address % 16) return "the global address must be a multiple of 16 bytes";
  if (m.oob_nan && !tmaTypeIsFloat(m.type)) return "the NaN out-of-bound fill needs a floating-point element type";
  const std::uint32_t eb = m.elementBytes();
  for (std::uint32_t d = 0; d < m.rank; ++d) {
    if (m.size[d] == 0 || m.size[d] > (std::uint64_t{1} << 32))
      return fmt::format("globalDim[{}] is {}; it must be 1 to 2^32", d, m.size[d]);
    if (d > 0) {
      if (m.stride_bytes[d] % 16 || m.stride_bytes[d] >= (std::uint64_t{1} << 40))
        return fmt::format("globalStrides[{}] is {}; it must be a multiple of 16 below 2^40", d - 1, m.stride_bytes[d]);
    }
    if (!m.im2col && (m.box[d] == 0 || m.box[d] > 256)) return fmt::format("boxDim[{}] is {}; it must be 1 to 256", d, m.box[d]);
    if (m.element_stride[d] == 0 || m.element_stride[d] > 8)
      return fmt::format("elementStrides[{}] is {}; it must be 1 to 8", d, m.element_stride[d]);
  }
  if (m.im2col) {
    if (m.channels_per_pixel == 0 || m.channels_per_pixel > 256) return "channelsPerPixel must be 1 to 256";
    if (m.pixels_per_column == 0 || m.pixels_per_column > 1024) return "pixelsPerColumn must be 1 to 1024";
    if (std::uint64_t(m.channels_per_pixel) * eb % 16) return "channelsPerPixel times the element size must be a multiple of 16 bytes";
  } else if (std::uint64_t(m.box[0]) * eb % 16) {
    return fmt::format("boxDim[0] times the element size is {} bytes; it must be a multiple of 16", m.box[0] * eb);
  }
  const std::uint64_t inner = std::uint64_t(m.im2col ? m.channels_per_pixel : m.box[0]) * eb;
  const std::uint64_t span = m.swizzle == TmaSwizzle::B32 ? 32 : m.swizzle == TmaSwizzle::B64 ? 64 : 128;
  if (m.swizzle != TmaSwizzle::None && inner > span)
    return fmt::format("the box's inner dimension is {} bytes; the swizzle allows at most {}", inner, span);
  return "";
}

void encodeTensorMap(const TensorMap& m, std::uint8_t out[kTensorMapBytes]) {
  std::memset(out, 0, kTensorMapBytes);
  put<std::uint64_t>(out, 0, m.global_address);
  put<std::uint32_t>(out, 8, kMagic);
  out[12] = std::uint8_t(m.rank);
  out[13] = std::uint8_t(m.type);
  out[14] = m.interleave;
  out[15] = std::uint8_t(m.swizzle);
  out[16] = m.l2_promotion;
  out[17] = m.oob_nan ? 1 : 0;
  out[18] = m.im2col ? 1 : 0;
  for (std::uint32_t d = 0; d < 5; ++d) {
    // Sizes up to 2^32 are stored less one.
    put<std::uint32_t>(out, 20 + 4 * d, std::uint32_t(d < m.rank ? m.size[d] - 1 : 0));
    if (d >= 1) put<std::uint64_t>(out, 40 + 8 * (d - 1), d < m.rank ? m.stride_bytes[d] : 0);
    put<std::uint16_t>(out, 72 + 2 * d, std::uint16_t(m.box[d]));
    out[82 + d] = std::uint8_t(m.element_stride[d]);
  }
  for (std::uint32_t i = 0; i < 3; ++i) {
    put<std::int16_t>(out, 88 + 2 * i, std::int16_t(m.lower_corner[i]));
    put<std::int16_t>(out, 94 + 2 * i, std::int16_t(m.upper_corner[i]));
  }
  put<std::uint16_t>(out, 100, std::uint16_t(m.channels_per_pixel));
  put<std::uint16_t>(out, 102, std::uint16_t(m.pixels_per_column));
}

bool decodeTensorMap(const std::uint8_t in[kTensorMapBytes], TensorMap& m, std::string* why) {
  if (get<std::uint32_t>(in, 8) != kMagic) {
    if (why) *why = "the 128 bytes are not a tensor map (not written by cuTensorMapEncodeTiled/Im2col)";
    return false;
  }
  m = TensorMap{};
  m.global_address = get<std::uint64_t>(in, 0);
  m.rank = in[12];
  m.type = in[13] < std::uint8_t(TmaType::Count) ? TmaType(in[13]) : TmaType::Count;
  m.interleave = in[14];
  m.swizzle = TmaSwizzle(in[15]);
  m.l2_promotion = in[16];
  m.oob_nan = in[17] != 0;
  m.im2col = in[18] != 0;
  for (std::uint32_t d = 0; d < 5; ++d) {
    if (d < m.rank && m.rank <= 5) m.size[d] = std::uint64_t(get<std::uint32_t>(in, 20 + 4 * d)) + 1;
    if (d >= 1) m.stride_bytes[d] = get<std::uint64_t>(in, 40 + 8 * (d - 1));
    m.box[d] = get<std::uint16_t>(in, 72 + 2 * d);
    m.element_stride[d] = in[82 + d];
  }
  if (m.type != TmaType::Count) m.stride_bytes[0] = m.elementBytes();
  for (std::uint32_t i = 0; i < 3; ++i) {
    m.lower_corner[i] = get<std::int16_t>(in, 88 + 2 * i);
    m.upper_corner[i] = get<std::int16_t>(in, 94 + 2 * i);
  }
  m.channels_per_pixel = get<std::uint16_t>(in, 100);
  m.pixels_per_column = get<std::uint16_t>(in, 102);
  // Unused dimensions keep element stride 1 (the checks look only at the first `rank`).
  const std::string err = checkTensorMap(m);
  if (!err.empty()) {
    if (why) *why = "invalid tensor map: " + err;
    return false;
  }
  return true;
}

}  // namespace scgpu::sm
