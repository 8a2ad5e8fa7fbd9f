#!/usr/bin/env bash
# Every RTL block in rtl/: lint-clean under `verilator --lint-only -Wall` (also with the planted-bug
# define the tests use) and synthesizable by Yosys (`synth`, no errors); prints each block's cell
# count. ctest runs it as `rtl_lint_synth`. Usage: scripts/rtl_check.sh [BLOCK.sv ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/rtl"
blocks=("$@")
[ ${#blocks[@]} -gt 0 ] || blocks=(*.sv)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
printf '%-24s %-6s %10s\n' block lint cells
failed=0
for sv in "${blocks[@]}"; do
  top="${sv%.sv}"
  if verilator --lint-only -Wall "$sv" && verilator --lint-only -Wall -DSCGPU_PLANTED_BUG "$sv"; then lint=ok; else
    lint=FAIL
    failed=1
  fi
  if yosys -p "read_verilog -sv $sv; synth -top $top; stat" > "$log" 2>&1; then
    cells="$(awk '/Number of cells:/ {n = $4} END {print n}' "$log")"
  else
    cells=FAIL
    failed=1
    grep -m5 -i error "$log" >&2 || true
  fi
  printf '%-24s %-6s %10s\n' "$top" "$lint" "$cells"
done
exit $failed
