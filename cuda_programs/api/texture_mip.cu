// texture_mip: cube maps and mipmapped textures through the runtime API, each result checked
// against a CPU reference written here from the CUDA programming guide:
// - a cube map (cudaMalloc3DArray with cudaArrayCubemap, faces filled with cudaMemcpy3D) read
//   with texCubemap at every texel centre of every face (directions built from the guide's
//   cube-map table backwards, so the face and texel are known), and a layered one (2 cubes) with
//   texCubemapLayered;
// - a mipmapped 2D array (cudaMallocMipmappedArray, levels from cudaGetMipmappedArrayLevel filled
//   with cudaMemcpy2DToArray): tex2DLod at every level's texel centres (the level layout),
//   point and linear mipmap filtering between levels of constant value, the level bias and the
//   min/max level clamps, tex2DGrad with isotropic and anisotropic gradients;
// - a mipmapped cube map read with texCubemapLod;
// - the errors: non-square cube faces, a level past the last.
// Blends between levels are compared within 2/256 of a level's step (the level of detail's
// fixed point). Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include <cuda_runtime.h>

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
  std::printf("FAILED texture_mip: %s\n", what.c_str());
  return 1;
}

// One sample a thread: in[4 i ...] = x, y, z, w (what each kernel makes of them).
__global__ void cube(cudaTextureObject_t t, const float4* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, in[i].x, in[i].y, in[i].z);
}
__global__ void cubeLayered(cudaTextureObject_t t, const float4* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemapLayered<float>(t, in[i].x, in[i].y, in[i].z, int(in[i].w));
}
__global__ void cubeLod(cudaTextureObject_t t, const float4* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemapLod<float>(t, in[i].x, in[i].y, in[i].z, in[i].w);
}
__global__ void lod2d(cudaTextureObject_t t, const float4* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<float>(t, in[i].x, in[i].y, in[i].z);
}
// in[2 i] = x, y, -, -; in[2 i + 1] = dPdx (x, y), dPdy (x, y).
__global__ void grad2d(cudaTextureObject_t t, const float4* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float4 p = in[2 * i], g = in[2 * i + 1];
    out[i] = tex2DGrad<float>(t, p.x, p.y, make_float2(g.x, g.y), make_float2(g.z, g.w));
  }
}

static std::vector<float> run(void (*k)(cudaTextureObject_t, const float4*, float*, int), cudaTextureObject_t t,
                              const std::vector<float4>& in, int n) {
  float4* din;
  float* dout;
  CK(cudaMalloc(&din, sizeof(float4) * in.size()));
  CK(cudaMalloc(&dout, sizeof(float) * n));
  CK(cudaMemcpy(din, in.data(), sizeof(float4) * in.size(), cudaMemcpyHostToDevice));
  k<<<(n + 127) / 128, 128>>>(t, din, dout, n);
  CK(cudaGetLastError());
  std::vector<float> out(n);
  CK(cudaMemcpy(out.data(), dout, sizeof(float) * n, cudaMemcpyDeviceToHost));
  CK(cudaFree(din));
  CK(cudaFree(dout));
  return out;
}

// The direction whose face-f coordinates are (s, t) in [-1, 1], at distance `m` along the major
// axis: the guide's table (face, major axis, sc, tc) read backwards.
static float4 direction(int f, float s, float t, float m, float w) {
  switch (f) {
    case 0: return make_float4(m, -t * m, -s * m, w);   // +x: sc = -z, tc = -y
    case 1: return make_float4(-m, -t * m, s * m, w);   // -x: sc = +z, tc = -y
    case 2: return make_float4(s * m, m, t * m, w);     // +y: sc = +x, tc = +z
    case 3: return make_float4(s * m, -m, -t * m, w);   // -y: sc = +x, tc = -z
    case 4: return make_float4(s * m, -t * m, m, w);    // +z: sc = +x, tc = -y
    default: return make_float4(-s * m, -t * m, -m, w); // -z: sc = -x, tc = -y
  }
}

