// runtime_api: exercises the CUDA runtime calls a program uses beyond malloc/copy/launch, each
// checked against what CUDA specifies: device properties against attributes, pitched and 2D
// copies, memsets, module variables (symbols), streams with pinned memory, events and stream
// ordering, host functions, managed memory, function attributes, the occupancy calculator, opt-in
// dynamic shared memory, launch errors, cudaLaunchKernelEx and cooperative launches, pointer
// attributes, error names. Runs the same on an H100 and on scgpu (on scgpu, whose device name
// starts with "scgpu", it also checks that an unimplemented call says cudaErrorNotSupported).
// Prints one line per check group and PASSED/FAILED; exit 0 passed, 1 failed.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_failures = 0;

void expect(bool ok, const char* what, int line) {
  if (ok) return;
  std::printf("FAILED check at line %d: %s\n", line, what);
  ++g_failures;
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)
// An error code, printed by name when it is not the one expected.
#define EXPECT_ERROR(call, want)                                                                         \
  do {                                                                                                    \
    const cudaError_t e_ = (call);                                                                        \
    if (e_ != (want)) {                                                                                   \
      std::printf("FAILED at line %d: %s returned %s, expected %s\n", __LINE__, #call, cudaGetErrorName(e_), \
                  cudaGetErrorName(want));                                                                \
      ++g_failures;                                                                                       \
    }                                                                                                     \
  } while (0)
#define EXPECT_OK(call)                                                                                   \
  do {                                                                                                    \
    const cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                              \
      std::printf("FAILED at line %d: %s returned %s\n", __LINE__, #call, cudaGetErrorName(e_));         \
      ++g_failures;                                                                                       \
    }                                                                                                     \
  } while (0)

}  // namespace

__constant__ float c_scale[4];
__device__ int d_counter;
__device__ int d_table[64];

__global__ void scale_add(const float* in, float* out, int n, float add) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * c_scale[i % 4] + add;
}

__global__ void count_and_fill() {
  atomicAdd(&d_counter, 1);
  if (threadIdx.x < 64) d_table[threadIdx.x] = int(threadIdx.x) * 3;
}

