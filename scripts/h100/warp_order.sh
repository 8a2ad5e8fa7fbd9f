#!/usr/bin/env bash
# One device call: the warp finish order probe (validation/micro/warp_order.cu) and its SASS.
# Output in $OUT: h100_warp_order.csv, sass_warp_order.txt, gpu.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee $OUT/gpu.txt
nvcc -O3 -arch=sm_90 scripts/h100/warp_order.cu -o /tmp/warp_order || exit 1
/tmp/warp_order > $OUT/h100_warp_order.csv
cuobjdump -sass /tmp/warp_order | awk '/Function : warp_finish/,/EXIT/' > $OUT/sass_warp_order.txt
wc -l $OUT/*
