#!/usr/bin/env bash
# One device call: the cluster_histogram workload on the H100 at scale 16, flushed (ncu) and warm
# (CUDA events, 10 back-to-back launches), through scripts/validate_h100.sh. Output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
ONLY=cluster_histogram bash scripts/validate_h100.sh "$OUT/flushed" 16 > "$OUT/flushed.log" 2>&1
ONLY=cluster_histogram EVENT_REPEAT=10 bash scripts/validate_h100.sh "$OUT/warm" 16 > "$OUT/warm.log" 2>&1
cat "$OUT/flushed/h100.csv" "$OUT/warm/h100_warm.csv" 2>/dev/null
grep -E "PASS|FAIL|cluster" "$OUT/flushed/run.log" | tail -5
