// Parameters of the host interface (config section `host`): channels and the PCIe link.
#pragma once

#include <cstdint>

namespace scgpu::host {

struct HostParams {
  std::uint32_t channels = 8;                // GPFIFO channels (at most SCGPU_CH_MAX_COUNT)
  std::uint32_t mmio_latency_ns = 1000;      // one BAR0 register access across PCIe
  std::uint32_t pcie_latency_ns = 2000;      // first byte of a DMA transfer
  double pcie_bandwidth_bytes_per_ns = 25;   // host <-> device DMA
  double pcie_duplex_bandwidth_fraction = 1;  // of pcie_bandwidth, each direction while both move data
  double copy_bandwidth_bytes_per_ns = 1000; // device <-> device copies (bytes copied)
  double memset_bandwidth_bytes_per_ns = 2000; // memsets (bytes written)
  std::uint32_t command_latency_ns = 100;    // front end: one method decoded and dispatched
  // Host time the CUDA runtime and driver spend on one kernel launch call before its doorbell: a
  // program that launches back to back submits no faster than this (driver::Runtime's warm repeats).
  std::uint32_t launch_call_ns = 0;
};

}  // namespace scgpu::host
