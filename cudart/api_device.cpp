// Device management: the one simulated device, its properties and attributes (from the config),
// limits, flags, versions and the error state.
#include <cstring>

#include "cudart/api_common.h"

using namespace scgpu::cudart;
using scgpu::cudart::abi::Error;

namespace {

// The CUDA version scgpu's runtime implements (CUDART_VERSION of CUDA 13.0), reported as both the
// runtime's and the driver's.
constexpr int kCudaVersion = 13000;
// Pitch and texture alignment of a Hopper-class device, in bytes.
constexpr std::size_t kTextureAlignmentBytes = 512;
constexpr std::size_t kTexturePitchAlignmentBytes = 32;
// Shared memory the system reserves per block on cc 8.0 and later (cudaDevAttrReservedSharedMemoryPerBlock).
constexpr std::size_t kReservedSharedBytes = 1024;

Error checkDevice(State& s, int device) { return device == 0 ? abi::kSuccess : s.fail(abi::kInvalidDevice); }

}  // namespace

SCGPU_CUDART_API Error cudaGetDeviceCount(int* count) {
  return guarded("cudaGetDeviceCount", [&](State& s) {
    if (!count) return s.fail(abi::kInvalidValue);
    const Error e = s.ensureDevice();
    *count = e == abi::kSuccess ? 1 : 0;
    return e;
  });
}

