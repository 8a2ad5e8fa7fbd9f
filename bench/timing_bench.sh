#!/usr/bin/env bash
# Speed of the timing model: runs suite workloads in timing mode, one `scgpu` process each (one
# SystemC design per process), and prints per workload the warp instructions, simulated core
# cycles, host seconds, KIPS (thousands of warp instructions per host second), simulated cycles
# per second and peak memory. Arguments: --config NAME (default tiny), --scale N (default 1),
# then workload names (default: the whole suite). SCGPU_BUILD_DIR picks the build directory.
#   bench/timing_bench.sh --config hopper saxpy sgemm_tiled
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SCGPU_BUILD_DIR:-$root/build}"
config=tiny
scale=1
workloads=()
while (($#)); do
  case "$1" in
    --config) config="$2"; shift 2 ;;
    --scale) scale="$2"; shift 2 ;;
    *) workloads+=("$1"); shift ;;
  esac
done
cmake --build "$build" --target scgpu > /dev/null
scgpu="$build/scgpu"
if ((${#workloads[@]} == 0)); then
  mapfile -t workloads < <("$scgpu" list | awk '$2 ~ /^sm_/ {print $1}')
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-16s %12s %12s %9s %9s %12s %9s  %s\n' workload "warp instr" cycles "host s" KIPS "cycles/s" "peak MB" verdict
total_w=0; total_s=0
for w in "${workloads[@]}"; do
  /usr/bin/env time -f '%M' -o "$tmp/mem" "$scgpu" run "$w" --mode timing --config "$config" --scale "$scale" \
    --quiet --stats-json "$tmp/$w.json" > /dev/null 2>&1 && verdict=PASSED || verdict="FAILED($?)"
  python3 - "$tmp/$w.json" "$w" "$verdict" "$(cat "$tmp/mem")" <<'PY'
import json, sys
path, name, verdict, mem_kb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
try:
    j = json.load(open(path))
except Exception:
    print(f"{name:<16} {'-':>12} {'-':>12} {'-':>9} {'-':>9} {'-':>12} {mem_kb/1024:9.1f}  {verdict}")
    sys.exit(0)
ls = j["launches"]
w = sum(l["warp_instructions"] for l in ls)
c = sum(l.get("core_cycles", 0) for l in ls)
s = sum(l["wall_seconds"] for l in ls)
print(f"{name:<16} {w:>12,} {c:>12,} {s:>9.3f} {w/s/1e3 if s else 0:>9.1f} {c/s if s else 0:>12,.0f} {mem_kb/1024:>9.1f}  {verdict}")
PY
done
