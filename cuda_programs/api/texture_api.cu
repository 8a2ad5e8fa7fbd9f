// texture_api: the array, texture and surface calls beyond texture_filter, each result checked
// against a CPU reference written here: a 3D array filled with cudaMemcpy3D and read trilinearly
// at texel centres (exact: the texels themselves), a layered 2D array written through a surface
// (surf2DLayeredwrite) and read back with cudaMemcpy3D, tex1Dfetch on linear memory (out of range
// reads 0), tex2D on pitch-2D memory with border addressing and point sampling,
// cudaMemcpyToArray/FromArray, and the errors: an unsupported channel format, a surface over an
// array made without cudaArraySurfaceLoadStore, linear filtering of integers read as integers.
// Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include <cuda_runtime.h>

// cudaMemcpyToArray/FromArray are deprecated in CUDA 13 but still exported: they are tested here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(call)                                                                                 \
  do {                                                                                           \
    const cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

static int fail(const std::string& what) {
  std::printf("FAILED texture_api: %s\n", what.c_str());
  return 1;
}

__global__ void read3d(cudaTextureObject_t t, float* out, int w, int h, int d) {
  const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < w && y < h && z < d) out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}
__global__ void writeLayers(cudaSurfaceObject_t s, int w, int h) {
  const int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
  if (x < w && y < h) surf2DLayeredwrite(short2{short(x + 100 * layer), short(-y)}, s, x * 4, y, layer);
}
__global__ void fetchLinear(cudaTextureObject_t t, int4* out, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int4>(t, i - 2);
}
__global__ void readPitch(cudaTextureObject_t t, float2* out, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = tex2D<float2>(t, float(i % 8) - 1.5f, float(i / 8) - 0.5f);
}

