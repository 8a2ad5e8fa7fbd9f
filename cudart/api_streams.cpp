// Streams, events and host callbacks. The simulated device runs while the host waits on it, so a
// query (cudaStreamQuery, cudaEventQuery) waits for the work and then reports it complete.
#include "cudart/api_common.h"

using namespace scgpu::cudart;
using scgpu::cudart::abi::Error;

namespace {
using HostFn = void (*)(void*);
using StreamCallback = void (*)(void* stream, Error status, void* user_data);
}  // namespace

SCGPU_CUDART_API Error cudaStreamCreate(void** stream) {
  return onDevice("cudaStreamCreate", [&](State& s) { return s.streamCreate(stream, 0, 0); });
}

SCGPU_CUDART_API Error cudaStreamCreateWithFlags(void** stream, unsigned flags) {
  return onDevice("cudaStreamCreateWithFlags", [&](State& s) { return s.streamCreate(stream, flags, 0); });
}

SCGPU_CUDART_API Error cudaStreamCreateWithPriority(void** stream, unsigned flags, int priority) {
  return onDevice("cudaStreamCreateWithPriority", [&](State& s) { return s.streamCreate(stream, flags, priority); });
}

SCGPU_CUDART_API Error cudaStreamDestroy(void* stream) {
  return onDevice("cudaStreamDestroy", [&](State& s) { return s.streamDestroy(stream); });
}

SCGPU_CUDART_API Error cudaStreamSynchronize(void* stream) {
  return onDevice("cudaStreamSynchronize", [&](State& s) { return s.streamSynchronize(stream); });
}
SCGPU_CUDART_PTSZ(cudaStreamSynchronize)

SCGPU_CUDART_API Error cudaStreamQuery(void* stream) {
  return onDevice("cudaStreamQuery", [&](State& s) { return s.streamSynchronize(stream); });
}
SCGPU_CUDART_PTSZ(cudaStreamQuery)

SCGPU_CUDART_API Error cudaStreamWaitEvent(void* stream, void* event, unsigned /*flags*/) {
  return onDevice("cudaStreamWaitEvent", [&](State& s) { return s.streamWaitEvent(stream, event); });
}
SCGPU_CUDART_PTSZ(cudaStreamWaitEvent)

SCGPU_CUDART_API Error cudaStreamGetFlags(void* stream, unsigned* flags) {
  return onDevice("cudaStreamGetFlags", [&](State& s) {
    if (!flags) return s.fail(abi::kInvalidValue);
    return s.streamInfo(stream, flags, nullptr, nullptr);
  });
}
SCGPU_CUDART_PTSZ(cudaStreamGetFlags)

SCGPU_CUDART_API Error cudaStreamGetPriority(void* stream, int* priority) {
  return onDevice("cudaStreamGetPriority", [&](State& s) {
    if (!priority) return s.fail(abi::kInvalidValue);
    return s.streamInfo(stream, nullptr, priority, nullptr);
  });
}
SCGPU_CUDART_PTSZ(cudaStreamGetPriority)

SCGPU_CUDART_API Error cudaStreamGetId(void* stream, unsigned long long* id) {
  return onDevice("cudaStreamGetId", [&](State& s) {
    if (!id) return s.fail(abi::kInvalidValue);
    return s.streamInfo(stream, nullptr, nullptr, id);
  });
}
SCGPU_CUDART_PTSZ(cudaStreamGetId)

SCGPU_CUDART_API Error cudaStreamGetDevice(void* stream, int* device) {
  return onDevice("cudaStreamGetDevice", [&](State& s) {
    if (!device) return s.fail(abi::kInvalidValue);
    if (!s.validStream(stream)) return s.fail(abi::kInvalidResourceHandle);
    *device = 0;
    return abi::kSuccess;
  });
}
SCGPU_CUDART_PTSZ(cudaStreamGetDevice)

// No stream is ever being captured into a graph (graphs are not supported).
SCGPU_CUDART_API Error cudaStreamIsCapturing(void* stream, int* status) {
  return onDevice("cudaStreamIsCapturing", [&](State& s) {
    if (!status) return s.fail(abi::kInvalidValue);
    if (!s.validStream(stream)) return s.fail(abi::kInvalidResourceHandle);
    *status = 0;  // cudaStreamCaptureStatusNone
    return abi::kSuccess;
  });
}
SCGPU_CUDART_PTSZ(cudaStreamIsCapturing)

// A host function runs once the stream's earlier work is done: the host waits for it, then calls
// the function, which orders it before the stream's later work as CUDA does.
SCGPU_CUDART_API Error cudaLaunchHostFunc(void* stream, HostFn fn, void* user_data) {
  return onDevice("cudaLaunchHostFunc", [&](State& s) {
    if (!fn) return s.fail(abi::kInvalidValue);
    if (const Error e = s.streamSynchronize(stream)) return e;
    fn(user_data);
    return abi::kSuccess;
  });
}
SCGPU_CUDART_PTSZ(cudaLaunchHostFunc)

SCGPU_CUDART_API Error cudaStreamAddCallback(void* stream, StreamCallback callback, void* user_data,
                                             unsigned flags) {
  return onDevice("cudaStreamAddCallback", [&](State& s) {
    if (!callback || flags != 0) return s.fail(abi::kInvalidValue);
    const Error e = s.streamSynchronize(stream);
    callback(stream, e, user_data);
    return abi::kSuccess;
  });
}
SCGPU_CUDART_PTSZ(cudaStreamAddCallback)

SCGPU_CUDART_API Error cudaEventCreate(void** event) {
  return onDevice("cudaEventCreate", [&](State& s) { return s.eventCreate(event, 0); });
}

SCGPU_CUDART_API Error cudaEventCreateWithFlags(void** event, unsigned flags) {
  return onDevice("cudaEventCreateWithFlags", [&](State& s) { return s.eventCreate(event, flags); });
}

SCGPU_CUDART_API Error cudaEventDestroy(void* event) {
  return onDevice("cudaEventDestroy", [&](State& s) { return s.eventDestroy(event); });
}

SCGPU_CUDART_API Error cudaEventRecord(void* event, void* stream) {
  return onDevice("cudaEventRecord", [&](State& s) { return s.eventRecord(event, stream); });
}
SCGPU_CUDART_PTSZ(cudaEventRecord)

SCGPU_CUDART_API Error cudaEventRecordWithFlags(void* event, void* stream, unsigned /*flags*/) {
  return cudaEventRecord(event, stream);
}
SCGPU_CUDART_PTSZ(cudaEventRecordWithFlags)

SCGPU_CUDART_API Error cudaEventSynchronize(void* event) {
  return onDevice("cudaEventSynchronize", [&](State& s) { return s.eventSynchronize(event); });
}

SCGPU_CUDART_API Error cudaEventQuery(void* event) {
  return onDevice("cudaEventQuery", [&](State& s) { return s.eventQuery(event); });
}

// In the model's time: the simulated nanoseconds between the two events.
SCGPU_CUDART_API Error cudaEventElapsedTime(float* ms, void* start, void* end) {
  return onDevice("cudaEventElapsedTime", [&](State& s) { return s.eventElapsed(ms, start, end); });
}
