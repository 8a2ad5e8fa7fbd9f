// Fuzz target `host`: the host interface's front end (tlm/host/host_interface.*) with the
// functional device behind it, driven as a hostile driver would: the input is a list of BAR0
// writes and the contents of the host memory the device reaches by DMA, where channel 0's ring
// and whatever command buffers, launch descriptors and PTX the input invents live.
//
// Layout: byte 0 = the number of BAR0 writes N (at most 64), then N records of 6 bytes (offset
// u16 little-endian, value u32), then up to 64 KiB of host memory at IOVA 0x10000000. Before the
// writes, channel 0 is set up with a ring of 16 entries at the start of that memory, enabled; a
// write to GP_PUT (0x100C) starts the front end. After the writes every register is read once.
//
// The host interface throws nothing: every malformed command stops its channel with an error
// code. So anything that escapes is a finding, as are crashes, hangs and runaway memory.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "driver/device_model.h"
#include "fuzz/harness.h"
#include "tlm/gpu_params.h"
#include "tlm/host/buffer_host_memory.h"
#include "tlm/host/host_interface.h"
#include "tlm/host/scgpu_regs.h"

namespace {

constexpr std::uint64_t kIova = scgpu::host::BufferHostMemory::kBase;
constexpr std::size_t kHostBytes = 64 * 1024;


}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scgpu;
  if (size < 1) return 0;
  const std::size_t writes = std::min<std::size_t>(data[0], 64);
  if (size < 1 + 6 * writes) return 0;
  static driver::DeviceModel device(fuzz::smallConfig(), driver::Mode::Functional);
  static const GpuParams params = GpuParams::fromConfig(fuzz::smallConfig());
  device.reset();
  host::BufferHostMemory host(kHostBytes);
  const std::size_t rest = size - 1 - 6 * writes;
  std::memcpy(host.bytes.data(), data + 1 + 6 * writes, std::min(rest, kHostBytes));
  host::HostInterface hif(params.host, device.identity(), device, host);
  hif.write(SCGPU_REG_CH_GPFIFO_BASE_LO(0), std::uint32_t(kIova));
  hif.write(SCGPU_REG_CH_GPFIFO_ENTRIES(0), 16);
  hif.write(SCGPU_REG_CH_CONTROL(0), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK);
  for (std::size_t i = 0; i < writes; ++i) {
    const std::uint8_t* r = data + 1 + 6 * i;
    const std::uint32_t offset = std::uint32_t(r[0]) | std::uint32_t(r[1]) << 8;
    std::uint32_t value;
    std::memcpy(&value, r + 2, 4);
    hif.write(offset, value);
  }
  for (std::uint32_t off = 0; off < SCGPU_CH_BASE + SCGPU_CH_STRIDE * 2; off += 4) (void)hif.read(off);
  // For writing seeds: where channel 0 got to.
  if (std::getenv("SCGPU_FUZZ_VERBOSE"))
    std::fprintf(stderr, "channel 0: GP_GET %u, error %u, device time %llu ns%s%s\n", hif.read(SCGPU_REG_CH_GP_GET(0)),
                 hif.read(SCGPU_REG_CH_ERROR(0)), static_cast<unsigned long long>(hif.timeNs()),
                 hif.lastErrorMessage().empty() ? "" : ": ", hif.lastErrorMessage().c_str());
  return 0;
}
