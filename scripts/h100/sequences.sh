#!/usr/bin/env bash
# On the H100 (via `device`): the cost of PTX instructions that ptxas expands into sequences
# (sm_micro's *_tput/*_lat cases for division, reciprocal, square root and the non-ftz MUFU
# approximations), back-to-back launch gaps (launch_gap.cu), and the SASS of every suite kernel
# as ptxas compiles the committed PTX (what the model's issue order and sequence costs are
# compared with). Writes into $OUT (default ./out):
#   sm_micro_sequences.csv, launch_gap.csv, suite_sass.txt
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-./out}"
mkdir -p "$out"
work="$(mktemp -d)"
nvcc -O3 -arch=sm_90 "$root/scripts/h100/sm_micro.cu" -o "$work/sm_micro"
nvcc -O3 -arch=sm_90 "$root/scripts/h100/launch_gap.cu" -o "$work/launch_gap"
# The sequence cases, with the references they are read against (MUFU, FFMA, DFMA, launches).
{ head -1 "$root/validation/micro/sm_micro_cases.csv"
  grep -E '^(rsqrt|sqrt|fdiv|frcp|ex2|fdivfast|ddiv|dsqrt|drcp|drsqrt|mufu|ffma_lat|dfma_lat|dfma_tput|empty)' \
    "$root/validation/micro/sm_micro_cases.csv"; } > "$work/cases.csv"
"$work/sm_micro" "$work/cases.csv" > "$out/sm_micro_sequences.csv"
"$work/launch_gap" > "$out/launch_gap.csv"
for ptx in "$root"/kernels/ptx/sm_90/*.ptx; do
  name="$(basename "$ptx" .ptx)"
  if ptxas -arch=sm_90a -O3 "$ptx" -o "$work/$name.cubin" 2> "$work/err"; then
    echo "==== $name"
    cuobjdump -sass "$work/$name.cubin"
  else
    echo "==== $name: ptxas failed: $(head -3 "$work/err")"
  fi
done > "$out/suite_sass.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$out/sm_micro_sequences.csv"
