// Texture and surface behaviour of the real GPU, for scgpu's texture model (sm/exec/texture.cpp).
// Prints one line per sample: "<case> <index> <hex bits of x y z w>". Run: nvcc -arch=sm_90
// tex_probe.cu -o tex_probe && ./tex_probe > h100_tex_probe.txt
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void fetch1(cudaTextureObject_t t, const float* xs, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float4>(t, xs[i]);
}
__global__ void fetch2(cudaTextureObject_t t, const float2* xs, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, xs[i].x, xs[i].y);
}
__global__ void gather2(cudaTextureObject_t t, const float2* xs, float4* out, int n, int comp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = comp == 0 ? tex2Dgather<float4>(t, xs[i].x, xs[i].y, 0) : tex2Dgather<float4>(t, xs[i].x, xs[i].y, 1);
}
__global__ void fetch3(cudaTextureObject_t t, const float4* xs, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float4>(t, xs[i].x, xs[i].y, xs[i].z);
}
__global__ void fetchi(cudaTextureObject_t t, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float4>(t, i - 4);
}
__global__ void surfrw(cudaSurfaceObject_t s, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned a = surf2Dread<unsigned>(s, (i - 4) * 4, 1, cudaBoundaryModeClamp);
    unsigned b = surf2Dread<unsigned>(s, (i - 4) * 4, 1, cudaBoundaryModeZero);
    unsigned c = surf2Dread<unsigned>(s, (i - 4) * 4 + 2, 1, cudaBoundaryModeClamp);
    out[i * 3] = a; out[i * 3 + 1] = b; out[i * 3 + 2] = c;
  }
}

static void dump(const char* name, const float4* h, int n) {
  for (int i = 0; i < n; ++i) {
    unsigned b[4];
    std::memcpy(b, &h[i], 16);
    printf("%s %d %08x %08x %08x %08x\n", name, i, b[0], b[1], b[2], b[3]);
  }
}

