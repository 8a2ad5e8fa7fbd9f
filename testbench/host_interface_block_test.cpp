// The host interface as a SystemC block: a host model drives BAR0 through its TLM target socket and
// serves the device's DMA on its initiator socket; the ring, the command buffer and a semaphore
// live in the host model's memory, so every fetch and write-back crosses the DMA socket.
#include "tlm/host/host_interface_block.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "driver/device_model.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"
#include "tlm/host/scgpu_regs.h"

namespace scgpu::host {
namespace {

constexpr std::uint64_t kIova = 0x1000'0000;

struct HostModel : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<HostModel> mmio{"mmio"};
  tlm_utils::simple_target_socket<HostModel> memory{"memory"};
  std::vector<std::uint8_t> ram = std::vector<std::uint8_t>(1 << 16);
  std::uint64_t dma_reads = 0, dma_writes = 0, refused = 0;
  std::vector<std::uint32_t> reads;  // what the scenario read, in order
  sc_core::sc_time irq_time = sc_core::SC_ZERO_TIME;
  HostInterfaceBlock* device = nullptr;
  tlm::tlm_response_status last_bad_status = tlm::TLM_INCOMPLETE_RESPONSE;

  SC_HAS_PROCESS(HostModel);
  explicit HostModel(sc_core::sc_module_name n) : sc_module(n) {
    memory.register_b_transport(this, &HostModel::serve);
    SC_THREAD(scenario);
  }
  void serve(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
    const std::uint64_t a = p.get_address();
    if (a < kIova || a - kIova + p.get_data_length() > ram.size()) {
      ++refused;
      p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (p.is_read()) {
      std::memcpy(p.get_data_ptr(), ram.data() + (a - kIova), p.get_data_length());
      ++dma_reads;
    } else {
      std::memcpy(ram.data() + (a - kIova), p.get_data_ptr(), p.get_data_length());
      ++dma_writes;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  std::uint32_t access(bool write, std::uint32_t off, std::uint32_t value = 0, unsigned bytes = 4) {
    tlm::tlm_generic_payload p;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    std::uint8_t data[8] = {};
    std::memcpy(data, &value, 4);
    p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(off);
    p.set_data_ptr(data);
    p.set_data_length(bytes);
    p.set_streaming_width(bytes);
    mmio->b_transport(p, delay);
    wait(delay);  // the access takes the time the target says
    if (!p.is_response_ok()) last_bad_status = p.get_response_status();
    std::uint32_t v;
    std::memcpy(&v, data, 4);
    return v;
  }
  void put32(std::uint64_t off, std::uint32_t v) { std::memcpy(ram.data() + off, &v, 4); }
  void scenario() {
    reads.push_back(access(false, SCGPU_REG_BOOT_ID));
    access(false, SCGPU_REG_SCRATCH, 0, 8);  // an 8-byte access is refused
    // Channel 0: ring at +0 in host memory, one entry -> command buffer at +0x100.
    access(true, SCGPU_REG_CH_GPFIFO_BASE_LO(0), std::uint32_t(kIova));
    access(true, SCGPU_REG_CH_GPFIFO_BASE_HI(0), 0);
    access(true, SCGPU_REG_CH_GPFIFO_ENTRIES(0), 4);
    access(true, SCGPU_REG_CH_CONTROL(0), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK);
    access(true, SCGPU_REG_INTR_ENABLE, SCGPU_INTR_STATUS_CHANNEL_MASK);
    const std::uint32_t cmds[] = {SCGPU_CMD_HEADER(SCGPU_METHOD_SEM_RELEASE, 4), std::uint32_t(kIova + 0x200), 0, 77, 3,
                                  SCGPU_CMD_HEADER(SCGPU_METHOD_INTERRUPT, 1), 5};
    std::memcpy(ram.data() + 0x100, cmds, sizeof cmds);
    scgpu_gpfifo_entry e{};
    e.buffer_addr = kIova + 0x100;
    e.length_words = sizeof cmds / 4;
    e.flags = 1;
    std::memcpy(ram.data(), &e, sizeof e);
    access(true, SCGPU_REG_CH_GP_PUT(0), 1);
    if (!device->irq()) wait(device->irq_changed);
    irq_time = sc_core::sc_time_stamp();
    reads.push_back(access(false, SCGPU_REG_INTR_STATUS));
    reads.push_back(access(false, SCGPU_REG_CH_GP_GET(0)));
    access(true, SCGPU_REG_INTR_STATUS, SCGPU_INTR_STATUS_CHANNEL_MASK);
    reads.push_back(device->irq() ? 1 : 0);
    // A ring entry pointing outside host memory: the DMA is refused, the channel stops.
    e.buffer_addr = kIova + 0x100000;
    std::memcpy(ram.data() + 16, &e, sizeof e);
    access(true, SCGPU_REG_CH_GP_PUT(0), 2);
    reads.push_back(access(false, SCGPU_REG_CH_ERROR(0)));
  }
};

TEST(HostInterfaceBlock, Bar0AndDmaThroughTlmSockets) {
  const GpuConfig config = GpuConfig::loadDefault();
  driver::DeviceModel device(config);
  const GpuParams params = GpuParams::fromConfig(config);
  HostInterfaceBlock block("host_interface", params.host, device.identity(), device);
  HostModel host("host");
  host.device = &block;
  host.mmio.bind(block.bar0);
  block.dma.bind(host.memory);
  sc_core::sc_start();

  ASSERT_EQ(host.reads.size(), 5u);
  EXPECT_EQ(host.reads[0], SCGPU_REG_BOOT_ID_RESET);
  EXPECT_EQ(host.last_bad_status, tlm::TLM_BURST_ERROR_RESPONSE) << "the 8-byte access";
  EXPECT_EQ(host.reads[1], SCGPU_INTR_STATUS_CHANNEL_MASK);
  EXPECT_EQ(host.reads[2], 1u);
  EXPECT_EQ(host.reads[3], 0u) << "the line dropped after the W1C";
  EXPECT_EQ(host.reads[4], SCGPU_ERROR_KIND_BAD_ADDRESS);
  // The semaphore was written by DMA with its timestamp.
  std::uint32_t sem;
  std::memcpy(&sem, host.ram.data() + 0x200, 4);
  EXPECT_EQ(sem, 77u);
  // Entry + buffer read for the first entry, entry read for the second: 3 reads; 1 write.
  EXPECT_EQ(host.dma_reads, 3u);
  EXPECT_EQ(host.dma_writes, 1u);
  EXPECT_EQ(host.refused, 1u);
  // BOOT_ID, five set-up writes and the doorbell take one MMIO latency each (the refused 8-byte
  // access takes none); the work the doorbell starts completes within the doorbell's access, so
  // the line is up when the doorbell returns: at 7 x mmio latency.
  EXPECT_EQ(host.irq_time, sc_core::sc_time(7.0 * params.host.mmio_latency_ns, sc_core::SC_NS));
}

}  // namespace
}  // namespace scgpu::host
