// Recursive device functions (real calls, with a call stack in local memory):
//   fibs[i]  = fib(i % 13) by the doubly recursive definition
//   facts[i] = factorial(i % 21) in 64 bits
__device__ __noinline__ unsigned fib(unsigned n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ unsigned long long factorial(unsigned n) {
  if (n <= 1) return 1ull;
  return n * factorial(n - 1);
}

extern "C" __global__ void recursion(unsigned* __restrict__ fibs, unsigned long long* __restrict__ facts,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fibs[i] = fib(i % 13);
  facts[i] = factorial(i % 21);
}
