#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
g++ --version | head -1
g++ -std=c++17 -O1 -ffp-contract=off -include stdexcept -I. -I/usr/local/cuda/include -DSCGPU_SOURCE_DIR="\"$PWD\"" \
  kernels/.gpucheck/shim.cpp kernels/workload.cpp kernels/host/*.cpp -ldl -o /tmp/gpucheck || exit 1
export SCGPU_KERNELS_DIR=$PWD/kernels/ptx
/tmp/gpucheck 1 3
/tmp/gpucheck 2 1
/tmp/gpucheck 3 1 | tail -1
for k in oob_store misaligned_load trap_kernel assert_kernel; do /tmp/gpucheck fault $k; done
timeout -s KILL 20 /tmp/gpucheck fault barrier_deadlock; echo "barrier_deadlock rc=$?"
