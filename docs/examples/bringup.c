/* A driver from scratch, on the bare host interface (docs/driver-bring-up.md walks through it):
   reset the device, set up one channel with its ring in host memory, copy data to the device,
   load a module, launch a kernel, copy the result back, and take an interrupt when it is done.
   Only registers (tlm/host/scgpu_regs.h), rings, command buffers and DMA: no driver library.
   Exit status 0 when the result equals the CPU's. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "driver/scgpu_transport.h"
#include "tlm/host/scgpu_regs.h"

/* Host memory the device may reach: one arena, seen by the device at IOVA 0x10000000. */
#define ARENA_IOVA 0x10000000ull
#define ARENA_BYTES (1u << 20)
static uint8_t arena[ARENA_BYTES];

static int dma_read(void* ctx, uint64_t iova, void* dst, uint64_t bytes) {
  (void)ctx;
  if (iova < ARENA_IOVA || iova - ARENA_IOVA > ARENA_BYTES || bytes > ARENA_BYTES - (iova - ARENA_IOVA)) return 0;
  memcpy(dst, arena + (iova - ARENA_IOVA), bytes);
  return 1;
}
static int dma_write(void* ctx, uint64_t iova, const void* src, uint64_t bytes) {
  (void)ctx;
  if (iova < ARENA_IOVA || iova - ARENA_IOVA > ARENA_BYTES || bytes > ARENA_BYTES - (iova - ARENA_IOVA)) return 0;
  memcpy(arena + (iova - ARENA_IOVA), src, bytes);
  return 1;
}

/* Where things live in the arena, and in device memory. */
enum { RING = 0x0, CMDS = 0x1000, INPUT = 0x10000, OUTPUT = 0x20000, IMAGE = 0x30000, DESC = 0x40000 };
#define DEV_BASE 0x700000000000ull /* the device's address space: we choose, MAP makes it real */
#define DEV_DATA (DEV_BASE)
#define DEV_IMAGE (DEV_BASE + 0x100000)
#define DEV_DESC (DEV_BASE + 0x200000)
#define N 1024