int main() {
  // 3D array through cudaMemcpy3D, read back through a texture at texel centres.
  const int W = 5, H = 4, D = 3;
  std::vector<float> vol(W * H * D);
  for (int i = 0; i < W * H * D; ++i) vol[i] = float(i * 7 % 23) - 3.0f;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a3;
  CK(cudaMalloc3DArray(&a3, &fd, make_cudaExtent(W, H, D)));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(vol.data(), W * sizeof(float), W, H);
  p.dstArray = a3;
  p.extent = make_cudaExtent(W, H, D);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a3;
  cudaTextureDesc td = {};
  td.filterMode = cudaFilterModeLinear;
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  cudaTextureObject_t t3;
  CK(cudaCreateTextureObject(&t3, &rd, &td, nullptr));
  float* dout;
  CK(cudaMalloc(&dout, sizeof(float) * W * H * D));
  read3d<<<D, dim3(W, H)>>>(t3, dout, W, H, D);
  CK(cudaGetLastError());
  std::vector<float> got(W * H * D);
  CK(cudaMemcpy(got.data(), dout, sizeof(float) * W * H * D, cudaMemcpyDeviceToHost));
  for (int i = 0; i < W * H * D; ++i)
    if (got[i] != vol[i]) return fail("tex3D at texel centre " + std::to_string(i));
  CK(cudaDestroyTextureObject(t3));

  // Layered surface: write every layer, copy the array out with cudaMemcpy3D.
  const int LW = 6, LH = 3, L = 4;
  cudaChannelFormatDesc sd = cudaCreateChannelDesc<short2>();
  cudaArray_t al;
  CK(cudaMalloc3DArray(&al, &sd, make_cudaExtent(LW, LH, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaResourceDesc lr = {};
  lr.resType = cudaResourceTypeArray;
  lr.res.array.array = al;
  cudaSurfaceObject_t surf;
  CK(cudaCreateSurfaceObject(&surf, &lr));
  writeLayers<<<L, dim3(LW, LH)>>>(surf, LW, LH);
  CK(cudaGetLastError());
  std::vector<short> lay(LW * LH * L * 2);
  cudaMemcpy3DParms q = {};
  q.srcArray = al;
  q.dstPtr = make_cudaPitchedPtr(lay.data(), LW * 4, LW, LH);
  q.extent = make_cudaExtent(LW, LH, L);
  q.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&q));
  for (int l = 0; l < L; ++l)
    for (int y = 0; y < LH; ++y)
      for (int x = 0; x < LW; ++x) {
        const int at = ((l * LH + y) * LW + x) * 2;
        if (lay[at] != x + 100 * l || lay[at + 1] != -y) return fail("layered surface texel " + std::to_string(at / 2));
      }
  CK(cudaDestroySurfaceObject(surf));

  // tex1Dfetch on linear memory: 10 int4 texels, fetched at -2 .. 11.
  std::vector<int> lin(40);
  for (int i = 0; i < 40; ++i) lin[i] = i * 3 - 50;
  int* dlin;
  CK(cudaMalloc(&dlin, sizeof(int) * 40));
  CK(cudaMemcpy(dlin, lin.data(), sizeof(int) * 40, cudaMemcpyHostToDevice));
  cudaResourceDesc ld = {};
  ld.resType = cudaResourceTypeLinear;
  ld.res.linear.devPtr = dlin;
  ld.res.linear.desc = cudaCreateChannelDesc<int4>();
  ld.res.linear.sizeInBytes = sizeof(int) * 40;
  cudaTextureDesc ltd = {};
  cudaTextureObject_t tl;
  CK(cudaCreateTextureObject(&tl, &ld, &ltd, nullptr));
  int4* dfetch;
  CK(cudaMalloc(&dfetch, sizeof(int4) * 14));
  fetchLinear<<<1, 14>>>(tl, dfetch, 14);
  CK(cudaGetLastError());
  std::vector<int> fetched(56);
  CK(cudaMemcpy(fetched.data(), dfetch, sizeof(int4) * 14, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 14; ++i)
    for (int c = 0; c < 4; ++c) {
      const int texel = i - 2;
      const int want = texel >= 0 && texel < 10 ? lin[texel * 4 + c] : 0;
      if (fetched[i * 4 + c] != want) return fail("tex1Dfetch " + std::to_string(texel));
    }
  CK(cudaDestroyTextureObject(tl));

  // Pitch-2D memory (cudaMallocPitch), float2 texels, point sampling, border addressing.
  const int PW = 6, PH = 3;
  float2* dp;
  size_t pitch;
  CK(cudaMallocPitch(&dp, &pitch, PW * sizeof(float2), PH));
  std::vector<float2> pv(PW * PH);
  for (int i = 0; i < PW * PH; ++i) pv[i] = make_float2(float(i), float(-i) * 0.5f);
  CK(cudaMemcpy2D(dp, pitch, pv.data(), PW * sizeof(float2), PW * sizeof(float2), PH, cudaMemcpyHostToDevice));
  cudaResourceDesc pr = {};
  pr.resType = cudaResourceTypePitch2D;
  pr.res.pitch2D.devPtr = dp;
  pr.res.pitch2D.desc = cudaCreateChannelDesc<float2>();
  pr.res.pitch2D.width = PW;
  pr.res.pitch2D.height = PH;
  pr.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc ptd = {};
  ptd.addressMode[0] = ptd.addressMode[1] = cudaAddressModeBorder;
  cudaTextureObject_t tp;
  CK(cudaCreateTextureObject(&tp, &pr, &ptd, nullptr));
  float2* dpo;
  CK(cudaMalloc(&dpo, sizeof(float2) * 40));
  readPitch<<<1, 40>>>(tp, dpo, 40);
  CK(cudaGetLastError());
  std::vector<float2> po(40);
  CK(cudaMemcpy(po.data(), dpo, sizeof(float2) * 40, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 40; ++i) {
    const int x = int(std::floor(float(i % 8) - 1.5f)), y = int(std::floor(float(i / 8) - 0.5f));
    const bool in = x >= 0 && x < PW && y >= 0 && y < PH;
    const float2 want = in ? pv[y * PW + x] : make_float2(0, 0);
    if (po[i].x != want.x || po[i].y != want.y) return fail("pitch-2D border sample " + std::to_string(i));
  }
  CK(cudaDestroyTextureObject(tp));

  // cudaMemcpyToArray / FromArray: 20 bytes from byte 8 of row 1, wrapping to row 2.
  cudaChannelFormatDesc bd = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t ab;
  CK(cudaMallocArray(&ab, &bd, 16, 4));
  std::vector<unsigned char> zeros(64, 0), src(20), back(64);
  for (int i = 0; i < 20; ++i) src[i] = (unsigned char)(200 + i);
  CK(cudaMemcpy2DToArray(ab, 0, 0, zeros.data(), 16, 16, 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpyToArray(ab, 8, 1, src.data(), 20, cudaMemcpyHostToDevice));
  CK(cudaMemcpyFromArray(back.data(), ab, 0, 0, 64, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) {
    const int want = i >= 24 && i < 44 ? 200 + i - 24 : 0;
    if (back[i] != want) return fail("cudaMemcpyToArray/FromArray byte " + std::to_string(i));
  }

  // Errors.
  cudaArray_t bad;
  cudaChannelFormatDesc odd = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
  if (cudaMallocArray(&bad, &odd, 4) != cudaErrorInvalidChannelDescriptor)
    return fail("a channel format of 8 and 16 bits was accepted");
  cudaGetLastError();
  cudaResourceDesc br = {};
  br.resType = cudaResourceTypeArray;
  br.res.array.array = ab;  // made without cudaArraySurfaceLoadStore
  cudaSurfaceObject_t bs;
  if (cudaCreateSurfaceObject(&bs, &br) == cudaSuccess) return fail("a surface over an array without the flag");
  cudaGetLastError();
  cudaTextureDesc bt = {};
  bt.filterMode = cudaFilterModeLinear;  // of unsigned char read as integers
  cudaTextureObject_t btx;
  if (cudaCreateTextureObject(&btx, &br, &bt, nullptr) == cudaSuccess) return fail("linear filtering of integers");
  cudaGetLastError();
  CK(cudaFreeArray(ab));
  CK(cudaFreeArray(a3));
  CK(cudaFreeArray(al));
  std::printf("PASSED texture_api: 3D array and cudaMemcpy3D, layered surface, tex1Dfetch on linear memory, "
              "pitch-2D border sampling, cudaMemcpyToArray/FromArray, and the refused descriptions\n");
  return 0;
}
