#include "tlm/host/host_interface_block.h"

#include <cstring>

namespace scgpu::host {

HostInterfaceBlock::HostInterfaceBlock(sc_core::sc_module_name name, const HostParams& params,
                                       const DeviceIdentity& identity, DevicePort& device)
    : sc_module(name), bar0("bar0"), dma("dma"), params_(params), hif_(params, identity, device, *this) {
  bar0.register_b_transport(this, &HostInterfaceBlock::bar0Transport);
  bar0.register_transport_dbg(this, &HostInterfaceBlock::bar0Debug);
  SC_HAS_PROCESS(HostInterfaceBlock);
  SC_METHOD(frontEnd);
  sensitive << posted_;
  dont_initialize();
}

void HostInterfaceBlock::frontEnd() {
  const bool line_before = hif_.interruptLine();
  if (hif_.pollInterrupt() != line_before) irq_changed.notify(sc_core::SC_ZERO_TIME);
}

void HostInterfaceBlock::bar0Transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  // BAR0 takes single 32-bit accesses, as PCIe MMIO of a 32-bit register file does.
  if (p.get_data_length() != 4 || p.get_streaming_width() < 4 || p.get_byte_enable_ptr() ||
      p.get_address() > 0xFFFFFFFFull) {
    p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const bool line_before = hif_.interruptLine();
  const auto offset = std::uint32_t(p.get_address());
  std::uint32_t value = 0;
  if (p.is_read()) {
    value = hif_.read(offset);
    std::memcpy(p.get_data_ptr(), &value, 4);
  } else if (p.is_write()) {
    std::memcpy(&value, p.get_data_ptr(), 4);
    hif_.write(offset, value);
  } else {
    p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  delay += sc_core::sc_time(double(params_.mmio_latency_ns), sc_core::SC_NS);
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  if (hif_.interruptLine() != line_before) irq_changed.notify(delay);
  if (p.is_write()) posted_.notify(delay);
}

// Debug access (tools, waveform viewers): reads without side effects are not possible for every
// register (TIMER_LO latches, the front end runs on every access), so debug access is refused.
unsigned HostInterfaceBlock::bar0Debug(tlm::tlm_generic_payload&) { return 0; }

bool HostInterfaceBlock::dmaTransfer(tlm::tlm_command cmd, std::uint64_t iova, void* data, std::uint64_t bytes) {
  tlm::tlm_generic_payload p;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  p.set_command(cmd);
  p.set_address(iova);
  p.set_data_ptr(static_cast<unsigned char*>(data));
  if (bytes > 0xFFFFFFFFull) return false;
  p.set_data_length(unsigned(bytes));
  p.set_streaming_width(unsigned(bytes));
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  dma->b_transport(p, delay);
  return p.is_response_ok();
}

bool HostInterfaceBlock::dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) {
  return dmaTransfer(tlm::TLM_READ_COMMAND, iova, dst, bytes);
}
bool HostInterfaceBlock::dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) {
  return dmaTransfer(tlm::TLM_WRITE_COMMAND, iova, const_cast<void*>(src), bytes);
}

}  // namespace scgpu::host
