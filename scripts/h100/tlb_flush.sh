#!/usr/bin/env bash
# One device call: scripts/h100/tlb_flush.cu plain and under Nsight Compute's cache flush, the
# SASS of the cluster microbenchmarks (validation/micro/cluster_micro.cu), and the sm_micro cases
# named in $CASES (default: the Mandelbrot loop's). Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
CASES=${CASES:-mandel_}
nvcc -O3 -arch=sm_90 scripts/h100/tlb_flush.cu -o /tmp/tlb_flush || exit 1
nvidia-smi -q -d CLOCK > $OUT/clocks.txt
/tmp/tlb_flush plain > $OUT/tlb_flush_plain.csv
ncu --cache-control all --clock-control none --metrics gpu__time_duration.sum /tmp/tlb_flush ncu > $OUT/tlb_flush_ncu.txt 2>&1
ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum /tmp/tlb_flush ncu > $OUT/tlb_flush_ncu_none.txt 2>&1
nvcc -O3 -arch=sm_90 -cubin -o /tmp/cm.cubin validation/micro/cluster_micro.cu && cuobjdump -sass /tmp/cm.cubin > $OUT/cluster_micro_sass.txt
nvcc -O3 -arch=sm_90 scripts/h100/sm_micro.cu -o /tmp/sm_micro || exit 1
(head -1 validation/micro/sm_micro_cases.csv; grep -E "^($CASES)" validation/micro/sm_micro_cases.csv) > /tmp/cases.csv
/tmp/sm_micro /tmp/cases.csv > $OUT/sm_micro.csv
nvcc -O3 -arch=sm_90 -cubin -o /tmp/smm.cubin validation/micro/sm_micro.cu && cuobjdump -sass -fun mandel_loop /tmp/smm.cubin > $OUT/mandel_loop_sass.txt
cat $OUT/tlb_flush_plain.csv; grep -E "^[a-z_0-9]+,[a-z],|^#" $OUT/tlb_flush_ncu.txt $OUT/tlb_flush_ncu_none.txt; cat $OUT/sm_micro.csv
