#!/usr/bin/env bash
# One device call: scripts/h100/warm_traffic.cu timed with events, then under Nsight Compute with
# the caches left as the launches before left them (--cache-control none, application replay), and
# with them flushed before each launch (--cache-control all). Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv,noheader | tee $OUT/gpu.txt
nvcc -O3 -arch=sm_90 scripts/h100/warm_traffic.cu -o /tmp/warm_traffic || exit 1
/tmp/warm_traffic | tee $OUT/events.txt
M=gpu__time_duration.sum,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sector_op_write_hit_rate.pct
ncu --csv --replay-mode application --cache-control none --clock-control none --metrics $M /tmp/warm_traffic > $OUT/ncu_warm.csv 2>$OUT/ncu_warm.err
ncu --csv --cache-control all --clock-control none --metrics $M /tmp/warm_traffic > $OUT/ncu_flushed.csv 2>$OUT/ncu_flushed.err
ls -la $OUT; tail -3 $OUT/ncu_warm.err $OUT/ncu_flushed.err
