#!/usr/bin/env bash
# One device call: the held-out kernels (validation/heldout/heldout.cu) under Nsight Compute with
# the caches flushed before each launch (sm__cycles_elapsed.max, as the suite's flushed data), and
# warm: 10 back-to-back launches of each under CUDA events. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -cudart shared -arch=sm_90 -o /tmp/heldout validation/heldout/heldout.cu || exit 1
nvidia-smi -q -d CLOCK > $OUT/clocks.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
/tmp/heldout warm 10 > $OUT/heldout_warm.txt 2>&1
ncu --cache-control all --clock-control none --metrics sm__cycles_elapsed.max,gpu__time_duration.sum --csv /tmp/heldout flushed > $OUT/heldout_ncu.csv 2>&1
nvcc -O3 -arch=sm_90 -cubin -o /tmp/heldout.cubin validation/heldout/heldout.cu && cuobjdump -sass /tmp/heldout.cubin > $OUT/heldout_sass.txt
cat $OUT/gpu.txt $OUT/heldout_warm.txt; grep -E "sm__cycles|gpu__time" $OUT/heldout_ncu.csv | head -40
