// What the host interface did, for driver engineers: a waveform (VCD or FST, with a .gtkw) of the
// BAR0 accesses, each channel's doorbell (GP_PUT), GP_GET, the method it executes (copy-engine
// activity shows as COPY / MEMSET spans), its error, and the interrupt status and line, on the
// device's time base (ns of device time: host.* latencies, transfers and kernels' simulated time);
// and an MMIO log, one line per access: time, R/W, offset, register name, value.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tlm/host/host_interface.h"
#include "tlm/trace/tracer.h"

namespace scgpu::host {

class HostTrace {
 public:
  // Either path may be empty. Throws OutputError-like std::runtime_error when a file cannot be opened.
  HostTrace(const std::string& waveform_path, const std::string& mmio_log_path, std::uint32_t channels);
  ~HostTrace();
  void on(const HostEvent& e, bool interrupt_line, std::uint32_t interrupt_status);
  // Writes and closes the files; returns the files written (the waveform, its .gtkw, the log).
  std::vector<std::string> close();

 private:
  struct ChannelSignals {
    int gp_put = -1, gp_get = -1, method = -1, error = -1;
  };
  std::unique_ptr<trace::Tracer> tracer_;
  std::ofstream log_;
  std::string log_path_;
  int mmio_offset_ = -1, mmio_value_ = -1, mmio_access_ = -1, intr_status_ = -1, irq_ = -1;
  std::vector<ChannelSignals> ch_;
  bool closed_ = false;
  std::uint64_t last_ns_ = 0;  // the latest time traced
};

// The register's name at a BAR0 offset ("CH_GP_PUT[3]", "SCRATCH"), or "undefined".
std::string registerName(std::uint32_t offset);
// A method's name ("COPY"), or "method 0x1234".
std::string methodName(std::uint32_t method);

}  // namespace scgpu::host
