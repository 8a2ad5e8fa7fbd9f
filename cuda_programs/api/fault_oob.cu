// fault_oob: a kernel that stores through a wild pointer. On a GPU the launch itself succeeds and
// the fault surfaces at the next synchronising call as cudaErrorIllegalAddress, which then sticks:
// every later call returns it. Prints what each call returned and PASSED when that is what
// happened; exit 0 passed, 1 failed.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

__global__ void store_wild(int* base, std::uint64_t offset_words) {
  if (blockIdx.x == 1 && threadIdx.x == 5) base[offset_words] = 1;  // far outside any allocation
}

int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 1;
  store_wild<<<2, 32>>>(d, std::uint64_t(1) << 40);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  int host = 0;
  const cudaError_t after = cudaMemcpy(&host, d, sizeof host, cudaMemcpyDeviceToHost);
  std::printf("launch: %s, synchronize: %s, later memcpy: %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
              cudaGetErrorName(after));
  const bool ok = launch == cudaSuccess && sync == cudaErrorIllegalAddress && after == cudaErrorIllegalAddress;
  std::printf("%s fault_oob: %s\n", ok ? "PASSED" : "FAILED",
              ok ? "the fault surfaced at the synchronisation and stuck" : "not the errors a GPU gives");
  return ok ? 0 : 1;
}
