// nbody: all-pairs accelerations of 256 bodies (x scale) with rsqrtf and shared-memory tiles,
// then one integration step.
#include <algorithm>

#include "kernels/workload.h"
#include "kernels/workload_util.h"

namespace scgpu::kernels {
namespace {

struct Float4 { float x, y, z, w; };

WorkloadResult run(driver::Runtime& rt, const WorkloadOptions& opt) {
  const int n = 256 * scaleOf(opt);
  const float eps2 = 0.01f, dt = 0.01f;
  Rng rng(opt.seed);
  std::vector<Float4> pos(n), vel(n);
  for (Float4& p : pos) p = {rng.uniform(-1.0f, 1.0f), rng.uniform(-1.0f, 1.0f), rng.uniform(-1.0f, 1.0f), rng.uniform(0.5f, 1.5f)};
  for (Float4& v : vel) v = {rng.uniform(-0.1f, 0.1f), rng.uniform(-0.1f, 0.1f), rng.uniform(-0.1f, 0.1f), 0.0f};

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

  DeviceArena mem(rt);
  const driver::DevicePtr dpos = mem.upload(pos), dvel = mem.upload(vel), dacc = mem.alloc(n * sizeof(Float4));
  driver::Module& mod = loadWorkloadModule(rt, "nbody", opt);
  const std::uint32_t block = 128;
  if (auto e = rt.launch(rt.getFunction(mod, "nbody_accel"), blocksFor(n, block), block, 0,
                         driver::KernelArgs().add(dpos).add(dacc).add(n).add(eps2));
      e != driver::Error::Success)
    return launchFailed("nbody_accel", e);
  if (auto e = rt.launch(rt.getFunction(mod, "nbody_integrate"), blocksFor(n, block), block, 0,
                         driver::KernelArgs().add(dpos).add(dvel).add(dacc).add(n).add(dt));
      e != driver::Error::Success)
    return launchFailed("nbody_integrate", e);

  // rsqrtf is an approximation (~2 ulp) and the n-term float sums cancel: components are compared
  // with 1e-4 relative plus 1e-4 of the largest component.
  const float acc_rel = 1e-4f, acc_abs = float(1e-4 * max_acc);
  const std::vector<float> got_acc = rt.download<float>(dacc, 4 * std::size_t(n));
  if (long i = firstMismatch(got_acc, want_acc, acc_rel, acc_abs); i >= 0)
    return failed(mismatchMessage("acc", i, got_acc[i], want_acc[i]));
  // Positions move by (v + a*dt)*dt: the acceleration error is scaled by dt^2; 1e-6 covers the
  // float rounding of the update.
  const float pos_rel = 1e-6f, pos_abs = 1e-6f;
  const std::vector<float> got_pos = rt.download<float>(dpos, 4 * std::size_t(n));
  if (long i = firstMismatch(got_pos, want_pos, pos_rel, pos_abs); i >= 0)
    return failed(mismatchMessage("pos", i, got_pos[i], want_pos[i]));
  return passed(std::to_string(n) + " bodies: accelerations within 1e-4 rel + 1e-4 max, positions after one step "
                "within 1e-6 rel + 1e-6 abs");
}

const WorkloadRegistrar reg({"nbody", "all-pairs n-body, 256 bodies, rsqrtf, shared-memory tiles", "nbody", {"sm_90"}, run});

}  // namespace
}  // namespace scgpu::kernels