static const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry scale(.param .u64 data, .param .u32 n) {\n"
    "  .reg .u64 %a<4>; .reg .u32 %r<5>; .reg .f32 %f<2>; .reg .pred %p;\n"
    "  ld.param.u64 %a0, [data]; ld.param.u32 %r4, [n];\n"
    "  mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mad.lo.u32 %r3, %r1, %r2, %r0;\n"
    "  setp.ge.u32 %p, %r3, %r4; @%p bra done;\n"
    "  mul.wide.u32 %a1, %r3, 4; add.u64 %a2, %a0, %a1;\n"
    "  ld.global.f32 %f0, [%a2]; mul.f32 %f1, %f0, 0f40000000; st.global.f32 [%a2], %f1;\n"
    "done:\n  ret;\n}\n";

static uint32_t* cmd;     /* the command buffer being written */
static uint32_t ncmd;
static void method(uint32_t m, uint32_t count, const uint32_t* args) {
  cmd[ncmd++] = SCGPU_CMD_HEADER(m, count);
  for (uint32_t i = 0; i < count; ++i) cmd[ncmd++] = args[i];
}
static uint32_t lo(uint64_t v) { return (uint32_t)v; }
static uint32_t hi(uint64_t v) { return (uint32_t)(v >> 32); }

int main(void) {
  char error[512];
  scgpu_transport* t = scgpu_transport_open(NULL, error, sizeof error);
  if (!t) {
    fprintf(stderr, "open: %s\n", error);
    return 1;
  }
  scgpu_transport_set_dma(t, dma_read, dma_write, NULL);

  /* 1. Is it there? Reset it. */
  if (scgpu_transport_read32(t, SCGPU_REG_BOOT_ID) != SCGPU_REG_BOOT_ID_RESET) {
    fprintf(stderr, "no scgpu device\n");
    return 1;
  }
  scgpu_transport_write32(t, SCGPU_REG_RESET, SCGPU_RESET_DEVICE_MASK);
  printf("device: sm_%u%u, %u SMs, %u channels\n",
         (scgpu_transport_read32(t, SCGPU_REG_ARCH) & SCGPU_ARCH_CC_MAJOR_MASK) >> SCGPU_ARCH_CC_MAJOR_SHIFT,
         scgpu_transport_read32(t, SCGPU_REG_ARCH) & SCGPU_ARCH_CC_MINOR_MASK,
         scgpu_transport_read32(t, SCGPU_REG_NUM_SMS), scgpu_transport_read32(t, SCGPU_REG_NUM_CHANNELS));

  /* 2. Channel 0: a ring of 8 entries in host memory. Interrupts from channels enabled. */
  const uint64_t ring = ARENA_IOVA + RING;
  scgpu_transport_write32(t, SCGPU_REG_CH_GPFIFO_BASE_LO(0), lo(ring));
  scgpu_transport_write32(t, SCGPU_REG_CH_GPFIFO_BASE_HI(0), hi(ring));
  scgpu_transport_write32(t, SCGPU_REG_CH_GPFIFO_ENTRIES(0), 8);
  scgpu_transport_write32(t, SCGPU_REG_CH_CONTROL(0), SCGPU_CH_CONTROL_ENABLE_MASK | SCGPU_CH_CONTROL_RING_IN_HOST_MASK);
  scgpu_transport_write32(t, SCGPU_REG_INTR_ENABLE,
                          SCGPU_INTR_STATUS_CHANNEL_MASK | SCGPU_INTR_STATUS_ERROR_MASK | SCGPU_INTR_STATUS_FAULT_MASK);

  /* 3. What the commands point at: input data, the PTX image, the launch descriptor. */
  float* input = (float*)(arena + INPUT);
  for (int i = 0; i < N; ++i) input[i] = (float)i * 0.5f;
  memcpy(arena + IMAGE, kPtx, sizeof kPtx - 1);
  scgpu_launch_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.module_slot = 0;
  desc.entry_name_bytes = 5;
  desc.entry_name_addr = DEV_DESC + 96;  /* after the 80-byte descriptor */
  desc.grid_x = N / 256; desc.grid_y = 1; desc.grid_z = 1;
  desc.block_x = 256; desc.block_y = 1; desc.block_z = 1;
  desc.param_bytes = 12;
  desc.param_addr = DEV_DESC + 128;
  memcpy(arena + DESC, &desc, sizeof desc);
  memcpy(arena + DESC + 96, "scale", 5);
  const uint64_t data_ptr = DEV_DATA;
  const uint32_t n = N;
  memcpy(arena + DESC + 128, &data_ptr, 8);
  memcpy(arena + DESC + 136, &n, 4);

  /* 4. One command buffer: map memory, copy in, load the module, launch, copy out, interrupt. */
  cmd = (uint32_t*)(arena + CMDS);
  ncmd = 0;
  {
    const uint32_t map_data[] = {lo(DEV_DATA), hi(DEV_DATA), N * 4, 0};
    const uint32_t map_image[] = {lo(DEV_IMAGE), hi(DEV_IMAGE), 0x10000, 0};
    const uint32_t map_desc[] = {lo(DEV_DESC), hi(DEV_DESC), 0x1000, 0};
    const uint32_t copy_in[] = {lo(ARENA_IOVA + INPUT), hi(ARENA_IOVA + INPUT), lo(DEV_DATA), hi(DEV_DATA), N * 4, 1, 0, 0, 1};
    const uint32_t copy_image[] = {lo(ARENA_IOVA + IMAGE), hi(ARENA_IOVA + IMAGE), lo(DEV_IMAGE), hi(DEV_IMAGE), sizeof kPtx - 1, 1, 0, 0, 1};
    const uint32_t copy_desc[] = {lo(ARENA_IOVA + DESC), hi(ARENA_IOVA + DESC), lo(DEV_DESC), hi(DEV_DESC), 256, 1, 0, 0, 1};
    const uint32_t load[] = {lo(DEV_IMAGE), hi(DEV_IMAGE), sizeof kPtx - 1, 0, 0, 0};
    const uint32_t launch[] = {lo(DEV_DESC), hi(DEV_DESC)};
    const uint32_t copy_out[] = {lo(DEV_DATA), hi(DEV_DATA), lo(ARENA_IOVA + OUTPUT), hi(ARENA_IOVA + OUTPUT), N * 4, 1, 0, 0, 2};
    const uint32_t interrupt[] = {0x600D};
    method(SCGPU_METHOD_MAP, SCGPU_METHOD_MAP_WORDS, map_data);
    method(SCGPU_METHOD_MAP, SCGPU_METHOD_MAP_WORDS, map_image);
    method(SCGPU_METHOD_MAP, SCGPU_METHOD_MAP_WORDS, map_desc);
    method(SCGPU_METHOD_COPY, SCGPU_METHOD_COPY_WORDS, copy_in);
    method(SCGPU_METHOD_COPY, SCGPU_METHOD_COPY_WORDS, copy_image);
    method(SCGPU_METHOD_COPY, SCGPU_METHOD_COPY_WORDS, copy_desc);
    method(SCGPU_METHOD_LOAD_MODULE, SCGPU_METHOD_LOAD_MODULE_WORDS, load);
    method(SCGPU_METHOD_LAUNCH, SCGPU_METHOD_LAUNCH_WORDS, launch);
    method(SCGPU_METHOD_COPY, SCGPU_METHOD_COPY_WORDS, copy_out);
    method(SCGPU_METHOD_INTERRUPT, SCGPU_METHOD_INTERRUPT_WORDS, interrupt);
  }

  /* 5. Ring entry 0 points at it; the doorbell (GP_PUT = 1) starts the front end. */
  scgpu_gpfifo_entry entry;
  memset(&entry, 0, sizeof entry);
  entry.buffer_addr = ARENA_IOVA + CMDS;
  entry.length_words = ncmd;
  entry.flags = 1; /* the buffer is in host memory */
  memcpy(arena + RING, &entry, sizeof entry);
  scgpu_transport_write32(t, SCGPU_REG_CH_GP_PUT(0), 1);

  /* 6. Wait for the interrupt, see who raised it, acknowledge it (W1C). */
  uint32_t polls = 0;
  while (!scgpu_transport_irq(t) && ++polls < 1000000) (void)scgpu_transport_read32(t, SCGPU_REG_STATUS);
  const uint32_t status = scgpu_transport_read32(t, SCGPU_REG_INTR_STATUS);
  if (status & (SCGPU_INTR_STATUS_ERROR_MASK | SCGPU_INTR_STATUS_FAULT_MASK)) {
    fprintf(stderr, "device error %u on channel %u, entry %u, method 0x%x\n", scgpu_transport_read32(t, SCGPU_REG_ERR_KIND),
            scgpu_transport_read32(t, SCGPU_REG_ERR_CHANNEL), scgpu_transport_read32(t, SCGPU_REG_ERR_GP_ENTRY),
            scgpu_transport_read32(t, SCGPU_REG_ERR_METHOD));
    return 1;
  }
  const uint32_t payload = scgpu_transport_read32(t, SCGPU_REG_CH_INTR_PAYLOAD(0));
  scgpu_transport_write32(t, SCGPU_REG_INTR_STATUS, status);
  scgpu_transport_write32(t, SCGPU_REG_INTR_CHANNEL, scgpu_transport_read32(t, SCGPU_REG_INTR_CHANNEL));
  printf("interrupt: status 0x%x, payload 0x%x, GP_GET %u, device time %u ns\n", status, payload,
         scgpu_transport_read32(t, SCGPU_REG_CH_GP_GET(0)), scgpu_transport_read32(t, SCGPU_REG_TIMER_LO));

  /* 7. Check against the CPU. */
  const float* output = (const float*)(arena + OUTPUT);
  int bad = 0;
  for (int i = 0; i < N; ++i)
    if (output[i] != input[i] * 2.0f) ++bad;
  const int line_still_high = scgpu_transport_irq(t);
  printf("%s: %d of %d values differ\n", bad ? "FAIL" : "PASS", bad, N);
  scgpu_transport_close(t);
  return bad || payload != 0x600D || line_still_high ? 1 : 0;
}
