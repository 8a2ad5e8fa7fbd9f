#!/usr/bin/env bash
# One device call: the TMA microbenchmarks (scripts/h100/tma_probe.cu: box layouts, latency, streams)
# and their SASS. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee $OUT/gpu.txt
cd scripts/h100
nvcc -O3 -arch=sm_90 -std=c++17 tma_probe.cu -o /tmp/tma_probe || exit 1
/tmp/tma_probe > $OUT/h100_tma_probe.txt 2> $OUT/stderr.txt
echo "exit $?" >> $OUT/stderr.txt
cuobjdump -sass /tmp/tma_probe | grep -E "UTMALDG|UBLKCP|SYNCS|Function" > $OUT/sass_tma.txt
grep -v "^[0-9a-f]\{8\} " $OUT/h100_tma_probe.txt | grep -v "^case" | head -40
ls -la $OUT
