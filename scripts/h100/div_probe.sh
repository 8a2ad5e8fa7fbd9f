#!/usr/bin/env bash
# One device call: the integer-division cases of validation/micro/sm_micro_cases.csv (udiv*, urem*:
# division and remainder by a run-time divisor, 32 and 64 bits) and their SASS. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee $OUT/gpu.txt
(head -1 validation/micro/sm_micro_cases.csv; grep -E '^u(div|rem)' validation/micro/sm_micro_cases.csv) > /tmp/div_cases.csv
nvcc -O3 -arch=sm_90 scripts/h100/sm_micro.cu -o /tmp/sm_micro || exit 1
/tmp/sm_micro /tmp/div_cases.csv | tee $OUT/h100_div_micro.csv
cuobjdump -sass /tmp/sm_micro | awk '/Function : u(div|rem)(64)?_lat/,/EXIT/' > $OUT/sass_div.txt
wc -l $OUT/sass_div.txt
