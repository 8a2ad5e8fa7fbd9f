// All-pairs gravitational n-body in single precision (as in GPU Gems 3, ch. 31).
//   nbody_accel:     acc[i] = sum_j m_j * d_ij / (|d_ij|^2 + eps2)^(3/2), with body tiles of
//                    blockDim.x staged in shared memory; pos[i].w is the mass. blockDim.x <= 256.
//   nbody_integrate: semi-implicit Euler: vel += acc * dt; pos.xyz += vel * dt.
#define MAX_BLOCK 256

extern "C" __global__ void nbody_accel(const float4* __restrict__ pos, float4* __restrict__ acc, int n,
                                       float eps2) {
  __shared__ float4 tile[MAX_BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 pi = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float ax = 0.f, ay = 0.f, az = 0.f;
  for (int base = 0; base < n; base += blockDim.x) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);  // mass 0: no force
    __syncthreads();
    for (int k = 0; k < blockDim.x; ++k) {
      float4 pj = tile[k];
      float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
      float d2 = dx * dx + dy * dy + dz * dz + eps2;
      float inv = rsqrtf(d2);
      float s = pj.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(ax, ay, az, 0.f);
}

extern "C" __global__ void nbody_integrate(float4* __restrict__ pos, float4* __restrict__ vel,
                                           const float4* __restrict__ acc, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i], a = acc[i];
  v.x += a.x * dt;
  v.y += a.y * dt;
  v.z += a.z * dt;
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  pos[i] = p;
  vel[i] = v;
}
