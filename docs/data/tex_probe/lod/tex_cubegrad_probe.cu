// Fourth H200 run (2026-11-28, driver 580.159.04, nvcc 13.0), compact as it was sent to the GPU:
// texCubemapGrad on a 16x16 mipmapped cube map (5 levels, level l reads 256 l: the result is
// 256 lambda): gradients along each axis at the +z face's centre and off it, parallel and
// perpendicular pairs, then 1024 random directions and gradients.
// Line: q <i> <12 input words: x y z -, dPdx, dPdy> <result word>, hex.
// Output: h200_cubegrad.txt. Build: nvcc -arch=sm_90.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <vector>
#define V std::vector
struct S{float c[4],x[4],y[4];};
__global__ void K(cudaTextureObject_t t,S*in,float4*o,int n){int i=blockIdx.x*128+threadIdx.x;if(i<n){S s=in[i];
o[i]=texCubemapGrad<float4>(t,s.c[0],s.c[1],s.c[2],make_float4(s.x[0],s.x[1],s.x[2],0),make_float4(s.y[0],s.y[1],s.y[2],0));}}
unsigned B(float f){unsigned u;memcpy(&u,&f,4);return u;}
unsigned st=5;float U(float a,float b){st=st*1664525u+1013904223u;return a+(b-a)*(st>>8)/16777216.f;}
V<S>v;void A(float a,float b,float c,float d,float e,float f,float g,float h,float k){S s={};s.c[0]=a;s.c[1]=b;s.c[2]=c;s.x[0]=d;s.x[1]=e;s.x[2]=f;s.y[0]=g;s.y[1]=h;s.y[2]=k;v.push_back(s);}
int main(){auto fd=cudaCreateChannelDesc<float>();cudaMipmappedArray_t m;cudaMallocMipmappedArray(&m,&fd,make_cudaExtent(16,16,6),5,cudaArrayCubemap);
for(int l=0;l<5;l++){cudaArray_t a;cudaGetMipmappedArrayLevel(&a,m,l);int n=16>>l;V<float>w(n*n*6,256.f*l);cudaMemcpy3DParms p={};
p.srcPtr=make_cudaPitchedPtr(w.data(),n*4,n,n);p.dstArray=a;p.extent=make_cudaExtent(n,n,6);p.kind=cudaMemcpyHostToDevice;cudaMemcpy3D(&p);}
cudaResourceDesc rd={};rd.resType=cudaResourceTypeMipmappedArray;rd.res.mipmap.mipmap=m;cudaTextureDesc td={};
td.filterMode=td.mipmapFilterMode=cudaFilterModeLinear;td.normalizedCoords=1;td.maxMipmapLevelClamp=4;cudaTextureObject_t t;cudaCreateTextureObject(&t,&rd,&td,0);
for(int k=0;k<256;k++){float g=exp2f(-6+k/64.f);A(0,0,1,g,0,0,0,0,0);A(0,0,1,0,g,0,0,0,0);A(0,0,1,0,0,g,0,0,0);A(0,0,2,g,0,0,0,0,0);
A(.5f,0,1,g,0,0,0,0,0);A(0,.5f,1,g,0,0,0,0,0);A(.5f,0,1,0,0,g,0,0,0);A(0,0,1,g,0,0,0,g*k/256,0);A(0,0,1,g,0,0,g*k/256,0,0);A(.7f,-.3f,1,g,g/2,0,0,0,0);}
for(int i=0;i<1024;i++){float e[9];for(int j=0;j<9;j++)e[j]=j<3?U(-2,2):U(-1,1)*exp2f(U(-7,0));A(e[0],e[1],e[2],e[3],e[4],e[5],e[6],e[7],e[8]);}
S*d;float4*o;int n=v.size();cudaMalloc(&d,n*48);cudaMalloc(&o,n*16);cudaMemcpy(d,v.data(),n*48,cudaMemcpyHostToDevice);K<<<n/128+1,128>>>(t,d,o,n);
V<float4>h(n);cudaMemcpy(h.data(),o,n*16,cudaMemcpyDeviceToHost);fprintf(stderr,"%s\n",cudaGetErrorString(cudaGetLastError()));
for(int i=0;i<n;i++){printf("q %d",i);for(int j=0;j<12;j++)printf(" %08x",B(((float*)&v[i])[j]));printf(" %08x\n",B(h[i].x));}}
