#!/usr/bin/env bash
# Cost of the RTL blocks: each workload in timing mode with every block in `model`, `rtl` and
# `cosim` mode, one `scgpu` process each; prints the host seconds of the launches (the stats'
# wall_seconds, so setup and reference checks are excluded) and the slowdown against `model`.
# Arguments: --config NAME (default tiny), --scale N (default 4), --key KEY (repeatable: switch only
# these blocks' impl keys, default every block), then workload names (default: saxpy transpose
# sgemm_tiled). SCGPU_BUILD_DIR picks the build directory.
#   bench/rtl_cost.sh --config hopper --scale 2 transpose
#   bench/rtl_cost.sh --key dram.impl saxpy
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SCGPU_BUILD_DIR:-$root/build}"
config=tiny
scale=4
workloads=()
keys=(sm.coalescer.impl sm.scheduler.impl crossbar.impl dram.impl)  # every block with an RTL version
keys+=(l2.impl)  # L2 tag/MSHR stage
only=()
while (($#)); do
  case "$1" in
    --config) config="$2"; shift 2 ;;
    --scale) scale="$2"; shift 2 ;;
    --key) only+=("$2"); shift 2 ;;
    *) workloads+=("$1"); shift ;;
  esac
done
((${#workloads[@]})) || workloads=(saxpy transpose sgemm_tiled)
((${#only[@]} == 0)) || keys=("${only[@]}")
cmake --build "$build" --target scgpu > /dev/null
scgpu="$build/scgpu"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-14s %10s %10s %10s %10s %10s\n' workload "model s" "rtl s" "cosim s" "rtl x" "cosim x"
for w in "${workloads[@]}"; do
  for impl in model rtl cosim; do
    sets=()
    for k in "${keys[@]}"; do sets+=(--set "$k=$impl"); done
    "$scgpu" run "$w" --config "$config" --scale "$scale" --quiet --stats-json "$tmp/$impl.json" "${sets[@]}" \
      > /dev/null 2>&1 || { echo "$w: $impl run failed"; exit 1; }
  done
  python3 - "$tmp" "$w" <<'PY'
import json, sys
tmp, name = sys.argv[1], sys.argv[2]
t = {i: json.load(open(f"{tmp}/{i}.json"))["totals"]["wall_seconds"] for i in ("model", "rtl", "cosim")}
print(f"{name:<14} {t['model']:10.3f} {t['rtl']:10.3f} {t['cosim']:10.3f} {t['rtl']/t['model']:9.2f}x {t['cosim']/t['model']:9.2f}x")
PY
done
