#!/usr/bin/env bash
# Every RTL block in rtl/: lint-clean under `verilator --lint-only -Wall` (with each parameter set
# below, and with the planted-bug define the tests use) and synthesizable by Yosys (`synth`, no
# errors); prints each block's cell count per parameter set. ctest runs it as `rtl_lint_synth`.
# Usage: scripts/rtl_check.sh [BLOCK ...]   (default: every block in rtl/)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/rtl"
# Parameter sets to check per block ("-" for the defaults); space-separated NAME=VALUE,NAME=VALUE.
declare -A param_sets=(
  [warp_sched_arbiter]="POLICY=0,NUM_WARPS=16 POLICY=1,NUM_WARPS=16 POLICY=2,NUM_WARPS=16"
  [xbar_arbiter]="ROUND_ROBIN=1,N_IN=64,N_OUT=64 ROUND_ROBIN=0,N_IN=64,N_OUT=64"
  # L2 tag/MSHR stage: a few sets and entries (the memories become flip-flops in a generic synth;
  # the product's build is 1024 sets x 32 ways, 512 MSHRs).
  [l2_tag_mshr]="SETS=16,WAYS=4,SECTORS=4,ENTRIES=8,MERGE=4,LINE_W=32"
  [dram_cmd_sched]="QUEUE_DEPTH=16"
)
blocks=("$@")
if [ ${#blocks[@]} -eq 0 ]; then
  for sv in *.sv; do
    case "$sv" in *_pkg.sv) ;; *) blocks+=("${sv%.sv}") ;; esac  # packages are checked below
  done
fi
log="$(mktemp)"
stub="$(mktemp --suffix=.sv)"
trap 'rm -f "$log" "$stub"' EXIT
printf '%-20s %-28s %-6s %10s\n' block parameters lint cells
failed=0
# Packages (the generated register map, rtl/scgpu_regs_pkg.sv) hold no logic to synthesize; they are
# linted with a module that imports them, since Verilator needs a top module.
for pkg in *_pkg.sv; do
  [ $# -eq 0 ] || break
  printf 'module pkg_lint_top; import %s::*; endmodule\n' "${pkg%.sv}" > "$stub"
  if verilator --lint-only -Wall -Wno-UNUSEDPARAM -Wno-DECLFILENAME "$pkg" "$stub" --top-module pkg_lint_top; then
    lint=ok
  else
    lint=FAIL
    failed=1
  fi
  printf '%-20s %-28s %-6s %10s\n' "${pkg%.sv}" package "$lint" -
done
for top in "${blocks[@]}"; do
  for set in ${param_sets[$top]:--}; do
    vargs=() chparam=""
    if [ "$set" != - ]; then
      IFS=',' read -r -a kvs <<<"$set"
      for kv in "${kvs[@]}"; do
        vargs+=("-G$kv")
        chparam+=" -set ${kv%%=*} ${kv#*=}"
      done
    fi
    if verilator --lint-only -Wall "${vargs[@]}" "$top.sv" &&
       verilator --lint-only -Wall -DSCGPU_PLANTED_BUG "${vargs[@]}" "$top.sv"; then lint=ok; else
      lint=FAIL
      failed=1
    fi
    script="read_verilog -sv $top.sv;"
    [ -z "$chparam" ] || script+=" chparam$chparam $top;"
    if yosys -p "$script synth -top $top; stat" > "$log" 2>&1; then
      cells="$(awk '/Number of cells:/ {n = $4} END {print n}' "$log")"
    else
      cells=FAIL
      failed=1
      grep -m5 -i error "$log" >&2 || true
    fi
    printf '%-20s %-28s %-6s %10s\n' "$top" "${set/-/defaults}" "$lint" "$cells"
  done
done
exit $failed
