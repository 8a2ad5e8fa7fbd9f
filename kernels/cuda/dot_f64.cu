// Double precision.
//   f64_math: out[k*n+i] for k: 0 fma(x, y, 1), 1 sqrt(|x|), 2 x / y, 3 exp(x), 4 log(|y| + 0.5),
//             5 sin(8x), 6 cos(x), 7 rsqrt(|x| + 1)   (libdevice implementations).
//   dot_f64:  *result += sum x[i]*y[i]: grid-stride partial sums, a shared-memory tree per block
//             and one double atomicAdd per block. blockDim.x a power of two <= 256.
#define MAX_BLOCK 256

extern "C" __global__ void f64_math(const double* __restrict__ x, const double* __restrict__ y,
                                    double* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  out[0 * n + i] = fma(a, b, 1.0);
  out[1 * n + i] = sqrt(fabs(a));
  out[2 * n + i] = a / b;
  out[3 * n + i] = exp(a);
  out[4 * n + i] = log(fabs(b) + 0.5);
  out[5 * n + i] = sin(8.0 * a);
  out[6 * n + i] = cos(a);
  out[7 * n + i] = rsqrt(fabs(a) + 1.0);
}

extern "C" __global__ void dot_f64(const double* __restrict__ x, const double* __restrict__ y,
                                   double* __restrict__ result, int n) {
  __shared__ double partial[MAX_BLOCK];
  double sum = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum = fma(x[i], y[i], sum);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}
