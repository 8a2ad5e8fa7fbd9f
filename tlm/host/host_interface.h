// The host interface of the chip as plain C++: the BAR0 register file (tlm/host/registers.yaml,
// through the generated tlm/host/scgpu_regs.h), interrupts, the timer, the error registers, and
// the front end that fetches each channel's GPFIFO entries and command buffers and executes their
// methods. It touches the rest of the device only through two ports:
// - DevicePort: device memory, mappings, modules and kernel launches (the chip side);
// - HostMemoryPort: the host's memory, reached by DMA (the transport provides it).
// The SystemC wrapper (host_interface_block.h) puts it behind a TLM target socket for BAR0 and an
// initiator socket for DMA.
//
// Progress: the front end runs inside every MMIO access (service()): channels are served in
// priority order (then by index), each executing commands until it empties, blocks on a
// SEM_ACQUIRE or stops on an error, until no channel can move. Work completes in device time,
// which advances by each command's modelled duration (PCIe transfers from the config's latency and
// bandwidth, kernels by what the device port reports) and by every MMIO access's latency.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tlm/host/host_params.h"

namespace scgpu::host {

// A launch as LAUNCH_DESC describes it, read from device memory.
struct LaunchRequest {
  std::uint32_t module_slot = 0;
  std::string entry;
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t shared_bytes = 0;
  std::vector<std::uint8_t> params;
};

// How a launch ended. `error_kind` is an SCGPU_ERROR_KIND_* value (NONE when it ran clean).
struct LaunchOutcome {
  std::uint32_t error_kind = 0;
  std::string message;      // for a refusal or a fault: what and where
  std::uint64_t duration_ns = 0;
  // Fault location (kernel faults only).
  std::uint64_t address = 0;
  std::uint32_t block[3] = {0, 0, 0};
  std::uint32_t warp = 0, lane = 0, pc = 0, ptx_line = 0;
};

// The chip side of the host interface.
class DevicePort {
 public:
  virtual ~DevicePort() = default;
  // Device memory; false when any byte lies outside a mapping.
  virtual bool read(std::uint64_t addr, void* dst, std::uint64_t bytes) = 0;
  virtual bool write(std::uint64_t addr, const void* src, std::uint64_t bytes) = 0;
  virtual bool fill(std::uint64_t addr, std::uint8_t value, std::uint64_t bytes) = 0;
  // Mappings (MAP/UNMAP); false with a reason when refused.
  virtual bool map(std::uint64_t va, std::uint64_t bytes, std::string* why) = 0;
  virtual bool unmap(std::uint64_t va, std::string* why) = 0;
  // Modules (LOAD_MODULE/UNLOAD_MODULE); false with a reason when refused.
  virtual bool loadModule(std::uint32_t slot, const std::string& ptx, std::uint64_t globals_va, std::string* why) = 0;
  virtual bool unloadModule(std::uint32_t slot, std::string* why) = 0;
  // Runs a kernel to completion.
  virtual LaunchOutcome launch(const LaunchRequest& request) = 0;
  // Drops every module and mapping (device reset).
  virtual void reset() = 0;
};

// The host's memory as the device sees it over PCIe: false when the host refuses the range.
class HostMemoryPort {
 public:
  virtual ~HostMemoryPort() = default;
  virtual bool dmaRead(std::uint64_t iova, void* dst, std::uint64_t bytes) = 0;
  virtual bool dmaWrite(std::uint64_t iova, const void* src, std::uint64_t bytes) = 0;
};

// Fixed facts of the device, for the identification registers.
struct DeviceIdentity {
  std::uint32_t cc_major = 9, cc_minor = 0;
  std::uint32_t num_sms = 1;
  std::uint64_t memory_bytes = 0;
  double core_clock_mhz = 1000;
  std::uint64_t const_memory_bytes = 65536;
  std::uint64_t shared_per_block_bytes = 49152;
  bool timing = false;
};

// One event for waveforms and logs: an MMIO access, a doorbell, a command, an interrupt.
struct HostEvent {
  // MmioRead/MmioWrite: offset, value (a doorbell is also a MmioWrite with its channel);
  // Command/CommandDone: a method starts and completes (method, header word index);
  // GpGet: the front end consumed an entry (value: the new GP_GET);
  // Interrupt: INTR_STATUS bits raised (value: INTR_STATUS); Error: a channel stopped (value: kind).
  enum class Kind { MmioRead, MmioWrite, Command, CommandDone, GpGet, Interrupt, Error };
  Kind kind;
  std::uint64_t time_ns;
  std::uint32_t channel;  // ~0u for device-wide events
  std::uint32_t offset_or_method;
  std::uint64_t value;
};

class HostInterface {
 public:
  HostInterface(const HostParams& params, const DeviceIdentity& identity, DevicePort& device, HostMemoryPort& host);

