/* The scgpu user-mode driver: a C API that reaches the GPU only through its host interface -
   BAR0 registers, GPFIFO rings of command buffers, DMA and the interrupt line (docs/registers.md,
   docs/driver-bring-up.md). Every call that touches the device does so with the methods a
   driver on silicon would use: MAP for memory, LOAD_MODULE, LAUNCH, COPY, MEMSET, SEM_RELEASE.

   Streams are channels: the commands of one stream run in order, those of different streams may
   overlap. Asynchronous calls take host memory that must stay valid until the stream is
   synchronised (as cudaMemcpyAsync with pinned memory). Errors of asynchronous work surface at
   the next synchronising call of its stream. Not thread-safe: one thread per device. */
#ifndef SCGPU_DRIVER_H
#define SCGPU_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum scgpu_status {
  SCGPU_SUCCESS = 0,
  SCGPU_ERROR_INVALID_VALUE,     /* a bad argument: null pointer, unknown handle, size out of range */
  SCGPU_ERROR_OUT_OF_MEMORY,     /* device memory (or channels, module slots) exhausted */
  SCGPU_ERROR_NO_DEVICE,         /* the config did not load, or BOOT_ID/REGMAP_VERSION are wrong */
  SCGPU_ERROR_MODULE,            /* the PTX does not parse or decode (message: file:line:col) */
  SCGPU_ERROR_LAUNCH_REFUSED,    /* unknown kernel, or a configuration the device refuses */
  SCGPU_ERROR_FAULT,             /* a kernel faulted: scgpu_error_info says where */
  SCGPU_ERROR_DEVICE,            /* a channel stopped on another error (ERR_KIND) */
  SCGPU_ERROR_NOT_READY,         /* an event that has not completed */
  SCGPU_ERROR_DEADLOCK           /* a stream waits on a semaphore nothing will release */
} scgpu_status;

typedef struct scgpu_device scgpu_device;
typedef struct scgpu_stream scgpu_stream;
typedef struct scgpu_event scgpu_event;
typedef uint64_t scgpu_devptr;
typedef uint32_t scgpu_module;

/* What the error registers said about the last device error (kernel fault or stopped channel). */
typedef struct scgpu_error_info {
  uint32_t kind;      /* SCGPU_ERROR_KIND_* of tlm/host/scgpu_regs.h */
  uint32_t channel, gp_entry, method, word;
  uint64_t address;
  uint32_t module, launch;
  uint32_t block[3];
  uint32_t warp, lane, pc, ptx_line;
  uint32_t mmu_fault; /* PAGE_FAULT: ERR_MMU_FAULT (level, reason, write) */
} scgpu_error_info;

/* Opens a device in this process, built from a GPU config file (NULL: configs/tiny.yaml), in
   functional mode; resets it and checks BOOT_ID and the register map's major version. */
scgpu_status scgpu_open(const char* config_path, scgpu_device** device);
/* The same with the cycle-level timing model behind the interface (CAPS.TIMING = 1): kernels take
   their simulated time, which the timer and event timestamps count. One per process. */
scgpu_status scgpu_open_timing(const char* config_path, scgpu_device** device);
/* Opens the device of an `scgpu serve --socket PATH` process (docs/host-protocol.md): connects,
   exchanges HELLO, then resets and checks it as scgpu_open does. The server serves one client at
   a time: this waits while another is connected. SCGPU_ERROR_NO_DEVICE when nobody listens there
   or the server refuses (scgpu_last_error(NULL) says why). If the server goes away later, register
   reads return 0xFFFFFFFF and synchronising calls fail. */
scgpu_status scgpu_open_socket(const char* socket_path, scgpu_device** device);
void scgpu_close(scgpu_device* device);
/* Quiesces (stops fetch, waits for idle) and resets the device: every allocation, module, stream
   and event of this handle is gone afterwards, as after a fresh open. */
scgpu_status scgpu_reset(scgpu_device* device);

/* Raw register access, for bring-up and tests. */
uint32_t scgpu_mmio_read(scgpu_device* device, uint32_t offset);
void scgpu_mmio_write(scgpu_device* device, uint32_t offset, uint32_t value);
int scgpu_interrupt_pending(scgpu_device* device);

/* The message of the last failed call (device NULL: of the last failed scgpu_open), and the
   device's error registers after a device error. */
const char* scgpu_last_error(scgpu_device* device);
void scgpu_error_info_get(scgpu_device* device, scgpu_error_info* info);
const char* scgpu_status_name(scgpu_status status);

/* Device memory, mapped with MAP on the device's control channel (256-byte aligned). */
scgpu_status scgpu_mem_alloc(scgpu_device* device, size_t bytes, scgpu_devptr* ptr);
scgpu_status scgpu_mem_free(scgpu_device* device, scgpu_devptr ptr);

