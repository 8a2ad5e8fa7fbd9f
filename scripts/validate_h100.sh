#!/usr/bin/env bash
# Validate scgpu's timing model against real silicon: run every suite workload (sm_90 PTX,
# scale SCALE (default 1), seed 1) on a real NVIDIA GPU under Nsight Compute and write one CSV row
# per launch.
#
# The same host programs (kernels/host/*.cpp) run on the GPU through a shim that implements the
# scgpu runtime API (driver/runtime.h) on the CUDA driver API; the shim is embedded below, so the
# script needs only the repository and a machine with a GPU, g++, the CUDA headers and ncu.
#
# Usage: scripts/validate_h100.sh [OUT_DIR] [SCALE]   (OUT_DIR default: $OUT, else ./validate_out)
#   SCALE (second argument, else the SCALE environment variable, else 1) is passed to every workload
#   as kernels::WorkloadOptions::scale. SCALE_OVERRIDES="name=scale ..." sets it per workload (e.g.
#   "dgemm_tiled=4"), SKIP="name ..." leaves workloads out, ONLY="name ..." runs just those, and NCU_TIMEOUT (default 150 s) bounds
#   each workload's ncu run. The scale of each workload is in h100.csv's last column.
#   EVENT_REPEAT=N adds the warm condition: each workload runs again without the profiler, and
#   every launch is followed by N back-to-back launches of it timed with CUDA events (mean per
#   launch in OUT_DIR/h100_warm.csv), as a user times a kernel with warm caches.
# Writes: OUT_DIR/h100.csv   workload,kernel,grid,block,gpu_ns,sm_cycles,warp_instructions,sm_clock_hz
#         (plus a scale column)
#         OUT_DIR/clocks.txt nvidia-smi -q -d CLOCK (before and after), GPU name and driver
#         OUT_DIR/ncu_raw.csv the raw ncu CSV of every workload, concatenated
#         OUT_DIR/run.log    build and run log (PASS/FAIL of each workload's own check)
# Clocks: ncu runs with --clock-control none, so the GPU runs at its normal (boost) clock, as the
# hopper preset assumes (1980 MHz); the measured SM clock of each launch is in sm_clock_hz.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUTDIR=${1:-${OUT:-$ROOT/validate_out}}
SCALE=${2:-${SCALE:-1}}
SCALE_OVERRIDES=${SCALE_OVERRIDES:-}
SKIP=${SKIP:-}
ONLY=${ONLY:-}
NCU_TIMEOUT=${NCU_TIMEOUT:-150}
case $SCALE in ''|*[!0-9]*|0) echo "SCALE must be a positive integer, got '$SCALE'" >&2; exit 2;; esac
# The scale of workload $1: its entry in SCALE_OVERRIDES, else SCALE.
scale_of() {
  local kv
  for kv in $SCALE_OVERRIDES; do
    [ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return; }
  done
  echo "$SCALE"
}
mkdir -p "$OUTDIR"
[ "${EVENT_REPEAT:-0}" -gt 0 ] && echo "workload,scale,kernel,grid,block,repeat,warm_ns" >"$OUTDIR/h100_warm.csv"
WORK=$(mktemp -d /tmp/scgpu_validate.XXXXXX)
LOG=$OUTDIR/run.log
: >"$LOG"
log() { echo "$@" | tee -a "$LOG"; }

NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)}
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
log "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader)"
log "g++: $(g++ --version | head -1)"
log "scale: $SCALE${SCALE_OVERRIDES:+ (overrides: $SCALE_OVERRIDES)}${SKIP:+ (skipped: $SKIP)}"
log "ncu: $NCU $($NCU --version 2>/dev/null | tail -1)"
{ echo "### before"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi -q -d CLOCK; } >"$OUTDIR/clocks.txt"

# ---- the shim: driver::Runtime over the CUDA driver API (from the earlier silicon check) ----
cat >"$WORK/shim.cpp" <<'EOF'
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
FN(cuModuleGetGlobal_v2) FN(cuLaunchKernel) FN(cuLaunchKernelEx) FN(cuCtxSynchronize) FN(cuGetErrorName)
FN(cuEventCreate) FN(cuEventRecord) FN(cuEventSynchronize) FN(cuEventElapsedTime) FN(cuEventDestroy_v2)

