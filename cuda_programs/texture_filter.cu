// texture_filter: a rotated, scaled bilinear resample of a 96 x 80 RGBA8 image into a 128 x 112
// float4 image through a texture object over a CUDA array (normalized coordinates, wrap, linear,
// normalized-float reads) and a surface object over another array. Plain CUDA runtime port of
// kernels/host/texture_filter.cpp (the suite at scale 1, same data and reference; the kernel is
// the suite's own), using cudaMallocArray, cudaMemcpy2DToArray/FromArray, cudaArrayGetInfo,
// cudaCreateTextureObject, cudaGetTextureObjectTextureDesc, cudaCreateSurfaceObject.
// Usage: texture_filter [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/texture_filter.cu"

#include <cstring>

#define CUDA_PROGRAM_NAME "texture_filter"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

inline float mulRn(float a, float b) { return float(double(a) * double(b)); }
inline float addRn(float a, float b) { return a + b; }

// tex2D<float4>: normalized coordinates, wrap, linear (weights in 1.8 fixed point), v / 255.
inline void bilinear(const std::vector<unsigned char>& img, int W, int H, float u, float v, float out[4]) {
  long idx[2][2], wgt[2][2];
  const float c[2] = {u, v};
  const long size[2] = {W, H};
  for (int k = 0; k < 2; ++k) {
    const double xb = double(c[k]) * double(size[k]) - 0.5;
    const long q = long(std::floor(xb * 256.0 + 0.5));
    const long i = q >> 8, a = q & 255;
    idx[k][0] = ((i % size[k]) + size[k]) % size[k];
    idx[k][1] = ((i + 1) % size[k] + size[k]) % size[k];
    wgt[k][0] = 256 - a;
    wgt[k][1] = a;
  }
  // The four texels' weights in 1/256: alpha * beta rounded (ties up), the others keeping the exact
  // row and column totals. 8-bit texels are summed in fixed point; the 8.8 sum becomes a 16-bit
  // unorm by repeating its byte (x 257/256, rounded) and is normalized by 65535.
  const long a = wgt[0][1], b = wgt[1][1];
  const long w11 = (a * b + 128) >> 8;
  const long w[2][2] = {{256 - a - b + w11, a - w11}, {b - w11, w11}};  // [dy][dx]
  for (int ch = 0; ch < 4; ++ch) {
    long sum = 0;
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) sum += w[dy][dx] * long(img[std::size_t((idx[1][dy] * W + idx[0][dx]) * 4 + ch)]);
    out[ch] = float(double((sum * 257 + 128) >> 8) / 65535.0);
  }
}

int main(int argc, char** argv) {
  const int sw = 96, sh = 80, w = 128, h = 112;
  Rng rng(seedFrom(argc, argv));
  std::vector<unsigned char> src(std::size_t(sw) * sh * 4);
  for (int y = 0; y < sh; ++y)
    for (int x = 0; x < sw; ++x)
      for (int c = 0; c < 4; ++c)
        src[std::size_t((y * sw + x) * 4 + c)] = (unsigned char)((x * (3 + c) + y * (5 - c) + int(rng.u32() % 32)) & 255);
  const float angle = 0.3f, zoom = 0.8f;
  const float cos_a = std::cos(angle), sin_a = std::sin(angle);
  const float inv_w = 1.0f / (zoom * float(w)), inv_h = 1.0f / (zoom * float(h));

  const cudaChannelFormatDesc in_desc = cudaCreateChannelDesc<uchar4>();
  cudaArray_t in_array, out_array;
  CHECK(cudaMallocArray(&in_array, &in_desc, sw, sh));
  CHECK(cudaMemcpy2DToArray(in_array, 0, 0, src.data(), sw * 4, sw * 4, sh, cudaMemcpyHostToDevice));
  const cudaChannelFormatDesc out_desc = cudaCreateChannelDesc<float4>();
  CHECK(cudaMallocArray(&out_array, &out_desc, w, h, cudaArraySurfaceLoadStore));
  cudaChannelFormatDesc got_desc;
  cudaExtent extent;
  unsigned flags;
  CHECK(cudaArrayGetInfo(&got_desc, &extent, &flags, in_array));
  if (got_desc.x != 8 || got_desc.w != 8 || got_desc.f != cudaChannelFormatKindUnsigned || extent.width != sw ||
      extent.height != sh || extent.depth != 0 || flags != 0)
    return failed("cudaArrayGetInfo does not describe the array created");

  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = in_array;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeNormalizedFloat;
  td.normalizedCoords = 1;
  cudaTextureObject_t tex = 0;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  cudaTextureDesc back = {};
  CHECK(cudaGetTextureObjectTextureDesc(&back, tex));
  if (back.filterMode != cudaFilterModeLinear || back.addressMode[1] != cudaAddressModeWrap || !back.normalizedCoords)
    return failed("cudaGetTextureObjectTextureDesc does not return the description given");
  cudaResourceDesc out_res = {};
  out_res.resType = cudaResourceTypeArray;
  out_res.res.array.array = out_array;
  cudaSurfaceObject_t surf = 0;
  CHECK(cudaCreateSurfaceObject(&surf, &out_res));

  const dim3 block(16, 16), grid(blocksFor(w, 16), blocksFor(h, 16));
  texture_filter<<<grid, block>>>(tex, surf, w, h, cos_a, sin_a, inv_w, inv_h);
  CHECK_LAUNCH("texture_filter");
  std::vector<float> got(std::size_t(w) * h * 4);
  CHECK(cudaMemcpy2DFromArray(got.data(), w * 16, out_array, 0, 0, w * 16, h, cudaMemcpyDeviceToHost));
  CHECK(cudaDestroyTextureObject(tex));
  CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(in_array));
  CHECK(cudaFreeArray(out_array));

  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float cx = addRn(float(x), mulRn(0.5f, float(1 - w))), cy = addRn(float(y), mulRn(0.5f, float(1 - h)));
      const float rx = addRn(mulRn(cx, cos_a), -mulRn(cy, sin_a)), ry = addRn(mulRn(cx, sin_a), mulRn(cy, cos_a));
      const float u = addRn(mulRn(rx, inv_w), 0.5f), v = addRn(mulRn(ry, inv_h), 0.5f);
      float want[4];
      bilinear(src, sw, sh, u, v, want);
      for (int c = 0; c < 4; ++c) {
        const float g = got[std::size_t((y * w + x) * 4 + c)];
        if (std::memcmp(&g, &want[c], 4) != 0)
          return failed(mismatchMessage("pixel " + std::to_string(x) + "," + std::to_string(y) + " channel",
                                        long(c), g, want[c]));
      }
    }
  return passed(std::to_string(w) + " x " + std::to_string(h) + " pixels resampled bilinearly from a 96 x 80 RGBA8 "
                "texture: bit-exact");
}