  // BAR0 accesses of 32 bits. Each costs params.mmio_latency_ns of device time, then lets the front
  // end run. Unaligned or undefined offsets read SCGPU_UNDEFINED_READ_VALUE and set
  // STATUS.BAD_ACCESS; writes to them are dropped.
  std::uint32_t read(std::uint32_t offset);
  void write(std::uint32_t offset, std::uint32_t value);

  // The interrupt line: (INTR_STATUS & INTR_ENABLE) != 0 and INTR_MASK.ALL == 0.
  bool interruptLine() const;
  std::uint32_t interruptStatus() const { return intr_status_; }
  // Device time in ns.
  std::uint64_t timeNs() const { return now_ns_; }
  // Runs the front end until no channel can make progress.
  void service();
  // True when no channel has work.
  bool idle() const;

  // Every event, when a listener is set (waveforms, the MMIO log).
  void setListener(std::function<void(const HostEvent&)> listener) { listener_ = std::move(listener); }

  std::uint32_t numChannels() const { return std::uint32_t(channels_.size()); }

 private:
  struct Channel {
    std::uint64_t ring_base = 0;
    std::uint32_t ring_entries = 0;
    std::uint32_t gp_put = 0, gp_get = 0;
    std::uint32_t control = 0;
    std::uint32_t error = 0;
    std::uint32_t intr_payload = 0;
    bool waiting = false;
    // The entry being executed: its command buffer and where in it the next command starts.
    bool have_entry = false;
    std::vector<std::uint32_t> buffer;
    std::uint32_t next_word = 0;
  };
  struct ErrorInfo {
    std::uint32_t kind = 0, channel = 0, gp_entry = 0, method = 0, word = 0;
    std::uint64_t address = 0;
    std::uint32_t module = 0, launch = 0, block[3] = {0, 0, 0}, warp = 0, lane = 0, pc = 0, ptx_line = 0;
  };
  enum class Step { Progress, Blocked, Empty };

  void resetDevice();
  void resetChannel(Channel& ch);
  std::uint32_t readRegister(std::uint32_t offset, bool* defined);
  bool writeRegister(std::uint32_t offset, std::uint32_t value);
  Step step(std::uint32_t c);
  bool fetchEntry(std::uint32_t c);
  // Executes the command at ch.next_word; false when it blocks (SEM_ACQUIRE not yet satisfied).
  bool execute(std::uint32_t c, std::uint32_t header, const std::uint32_t* args, std::uint32_t count);
  void stopChannel(std::uint32_t c, std::uint32_t kind, std::uint32_t method, std::uint32_t word,
                   std::uint64_t address, const std::string& message);
  // Stops channel c on error `e` (its channel and ring entry filled in here): the channel's
  // CH_ERROR, the error registers (the first error is kept), the message, and the interrupt
  // (FAULT for a kernel fault, ERROR otherwise).
  void stopChannel(std::uint32_t c, ErrorInfo e, const std::string& message);
  void recordError(const ErrorInfo& e);
  void raise(std::uint32_t status_bits);
  bool memRead(bool in_host, std::uint64_t addr, void* dst, std::uint64_t bytes);
  bool memWrite(bool in_host, std::uint64_t addr, const void* src, std::uint64_t bytes);
  std::uint64_t transferNs(bool host_side, std::uint64_t bytes) const;
  void emit(HostEvent::Kind kind, std::uint32_t channel, std::uint32_t what, std::uint64_t value);

  HostParams params_;
  DeviceIdentity identity_;
  DevicePort& device_;
  HostMemoryPort& host_;
  std::vector<Channel> channels_;
  std::uint64_t now_ns_ = 0;
  std::uint32_t scratch_ = 0, quiesce_ = 0;
  std::uint32_t intr_status_ = 0, intr_enable_ = 0, intr_channel_ = 0, intr_mask_ = 0;
  bool bad_access_ = false;
  std::uint32_t timer_hi_latch_ = 0;
  ErrorInfo error_;
  std::uint32_t launches_ = 0;
  bool in_service_ = false;
  std::function<void(const HostEvent&)> listener_;

 public:
  // The last message of a stopped channel or fault (for logs; the registers carry the codes).
  const std::string& lastErrorMessage() const { return last_message_; }

 private:
  std::string last_message_;
};

}  // namespace scgpu::host
