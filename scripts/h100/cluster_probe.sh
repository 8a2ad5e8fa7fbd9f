#!/usr/bin/env bash
# One device call: the cluster microbenchmarks (scripts/h100/cluster_micro.cu) and their SASS. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee $OUT/gpu.txt
cd scripts/h100
nvcc -O3 -arch=sm_90 cluster_micro.cu -o /tmp/cluster_micro || exit 1
cd ../..
/tmp/cluster_micro validation/micro/cluster_micro_cases.csv | tee $OUT/h100_cluster_micro.csv
cuobjdump -sass /tmp/cluster_micro > $OUT/sass_cluster.txt
ls -la $OUT
