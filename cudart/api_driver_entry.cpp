// cudaGetDriverEntryPoint{,ByVersion}: the driver API functions a runtime program may ask for by
// name. scgpu has no libcuda; it hands out the tensor-map encoders (cuTensorMapEncodeTiled,
// cuTensorMapEncodeIm2col, cuTensorMapReplaceAddress), which write scgpu's tensor-map layout (sm/tensor_map.h) that the
// model's copy engine reads, since a TMA program gets them this way rather than by linking
// libcuda. Any other name is "not found": funcPtr NULL and cudaSuccess, as CUDA documents.
#include <cstring>
#include <string>

#include "cudart/api_common.h"
#include "sm/tensor_map.h"

namespace {

using scgpu::cudart::abi::Error;

// CUresult values the encoders return.
constexpr int kCuSuccess = 0, kCuInvalidValue = 1;
enum DriverEntryStatus { kFound = 0, kSymbolNotFound = 1 };

// The fields both encoders take alike: the tensor's address, type, layout options, sizes, strides
// (dimension 0's the element size) and element strides. The caller checked type and rank.
scgpu::sm::TensorMap commonMap(int type, unsigned rank, void* address, const std::uint64_t* dims,
                               const std::uint64_t* strides, const std::uint32_t* element_strides, int interleave,
                               int swizzle, int l2_promotion, int oob_fill) {
  scgpu::sm::TensorMap m;
  m.global_address = reinterpret_cast<std::uint64_t>(address);
  m.rank = rank;
  m.type = scgpu::sm::TmaType(type);
  m.interleave = std::uint8_t(interleave);
  m.swizzle = scgpu::sm::TmaSwizzle(swizzle);
  m.l2_promotion = std::uint8_t(l2_promotion);
  m.oob_nan = oob_fill != 0;
  for (unsigned d = 0; d < rank; ++d) {
    m.size[d] = dims[d];
    m.stride_bytes[d] = d ? strides[d - 1] : scgpu::sm::tmaTypeBytes(m.type);
    m.element_stride[d] = element_strides[d];
  }
  return m;
}

// What cuTensorMapEncodeTiled checks, and the map written on success. Its messages go to stderr
// once per reason, as CUDA's driver says nothing but CUDA_ERROR_INVALID_VALUE.
int encodeTiled(void* map, int type, unsigned rank, void* address, const std::uint64_t* dims,
                const std::uint64_t* strides, const std::uint32_t* box, const std::uint32_t* element_strides,
                int interleave, int swizzle, int l2_promotion, int oob_fill) {
  auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "scgpu: cuTensorMapEncodeTiled: %s\n", why.c_str());
    return kCuInvalidValue;
  };
  if (!map || !dims || !box || !element_strides || (rank > 1 && !strides)) return refuse("a required pointer is NULL");
  if (reinterpret_cast<std::uintptr_t>(map) % scgpu::sm::kTensorMapAlign) return refuse("the tensor map is not 64-byte aligned");
  if (rank < 1 || rank > 5) return refuse("tensorRank must be 1 to 5");
  if (type < 0 || type >= int(scgpu::sm::TmaType::Count)) return refuse("unsupported tensorDataType");
  if (swizzle < 0 || swizzle > 3) return refuse("unsupported swizzle (only NONE, 32B, 64B, 128B)");
  scgpu::sm::TensorMap m =
      commonMap(type, rank, address, dims, strides, element_strides, interleave, swizzle, l2_promotion, oob_fill);
  for (unsigned d = 0; d < rank; ++d) m.box[d] = box[d];
  const std::string err = scgpu::sm::checkTensorMap(m);
  if (!err.empty()) return refuse(err);
  scgpu::sm::encodeTensorMap(m, static_cast<std::uint8_t*>(map));
  return kCuSuccess;
}

