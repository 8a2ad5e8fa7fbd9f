// Host memory that is one buffer at one fixed IOVA: what the conformance tests, the fuzz targets and
// a minimal driver hand the device. A DMA that is not wholly inside the buffer is refused.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "tlm/host/host_interface.h"

namespace scgpu::host {

class BufferHostMemory : public HostMemoryPort {
 public:
  static constexpr std::uint64_t kBase = 0x1000'0000;  // the buffer's IOVA
  explicit BufferHostMemory(std::size_t size_bytes = 1 << 20) : bytes(size_bytes) {}

  bool dmaRead(std::uint64_t iova, void* dst, std::uint64_t n) override {
    ++reads;
    const std::uint8_t* p = at(iova, n);
    if (p) std::memcpy(dst, p, n);
    return p != nullptr;
  }
  bool dmaWrite(std::uint64_t iova, const void* src, std::uint64_t n) override {
    ++writes;
    std::uint8_t* p = at(iova, n);
    if (p) std::memcpy(p, src, n);
    return p != nullptr;
  }
  // The 32-bit value at byte `offset` of the buffer.
  std::uint32_t u32(std::uint64_t offset) const {
    std::uint32_t v;
    std::memcpy(&v, bytes.data() + offset, 4);
    return v;
  }

  std::vector<std::uint8_t> bytes;
  std::uint64_t reads = 0, writes = 0;  // DMA requests seen, refused ones included

 private:
  std::uint8_t* at(std::uint64_t iova, std::uint64_t n) {
    if (iova < kBase || iova - kBase > bytes.size() || n > bytes.size() - (iova - kBase)) return nullptr;
    return bytes.data() + (iova - kBase);
  }
};

}  // namespace scgpu::host
