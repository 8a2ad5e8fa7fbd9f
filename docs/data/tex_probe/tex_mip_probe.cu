// Cube maps and mipmapped textures on the real GPU, for scgpu's sampler (sm/exec/texture_sample.cpp):
// cube-map face selection (axes, edges and corners where two or three axes tie, points just off an
// edge, random directions), faces at their edges with linear filtering, layered cube maps,
// mipmapped 2D textures through tex2DLod at fine level-of-detail steps (the fixed point of lambda,
// the point filter's tie), tex2DGrad over a spread of gradients (isotropic, anisotropic at several
// ratios and angles, zero), point and linear mipmap filters, the level bias and the min/max clamps,
// texCubemapLod/Grad on a mipmapped cube map, and txq's level queries.
//
// Output (stdout), one line a sample, every number the hex bits of a 32-bit word:
//   <case> <index> <in0> ... <in11> <out0> <out1> <out2> <out3>
// (txq_* lines: in3 the level as a float; out: that level's width, height, depth, then the
// texture's level count, 0xffffffff where txq.num_mipmap_levels could not run)
// in0..in3: x, y, z and the lod (tex*Lod) or the layer (texCubemapLayered, as a float);
// in4..in7: dPdx (x, y, z, -); in8..in11: dPdy (x, y, z, -); out: the float4 returned.
// Lines starting with '#' describe the textures (the replay test, testbench/texture_mip_probe_test.cpp,
// builds the same ones from these rules):
//   const2d: 64 x 32 f32, 7 levels, every texel of level l = 256 l (so a linear mipmap blend
//            returns 256 lambda: the level of detail itself);
//   var2d:   32 x 16 f32, 6 levels, texel (x, y) of level l = ((7x + 13y + 29l) mod 32) / 8 + l;
//   cube:    8 x 8 f32 faces, texel (x, y) of face f of cube c = 1024 c + 64 f + 8 y + x (1 or 2 cubes);
//   mipcube: 16 x 16 f32 faces, 5 levels, every texel of face f, level l = 256 l + f.
// Every texture: normalized coordinates, clamp addressing, element reads.
//
// Build and run (no arguments): nvcc -O2 -arch=sm_90 -std=c++17 tex_mip_probe.cu -o tex_mip_probe &&
// ./tex_mip_probe > h200_tex_mip_probe.txt   (scripts/h100/tex_mip_probe.sh does this on the H200)
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x)                                                                \
  do {                                                                       \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

struct Sample {
  float c[4];   // x, y, z, lod or layer
  float dx[4];  // dPdx
  float dy[4];  // dPdy
};

enum Kind { kLod2D, kGrad2D, kPlain2D, kCube, kCubeLayered, kCubeLod, kCubeGrad };

__global__ void sampleKernel(cudaTextureObject_t t, const Sample* in, float4* out, int n, int kind) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Sample s = in[i];
  float4 r = make_float4(0, 0, 0, 0);
  switch (kind) {
    case kLod2D: r = tex2DLod<float4>(t, s.c[0], s.c[1], s.c[3]); break;
    case kGrad2D:
      r = tex2DGrad<float4>(t, s.c[0], s.c[1], make_float2(s.dx[0], s.dx[1]), make_float2(s.dy[0], s.dy[1]));
      break;
    case kPlain2D: r = tex2D<float4>(t, s.c[0], s.c[1]); break;
    case kCube: r = texCubemap<float4>(t, s.c[0], s.c[1], s.c[2]); break;
    case kCubeLayered: r = texCubemapLayered<float4>(t, s.c[0], s.c[1], s.c[2], int(s.c[3])); break;
    case kCubeLod: r = texCubemapLod<float4>(t, s.c[0], s.c[1], s.c[2], s.c[3]); break;
    case kCubeGrad:
      r = texCubemapGrad<float4>(t, s.c[0], s.c[1], s.c[2], make_float4(s.dx[0], s.dx[1], s.dx[2], 0),
                                 make_float4(s.dy[0], s.dy[1], s.dy[2], 0));
      break;
  }
  out[i] = r;
}

