// The host interface of the chip as plain C++: the BAR0 register file (tlm/host/registers.yaml,
// through the generated tlm/host/scgpu_regs.h), interrupts, the timer, the error registers, and
// the front end that fetches each channel's GPFIFO entries and command buffers and executes their
// methods. It touches the rest of the device only through two ports:
// - DevicePort: device memory, mappings, modules and kernel launches (the chip side);
// - HostMemoryPort: the host's memory, reached by DMA (the transport provides it).
// The SystemC wrapper (host_interface_block.h) puts it behind a TLM target socket for BAR0 and an
// initiator socket for DMA.
//
// Progress: MMIO writes are posted (PCIe): a doorbell only records when the channel's work became
// visible. An MMIO read (and a look at the interrupt line) lets the front end run first
// (service()), until no channel can move: the host sees the device after the work it queued. Inside
// service() the channels run side by side in device time, as an event-driven simulation: the
// channel whose next step is earliest goes first (ties: higher priority, then lower index), each
// command takes its modelled time (fetches and copies over PCIe from the config's latency and
// bandwidth, copies on the copy engine of their direction, kernels as long as the device port
// runs them), and a LAUNCH holds its channel until the kernel completes while other channels go on
// - so kernels of different channels, and copies and kernels, overlap. Device time also advances
// by every MMIO access's latency.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tlm/host/host_params.h"

namespace scgpu::host {

// A launch as LAUNCH_DESC describes it, read from device memory.
struct LaunchRequest {
  std::uint64_t page_table_root = 0;  // the channel's (0: physical addresses)
  std::uint32_t module_slot = 0;
  std::string entry;
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t shared_bytes = 0;
  std::vector<std::uint8_t> params;
  std::uint64_t grid_sync_addr = 0;  // LAUNCH_DESC.GRID_SYNC_ADDR: a cooperative launch when not 0
  std::uint32_t cluster[3] = {0, 0, 0};  // LAUNCH_DESC.CLUSTER_*: all 0, the kernel's own (or 1x1x1)
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
  std::uint32_t mmu_fault = 0;  // page faults: ERR_MMU_FAULT
};

// A translation that failed on an access of a command (ERR_ADDR and ERR_MMU_FAULT).
struct PageFault {
  std::uint64_t va = 0;
  std::uint32_t mmu_fault = 0;  // level | reason << 4 | write << 8
};

// The chip side of the host interface.
class DevicePort {
 public:
  virtual ~DevicePort() = default;
  // The address space of the commands that follow: a channel's page-table root (0: addresses are
  // physical). Device memory accesses below translate through it.
  virtual void setAddressSpace(std::uint64_t root) = 0;
  // Drops every translation of `root` the MMU holds (MMU_INVALIDATE).
  virtual void invalidateTranslations(std::uint64_t root) = 0;
  // After an access below failed: true (once) when a translation failed, with where.
  virtual bool takePageFault(PageFault* fault) = 0;
  // Device memory; false when any byte lies outside a mapping or its translation fails.
  virtual bool read(std::uint64_t addr, void* dst, std::uint64_t bytes) = 0;
  virtual bool write(std::uint64_t addr, const void* src, std::uint64_t bytes) = 0;
  virtual bool fill(std::uint64_t addr, std::uint8_t value, std::uint64_t bytes) = 0;
  // Mappings (MAP/UNMAP); false with a reason when refused.
  virtual bool map(std::uint64_t va, std::uint64_t bytes, std::string* why) = 0;
  virtual bool unmap(std::uint64_t va, std::string* why) = 0;
  // Modules (LOAD_MODULE/UNLOAD_MODULE); false with a reason when refused.
  virtual bool loadModule(std::uint32_t slot, const std::string& ptx, std::uint64_t globals_va, std::string* why) = 0;
  virtual bool unloadModule(std::uint32_t slot, std::string* why) = 0;
  // Starts a kernel at device time `now_ns` (the device has been advanced to it; kernels already
  // running go on beside it): its id (above 0), or 0 with `refused` filled in (error_kind
  // LAUNCH_REFUSED and why) when it cannot start. `priority` is its channel's.
  virtual std::uint32_t startLaunch(const LaunchRequest& request, std::uint32_t channel, std::uint32_t priority,
                                    std::uint64_t now_ns, LaunchOutcome* refused) = 0;
  // Runs the device's kernels up to device time `until_ns` (kNoBound: until the next completion),
  // and gives the first launch that completed by then (at `end_ns`), if any; call again for more.
  virtual std::optional<std::pair<std::uint32_t, LaunchOutcome>> advance(std::uint64_t until_ns,
                                                                        std::uint64_t* end_ns) = 0;
  // Kernels started and not yet given back by advance().
  virtual bool busy() const = 0;
  // For timelines: copy engine `engine` (0 host to device, 1 device to host, 2 within the device)
  // moved `bytes` for `channel` between two device times.
  virtual void noteCopy(std::uint32_t /*engine*/, std::uint32_t /*channel*/, std::uint64_t /*bytes*/,
                        std::uint64_t /*start_ns*/, std::uint64_t /*end_ns*/) {}
  static constexpr std::uint64_t kNoBound = ~std::uint64_t{0};
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
  // INTR_STATUS and the interrupt line right after the event.
  std::uint32_t intr_status = 0;
  bool line = false;
};

class HostInterface {
 public:
  HostInterface(const HostParams& params, const DeviceIdentity& identity, DevicePort& device, HostMemoryPort& host);

