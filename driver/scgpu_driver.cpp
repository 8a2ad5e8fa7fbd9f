// The user-mode driver behind scgpu_driver.h. It owns the device's address space (a first-fit
// allocator of 256-byte-aligned ranges, mapped with MAP), the host memory the device may reach
// (an IOVA table of registered buffers: rings, command buffers, staging, semaphores, the
// caller's buffers of asynchronous copies), one channel per stream, and the page tables every
// channel translates through (one address space per device handle, as one CUDA context has).
// Nothing here calls the device model: every effect goes through Transport (registers) and the
// rings.
//
// Page tables: physical memory is taken with MAP at the same address as the virtual range that
// uses it (an identity layout keeps the allocator simple), and the tables map each 2 MiB page any
// allocation touches (the H100's page size, docs/validation.md "TLB"). A page stays mapped after
// its allocations are freed (their physical memory is gone: an access there is an illegal
// address); an address in no mapped page is a page fault.
#include "driver/scgpu_driver.h"

#include <algorithm>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "driver/driver_internal.h"
#include "driver/inprocess_transport.h"
#include "driver/module.h"
#include "driver/runtime.h"
#include "driver/transport.h"
#include "memsys/page_table.h"
#include "ptx/decoder.h"
#include "ptx/ir.h"
#include "ptx/parser.h"
#include "tlm/gpu_config.h"
#include "tlm/host/scgpu_regs.h"

