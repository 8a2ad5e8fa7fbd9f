/* The transport under the driver, as a C API: BAR0 reads and writes, the interrupt line, and the
   host memory the device reaches by DMA (two callbacks). Everything a driver written from scratch
   needs (docs/driver-bring-up.md); the driver library (scgpu_driver.h) sits on the same layer. */
#ifndef SCGPU_TRANSPORT_H
#define SCGPU_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scgpu_transport scgpu_transport;

/* The device reads `bytes` of host memory at `iova` into `dst` (dma_read) or writes `src` there
   (dma_write). Return 1 when the whole range is host memory the device may touch, 0 to refuse
   (the device then reports BAD_ADDRESS). */
typedef int (*scgpu_dma_read_fn)(void* context, uint64_t iova, void* dst, uint64_t bytes);
typedef int (*scgpu_dma_write_fn)(void* context, uint64_t iova, const void* src, uint64_t bytes);

/* A device in this process, from a GPU config file (NULL: configs/tiny.yaml). NULL on failure,
   with the reason in `error` (at most error_bytes, terminated). */
scgpu_transport* scgpu_transport_open(const char* config_path, char* error, size_t error_bytes);
void scgpu_transport_close(scgpu_transport* transport);
uint32_t scgpu_transport_read32(scgpu_transport* transport, uint32_t offset);
void scgpu_transport_write32(scgpu_transport* transport, uint32_t offset, uint32_t value);
/* 1 while the interrupt line is high. */
int scgpu_transport_irq(scgpu_transport* transport);
/* Until this is called every DMA is refused. */
void scgpu_transport_set_dma(scgpu_transport* transport, scgpu_dma_read_fn read, scgpu_dma_write_fn write,
                             void* context);

#ifdef __cplusplus
}
#endif

#endif /* SCGPU_TRANSPORT_H */
