// Memory: device, managed and page-locked host allocations, copies, memsets, module variables
// (symbols) and pointer attributes.
#include "cudart/api_common.h"

using namespace scgpu::cudart;
using scgpu::cudart::abi::Error;
using scgpu::cudart::abi::MemcpyKind;

namespace {

// cudaMallocPitch rounds each row up to this (the texture alignment of a Hopper-class device).
constexpr std::size_t kPitchAlignmentBytes = 512;
// cudaHostAlloc's cudaHostAllocMapped: a device pointer to host memory, which the model's device
// cannot reach.
constexpr unsigned kHostAllocMapped = 0x02;

// CUDA 13's cudaMemLocation, passed by value to cudaMemPrefetchAsync and cudaMemAdvise.
struct MemLocation {
  int type;
  int id;
};

// Copies to and from a module variable: its address, checked against its size.
Error symbolRange(State& s, const void* symbol, std::size_t bytes, std::size_t offset, scgpu_devptr* at) {
  std::size_t size = 0;
  if (const Error e = s.symbol(symbol, at, &size)) return e;
  if (offset > size || bytes > size - offset)
    return s.fail(abi::kInvalidValue, fmt::format("a copy of {} bytes at offset {} runs past the {}-byte variable",
                                                  bytes, offset, size));
  *at += offset;
  return abi::kSuccess;
}

void* ptr(scgpu_devptr p) { return reinterpret_cast<void*>(p); }

}  // namespace

SCGPU_CUDART_API Error cudaMalloc(void** p, std::size_t bytes) {
  return onDevice("cudaMalloc", [&](State& s) { return s.malloc(p, bytes); });
}

SCGPU_CUDART_API Error cudaMallocPitch(void** p, std::size_t* pitch, std::size_t width, std::size_t height) {
  return onDevice("cudaMallocPitch", [&](State& s) {
    if (!pitch) return s.fail(abi::kInvalidValue);
    const std::size_t row = (width + kPitchAlignmentBytes - 1) / kPitchAlignmentBytes * kPitchAlignmentBytes;
    if (height && row > SIZE_MAX / height) return s.fail(abi::kMemoryAllocation);
    *pitch = row;
    return s.malloc(p, row * height);
  });
}

SCGPU_CUDART_API Error cudaMallocManaged(void** p, std::size_t bytes, unsigned /*flags*/) {
  return onDevice("cudaMallocManaged", [&](State& s) { return s.mallocManaged(p, bytes); });
}

SCGPU_CUDART_API Error cudaFree(void* p) {
  return onDevice("cudaFree", [&](State& s) { return s.free(p); });
}

// Stream-ordered allocation: the allocation is made at once, and a free waits for the stream.
SCGPU_CUDART_API Error cudaMallocAsync(void** p, std::size_t bytes, void* stream) {
  return onDevice("cudaMallocAsync", [&](State& s) {
    if (!s.validStream(stream)) return s.fail(abi::kInvalidResourceHandle);
    return s.malloc(p, bytes);
  });
}
SCGPU_CUDART_PTSZ(cudaMallocAsync)

SCGPU_CUDART_API Error cudaFreeAsync(void* p, void* stream) {
  return onDevice("cudaFreeAsync", [&](State& s) {
    if (!s.validStream(stream)) return s.fail(abi::kInvalidResourceHandle);
    if (const Error e = s.streamSynchronize(stream)) return e;
    return s.free(p);
  });
}
SCGPU_CUDART_PTSZ(cudaFreeAsync)

