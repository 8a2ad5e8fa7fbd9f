// Kernels that fault on purpose, for the fault tests. Not part of the workload suite.
//   oob_store:         every thread stores far outside any allocation (p + 2^40 bytes).
//   misaligned_load:   loads an int through a pointer one byte past an aligned one.
//   trap_kernel:       thread 0 of block 0 executes trap.
//   assert_kernel:     assert(x < 0) on x = in[i]; fails where in[i] >= 0.
//   barrier_deadlock:  64-thread block: warp 0 waits on named barrier 1 for 64 threads, warp 1 on
//                      barrier 2 for 64 threads; neither count is ever reached.
#include <cassert>

extern "C" __global__ void oob_store(int* p, int value) {
  long long offset = (1ll << 40) / sizeof(int);
  p[offset + blockIdx.x * blockDim.x + threadIdx.x] = value;
}

extern "C" __global__ void misaligned_load(const int* p, int* out) {
  const int* q = reinterpret_cast<const int*>(reinterpret_cast<const char*>(p) + 1);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = q[i];
}

extern "C" __global__ void trap_kernel(int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) asm volatile("trap;");
  out[i] = i;
}

extern "C" __global__ void assert_kernel(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[i];
  assert(x < 0);
  out[i] = x;
}

extern "C" __global__ void barrier_deadlock(int* out) {
  if (threadIdx.x < 32)
    asm volatile("bar.sync 1, 64;" ::: "memory");
  else
    asm volatile("bar.sync 2, 64;" ::: "memory");
  out[threadIdx.x] = threadIdx.x;
}
