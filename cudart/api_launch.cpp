// Registration (what nvcc's generated host code calls from static initialisers and <<<>>>),
// kernel launches, function attributes and the occupancy calculator.
#include <algorithm>

#include "cudart/api_common.h"
#include "ptx/decoded.h"

using namespace scgpu::cudart;
using scgpu::cudart::abi::Dim3;
using scgpu::cudart::abi::Error;

// ---------------------------------------------------------------------------------------------
// Registration

SCGPU_CUDART_API void** __cudaRegisterFatBinary(void* fatbin) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  return s.registerFatbin(fatbin);
}

// The module loads at its first use (a launch, a symbol), once the device is open.
SCGPU_CUDART_API void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

SCGPU_CUDART_API void __cudaUnregisterFatBinary(void** handle) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  s.unregisterFatbin(handle);
}

SCGPU_CUDART_API void __cudaRegisterFunction(void** handle, const char* host_function, char* /*device_function*/,
                                             const char* device_name, int /*thread_limit*/, void* /*tid*/,
                                             void* /*bid*/, Dim3* /*block*/, Dim3* /*grid*/, int* /*warp_size*/) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  s.registerFunction(handle, host_function, device_name);
}

SCGPU_CUDART_API void __cudaRegisterVar(void** handle, char* host_var, char* /*device_address*/, const char* device_name,
                                        int /*ext*/, std::size_t bytes, int constant, int /*global*/) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  s.registerVar(handle, host_var, device_name, bytes, constant != 0, false);
}

SCGPU_CUDART_API void __cudaRegisterManagedVar(void** handle, void** host_var_ptr, char* /*device_address*/,
                                               const char* device_name, int /*ext*/, std::size_t bytes, int constant,
                                               int /*global*/) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  s.registerVar(handle, host_var_ptr, device_name, bytes, constant != 0, true);
}

// Textures and surfaces bound by reference (the pre-CUDA 12 API): scgpu runs no texture
// instructions, so a kernel using one is refused at launch; registering is harmless.
SCGPU_CUDART_API void __cudaRegisterTexture(void**, const void*, const void**, const char*, int, int, int) {}
SCGPU_CUDART_API void __cudaRegisterSurface(void**, const void*, const void**, const char*, int, int) {}

// Managed variables of the module would be set up here; returns whether the module is ready.
SCGPU_CUDART_API char __cudaInitModule(void** /*handle*/) { return 1; }

SCGPU_CUDART_API unsigned __cudaPushCallConfiguration(Dim3 grid, Dim3 block, std::size_t shared, void* stream) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  s.call_stack.push_back(State::CallConfig{grid, block, shared, stream});
  return 0;
}

SCGPU_CUDART_API Error __cudaPopCallConfiguration(Dim3* grid, Dim3* block, std::size_t* shared, void** stream) {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (s.call_stack.empty()) return s.fail(abi::kMissingConfiguration);
  const State::CallConfig c = s.call_stack.back();
  s.call_stack.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *stream = c.stream;
  return abi::kSuccess;
}

