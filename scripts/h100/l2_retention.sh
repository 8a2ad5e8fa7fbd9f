#!/usr/bin/env bash
# One device call: scripts/h100/l2_retention.cu under Nsight Compute in both modes. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv,noheader | tee $OUT/gpu.txt
nvcc -O3 -arch=sm_90 scripts/h100/l2_retention.cu -o /tmp/l2_retention || exit 1
M=gpu__time_duration.sum,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct
ncu --csv --cache-control all --clock-control none --metrics $M /tmp/l2_retention flushed > $OUT/ncu_flushed.csv 2>$OUT/ncu_flushed.err
ncu --csv --replay-mode application --cache-control none --clock-control none --metrics $M /tmp/l2_retention pairs > $OUT/ncu_pairs.csv 2>$OUT/ncu_pairs.err
ls -la $OUT; tail -3 $OUT/ncu_flushed.err $OUT/ncu_pairs.err
