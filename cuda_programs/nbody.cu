// nbody: all-pairs accelerations of 256 bodies with rsqrtf and shared-memory tiles (nbody_accel),
// then one semi-implicit Euler step (nbody_integrate); blocks of 128.
// Plain CUDA runtime port of kernels/host/nbody.cpp (the suite at scale 1); the kernels are the
// suite's own. Usage: nbody [seed]. Prints PASSED/FAILED; exit 0 passed, 1 failed, 2 CUDA error.
#include "../kernels/cuda/nbody.cu"

#include <algorithm>

#define CUDA_PROGRAM_NAME "nbody"
#include "program_support.cuh"  // CHECK, Rng, device buffers, the result line: shared by every program

// ---- The workload -----------------------------------------------------------------------------
int main(int argc, char** argv) {
  const int n = 256;
  const float eps2 = 0.01f, dt = 0.01f;
  Rng rng(seedFrom(argc, argv));
  std::vector<float4> pos(n), vel(n);
  // Braced lists: the four draws happen in order (function arguments would be unsequenced).
  for (float4& p : pos)
    p = float4{rng.uniform(-1.0f, 1.0f), rng.uniform(-1.0f, 1.0f), rng.uniform(-1.0f, 1.0f), rng.uniform(0.5f, 1.5f)};
  for (float4& v : vel)
    v = float4{rng.uniform(-0.1f, 0.1f), rng.uniform(-0.1f, 0.1f), rng.uniform(-0.1f, 0.1f), 0.0f};

  // Reference in double (the self-interaction adds 0: dx = dy = dz = 0).
  std::vector<double> acc(3 * std::size_t(n), 0.0);
  double max_acc = 0.0;
  for (int i = 0; i < n; ++i) {
    double a[3] = {0, 0, 0};
    for (int j = 0; j < n; ++j) {
      const double dx = double(pos[j].x) - pos[i].x, dy = double(pos[j].y) - pos[i].y, dz = double(pos[j].z) - pos[i].z;
      const double d2 = dx * dx + dy * dy + dz * dz + eps2;
      const double s = pos[j].w / (d2 * std::sqrt(d2));
      a[0] += dx * s;
      a[1] += dy * s;
      a[2] += dz * s;
    }
    for (int c = 0; c < 3; ++c) {
      acc[3 * std::size_t(i) + c] = a[c];
      max_acc = std::max(max_acc, std::fabs(a[c]));
    }
  }
  std::vector<float> want_acc(4 * std::size_t(n)), want_pos(4 * std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const double p[3] = {pos[i].x, pos[i].y, pos[i].z}, v[3] = {vel[i].x, vel[i].y, vel[i].z};
    for (int c = 0; c < 3; ++c) {
      want_acc[4 * std::size_t(i) + c] = float(acc[3 * std::size_t(i) + c]);
      want_pos[4 * std::size_t(i) + c] = float(p[c] + (v[c] + acc[3 * std::size_t(i) + c] * dt) * dt);
    }
    want_acc[4 * std::size_t(i) + 3] = 0.0f;
    want_pos[4 * std::size_t(i) + 3] = pos[i].w;
  }

  float4* dpos = upload(pos);
  float4* dvel = upload(vel);
  float4* dacc = deviceAlloc<float4>(n);
  const unsigned block = 128;
  nbody_accel<<<blocksFor(n, block), block>>>(dpos, dacc, n, eps2);
  CHECK_LAUNCH("nbody_accel");
  nbody_integrate<<<blocksFor(n, block), block>>>(dpos, dvel, dacc, n, dt);
  CHECK_LAUNCH("nbody_integrate");

  // rsqrtf is an approximation (~2 ulp) and the n-term float sums cancel: components are compared
  // with 1e-4 relative plus 1e-4 of the largest component.
  const float acc_rel = 1e-4f, acc_abs = float(1e-4 * max_acc);
  const std::vector<float> got_acc = download(reinterpret_cast<const float*>(dacc), 4 * std::size_t(n));
  if (long i = firstMismatch(got_acc, want_acc, acc_rel, acc_abs); i >= 0)
    return failed(mismatchMessage("acc", i, got_acc[i], want_acc[i]));
  // Positions move by (v + a*dt)*dt: the acceleration error is scaled by dt^2; 1e-6 covers the
  // float rounding of the update.
  const float pos_rel = 1e-6f, pos_abs = 1e-6f;
  const std::vector<float> got_pos = download(reinterpret_cast<const float*>(dpos), 4 * std::size_t(n));
  if (long i = firstMismatch(got_pos, want_pos, pos_rel, pos_abs); i >= 0)
    return failed(mismatchMessage("pos", i, got_pos[i], want_pos[i]));
  return passed(std::to_string(n) + " bodies: accelerations within 1e-4 rel + 1e-4 max, positions after one step "
                "within 1e-6 rel + 1e-6 abs");
}