SCGPU_CUDART_API Error cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  return onDevice("cudaMemGetInfo", [&](State& s) {
    const std::uint64_t total = s.properties().total_global_mem;
    const std::uint64_t used = std::min<std::uint64_t>(s.allocatedBytes(), total);
    if (free_bytes) *free_bytes = total - used;
    if (total_bytes) *total_bytes = total;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaMallocHost(void** p, std::size_t bytes) {
  return guarded("cudaMallocHost", [&](State& s) { return s.hostAlloc(p, bytes); });
}

SCGPU_CUDART_API Error cudaHostAlloc(void** p, std::size_t bytes, unsigned flags) {
  return guarded("cudaHostAlloc", [&](State& s) {
    if (flags & kHostAllocMapped)
      return s.fail(abi::kNotSupported, "cudaHostAlloc with cudaHostAllocMapped (device access to host memory) is "
                                        "not supported by scgpu's CUDA runtime");
    return s.hostAlloc(p, bytes);
  });
}

SCGPU_CUDART_API Error cudaFreeHost(void* p) {
  return guarded("cudaFreeHost", [&](State& s) { return s.hostFree(p); });
}

SCGPU_CUDART_API Error cudaHostRegister(void* p, std::size_t bytes, unsigned flags) {
  return guarded("cudaHostRegister", [&](State& s) {
    if (flags & kHostAllocMapped)
      return s.fail(abi::kNotSupported, "cudaHostRegister with cudaHostRegisterMapped (device access to host "
                                        "memory) is not supported by scgpu's CUDA runtime");
    return s.hostRegister(p, bytes);
  });
}

SCGPU_CUDART_API Error cudaHostUnregister(void* p) {
  return guarded("cudaHostUnregister", [&](State& s) { return s.hostUnregister(p); });
}

SCGPU_CUDART_API Error cudaHostGetDevicePointer(void** /*device*/, void* /*host*/, unsigned /*flags*/) {
  return Error(notSupported("cudaHostGetDevicePointer (device access to host memory)"));
}

SCGPU_CUDART_API Error cudaHostGetFlags(unsigned* flags, void* p) {
  return onDevice("cudaHostGetFlags", [&](State& s) {
    if (!flags) return s.fail(abi::kInvalidValue);
    abi::PointerAttributes a{};
    if (const Error e = s.pointerAttributes(&a, p)) return e;
    if (a.type != abi::kMemoryHost) return s.fail(abi::kInvalidValue);
    *flags = 0;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaMemcpy(void* dst, const void* src, std::size_t bytes, MemcpyKind kind) {
  return onDevice("cudaMemcpy", [&](State& s) { return s.memcpy(dst, src, bytes, kind, nullptr, false); });
}
SCGPU_CUDART_PTDS(cudaMemcpy)

SCGPU_CUDART_API Error cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpyAsync", [&](State& s) { return s.memcpy(dst, src, bytes, kind, stream, true); });
}
SCGPU_CUDART_PTSZ(cudaMemcpyAsync)

// One device: a peer copy is a copy inside device 0.
SCGPU_CUDART_API Error cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes) {
  return onDevice("cudaMemcpyPeer", [&](State& s) {
    if (dst_device != 0 || src_device != 0) return s.fail(abi::kInvalidDevice);
    return s.memcpy(dst, src, bytes, abi::kDeviceToDevice, nullptr, false);
  });
}

SCGPU_CUDART_API Error cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                           std::size_t bytes, void* stream) {
  return onDevice("cudaMemcpyPeerAsync", [&](State& s) {
    if (dst_device != 0 || src_device != 0) return s.fail(abi::kInvalidDevice);
    return s.memcpy(dst, src, bytes, abi::kDeviceToDevice, stream, true);
  });
}

SCGPU_CUDART_API Error cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                                    std::size_t width, std::size_t height, MemcpyKind kind) {
  return onDevice("cudaMemcpy2D",
                  [&](State& s) { return s.memcpy2D(dst, dpitch, src, spitch, width, height, kind, nullptr, false); });
}
SCGPU_CUDART_PTDS(cudaMemcpy2D)

SCGPU_CUDART_API Error cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                                         std::size_t width, std::size_t height, MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpy2DAsync",
                  [&](State& s) { return s.memcpy2D(dst, dpitch, src, spitch, width, height, kind, stream, true); });
}
SCGPU_CUDART_PTSZ(cudaMemcpy2DAsync)

SCGPU_CUDART_API Error cudaMemset(void* dst, int value, std::size_t bytes) {
  return onDevice("cudaMemset", [&](State& s) { return s.memset(dst, value, bytes, nullptr, false); });
}
SCGPU_CUDART_PTDS(cudaMemset)

SCGPU_CUDART_API Error cudaMemsetAsync(void* dst, int value, std::size_t bytes, void* stream) {
  return onDevice("cudaMemsetAsync", [&](State& s) { return s.memset(dst, value, bytes, stream, true); });
}
SCGPU_CUDART_PTSZ(cudaMemsetAsync)

SCGPU_CUDART_API Error cudaMemset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height) {
  return onDevice("cudaMemset2D",
                  [&](State& s) { return s.memset2D(dst, pitch, value, width, height, nullptr, false); });
}
SCGPU_CUDART_PTDS(cudaMemset2D)

SCGPU_CUDART_API Error cudaMemset2DAsync(void* dst, std::size_t pitch, int value, std::size_t width,
                                         std::size_t height, void* stream) {
  return onDevice("cudaMemset2DAsync",
                  [&](State& s) { return s.memset2D(dst, pitch, value, width, height, stream, true); });
}
SCGPU_CUDART_PTSZ(cudaMemset2DAsync)

namespace {

// A copy into (to_symbol) or out of a module variable at `offset`; `other` is the host or device
// memory on the other side. The direction must be one CUDA allows for that side.
Error symbolCopy(State& s, bool to_symbol, const void* symbol, void* other, std::size_t bytes, std::size_t offset,
                 MemcpyKind kind, void* stream, bool async) {
  const MemcpyKind from_other = to_symbol ? abi::kHostToDevice : abi::kDeviceToHost;
  if (kind != from_other && kind != abi::kDeviceToDevice && kind != abi::kDefault)
    return s.fail(abi::kInvalidMemcpyDirection);
  scgpu_devptr at = 0;
  if (const Error e = symbolRange(s, symbol, bytes, offset, &at)) return e;
  return to_symbol ? s.memcpy(ptr(at), other, bytes, kind, stream, async)
                   : s.memcpy(other, ptr(at), bytes, kind, stream, async);
}

}  // namespace