// txq.level on a texture object: level l's width, height and depth (PTX txq.level; SASS TXQ
// TEX_HEADER_DIMENSION with the level as operand).
__global__ void queryKernel(cudaTextureObject_t t, uint4* out, int levels) {
  const int l = threadIdx.x;
  if (l >= levels) return;
  unsigned w, h, d;
  asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(w) : "l"(t), "r"(l));
  asm volatile("txq.level.height.b32 %0, [%1], %2;" : "=r"(h) : "l"(t), "r"(l));
  asm volatile("txq.level.depth.b32 %0, [%1], %2;" : "=r"(d) : "l"(t), "r"(l));
  out[l] = make_uint4(w, h, d, 0);
}

// txq.num_mipmap_levels, in a kernel of its own: ptxas (CUDA 13, sm_90) compiles it to a load
// from the texture header through the relocation .nv.unified.texrefDescSize, which driver 580
// does not resolve, so loading this kernel fails with "named symbol not found" (the first H200
// run lost every txq line to it when it shared queryKernel). With lazy module loading (the
// default; tex_mip_probe.sh sets it) only this kernel is refused; eager loading refuses the
// whole module.
__global__ void levelsKernel(cudaTextureObject_t t, unsigned* out) {
  unsigned n;
  asm volatile("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(n) : "l"(t));
  *out = n;
}

static std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static void run(const char* name, cudaTextureObject_t t, const std::vector<Sample>& in, int kind) {
  Sample* din;
  float4* dout;
  const int n = int(in.size());
  CK(cudaMalloc(&din, sizeof(Sample) * n));
  CK(cudaMalloc(&dout, sizeof(float4) * n));
  CK(cudaMemcpy(din, in.data(), sizeof(Sample) * n, cudaMemcpyHostToDevice));
  sampleKernel<<<(n + 127) / 128, 128>>>(t, din, dout, n, kind);
  CK(cudaGetLastError());
  std::vector<float4> out(n);
  CK(cudaMemcpy(out.data(), dout, sizeof(float4) * n, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    std::printf("%s %d", name, i);
    const float* words = &in[i].c[0];
    for (int k = 0; k < 12; ++k) std::printf(" %08x", bits(words[k]));
    std::printf(" %08x %08x %08x %08x\n", bits(out[i].x), bits(out[i].y), bits(out[i].z), bits(out[i].w));
  }
  CK(cudaFree(din));
  CK(cudaFree(dout));
}

// A 32-bit LCG (Numerical Recipes' constants): the same sequence on every host.
static std::uint32_t rngState = 12345;
static float uniform(float lo, float hi) {
  rngState = rngState * 1664525u + 1013904223u;
  return lo + (hi - lo) * float(rngState >> 8) / 16777216.0f;
}

static Sample sample(float x, float y, float z, float w = 0) {
  Sample s = {};
  s.c[0] = x;
  s.c[1] = y;
  s.c[2] = z;
  s.c[3] = w;
  return s;
}

static cudaTextureObject_t makeTexture(bool mipmapped, void* res, int filter, int mip_filter, float bias, float lo,
                                       float hi, unsigned aniso = 0) {
  cudaResourceDesc rd = {};
  if (mipmapped) {
    rd.resType = cudaResourceTypeMipmappedArray;
    rd.res.mipmap.mipmap = static_cast<cudaMipmappedArray_t>(res);
  } else {
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = static_cast<cudaArray_t>(res);
  }
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = cudaTextureFilterMode(filter);
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  td.mipmapFilterMode = cudaTextureFilterMode(mip_filter);
  td.mipmapLevelBias = bias;
  td.minMipmapLevelClamp = lo;
  td.maxMipmapLevelClamp = hi;
  td.maxAnisotropy = aniso;
  cudaTextureObject_t t;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

// A mipmapped 2D f32 array (or cube map: faces > 0) with texel (x, y) of face f, level l = value(l, f, x, y).
template <typename F>
static cudaMipmappedArray_t mipmapped(int w, int h, int levels, int faces, F value) {
  const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m;
  CK(cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(w, h, faces), levels, faces ? cudaArrayCubemap : 0));
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a;
    CK(cudaGetMipmappedArrayLevel(&a, m, l));
    const int lw = w >> l > 0 ? w >> l : 1, lh = h >> l > 0 ? h >> l : 1, nf = faces ? faces : 1;
    std::vector<float> v(size_t(lw) * lh * nf);
    for (int f = 0; f < nf; ++f)
      for (int y = 0; y < lh; ++y)
        for (int x = 0; x < lw; ++x) v[(size_t(f) * lh + y) * lw + x] = value(l, f, x, y);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(v.data(), lw * sizeof(float), lw, lh);
    p.dstArray = a;
    p.extent = make_cudaExtent(lw, lh, nf);
    if (!faces) p.extent.depth = 1;
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
  }
  return m;
}

// Gradients along x and y of a given length (in level-0 texels), ratio and angle, as normalized
// coordinates of a w x h texture: dPdx = len (cos a, sin a), dPdy = len / ratio (-sin a, cos a).
static Sample gradSample(float x, float y, float len, float ratio, float angle, int w, int h) {
  Sample s = sample(x, y, 0, 0);
  const float c = std::cos(angle), sn = std::sin(angle);
  s.dx[0] = len * c / w;
  s.dx[1] = len * sn / h;
  s.dy[0] = -len / ratio * sn / w;
  s.dy[1] = len / ratio * c / h;
  return s;
}

int main() {
  std::printf("# tex_mip_probe: cube maps and mipmapped textures (docs/data/tex_probe/tex_mip_probe.cu)\n");
  std::printf("# const2d 64x32 7 levels: texel = 256 l\n");
  std::printf("# var2d 32x16 6 levels: texel = ((7x + 13y + 29l) mod 32) / 8 + l\n");
  std::printf("# cube 8x8: texel = 1024 c + 64 f + 8 y + x\n");
  std::printf("# mipcube 16x16 5 levels: texel = 256 l + f\n");

  // ---- Level of detail in fine steps on const2d: 256 lambda' comes back (linear mipmap filter).
  cudaMipmappedArray_t c2 = mipmapped(64, 32, 7, 0, [](int l, int, int, int) { return 256.0f * l; });
  {
    std::vector<Sample> in;
    for (int k = 0; k < 4096; ++k) in.push_back(sample(0.37f, 0.61f, 0, -1.0f + k / 512.0f));
    run("lod_const_lin", makeTexture(true, c2, 1, 1, 0, 0, 6), in, kLod2D);
    run("lod_const_pt", makeTexture(true, c2, 1, 0, 0, 0, 6), in, kLod2D);
    std::vector<Sample> fine;  // around lambda = 1.5 and 2 + 1/512: below the 1/256 step
    for (int k = 0; k < 512; ++k) fine.push_back(sample(0.37f, 0.61f, 0, 1.5f + (k - 256) / 65536.0f));
    run("lod_const_lin_fine", makeTexture(true, c2, 1, 1, 0, 0, 6), fine, kLod2D);
    run("lod_const_pt_fine", makeTexture(true, c2, 1, 0, 0, 0, 6), fine, kLod2D);
    // Bias and clamps.
    std::vector<Sample> bc;
    for (int k = 0; k < 512; ++k) bc.push_back(sample(0.37f, 0.61f, 0, -1.0f + k / 64.0f));
    run("lod_const_bias_clamp", makeTexture(true, c2, 1, 1, 0.5f, 1.25f, 3.5f), bc, kLod2D);
    run("lod_const_negbias", makeTexture(true, c2, 1, 1, -0.75f, 0.0f, 6.0f), bc, kLod2D);
    run("lod_const_maxclamp0", makeTexture(true, c2, 1, 1, 0.0f, 0.0f, 0.0f), bc, kLod2D);
  }
  // ---- Gradients on const2d.
  {
    std::vector<Sample> iso, all;
    for (int k = 0; k < 640; ++k) iso.push_back(gradSample(0.37f, 0.61f, std::exp2(-2.0f + k / 64.0f), 1, 0, 64, 32));
    const float ratios[] = {1, 1.5f, 2, 4, 8, 16};
    const float angles[] = {0, 0.5235988f, 0.7853982f, 1.5707964f};
    for (float r : ratios)
      for (float a : angles)
        for (int k = 0; k < 64; ++k) all.push_back(gradSample(0.37f, 0.61f, std::exp2(-1.0f + k / 8.0f), r, a, 64, 32));
    all.push_back(gradSample(0.37f, 0.61f, 0, 1, 0, 64, 32));  // zero gradients
    Sample one = gradSample(0.37f, 0.61f, 4, 1, 0, 64, 32);   // one zero gradient
    one.dy[0] = one.dy[1] = 0;
    all.push_back(one);
    run("grad_const_iso_lin", makeTexture(true, c2, 1, 1, 0, 0, 6), iso, kGrad2D);
    run("grad_const_iso_pt", makeTexture(true, c2, 1, 0, 0, 0, 6), iso, kGrad2D);
    run("grad_const_aniso_lin", makeTexture(true, c2, 1, 1, 0, 0, 6), all, kGrad2D);
    run("grad_const_aniso16_lin", makeTexture(true, c2, 1, 1, 0, 0, 6, 16), all, kGrad2D);  // maxAnisotropy 16
    run("grad_const_bias_clamp", makeTexture(true, c2, 1, 1, 0.5f, 1.25f, 3.5f), iso, kGrad2D);
  }
  // ---- Real data: var2d, random coordinates, levels and gradients.
  cudaMipmappedArray_t v2 = mipmapped(32, 16, 6, 0, [](int l, int, int x, int y) {
    return float((7 * x + 13 * y + 29 * l) % 32) / 8.0f + float(l);
  });
  {
    std::vector<Sample> lod, grad, plain;
    for (int k = 0; k < 1024; ++k) lod.push_back(sample(uniform(-0.2f, 1.2f), uniform(-0.2f, 1.2f), 0, uniform(-0.5f, 6.0f)));
    for (int k = 0; k < 1024; ++k) {
      Sample s = sample(uniform(0, 1), uniform(0, 1), 0, 0);
      for (int j = 0; j < 2; ++j) {
        s.dx[j] = uniform(-1, 1) * std::exp2(uniform(-8, 1));
        s.dy[j] = uniform(-1, 1) * std::exp2(uniform(-8, 1));
      }
      grad.push_back(s);
    }
    for (int k = 0; k < 256; ++k) plain.push_back(sample(uniform(-0.2f, 1.2f), uniform(-0.2f, 1.2f), 0, 0));
    run("lod_var_lin_lin", makeTexture(true, v2, 1, 1, 0, 0, 5), lod, kLod2D);
    run("lod_var_pt_pt", makeTexture(true, v2, 0, 0, 0, 0, 5), lod, kLod2D);
    run("lod_var_lin_pt", makeTexture(true, v2, 1, 0, 0, 0, 5), lod, kLod2D);
    run("grad_var_lin_lin", makeTexture(true, v2, 1, 1, 0, 0, 5), grad, kGrad2D);
    run("plain_var_lin_lin", makeTexture(true, v2, 1, 1, 0, 0, 5), plain, kPlain2D);
  }
  // ---- Cube maps: one cube and two (layered).
  {
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t cube1, cube2;
    CK(cudaMalloc3DArray(&cube1, &fd, make_cudaExtent(8, 8, 6), cudaArrayCubemap));
    CK(cudaMalloc3DArray(&cube2, &fd, make_cudaExtent(8, 8, 12), cudaArrayCubemap | cudaArrayLayered));
    for (int which = 0; which < 2; ++which) {
      const int slices = which ? 12 : 6;
      std::vector<float> v(size_t(slices) * 64);
      for (int s = 0; s < slices; ++s)
        for (int i = 0; i < 64; ++i) v[size_t(s) * 64 + i] = float(1024 * (s / 6) + 64 * (s % 6) + i);
      cudaMemcpy3DParms p = {};
      p.srcPtr = make_cudaPitchedPtr(v.data(), 8 * sizeof(float), 8, 8);
      p.dstArray = which ? cube2 : cube1;
      p.extent = make_cudaExtent(8, 8, slices);
      p.kind = cudaMemcpyHostToDevice;
      CK(cudaMemcpy3D(&p));
    }
    std::vector<Sample> dirs;
    const float vals[] = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f};
    for (float x : vals)  // axes, edges (two equal magnitudes), corners (three)
      for (float y : vals)
        for (float z : vals)
          if (x != 0 || y != 0 || z != 0) dirs.push_back(sample(x * 2.5f, y * 2.5f, z * 2.5f, 0));
    for (int k = 0; k < 128; ++k) {  // just off an edge: |x| one ulp above or below |z|, |y| above or below |x|
      const float a = uniform(0.5f, 3.0f) * (k & 1 ? -1.0f : 1.0f), b = uniform(-0.9f, 0.9f) * std::fabs(a);
      dirs.push_back(sample(a, b, std::nextafter(a, 0.0f)));
      dirs.push_back(sample(std::nextafter(a, 0.0f), b, a));
      dirs.push_back(sample(a, std::nextafter(-a, 0.0f), b));
      dirs.push_back(sample(b, a, std::nextafter(a, 4 * a)));
    }
    for (int k = 0; k < 1024; ++k) dirs.push_back(sample(uniform(-3, 3), uniform(-3, 3), uniform(-3, 3), 0));
    run("cube_pt", makeTexture(false, cube1, 0, 0, 0, 0, 0), dirs, kCube);
    run("cube_lin", makeTexture(false, cube1, 1, 0, 0, 0, 0), dirs, kCube);
    std::vector<Sample> layered = dirs;
    for (size_t i = 0; i < layered.size(); ++i) layered[i].c[3] = float(i % 3);  // cube 2: past the last
    run("acube_pt", makeTexture(false, cube2, 0, 0, 0, 0, 0), layered, kCubeLayered);
    run("acube_lin", makeTexture(false, cube2, 1, 0, 0, 0, 0), layered, kCubeLayered);
  }
  // ---- A mipmapped cube map: lod and gradients.
  cudaMipmappedArray_t mc = mipmapped(16, 16, 5, 6, [](int l, int f, int, int) { return 256.0f * l + f; });
  {
    std::vector<Sample> lod, grad;
    for (int k = 0; k < 768; ++k)
      lod.push_back(sample(uniform(-2, 2), uniform(-2, 2), uniform(-2, 2), uniform(-0.5f, 5.0f)));
    for (int k = 0; k < 768; ++k) {
      Sample s = sample(uniform(-2, 2), uniform(-2, 2), uniform(-2, 2), 0);
      for (int j = 0; j < 3; ++j) {
        s.dx[j] = uniform(-1, 1) * std::exp2(uniform(-8, 1));
        s.dy[j] = uniform(-1, 1) * std::exp2(uniform(-8, 1));
      }
      grad.push_back(s);
    }
    run("cubelod_lin_lin", makeTexture(true, mc, 1, 1, 0, 0, 4), lod, kCubeLod);
    run("cubelod_pt_pt", makeTexture(true, mc, 0, 0, 0, 0, 4), lod, kCubeLod);
    run("cubegrad_lin_lin", makeTexture(true, mc, 1, 1, 0, 0, 4), grad, kCubeGrad);
  }
  // ---- txq: each level's extent (levels past the last too), then the level count, which is
  // 0xffffffff in every line when levelsKernel cannot be loaded (a '#' line says why).
  {
    const cudaMipmappedArray_t ms[3] = {c2, v2, mc};
    const char* names[3] = {"txq_const2d", "txq_var2d", "txq_mipcube"};
    for (int m = 0; m < 3; ++m) {
      const cudaTextureObject_t t = makeTexture(true, ms[m], 1, 1, 0, 0, 4);
      uint4* d;
      unsigned* dn;
      CK(cudaMalloc(&d, sizeof(uint4) * 8));
      CK(cudaMalloc(&dn, sizeof(unsigned)));
      queryKernel<<<1, 8>>>(t, d, 8);
      CK(cudaGetLastError());
      uint4 h[8];
      CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
      unsigned n = 0xffffffffu;
      levelsKernel<<<1, 1>>>(t, dn);
      const cudaError_t e = cudaGetLastError();  // (clears a launch error: it is not sticky)
      if (e == cudaSuccess) CK(cudaMemcpy(&n, dn, sizeof n, cudaMemcpyDeviceToHost));
      else std::printf("# %s: txq.num_mipmap_levels not run: %s\n", names[m], cudaGetErrorString(e));
      for (int l = 0; l < 8; ++l) {
        std::printf("%s %d", names[m], l);
        for (int k = 0; k < 12; ++k) std::printf(" %08x", k == 3 ? bits(float(l)) : 0u);
        std::printf(" %08x %08x %08x %08x\n", h[l].x, h[l].y, h[l].z, n);
      }
      CK(cudaFree(d));
      CK(cudaFree(dn));
    }
  }
  CK(cudaDeviceSynchronize());
  std::printf("# done\n");
  return 0;
}
