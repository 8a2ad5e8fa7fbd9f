// TEMPORARY (not to be committed): a driver::Runtime over the CUDA driver API, to validate the
// suite's PTX and CPU references on real silicon.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "driver/runtime.h"
#include "kernels/workload.h"

#define FN(name) static decltype(&::name) p_##name;
FN(cuInit) FN(cuDeviceGet) FN(cuDevicePrimaryCtxRetain) FN(cuCtxSetCurrent) FN(cuMemAlloc_v2) FN(cuMemFree_v2)
FN(cuMemcpyHtoD_v2) FN(cuMemcpyDtoH_v2) FN(cuMemcpyDtoD_v2) FN(cuMemsetD8_v2) FN(cuModuleLoadDataEx) FN(cuModuleGetFunction)
FN(cuModuleGetGlobal_v2) FN(cuLaunchKernel) FN(cuCtxSynchronize) FN(cuGetErrorName)

static void loadCuda() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) throw std::runtime_error("no libcuda");
#define L(name) p_##name = (decltype(p_##name))dlsym(h, #name);
  L(cuInit) L(cuDeviceGet) L(cuDevicePrimaryCtxRetain) L(cuCtxSetCurrent) L(cuMemAlloc_v2) L(cuMemFree_v2)
  L(cuMemcpyHtoD_v2) L(cuMemcpyDtoH_v2) L(cuMemcpyDtoD_v2) L(cuMemsetD8_v2) L(cuModuleLoadDataEx) L(cuModuleGetFunction)
  L(cuModuleGetGlobal_v2) L(cuLaunchKernel) L(cuCtxSynchronize) L(cuGetErrorName)
}
static void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* n = "?";
    p_cuGetErrorName(r, &n);
    throw std::runtime_error(std::string(what) + ": " + n);
  }
}

namespace scgpu::driver {
class Module { public: CUmodule mod; };
class Function { public: CUfunction fn; std::string name; };
const char* errorName(Error e) {
  static const char* names[] = {"Success", "InvalidValue", "MemoryAllocation", "InvalidDevicePointer", "InvalidResourceHandle",
                                "LaunchFailure", "IllegalAddress", "MisalignedAddress", "IllegalInstruction", "Assert",
                                "BarrierDeadlock", "InvalidConfiguration"};
  return names[int(e)];
}
struct Runtime::Impl {
  CUcontext ctx;
  std::deque<Module> modules;
  std::deque<Function> fns;
  std::string printed;
};
Runtime::Runtime() : impl_(new Impl) {
  loadCuda();
  check(p_cuInit(0), "init");
  CUdevice d;
  check(p_cuDeviceGet(&d, 0), "dev");
  check(p_cuDevicePrimaryCtxRetain(&impl_->ctx, d), "ctx");
  check(p_cuCtxSetCurrent(impl_->ctx), "set");
}
Runtime::~Runtime() = default;
DevicePtr Runtime::malloc(std::size_t bytes) {
  CUdeviceptr p;
  check(p_cuMemAlloc_v2(&p, bytes ? bytes : 1), "malloc");
  return p;
}
void Runtime::free(DevicePtr p) { check(p_cuMemFree_v2(p), "free"); }
void Runtime::memcpyHtoD(DevicePtr d, const void* s, std::size_t n) { if (n) check(p_cuMemcpyHtoD_v2(d, s, n), "htod"); }
void Runtime::memcpyDtoH(void* d, DevicePtr s, std::size_t n) { if (n) check(p_cuMemcpyDtoH_v2(d, s, n), "dtoh"); }
void Runtime::memset(DevicePtr d, int v, std::size_t n) { if (n) check(p_cuMemsetD8_v2(d, (unsigned char)v, n), "memset"); }
Module& Runtime::loadModuleFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  Module m;
  char log[16384] = {0};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, (void*)(uintptr_t)sizeof(log)};
  CUresult r = p_cuModuleLoadDataEx(&m.mod, text.c_str(), 2, opts, vals);
  if (r != CUDA_SUCCESS) throw std::runtime_error("load " + path + ": " + log);
  impl_->modules.push_back(m);
  return impl_->modules.back();
}
DevicePtr Runtime::symbolAddress(Module& m, const std::string& name) {
  CUdeviceptr p;
  size_t sz;
  check(p_cuModuleGetGlobal_v2(&p, &sz, m.mod, name.c_str()), "symbol");
  return p;
}
Function& Runtime::getFunction(Module& m, const std::string& name) {
  Function f;
  f.name = name;
  check(p_cuModuleGetFunction(&f.fn, m.mod, name.c_str()), ("function " + name).c_str());
  impl_->fns.push_back(f);
  return impl_->fns.back();
}
Error Runtime::launch(Function& fn, Dim3 grid, Dim3 block, std::size_t smem, const KernelArgs& args) {
  std::vector<void*> params;
  for (const auto& a : args.args()) params.push_back(const_cast<std::uint8_t*>(a.bytes.data()));
  std::fflush(stdout);
  int saved = dup(1);
  int fd = open("/tmp/gpucheck_printf.txt", O_CREAT | O_TRUNC | O_WRONLY, 0644);
  dup2(fd, 1);
  CUresult r = p_cuLaunchKernel(fn.fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, unsigned(smem), nullptr, params.data(), nullptr);
  if (r == CUDA_SUCCESS) r = p_cuCtxSynchronize();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  std::ifstream f("/tmp/gpucheck_printf.txt");
  std::stringstream ss;
  ss << f.rdbuf();
  impl_->printed += ss.str();
  if (r != CUDA_SUCCESS) {
    const char* n = "?";
    p_cuGetErrorName(r, &n);
    std::fprintf(stderr, "launch %s: %s\n", fn.name.c_str(), n);
    switch (r) {
      case CUDA_ERROR_ILLEGAL_ADDRESS: return Error::IllegalAddress;
      case CUDA_ERROR_MISALIGNED_ADDRESS: return Error::MisalignedAddress;
      case CUDA_ERROR_ASSERT: return Error::Assert;
      case CUDA_ERROR_ILLEGAL_INSTRUCTION: return Error::IllegalInstruction;
      default: return Error::LaunchFailure;
    }
  }
  return Error::Success;
}
std::string Runtime::takePrintfOutput() {
  std::string s;
  s.swap(impl_->printed);
  return s;
}
}  // namespace scgpu::driver

