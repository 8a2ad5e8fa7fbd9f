// The binary interface of CUDA 13's runtime library (libcudart.so.13), as a program compiled by
// nvcc calls it: the numeric values and struct layouts the program was compiled against. Written
// from the interface's published values (no CUDA header is needed to build scgpu); the layouts are
// pinned by static_asserts on sizes and offsets measured with nvcc 13.0's own headers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scgpu::cudart::abi {

// cudaError_t: the codes the model can produce.
enum Error : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kMemoryAllocation = 2,
  kInitializationError = 3,
  kInvalidConfiguration = 9,
  kInvalidPitchValue = 12,
  kInvalidTexture = 18,
  kInvalidChannelDescriptor = 20,
  kInvalidFilterSetting = 26,
  kInvalidNormSetting = 27,
  kInvalidSymbol = 13,
  kInvalidHostPointer = 16,
  kInvalidDevicePointer = 17,
  kInvalidMemcpyDirection = 21,
  kMissingConfiguration = 52,
  kInvalidDeviceFunction = 98,
  kNoDevice = 100,
  kInvalidDevice = 101,
  kInvalidKernelImage = 200,
  kNoKernelImageForDevice = 209,
  kInvalidPtx = 218,
  kInvalidResourceHandle = 400,
  kSymbolNotFound = 500,
  kNotReady = 600,
  kIllegalAddress = 700,
  kLaunchOutOfResources = 701,
  kLaunchTimeout = 702,
  kAssert = 710,
  kHostMemoryAlreadyRegistered = 712,
  kHostMemoryNotRegistered = 713,
  kIllegalInstruction = 715,
  kMisalignedAddress = 716,
  kLaunchFailure = 719,
  kCooperativeLaunchTooLarge = 720,
  kNotSupported = 801,
  kInvalidClusterSize = 912,
  kUnknown = 999,
};

struct Dim3 {
  unsigned x, y, z;
};

enum MemcpyKind : int { kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3, kDefault = 4 };

// The fat binary wrapper nvcc passes to __cudaRegisterFatBinary (`__fatDeviceText`).
struct FatbinWrapper {
  std::int32_t magic;    // kFatbinWrapperMagic
  std::int32_t version;  // 1: `data` is one fat binary; 2: linked (-rdc) binaries, not supported
  const std::uint64_t* data;
  const void* filename_or_fatbins;
};
constexpr std::int32_t kFatbinWrapperMagic = 0x466243b1;

struct Uuid {
  char bytes[16];
};

// cudaDeviceProp of CUDA 13 (clockRate and the other fields CUDA 13 removed are gone from it).
struct DeviceProp {
  char name[256];
  Uuid uuid;
  char luid[8];
  unsigned luidDeviceNodeMask;
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  std::size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  std::size_t totalConstMem;
  int major;
  int minor;
  std::size_t textureAlignment;
  std::size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  std::size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  std::size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  std::size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned gpuPciDeviceID;
  unsigned gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};

// cudaDeviceAttr values the model answers (cudaDeviceGetAttribute).
enum DeviceAttr : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxBlockDimX = 2,
  kAttrMaxBlockDimY = 3,
  kAttrMaxBlockDimZ = 4,
  kAttrMaxGridDimX = 5,
  kAttrMaxGridDimY = 6,
  kAttrMaxGridDimZ = 7,
  kAttrMaxSharedMemoryPerBlock = 8,
  kAttrTotalConstantMemory = 9,
  kAttrWarpSize = 10,
  kAttrMaxPitch = 11,
  kAttrMaxRegistersPerBlock = 12,
  kAttrClockRate = 13,
  kAttrTextureAlignment = 14,
  kAttrGpuOverlap = 15,
  kAttrMultiProcessorCount = 16,
  kAttrKernelExecTimeout = 17,
  kAttrIntegrated = 18,
  kAttrCanMapHostMemory = 19,
  kAttrComputeMode = 20,
  kAttrConcurrentKernels = 31,
  kAttrEccEnabled = 32,
  kAttrPciBusId = 33,
  kAttrPciDeviceId = 34,
  kAttrTccDriver = 35,
  kAttrMemoryClockRate = 36,
  kAttrGlobalMemoryBusWidth = 37,
  kAttrL2CacheSize = 38,
  kAttrMaxThreadsPerMultiProcessor = 39,
  kAttrAsyncEngineCount = 40,
  kAttrUnifiedAddressing = 41,
  kAttrPciDomainId = 50,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrStreamPrioritiesSupported = 78,
  kAttrGlobalL1CacheSupported = 79,
  kAttrLocalL1CacheSupported = 80,
  kAttrMaxSharedMemoryPerMultiprocessor = 81,
  kAttrMaxRegistersPerMultiprocessor = 82,
  kAttrManagedMemory = 83,
  kAttrIsMultiGpuBoard = 84,
  kAttrMultiGpuBoardGroupID = 85,
  kAttrHostNativeAtomicSupported = 86,
  kAttrSingleToDoublePrecisionPerfRatio = 87,
  kAttrPageableMemoryAccess = 88,
  kAttrConcurrentManagedAccess = 89,
  kAttrComputePreemptionSupported = 90,
  kAttrCanUseHostPointerForRegisteredMem = 91,
  kAttrCooperativeLaunch = 95,
  kAttrMaxSharedMemoryPerBlockOptin = 97,
  kAttrHostRegisterSupported = 99,
  kAttrMaxBlocksPerMultiprocessor = 106,
  kAttrMaxPersistingL2CacheSize = 108,
  kAttrMaxAccessPolicyWindowSize = 109,
  kAttrReservedSharedMemoryPerBlock = 111,
  kAttrMemoryPoolsSupported = 115,
  kAttrClusterLaunch = 120,
};