SCGPU_CUDART_API Error cudaMemcpyToSymbol(const void* symbol, const void* src, std::size_t bytes, std::size_t offset,
                                          MemcpyKind kind) {
  return onDevice("cudaMemcpyToSymbol", [&](State& s) {
    return symbolCopy(s, true, symbol, const_cast<void*>(src), bytes, offset, kind, nullptr, false);
  });
}
SCGPU_CUDART_PTDS(cudaMemcpyToSymbol)

SCGPU_CUDART_API Error cudaMemcpyFromSymbol(void* dst, const void* symbol, std::size_t bytes, std::size_t offset,
                                            MemcpyKind kind) {
  return onDevice("cudaMemcpyFromSymbol",
                  [&](State& s) { return symbolCopy(s, false, symbol, dst, bytes, offset, kind, nullptr, false); });
}
SCGPU_CUDART_PTDS(cudaMemcpyFromSymbol)

SCGPU_CUDART_API Error cudaMemcpyToSymbolAsync(const void* symbol, const void* src, std::size_t bytes,
                                               std::size_t offset, MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpyToSymbolAsync", [&](State& s) {
    return symbolCopy(s, true, symbol, const_cast<void*>(src), bytes, offset, kind, stream, true);
  });
}
SCGPU_CUDART_PTSZ(cudaMemcpyToSymbolAsync)

SCGPU_CUDART_API Error cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, std::size_t bytes, std::size_t offset,
                                                 MemcpyKind kind, void* stream) {
  return onDevice("cudaMemcpyFromSymbolAsync",
                  [&](State& s) { return symbolCopy(s, false, symbol, dst, bytes, offset, kind, stream, true); });
}
SCGPU_CUDART_PTSZ(cudaMemcpyFromSymbolAsync)

SCGPU_CUDART_API Error cudaGetSymbolAddress(void** device, const void* symbol) {
  return onDevice("cudaGetSymbolAddress", [&](State& s) {
    if (!device) return s.fail(abi::kInvalidValue);
    scgpu_devptr at = 0;
    std::size_t size = 0;
    if (const Error e = s.symbol(symbol, &at, &size)) return e;
    *device = ptr(at);
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaGetSymbolSize(std::size_t* bytes, const void* symbol) {
  return onDevice("cudaGetSymbolSize", [&](State& s) {
    if (!bytes) return s.fail(abi::kInvalidValue);
    scgpu_devptr at = 0;
    return s.symbol(symbol, &at, bytes);
  });
}

SCGPU_CUDART_API Error cudaPointerGetAttributes(abi::PointerAttributes* attr, const void* p) {
  return onDevice("cudaPointerGetAttributes", [&](State& s) { return s.pointerAttributes(attr, p); });
}

// Managed memory moves to the device before each launch and back at each synchronisation
// (docs/cuda-programs.md), so prefetching, advice and stream attachment are hints that change
// nothing; they are checked as CUDA checks them.
SCGPU_CUDART_API Error cudaMemPrefetchAsync(const void* p, std::size_t bytes, MemLocation /*location*/,
                                            unsigned /*flags*/, void* stream) {
  return onDevice("cudaMemPrefetchAsync", [&](State& s) {
    if (!s.validStream(stream)) return s.fail(abi::kInvalidResourceHandle);
    if (!s.isManaged(p) && !s.isDevice(p, bytes)) return s.fail(abi::kInvalidValue);
    return abi::kSuccess;
  });
}
SCGPU_CUDART_PTSZ(cudaMemPrefetchAsync)

SCGPU_CUDART_API Error cudaMemAdvise(const void* p, std::size_t bytes, int /*advice*/, MemLocation /*location*/) {
  return onDevice("cudaMemAdvise", [&](State& s) {
    if (!s.isManaged(p) && !s.isDevice(p, bytes)) return s.fail(abi::kInvalidValue);
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaStreamAttachMemAsync(void* stream, void* p, std::size_t /*bytes*/, unsigned /*flags*/) {
  return onDevice("cudaStreamAttachMemAsync", [&](State& s) {
    if (!s.validStream(stream)) return s.fail(abi::kInvalidResourceHandle);
    if (!s.isManaged(p)) return s.fail(abi::kInvalidValue);
    return abi::kSuccess;
  });
}
SCGPU_CUDART_PTSZ(cudaStreamAttachMemAsync)
// cudaCreateChannelDesc, arrays, textures and surfaces: cudart/api_texture.cpp.
