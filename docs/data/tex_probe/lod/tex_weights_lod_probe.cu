// Second H200 run (2026-11-28, driver 580.159.04, nvcc 13.0), compact as it was sent to the GPU:
// "w": trilinear (linear mipmap) weights read one by one: 64x64 float4 texture, 7 levels, wrap
//      addressing; texel (x, y) of level l has channel (x%2) + 2(y%2) = 1 (l even) or 512 (l odd),
//      so channel k of tex2DLod's result * 256 = w_even + 512 w_odd (4096 random x, y, lod);
// "g": tex2DGrad's level of detail on a 1024x1024 texture whose level l reads 256 l (linear
//      mipmap filter: the result is 256 lambda, truncated): 2048 gradients at 512 angles,
//      4096 random pairs, 4096 axis-aligned lengths in 1/4096 steps of an octave.
// Line: <case> <i> <12 input words: x y z lod, dPdx, dPdy> <4 result words>, hex.
// Output: h200_weights_lod.txt. Build: nvcc -O2 -arch=sm_90 -std=c++17.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
#define V std::vector
struct S{float c[4],x[4],y[4];};
__global__ void K(cudaTextureObject_t t,S*in,float4*o,int n,int k){int i=blockIdx.x*128+threadIdx.x;if(i<n){S s=in[i];
o[i]=k?tex2DGrad<float4>(t,s.c[0],s.c[1],make_float2(s.x[0],s.x[1]),make_float2(s.y[0],s.y[1])):tex2DLod<float4>(t,s.c[0],s.c[1],s.c[3]);}}
unsigned B(float f){unsigned u;memcpy(&u,&f,4);return u;}
unsigned st=777;float U(float a,float b){st=st*1664525u+1013904223u;return a+(b-a)*(st>>8)/16777216.f;}
void run(const char*nm,cudaMipmappedArray_t m,int am,V<S>&v,int k){cudaResourceDesc rd={};rd.resType=cudaResourceTypeMipmappedArray;rd.res.mipmap.mipmap=m;
cudaTextureDesc td={};td.addressMode[0]=td.addressMode[1]=cudaTextureAddressMode(am);td.filterMode=td.mipmapFilterMode=cudaFilterModeLinear;
td.normalizedCoords=1;td.maxMipmapLevelClamp=20;cudaTextureObject_t t;cudaCreateTextureObject(&t,&rd,&td,0);
S*d;float4*o;int n=v.size();cudaMalloc(&d,n*48);cudaMalloc(&o,n*16);cudaMemcpy(d,v.data(),n*48,cudaMemcpyHostToDevice);K<<<n/128+1,128>>>(t,d,o,n,k);
V<float4>h(n);cudaMemcpy(h.data(),o,n*16,cudaMemcpyDeviceToHost);fprintf(stderr,"%s %s\n",nm,cudaGetErrorString(cudaGetLastError()));
for(int i=0;i<n;i++){printf("%s %d",nm,i);for(int j=0;j<12;j++)printf(" %08x",B(((float*)&v[i])[j]));printf(" %08x %08x %08x %08x\n",B(h[i].x),B(h[i].y),B(h[i].z),B(h[i].w));}}
template<class F>cudaMipmappedArray_t mm(int w,int L,F f){auto fd=cudaCreateChannelDesc<float4>();cudaMipmappedArray_t m;cudaMallocMipmappedArray(&m,&fd,make_cudaExtent(w,w,0),L);
for(int l=0;l<L;l++){cudaArray_t a;cudaGetMipmappedArrayLevel(&a,m,l);int n=w>>l;V<float4>v(n*n);for(int y=0;y<n;y++)for(int x=0;x<n;x++)v[y*n+x]=f(l,x,y);
cudaMemcpy2DToArray(a,0,0,v.data(),n*16,n*16,n,cudaMemcpyHostToDevice);}return m;}
S sm(float x,float y,float w){S s={};s.c[0]=x;s.c[1]=y;s.c[3]=w;return s;}
int main(){V<S>v;
for(int i=0;i<4096;i++)v.push_back(sm(U(0,1),U(0,1),U(0,5.99f)));
run("w",mm(64,7,[](int l,int x,int y){float4 r={0,0,0,0};(&r.x)[x%2+y%2*2]=l%2?512:1;return r;}),0,v,0);v.clear();
for(int j=0;j<2048;j++){float a=6.2831853f*j/2048,L=exp2f(3+U(0,1));S s=sm(.37f,.61f,0);s.x[0]=L*cosf(a)/1024;s.x[1]=L*sinf(a)/1024;v.push_back(s);}
for(int i=0;i<4096;i++){S s=sm(.37f,.61f,0);for(int k=0;k<2;k++){s.x[k]=U(-1,1)*exp2f(U(0,6))/1024;s.y[k]=U(-1,1)*exp2f(U(0,6))/1024;}v.push_back(s);}
for(int i=0;i<4096;i++){S s=sm(.37f,.61f,0);s.x[0]=exp2f(1+i/4096.f)/1024;v.push_back(s);}
run("g",mm(1024,11,[](int l,int,int){return make_float4(256*l,0,0,0);}),1,v,1);}