// What cuTensorMapEncodeIm2col checks, and the map written on success: a tensor of rank 3 to 5 whose
// dimension 0 is the channels; the bounding box's corners for the rank - 2 spatial dimensions
// (W first); channelsPerPixel and pixelsPerColumn, the box a copy moves.
int encodeIm2col(void* map, int type, unsigned rank, void* address, const std::uint64_t* dims,
                 const std::uint64_t* strides, const int* lower, const int* upper, unsigned channels,
                 unsigned pixels, const std::uint32_t* element_strides, int interleave, int swizzle, int l2_promotion,
                 int oob_fill) {
  auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "scgpu: cuTensorMapEncodeIm2col: %s\n", why.c_str());
    return kCuInvalidValue;
  };
  if (!map || !dims || !strides || !lower || !upper || !element_strides) return refuse("a required pointer is NULL");
  if (reinterpret_cast<std::uintptr_t>(map) % scgpu::sm::kTensorMapAlign) return refuse("the tensor map is not 64-byte aligned");
  if (rank < 3 || rank > 5) return refuse("tensorRank must be 3, 4 or 5");
  if (type < 0 || type >= int(scgpu::sm::TmaType::Count)) return refuse("unsupported tensorDataType");
  if (swizzle < 0 || swizzle > 3) return refuse("unsupported swizzle (only NONE, 32B, 64B, 128B)");
  // The corners' range shrinks with the spatial dimensions: 16, 8 and 5 bits for rank 3, 4 and 5.
  const int corner_bits = rank == 3 ? 16 : rank == 4 ? 8 : 5;
  scgpu::sm::TensorMap m =
      commonMap(type, rank, address, dims, strides, element_strides, interleave, swizzle, l2_promotion, oob_fill);
  m.im2col = true;
  m.channels_per_pixel = channels;
  m.pixels_per_column = pixels;
  for (unsigned s = 0; s + 2 < rank; ++s) {
    for (int v : {lower[s], upper[s]})
      if (v < -(1 << (corner_bits - 1)) || v >= (1 << (corner_bits - 1)))
        return refuse("a pixel box corner is outside [-2^" + std::to_string(corner_bits - 1) + ", 2^" +
                      std::to_string(corner_bits - 1) + ")");
    m.lower_corner[s] = lower[s];
    m.upper_corner[s] = upper[s];
  }
  const std::string err = scgpu::sm::checkTensorMap(m);
  if (!err.empty()) return refuse(err);
  scgpu::sm::encodeTensorMap(m, static_cast<std::uint8_t*>(map));
  return kCuSuccess;
}

// cuTensorMapReplaceAddress: the same map over another global address.
int replaceAddress(void* map, void* address) {
  if (!map) return kCuInvalidValue;
  scgpu::sm::TensorMap m;
  if (!scgpu::sm::decodeTensorMap(static_cast<const std::uint8_t*>(map), m, nullptr)) return kCuInvalidValue;
  m.global_address = reinterpret_cast<std::uint64_t>(address);
  if (!scgpu::sm::checkTensorMap(m).empty()) return kCuInvalidValue;
  scgpu::sm::encodeTensorMap(m, static_cast<std::uint8_t*>(map));
  return kCuSuccess;
}

Error lookUp(const char* symbol, void** fn, int* status) {
  if (!symbol || !fn) return scgpu::cudart::abi::kInvalidValue;
  const std::string name = symbol;
  *fn = nullptr;
  if (name == "cuTensorMapEncodeTiled") *fn = reinterpret_cast<void*>(&encodeTiled);
  if (name == "cuTensorMapEncodeIm2col") *fn = reinterpret_cast<void*>(&encodeIm2col);
  if (name == "cuTensorMapReplaceAddress") *fn = reinterpret_cast<void*>(&replaceAddress);
  if (status) *status = *fn ? kFound : kSymbolNotFound;
  return scgpu::cudart::abi::kSuccess;
}

}  // namespace

SCGPU_CUDART_API Error cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long, int* status) {
  return lookUp(symbol, fn, status);
}
SCGPU_CUDART_API Error cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int, unsigned long long,
                                                        int* status) {
  return lookUp(symbol, fn, status);
}
SCGPU_CUDART_PTSZ(cudaGetDriverEntryPoint)
SCGPU_CUDART_PTSZ(cudaGetDriverEntryPointByVersion)
