#!/usr/bin/env bash
# Verilator line and toggle coverage of every RTL block, from its block testbench
# (testbench/rtl_*_test.cpp) run against the blocks' `--coverage` builds (rtl/CMakeLists.txt:
# scgpu_verilate builds one per product build; testbench/CMakeLists.txt: rtl_coverage_tests).
# Builds rtl_coverage_tests (incrementally), runs each block's tests, merges the counts of all its
# builds (every parameter set) with verilator_coverage, prints a table and fails when a block's
# line coverage is below the minimum (90 %) or its tests fail. ctest runs it as `rtl_coverage`.
#
# Usage: scripts/rtl_coverage.sh [BUILD_DIR] [BLOCK ...]      (default: build/, every block below)
# Output: BUILD_DIR/rtl_coverage/<block>.dat (merged counts) and <block>/annotated/<block>.sv
# (the source with each line's count; lines marked %000000 were never reached).
# Environment: SCGPU_RTL_COVERAGE_MIN (default 90), SCGPU_RTL_TB_CYCLES (RTL cycles per
# testbench case; the testbenches' default is a million).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
[ $# -gt 0 ] && shift

# One line per block: the block (rtl/<block>.sv) and the GoogleTest filter that selects its tests.
block_table=(
  "lsu_coalescer       RtlCoalescer*"
  "warp_sched_arbiter  Policies/RtlWarpScheduler*:RtlWarpSchedulerParams*"
  "xbar_arbiter        Networks/RtlXbarArbiter*:RtlXbarArbiterParams*"
  "l2_tag_mshr         Slices/RtlL2Tag*:RtlL2TagReplacement*:RtlL2TagCosim*"
  "dram_cmd_sched      Channels/RtlDramSched*:RtlDramSchedCosim*"
)
min_line="${SCGPU_RTL_COVERAGE_MIN:-90}"
out="$build/rtl_coverage"

cmake --build "$build" --target rtl_coverage_tests -j "$(nproc)" > "$build/rtl_coverage_build.log" 2>&1 || {
  tail -30 "$build/rtl_coverage_build.log" >&2
  echo "rtl_coverage: building rtl_coverage_tests failed" >&2
  exit 1
}
exe="$build/testbench/rtl_coverage_tests"

declare -A filter_of=()
order=()
for row in "${block_table[@]}"; do
  read -r b f <<<"$row"
  filter_of[$b]="$f"
  order+=("$b")
done
[ $# -gt 0 ] && order=("$@")

mkdir -p "$out"
failed=0
results=()
for block in "${order[@]}"; do
  [ -n "${filter_of[$block]:-}" ] || { echo "rtl_coverage: unknown block '$block'" >&2; exit 2; }
  rm -rf "${out:?}/$block" "$out/$block.dat"
  mkdir -p "$out/$block/raw"
  start=$SECONDS
  # One process per test, as ctest runs them (SystemC elaborates one timing-mode design per process).
  tests=()
  while IFS= read -r t; do tests+=("$t"); done < <("$exe" --gtest_list_tests --gtest_filter="${filter_of[$block]}" |
    awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}')
  for t in "${tests[@]}"; do
    if ! SCGPU_RTL_COVERAGE_DIR="$out/$block/raw" "$exe" --gtest_filter="$t" >> "$out/$block/tests.log" 2>&1; then
      echo "rtl_coverage: $block: test $t failed (see $out/$block/tests.log)" >&2
      failed=1
    fi
  done
  shopt -s nullglob
  raw=("$out/$block/raw"/*.dat)
  shopt -u nullglob
  if [ ${#raw[@]} -eq 0 ]; then
    echo "rtl_coverage: $block: no coverage data written" >&2
    failed=1
    continue
  fi
  verilator_coverage --write "$out/$block.dat" "${raw[@]}" > /dev/null
  # The points name their sources relative to rtl/ (where CMake runs Verilator).
  (cd "$root/rtl" && verilator_coverage --annotate "$out/$block/annotated" --annotate-min 1 "$out/$block.dat") \
    > /dev/null
  results+=("$block $((SECONDS - start))")
done

# The table: per block, line points (statement blocks and branches, Verilator's --coverage-line)
# and toggle points (every bit of every signal rising and falling, --coverage-toggle) that were hit
# at least once, over the points of rtl/<block>.sv in every build and instance of the block. Not counted: the
# test-only lines of the planted bug (below), and code between `// verilator coverage_off` and
# `coverage_on` (Verilator makes no points there; kept for what is unreachable by construction).
printf '%-20s %14s %8s %16s %8s %6s\n' block "line points" "line %" "toggle points" "toggle %" "s"
for r in "${results[@]}"; do
  read -r block secs <<<"$r"
  line="$(python3 - "$out/$block.dat" "$block" "$root/rtl/$block.sv" <<'EOF'
import re, sys
path, block, source = sys.argv[1], sys.argv[2], sys.argv[3]
# Test-only code is not the block's: lines under `ifdef SCGPU_PLANTED_BUG (up to its `else or
# `endif) exist only in the co-simulation tests' buggy copy, so their points are not counted.
test_only, inside = set(), False
for n, text in enumerate(open(source), 1):
    t = text.strip()
    if t.startswith("`ifdef SCGPU_PLANTED_BUG"):
        inside = True
    elif inside and (t.startswith("`else") or t.startswith("`endif")):
        inside = False
    elif inside:
        test_only.add(n)
# A point of the module, whatever instance it was counted in (the block alone, or inside the
# waveform wrapper of rtl/wave/): the same file, line, column, kind and comment make one point.
points = {}
for raw in open(path, encoding="latin-1"):
    if not raw.startswith("C '"):
        continue
    key, count = raw[3:].rstrip("\n").rsplit("' ", 1)
    fields = dict(kv.split("\x02", 1) for kv in key.split("\x01") if "\x02" in kv)
    if fields.get("f", "").split("/")[-1] != block + ".sv":
        continue
    if int(fields.get("l", "0")) in test_only:
        continue
    page = fields.get("page", "")
    kind = "toggle" if page.startswith("v_toggle") else "line" if page.startswith(("v_line", "v_branch")) else None
    if kind is None:
        continue
    # ("page" names the module as elaborated, e.g. lsu_coalescer__LB80_S20 for its parameters.)
    key = (kind,) + tuple(sorted((k, v) for k, v in fields.items() if k not in ("h", "page")))
    points[key] = points.get(key, 0) + int(count)
hit = {"line": 0, "toggle": 0}
total = {"line": 0, "toggle": 0}
for key, count in points.items():
    total[key[0]] += 1
    hit[key[0]] += count > 0
pct = {k: (100.0 * hit[k] / total[k] if total[k] else 0.0) for k in hit}
print(f"{hit['line']}/{total['line']} {pct['line']:.1f} {hit['toggle']}/{total['toggle']} {pct['toggle']:.1f}")
EOF
)"
  read -r lp lpct tp tpct <<<"$line"
  printf '%-20s %14s %8s %16s %8s %6s\n' "$block" "$lp" "$lpct" "$tp" "$tpct" "$secs"
  if ! awk -v p="$lpct" -v m="$min_line" 'BEGIN { exit !(p + 0 >= m + 0) }'; then
    echo "rtl_coverage: $block: line coverage $lpct % is below $min_line % (uncovered lines: %000000 in" \
         "$out/$block/annotated/$block.sv)" >&2
    failed=1
  fi
done
exit $failed
