#!/usr/bin/env bash
# One device call: the SM microbenchmark table (scripts/h100/sm_micro.cu), SASS of the memory kernels, and
# Nsight Compute memory counters of the scatter / atomic cases and of the suite transposes. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
cd scripts/h100
nvcc -O3 -arch=sm_90 sm_micro.cu -o /tmp/sm_micro || exit 1
nvcc -O3 -arch=sm_90 transpose_probe.cu -o /tmp/tprobe || exit 1
cd ../..
/tmp/sm_micro validation/micro/sm_micro_cases.csv | tee $OUT/h100_sm_micro.csv
cuobjdump -sass /tmp/sm_micro > /tmp/sass.txt; for f in global_atomic local_mem scatter call_chain; do awk "/Function : $f\$/,/\.\.\.\.\.\.\.\.\.\./" /tmp/sass.txt; done > $OUT/sass.txt
cuobjdump -sass /tmp/tprobe | grep -E "Function|STG|LDG|RED|ATOM" > $OUT/sass_transpose.txt
head -1 validation/micro/sm_micro_cases.csv > /tmp/ncu_cases.csv
grep -E "^(scatter|global_atomic_hist|global_atomic_same_int,|global_atomic_distinct,|local_mem|st_global)" validation/micro/sm_micro_cases.csv >> /tmp/ncu_cases.csv
M=gpu__time_duration.sum,sm__cycles_elapsed.max,lts__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_red.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_red.sum,lts__t_sector_op_write_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
ncu --csv --cache-control all --clock-control none --metrics $M /tmp/tprobe > $OUT/ncu_transpose.csv 2>$OUT/ncu_transpose.err
ncu --csv --cache-control all --clock-control none --metrics $M -k regex:'scatter|global_atomic|local_mem|st_global' /tmp/sm_micro /tmp/ncu_cases.csv > $OUT/ncu_micro.csv 2>$OUT/ncu_micro.err
/tmp/tprobe | tee $OUT/transpose_events.txt
ls -la $OUT