using namespace scgpu;
int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "fault") {  // fault <kernel> : run one fault kernel
    driver::Runtime rt;
    driver::Module& m = rt.loadModuleFile(kernels::ptxPath("faults", "sm_90"));
    std::string k = argv[2];
    driver::DevicePtr buf = rt.malloc(1 << 20);
    std::vector<int> in(64, 5);
    in[3] = -1;
    rt.memcpyHtoD(buf, in.data(), 64 * 4);
    driver::DevicePtr out = rt.malloc(1 << 20);
    driver::KernelArgs a;
    unsigned threads = 64;
    if (k == "oob_store") a.add(buf).add(7);
    else if (k == "misaligned_load" || k == "assert_kernel") a.add(buf).add(out);
    else a.add(out);
    driver::Error e = rt.launch(rt.getFunction(m, k), 1, threads, 0, a);
    std::printf("fault %s -> %s\n", k.c_str(), driver::errorName(e));
    return 0;
  }
  int scale = argc > 1 ? std::atoi(argv[1]) : 1;
  int seeds = argc > 2 ? std::atoi(argv[2]) : 1;
  driver::Runtime rt;
  int fails = 0, runs = 0;
  for (const auto& w : kernels::allWorkloads()) {
    for (const auto& arch : w.archs) {
      for (int seed = 1; seed <= seeds; ++seed) {
        kernels::WorkloadOptions opt;
        opt.scale = scale;
        opt.seed = std::uint64_t(seed);
        opt.arch = arch;
        auto t0 = std::chrono::steady_clock::now();
        kernels::WorkloadResult r;
        try {
          r = w.run(rt, opt);
        } catch (const std::exception& ex) {
          r = {false, std::string("exception: ") + ex.what(), driver::Error::Success};
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ++runs;
        if (!r.passed) ++fails;
        if (!r.passed || seed == 1)
          std::printf("%-4s %-15s %-5s s%d x%d %7.1f ms  %s\n", r.passed ? "PASS" : "FAIL", w.name.c_str(), arch.c_str(), seed,
                      scale, ms, r.message.c_str());
      }
    }
  }
  std::printf("%d runs, %d failures\n", runs, fails);
  return fails ? 1 : 0;
}