// A kernel handle (cudaKernel_t) is the host function nvcc registered the kernel under.
SCGPU_CUDART_API Error __cudaGetKernel(void** kernel, const void* host_function) {
  return guarded("cudaGetKernel", [&](State& s) {
    if (!kernel) return s.fail(abi::kInvalidValue);
    if (!s.isKernel(host_function)) return s.fail(abi::kInvalidDeviceFunction);
    *kernel = const_cast<void*>(host_function);
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaGetKernel(void** kernel, const void* host_function) {
  return __cudaGetKernel(kernel, host_function);
}

// ---------------------------------------------------------------------------------------------
// Launches

SCGPU_CUDART_API Error cudaLaunchKernel(const void* function, Dim3 grid, Dim3 block, void** args, std::size_t shared,
                                        void* stream) {
  return onDevice("cudaLaunchKernel",
                  [&](State& s) { return s.launch(function, grid, block, args, shared, stream); });
}
SCGPU_CUDART_PTSZ(cudaLaunchKernel)

SCGPU_CUDART_API Error __cudaLaunchKernel(void* kernel, Dim3 grid, Dim3 block, void** args, std::size_t shared,
                                          void* stream) {
  return cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}
SCGPU_CUDART_PTSZ(__cudaLaunchKernel)

SCGPU_CUDART_API Error cudaLaunchCooperativeKernel(const void* function, Dim3 grid, Dim3 block, void** args,
                                                   std::size_t shared, void* stream) {
  return onDevice("cudaLaunchCooperativeKernel",
                  [&](State& s) { return s.launch(function, grid, block, args, shared, stream, true); });
}
SCGPU_CUDART_PTSZ(cudaLaunchCooperativeKernel)

SCGPU_CUDART_API Error cudaLaunchKernelExC(const abi::LaunchConfig* config, const void* function, void** args) {
  return onDevice("cudaLaunchKernelEx", [&](State& s) {
    if (!config) return s.fail(abi::kInvalidValue);
    bool cooperative = false;
    abi::Dim3 cluster{0, 0, 0};
    for (unsigned i = 0; i < config->numAttrs; ++i) {
      const abi::LaunchAttribute& a = config->attrs[i];
      switch (a.id) {
        case abi::kLaunchAttrIgnore: break;
        case abi::kLaunchAttrCooperative: cooperative = a.val.cooperative != 0; break;
        case abi::kLaunchAttrPriority: break;  // a scheduling hint between streams
        case abi::kLaunchAttrClusterDimension: {
          const auto& c = a.val.cluster_dim;
          cluster = abi::Dim3{c.x, c.y, c.z};
          break;
        }
        default:
          return s.fail(abi::kNotSupported,
                        fmt::format("cudaLaunchKernelEx: launch attribute {} is not supported by scgpu", int(a.id)));
      }
    }
    return s.launch(function, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                    cooperative, cluster);
  });
}
SCGPU_CUDART_PTSZ(cudaLaunchKernelExC)

// ---------------------------------------------------------------------------------------------
// Function attributes and occupancy

SCGPU_CUDART_API Error cudaFuncGetAttributes(abi::FuncAttributes* attr, const void* function) {
  return onDevice("cudaFuncGetAttributes", [&](State& s) { return s.funcAttributes(attr, function); });
}

SCGPU_CUDART_API Error cudaFuncSetAttribute(const void* function, int attr, int value) {
  return onDevice("cudaFuncSetAttribute", [&](State& s) { return s.funcSetAttribute(function, attr, value); });
}

// The L1/shared split is the config's (sm.*): a preference changes nothing, as on a GPU where the
// driver may ignore it.
SCGPU_CUDART_API Error cudaFuncSetCacheConfig(const void* function, int /*config*/) {
  return onDevice("cudaFuncSetCacheConfig", [&](State& s) {
    Error e = abi::kSuccess;
    return s.program(function, &e) ? abi::kSuccess : e;
  });
}

SCGPU_CUDART_API Error cudaFuncGetName(const char** name, const void* function) {
  return onDevice("cudaFuncGetName", [&](State& s) {
    if (!name) return s.fail(abi::kInvalidValue);
    Error e = abi::kSuccess;
    const scgpu::ptx::Program* prog = s.program(function, &e);
    if (!prog) return e;
    *name = prog->kernel_name.c_str();
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaFuncGetParamInfo(const void* function, std::size_t index, std::size_t* offset,
                                            std::size_t* bytes) {
  return onDevice("cudaFuncGetParamInfo", [&](State& s) {
    Error e = abi::kSuccess;
    const scgpu::ptx::Program* prog = s.program(function, &e);
    if (!prog) return e;
    if (index >= prog->params.size()) return s.fail(abi::kInvalidValue);
    if (offset) *offset = prog->params[index].offset;
    if (bytes) *bytes = prog->params[index].size;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* function, int block_size,
                                                                     std::size_t dynamic_shared) {
  return onDevice("cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                  [&](State& s) { return s.occupancy(blocks, function, block_size, dynamic_shared); });
}

SCGPU_CUDART_API Error cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* function,
                                                                              int block_size,
                                                                              std::size_t dynamic_shared,
                                                                              unsigned /*flags*/) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, block_size, dynamic_shared);
}

// The most dynamic shared memory a block may ask for with `blocks` such blocks resident on an SM.
SCGPU_CUDART_API Error cudaOccupancyAvailableDynamicSMemPerBlock(std::size_t* bytes, const void* function, int blocks,
                                                                 int block_size) {
  return onDevice("cudaOccupancyAvailableDynamicSMemPerBlock", [&](State& s) {
    if (!bytes || blocks <= 0 || block_size <= 0) return s.fail(abi::kInvalidValue);
    Error e = abi::kSuccess;
    const scgpu::ptx::Program* prog = s.program(function, &e);
    if (!prog) return e;
    const std::uint64_t optin = s.properties().shared_mem_per_block_optin;
    std::uint64_t lo = 0, hi = optin > prog->static_shared_bytes ? optin - prog->static_shared_bytes : 0;
    int fit = 0;
    if (const Error oe = s.occupancy(&fit, function, block_size, 0)) return oe;
    if (fit < blocks) {
      *bytes = 0;
      return abi::kSuccess;
    }
    // Occupancy falls as dynamic shared memory grows: the largest size that still fits `blocks`.
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (const Error oe = s.occupancy(&fit, function, block_size, mid)) return oe;
      if (fit >= blocks) lo = mid;
      else hi = mid - 1;
    }
    *bytes = lo;
    return abi::kSuccess;
  });
}