// cudaFuncAttributes.
struct FuncAttributes {
  std::size_t sharedSizeBytes;
  std::size_t constSizeBytes;
  std::size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

// cudaFuncAttribute (cudaFuncSetAttribute).
enum FuncAttribute : int {
  kFuncAttrMaxDynamicSharedMemorySize = 8,
  kFuncAttrPreferredSharedMemoryCarveout = 9,
  kFuncAttrClusterDimMustBeSet = 10,
  kFuncAttrRequiredClusterWidth = 11,
  kFuncAttrRequiredClusterHeight = 12,
  kFuncAttrRequiredClusterDepth = 13,
  kFuncAttrNonPortableClusterSizeAllowed = 14,
  kFuncAttrClusterSchedulingPolicyPreference = 15,
};

// cudaPointerAttributes and cudaMemoryType.
enum MemoryType : int { kMemoryUnregistered = 0, kMemoryHost = 1, kMemoryDevice = 2, kMemoryManaged = 3 };
struct PointerAttributes {
  MemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
  long reserved[8];
};

// cudaLaunchConfig_t and cudaLaunchAttribute (cudaLaunchKernelExC).
enum LaunchAttrId : int {
  kLaunchAttrIgnore = 0,
  kLaunchAttrCooperative = 2,
  kLaunchAttrClusterDimension = 4,
  kLaunchAttrPriority = 8,
};
struct LaunchAttribute {
  LaunchAttrId id;
  char pad[4];
  union {
    char bytes[64];
    int cooperative;
    struct {
      unsigned x, y, z;
    } cluster_dim;
    int priority;
  } val;
};
struct LaunchConfig {
  Dim3 gridDim;
  Dim3 blockDim;
  std::size_t dynamicSmemBytes;
  void* stream;
  LaunchAttribute* attrs;
  unsigned numAttrs;
};

// cudaLimit (cudaDeviceSetLimit / GetLimit).
enum Limit : int {
  kLimitStackSize = 0,
  kLimitPrintfFifoSize = 1,
  kLimitMallocHeapSize = 2,
  kLimitDevRuntimeSyncDepth = 3,
  kLimitDevRuntimePendingLaunchCount = 4,
  kLimitMaxL2FetchGranularity = 5,
  kLimitPersistingL2CacheSize = 6,
};

// The special stream handles: the legacy default stream and the per-thread default stream.
inline void* const kStreamLegacy = reinterpret_cast<void*>(0x1);
inline void* const kStreamPerThread = reinterpret_cast<void*>(0x2);

// Flags.
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr unsigned kHostAllocMapped = 0x2;
constexpr unsigned kMemAttachGlobal = 0x1;

// Measured with nvcc 13.0's headers (sizeof / offsetof of the CUDA structs).
// Arrays, textures and surfaces (cudart/api_texture.cpp).
struct ChannelFormatDesc {
  int x, y, z, w;  // bits per channel
  int f;           // cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float
};
enum ChannelFormatKind : int { kChannelSigned = 0, kChannelUnsigned = 1, kChannelFloat = 2 };
struct Extent {
  std::size_t width, height, depth;
};
struct Pos {
  std::size_t x, y, z;
};
struct PitchedPtr {
  void* ptr;
  std::size_t pitch, xsize, ysize;
};
struct Memcpy3DParms {
  void* srcArray;
  Pos srcPos;
  PitchedPtr srcPtr;
  void* dstArray;
  Pos dstPos;
  PitchedPtr dstPtr;
  Extent extent;
  MemcpyKind kind;
};
enum ArrayFlags : unsigned { kArrayLayered = 1, kArraySurfaceLoadStore = 2, kArrayCubemap = 4, kArrayTextureGather = 8 };
enum ResourceType : int { kResourceArray = 0, kResourceMipmappedArray = 1, kResourceLinear = 2, kResourcePitch2D = 3 };
struct ResourceDesc {
  ResourceType resType;
  union {
    struct { void* array; } array;
    struct { void* mipmap; } mipmap;
    struct { void* devPtr; ChannelFormatDesc desc; std::size_t sizeInBytes; } linear;
    struct { void* devPtr; ChannelFormatDesc desc; std::size_t width, height, pitchInBytes; } pitch2D;
    struct { int reserved[32]; } reserved;
  } res;
  unsigned flags;
};
struct TextureDesc {
  int addressMode[3];  // cudaTextureAddressMode: 0 wrap, 1 clamp, 2 mirror, 3 border
  int filterMode;      // 0 point, 1 linear
  int readMode;        // 0 element type, 1 normalized float
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

static_assert(sizeof(DeviceProp) == 1008, "cudaDeviceProp of CUDA 13");
static_assert(offsetof(DeviceProp, totalGlobalMem) == 288, "cudaDeviceProp of CUDA 13");
static_assert(offsetof(DeviceProp, multiProcessorCount) == 384, "cudaDeviceProp of CUDA 13");
static_assert(offsetof(DeviceProp, maxThreadsPerMultiProcessor) == 604, "cudaDeviceProp of CUDA 13");
static_assert(offsetof(DeviceProp, sharedMemPerBlockOptin) == 672, "cudaDeviceProp of CUDA 13");
static_assert(offsetof(DeviceProp, clusterLaunch) == 748, "cudaDeviceProp of CUDA 13");
static_assert(sizeof(FuncAttributes) == 144, "cudaFuncAttributes of CUDA 13");
static_assert(sizeof(PointerAttributes) == 88, "cudaPointerAttributes of CUDA 13");
static_assert(sizeof(LaunchAttribute) == 72, "cudaLaunchAttribute of CUDA 13");
static_assert(offsetof(LaunchConfig, attrs) == 40 && sizeof(LaunchConfig) == 56, "cudaLaunchConfig_t of CUDA 13");

static_assert(sizeof(ChannelFormatDesc) == 20, "cudaChannelFormatDesc of CUDA 13");
static_assert(sizeof(ResourceDesc) == 144, "cudaResourceDesc of CUDA 13");
static_assert(offsetof(ResourceDesc, res) == 8, "cudaResourceDesc of CUDA 13");
static_assert(offsetof(ResourceDesc, res.linear.sizeInBytes) == 40, "cudaResourceDesc of CUDA 13");
static_assert(offsetof(ResourceDesc, res.pitch2D.pitchInBytes) == 56, "cudaResourceDesc of CUDA 13");
static_assert(offsetof(ResourceDesc, flags) == 136, "cudaResourceDesc of CUDA 13");
static_assert(sizeof(TextureDesc) == 72, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(TextureDesc, borderColor) == 24, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(TextureDesc, normalizedCoords) == 40, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(TextureDesc, seamlessCubemap) == 68, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(TextureDesc, mipmapFilterMode) == 48, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(TextureDesc, mipmapLevelBias) == 52, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(TextureDesc, minMipmapLevelClamp) == 56, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(TextureDesc, maxMipmapLevelClamp) == 60, "cudaTextureDesc of CUDA 13");
static_assert(offsetof(ResourceDesc, res.mipmap.mipmap) == 8, "cudaResourceDesc of CUDA 13");
static_assert(sizeof(Memcpy3DParms) == 160, "cudaMemcpy3DParms of CUDA 13");
static_assert(offsetof(Memcpy3DParms, dstArray) == 64, "cudaMemcpy3DParms of CUDA 13");
static_assert(offsetof(Memcpy3DParms, extent) == 128, "cudaMemcpy3DParms of CUDA 13");
static_assert(offsetof(Memcpy3DParms, kind) == 152, "cudaMemcpy3DParms of CUDA 13");

}  // namespace scgpu::cudart::abi