// A static 1 KiB of shared memory, which cudaFuncGetAttributes reports.
__global__ void with_static_shared(int* out) {
  __shared__ int buf[256];
  buf[threadIdx.x] = int(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buf[255 - threadIdx.x];
}

// Uses all of its dynamic shared memory (the size in bytes is an argument).
__global__ void with_dynamic_shared(int* out, int words) {
  extern __shared__ int dyn[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) dyn[i] = i;
  __syncthreads();
  int sum = 0;
  for (int i = threadIdx.x; i < words; i += blockDim.x) sum += dyn[words - 1 - i];
  atomicAdd(out, sum);
}

__global__ void increment(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

// A cooperative launch's grid-wide barrier: every block adds, then every block reads the total.
__global__ void grid_sum(int* partial, int* total_seen) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  if (threadIdx.x == 0) atomicAdd(&partial[0], 1);
  grid.sync();
  if (threadIdx.x == 0) total_seen[blockIdx.x] = atomicAdd(&partial[0], 0);
}

void hostFlag(void* p) { *static_cast<int*>(p) = 42; }

int main() {
  // ---- Device and properties
  int count = 0;
  EXPECT_OK(cudaGetDeviceCount(&count));
  EXPECT(count >= 1);
  EXPECT_OK(cudaSetDevice(0));
  int dev = -1;
  EXPECT_OK(cudaGetDevice(&dev));
  EXPECT(dev == 0);
  cudaDeviceProp prop{};
  EXPECT_OK(cudaGetDeviceProperties(&prop, 0));
  const bool on_scgpu = std::strncmp(prop.name, "scgpu", 5) == 0;
  int v = 0;
  EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  EXPECT(v == prop.multiProcessorCount && v > 0);
  EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
  EXPECT(v == prop.major && v >= 7);
  EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0));
  EXPECT(v == prop.maxThreadsPerBlock);
  EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  EXPECT(std::size_t(v) == prop.sharedMemPerBlockOptin && prop.sharedMemPerBlockOptin >= prop.sharedMemPerBlock);
  EXPECT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
  EXPECT(v == 32 && prop.warpSize == 32);
  EXPECT_ERROR(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 7), cudaErrorInvalidDevice);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_ERROR(cudaGetLastError(), cudaSuccess);
  int runtime = 0;
  EXPECT_OK(cudaRuntimeGetVersion(&runtime));
  EXPECT(runtime >= 13000);
  std::size_t free_bytes = 0, total_bytes = 0;
  EXPECT_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
  EXPECT(total_bytes == prop.totalGlobalMem && free_bytes <= total_bytes && free_bytes > 0);
  std::printf("device: %s, cc %d.%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);

  // ---- Memsets, pitched allocations and 2D copies
  const int w = 100, h = 7;  // bytes per row, rows
  char* pitched = nullptr;
  std::size_t pitch = 0;
  EXPECT_OK(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, w, h));
  EXPECT(pitch >= std::size_t(w) && pitch % 32 == 0);
  EXPECT_OK(cudaMemset2D(pitched, pitch, 0x5a, w, h));
  std::vector<char> rows(w * h, 0);
  EXPECT_OK(cudaMemcpy2D(rows.data(), w, pitched, pitch, w, h, cudaMemcpyDeviceToHost));
  bool all5a = true;
  for (char c : rows) all5a &= c == 0x5a;
  EXPECT(all5a);
  for (int i = 0; i < w * h; ++i) rows[i] = char(i * 7);
  EXPECT_OK(cudaMemcpy2D(pitched, pitch, rows.data(), w, w, h, cudaMemcpyHostToDevice));
  std::vector<char> back(w * h, 0);
  EXPECT_OK(cudaMemcpy2D(back.data(), w, pitched, pitch, w, h, cudaMemcpyDefault));
  EXPECT(back == rows);
  EXPECT_OK(cudaFree(pitched));
  std::printf("memsets and 2D copies checked\n");

  // ---- Module variables
  const float scales[4] = {1.0f, 2.0f, -1.0f, 0.5f};
  EXPECT_OK(cudaMemcpyToSymbol(c_scale, scales, sizeof scales));
  float scale2 = 0;
  EXPECT_OK(cudaMemcpyFromSymbol(&scale2, c_scale, sizeof(float), 2 * sizeof(float)));
  EXPECT(scale2 == -1.0f);
  std::size_t table_bytes = 0;
  EXPECT_OK(cudaGetSymbolSize(&table_bytes, d_table));
  EXPECT(table_bytes == sizeof(int) * 64);
  int* table_ptr = nullptr;
  EXPECT_OK(cudaGetSymbolAddress(reinterpret_cast<void**>(&table_ptr), d_table));
  EXPECT_OK(cudaMemset(table_ptr, 0, table_bytes));
  const int zero = 0;
  EXPECT_OK(cudaMemcpyToSymbol(d_counter, &zero, sizeof zero));
  count_and_fill<<<3, 128>>>();
  EXPECT_OK(cudaGetLastError());
  int counter = 0;
  EXPECT_OK(cudaMemcpyFromSymbol(&counter, d_counter, sizeof counter));
  EXPECT(counter == 3 * 128);
  std::vector<int> table(64);
  EXPECT_OK(cudaMemcpy(table.data(), table_ptr, table_bytes, cudaMemcpyDeviceToHost));
  EXPECT(table[0] == 0 && table[63] == 189);
  std::printf("module variables checked\n");

  // ---- Streams, pinned memory, events, host functions
  const int n = 1 << 14;
  float *h_in = nullptr, *h_out = nullptr;
  EXPECT_OK(cudaMallocHost(reinterpret_cast<void**>(&h_in), n * sizeof(float)));
  EXPECT_OK(cudaHostAlloc(reinterpret_cast<void**>(&h_out), 2 * n * sizeof(float), cudaHostAllocDefault));
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 1000) * 0.25f;
  float *d_in = nullptr, *d_out = nullptr;
  EXPECT_OK(cudaMalloc(&d_in, n * sizeof(float)));
  EXPECT_OK(cudaMalloc(&d_out, 2 * n * sizeof(float)));
  cudaStream_t s1, s2;
  EXPECT_OK(cudaStreamCreate(&s1));
  EXPECT_OK(cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, -1));
  unsigned flags = 7;
  EXPECT_OK(cudaStreamGetFlags(s2, &flags));
  EXPECT(flags == cudaStreamNonBlocking);
  int prio = 0;
  EXPECT_OK(cudaStreamGetPriority(s2, &prio));
  EXPECT(prio == -1);
  cudaEvent_t start, copied, done;
  EXPECT_OK(cudaEventCreate(&start));
  EXPECT_OK(cudaEventCreate(&copied));
  EXPECT_OK(cudaEventCreateWithFlags(&done, cudaEventDefault));
  EXPECT_OK(cudaEventRecord(start, s1));
  EXPECT_OK(cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s1));
  EXPECT_OK(cudaEventRecord(copied, s1));
  scale_add<<<(n + 255) / 256, 256, 0, s1>>>(d_in, d_out, n, 1.0f);
  // s2 waits for the copy on s1, then works on the second half of the output.
  EXPECT_OK(cudaStreamWaitEvent(s2, copied, 0));
  scale_add<<<(n + 255) / 256, 256, 0, s2>>>(d_in, d_out + n, n, -2.0f);
  EXPECT_OK(cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
  EXPECT_OK(cudaMemcpyAsync(h_out + n, d_out + n, n * sizeof(float), cudaMemcpyDeviceToHost, s2));
  int flag = 0;
  EXPECT_OK(cudaLaunchHostFunc(s1, hostFlag, &flag));
  EXPECT_OK(cudaEventRecord(done, s1));
  EXPECT_OK(cudaEventSynchronize(done));
  EXPECT_OK(cudaStreamSynchronize(s2));
  EXPECT(flag == 42);
  EXPECT_ERROR(cudaEventQuery(done), cudaSuccess);
  float ms_copy = -1, ms_all = -1;
  EXPECT_OK(cudaEventElapsedTime(&ms_copy, start, copied));
  EXPECT_OK(cudaEventElapsedTime(&ms_all, start, done));
  EXPECT(ms_copy > 0 && ms_all > ms_copy);
  bool streams_ok = true;
  for (int i = 0; i < n; ++i) {
    streams_ok &= h_out[i] == h_in[i] * scales[i % 4] + 1.0f;
    streams_ok &= h_out[n + i] == h_in[i] * scales[i % 4] - 2.0f;
  }
  EXPECT(streams_ok);
  EXPECT_OK(cudaEventDestroy(start));
  EXPECT_OK(cudaEventDestroy(copied));
  EXPECT_OK(cudaEventDestroy(done));
  EXPECT_OK(cudaStreamDestroy(s1));
  EXPECT_OK(cudaStreamDestroy(s2));
  std::printf("streams, events and host functions checked\n");

  // ---- Pointer attributes
  cudaPointerAttributes pa{};
  EXPECT_OK(cudaPointerGetAttributes(&pa, d_in));
  EXPECT(pa.type == cudaMemoryTypeDevice && pa.devicePointer == d_in);
  EXPECT_OK(cudaPointerGetAttributes(&pa, h_in));
  EXPECT(pa.type == cudaMemoryTypeHost);
  int stack_int = 0;
  EXPECT_OK(cudaPointerGetAttributes(&pa, &stack_int));
  EXPECT(pa.type == cudaMemoryTypeUnregistered);
  EXPECT_OK(cudaFreeHost(h_in));
  EXPECT_OK(cudaFreeHost(h_out));
  EXPECT_OK(cudaFree(d_in));
  EXPECT_OK(cudaFree(d_out));

  // ---- Managed memory
  int* managed = nullptr;
  EXPECT_OK(cudaMallocManaged(&managed, 1000 * sizeof(int)));
  for (int i = 0; i < 1000; ++i) managed[i] = i;
  increment<<<4, 256>>>(managed, 1000);
  EXPECT_OK(cudaDeviceSynchronize());
  bool managed_ok = true;
  for (int i = 0; i < 1000; ++i) managed_ok &= managed[i] == i + 1;
  EXPECT(managed_ok);
  EXPECT_OK(cudaPointerGetAttributes(&pa, managed));
  EXPECT(pa.type == cudaMemoryTypeManaged);
  EXPECT_OK(cudaFree(managed));
  std::printf("managed memory checked\n");

  // ---- Function attributes, occupancy, dynamic shared memory
  cudaFuncAttributes fa{};
  EXPECT_OK(cudaFuncGetAttributes(&fa, with_static_shared));
  if (fa.sharedSizeBytes != 1024 || fa.numRegs <= 0 || fa.maxThreadsPerBlock <= 0) {
    std::printf("FAILED: cudaFuncGetAttributes: sharedSizeBytes %zu (want 1024), numRegs %d, maxThreadsPerBlock %d\n",
                fa.sharedSizeBytes, fa.numRegs, fa.maxThreadsPerBlock);
    ++g_failures;
  }
  int blocks = 0;
  EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, with_static_shared, 256, 0));
  EXPECT(blocks > 0 && blocks * 256 <= prop.maxThreadsPerMultiProcessor);
  int min_grid = 0, best_block = 0;
  EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, increment, 0, 0));
  EXPECT(best_block > 0 && best_block <= prop.maxThreadsPerBlock && best_block % 32 == 0 && min_grid > 0);
  int* d_sum = nullptr;
  EXPECT_OK(cudaMalloc(&d_sum, sizeof(int)));
  const int big = 64 * 1024;  // above the default 48 KiB: needs the opt-in
  EXPECT_OK(cudaFuncSetAttribute(with_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  EXPECT_OK(cudaMemset(d_sum, 0, sizeof(int)));
  with_dynamic_shared<<<2, 256, big>>>(d_sum, big / 4);
  EXPECT_OK(cudaGetLastError());
  int sum = 0;
  EXPECT_OK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
  const int words = big / 4;
  EXPECT(sum == 2 * (words * (words - 1) / 2));
  std::printf("function attributes, occupancy and dynamic shared memory checked\n");

  // ---- Launch errors are reported and cleared
  // CUDA 13 says cudaErrorInvalidValue for both (measured on an H200; older runtimes said
  // cudaErrorInvalidConfiguration for the first).
  increment<<<1, 2048>>>(d_sum, 1);  // more threads than a block may have
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaGetLastError(), cudaSuccess);
  with_dynamic_shared<<<1, 32, int(prop.sharedMemPerBlockOptin) + 4096>>>(d_sum, 1);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaPeekAtLastError(), cudaSuccess);
  EXPECT(std::string(cudaGetErrorName(cudaErrorIllegalAddress)) == "cudaErrorIllegalAddress");
  EXPECT(std::string(cudaGetErrorName(cudaErrorNotSupported)) == "cudaErrorNotSupported");

  // ---- cudaLaunchKernelEx and a cooperative launch
  int* d_data = nullptr;
  EXPECT_OK(cudaMalloc(&d_data, 256 * sizeof(int)));
  EXPECT_OK(cudaMemset(d_data, 0, 256 * sizeof(int)));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(2);
  cfg.blockDim = dim3(128);
  EXPECT_OK(cudaLaunchKernelEx(&cfg, increment, d_data, 256));
  EXPECT_OK(cudaDeviceSynchronize());
  std::vector<int> ones(256);
  EXPECT_OK(cudaMemcpy(ones.data(), d_data, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  bool ones_ok = true;
  for (int x : ones) ones_ok &= x == 1;
  EXPECT(ones_ok);
  int* d_seen = nullptr;
  const int coop_blocks = 4;
  EXPECT_OK(cudaMalloc(&d_seen, coop_blocks * sizeof(int)));
  EXPECT_OK(cudaMemset(d_data, 0, sizeof(int)));
  void* coop_args[] = {&d_data, &d_seen};
  const cudaError_t coop = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_sum), coop_blocks, 64, coop_args, 0, 0);
  if (coop == cudaSuccess) {
    EXPECT_OK(cudaDeviceSynchronize());
    std::vector<int> seen(coop_blocks);
    EXPECT_OK(cudaMemcpy(seen.data(), d_seen, sizeof(int) * coop_blocks, cudaMemcpyDeviceToHost));
    bool coop_ok = true;
    for (int x : seen) coop_ok &= x == coop_blocks;
    EXPECT(coop_ok);
    std::printf("cooperative launch checked\n");
  } else {
    // scgpu may not run grid-wide barriers; it must say so rather than fail silently.
    std::printf("cooperative launch: %s\n", cudaGetErrorName(coop));
    EXPECT(on_scgpu && coop == cudaErrorNotSupported);
    cudaGetLastError();
  }
  EXPECT_OK(cudaFree(d_seen));
  EXPECT_OK(cudaFree(d_data));
  EXPECT_OK(cudaFree(d_sum));

  // ---- On scgpu: an unimplemented call names itself and fails with cudaErrorNotSupported
  if (on_scgpu) {
    cudaGraph_t graph;
    EXPECT_ERROR(cudaGraphCreate(&graph, 0), cudaErrorNotSupported);
    EXPECT_ERROR(cudaGetLastError(), cudaErrorNotSupported);
  }

  EXPECT_OK(cudaDeviceSynchronize());
  if (g_failures) {
    std::printf("FAILED runtime_api: %d checks failed\n", g_failures);
    return 1;
  }
  std::printf("PASSED runtime_api: every check held\n");
  return 0;
}