  // BAR0 accesses of 32 bits. Each costs params.mmio_latency_ns of device time; a read first lets
  // the front end run. Unaligned or undefined offsets read SCGPU_UNDEFINED_READ_VALUE and set
  // STATUS.BAD_ACCESS; writes to them are dropped.
  std::uint32_t read(std::uint32_t offset);
  void write(std::uint32_t offset, std::uint32_t value);

  // The interrupt line: (INTR_STATUS & INTR_ENABLE) != 0 and INTR_MASK.ALL == 0.
  bool interruptLine() const;
  // The line as the host sees it when it looks: the front end runs first, as for a read.
  bool pollInterrupt();
  std::uint32_t interruptStatus() const { return intr_status_; }
  // Device time in ns.
  std::uint64_t timeNs() const { return now_ns_; }
  // The host spends `ns` on its own work before its next access (the device runs meanwhile, as
  // during an access's latency).
  void elapse(std::uint64_t ns) { now_ns_ += ns; }
  // Runs the front end until no channel can make progress.
  void service();
  // True when no channel has work.
  bool idle() const;

  // Every event, when a listener is set (waveforms, the MMIO log), in time order: events of the
  // front end are delivered when it has run (channels run side by side, so they happen out of
  // order), sorted by their device time.
  void setListener(std::function<void(const HostEvent&)> listener) { listener_ = std::move(listener); }

  std::uint32_t numChannels() const { return std::uint32_t(channels_.size()); }

 private:
  struct Channel {
    std::uint64_t ring_base = 0;
    std::uint32_t ring_entries = 0;
    std::uint32_t gp_put = 0, gp_get = 0;
    std::uint32_t control = 0;
    std::uint64_t page_table = 0;  // CH_PAGE_TABLE: the root of its address space (0: none)
    std::uint32_t error = 0;
    std::uint32_t intr_payload = 0;
    bool waiting = false;   // on a SEM_ACQUIRE not yet satisfied
    bool recheck = false;   // ... and something may have released it: try again
    std::uint64_t ready_ns = 0;  // device time from which the channel can take its next step
    // A LAUNCH in flight holds the channel until its kernel completes; what its fault would report.
    std::uint32_t kernel = 0;
    std::uint32_t kernel_header = 0, kernel_word = 0, kernel_entry = 0, kernel_module = 0, kernel_launch = 0;
    // The entry being executed: its command buffer and where in it the next command starts.
    bool have_entry = false;
    std::vector<std::uint32_t> buffer;
    std::uint32_t next_word = 0;
    bool prefetch_tried = false;  // the entry after the kernel in flight was read ahead (fetchEntry)
    // When each entry became visible: GP_PUT writes (the put value, the device time), oldest first,
    // covering the entries from puts_from on; and when the channel's last fetched entry arrived.
    // The fetcher reads an entry as soon as it is visible, its reads pipelined, whatever the
    // commands before it are doing (fetchEntry).
    std::deque<std::pair<std::uint32_t, std::uint64_t>> puts;
    std::uint32_t puts_from = 0;
    std::uint64_t fetch_free_ns = 0;
    std::uint64_t fetch_gate_ns = 0;  // no fetch before: the channel enabled, fetching resumed (QUIESCE)
  };
  struct ErrorInfo {
    std::uint32_t kind = 0, channel = 0, gp_entry = 0, method = 0, word = 0;
    std::uint64_t address = 0;
    std::uint32_t module = 0, launch = 0, block[3] = {0, 0, 0}, warp = 0, lane = 0, pc = 0, ptx_line = 0;
    std::uint32_t mmu_fault = 0;
  };
  // Copy engines, one per direction: host to device, device to host, within the device.
  enum CopyEngine : std::uint32_t { kHostToDevice = 0, kDeviceToHost = 1, kWithinDevice = 2, kCopyEngines = 3 };