SCGPU_CUDART_API Error cudaGetDevice(int* device) {
  return onDevice("cudaGetDevice", [&](State& s) {
    if (!device) return s.fail(abi::kInvalidValue);
    *device = 0;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaSetDevice(int device) {
  return onDevice("cudaSetDevice", [&](State& s) { return checkDevice(s, device); });
}

SCGPU_CUDART_API Error cudaInitDevice(int device, unsigned /*device_flags*/, unsigned /*flags*/) {
  return onDevice("cudaInitDevice", [&](State& s) { return checkDevice(s, device); });
}

SCGPU_CUDART_API Error cudaChooseDevice(int* device, const void* /*properties*/) {
  return onDevice("cudaChooseDevice", [&](State& s) {
    if (!device) return s.fail(abi::kInvalidValue);
    *device = 0;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaSetDeviceFlags(unsigned flags) {
  return guarded("cudaSetDeviceFlags", [&](State& s) {
    s.device_flags = flags;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaGetDeviceFlags(unsigned* flags) {
  return onDevice("cudaGetDeviceFlags", [&](State& s) {
    if (!flags) return s.fail(abi::kInvalidValue);
    *flags = s.device_flags;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaGetDeviceProperties(abi::DeviceProp* prop, int device) {
  return onDevice("cudaGetDeviceProperties", [&](State& s) {
    if (!prop) return s.fail(abi::kInvalidValue);
    if (const Error e = checkDevice(s, device)) return e;
    const scgpu::driver::DeviceProperties& p = s.properties();
    std::memset(prop, 0, sizeof *prop);
    std::strncpy(prop->name, p.name.c_str(), sizeof prop->name - 1);
    std::memcpy(prop->uuid.bytes, "scgpu-simulated\0", 16);
    prop->totalGlobalMem = p.total_global_mem;
    prop->sharedMemPerBlock = p.shared_mem_per_block;
    prop->regsPerBlock = int(p.regs_per_block);
    prop->warpSize = p.warp_size;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = p.max_threads_per_block;
    for (int i = 0; i < 3; ++i) {
      prop->maxThreadsDim[i] = p.max_block_dim[i];
      prop->maxGridSize[i] = p.max_grid_dim[i];
    }
    prop->totalConstMem = p.total_const_mem;
    prop->major = p.major;
    prop->minor = p.minor;
    prop->textureAlignment = kTextureAlignmentBytes;
    prop->texturePitchAlignment = kTexturePitchAlignmentBytes;
    prop->multiProcessorCount = p.multiprocessor_count;
    prop->concurrentKernels = 1;
    prop->asyncEngineCount = 2;
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = p.memory_bus_width_bits;
    prop->l2CacheSize = int(p.l2_cache_bytes);
    prop->maxThreadsPerMultiProcessor = p.max_threads_per_multiprocessor;
    prop->globalL1CacheSupported = 1;
    prop->localL1CacheSupported = 1;
    prop->sharedMemPerMultiprocessor = p.shared_mem_per_multiprocessor;
    prop->regsPerMultiprocessor = int(p.regs_per_multiprocessor);
    prop->managedMemory = 1;
    prop->computePreemptionSupported = 0;
    prop->cooperativeLaunch = 1;
    prop->sharedMemPerBlockOptin = p.shared_mem_per_block_optin;
    prop->maxBlocksPerMultiProcessor = p.max_blocks_per_multiprocessor;
    prop->reservedSharedMemPerBlock = p.major >= 8 ? kReservedSharedBytes : 0;
    prop->hostRegisterSupported = 1;
    prop->clusterLaunch = 1;
    prop->deviceNumaId = -1;
    prop->hostNumaId = -1;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceGetAttribute(int* value, int attr, int device) {
  return onDevice("cudaDeviceGetAttribute", [&](State& s) {
    if (!value) return s.fail(abi::kInvalidValue);
    if (const Error e = checkDevice(s, device)) return e;
    const scgpu::driver::DeviceProperties& p = s.properties();
    switch (attr) {
      case abi::kAttrMaxThreadsPerBlock: *value = p.max_threads_per_block; break;
      case abi::kAttrMaxBlockDimX: *value = p.max_block_dim[0]; break;
      case abi::kAttrMaxBlockDimY: *value = p.max_block_dim[1]; break;
      case abi::kAttrMaxBlockDimZ: *value = p.max_block_dim[2]; break;
      case abi::kAttrMaxGridDimX: *value = p.max_grid_dim[0]; break;
      case abi::kAttrMaxGridDimY: *value = p.max_grid_dim[1]; break;
      case abi::kAttrMaxGridDimZ: *value = p.max_grid_dim[2]; break;
      case abi::kAttrMaxSharedMemoryPerBlock: *value = int(p.shared_mem_per_block); break;
      case abi::kAttrTotalConstantMemory: *value = int(p.total_const_mem); break;
      case abi::kAttrWarpSize: *value = p.warp_size; break;
      case abi::kAttrMaxPitch: *value = 2147483647; break;
      case abi::kAttrMaxRegistersPerBlock: *value = int(p.regs_per_block); break;
      case abi::kAttrClockRate: *value = p.clock_rate_khz; break;
      case abi::kAttrTextureAlignment: *value = int(kTextureAlignmentBytes); break;
      case abi::kAttrGpuOverlap: *value = 1; break;
      case abi::kAttrMultiProcessorCount: *value = p.multiprocessor_count; break;
      case abi::kAttrKernelExecTimeout: *value = 0; break;
      case abi::kAttrIntegrated: *value = 0; break;
      case abi::kAttrCanMapHostMemory: *value = 0; break;
      case abi::kAttrComputeMode: *value = 0; break;
      case abi::kAttrConcurrentKernels: *value = 1; break;
      case abi::kAttrEccEnabled: *value = 0; break;
      case abi::kAttrPciBusId: case abi::kAttrPciDeviceId: case abi::kAttrPciDomainId: *value = 0; break;
      case abi::kAttrTccDriver: *value = 0; break;
      case abi::kAttrMemoryClockRate: *value = p.memory_clock_rate_khz; break;
      case abi::kAttrGlobalMemoryBusWidth: *value = p.memory_bus_width_bits; break;
      case abi::kAttrL2CacheSize: *value = int(p.l2_cache_bytes); break;
      case abi::kAttrMaxThreadsPerMultiProcessor: *value = p.max_threads_per_multiprocessor; break;
      case abi::kAttrAsyncEngineCount: *value = 2; break;
      case abi::kAttrUnifiedAddressing: *value = 1; break;
      case abi::kAttrComputeCapabilityMajor: *value = p.major; break;
      case abi::kAttrComputeCapabilityMinor: *value = p.minor; break;
      case abi::kAttrStreamPrioritiesSupported: *value = 1; break;
      case abi::kAttrGlobalL1CacheSupported: case abi::kAttrLocalL1CacheSupported: *value = 1; break;
      case abi::kAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.shared_mem_per_multiprocessor); break;
      case abi::kAttrMaxRegistersPerMultiprocessor: *value = int(p.regs_per_multiprocessor); break;
      case abi::kAttrManagedMemory: *value = 1; break;
      case abi::kAttrIsMultiGpuBoard: case abi::kAttrMultiGpuBoardGroupID: *value = 0; break;
      case abi::kAttrHostNativeAtomicSupported: *value = 0; break;
      case abi::kAttrSingleToDoublePrecisionPerfRatio: *value = 2; break;
      case abi::kAttrPageableMemoryAccess: *value = 0; break;
      case abi::kAttrConcurrentManagedAccess: *value = 0; break;
      case abi::kAttrComputePreemptionSupported: *value = 0; break;
      case abi::kAttrCanUseHostPointerForRegisteredMem: *value = 0; break;
      case abi::kAttrCooperativeLaunch: *value = 1; break;
      case abi::kAttrMaxSharedMemoryPerBlockOptin: *value = int(p.shared_mem_per_block_optin); break;
      case abi::kAttrHostRegisterSupported: *value = 1; break;
      case abi::kAttrMaxBlocksPerMultiprocessor: *value = p.max_blocks_per_multiprocessor; break;
      case abi::kAttrMaxPersistingL2CacheSize: *value = 0; break;
      case abi::kAttrMaxAccessPolicyWindowSize: *value = 0; break;
      case abi::kAttrReservedSharedMemoryPerBlock: *value = p.major >= 8 ? int(kReservedSharedBytes) : 0; break;
      case abi::kAttrMemoryPoolsSupported: *value = 0; break;
      case abi::kAttrClusterLaunch: *value = 1; break;
      default:
        return s.fail(abi::kNotSupported,
                      fmt::format("cudaDeviceGetAttribute: attribute {} is not supported by scgpu's CUDA runtime", attr));
    }
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceGetPCIBusId(char* id, int length, int device) {
  return onDevice("cudaDeviceGetPCIBusId", [&](State& s) {
    if (!id || length <= 0) return s.fail(abi::kInvalidValue);
    if (const Error e = checkDevice(s, device)) return e;
    std::strncpy(id, "0000:00:00.0", std::size_t(length));
    id[length - 1] = '\0';
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  return onDevice("cudaDeviceCanAccessPeer", [&](State& s) {
    if (!can) return s.fail(abi::kInvalidValue);
    if (device != 0 || peer != 0) return s.fail(abi::kInvalidDevice);
    *can = 0;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceSynchronize() {
  return onDevice("cudaDeviceSynchronize", [&](State& s) { return s.deviceSynchronize(); });
}

SCGPU_CUDART_API Error cudaDeviceReset() {
  return guarded("cudaDeviceReset", [&](State& s) { return s.deviceReset(); });
}

// Stack and printf FIFO sizes are the config's (limits.stack_size_bytes,
// limits.printf_fifo_size_bytes); a program's setting is kept and read back.
SCGPU_CUDART_API Error cudaDeviceSetLimit(int limit, std::size_t value) {
  return onDevice("cudaDeviceSetLimit", [&](State& s) {
    if (limit < abi::kLimitStackSize || limit > abi::kLimitPersistingL2CacheSize) return s.fail(abi::kInvalidValue);
    s.limits[limit] = value;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceGetLimit(std::size_t* value, int limit) {
  return onDevice("cudaDeviceGetLimit", [&](State& s) {
    if (!value) return s.fail(abi::kInvalidValue);
    auto it = s.limits.find(limit);
    if (it != s.limits.end()) *value = it->second;
    else if (limit >= abi::kLimitStackSize && limit <= abi::kLimitPersistingL2CacheSize) *value = 0;
    else return s.fail(abi::kInvalidValue);
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceSetCacheConfig(int config) {
  return onDevice("cudaDeviceSetCacheConfig", [&](State& s) {
    s.cache_config = config;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceGetCacheConfig(int* config) {
  return onDevice("cudaDeviceGetCacheConfig", [&](State& s) {
    if (!config) return s.fail(abi::kInvalidValue);
    *config = s.cache_config;
    return abi::kSuccess;
  });
}

SCGPU_CUDART_API Error cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return abi::kSuccess;
}

SCGPU_CUDART_API Error cudaDriverGetVersion(int* version) {
  if (!version) return State::get().fail(abi::kInvalidValue);
  *version = kCudaVersion;
  return abi::kSuccess;
}

SCGPU_CUDART_API Error cudaRuntimeGetVersion(int* version) {
  if (!version) return State::get().fail(abi::kInvalidValue);
  *version = kCudaVersion;
  return abi::kSuccess;
}

SCGPU_CUDART_API Error cudaGetLastError() {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  return s.takeLastError();
}

SCGPU_CUDART_API Error cudaPeekAtLastError() {
  State& s = State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  return s.sticky() != abi::kSuccess ? s.sticky() : s.peekLastError();
}

// The profiler API: scgpu's statistics cover the whole run, so marking a region changes nothing.
SCGPU_CUDART_API Error cudaProfilerStart() { return abi::kSuccess; }
SCGPU_CUDART_API Error cudaProfilerStop() { return abi::kSuccess; }
