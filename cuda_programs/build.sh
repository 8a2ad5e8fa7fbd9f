#!/usr/bin/env bash
# Builds the plain CUDA programs of cuda_programs/ into cuda_programs/bin/<name>, each with
#   nvcc -cudart shared [-arch=sm_90] -o bin/<name> <name>.cu
# (nvcc's default flags otherwise; -cudart shared so that a drop-in libcudart.so can run them).
# Usage: build.sh [name ...]   (default: every program). Runs from any directory.
# NVCC=/path/to/nvcc overrides the compiler (default /usr/local/cuda/bin/nvcc). Needs no GPU.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"

# Every workload of kernels/cuda/ (faults.cu is not one), in the suite's order.
all=(vector_add saxpy reduce_tree reduce_shuffle reduce_atomic dot_f64 histogram transpose sgemm_tiled
     dgemm_tiled scan_block stencil2d conv_const mandelbrot int_hash spmv_csr bfs bitonic_sort nbody
     vote_match f16_math printf recursion fp8_convert hgemm_tensor tma_transpose hgemm_wgmma hgemm_tma_wgmma texture_filter
     runtime_api fault_oob texture_api tma_im2col texture_mip)  # the last five: api/, beyond the workloads
# Built for sm_90 (nvcc's default arch, sm_75 in CUDA 13, is too old or not what the suite runs):
#   hgemm_tensor: mma.sync m16n8k16, ldmatrix and cp.async need sm_80 (does not compile for sm_75);
#   fp8_convert:  cvt to e4m3x2/e5m2x2 is an sm_89 instruction (cuda_fp8.h falls back to software);
#   vote_match:   __reduce_add_sync under __CUDA_ARCH__ >= 800 (a shuffle sum otherwise);
#   tma_transpose, tma_im2col: cp.async.bulk.tensor and mbarrier transactions are sm_90 instructions.
sm90=(hgemm_tensor fp8_convert vote_match tma_transpose tma_im2col)
#   hgemm_wgmma, hgemm_tma_wgmma: wgmma exists on sm_90a only (sm_90a SASS + compute_90a PTX).
sm90a=(hgemm_wgmma hgemm_tma_wgmma)

[ -x "$NVCC" ] || { echo "build.sh: nvcc not found at $NVCC (set NVCC=...)" >&2; exit 1; }

names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")

cd "$here"
mkdir -p bin
for name in "${names[@]}"; do
  src="$name.cu"
  [ -f "$src" ] || src="api/$name.cu"
  [ -f "$src" ] || { echo "build.sh: no program $name ($here/$name.cu or api/$name.cu)" >&2; exit 1; }
  arch=()
  for s in "${sm90[@]}"; do
    [ "$s" = "$name" ] && arch=(-arch=sm_90)
  done
  for s in "${sm90a[@]}"; do
    [ "$s" = "$name" ] && arch=(-arch=sm_90a)
  done
  echo "build.sh: $NVCC -cudart shared ${arch[*]:+${arch[*]} }-o bin/$name $src"
  "$NVCC" -cudart shared "${arch[@]}" -o "bin/$name" "$src"
done
