#!/usr/bin/env bash
# One device call: scripts/h100/nbody_lat.cu (the held-out nbody_naive loop, one warp, variants)
# plus its SASS. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=sm_90 -o /tmp/nbody_lat scripts/h100/nbody_lat.cu || exit 1
/tmp/nbody_lat > $OUT/h200_nbody_lat.csv
cuobjdump -sass /tmp/nbody_lat > $OUT/nbody_lat_sass.txt
cat $OUT/h200_nbody_lat.csv
