// What a warm launch moves to and from DRAM: the suite's transposes (scale 16), saxpy (scale 128)
// and vector_add (scale 32) in the order the warm validation runs them (scripts/validate_h100.sh
// with EVENT_REPEAT=10: the workload's own launch, then 10 more back to back), so that Nsight
// Compute with --cache-control none can count each launch's DRAM bytes and L2 hits on the caches
// the previous launches left. The kernels are the suite's own sources (kernels/cuda).
#include <cstdio>
#include <vector>

#include "cuda_check.h"
#include "../../kernels/cuda/transpose.cu"
#include "../../kernels/cuda/saxpy.cu"
#include "../../kernels/cuda/vector_add.cu"

static float eventMs(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

int main() {
  const int repeat = 10;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  {  // transpose, scale 16
    const int width = 232 * 16, height = 136 * 16;
    const size_t count = size_t(width) * height;
    std::vector<float> host(count);
    for (size_t i = 0; i < count; ++i) host[i] = float(i % 1000);
    float *in, *out;
    CHECK(cudaMalloc(&in, count * 4));
    CHECK(cudaMalloc(&out, count * 4));
    CHECK(cudaMemcpy(in, host.data(), count * 4, cudaMemcpyHostToDevice));
    dim3 block(32, 8), grid((width + 31) / 32, (height + 31) / 32);
    for (int k = 0; k < 3; ++k) {
      auto fn = k == 0 ? transpose_naive : k == 1 ? transpose_shared : transpose_shared_padded;
      CHECK(cudaMemset(out, 0xff, count * 4));
      fn<<<grid, block>>>(out, in, width, height);
      CHECK(cudaEventRecord(e0));
      for (int r = 0; r < repeat; ++r) fn<<<grid, block>>>(out, in, width, height);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      std::printf("transpose kernel %d warm_ns %.1f\n", k, eventMs(e0, e1) * 1e6 / repeat);
      CHECK(cudaMemcpy(host.data(), out, count * 4, cudaMemcpyDeviceToHost));
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
  {  // saxpy, scale 128
    const int n = 65536 * 128;
    std::vector<float> host(n, 1.5f);
    float *x, *y;
    CHECK(cudaMalloc(&x, size_t(n) * 4));
    CHECK(cudaMalloc(&y, size_t(n) * 4));
    CHECK(cudaMemcpy(x, host.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, host.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
    const int blocks = (n + 255) / 256;
    saxpy<<<blocks, 256>>>(n, 2.0f, x, y);
    CHECK(cudaEventRecord(e0));
    for (int r = 0; r < repeat; ++r) saxpy<<<blocks, 256>>>(n, 2.0f, x, y);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    std::printf("saxpy warm_ns %.1f\n", eventMs(e0, e1) * 1e6 / repeat);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
  {  // vector_add, scale 32
    const int n = 65536 * 32;
    std::vector<float> host(n, 0.5f);
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, size_t(n) * 4));
    CHECK(cudaMalloc(&b, size_t(n) * 4));
    CHECK(cudaMalloc(&c, size_t(n) * 4));
    CHECK(cudaMemcpy(a, host.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, host.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(c, 0, size_t(n) * 4));
    vector_add<<<64, 256>>>(a, b, c, n);
    CHECK(cudaEventRecord(e0));
    for (int r = 0; r < repeat; ++r) vector_add<<<64, 256>>>(a, b, c, n);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    std::printf("vector_add warm_ns %.1f\n", eventMs(e0, e1) * 1e6 / repeat);
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
