#!/usr/bin/env bash
# Regenerates the committed sm_90 PTX of the microbenchmarks (validation/micro/*.cu ->
# validation/micro/*.ptx) with nvcc (no GPU needed). NVCC=/path/to/nvcc overrides.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
[ -x "$NVCC" ] || { echo "gen_micro_ptx: nvcc not found at $NVCC" >&2; exit 1; }
for cu in "$root"/validation/micro/*.cu; do
  out="${cu%.cu}.ptx"
  "$NVCC" -ptx -O3 -lineinfo -arch=sm_90 "$cu" -o "$out.tmp"
  sed -i "s|\"$root/|\"|" "$out.tmp"  # repository-relative .file paths
  cmp -s "$out.tmp" "$out" && rm "$out.tmp" || mv "$out.tmp" "$out"
  echo "gen_micro_ptx: ${out#$root/}"
done
