// The host interface as a block of the chip: a SystemC module around HostInterface with
// - `bar0`, a TLM-2.0 target socket: 4-byte reads and writes at BAR0 offsets (blocking transport;
//   each access adds host.mmio_latency_ns to the caller's delay), and
// - `dma`, a TLM-2.0 initiator socket: the device's reads and writes of host memory, issued as
//   blocking transactions at the IOVAs the driver gave it; a response other than OK is a refusal
//   (the command that asked for it stops its channel with BAD_ADDRESS).
// The interrupt line is `irq()`, with `irq_changed` notified whenever it may have changed.
// BAR0 writes are posted: a write wakes the front end, a process of the block, which runs the work
// at the end of the access's delay; a read runs it first (the HostInterface rules).
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/host/host_interface.h"

namespace scgpu::host {

class HostInterfaceBlock : public sc_core::sc_module, private HostMemoryPort {
 public:
  tlm_utils::simple_target_socket<HostInterfaceBlock> bar0;
  tlm_utils::simple_initiator_socket<HostInterfaceBlock> dma;
  sc_core::sc_event irq_changed;

  HostInterfaceBlock(sc_core::sc_module_name name, const HostParams& params, const DeviceIdentity& identity,
                     DevicePort& device);

  bool irq() const { return hif_.interruptLine(); }
  HostInterface& core() { return hif_; }

 private:
  void bar0Transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned bar0Debug(tlm::tlm_generic_payload& p);
  bool dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) override;
  bool dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) override;
  bool dmaTransfer(tlm::tlm_command cmd, std::uint64_t iova, void* data, std::uint64_t bytes);
  void frontEnd();
  sc_core::sc_event posted_;

  HostParams params_;
  HostInterface hif_;
};

}  // namespace scgpu::host