static cudaTextureObject_t makeTexture(const cudaResourceDesc& rd, int filter, int mip_filter, float bias, float lo,
                                       float hi, int seamless = 0) {
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = cudaTextureFilterMode(filter);
  td.normalizedCoords = 1;
  td.mipmapFilterMode = cudaTextureFilterMode(mip_filter);
  td.mipmapLevelBias = bias;
  td.minMipmapLevelClamp = lo;
  td.maxMipmapLevelClamp = hi;
  td.seamlessCubemap = seamless;
  cudaTextureObject_t t;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

int main() {
  const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  // ---- Cube maps: N x N faces, texel (x, y) of face f of cube c = 1000 c + 100 f + N y + x.
  const int N = 4;
  for (int layered = 0; layered < 2; ++layered) {
    const int cubes = layered ? 2 : 1;
    std::vector<float> faces(6 * cubes * N * N);
    for (int i = 0; i < int(faces.size()); ++i) faces[i] = float(1000 * (i / (6 * N * N)) + 100 * (i / (N * N) % 6) + i % (N * N));
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(N, N, 6 * cubes), cudaArrayCubemap | (layered ? cudaArrayLayered : 0)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(faces.data(), N * sizeof(float), N, N);
    p.dstArray = a;
    p.extent = make_cudaExtent(N, N, 6 * cubes);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    const cudaTextureObject_t t = makeTexture(rd, cudaFilterModePoint, cudaFilterModePoint, 0, 0, 0);
    std::vector<float4> in;
    std::vector<float> want;
    for (int c = 0; c < cubes; ++c)
      for (int f = 0; f < 6; ++f)
        for (int y = 0; y < N; ++y)
          for (int x = 0; x < N; ++x) {
            const float s = 2.0f * (x + 0.5f) / N - 1, tt = 2.0f * (y + 0.5f) / N - 1;
            in.push_back(direction(f, s, tt, 0.5f + 0.75f * float((x + y + f) % 4), float(c)));
            want.push_back(float(1000 * c + 100 * f + N * y + x));
          }
    const auto got = run(layered ? cubeLayered : cube, t, in, int(in.size()));
    for (size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i])
        return fail(std::string(layered ? "texCubemapLayered" : "texCubemap") + " sample " + std::to_string(i) + ": got " +
                    std::to_string(got[i]) + ", want " + std::to_string(want[i]));
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(a));
  }

  // ---- A mipmapped 2D array, 16 x 8, 5 levels (16x8 8x4 4x2 2x1 1x1).
  const int W = 16, H = 8, L = 5;
  cudaMipmappedArray_t mip;
  CK(cudaMallocMipmappedArray(&mip, &fd, make_cudaExtent(W, H, 0), L));
  // Two fillings: texels naming level and position (the layout), then each level constant 10 l
  // (the level selection and the blends).
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = mip;
  for (int fill = 0; fill < 2; ++fill) {
    for (int l = 0; l < L; ++l) {
      cudaArray_t level;
      CK(cudaGetMipmappedArrayLevel(&level, mip, l));
      cudaExtent e;
      cudaChannelFormatDesc d;
      unsigned flags;
      CK(cudaArrayGetInfo(&d, &e, &flags, level));
      const int lw = W >> l > 0 ? W >> l : 1, lh = H >> l > 0 ? H >> l : 1;
      if (int(e.width) != lw || int(e.height) != lh || e.depth != 0)
        return fail("level " + std::to_string(l) + " is " + std::to_string(e.width) + " x " + std::to_string(e.height));
      std::vector<float> v(lw * lh);
      for (int i = 0; i < lw * lh; ++i) v[i] = fill == 0 ? float(1000 * l + i) : float(10 * l);
      CK(cudaMemcpy2DToArray(level, 0, 0, v.data(), lw * sizeof(float), lw * sizeof(float), lh, cudaMemcpyHostToDevice));
    }
    if (fill == 0) {
      // tex2DLod at integer levels, texel centres: exactly the level's texels.
      const cudaTextureObject_t t = makeTexture(rd, cudaFilterModeLinear, cudaFilterModePoint, 0, 0, float(L - 1));
      std::vector<float4> in;
      std::vector<float> want;
      for (int l = 0; l < L; ++l) {
        const int lw = W >> l > 0 ? W >> l : 1, lh = H >> l > 0 ? H >> l : 1;
        for (int y = 0; y < lh; ++y)
          for (int x = 0; x < lw; ++x) {
            in.push_back(make_float4((x + 0.5f) / lw, (y + 0.5f) / lh, float(l), 0));
            want.push_back(float(1000 * l + y * lw + x));
          }
      }
      const auto got = run(lod2d, t, in, int(in.size()));
      for (size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i])
          return fail("tex2DLod at a texel centre, sample " + std::to_string(i) + ": got " + std::to_string(got[i]) +
                      ", want " + std::to_string(want[i]));
      CK(cudaDestroyTextureObject(t));
    }
  }
  // Level selection: value 10 lambda' where lambda' is the level after bias and clamps (linear),
  // or 10 x the nearest level (point).
  struct Case { int mip_filter; float bias, lo, hi; };
  const Case cases[] = {{cudaFilterModePoint, 0, 0, 4}, {cudaFilterModeLinear, 0, 0, 4},
                        {cudaFilterModeLinear, 0.75f, 0.5f, 3.0f}, {cudaFilterModePoint, -1.0f, 1.0f, 2.0f}};
  for (const Case& c : cases) {
    const cudaTextureObject_t t = makeTexture(rd, cudaFilterModeLinear, c.mip_filter, c.bias, c.lo, c.hi);
    auto expect = [&](double lambda) {
      lambda = std::fmin(std::fmax(lambda + c.bias, c.lo), c.hi);
      lambda = std::fmin(std::fmax(lambda, 0.0), L - 1.0);
      return c.mip_filter == cudaFilterModeLinear ? 10 * lambda : 10 * std::floor(lambda + 0.5);
    };
    std::vector<float4> in;
    std::vector<double> want;
    for (int k = -8; k <= 40; ++k) {
      const float lod = k * 0.125f + 0.0625f;  // away from the nearest filter's half-way points
      in.push_back(make_float4(0.3f + 0.01f * k, 0.6f, lod, 0));
      want.push_back(expect(lod));
    }
    auto got = run(lod2d, t, in, int(in.size()));
    for (size_t i = 0; i < want.size(); ++i)
      if (std::fabs(got[i] - want[i]) > 10.0 * 2 / 256)
        return fail("tex2DLod lod " + std::to_string(in[i].z) + " (mip filter " + std::to_string(c.mip_filter) +
                    ", bias " + std::to_string(c.bias) + "): got " + std::to_string(got[i]) + ", want " +
                    std::to_string(want[i]));
    // tex2DGrad: lambda = log2 of the longer gradient in level-0 texels (2^k texels, k + 0.5 too),
    // isotropic and anisotropic (the other gradient 4x shorter, or across).
    in.clear();
    want.clear();
    for (int k = -2; k <= 12; ++k) {
      // In normalized x: 2^(k/2 + 1/8) texels (an eighth off the nearest filter's half-way points).
      const float len = std::exp2(k * 0.5f + 0.125f) / W;
      for (int shape = 0; shape < 3; ++shape) {
        in.push_back(make_float4(0.4f, 0.45f, 0, 0));
        if (shape == 0) in.push_back(make_float4(len, 0, 0, len * W / H));
        else if (shape == 1) in.push_back(make_float4(len, 0, 0, len * W / H / 4));
        else in.push_back(make_float4(len / 4, 0, 0, 0));
        want.push_back(expect(shape == 2 ? k * 0.5 + 0.125 - 2 : k * 0.5 + 0.125));
      }
    }
    got = run(grad2d, t, in, int(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      if (std::fabs(got[i] - want[i]) > 10.0 * 2 / 256)
        return fail("tex2DGrad sample " + std::to_string(i) + " (mip filter " + std::to_string(c.mip_filter) +
                    "): got " + std::to_string(got[i]) + ", want " + std::to_string(want[i]));
    CK(cudaDestroyTextureObject(t));
  }
  cudaArray_t none;
  if (cudaGetMipmappedArrayLevel(&none, mip, L) != cudaErrorInvalidValue) return fail("a level past the last was given");
  cudaGetLastError();
  CK(cudaFreeMipmappedArray(mip));

  // ---- A mipmapped cube map, 8 x 8, 4 levels; face f of level l = 10 l + f.
  cudaMipmappedArray_t mcube;
  CK(cudaMallocMipmappedArray(&mcube, &fd, make_cudaExtent(8, 8, 6), 4, cudaArrayCubemap));
  for (int l = 0; l < 4; ++l) {
    cudaArray_t level;
    CK(cudaGetMipmappedArrayLevel(&level, mcube, l));
    const int n = 8 >> l;
    std::vector<float> v(6 * n * n);
    for (int i = 0; i < 6 * n * n; ++i) v[i] = float(10 * l + i / (n * n));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(v.data(), n * sizeof(float), n, n);
    p.dstArray = level;
    p.extent = make_cudaExtent(n, n, 6);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
  }
  rd.res.mipmap.mipmap = mcube;
  const cudaTextureObject_t tc = makeTexture(rd, cudaFilterModeLinear, cudaFilterModePoint, 0, 0, 3);
  std::vector<float4> in;
  std::vector<float> want;
  for (int f = 0; f < 6; ++f)
    for (int l = 0; l < 5; ++l) {
      in.push_back(direction(f, 0.3f, -0.2f, 1.5f, float(l) + 0.25f));
      want.push_back(float(10 * (l < 3 ? l : 3) + f));
    }
  const auto got = run(cubeLod, tc, in, int(in.size()));
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      return fail("texCubemapLod sample " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " +
                  std::to_string(want[i]));
  CK(cudaDestroyTextureObject(tc));

  // ---- Errors.
  cudaArray_t bad;
  if (cudaMalloc3DArray(&bad, &fd, make_cudaExtent(8, 4, 6), cudaArrayCubemap) != cudaErrorInvalidValue)
    return fail("non-square cube faces were accepted");
  cudaGetLastError();
  CK(cudaFreeMipmappedArray(mcube));
  return std::printf("PASSED texture_mip: cube maps (6 faces x 16 texels, layered), mipmap levels (layout, lod, "
                     "grad, point/linear, bias, clamps), mipmapped cube maps, errors\n") < 0;
}
