#!/usr/bin/env bash
# One device call: Nsight Compute's sections (warp states, memory, instructions) for the held-out
# kernels (validation/heldout/heldout.cu), caches flushed before each launch. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -cudart shared -arch=sm_90 -o /tmp/heldout validation/heldout/heldout.cu || exit 1
ncu --cache-control all --clock-control none --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis --section InstructionStats \
    --section LaunchStats --section Occupancy --section SpeedOfLight \
    --metrics l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__sectors_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
    --csv --page details /tmp/heldout flushed > $OUT/heldout_ncu_sections.csv 2>&1
grep -E "Stall|Hit Rate|Executed Ipc|Issue Slots|Warp Cycles Per|inst_executed|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers|Registers Per" $OUT/heldout_ncu_sections.csv | cut -d, -f5,13-16 | head -300