  void resetDevice();
  void resetChannel(Channel& ch);
  std::uint32_t readRegister(std::uint32_t offset, bool* defined);
  bool writeRegister(std::uint32_t offset, std::uint32_t value);
  // One step of a runnable channel (runnable()) at t_: fetch its next ring entry, or execute its
  // next command.
  void step(std::uint32_t c);
  // Reads the entry at GP_GET and its command buffer, or on a bad one stops the channel; with
  // report false (read ahead while the channel's kernel runs) a bad one is left for later.
  void fetchEntry(std::uint32_t c, bool report = true);
  // The device time from which the entry at GP_GET was visible (its GP_PUT write).
  std::uint64_t visibleNs(Channel& ch) const;
  // Channel c can take a step (enabled, no error, no kernel in flight, work or a recheck to do).
  bool runnable(std::uint32_t c) const;
  // A kernel completed at `end_ns`: its channel goes on (or stops on its fault).
  void completeLaunch(std::uint32_t kernel, const LaunchOutcome& o, std::uint64_t end_ns);
  // Every channel waiting on a SEM_ACQUIRE looks at its semaphore again, from `at_ns` on (something
  // may have released it then).
  void wakeWaiters(std::uint64_t at_ns);
  // Takes every completion up to t_ from the device.
  void collectCompletions();
  // Occupies copy engine `e` for `duration` ns from t_ (or from when it frees up); moves t_ to the
  // end.
  void useEngine(std::uint32_t c, CopyEngine e, std::uint64_t bytes, std::uint64_t duration, bool note = true);
  // A copy over PCIe on engine `e` (host to device or device to host) for channel c: the latency,
  // then the bytes at the link's bandwidth - at its pcie_duplex_bandwidth_fraction instead while
  // the other direction moves data too, which also stretches the copy in flight there.
  void pcieCopy(std::uint32_t c, CopyEngine e, std::uint64_t bytes);
  // Executes the command at ch.next_word; false when it blocks (SEM_ACQUIRE not yet satisfied).
  bool execute(std::uint32_t c, std::uint32_t header, const std::uint32_t* args, std::uint32_t count);
  void stopChannel(std::uint32_t c, std::uint32_t kind, std::uint32_t method, std::uint32_t word,
                   std::uint64_t address, const std::string& message);
  // Stops channel c on error `e` (its channel and ring entry filled in here): the channel's
  // CH_ERROR, the error registers (the first error is kept), the message, and the interrupt
  // (FAULT for a kernel fault, ERROR otherwise).
  // gp_entry: the ring entry to report (~0u: the one at GP_GET).
  void stopChannel(std::uint32_t c, ErrorInfo e, const std::string& message, std::uint32_t gp_entry = ~0u);
  void recordError(const ErrorInfo& e);
  void raise(std::uint32_t status_bits);
  bool memRead(bool in_host, std::uint64_t addr, void* dst, std::uint64_t bytes);
  bool memWrite(bool in_host, std::uint64_t addr, const void* src, std::uint64_t bytes);
  std::uint64_t transferNs(bool host_side, std::uint64_t bytes) const;
  // A PCIe transfer of `bytes` at `bandwidth` bytes/ns: the link's latency, then the bytes.
  std::uint64_t pcieNs(std::uint64_t bytes, double bandwidth) const;
  void emit(HostEvent::Kind kind, std::uint32_t channel, std::uint32_t what, std::uint64_t value);

  HostParams params_;
  DeviceIdentity identity_;
  DevicePort& device_;
  HostMemoryPort& host_;
  std::vector<Channel> channels_;
  std::uint64_t now_ns_ = 0;  // the host's view of device time
  std::uint64_t t_ = 0;       // inside service(): the device time of the step being executed
  std::array<std::uint64_t, kCopyEngines> engine_free_ns_{};
  // The last PCIe copy of each direction: whose, and when its data phase starts and ends.
  struct PcieTransfer {
    std::uint32_t channel = 0;
    std::uint64_t start = 0, data_start = 0, end = 0, bytes = 0;
    double bandwidth = 0;
    bool noted = true;  // shown on the timeline (once its end is final)
  };
  std::array<PcieTransfer, 2> pcie_{};
  void notePcie(PcieTransfer& t, CopyEngine e);
  std::uint32_t scratch_ = 0, quiesce_ = 0;
  std::uint32_t intr_status_ = 0, intr_enable_ = 0, intr_channel_ = 0, intr_mask_ = 0;
  bool bad_access_ = false;
  std::uint32_t timer_hi_latch_ = 0;
  ErrorInfo error_;
  std::uint32_t launches_ = 0;
  bool in_service_ = false;
  std::vector<HostEvent> service_events_;  // emitted inside service(), delivered sorted at its end
  std::function<void(const HostEvent&)> listener_;

 public:
  // The last message of a stopped channel or fault (for logs; the registers carry the codes).
  const std::string& lastErrorMessage() const { return last_message_; }

 private:
  std::string last_message_;
};

}  // namespace scgpu::host
