// cudaGetErrorName and cudaGetErrorString: every cudaError_t of CUDA 13 by name (the values are
// the ABI's), and what it means in scgpu's words (for the codes the model raises; the others read
// as their name in words).
#include <cctype>
#include <map>
#include <string>

#include "cudart/api_common.h"

namespace {

const std::map<int, const char*>& errorTable() {
  static const std::map<int, const char*> table = {
      {0, "cudaSuccess"},
      {1, "cudaErrorInvalidValue"},
      {2, "cudaErrorMemoryAllocation"},
      {3, "cudaErrorInitializationError"},
      {4, "cudaErrorCudartUnloading"},
      {5, "cudaErrorProfilerDisabled"},
      {6, "cudaErrorProfilerNotInitialized"},
      {7, "cudaErrorProfilerAlreadyStarted"},
      {8, "cudaErrorProfilerAlreadyStopped"},
      {9, "cudaErrorInvalidConfiguration"},
      {12, "cudaErrorInvalidPitchValue"},
      {13, "cudaErrorInvalidSymbol"},
      {16, "cudaErrorInvalidHostPointer"},
      {17, "cudaErrorInvalidDevicePointer"},
      {18, "cudaErrorInvalidTexture"},
      {19, "cudaErrorInvalidTextureBinding"},
      {20, "cudaErrorInvalidChannelDescriptor"},
      {21, "cudaErrorInvalidMemcpyDirection"},
      {22, "cudaErrorAddressOfConstant"},
      {23, "cudaErrorTextureFetchFailed"},
      {24, "cudaErrorTextureNotBound"},
      {25, "cudaErrorSynchronizationError"},
      {26, "cudaErrorInvalidFilterSetting"},
      {27, "cudaErrorInvalidNormSetting"},
      {28, "cudaErrorMixedDeviceExecution"},
      {31, "cudaErrorNotYetImplemented"},
      {32, "cudaErrorMemoryValueTooLarge"},
      {34, "cudaErrorStubLibrary"},
      {35, "cudaErrorInsufficientDriver"},
      {36, "cudaErrorCallRequiresNewerDriver"},
      {37, "cudaErrorInvalidSurface"},
      {43, "cudaErrorDuplicateVariableName"},
      {44, "cudaErrorDuplicateTextureName"},
      {45, "cudaErrorDuplicateSurfaceName"},
      {46, "cudaErrorDevicesUnavailable"},
      {49, "cudaErrorIncompatibleDriverContext"},
      {52, "cudaErrorMissingConfiguration"},
      {53, "cudaErrorPriorLaunchFailure"},
      {65, "cudaErrorLaunchMaxDepthExceeded"},
      {66, "cudaErrorLaunchFileScopedTex"},
      {67, "cudaErrorLaunchFileScopedSurf"},
      {68, "cudaErrorSyncDepthExceeded"},
      {69, "cudaErrorLaunchPendingCountExceeded"},
      {98, "cudaErrorInvalidDeviceFunction"},
      {100, "cudaErrorNoDevice"},
      {101, "cudaErrorInvalidDevice"},
      {102, "cudaErrorDeviceNotLicensed"},
      {103, "cudaErrorSoftwareValidityNotEstablished"},
      {127, "cudaErrorStartupFailure"},
      {200, "cudaErrorInvalidKernelImage"},
      {201, "cudaErrorDeviceUninitialized"},
      {205, "cudaErrorMapBufferObjectFailed"},
      {206, "cudaErrorUnmapBufferObjectFailed"},
      {207, "cudaErrorArrayIsMapped"},
      {208, "cudaErrorAlreadyMapped"},
      {209, "cudaErrorNoKernelImageForDevice"},
      {210, "cudaErrorAlreadyAcquired"},
      {211, "cudaErrorNotMapped"},
      {212, "cudaErrorNotMappedAsArray"},
      {213, "cudaErrorNotMappedAsPointer"},
      {214, "cudaErrorECCUncorrectable"},
      {215, "cudaErrorUnsupportedLimit"},
      {216, "cudaErrorDeviceAlreadyInUse"},
      {217, "cudaErrorPeerAccessUnsupported"},
      {218, "cudaErrorInvalidPtx"},
      {219, "cudaErrorInvalidGraphicsContext"},
      {220, "cudaErrorNvlinkUncorrectable"},
      {221, "cudaErrorJitCompilerNotFound"},
      {222, "cudaErrorUnsupportedPtxVersion"},
      {223, "cudaErrorJitCompilationDisabled"},
      {224, "cudaErrorUnsupportedExecAffinity"},
      {225, "cudaErrorUnsupportedDevSideSync"},
      {226, "cudaErrorContained"},
      {300, "cudaErrorInvalidSource"},
      {301, "cudaErrorFileNotFound"},
      {302, "cudaErrorSharedObjectSymbolNotFound"},
      {303, "cudaErrorSharedObjectInitFailed"},
      {304, "cudaErrorOperatingSystem"},
      {400, "cudaErrorInvalidResourceHandle"},
      {401, "cudaErrorIllegalState"},
      {402, "cudaErrorLossyQuery"},
      {500, "cudaErrorSymbolNotFound"},
      {600, "cudaErrorNotReady"},
      {700, "cudaErrorIllegalAddress"},
      {701, "cudaErrorLaunchOutOfResources"},
      {702, "cudaErrorLaunchTimeout"},
      {703, "cudaErrorLaunchIncompatibleTexturing"},
      {704, "cudaErrorPeerAccessAlreadyEnabled"},
      {705, "cudaErrorPeerAccessNotEnabled"},
      {708, "cudaErrorSetOnActiveProcess"},
      {709, "cudaErrorContextIsDestroyed"},
      {710, "cudaErrorAssert"},
      {711, "cudaErrorTooManyPeers"},
      {712, "cudaErrorHostMemoryAlreadyRegistered"},
      {713, "cudaErrorHostMemoryNotRegistered"},
      {714, "cudaErrorHardwareStackError"},
      {715, "cudaErrorIllegalInstruction"},
      {716, "cudaErrorMisalignedAddress"},
      {717, "cudaErrorInvalidAddressSpace"},
      {718, "cudaErrorInvalidPc"},
      {719, "cudaErrorLaunchFailure"},
      {720, "cudaErrorCooperativeLaunchTooLarge"},
      {721, "cudaErrorTensorMemoryLeak"},
      {800, "cudaErrorNotPermitted"},
      {801, "cudaErrorNotSupported"},
      {802, "cudaErrorSystemNotReady"},
      {803, "cudaErrorSystemDriverMismatch"},
      {804, "cudaErrorCompatNotSupportedOnDevice"},
      {805, "cudaErrorMpsConnectionFailed"},
      {806, "cudaErrorMpsRpcFailure"},
      {807, "cudaErrorMpsServerNotReady"},
      {808, "cudaErrorMpsMaxClientsReached"},
      {809, "cudaErrorMpsMaxConnectionsReached"},
      {810, "cudaErrorMpsClientTerminated"},
      {811, "cudaErrorCdpNotSupported"},
      {812, "cudaErrorCdpVersionMismatch"},
      {900, "cudaErrorStreamCaptureUnsupported"},
      {901, "cudaErrorStreamCaptureInvalidated"},
      {902, "cudaErrorStreamCaptureMerge"},
      {903, "cudaErrorStreamCaptureUnmatched"},
      {904, "cudaErrorStreamCaptureUnjoined"},
      {905, "cudaErrorStreamCaptureIsolation"},
      {906, "cudaErrorStreamCaptureImplicit"},
      {907, "cudaErrorCapturedEvent"},
      {908, "cudaErrorStreamCaptureWrongThread"},
      {909, "cudaErrorTimeout"},
      {910, "cudaErrorGraphExecUpdateFailure"},
      {911, "cudaErrorExternalDevice"},
      {912, "cudaErrorInvalidClusterSize"},
      {913, "cudaErrorFunctionNotLoaded"},
      {914, "cudaErrorInvalidResourceType"},
      {915, "cudaErrorInvalidResourceConfiguration"},
      {999, "cudaErrorUnknown"},
  };
  return table;
}

// What the codes scgpu raises mean, said for a user of the model.
const std::map<int, const char*>& scgpuTexts() {
  static const std::map<int, const char*> texts = {
      {0, "no error"},
      {1, "an argument is out of range or null"},
      {2, "out of device memory (the config's global_size_bytes) or host memory"},
      {3, "the simulated device could not be initialised"},
      {9, "the launch's grid or block dimensions, or its shared memory, are invalid for the device"},
      {13, "the symbol is not a device variable of the program"},
      {17, "the pointer is not device memory the program allocated"},
      {21, "the copy direction does not match the pointers"},
      {52, "a kernel launch without a configuration"},
      {98, "the function is not a kernel of the program"},
      {100, "no simulated device: the config did not load (see the message above)"},
      {101, "the device ordinal is not 0 (scgpu models one device)"},
      {200, "the program's fat binary is malformed"},
      {209, "the program's fat binary holds no PTX the configured device can run"},
      {218, "the program's PTX does not load (see the message above)"},
      {400, "the stream or event handle is invalid"},
      {600, "the work has not completed"},
      {700, "a kernel accessed an illegal address (scgpu's fault report names the thread and PC)"},
      {701, "the kernel's blocks do not fit on an SM (registers or shared memory)"},
      {702, "a kernel ran past its cycle or instruction budget or stopped making progress"},
      {710, "a device-side assert failed"},
      {712, "the host memory is already registered"},
      {713, "the host memory is not registered"},
      {715, "a kernel executed an illegal instruction"},
      {716, "a kernel accessed a misaligned address"},
      {719, "a kernel failed (trap, barrier that can never complete, or another device fault)"},
      {720, "the cooperative grid is larger than the blocks that fit on the device at once"},
      {801, "the call or feature is not supported by scgpu's CUDA runtime (see the message above)"},
      {999, "an unexpected error in the simulator (see the message above)"},
  };
  return texts;
}

// "cudaErrorInvalidTextureBinding" -> "invalid texture binding".
std::string inWords(const std::string& name) {
  const std::string stem = name.rfind("cudaError", 0) == 0 ? name.substr(9) : name;
  std::string out;
  for (std::size_t i = 0; i < stem.size(); ++i) {
    const char c = stem[i];
    const bool upper = std::isupper(static_cast<unsigned char>(c));
    if (upper && i > 0 && !(std::isupper(static_cast<unsigned char>(stem[i - 1])) &&
                            (i + 1 == stem.size() || std::isupper(static_cast<unsigned char>(stem[i + 1])))))
      out += ' ';
    out += upper && !(i + 1 < stem.size() && std::isupper(static_cast<unsigned char>(stem[i + 1])))
               ? char(std::tolower(static_cast<unsigned char>(c)))
               : c;
  }
  return out;
}

}  // namespace

SCGPU_CUDART_API const char* cudaGetErrorName(int error) {
  const auto& table = errorTable();
  auto it = table.find(error);
  return it == table.end() ? "cudaErrorUnknown" : it->second;
}

SCGPU_CUDART_API const char* cudaGetErrorString(int error) {
  static std::map<int, std::string> worded;  // built once per code; the pointers stay valid
  const auto& texts = scgpuTexts();
  if (auto t = texts.find(error); t != texts.end()) return t->second;
  const auto& table = errorTable();
  auto it = table.find(error);
  if (it == table.end()) return "unrecognized error code";
  scgpu::cudart::State& s = scgpu::cudart::State::get();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  auto [w, added] = worded.emplace(error, std::string());
  if (added) w->second = inWords(it->second);
  return w->second.c_str();
}
