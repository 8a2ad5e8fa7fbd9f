#!/usr/bin/env bash
# One device call (issue 10): builds and runs the plain CUDA program cuda_programs/hgemm_tma_wgmma.cu,
# times the suite's TMA + wgmma GEMM at the suite's sizes and compute-bound ones
# (hgemm_tma_wgmma_timing.cu), cuBLAS's FP16 GEMM at the same sizes (cublas_hgemm.cu), and takes
# SM cycles from Nsight Compute for single launches (caches flushed, clocks not locked).
# Output in $OUT: hgemm_tma_wgmma_events.csv, cublas_hgemm.csv, ncu_hgemm_tma_wgmma.csv, program.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
nvcc -arch=sm_90a -cudart shared -o /tmp/prog cuda_programs/hgemm_tma_wgmma.cu || exit 1
(timeout 20 /tmp/prog 1; timeout 20 /tmp/prog 2; timeout 20 /tmp/prog 3) 2>&1 | tee $OUT/program.txt
nvcc -O2 -arch=sm_90a -cudart shared -I. scripts/h100/hgemm_tma_wgmma_timing.cu -o /tmp/hgt || exit 1
nvcc -O2 -arch=sm_90a -I. scripts/h100/cublas_hgemm.cu -lcublas -o /tmp/cublas_hgemm || echo "no cublas build"
timeout 120 /tmp/hgt | tee $OUT/hgemm_tma_wgmma_events.csv
[ -x /tmp/cublas_hgemm ] && timeout 60 /tmp/cublas_hgemm | tee $OUT/cublas_hgemm.csv
timeout 100 ncu --csv --cache-control all --clock-control none \
  --metrics gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__cycles_active.avg \
  -k hgemm_tma_wgmma /tmp/hgt once 256 256 512 512 512 1024 1024 1024 2048 2048 2048 4096 4096 4096 4096 \
  > $OUT/ncu_hgemm_tma_wgmma.csv 2> $OUT/ncu.err
tail -12 $OUT/ncu_hgemm_tma_wgmma.csv
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
