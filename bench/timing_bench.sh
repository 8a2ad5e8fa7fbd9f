#!/usr/bin/env bash
# Speed of the timing model: runs suite workloads in timing mode, one `scgpu` process each (one
# SystemC design per process), at each host thread count asked for, and prints one table: per
# workload and thread count the warp instructions, simulated core cycles, host seconds, KIPS
# (thousands of warp instructions per host second), simulated cycles per second, peak memory,
# the speed-up over one thread, and the KIPS as a ratio to the committed previous results of the
# same config, scale and thread count (bench/results/timing_<config>_scale<N>.tsv, when it
# exists). Arguments: --config NAME (default tiny), --scale N (default 1), --threads LIST
# (default "1 2"), --save (write this run's results to that file, to commit as the new
# reference), then workload names (default: the whole suite). SCGPU_BUILD_DIR picks the build
# directory.
#   bench/timing_bench.sh --config hopper --scale 8 --threads "1 2" saxpy sgemm_tiled
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SCGPU_BUILD_DIR:-$root/build}"
config=tiny
scale=1
save=0
threads="1 2"
workloads=()
while (($#)); do
  case "$1" in
    --config) config="$2"; shift 2 ;;
    --scale) scale="$2"; shift 2 ;;
    --save) save=1; shift ;;
    --threads) threads="$2"; shift 2 ;;
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
reference="$root/bench/results/timing_${config}_scale${scale}.tsv"
[ -f "$reference" ] || reference=/dev/null
printf '%-16s %3s %12s %12s %9s %9s %12s %9s %8s %8s  %s\n' workload thr "warp instr" cycles "host s" KIPS "cycles/s" \
  "peak MB" "vs 1 thr" "vs ref" verdict
for w in "${workloads[@]}"; do
  for t in $threads; do
    /usr/bin/env time -f '%M' -o "$tmp/mem" "$scgpu" run "$w" --mode timing --config "$config" --scale "$scale" \
      --threads "$t" --quiet --stats-json "$tmp/$w.$t.json" > /dev/null 2>&1 && verdict=PASSED || verdict="FAILED($?)"
    python3 - "$tmp/$w.$t.json" "$w" "$t" "$verdict" "$(cat "$tmp/mem")" "$reference" "$tmp/results.tsv" <<'PY'
import json, sys
path, name, threads, verdict, mem_kb, reference, out = sys.argv[1:8]
mem_kb = int(mem_kb)
# The reference: (workload, threads) -> KIPS, from a previous run saved with --save. Files from
# before the thread column are one thread's.
ref = {}
for line in open(reference):
    f = line.rstrip("\n").split("\t")
    if f[0] == "workload" or len(f) < 5:
        continue
    if len(f) >= 8:
        ref[(f[0], f[1])] = float(f[5])
    else:
        ref[(f[0], "1")] = float(f[4])
try:
    j = json.load(open(path))
except Exception:
    print(f"{name:<16} {threads:>3} {'-':>12} {'-':>12} {'-':>9} {'-':>9} {'-':>12} {mem_kb/1024:9.1f} {'-':>8} {'-':>8}  {verdict}")
    sys.exit(0)
ls = j["launches"]
w = sum(l["warp_instructions"] for l in ls)
c = sum(l.get("core_cycles", 0) for l in ls)
s = sum(l["wall_seconds"] for l in ls)
kips = w / s / 1e3 if s else 0
# This run's one-thread KIPS, when it measured one thread before this count.
one = None
try:
    for line in open(out):
        f = line.rstrip("\n").split("\t")
        if f[0] == name and f[1] == "1":
            one = float(f[5])
except FileNotFoundError:
    pass
speedup = f"{kips / one:.2f}x" if one else "-"
ratio = f"{kips / ref[(name, threads)]:.2f}x" if ref.get((name, threads)) else "-"
print(f"{name:<16} {threads:>3} {w:>12,} {c:>12,} {s:>9.3f} {kips:>9.1f} {c/s if s else 0:>12,.0f} {mem_kb/1024:>9.1f} "
      f"{speedup:>8} {ratio:>8}  {verdict}")
with open(out, "a") as f:
    f.write(f"{name}\t{threads}\t{w}\t{c}\t{s:.3f}\t{kips:.1f}\t{c/s if s else 0:.0f}\t{mem_kb/1024:.1f}\n")
PY
  done
done
if ((save)); then
  mkdir -p "$root/bench/results"
  { printf 'workload\tthreads\twarp_instructions\tcycles\thost_s\tkips\tcycles_per_s\tpeak_mb\n'; cat "$tmp/results.tsv"; } \
    > "$root/bench/results/timing_${config}_scale${scale}.tsv"
  echo "saved bench/results/timing_${config}_scale${scale}.tsv"
fi
