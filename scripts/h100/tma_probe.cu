// The TMA microbenchmarks of validation/micro/tma_micro.cu on the GPU (scripts/h100/tma_probe.sh):
//   layout lines: "case NAME WORDS" then the box's shared-memory words (hex, 8 a line), for the cases
//     testbench/bulk_copy_test.cpp replays on the model (same tensors, boxes and coordinates);
//   latency and stream lines: CSV, see the header lines printed.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../../validation/micro/tma_micro.cu"
#include "cuda_check.h"

static PFN_cuTensorMapEncodeTiled_v12000 encodeFn() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult st;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &st));
  if (!fn) { std::fprintf(stderr, "no cuTensorMapEncodeTiled\n"); std::exit(1); }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

static CUtensorMap makeMap(CUtensorMapDataType type, int rank, void* base, const cuuint64_t* dims, const cuuint64_t* strides,
                           const cuuint32_t* box, const cuuint32_t* estr, CUtensorMapSwizzle sw, CUtensorMapFloatOOBfill fill) {
  alignas(64) CUtensorMap m;
  CUresult r = encodeFn()(&m, type, rank, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                          CU_TENSOR_MAP_L2_PROMOTION_NONE, fill);
  if (r != CUDA_SUCCESS) { std::fprintf(stderr, "encode failed %d\n", int(r)); std::exit(1); }
  return m;
}

static void dump(const char* name, const CUtensorMap& m, int rank, int x, int y, int z, unsigned bytes) {
  std::uint32_t* d;
  CHECK(cudaMalloc(&d, bytes));
  CHECK(cudaMemset(d, 0xEE, bytes));
  tma_box_dump<<<1, 128>>>(m, d, rank, x, y, z, bytes);
  CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> h(bytes / 4);
  CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
  std::printf("case %s %u\n", name, bytes / 4);
  for (std::size_t i = 0; i < h.size(); ++i) std::printf("%08x%c", h[i], i % 8 == 7 ? '\n' : ' ');
  CHECK(cudaFree(d));
}