static void loadCuda() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) throw std::runtime_error("no libcuda");
#define L(name) p_##name = (decltype(p_##name))dlsym(h, #name);
  L(cuInit) L(cuDeviceGet) L(cuDevicePrimaryCtxRetain) L(cuCtxSetCurrent) L(cuMemAlloc_v2) L(cuMemFree_v2)
  L(cuMemcpyHtoD_v2) L(cuMemcpyDtoH_v2) L(cuMemcpyDtoD_v2) L(cuMemsetD8_v2) L(cuModuleLoadDataEx) L(cuModuleGetFunction)
  L(cuModuleGetGlobal_v2) L(cuLaunchKernel) L(cuLaunchKernelEx) L(cuCtxSynchronize) L(cuGetErrorName)
  L(cuEventCreate) L(cuEventRecord) L(cuEventSynchronize) L(cuEventDestroy_v2)
  p_cuEventElapsedTime = (decltype(p_cuEventElapsedTime))dlsym(h, "cuEventElapsedTime_v2");
  if (!p_cuEventElapsedTime) p_cuEventElapsedTime = (decltype(p_cuEventElapsedTime))dlsym(h, "cuEventElapsedTime");
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
void Runtime::memcpyDtoD(DevicePtr d, DevicePtr s, std::size_t n) { if (n) check(p_cuMemcpyDtoD_v2(d, s, n), "dtod"); }
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
Error Runtime::launch(Function& fn, Dim3 grid, Dim3 block, std::size_t smem, const KernelArgs& args, Dim3 cluster) {
  std::vector<void*> params;
  for (const auto& a : args.args()) params.push_back(const_cast<std::uint8_t*>(a.bytes.data()));
  // Thread-block clusters through cuLaunchKernelEx's cluster-dimension attribute.
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = cluster.x;
  attr.value.clusterDim.y = cluster.y;
  attr.value.clusterDim.z = cluster.z;
  CUlaunchConfig cfg{};
  cfg.gridDimX = grid.x; cfg.gridDimY = grid.y; cfg.gridDimZ = grid.z;
  cfg.blockDimX = block.x; cfg.blockDimY = block.y; cfg.blockDimZ = block.z;
  cfg.sharedMemBytes = unsigned(smem);
  cfg.attrs = &attr;
  cfg.numAttrs = cluster.x || cluster.y || cluster.z ? 1 : 0;
  auto launchOnce = [&] {
    return cfg.numAttrs ? p_cuLaunchKernelEx(&cfg, fn.fn, params.data(), nullptr)
                        : p_cuLaunchKernel(fn.fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, unsigned(smem),
                                           nullptr, params.data(), nullptr);
  };
  static const std::string printf_file = std::string(std::getenv("SCGPU_SHIM_TMP") ? std::getenv("SCGPU_SHIM_TMP") : "/tmp") + "/printf.txt";
  std::fflush(stdout);
  int saved = dup(1);
  int fd = open(printf_file.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  dup2(fd, 1);
  CUresult r = launchOnce();
  if (r == CUDA_SUCCESS) r = p_cuCtxSynchronize();
  // Warm timing (SCGPU_EVENT_REPEAT=N): the launch above warmed the caches; N more launches of it
  // run back to back between two CUDA events, as a user times a kernel, and their mean goes to
  // SCGPU_EVENT_LOG. (Kernels that accumulate then see their data change: timing only.)
  static const int event_repeat = std::getenv("SCGPU_EVENT_REPEAT") ? std::atoi(std::getenv("SCGPU_EVENT_REPEAT")) : 0;
  if (r == CUDA_SUCCESS && event_repeat > 0) {
    CUevent e0, e1;
    check(p_cuEventCreate(&e0, 0), "event");
    check(p_cuEventCreate(&e1, 0), "event");
    p_cuEventRecord(e0, nullptr);
    for (int i = 0; i < event_repeat && r == CUDA_SUCCESS; ++i)
      r = launchOnce();
    p_cuEventRecord(e1, nullptr);
    if (r == CUDA_SUCCESS) r = p_cuEventSynchronize(e1);
    float ms = 0;
    if (r == CUDA_SUCCESS) p_cuEventElapsedTime(&ms, e0, e1);
    p_cuEventDestroy_v2(e0);
    p_cuEventDestroy_v2(e1);
    if (const char* log = std::getenv("SCGPU_EVENT_LOG")) {
      if (FILE* f = std::fopen(log, "a")) {
        std::fprintf(f, "%s,%u:%u:%u,%u:%u:%u,%d,%.1f\n", fn.name.c_str(), grid.x, grid.y, grid.z, block.x, block.y, block.z,
                     event_repeat, double(ms) * 1e6 / event_repeat);
        std::fclose(f);
      }
    }
  }
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  std::ifstream f(printf_file);
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
// gpurun list           : the workload names
// gpurun NAME [SCALE]   : run one workload (sm_90 PTX, seed 1) and print PASS/FAIL
int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "list") {
    for (const auto& w : kernels::allWorkloads()) std::printf("%s\n", w.name.c_str());
    return 0;
  }
  if (argc < 2) { std::fprintf(stderr, "usage: gpurun list | NAME [SCALE]\n"); return 2; }
  const kernels::Workload* w = kernels::findWorkload(argv[1]);
  if (!w) { std::fprintf(stderr, "no workload %s\n", argv[1]); return 2; }
  kernels::WorkloadOptions opt;
  opt.scale = argc > 2 ? std::atoi(argv[2]) : 1;
  opt.seed = 1;
  opt.arch = "sm_90";
  driver::Runtime rt;
  auto t0 = std::chrono::steady_clock::now();
  kernels::WorkloadResult r;
  try {
    r = w->run(rt, opt);
  } catch (const std::exception& ex) {
    r = {false, std::string("exception: ") + ex.what(), driver::Error::Success};
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-4s %-15s sm_90 x%d %7.1f ms  %s\n", r.passed ? "PASS" : "FAIL", w->name.c_str(), opt.scale, ms, r.message.c_str());
  return r.passed ? 0 : 1;
}
EOF

# driver/runtime.h includes <nlohmann/json.hpp> for one declaration; if the machine lacks it, a
# forward declaration is enough for the shim (it never calls statistics()).
STUB_INC=
if ! echo '#include <nlohmann/json.hpp>' | g++ -std=c++17 -E -x c++ - >/dev/null 2>&1; then
  mkdir -p "$WORK/stub/nlohmann"
  printf '#pragma once\nnamespace nlohmann { class json; }\n' >"$WORK/stub/nlohmann/json.hpp"
  STUB_INC="-I$WORK/stub"
  log "nlohmann/json.hpp not found: using a forward-declaration stub"
fi

log "building the runner..."
# One object per source, in parallel.
objs=()
for src in "$WORK/shim.cpp" kernels/workload.cpp kernels/host/*.cpp; do
  o="$WORK/obj_$(basename "$src" .cpp).o"
  objs+=("$o")
  g++ -std=c++17 -O1 -ffp-contract=off -include stdexcept -I. $STUB_INC -I"$CUDA_INC" -DSCGPU_SOURCE_DIR="\"$ROOT\"" \
    -c "$src" -o "$o" >>"$LOG" 2>&1 &
done
wait
g++ "${objs[@]}" -ldl -o "$WORK/gpurun" >>"$LOG" 2>&1 || { log "build failed"; exit 1; }
export SCGPU_KERNELS_DIR=$ROOT/kernels/ptx SCGPU_SHIM_TMP=$WORK

METRICS=gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second
: >"$OUTDIR/ncu_raw.csv"
for w in $("$WORK/gpurun" list); do
  case " $SKIP " in *" $w "*) log "--- $w: skipped"; continue;; esac
  if [ -n "$ONLY" ]; then case " $ONLY " in *" $w "*) ;; *) continue;; esac; fi
  s=$(scale_of "$w")
  log "--- $w (scale $s)"
  # Plain run first: the workload's own check on silicon, no profiler.
  "$WORK/gpurun" "$w" "$s" >>"$LOG" 2>&1 || log "WARNING: $w failed its check on the GPU"
  timeout "$NCU_TIMEOUT" "$NCU" --metrics "$METRICS" --csv --print-units base --clock-control none --cache-control all \
    "$WORK/gpurun" "$w" "$s" >"$WORK/ncu_$w.txt" 2>>"$LOG" || log "WARNING: ncu on $w exited with $?"
  grep -v '^==' "$WORK/ncu_$w.txt" | grep '^"' | sed "s/^/\"$w\",\"$s\",/" >>"$OUTDIR/ncu_raw.csv"
  grep -E '^(PASS|FAIL)' "$WORK/ncu_$w.txt" | tee -a "$LOG"
  # Warm condition (EVENT_REPEAT=N): every launch again N times back to back under CUDA events,
  # no profiler; one row per launch: workload,scale,kernel,grid,block,repeat,mean ns.
  if [ "${EVENT_REPEAT:-0}" -gt 0 ]; then
    : >"$WORK/events_$w.txt"
    SCGPU_EVENT_REPEAT=$EVENT_REPEAT SCGPU_EVENT_LOG="$WORK/events_$w.txt" "$WORK/gpurun" "$w" "$s" >>"$LOG" 2>&1
    sed "s/^/$w,$s,/" "$WORK/events_$w.txt" >>"$OUTDIR/h100_warm.csv"
  fi
done

python3 - "$OUTDIR/ncu_raw.csv" "$OUTDIR/h100.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
launches = {}   # (workload, ID) -> dict
order = []
for r in rows:
    w, scale, rest = r[0], r[1], r[2:]
    if rest and rest[0] == "ID":
        header = rest
        continue
    d = dict(zip(header, rest))
    key = (w, int(d["ID"]))
    if key not in launches:
        launches[key] = {"workload": w, "kernel": d["Kernel Name"],
                         "grid": d["Grid Size"].strip("()").replace(" ", ""),
                         "block": d["Block Size"].strip("()").replace(" ", ""), "scale": scale}
        order.append(key)
    launches[key][d["Metric Name"]] = d["Metric Value"].replace(",", "")
with open(sys.argv[2], "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["workload", "kernel", "grid", "block", "gpu_ns", "sm_cycles", "warp_instructions", "sm_clock_hz",
                  "scale"])
    for k in order:
        d = launches[k]
        out.writerow([d["workload"], d["kernel"], d["grid"], d["block"], d.get("gpu__time_duration.sum", ""),
                      d.get("sm__cycles_elapsed.max", ""), d.get("smsp__inst_executed.sum", ""),
                      d.get("sm__cycles_elapsed.avg.per_second", ""), d["scale"]])
print(f"{len(order)} launches -> {sys.argv[2]}")
EOF
{ echo "### after"; nvidia-smi -q -d CLOCK; } >>"$OUTDIR/clocks.txt"
rm -rf "$WORK"
log "done: $OUTDIR/h100.csv"
