// Why the held-out nbody_naive runs at 9.8 cycles a SASS instruction on the H200 (one warp a
// scheduler): the same inner loop timed with clock64 by one warp per SM, in variants that take one
// piece away at a time. Prints "variant,cycles_per_iteration".
#include <cstdio>
#include <cuda_runtime.h>

template <int V>
__global__ void loop(const float4* pos, int n, float soft2, long long* out, float* sink) {
  float4 p = pos[threadIdx.x];
  float ax = 0.f, ay = 0.f, az = 0.f;
  long long t0 = clock64();
  for (int j = 0; j < n; ++j) {
    float4 q = V == 3 ? make_float4(p.x + j, p.y, p.z, 1.f) : pos[j];
    float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
    float r2 = dx * dx + dy * dy + dz * dz + soft2;
    float inv = V == 1 ? __frsqrt_rn(r2) : V == 2 ? r2 * 0.5f : rsqrtf(r2);
    float s = q.w * inv * inv * inv;
    ax += dx * s; ay += dy * s; az += dz * s;
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
  if (ax + ay + az == 1234.5f) sink[0] = ax;
}

int main() {
  const int n = 8192;
  float4* pos; long long* out; float* sink;
  cudaMalloc(&pos, n * sizeof(float4)); cudaMalloc(&out, 1024 * 8); cudaMalloc(&sink, 4);
  float4* h = new float4[n];
  for (int i = 0; i < n; ++i) h[i] = make_float4(i * 0.001f, i * 0.002f, i * 0.003f, 1.f);
  cudaMemcpy(pos, h, n * sizeof(float4), cudaMemcpyHostToDevice);
  long long c[64];
  auto run = [&](const char* name, void (*k)(const float4*, int, float, long long*, float*), int blocks, int threads) {
    k<<<blocks, threads>>>(pos, n, 0.01f, out, sink);  // warm
    k<<<blocks, threads>>>(pos, n, 0.01f, out, sink);
    cudaMemcpy(c, out, 8, cudaMemcpyDeviceToHost);
    printf("%s,%d,%d,%.2f\n", name, blocks, threads, double(c[0]) / n);
  };
  printf("variant,blocks,threads,cycles_per_iteration\n");
  run("rsqrtf", loop<0>, 1, 32);
  run("rsqrtf", loop<0>, 1, 128);
  run("rsqrtf", loop<0>, 64, 128);
  run("frsqrt_rn", loop<1>, 1, 32);
  run("no_rsqrt", loop<2>, 1, 32);
  run("no_load", loop<3>, 1, 32);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