namespace {

using scgpu::driver::Transport;

constexpr std::uint64_t kVaBase = 0x0000'7000'0000'0000ull;  // where the caller's allocations start
// The driver's own device memory (stream arenas, module images) lives apart, so the addresses
// callers get do not depend on what the driver needed before.
constexpr std::uint64_t kInternalVaBase = 0x0000'7F00'0000'0000ull;
constexpr std::uint64_t kVaAlign = 256;
constexpr std::uint64_t kIovaBase = 0x0000'1000'0000ull;       // where host registrations start
constexpr std::uint32_t kRingEntries = 256;
constexpr std::uint64_t kArenaBytes = 64 * 1024;  // per stream: launch descriptors, names, parameters
// The page tables' pool: physical memory of its own, mapped into the tables too (the tables are
// written by COPY commands of a channel that translates).
constexpr std::uint64_t kPageTableBase = 0x0000'7E00'0000'0000ull;
constexpr std::uint64_t kPageTablePoolBytes = 4ull << 20;
constexpr std::uint64_t kPageBytes = 2ull << 20;
constexpr std::uint32_t kMaxPolls = 1u << 20;     // of a synchronising wait before it gives up
constexpr std::uint32_t kWaitingPolls = 1000;     // ... while the channel waits on a semaphore
std::string g_open_error;                         // why the last scgpu_open failed

std::uint32_t lo(std::uint64_t v) { return std::uint32_t(v); }
std::uint32_t hi(std::uint64_t v) { return std::uint32_t(v >> 32); }
std::uint64_t roundUp(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

struct scgpu_event {
  scgpu_device* device = nullptr;
  std::uint8_t record[16] = {};  // SEM_RELEASE with timestamp lands here: value, 0, time in ns
  std::uint64_t iova = 0;
  bool recorded = false;
};

struct scgpu_stream {
  scgpu_device* device = nullptr;
  std::uint32_t channel = 0;
  std::vector<std::uint8_t> ring;  // kRingEntries GPFIFO entries, in host memory
  std::uint64_t ring_iova = 0;
  std::uint32_t put = 0;
  std::uint32_t get = 0;           // GP_GET as last read: the ring has room up to it
  std::uint32_t semaphore = 0;     // completion semaphore, in host memory
  std::uint64_t semaphore_iova = 0;
  std::uint32_t submitted = 0;     // value the last completion release writes
  // Host memory the pending work uses: released at synchronisation.
  std::list<std::vector<std::uint32_t>> buffers;
  std::list<std::vector<std::uint8_t>> staging;
  std::vector<std::uint64_t> iovas;
  scgpu_devptr arena = 0;
  std::uint64_t arena_used = 0;
};

struct scgpu_device : scgpu::host::HostMemoryPort {
  std::unique_ptr<Transport> transport;
  std::string last_error;
  scgpu_error_info info{};
  std::uint32_t num_channels = 0;
  // Limits from the capability registers.
  std::uint64_t memory_bytes = 0, const_memory_bytes = 0, shared_per_block_bytes = 0;
  std::vector<bool> channel_used;
  std::unique_ptr<scgpu_stream> control;  // channel 0: MAP, UNMAP, LOAD_MODULE, synchronous copies
  std::vector<scgpu_stream*> streams;
  std::vector<scgpu_event*> events;
  // Device address space: first fit among freed ranges, in address order, else at the end.
  struct AddressSpace {
    std::uint64_t base, next;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> holes;  // freed ranges, by address
    std::uint64_t take(std::uint64_t size) {
      for (auto it = holes.begin(); it != holes.end(); ++it)
        if (it->second >= size) {
          const std::uint64_t va = it->first;
          if (it->second == size) holes.erase(it);
          else {
            it->first += size;
            it->second -= size;
          }
          return va;
        }
      const std::uint64_t va = next;
      next += size;
      return va;
    }
    void give(std::uint64_t va, std::uint64_t size) {
      holes.emplace_back(va, size);
      std::sort(holes.begin(), holes.end());
    }
    void clear() {
      next = base;
      holes.clear();
    }
  };
  AddressSpace user{kVaBase, kVaBase, {}}, internal{kInternalVaBase, kInternalVaBase, {}};
  struct Allocation {
    std::uint64_t rounded, requested;
    bool internal;
  };
  std::map<std::uint64_t, Allocation> allocations;  // by base
  // The page tables: a host copy of the pool, what of it changed since the last upload, and the
  // 2 MiB pages mapped.
  struct PageTables {
    std::vector<std::uint8_t> shadow;
    std::uint64_t used = 0;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> dirty;  // (offset, bytes) of tables written
    std::unique_ptr<scgpu::memsys::PageTableBuilder> builder;
    std::set<std::uint64_t> pages;
    std::uint64_t root() const { return builder ? builder->root() : 0; }
  } tables;
  // Host memory the device may reach.
  std::map<std::uint64_t, std::pair<std::uint8_t*, std::uint64_t>> iova;  // iova -> (host, bytes)
  std::uint64_t next_iova = kIovaBase;
  // Modules: slot -> variables (name -> address, size).
  struct ModuleInfo {
    bool used = false;
    scgpu_devptr globals = 0;
    std::map<std::string, std::pair<scgpu_devptr, std::uint64_t>> symbols;
    std::unique_ptr<scgpu::driver::Module> decoded;  // as the driver compiled it
  };
  std::vector<ModuleInfo> modules = std::vector<ModuleInfo>(256);

  bool dmaRead(std::uint64_t addr, void* dst, std::uint64_t bytes) override {
    std::uint8_t* p = find(addr, bytes);
    if (!p) return false;
    std::memcpy(dst, p, bytes);
    return true;
  }
  bool dmaWrite(std::uint64_t addr, const void* src, std::uint64_t bytes) override {
    std::uint8_t* p = find(addr, bytes);
    if (!p) return false;
    std::memcpy(p, src, bytes);
    return true;
  }
  std::uint8_t* find(std::uint64_t addr, std::uint64_t bytes) {
    auto it = iova.upper_bound(addr);
    if (it == iova.begin()) return nullptr;
    --it;
    const std::uint64_t off = addr - it->first;
    if (off > it->second.second || bytes > it->second.second - off) return nullptr;
    return it->second.first + off;
  }
  std::uint64_t registerHost(const void* p, std::uint64_t bytes) {
    const std::uint64_t a = next_iova;
    iova[a] = {static_cast<std::uint8_t*>(const_cast<void*>(p)), bytes};
    next_iova += roundUp(std::max<std::uint64_t>(bytes, 1), 4096) + 4096;  // a guard page between
    return a;
  }
  void unregisterHost(std::uint64_t a) { iova.erase(a); }

  scgpu_status fail(scgpu_status s, std::string message) {
    last_error = std::move(message);
    return s;
  }
  std::uint32_t rd(std::uint32_t off) { return transport->mmioRead(off); }
  void wr(std::uint32_t off, std::uint32_t v) { transport->mmioWrite(off, v); }
};

namespace {

// ---- rings and synchronisation ------------------------------------------------------------------

scgpu_status synchronize(scgpu_stream* s);

void setupChannel(scgpu_stream* s, unsigned priority) {
  scgpu_device* d = s->device;
  s->ring.assign(std::size_t(kRingEntries) * SCGPU_GPFIFO_ENTRY_SIZE_BYTES, 0);
  s->ring_iova = d->registerHost(s->ring.data(), s->ring.size());
  s->semaphore_iova = d->registerHost(&s->semaphore, sizeof s->semaphore);
  const std::uint32_t c = s->channel;
  d->wr(SCGPU_REG_CH_RESET(c), SCGPU_CH_RESET_CHANNEL_MASK);
  d->wr(SCGPU_REG_CH_GPFIFO_BASE_LO(c), lo(s->ring_iova));
  d->wr(SCGPU_REG_CH_GPFIFO_BASE_HI(c), hi(s->ring_iova));
  d->wr(SCGPU_REG_CH_GPFIFO_ENTRIES(c), kRingEntries);
  d->wr(SCGPU_REG_CH_PAGE_TABLE_LO(c), lo(d->tables.root()));
  d->wr(SCGPU_REG_CH_PAGE_TABLE_HI(c), hi(d->tables.root()));
  d->wr(SCGPU_REG_CH_CONTROL(c), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK |
                                     ((priority << SCGPU_CH_CONTROL_PRIORITY_SHIFT) & SCGPU_CH_CONTROL_PRIORITY_MASK));
}

scgpu_status channelError(scgpu_stream* s);

// Waits until the ring has room for one more entry: writing at GP_PUT must not make GP_PUT equal
// GP_GET, which the front end would read as an empty ring.
// GP_GET is read only when the ring looks full by its last known value: a read lets the device
// run first, so reading on every submission would serialise the streams (the doorbell writes are
// posted; work queued on several streams between two reads runs side by side).
scgpu_status waitForRoom(scgpu_stream* s) {
  scgpu_device* d = s->device;
  if ((s->put + 1) % kRingEntries != s->get) return SCGPU_SUCCESS;
  for (std::uint32_t polls = 0;; ++polls) {
    s->get = d->rd(SCGPU_REG_CH_GP_GET(s->channel));
    if ((s->put + 1) % kRingEntries != s->get) return SCGPU_SUCCESS;
    const std::uint32_t status = d->rd(SCGPU_REG_CH_STATUS(s->channel));
    if (status & SCGPU_CH_STATUS_ERROR_MASK) return channelError(s);
    if (polls >= ((status & SCGPU_CH_STATUS_WAITING_MASK) ? kWaitingPolls : kMaxPolls))
      return d->fail(SCGPU_ERROR_DEADLOCK, fmt::format("channel {}'s ring stays full: the front end consumes nothing",
                                                       s->channel));
  }
}

// Puts one command buffer on the stream's ring and rings the doorbell.
scgpu_status submit(scgpu_stream* s, std::vector<std::uint32_t> words) {
  scgpu_device* d = s->device;
  const scgpu_status st = waitForRoom(s);
  if (st != SCGPU_SUCCESS) return st;
  s->buffers.push_back(std::move(words));
  const auto& buf = s->buffers.back();
  const std::uint64_t a = d->registerHost(buf.data(), buf.size() * 4);
  s->iovas.push_back(a);
  scgpu_gpfifo_entry e{};
  e.buffer_addr = a;
  e.length_words = std::uint32_t(buf.size());
  e.flags = 1;  // IN_HOST
  std::memcpy(s->ring.data() + std::size_t(s->put) * SCGPU_GPFIFO_ENTRY_SIZE_BYTES, &e, sizeof e);
  s->put = (s->put + 1) % kRingEntries;
  d->wr(SCGPU_REG_CH_GP_PUT(s->channel), s->put);
  return SCGPU_SUCCESS;
}

void push(std::vector<std::uint32_t>& w, std::uint32_t method, std::initializer_list<std::uint32_t> args) {
  w.push_back(SCGPU_CMD_HEADER(method, args.size()));
  w.insert(w.end(), args.begin(), args.end());
}

const char* errorKindName(std::uint32_t k) {
  switch (k) {
    case SCGPU_ERROR_KIND_BAD_METHOD: return "bad method";
    case SCGPU_ERROR_KIND_BAD_ARGUMENT: return "bad argument";
    case SCGPU_ERROR_KIND_BAD_GPFIFO_ENTRY: return "bad GPFIFO entry";
    case SCGPU_ERROR_KIND_BAD_ADDRESS: return "bad address";
    case SCGPU_ERROR_KIND_MODULE_LOAD: return "module load failed";
    case SCGPU_ERROR_KIND_LAUNCH_REFUSED: return "launch refused";
    case SCGPU_ERROR_KIND_ILLEGAL_ADDRESS: return "illegal address";
    case SCGPU_ERROR_KIND_MISALIGNED_ADDRESS: return "misaligned address";
    case SCGPU_ERROR_KIND_ILLEGAL_INSTRUCTION: return "illegal instruction";
    case SCGPU_ERROR_KIND_ASSERT: return "assert";
    case SCGPU_ERROR_KIND_TRAP: return "trap";
    case SCGPU_ERROR_KIND_TIMEOUT: return "timeout";
    case SCGPU_ERROR_KIND_BAD_RING: return "bad ring";
    case SCGPU_ERROR_KIND_PAGE_FAULT: return "page fault";
    default: return "unknown";
  }
}

// Reads the error registers, clears them, and restarts the stream's channel.
scgpu_status channelError(scgpu_stream* s) {
  scgpu_device* d = s->device;
  scgpu_error_info& i = d->info;
  i.kind = d->rd(SCGPU_REG_ERR_KIND);
  i.channel = d->rd(SCGPU_REG_ERR_CHANNEL);
  i.gp_entry = d->rd(SCGPU_REG_ERR_GP_ENTRY);
  i.method = d->rd(SCGPU_REG_ERR_METHOD);
  i.word = d->rd(SCGPU_REG_ERR_WORD);
  i.address = std::uint64_t(d->rd(SCGPU_REG_ERR_ADDR_HI)) << 32 | d->rd(SCGPU_REG_ERR_ADDR_LO);
  i.module = d->rd(SCGPU_REG_ERR_MODULE);
  i.launch = d->rd(SCGPU_REG_ERR_LAUNCH);
  i.block[0] = d->rd(SCGPU_REG_ERR_BLOCK_X);
  i.block[1] = d->rd(SCGPU_REG_ERR_BLOCK_Y);
  i.block[2] = d->rd(SCGPU_REG_ERR_BLOCK_Z);
  i.warp = d->rd(SCGPU_REG_ERR_WARP);
  i.lane = d->rd(SCGPU_REG_ERR_LANE);
  i.pc = d->rd(SCGPU_REG_ERR_PC);
  i.ptx_line = d->rd(SCGPU_REG_ERR_PTX_LINE);
  i.mmu_fault = d->rd(SCGPU_REG_ERR_MMU_FAULT);
  const std::uint32_t kind = d->rd(SCGPU_REG_CH_ERROR(s->channel));
  // A kernel's fault (a page fault too, when a launch made it) against an error of a command.
  const bool kernel_fault = (kind >= SCGPU_ERROR_KIND_ILLEGAL_ADDRESS && kind <= SCGPU_ERROR_KIND_TIMEOUT) ||
                            (kind == SCGPU_ERROR_KIND_PAGE_FAULT && i.launch != 0);
  d->wr(SCGPU_REG_ERR_CLEAR, SCGPU_ERR_CLEAR_CLEAR_MASK);
  d->wr(SCGPU_REG_INTR_STATUS, SCGPU_INTR_STATUS_ERROR_MASK | SCGPU_INTR_STATUS_FAULT_MASK);
  std::string where = fmt::format("channel {}, GPFIFO entry {}", s->channel, d->rd(SCGPU_REG_CH_GP_GET(s->channel)));
  if (kernel_fault)
    where += fmt::format(": launch {} of module {}, block ({}, {}, {}), warp {}, lane {}, pc {}, PTX line {}, address 0x{:x}",
                         i.launch, i.module, i.block[0], i.block[1], i.block[2], i.warp, i.lane, i.pc, i.ptx_line, i.address);
  else if (i.address)
    where += fmt::format(", address 0x{:x}", i.address);
  if (kind == SCGPU_ERROR_KIND_PAGE_FAULT)
    where += fmt::format(" (page-table level {}, reason {}{})", i.mmu_fault & SCGPU_ERR_MMU_FAULT_LEVEL_MASK,
                         (i.mmu_fault & SCGPU_ERR_MMU_FAULT_REASON_MASK) >> SCGPU_ERR_MMU_FAULT_REASON_SHIFT,
                         (i.mmu_fault & SCGPU_ERR_MMU_FAULT_WRITE_MASK) ? ", a write" : "");
  // Restart the channel: its queued work is dropped, as after a fault on silicon.
  d->wr(SCGPU_REG_CH_RESET(s->channel), SCGPU_CH_RESET_CHANNEL_MASK);
  s->put = s->get = 0;
  s->semaphore = s->submitted;
  const scgpu_status st = kind == SCGPU_ERROR_KIND_MODULE_LOAD       ? SCGPU_ERROR_MODULE
                          : kind == SCGPU_ERROR_KIND_LAUNCH_REFUSED  ? SCGPU_ERROR_LAUNCH_REFUSED
                          : kernel_fault                             ? SCGPU_ERROR_FAULT
                                                                     : SCGPU_ERROR_DEVICE;
  return d->fail(st, fmt::format("device error '{}' on {}", errorKindName(kind), where));
}

void releasePending(scgpu_stream* s) {
  for (std::uint64_t a : s->iovas) s->device->unregisterHost(a);
  s->iovas.clear();
  s->buffers.clear();
  s->staging.clear();
  s->arena_used = 0;
}

scgpu_status synchronize(scgpu_stream* s) {
  scgpu_device* d = s->device;
  const std::uint32_t target = ++s->submitted;
  std::vector<std::uint32_t> w;
  push(w, SCGPU_METHOD_SEM_RELEASE, {lo(s->semaphore_iova), hi(s->semaphore_iova), target, 2u /* IN_HOST */});
  const scgpu_status submitted = submit(s, std::move(w));
  if (submitted != SCGPU_SUCCESS) {
    releasePending(s);
    return submitted;
  }
  scgpu_status result = SCGPU_SUCCESS;
  for (std::uint32_t polls = 0;; ++polls) {
    const std::uint32_t status = d->rd(SCGPU_REG_CH_STATUS(s->channel));
    if (s->semaphore == target) break;
    if (status & SCGPU_CH_STATUS_ERROR_MASK) {
      result = channelError(s);
      break;
    }
    // Each register access lets the device run until nothing moves, so a channel still waiting on
    // a semaphore after many polls waits on one that no channel will release.
    if (polls >= ((status & SCGPU_CH_STATUS_WAITING_MASK) ? kWaitingPolls : kMaxPolls)) {
      d->wr(SCGPU_REG_CH_RESET(s->channel), SCGPU_CH_RESET_CHANNEL_MASK);
      s->put = s->get = 0;
      s->semaphore = target;
      result = d->fail(SCGPU_ERROR_DEADLOCK,
                       fmt::format("channel {} made no progress in {} polls ({}); its work was dropped", s->channel,
                                   polls, (status & SCGPU_CH_STATUS_WAITING_MASK) ? "waiting on a semaphore"
                                                                                    : "fetch stopped or disabled"));
      break;
    }
  }
  releasePending(s);
  return result;
}

scgpu_status checkStream(scgpu_stream* s) { return s && s->device ? SCGPU_SUCCESS : SCGPU_ERROR_INVALID_VALUE; }

// Reserves `bytes` of the stream's launch arena and gives its device address. A full arena is
// reused after synchronising the stream (which releases what the pending work staged).
scgpu_status reserveArena(scgpu_stream* s, std::uint64_t bytes, scgpu_devptr* at) {
  const std::uint64_t need = roundUp(std::max<std::uint64_t>(bytes, 1), 16);
  if (need > kArenaBytes) return s->device->fail(SCGPU_ERROR_INVALID_VALUE, "launch data larger than the arena");
  if (s->arena_used + need > kArenaBytes) {
    const scgpu_status st = synchronize(s);
    if (st != SCGPU_SUCCESS) return st;
  }
  *at = s->arena + s->arena_used;
  s->arena_used += need;
  return SCGPU_SUCCESS;
}

// Appends to `w` a COPY of `data` from host memory to `at`; the bytes stay registered with the
// device until the stream is synchronised.
void stageCopy(scgpu_stream* s, std::vector<std::uint8_t> data, scgpu_devptr at, std::vector<std::uint32_t>& w) {
  s->staging.push_back(std::move(data));
  const auto& bytes = s->staging.back();
  const std::uint64_t src = s->device->registerHost(bytes.data(), bytes.size());
  s->iovas.push_back(src);
  push(w, SCGPU_METHOD_COPY, {lo(src), hi(src), lo(at), hi(at), std::uint32_t(bytes.size()), 1u, 0u, 0u, 1u /* SRC_HOST */});
}

// The same through the command buffer itself (WRITE_INLINE): small staged data (a launch's
// descriptor and parameters) travels with the commands, as in a GPU's pushbuffer.
void stageInline(const std::vector<std::uint8_t>& data, scgpu_devptr at, std::vector<std::uint32_t>& w) {
  std::vector<std::uint32_t> words((data.size() + 3) / 4, 0);
  std::memcpy(words.data(), data.data(), data.size());
  w.push_back(SCGPU_CMD_HEADER(SCGPU_METHOD_WRITE_INLINE, 2 + words.size()));
  w.push_back(lo(at));
  w.push_back(hi(at));
  w.insert(w.end(), words.begin(), words.end());
}

scgpu_status copy2d(scgpu_stream* s, std::uint64_t src, std::uint64_t src_pitch, std::uint64_t dst,
                    std::uint64_t dst_pitch, std::uint64_t width, std::uint64_t height, std::uint32_t flags) {
  if (width > 0xFFFFFFFFu || height > 0xFFFFFFFFu || src_pitch > 0xFFFFFFFFu || dst_pitch > 0xFFFFFFFFu)
    return s->device->fail(SCGPU_ERROR_INVALID_VALUE, "copy dimensions above 2^32 - 1");
  std::vector<std::uint32_t> w;
  push(w, SCGPU_METHOD_COPY, {lo(src), hi(src), lo(dst), hi(dst), std::uint32_t(width), std::uint32_t(height),
                              std::uint32_t(src_pitch), std::uint32_t(dst_pitch), flags});
  return submit(s, std::move(w));
}

// A 1D copy of any size: rows of at most 1 GiB.
scgpu_status copy1d(scgpu_stream* s, std::uint64_t src, std::uint64_t dst, std::uint64_t bytes, std::uint32_t flags) {
  constexpr std::uint64_t kRow = 1ull << 30;
  if (bytes >= kRow) {
    scgpu_status st = copy2d(s, src, kRow, dst, kRow, kRow, bytes / kRow, flags);
    if (st != SCGPU_SUCCESS) return st;
    const std::uint64_t done = bytes / kRow * kRow;
    src += done;
    dst += done;
    bytes -= done;
  }
  return bytes ? copy2d(s, src, 0, dst, 0, bytes, 1, flags) : SCGPU_SUCCESS;
}

scgpu_status mapRange(scgpu_device* d, std::uint64_t va, std::uint64_t bytes) {
  std::vector<std::uint32_t> w;
  push(w, SCGPU_METHOD_MAP, {lo(va), hi(va), lo(bytes), hi(bytes)});
  scgpu_status st = submit(d->control.get(), std::move(w));
  return st != SCGPU_SUCCESS ? st : synchronize(d->control.get());
}

// Writes the tables changed since the last upload into the pool, on the control channel.
scgpu_status uploadTables(scgpu_device* d) {
  auto& t = d->tables;
  if (t.dirty.empty()) return SCGPU_SUCCESS;
  scgpu_stream* s = d->control.get();
  std::vector<std::uint32_t> w;
  // Overlapping and adjacent ranges go as one copy.
  std::sort(t.dirty.begin(), t.dirty.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;  // [begin, end)
  for (const auto& [off, bytes] : t.dirty)
    if (!runs.empty() && off <= runs.back().second) runs.back().second = std::max(runs.back().second, off + bytes);
    else runs.emplace_back(off, off + bytes);
  for (const auto& [begin, end] : runs)
    stageCopy(s, std::vector<std::uint8_t>(t.shadow.begin() + long(begin), t.shadow.begin() + long(end)),
              kPageTableBase + begin, w);
  t.dirty.clear();
  const scgpu_status st = submit(s, std::move(w));
  return st != SCGPU_SUCCESS ? st : synchronize(s);
}

// Maps every 2 MiB page of [va, va + bytes) that is not mapped yet, identity, writable.
scgpu_status mapPages(scgpu_device* d, std::uint64_t va, std::uint64_t bytes) {
  auto& t = d->tables;
  try {
    for (std::uint64_t page = va / kPageBytes * kPageBytes; page < va + bytes; page += kPageBytes)
      if (t.pages.insert(page).second) t.builder->map(page, page, kPageBytes, kPageBytes, true);
  } catch (const std::exception& e) {
    return d->fail(SCGPU_ERROR_OUT_OF_MEMORY, fmt::format("page tables: {}", e.what()));
  }
  return uploadTables(d);
}

// Builds the page tables: the pool (physical, through the control channel before it translates),
// the root, and the pool's own pages; then every channel opened later uses the root.
scgpu_status initPageTables(scgpu_device* d) {
  auto& t = d->tables;
  t = scgpu_device::PageTables{};
  scgpu_status st = mapRange(d, kPageTableBase, kPageTablePoolBytes);
  if (st != SCGPU_SUCCESS) return st;
  t.shadow.assign(kPageTablePoolBytes, 0);
  auto alloc = [d](std::uint64_t bytes) -> std::uint64_t {
    auto& tt = d->tables;
    const std::uint64_t at = roundUp(tt.used, scgpu::memsys::PageTableFormat::kTableAlignBytes);
    if (at + bytes > tt.shadow.size()) throw std::runtime_error("the page-table pool is full");
    tt.used = at + bytes;
    std::fill(tt.shadow.begin() + long(at), tt.shadow.begin() + long(at + bytes), 0);
    tt.dirty.emplace_back(at, bytes);
    return kPageTableBase + at;
  };
  auto read = [d](std::uint64_t pa, std::uint64_t* v) {
    auto& tt = d->tables;
    if (pa < kPageTableBase || pa + 8 > kPageTableBase + tt.shadow.size()) return false;
    std::memcpy(v, tt.shadow.data() + (pa - kPageTableBase), 8);
    return true;
  };
  auto write = [d](std::uint64_t pa, std::uint64_t v) {
    auto& tt = d->tables;
    std::memcpy(tt.shadow.data() + (pa - kPageTableBase), &v, 8);
    // Whole tables go up: few commands, however many entries changed.
    const std::uint64_t table = (pa - kPageTableBase) / scgpu::memsys::PageTableFormat::kTableAlignBytes *
                                scgpu::memsys::PageTableFormat::kTableAlignBytes;
    tt.dirty.emplace_back(table, scgpu::memsys::PageTableFormat::kTableAlignBytes);
  };
  try {
    t.builder = std::make_unique<scgpu::memsys::PageTableBuilder>(alloc, read, write);
  } catch (const std::exception& e) {
    return d->fail(SCGPU_ERROR_OUT_OF_MEMORY, fmt::format("page tables: {}", e.what()));
  }
  st = mapPages(d, kPageTableBase, kPageTablePoolBytes);
  if (st != SCGPU_SUCCESS) return st;
  d->wr(SCGPU_REG_CH_PAGE_TABLE_LO(0), lo(t.root()));
  d->wr(SCGPU_REG_CH_PAGE_TABLE_HI(0), hi(t.root()));
  return SCGPU_SUCCESS;
}

scgpu_status openStream(scgpu_device* d, unsigned priority, std::uint32_t channel, std::unique_ptr<scgpu_stream>& out) {
  auto s = std::make_unique<scgpu_stream>();
  s->device = d;
  s->channel = channel;
  setupChannel(s.get(), priority);
  out = std::move(s);
  return SCGPU_SUCCESS;
}

scgpu_status initDevice(scgpu_device* d) {
  d->wr(SCGPU_REG_RESET, SCGPU_RESET_DEVICE_MASK);
  if (d->rd(SCGPU_REG_BOOT_ID) != SCGPU_REG_BOOT_ID_RESET)
    return d->fail(SCGPU_ERROR_NO_DEVICE, "BOOT_ID does not read 'SCGP': no scgpu device, or a dead link");
  const std::uint32_t version = d->rd(SCGPU_REG_REGMAP_VERSION);
  if ((version & SCGPU_REGMAP_VERSION_MAJOR_MASK) >> SCGPU_REGMAP_VERSION_MAJOR_SHIFT != SCGPU_REGMAP_VERSION_MAJOR)
    return d->fail(SCGPU_ERROR_NO_DEVICE, fmt::format("register map version 0x{:08x}, this driver speaks major {}",
                                                      version, SCGPU_REGMAP_VERSION_MAJOR));
  d->num_channels = d->rd(SCGPU_REG_NUM_CHANNELS);
  if (d->num_channels == 0 || d->num_channels > SCGPU_CH_MAX_COUNT)
    return d->fail(SCGPU_ERROR_NO_DEVICE, fmt::format("NUM_CHANNELS reads {}", d->num_channels));
  d->memory_bytes = std::uint64_t(d->rd(SCGPU_REG_MEM_SIZE_HI)) << 32 | d->rd(SCGPU_REG_MEM_SIZE_LO);
  d->const_memory_bytes = d->rd(SCGPU_REG_CONST_MEM_BYTES);
  d->shared_per_block_bytes = d->rd(SCGPU_REG_SHARED_MEM_PER_BLOCK_BYTES);
  d->channel_used.assign(d->num_channels, false);
  d->channel_used[0] = true;
  d->allocations.clear();
  d->user.clear();
  d->internal.clear();
  for (auto& m : d->modules) m = scgpu_device::ModuleInfo{};
  d->iova.clear();
  d->next_iova = kIovaBase;
  d->wr(SCGPU_REG_INTR_ENABLE, SCGPU_INTR_STATUS_CHANNEL_MASK | SCGPU_INTR_STATUS_ERROR_MASK | SCGPU_INTR_STATUS_FAULT_MASK);
  d->tables = scgpu_device::PageTables{};
  const scgpu_status st = openStream(d, 15, 0, d->control);
  if (st != SCGPU_SUCCESS) return st;
  // Devices without an MMU address physical memory directly.
  return (d->rd(SCGPU_REG_CAPS) & SCGPU_CAPS_MMU_MASK) ? initPageTables(d) : SCGPU_SUCCESS;
}

// Maps `bytes` (rounded up to 256) of the caller's or the driver's own address space.
scgpu_status allocate(scgpu_device* d, std::uint64_t bytes, bool internal, scgpu_devptr* ptr) {
  const std::uint64_t size = roundUp(std::max<std::uint64_t>(bytes, 1), kVaAlign);
  scgpu_device::AddressSpace& space = internal ? d->internal : d->user;
  const std::uint64_t va = space.take(size);
  scgpu_status st = mapRange(d, va, size);
  if (st == SCGPU_SUCCESS && d->tables.builder) st = mapPages(d, va, size);
  if (st != SCGPU_SUCCESS) {
    space.give(va, size);
    return st == SCGPU_ERROR_DEVICE ? d->fail(SCGPU_ERROR_OUT_OF_MEMORY, d->last_error) : st;
  }
  d->allocations[va] = {size, std::max<std::uint64_t>(bytes, 1), internal};
  *ptr = va;
  return SCGPU_SUCCESS;
}

scgpu_status release(scgpu_device* d, scgpu_devptr ptr) {
  auto it = d->allocations.find(ptr);
  if (it == d->allocations.end()) return SCGPU_ERROR_INVALID_VALUE;
  std::vector<std::uint32_t> w;
  push(w, SCGPU_METHOD_UNMAP, {lo(ptr), hi(ptr)});
  scgpu_status st = submit(d->control.get(), std::move(w));
  if (st == SCGPU_SUCCESS) st = synchronize(d->control.get());
  if (st != SCGPU_SUCCESS) return st;
  (it->second.internal ? d->internal : d->user).give(ptr, it->second.rounded);
  d->allocations.erase(it);
  return SCGPU_SUCCESS;
}

// MEMSETs of `bytes` (a multiple of element_bytes) at dst, in rows of at most 1 GiB.
scgpu_status memsetElements(scgpu_stream* s, scgpu_devptr dst, std::uint32_t value, std::uint32_t element_bytes,
                            std::uint64_t bytes) {
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t n = std::min<std::uint64_t>(bytes - done, 1ull << 30);
    std::vector<std::uint32_t> w;
    push(w, SCGPU_METHOD_MEMSET, {lo(dst + done), hi(dst + done), std::uint32_t(n), 1u, 0u, value, element_bytes});
    const scgpu_status st = submit(s, std::move(w));
    if (st != SCGPU_SUCCESS) return st;
    done += n;
  }
  return SCGPU_SUCCESS;
}

}  // namespace

extern "C" {

const char* scgpu_status_name(scgpu_status s) {
  switch (s) {
    case SCGPU_SUCCESS: return "SCGPU_SUCCESS";
    case SCGPU_ERROR_INVALID_VALUE: return "SCGPU_ERROR_INVALID_VALUE";
    case SCGPU_ERROR_OUT_OF_MEMORY: return "SCGPU_ERROR_OUT_OF_MEMORY";
    case SCGPU_ERROR_NO_DEVICE: return "SCGPU_ERROR_NO_DEVICE";
    case SCGPU_ERROR_MODULE: return "SCGPU_ERROR_MODULE";
    case SCGPU_ERROR_LAUNCH_REFUSED: return "SCGPU_ERROR_LAUNCH_REFUSED";
    case SCGPU_ERROR_FAULT: return "SCGPU_ERROR_FAULT";
    case SCGPU_ERROR_DEVICE: return "SCGPU_ERROR_DEVICE";
    case SCGPU_ERROR_NOT_READY: return "SCGPU_ERROR_NOT_READY";
    case SCGPU_ERROR_DEADLOCK: return "SCGPU_ERROR_DEADLOCK";
  }
  return "SCGPU_ERROR_UNKNOWN";
}

namespace {
scgpu_status openInProcess(const char* config_path, scgpu::driver::Mode mode, scgpu_device** out) {
  if (!out) return SCGPU_ERROR_INVALID_VALUE;
  *out = nullptr;
  std::unique_ptr<Transport> transport;
  try {
    const scgpu::GpuConfig config =
        config_path ? scgpu::GpuConfig::load(config_path) : scgpu::GpuConfig::loadDefault();
    transport = std::make_unique<scgpu::driver::InProcessTransport>(config, mode);
  } catch (const std::exception& e) {
    g_open_error = e.what();
    return SCGPU_ERROR_NO_DEVICE;
  }
  return scgpu_open_transport(std::move(transport), out);
}
}  // namespace

scgpu_status scgpu_open(const char* config_path, scgpu_device** out) {
  return openInProcess(config_path, scgpu::driver::Mode::Functional, out);
}
scgpu_status scgpu_open_timing(const char* config_path, scgpu_device** out) {
  return openInProcess(config_path, scgpu::driver::Mode::Timing, out);
}

scgpu_status scgpu_open_socket(const char* socket_path, scgpu_device** out) {
  if (!out || !socket_path) return SCGPU_ERROR_INVALID_VALUE;
  *out = nullptr;
  std::unique_ptr<Transport> transport;
  try {
    transport = scgpu::driver::connectSocketTransport(socket_path);
  } catch (const std::exception& e) {
    g_open_error = e.what();
    return SCGPU_ERROR_NO_DEVICE;
  }
  return scgpu_open_transport(std::move(transport), out);
}

void scgpu_close(scgpu_device* d) {
  if (!d) return;
  for (scgpu_stream* s : d->streams) delete s;
  for (scgpu_event* e : d->events) delete e;
  delete d;
}

scgpu_status scgpu_reset(scgpu_device* d) {
  if (!d) return SCGPU_ERROR_INVALID_VALUE;
  // Quiesce: stop fetching, let what was fetched finish, then reset.
  d->wr(SCGPU_REG_QUIESCE, SCGPU_QUIESCE_STOP_FETCH_MASK);
  for (std::uint32_t polls = 0; polls < kMaxPolls && !(d->rd(SCGPU_REG_STATUS) & SCGPU_STATUS_IDLE_MASK); ++polls) {
  }
  for (scgpu_stream* s : d->streams) delete s;
  d->streams.clear();
  for (scgpu_event* e : d->events) delete e;
  d->events.clear();
  d->control.reset();
  return initDevice(d);
}

uint32_t scgpu_mmio_read(scgpu_device* d, uint32_t offset) { return d ? d->rd(offset) : 0xFFFFFFFFu; }
void scgpu_mmio_write(scgpu_device* d, uint32_t offset, uint32_t value) {
  if (d) d->wr(offset, value);
}
int scgpu_interrupt_pending(scgpu_device* d) { return d && d->transport->interruptPending() ? 1 : 0; }
const char* scgpu_last_error(scgpu_device* d) { return d ? d->last_error.c_str() : g_open_error.c_str(); }
void scgpu_error_info_get(scgpu_device* d, scgpu_error_info* info) {
  if (d && info) *info = d->info;
}

scgpu_status scgpu_mem_alloc(scgpu_device* d, size_t bytes, scgpu_devptr* ptr) {
  return d && ptr ? allocate(d, bytes, false, ptr) : SCGPU_ERROR_INVALID_VALUE;
}

scgpu_status scgpu_mem_free(scgpu_device* d, scgpu_devptr ptr) {
  if (!d) return SCGPU_ERROR_INVALID_VALUE;
  if (ptr == 0) return SCGPU_SUCCESS;
  auto it = d->allocations.find(ptr);
  if (it == d->allocations.end() || it->second.internal)
    return d->fail(SCGPU_ERROR_INVALID_VALUE, fmt::format("free of 0x{:x}, which is not an allocation", ptr));
  return release(d, ptr);
}

scgpu_status scgpu_module_load(scgpu_device* d, const char* ptx, size_t bytes, scgpu_module* module) {
  if (!d || !ptx || !module) return SCGPU_ERROR_INVALID_VALUE;
  try {
    return scgpu_module_load_source(d, std::string(ptx, bytes), "", module);
  } catch (const scgpu::driver::RuntimeError& e) {
    return d->fail(e.code() == scgpu::driver::Error::MemoryAllocation ? SCGPU_ERROR_OUT_OF_MEMORY : SCGPU_ERROR_MODULE,
                   e.what());
  } catch (const std::exception& e) {
    return d->fail(SCGPU_ERROR_MODULE, e.what());
  }
}

scgpu_status scgpu_module_unload(scgpu_device* d, scgpu_module module) {
  if (!d || module >= d->modules.size() || !d->modules[module].used) return SCGPU_ERROR_INVALID_VALUE;
  std::vector<std::uint32_t> w;
  push(w, SCGPU_METHOD_UNLOAD_MODULE, {module});
  scgpu_status st = submit(d->control.get(), std::move(w));
  if (st == SCGPU_SUCCESS) st = synchronize(d->control.get());
  if (st != SCGPU_SUCCESS) return st;
  if (d->modules[module].globals) release(d, d->modules[module].globals);
  d->modules[module] = scgpu_device::ModuleInfo{};
  return SCGPU_SUCCESS;
}

scgpu_status scgpu_module_symbol(scgpu_device* d, scgpu_module module, const char* name, scgpu_devptr* ptr,
                                 size_t* bytes) {
  if (!d || !name || module >= d->modules.size() || !d->modules[module].used) return SCGPU_ERROR_INVALID_VALUE;
  auto it = d->modules[module].symbols.find(name);
  if (it == d->modules[module].symbols.end())
    return d->fail(SCGPU_ERROR_INVALID_VALUE, fmt::format("module {} has no variable '{}'", module, name));
  if (ptr) *ptr = it->second.first;
  if (bytes) *bytes = it->second.second;
  return SCGPU_SUCCESS;
}

scgpu_status scgpu_stream_create(scgpu_device* d, unsigned priority, scgpu_stream** stream) {
  if (!d || !stream || priority > 15) return SCGPU_ERROR_INVALID_VALUE;
  std::uint32_t c = 1;
  while (c < d->num_channels && d->channel_used[c]) ++c;
  if (c >= d->num_channels)
    return d->fail(SCGPU_ERROR_OUT_OF_MEMORY, fmt::format("all {} channels are in use", d->num_channels));
  std::unique_ptr<scgpu_stream> s;
  openStream(d, priority, c, s);
  scgpu_status st = allocate(d, kArenaBytes, true, &s->arena);
  if (st != SCGPU_SUCCESS) return st;
  d->channel_used[c] = true;
  d->streams.push_back(s.get());
  *stream = s.release();
  return SCGPU_SUCCESS;
}

scgpu_status scgpu_stream_destroy(scgpu_stream* s) {
  if (checkStream(s) != SCGPU_SUCCESS) return SCGPU_ERROR_INVALID_VALUE;
  scgpu_device* d = s->device;
  const scgpu_status st = synchronize(s);
  d->wr(SCGPU_REG_CH_CONTROL(s->channel), 0);
  d->unregisterHost(s->ring_iova);
  d->unregisterHost(s->semaphore_iova);
  release(d, s->arena);
  d->channel_used[s->channel] = false;
  d->streams.erase(std::find(d->streams.begin(), d->streams.end(), s));
  delete s;
  return st;
}

scgpu_status scgpu_stream_synchronize(scgpu_stream* s) {
  return checkStream(s) != SCGPU_SUCCESS ? SCGPU_ERROR_INVALID_VALUE : synchronize(s);
}

namespace {

// LAUNCH with its descriptor, name and parameters (and, for a cooperative launch, the 16 zeroed
// bytes its blocks synchronise through) staged in the stream's arena.
scgpu_status launchOnStream(scgpu_stream* s, scgpu_module module, const char* kernel, const uint32_t grid[3],
                            const uint32_t block[3], uint32_t shared_bytes, const void* params, size_t param_bytes,
                            bool cooperative, const uint32_t* cluster = nullptr) {
  if (checkStream(s) != SCGPU_SUCCESS || !kernel || !grid || !block || (param_bytes && !params))
    return SCGPU_ERROR_INVALID_VALUE;
  const std::size_t name_bytes = std::strlen(kernel);
  if (name_bytes == 0 || name_bytes > 4096 || param_bytes > 32764)
    return s->device->fail(SCGPU_ERROR_INVALID_VALUE, "kernel name of 1 to 4096 bytes and at most 32764 bytes of parameters");
  // Descriptor, name and parameters go to the stream's arena in one staged copy.
  const std::uint64_t name_off = SCGPU_LAUNCH_DESC_SIZE_BYTES, param_off = roundUp(name_off + name_bytes, 16);
  const std::uint64_t sync_off = roundUp(param_off + param_bytes, 16);
  std::vector<std::uint8_t> blob(cooperative ? sync_off + 16 : param_off + param_bytes, 0);
  // Reserved first: the descriptor holds the addresses of the name and parameters.
  scgpu_devptr base = 0;
  scgpu_status st = reserveArena(s, blob.size(), &base);
  if (st != SCGPU_SUCCESS) return st;
  scgpu_launch_desc desc{};
  desc.module_slot = module;
  desc.entry_name_bytes = std::uint32_t(name_bytes);
  desc.entry_name_addr = base + name_off;
  desc.grid_x = grid[0];
  desc.grid_y = grid[1];
  desc.grid_z = grid[2];
  desc.block_x = block[0];
  desc.block_y = block[1];
  desc.block_z = block[2];
  desc.shared_bytes = shared_bytes;
  desc.param_bytes = std::uint32_t(param_bytes);
  desc.param_addr = base + param_off;
  desc.grid_sync_addr = cooperative ? base + sync_off : 0;
  if (cluster) {
    desc.cluster_x = cluster[0];
    desc.cluster_y = cluster[1];
    desc.cluster_z = cluster[2];
  }
  std::memcpy(blob.data(), &desc, sizeof desc);
  std::memcpy(blob.data() + name_off, kernel, name_bytes);
  if (param_bytes) std::memcpy(blob.data() + param_off, params, param_bytes);
  std::vector<std::uint32_t> w;
  stageInline(blob, base, w);
  push(w, SCGPU_METHOD_LAUNCH, {lo(base), hi(base)});
  return submit(s, std::move(w));
}

}  // namespace

scgpu_status scgpu_launch(scgpu_stream* s, scgpu_module module, const char* kernel, const uint32_t grid[3],
                          const uint32_t block[3], uint32_t shared_bytes, const void* params, size_t param_bytes) {
  return launchOnStream(s, module, kernel, grid, block, shared_bytes, params, param_bytes, false);
}

scgpu_status scgpu_launch_cooperative(scgpu_stream* s, scgpu_module module, const char* kernel,
                                      const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes,
                                      const void* params, size_t param_bytes) {
  return launchOnStream(s, module, kernel, grid, block, shared_bytes, params, param_bytes, true);
}

scgpu_status scgpu_launch_cluster(scgpu_stream* s, scgpu_module module, const char* kernel, const uint32_t grid[3],
                                  const uint32_t block[3], const uint32_t cluster[3], uint32_t shared_bytes,
                                  const void* params, size_t param_bytes) {
  if (!cluster) return SCGPU_ERROR_INVALID_VALUE;
  return launchOnStream(s, module, kernel, grid, block, shared_bytes, params, param_bytes, false, cluster);
}

scgpu_status scgpu_memcpy_htod_async(scgpu_stream* s, scgpu_devptr dst, const void* src, size_t bytes) {
  if (checkStream(s) != SCGPU_SUCCESS || (bytes && !src)) return SCGPU_ERROR_INVALID_VALUE;
  if (!bytes) return SCGPU_SUCCESS;
  const std::uint64_t a = s->device->registerHost(src, bytes);
  s->iovas.push_back(a);
  return copy1d(s, a, dst, bytes, 1u);
}
scgpu_status scgpu_memcpy_dtoh_async(scgpu_stream* s, void* dst, scgpu_devptr src, size_t bytes) {
  if (checkStream(s) != SCGPU_SUCCESS || (bytes && !dst)) return SCGPU_ERROR_INVALID_VALUE;
  if (!bytes) return SCGPU_SUCCESS;
  const std::uint64_t a = s->device->registerHost(dst, bytes);
  s->iovas.push_back(a);
  return copy1d(s, src, a, bytes, 2u);
}
scgpu_status scgpu_memcpy_dtod_async(scgpu_stream* s, scgpu_devptr dst, scgpu_devptr src, size_t bytes) {
  if (checkStream(s) != SCGPU_SUCCESS) return SCGPU_ERROR_INVALID_VALUE;
  return copy1d(s, src, dst, bytes, 0u);
}
scgpu_status scgpu_memcpy_2d_htod_async(scgpu_stream* s, scgpu_devptr dst, size_t dst_pitch, const void* src,
                                        size_t src_pitch, size_t width, size_t height) {
  if (checkStream(s) != SCGPU_SUCCESS || (width && height && !src)) return SCGPU_ERROR_INVALID_VALUE;
  if (!width || !height) return SCGPU_SUCCESS;
  const std::uint64_t a = s->device->registerHost(src, std::uint64_t(src_pitch) * (height - 1) + width);
  s->iovas.push_back(a);
  return copy2d(s, a, src_pitch, dst, dst_pitch, width, height, 1u);
}
scgpu_status scgpu_memcpy_2d_dtoh_async(scgpu_stream* s, void* dst, size_t dst_pitch, scgpu_devptr src,
                                        size_t src_pitch, size_t width, size_t height) {
  if (checkStream(s) != SCGPU_SUCCESS || (width && height && !dst)) return SCGPU_ERROR_INVALID_VALUE;
  if (!width || !height) return SCGPU_SUCCESS;
  const std::uint64_t a = s->device->registerHost(dst, std::uint64_t(dst_pitch) * (height - 1) + width);
  s->iovas.push_back(a);
  return copy2d(s, src, src_pitch, a, dst_pitch, width, height, 2u);
}
scgpu_status scgpu_memset_async(scgpu_stream* s, scgpu_devptr dst, uint8_t value, size_t bytes) {
  if (checkStream(s) != SCGPU_SUCCESS) return SCGPU_ERROR_INVALID_VALUE;
  return memsetElements(s, dst, value, 1, bytes);
}
scgpu_status scgpu_memset32_async(scgpu_stream* s, scgpu_devptr dst, uint32_t value, size_t count) {
  if (checkStream(s) != SCGPU_SUCCESS) return SCGPU_ERROR_INVALID_VALUE;
  return memsetElements(s, dst, value, 4, std::uint64_t(count) * 4);
}

scgpu_status scgpu_memcpy_htod(scgpu_device* d, scgpu_devptr dst, const void* src, size_t bytes) {
  if (!d) return SCGPU_ERROR_INVALID_VALUE;
  scgpu_status st = scgpu_memcpy_htod_async(d->control.get(), dst, src, bytes);
  return st != SCGPU_SUCCESS ? st : synchronize(d->control.get());
}
scgpu_status scgpu_memcpy_dtoh(scgpu_device* d, void* dst, scgpu_devptr src, size_t bytes) {
  if (!d) return SCGPU_ERROR_INVALID_VALUE;
  scgpu_status st = scgpu_memcpy_dtoh_async(d->control.get(), dst, src, bytes);
  return st != SCGPU_SUCCESS ? st : synchronize(d->control.get());
}
scgpu_status scgpu_memset(scgpu_device* d, scgpu_devptr dst, uint8_t value, size_t bytes) {
  if (!d) return SCGPU_ERROR_INVALID_VALUE;
  scgpu_status st = scgpu_memset_async(d->control.get(), dst, value, bytes);
  return st != SCGPU_SUCCESS ? st : synchronize(d->control.get());
}

scgpu_status scgpu_stream_wait_stream(scgpu_stream* waiter, scgpu_stream* signaller) {
  if (checkStream(waiter) != SCGPU_SUCCESS || checkStream(signaller) != SCGPU_SUCCESS ||
      waiter->device != signaller->device)
    return SCGPU_ERROR_INVALID_VALUE;
  // The signaller releases its completion semaphore with a new value; the waiter acquires it.
  const std::uint32_t target = ++signaller->submitted;
  std::vector<std::uint32_t> rel, acq;
  push(rel, SCGPU_METHOD_SEM_RELEASE, {lo(signaller->semaphore_iova), hi(signaller->semaphore_iova), target, 2u});
  scgpu_status st = submit(signaller, std::move(rel));
  if (st != SCGPU_SUCCESS) return st;
  push(acq, SCGPU_METHOD_SEM_ACQUIRE, {lo(signaller->semaphore_iova), hi(signaller->semaphore_iova), target, 2u});
  return submit(waiter, std::move(acq));
}

scgpu_status scgpu_event_create(scgpu_device* d, scgpu_event** event) {
  if (!d || !event) return SCGPU_ERROR_INVALID_VALUE;
  auto e = std::make_unique<scgpu_event>();
  e->device = d;
  e->iova = d->registerHost(e->record, sizeof e->record);
  d->events.push_back(e.get());
  *event = e.release();
  return SCGPU_SUCCESS;
}
scgpu_status scgpu_event_destroy(scgpu_event* e) {
  if (!e || !e->device) return SCGPU_ERROR_INVALID_VALUE;
  scgpu_device* d = e->device;
  d->unregisterHost(e->iova);
  d->events.erase(std::find(d->events.begin(), d->events.end(), e));
  delete e;
  return SCGPU_SUCCESS;
}
scgpu_status scgpu_event_record(scgpu_event* e, scgpu_stream* s) {
  if (!e || checkStream(s) != SCGPU_SUCCESS || e->device != s->device) return SCGPU_ERROR_INVALID_VALUE;
  std::memset(e->record, 0, sizeof e->record);
  e->recorded = true;
  std::vector<std::uint32_t> w;
  push(w, SCGPU_METHOD_SEM_RELEASE, {lo(e->iova), hi(e->iova), 1u, 3u /* TIMESTAMP | IN_HOST */});
  return submit(s, std::move(w));
}
scgpu_status scgpu_event_query(scgpu_event* e) {
  if (!e || !e->device || !e->recorded) return SCGPU_ERROR_INVALID_VALUE;
  e->device->rd(SCGPU_REG_STATUS);  // lets the device make progress
  std::uint32_t v;
  std::memcpy(&v, e->record, 4);
  return v == 1 ? SCGPU_SUCCESS : SCGPU_ERROR_NOT_READY;
}
scgpu_status scgpu_event_elapsed_ns(scgpu_event* a, scgpu_event* b, uint64_t* ns) {
  if (!ns) return SCGPU_ERROR_INVALID_VALUE;
  scgpu_status st = scgpu_event_query(a);
  if (st == SCGPU_SUCCESS) st = scgpu_event_query(b);
  if (st != SCGPU_SUCCESS) return st;
  std::uint64_t ta, tb;
  std::memcpy(&ta, a->record + 8, 8);
  std::memcpy(&tb, b->record + 8, 8);
  *ns = tb >= ta ? tb - ta : 0;
  return SCGPU_SUCCESS;
}

}  // extern "C"

// Debian's SystemC library holds a main() that calls sc_main() and so needs an sc_main to link. A
// program on the driver has its own main and never reaches it; the programs that do define one (the
// CLI, the tests) override this weak definition.
extern "C" __attribute__((weak)) int sc_main(int, char**) { return 0; }

scgpu_status scgpu_open_transport(std::unique_ptr<Transport> transport, scgpu_device** out) {
  if (!out || !transport) return SCGPU_ERROR_INVALID_VALUE;
  *out = nullptr;
  auto d = std::make_unique<scgpu_device>();
  d->transport = std::move(transport);
  d->transport->attachHostMemory(d.get());
  const scgpu_status st = initDevice(d.get());
  if (st != SCGPU_SUCCESS) {
    g_open_error = d->last_error;
    return st;
  }
  *out = d.release();
  return SCGPU_SUCCESS;
}

Transport* scgpu_device_transport(scgpu_device* d) { return d ? d->transport.get() : nullptr; }

const scgpu::driver::Module* scgpu_module_decoded(scgpu_device* d, scgpu_module module) {
  if (!d || module >= d->modules.size() || !d->modules[module].used) return nullptr;
  return d->modules[module].decoded.get();
}

bool scgpu_mem_contains(scgpu_device* d, scgpu_devptr addr, std::uint64_t bytes) {
  if (!d) return false;
  auto it = d->allocations.upper_bound(addr);
  if (it == d->allocations.begin()) return false;
  --it;
  if (it->second.internal) return false;  // the driver's own
  const std::uint64_t off = addr - it->first;
  return off < it->second.requested && bytes <= it->second.requested - off;
}

scgpu_status scgpu_module_load_source(scgpu_device* d, const std::string& text, const std::string& source_name,
                                      scgpu_module* module) {
  using scgpu::driver::Error;
  using scgpu::driver::RuntimeError;
  if (!d || !module) return SCGPU_ERROR_INVALID_VALUE;
  std::uint32_t slot = 0;
  while (slot < d->modules.size() && d->modules[slot].used) ++slot;
  if (slot == d->modules.size()) throw RuntimeError(Error::MemoryAllocation, "all 256 module slots are in use");
  // The driver compiles the PTX (as a driver's JIT does) before the device sees it: errors come
  // back as ptx::ParseError with their file:line:col rather than as the device's MODULE_LOAD code,
  // against the device's limits as its capability registers state them, and the module's
  // variables get their addresses here (the device places them the same way: in declaration
  // order from GLOBALS_VA, each 256-byte aligned).
  scgpu::ptx::Module ir = scgpu::ptx::parseModule(
      text, source_name.empty() ? fmt::format("module{}.ptx", slot) : source_name, scgpu::driver::ptxLimits());
  std::uint64_t mapped = 0;
  for (const auto& [base, a] : d->allocations) mapped += a.rounded;
  scgpu::driver::Module::checkPlacement(ir, mapped, d->memory_bytes, d->const_memory_bytes);
  scgpu_device::ModuleInfo info;
  const std::uint64_t globals_bytes = scgpu::driver::Module::globalsBytes(ir);
  if (globals_bytes && allocate(d, globals_bytes, false, &info.globals) != SCGPU_SUCCESS)
    throw RuntimeError(Error::MemoryAllocation, fmt::format("no device memory for the module's variables ({} bytes): {}",
                                                            globals_bytes, d->last_error));
  std::uint64_t off = 0;
  for (const auto& g : scgpu::ptx::moduleGlobals(ir)) {
    info.symbols[g.name] = {info.globals + off, g.size};
    off += scgpu::memsys::BackingStore::roundedSize(g.size);
  }
  try {
    scgpu::driver::DeviceProperties limits;
    limits.shared_mem_per_block_optin = d->shared_per_block_bytes;
    limits.total_const_mem = d->const_memory_bytes;
    scgpu::memsys::BackingStore scratch(std::uint64_t(1) << 48);  // initial values land here, unused
    if (globals_bytes) scratch.allocateAt(info.globals, globals_bytes, nullptr);
    info.decoded = std::make_unique<scgpu::driver::Module>(std::move(ir), scratch, limits, info.globals);
  } catch (...) {
    if (info.globals) release(d, info.globals);
    throw;
  }
  scgpu_devptr image = 0;
  scgpu_status st = allocate(d, text.size(), true, &image);
  if (st == SCGPU_SUCCESS) {
    st = scgpu_memcpy_htod(d, image, text.data(), text.size());
    if (st == SCGPU_SUCCESS) {
      std::vector<std::uint32_t> w;
      push(w, SCGPU_METHOD_LOAD_MODULE,
           {lo(image), hi(image), std::uint32_t(text.size()), slot, lo(info.globals), hi(info.globals)});
      st = submit(d->control.get(), std::move(w));
      if (st == SCGPU_SUCCESS) st = synchronize(d->control.get());
    }
    const std::string error = d->last_error;
    release(d, image);
    d->last_error = error;
  }
  if (st != SCGPU_SUCCESS) {
    if (info.globals) release(d, info.globals);
    throw RuntimeError(st == SCGPU_ERROR_OUT_OF_MEMORY ? Error::MemoryAllocation : Error::InvalidValue, d->last_error);
  }
  info.used = true;
  d->modules[slot] = std::move(info);
  *module = slot;
  return SCGPU_SUCCESS;
}