/* Modules: PTX text; the kernels are found by name at launch. */
scgpu_status scgpu_module_load(scgpu_device* device, const char* ptx, size_t bytes, scgpu_module* module);
scgpu_status scgpu_module_unload(scgpu_device* device, scgpu_module module);
/* Address and size of a module-scope .global/.const variable. */
scgpu_status scgpu_module_symbol(scgpu_device* device, scgpu_module module, const char* name, scgpu_devptr* ptr,
                                 size_t* bytes);

/* Streams: one channel each; priority 0 (lowest) to 15. */
scgpu_status scgpu_stream_create(scgpu_device* device, unsigned priority, scgpu_stream** stream);
scgpu_status scgpu_stream_destroy(scgpu_stream* stream);
scgpu_status scgpu_stream_synchronize(scgpu_stream* stream);

/* Work on a stream. `params` is the kernel's parameter buffer, laid out as its PTX parameter list. */
scgpu_status scgpu_launch(scgpu_stream* stream, scgpu_module module, const char* kernel, const uint32_t grid[3],
                          const uint32_t block[3], uint32_t shared_bytes, const void* params, size_t param_bytes);
/* A launch in thread-block clusters of cluster[0] x cluster[1] x cluster[2] blocks (sm_90; each divides
   the grid's dimension; all 0: the kernel's .reqnctapercluster): a cluster's blocks run at once and may
   read each other's shared memory and wait at the cluster barrier (LAUNCH_DESC.CLUSTER_*). */
scgpu_status scgpu_launch_cluster(scgpu_stream* stream, scgpu_module module, const char* kernel,
                                  const uint32_t grid[3], const uint32_t block[3], const uint32_t cluster[3],
                                  uint32_t shared_bytes, const void* params, size_t param_bytes);
/* A cooperative launch: its blocks run side by side and may synchronise as a grid (cooperative
   groups' grid.sync()); the grid must fit on the device at once (LAUNCH_DESC.GRID_SYNC_ADDR). */
scgpu_status scgpu_launch_cooperative(scgpu_stream* stream, scgpu_module module, const char* kernel,
                                      const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes,
                                      const void* params, size_t param_bytes);
scgpu_status scgpu_memcpy_htod_async(scgpu_stream* stream, scgpu_devptr dst, const void* src, size_t bytes);
scgpu_status scgpu_memcpy_dtoh_async(scgpu_stream* stream, void* dst, scgpu_devptr src, size_t bytes);
scgpu_status scgpu_memcpy_dtod_async(scgpu_stream* stream, scgpu_devptr dst, scgpu_devptr src, size_t bytes);
/* 2D: `height` rows of `width` bytes, rows `*_pitch` bytes apart. */
scgpu_status scgpu_memcpy_2d_htod_async(scgpu_stream* stream, scgpu_devptr dst, size_t dst_pitch, const void* src,
                                        size_t src_pitch, size_t width, size_t height);
scgpu_status scgpu_memcpy_2d_dtoh_async(scgpu_stream* stream, void* dst, size_t dst_pitch, scgpu_devptr src,
                                        size_t src_pitch, size_t width, size_t height);
scgpu_status scgpu_memset_async(scgpu_stream* stream, scgpu_devptr dst, uint8_t value, size_t bytes);
scgpu_status scgpu_memset32_async(scgpu_stream* stream, scgpu_devptr dst, uint32_t value, size_t count);
/* Synchronous forms: the work goes on the device's control stream, which is then synchronised. */
scgpu_status scgpu_memcpy_htod(scgpu_device* device, scgpu_devptr dst, const void* src, size_t bytes);
scgpu_status scgpu_memcpy_dtoh(scgpu_device* device, void* dst, scgpu_devptr src, size_t bytes);
scgpu_status scgpu_memset(scgpu_device* device, scgpu_devptr dst, uint8_t value, size_t bytes);

/* Stream ordering across streams: `waiter` waits until everything recorded on `signaller` so far
   has completed (a semaphore released by one channel and acquired by the other). */
scgpu_status scgpu_stream_wait_stream(scgpu_stream* waiter, scgpu_stream* signaller);

/* Events: a semaphore release with the device's timestamp. */
scgpu_status scgpu_event_create(scgpu_device* device, scgpu_event** event);
scgpu_status scgpu_event_destroy(scgpu_event* event);
scgpu_status scgpu_event_record(scgpu_event* event, scgpu_stream* stream);
/* SCGPU_ERROR_NOT_READY until the event's stream has reached it. */
scgpu_status scgpu_event_query(scgpu_event* event);
scgpu_status scgpu_event_elapsed_ns(scgpu_event* start, scgpu_event* end, uint64_t* ns);

#ifdef __cplusplus
}
#endif

#endif /* SCGPU_DRIVER_H */
