// wgmma probe for the H100 or H200 (issue 10; both are the GH100 die): runs every variant of validation/tensor/wgmma_inputs.h (its
// PTX, JIT-compiled by the driver: the kernels the model runs) on the header's inputs and writes
// the D words bit for bit (committed as docs/data/h200_wgmma_bits.txt, from an H200: the model's reference in
// testbench/wgmma_test.cpp); times wgmma.mma_async m64n256k16 .f32.f16.f16 (throughput per SM with
// one and two warpgroups, and one wgmma's latency from issue to wait_group 0), and runs the suite's
// hgemm_wgmma kernel (kernels/cuda/hgemm_wgmma.cu) against a CPU reference, with its time at the
// suite's sizes (docs/data/h200_wgmma_timing.csv). Output files keep the h100_ prefix of the other probes.
//   nvcc -O2 -gencode arch=compute_90a,code=sm_90a -I. scripts/h100/wgmma_bits.cu -lcuda -o wgmma_bits
//   ./wgmma_bits OUTDIR
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/hgemm_wgmma.cu"
#include "scripts/h100/cuda_check.h"
#include "validation/tensor/wgmma_inputs.h"

#define CU(x)                                                                                 \
  do {                                                                                        \
    CUresult r = (x);                                                                         \
    if (r != CUDA_SUCCESS) {                                                                  \
      const char* m = nullptr;                                                                \
      cuGetErrorString(r, &m);                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, m ? m : "?");          \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

CUmodule loadPtx(const std::string& ptx) {
  char log[16384] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(std::uintptr_t(sizeof log))};
  CUmodule m;
  const CUresult r = cuModuleLoadDataEx(&m, ptx.c_str(), 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "PTX does not load:\n%s\n", log);
    std::exit(1);
  }
  return m;
}

