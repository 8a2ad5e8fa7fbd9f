// Texture objects: a rotated and scaled bilinear resample of an RGBA8 image. The source is a
// texture (normalized coordinates, wrap addressing, linear filtering, 8-bit channels read as
// normalized floats); each output pixel's filtered float4 is written through a surface object
// (surf2Dwrite, x in bytes). The coordinates are computed with __fmul_rn/__fadd_rn so that no
// multiply-add is fused and a CPU reference can repeat them exactly. One pixel per thread.
#include <cuda_runtime.h>

extern "C" __global__ void texture_filter(cudaTextureObject_t src, cudaSurfaceObject_t dst, int w, int h,
                                          float cos_a, float sin_a, float inv_scale_w, float inv_scale_h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  // Pixel centre relative to the image centre, rotated, scaled to normalized coordinates.
  const float cx = __fadd_rn(float(x), __fmul_rn(0.5f, float(1 - w)));
  const float cy = __fadd_rn(float(y), __fmul_rn(0.5f, float(1 - h)));
  const float rx = __fadd_rn(__fmul_rn(cx, cos_a), -__fmul_rn(cy, sin_a));
  const float ry = __fadd_rn(__fmul_rn(cx, sin_a), __fmul_rn(cy, cos_a));
  const float u = __fadd_rn(__fmul_rn(rx, inv_scale_w), 0.5f);
  const float v = __fadd_rn(__fmul_rn(ry, inv_scale_h), 0.5f);
  const float4 c = tex2D<float4>(src, u, v);
  surf2Dwrite(c, dst, x * int(sizeof(float4)), y);
}
