#!/usr/bin/env bash
# One device call: scripts/h100/l2_reread.cu under Nsight Compute, the caches as the launches before
# left them (application replay). Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=sm_90 scripts/h100/l2_reread.cu -o /tmp/l2_reread || exit 1
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct
ncu --csv --replay-mode application --cache-control none --clock-control none --metrics $M /tmp/l2_reread > $OUT/ncu_reread.csv 2>$OUT/ncu.err
tail -2 $OUT/ncu.err