std::uint16_t halfBits(float f) {
  const __half h = __float2half_rn(f);
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  CHECK(cudaFree(0));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // ---- bits ----
  CUmodule mod = loadPtx(wgmma_probe::modulePtx());
  FILE* bits = std::fopen((dir + "/h100_wgmma_bits.txt").c_str(), "w");
  if (!bits) { std::perror("h100_wgmma_bits.txt"); return 1; }
  std::fprintf(bits, "# variant tile thread d-words (hex): H100 output of validation/tensor/wgmma_inputs.h's inputs\n");
  for (int vi = 0; vi < wgmma_probe::kNumVariants; ++vi) {
    const wgmma_probe::Variant& v = wgmma_probe::kVariants[vi];
    const wgmma_probe::Shape sh = wgmma_probe::shapeOf(v);
    std::vector<std::uint8_t> img;
    std::vector<std::uint32_t> frag;
    wgmma_probe::makeInputs(vi, img, frag);
    void *dimg, *dfrag, *dout;
    const std::size_t out_words = std::size_t(wgmma_probe::kTiles) * 128 * sh.d_words;
    CHECK(cudaMalloc(&dimg, img.size()));
    CHECK(cudaMalloc(&dfrag, frag.size() * 4));
    CHECK(cudaMalloc(&dout, out_words * 4));
    CHECK(cudaMemcpy(dimg, img.data(), img.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfrag, frag.data(), frag.size() * 4, cudaMemcpyHostToDevice));
    CUfunction fn;
    CU(cuModuleGetFunction(&fn, mod, (std::string("wgmma_") + v.name).c_str()));
    std::uint64_t da = wgmma_probe::descriptor(sh.a), db = wgmma_probe::descriptor(sh.b);
    void* args[] = {&dimg, &dfrag, &dout, &da, &db};
    CU(cuLaunchKernel(fn, wgmma_probe::kTiles, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
    CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> out(out_words);
    CHECK(cudaMemcpy(out.data(), dout, out_words * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < wgmma_probe::kTiles; ++t)
      for (int th = 0; th < 128; ++th) {
        std::fprintf(bits, "%s %d %d", v.name, t, th);
        for (int i = 0; i < sh.d_words; ++i)
          std::fprintf(bits, " %08x", out[(std::size_t(t) * 128 + std::size_t(th)) * sh.d_words + std::size_t(i)]);
        std::fprintf(bits, "\n");
      }
    CHECK(cudaFree(dimg));
    CHECK(cudaFree(dfrag));
    CHECK(cudaFree(dout));
  }
  std::fclose(bits);
  std::printf("bits: %d variants\n", wgmma_probe::kNumVariants);

  // ---- timing ----
  FILE* tf = std::fopen((dir + "/h100_wgmma_timing.csv").c_str(), "w");
  std::fprintf(tf, "what,value\n");
  CUmodule tm = loadPtx(wgmma_probe::timingPtx());
  CUfunction tp, lat;
  CU(cuModuleGetFunction(&tp, tm, "wgmma_throughput"));
  CU(cuModuleGetFunction(&lat, tm, "wgmma_latency"));
  std::uint64_t* dcyc;
  CHECK(cudaMalloc(&dcyc, sizeof(std::uint64_t) * std::size_t(sms) * 4));
  unsigned iters = 4096;
  for (int groups : {1, 2}) {
    void* args[] = {&dcyc, &iters};
    for (int rep = 0; rep < 2; ++rep) CU(cuLaunchKernel(tp, unsigned(sms), 1, 1, 128u * unsigned(groups), 1, 1, 0, nullptr, args, nullptr));
    CHECK(cudaDeviceSynchronize());
    std::vector<std::uint64_t> c(std::size_t(sms) * std::size_t(groups));
    CHECK(cudaMemcpy(c.data(), dcyc, c.size() * 8, cudaMemcpyDeviceToHost));
    std::uint64_t worst = 0;
    for (auto x : c) worst = x > worst ? x : worst;
    const double per_sm_cycle = double(groups) * iters / double(worst);
    const double flop_per_cycle = per_sm_cycle * 2.0 * 64 * 256 * 16;
    std::fprintf(tf, "m64n256k16_f32_f16_wgmma_per_sm_cycle_%dwarpgroups,%.5f\n", groups, per_sm_cycle);
    std::fprintf(tf, "m64n256k16_f32_f16_dense_flop_per_sm_cycle_%dwarpgroups,%.1f\n", groups, flop_per_cycle);
    std::printf("%d warpgroups/SM: %.5f wgmma per SM-cycle (%.1f FLOP/cycle/SM)\n", groups, per_sm_cycle, flop_per_cycle);
  }
  {
    unsigned n = 512;
    void* args[] = {&dcyc, &n};
    for (int rep = 0; rep < 2; ++rep) CU(cuLaunchKernel(lat, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
    CHECK(cudaDeviceSynchronize());
    std::uint64_t c = 0;
    CHECK(cudaMemcpy(&c, dcyc, 8, cudaMemcpyDeviceToHost));
    std::fprintf(tf, "m64n256k16_f32_f16_issue_to_wait_cycles,%.2f\n", double(c) / n);
    std::printf("latency: %.2f cycles from issue to wait_group 0\n", double(c) / n);
  }
  // ---- the suite's hgemm_wgmma kernel ----
  for (int scale : {1, 2, 4, 16}) {
    const int M = 128 * scale, N = 256 * scale, K = 256 * scale;
    std::mt19937_64 rng(scale);
    std::vector<std::uint16_t> A(std::size_t(M) * K), B(std::size_t(K) * N);
    std::vector<float> a(A.size()), b(B.size());
    for (std::size_t i = 0; i < A.size(); ++i) { a[i] = float(int(rng() % 2049) - 1024) / 1024; A[i] = halfBits(a[i]); }
    for (std::size_t i = 0; i < B.size(); ++i) { b[i] = float(int(rng() % 2049) - 1024) / 1024; B[i] = halfBits(b[i]); }
    __half *dA, *dB;
    float* dC;
    CHECK(cudaMalloc(&dA, A.size() * 2));
    CHECK(cudaMalloc(&dB, B.size() * 2));
    CHECK(cudaMalloc(&dC, std::size_t(M) * N * 4));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
    const dim3 grid(N / 128, M / 64);
    hgemm_wgmma<<<grid, 128>>>(M, N, K, dA, dB, dC);
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const int reps = scale >= 16 ? 5 : 20;
    CHECK(cudaEventRecord(e0));
    for (int r = 0; r < reps; ++r) hgemm_wgmma<<<grid, 128>>>(M, N, K, dA, dB, dC);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    ms /= float(reps);
    std::vector<float> C(std::size_t(M) * N);
    CHECK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    const int rows = scale >= 16 ? 64 : M, cols = scale >= 16 ? 256 : N;  // the big one: a corner
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += double(a[std::size_t(r) * K + k]) * b[std::size_t(k) * N + c];
        worst = std::fmax(worst, std::fabs(s - C[std::size_t(r) * N + c]) / (std::fabs(s) + 1e-3 * K));
      }
    const double tflops = 2.0 * M * N * K / (ms * 1e-3) / 1e12;
    std::fprintf(tf, "hgemm_wgmma_scale%d_%dx%dx%d_us,%.3f\nhgemm_wgmma_scale%d_tflops,%.2f\nhgemm_wgmma_scale%d_max_rel_err,%.3g\n",
                 scale, M, N, K, ms * 1e3, scale, tflops, scale, worst);
    std::printf("hgemm_wgmma %dx%dx%d: %.3f us, %.2f TFLOP/s, max rel err %.3g\n", M, N, K, ms * 1e3, tflops, worst);
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
  }
  std::fclose(tf);
  return 0;
}