template <typename T>
static int run(const char* name, cudaTextureObject_t tex, const T* hx, int n, int kind, int comp = 0) {
  T* dx; float4* dout;
  CK(cudaMalloc(&dx, n * sizeof(T)));
  CK(cudaMalloc(&dout, n * sizeof(float4)));
  CK(cudaMemcpy(dx, hx, n * sizeof(T), cudaMemcpyHostToDevice));
  int blocks = (n + 127) / 128;
  if (kind == 1) fetch1<<<blocks, 128>>>(tex, (const float*)dx, dout, n);
  if (kind == 2) fetch2<<<blocks, 128>>>(tex, (const float2*)dx, dout, n);
  if (kind == 3) fetch3<<<blocks, 128>>>(tex, (const float4*)dx, dout, n);
  if (kind == 4) gather2<<<blocks, 128>>>(tex, (const float2*)dx, dout, n, comp);
  CK(cudaGetLastError());
  static float4 h[65536];
  CK(cudaMemcpy(h, dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
  dump(name, h, n);
  cudaFree(dx); cudaFree(dout);
  return 0;
}

static cudaTextureObject_t makeTex(cudaArray_t a, cudaTextureAddressMode am, cudaTextureFilterMode fm,
                                   cudaTextureReadMode rm, int norm) {
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = am;
  td.filterMode = fm;
  td.readMode = rm;
  td.normalizedCoords = norm;
  cudaTextureObject_t t = 0;
  cudaCreateTextureObject(&t, &rd, &td, nullptr);
  return t;
}

int main() {
  // 1D f32, 4 texels, linear: the weight's resolution.
  {
    float v[4] = {0.0f, 1.0f, 0.0f, 1000.0f};
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a; CK(cudaMallocArray(&a, &cd, 4));
    CK(cudaMemcpy2DToArray(a, 0, 0, v, sizeof v, sizeof v, 1, cudaMemcpyHostToDevice));
    static float xs[4097];
    for (int k = 0; k <= 4096; ++k) xs[k] = 1.5f + k / 4096.0f;   // between texels 1 and 2
    if (run("lin1d_f32", makeTex(a, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, 0), xs, 4097, 1)) return 1;
    for (int k = 0; k <= 4096; ++k) xs[k] = 2.5f + k / 4096.0f;   // between texels 2 and 3 (0 .. 1000)
    if (run("lin1d_f32_big", makeTex(a, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, 0), xs, 4097, 1)) return 1;
    // Every address mode with normalized coordinates, point and linear.
    static float ns[512];
    for (int k = 0; k < 512; ++k) ns[k] = -2.0f + k / 128.0f + 1.0f / 1024.0f;
    const char* names[4] = {"wrap", "clamp", "mirror", "border"};
    cudaTextureAddressMode ms[4] = {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror, cudaAddressModeBorder};
    for (int m = 0; m < 4; ++m) {
      char nm[64];
      snprintf(nm, sizeof nm, "norm_point_%s", names[m]);
      if (run(nm, makeTex(a, ms[m], cudaFilterModePoint, cudaReadModeElementType, 1), ns, 512, 1)) return 1;
      snprintf(nm, sizeof nm, "norm_linear_%s", names[m]);
      if (run(nm, makeTex(a, ms[m], cudaFilterModeLinear, cudaReadModeElementType, 1), ns, 512, 1)) return 1;
    }
    // Unnormalized coordinates with wrap and mirror, and out of range.
    static float us[64];
    for (int k = 0; k < 64; ++k) us[k] = -6.0f + k * 0.25f + 0.125f;
    for (int m = 0; m < 4; ++m) {
      char nm[64];
      snprintf(nm, sizeof nm, "unnorm_linear_%s", names[m]);
      if (run(nm, makeTex(a, ms[m], cudaFilterModeLinear, cudaReadModeElementType, 0), us, 64, 1)) return 1;
    }
  }
  // 2D uchar4 normalized-float read, bilinear, and gathers.
  {
    const int W = 5, H = 3;
    unsigned char img[H][W][4];
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int c = 0; c < 4; ++c) img[y][x][c] = (unsigned char)((x * 53 + y * 101 + c * 67) * 7 % 256);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a; CK(cudaMallocArray(&a, &cd, W, H));
    CK(cudaMemcpy2DToArray(a, 0, 0, img, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    static float2 xs[1024];
    for (int k = 0; k < 1024; ++k) xs[k] = make_float2(-0.7f + (k % 32) * 0.2137f, -0.4f + (k / 32) * 0.1173f);
    if (run("bilin_u8n_clamp", makeTex(a, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeNormalizedFloat, 0), xs, 1024, 2)) return 1;
    if (run("point_u8n_border", makeTex(a, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeNormalizedFloat, 0), xs, 1024, 2)) return 1;
    if (run("gather_r", makeTex(a, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, 0), xs, 1024, 4, 0)) return 1;
    if (run("gather_g_elem", makeTex(a, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0), xs, 1024, 4, 1)) return 1;
  }
  // 2D signed short2 normalized, bilinear, border; 2D half: bilinear.
  {
    const int W = 4, H = 4;
    short img[H][W][2];
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) { img[y][x][0] = (short)((x * 9000 - y * 7000) % 32768); img[y][x][1] = (short)(-32768 + x * 300 + y); }
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<short2>();
    cudaArray_t a; CK(cudaMallocArray(&a, &cd, W, H));
    CK(cudaMemcpy2DToArray(a, 0, 0, img, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    static float2 xs[256];
    for (int k = 0; k < 256; ++k) xs[k] = make_float2(-0.3f + (k % 16) * 0.3011f, -0.6f + (k / 16) * 0.3333f);
    if (run("bilin_s16n_border", makeTex(a, cudaAddressModeBorder, cudaFilterModeLinear, cudaReadModeNormalizedFloat, 0), xs, 256, 2)) return 1;
    cudaChannelFormatDesc hd = cudaCreateChannelDescHalf();
    cudaArray_t b; CK(cudaMallocArray(&b, &hd, W, H));
    unsigned short hv[H][W];
    for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x) hv[y][x] = (unsigned short)(0x3c00 + x * 0x155 + y * 0x301);
    CK(cudaMemcpy2DToArray(b, 0, 0, hv, W * 2, W * 2, H, cudaMemcpyHostToDevice));
    if (run("bilin_f16_wrapnorm", makeTex(b, cudaAddressModeWrap, cudaFilterModeLinear, cudaReadModeElementType, 1), xs, 256, 2)) return 1;
  }
  // 3D float, trilinear.
  {
    const int W = 3, H = 3, D = 3;
    float v[D][H][W];
    for (int z = 0; z < D; ++z) for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x) v[z][y][x] = x * 1.5f + y * y * 3.25f - z * 7.0f + (x * y * z) * 0.1f;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a; CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, H, D)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(v, W * 4, W, H);
    p.dstArray = a;
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    static float4 xs[256];
    for (int k = 0; k < 256; ++k) xs[k] = make_float4(0.1f + (k % 8) * 0.377f, 0.2f + (k / 8 % 8) * 0.351f, 0.05f + (k / 64) * 0.91f, 0);
    if (run("trilin_f32", makeTex(a, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, 0), xs, 256, 3)) return 1;
  }
  // tex1Dfetch on linear memory (float2: missing channels), out of range on both sides.
  {
    float v[16];
    for (int i = 0; i < 16; ++i) v[i] = i + 0.5f;
    float* d; CK(cudaMalloc(&d, sizeof v));
    CK(cudaMemcpy(d, v, sizeof v, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = d;
    rd.res.linear.desc = cudaCreateChannelDesc<float2>();
    rd.res.linear.sizeInBytes = sizeof v;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    for (int m = 0; m < 2; ++m) {
      td.addressMode[0] = m ? cudaAddressModeBorder : cudaAddressModeClamp;
      cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
      float4* dout; CK(cudaMalloc(&dout, 16 * sizeof(float4)));
      fetchi<<<1, 16>>>(t, dout, 16);
      static float4 h[16];
      CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
      dump(m ? "fetch_linear_border" : "fetch_linear_clamp", h, 16);
    }
    // Missing channels of a 1-channel float array read as float4.
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a; CK(cudaMallocArray(&a, &cd, 16));
    CK(cudaMemcpy2DToArray(a, 0, 0, v, sizeof v, sizeof v, 1, cudaMemcpyHostToDevice));
    float xs[4] = {0.5f, 3.5f, 20.0f, -3.0f};
    if (run("missing_channels_border", makeTex(a, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, 0), xs, 4, 1)) return 1;
  }
  // Surface reads with clamp and zero, byte x out of range and unaligned.
  {
    const int W = 8, H = 2;
    unsigned v[H][W];
    for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x) v[y][x] = 0x1000u * (y + 1) + x;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<unsigned>();
    cudaArray_t a; CK(cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(a, 0, 0, v, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s; CK(cudaCreateSurfaceObject(&s, &rd));
    unsigned* dout; CK(cudaMalloc(&dout, 16 * 3 * 4));
    surfrw<<<1, 16>>>(s, dout, 16);
    CK(cudaGetLastError());
    unsigned h[48];
    CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; ++i) printf("surf_clamp_zero_unaligned %d %08x %08x %08x 00000000\n", i, h[3 * i], h[3 * i + 1], h[3 * i + 2]);
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