int main() {
  // ---- layouts: a 100 x 70 u32 tensor, rows 512 bytes apart, word i = i * 2654435761 + 17
  const int W = 100, H = 70, pitch = 512;
  std::vector<std::uint32_t> src(pitch / 4 * H);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint32_t(i * 2654435761u + 17);
  std::uint32_t* dsrc;
  CHECK(cudaMalloc(&dsrc, src.size() * 4));
  CHECK(cudaMemcpy(dsrc, src.data(), src.size() * 4, cudaMemcpyHostToDevice));
  const cuuint64_t dims[2] = {cuuint64_t(W), cuuint64_t(H)}, strides[1] = {cuuint64_t(pitch)};
  const cuuint32_t estr[3] = {1, 1, 1};
  const struct { const char* sw_name; CUtensorMapSwizzle sw; cuuint32_t bw; } sws[] = {
      {"none", CU_TENSOR_MAP_SWIZZLE_NONE, 32}, {"32B", CU_TENSOR_MAP_SWIZZLE_32B, 8},
      {"64B", CU_TENSOR_MAP_SWIZZLE_64B, 16}, {"128B", CU_TENSOR_MAP_SWIZZLE_128B, 32},
      {"128B_narrow", CU_TENSOR_MAP_SWIZZLE_128B, 16}};
  const int coords[3][2] = {{-8, -4}, {60, 50}, {8, 1}};
  for (const auto& s : sws)
    for (const auto& c : coords) {
      const cuuint32_t box[2] = {s.bw, 32};
      const CUtensorMap m = makeMap(CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, dsrc, dims, strides, box, estr, s.sw,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      char name[64];
      std::snprintf(name, sizeof name, "u32_%s_bw%u_at_%d_%d", s.sw_name, s.bw, c[0], c[1]);
      dump(name, m, 2, c[0], c[1], 0, s.bw * 32 * 4);
    }
  {  // float NaN fill out of bounds
    const cuuint32_t box[2] = {32, 32};
    const CUtensorMap m = makeMap(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dsrc, dims, strides, box, estr,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
    dump("f32_nanfill_at_-8_-4", m, 2, -8, -4, 0, 32 * 32 * 4);
  }
  {  // 3-d, element strides 1, 2, 2: a 16 x 10 x 6 tensor (planes 1024 bytes apart), word i = i * 2654435761
    std::vector<std::uint32_t> t(16 * 16 * 6);
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = std::uint32_t(i * 2654435761u);
    std::uint32_t* dt;
    CHECK(cudaMalloc(&dt, t.size() * 4));
    CHECK(cudaMemcpy(dt, t.data(), t.size() * 4, cudaMemcpyHostToDevice));
    const cuuint64_t d3[3] = {16, 10, 6}, s3[2] = {64, 1024};
    const cuuint32_t b3[3] = {8, 6, 5}, e3[3] = {1, 2, 2};
    const CUtensorMap m = makeMap(CU_TENSOR_MAP_DATA_TYPE_UINT32, 3, dt, d3, s3, b3, e3, CU_TENSOR_MAP_SWIZZLE_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    dump("u32_3d_estride_at_0_1_-1", m, 3, 0, 1, -1, 8 * 3 * 3 * 4);
  }
  std::fflush(stdout);

  // ---- latency: a 32 x 32768 float tensor (4 MiB, L2-resident after a first pass)
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int small_rows = 32768;
  float* dsmall;
  CHECK(cudaMalloc(&dsmall, std::size_t(small_rows) * 128));
  CHECK(cudaMemset(dsmall, 0, std::size_t(small_rows) * 128));
  const long long big_rows = 8LL << 20;  // 1 GiB
  float* dbig;
  CHECK(cudaMalloc(&dbig, std::size_t(big_rows) * 128));
  CHECK(cudaMemset(dbig, 0, std::size_t(big_rows) * 128));
  long long* dcyc;
  CHECK(cudaMalloc(&dcyc, 4096 * sizeof(long long)));
  std::fprintf(stderr, "sms %d\n", sms);
  std::printf("latency,box_rows,box_bytes,min_cycles,median_cycles,max_cycles\n");
  for (int rows : {8, 32, 64, 128}) {
    const cuuint64_t d2[2] = {32, cuuint64_t(small_rows)}, s2[1] = {128};
    const cuuint32_t b2[2] = {32, cuuint32_t(rows)};
    const CUtensorMap m = makeMap(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dsmall, d2, s2, b2, estr, CU_TENSOR_MAP_SWIZZLE_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const int n = 64;
    for (int rep = 0; rep < 2; ++rep) tma_latency<<<1, 32>>>(m, dcyc, n, rows, small_rows);  // the first warms the L2
    CHECK(cudaDeviceSynchronize());
    std::vector<long long> c(n);
    CHECK(cudaMemcpy(c.data(), dcyc, n * sizeof(long long), cudaMemcpyDeviceToHost));
    std::sort(c.begin() + 1, c.end());  // the first includes the mbarrier's first use
    std::printf("latency,%d,%d,%lld,%lld,%lld\n", rows, rows * 128, c[1], c[n / 2], c[n - 1]);
  }
  // ---- streams
  std::printf("stream,name,grid,box_rows,boxes_per_block,stages,tensor_bytes,mean_cycles,max_cycles,event_us\n");
  struct S { const char* name; int grid; int rows; int boxes; int stages; bool big; };
  const S cases[] = {
      {"l2_1sm_s4", 1, 64, 512, 4, false},   {"l2_1sm_s1", 1, 64, 256, 1, false},
      {"l2_1sm_s4_r128", 1, 128, 256, 4, false}, {"l2_all_s4", sms, 64, 256, 4, false},
      {"dram_all_s4", sms, 64, int(big_rows / 64 / sms), 4, true}, {"dram_1sm_s4", 1, 64, 2048, 4, true}};
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  // One timed launch (`launch()`): its CUDA-event time and the blocks' mean and max cycles, as a row.
  auto timeStream = [&](const std::string& name, int grid, int rows, int boxes, int stages, long long tensor_bytes,
                        auto&& launch) {
    CHECK(cudaEventRecord(e0));
    launch();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    std::vector<long long> c(grid);
    CHECK(cudaMemcpy(c.data(), dcyc, grid * sizeof(long long), cudaMemcpyDeviceToHost));
    double mean = 0;
    long long mx = 0;
    for (long long v : c) { mean += double(v) / grid; mx = std::max(mx, v); }
    std::printf("stream,%s,%d,%d,%d,%d,%lld,%.1f,%lld,%.2f\n", name.c_str(), grid, rows, boxes, stages, tensor_bytes,
                mean, mx, ms * 1000.0);
  };
  for (const S& s : cases) {
    const long long trows = s.big ? big_rows : small_rows;
    const cuuint64_t d2[2] = {32, cuuint64_t(trows)}, s2[1] = {128};
    const cuuint32_t b2[2] = {32, cuuint32_t(s.rows)};
    const CUtensorMap m = makeMap(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, s.big ? dbig : dsmall, d2, s2, b2, estr,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const int smem = s.stages * 128 * s.rows;
    CHECK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    tma_stream<<<s.grid, 32, smem>>>(m, dcyc, s.boxes, s.rows, int(trows), s.stages);  // warm-up (L2 cases)
    CHECK(cudaDeviceSynchronize());
    if (s.big) {  // evict: stream the other tensor
      tma_stream<<<sms, 32, smem>>>(m, dcyc, 64, s.rows, int(trows), s.stages);
      CHECK(cudaMemset(dsmall, 1, std::size_t(small_rows) * 128));
      CHECK(cudaMemset(dbig, 0, 256ull << 20));
      CHECK(cudaDeviceSynchronize());
    }
    timeStream(s.name, s.grid, s.rows, s.boxes, s.stages, trows * 128,
               [&] { tma_stream<<<s.grid, 32, smem>>>(m, dcyc, s.boxes, s.rows, int(trows), s.stages); });
  }
  // ---- the same boxes from several SMs at once (tma_stream_shared), L2-resident, 128 blocks
  for (int share : {1, 2, 4, 8, 16}) {
    const int grid = 128, rows = 64, boxes = 256, stages = 4;
    const cuuint64_t d2[2] = {32, cuuint64_t(small_rows)}, s2[1] = {128};
    const cuuint32_t b2[2] = {32, cuuint32_t(rows)};
    const CUtensorMap m = makeMap(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dsmall, d2, s2, b2, estr,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const int smem = stages * 128 * rows;
    CHECK(cudaFuncSetAttribute(tma_stream_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    tma_stream_shared<<<grid, 32, smem>>>(m, dcyc, boxes, rows, small_rows, stages, share);  // warm-up
    CHECK(cudaDeviceSynchronize());
    timeStream("l2_k" + std::to_string(share), grid, rows, boxes, stages, (long long)small_rows * 128,
               [&] { tma_stream_shared<<<grid, 32, smem>>>(m, dcyc, boxes, rows, small_rows, stages, share); });
  }
  return 0;
}
