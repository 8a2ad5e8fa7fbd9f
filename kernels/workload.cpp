// The workload registry and the helpers declared in workload.h.
#include "kernels/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#ifndef SCGPU_SOURCE_DIR
#define SCGPU_SOURCE_DIR "."
#endif

namespace scgpu::kernels {
namespace {

struct Registry {
  std::vector<Workload> workloads;
  bool sorted = true;
};

// Function-local static: registrars in other translation units may run before anything here.
Registry& registry() {
  static Registry r;
  return r;
}

template <typename T>
long firstMismatchImpl(const std::vector<T>& got, const std::vector<T>& want, T rel_tol, T abs_tol) {
  const std::size_t n = std::min(got.size(), want.size());
  for (std::size_t i = 0; i < n; ++i) {
    const T g = got[i], w = want[i];
    if (g == w) continue;                           // also equal infinities and +0 == -0
    if (std::isnan(g) && std::isnan(w)) continue;   // NaN in both is a match
    if (std::isnan(g) || std::isnan(w) || std::isinf(g) || std::isinf(w)) return long(i);
    if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w))) return long(i);
  }
  if (got.size() != want.size()) return long(n);
  return -1;
}

}  // namespace

WorkloadRegistrar::WorkloadRegistrar(Workload w) {
  Registry& r = registry();
  for (const Workload& existing : r.workloads) {
    if (existing.name == w.name) {
      // Two host programs claim one name: a build mistake that no caller can recover from.
      std::fprintf(stderr, "scgpu: workload '%s' registered twice\n", w.name.c_str());
      std::abort();
    }
  }
  r.workloads.push_back(std::move(w));
  r.sorted = false;
}

const std::vector<Workload>& allWorkloads() {
  Registry& r = registry();
  if (!r.sorted) {
    std::sort(r.workloads.begin(), r.workloads.end(),
              [](const Workload& a, const Workload& b) { return a.name < b.name; });
    r.sorted = true;
  }
  return r.workloads;
}

const Workload* findWorkload(const std::string& name) {
  for (const Workload& w : allWorkloads()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::string ptxPath(const std::string& ptx_name, const std::string& arch) {
  const char* env = std::getenv("SCGPU_KERNELS_DIR");
  std::string dir = (env != nullptr && *env != '\0') ? env : SCGPU_SOURCE_DIR "/kernels/ptx";
  return dir + "/" + arch + "/" + ptx_name + ".ptx";
}

long firstMismatch(const std::vector<float>& got, const std::vector<float>& want, float rel_tol,
                   float abs_tol) {
  return firstMismatchImpl(got, want, rel_tol, abs_tol);
}

long firstMismatch(const std::vector<double>& got, const std::vector<double>& want, double rel_tol,
                   double abs_tol) {
  return firstMismatchImpl(got, want, rel_tol, abs_tol);
}

}  // namespace scgpu::kernels
