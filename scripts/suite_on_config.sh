#!/usr/bin/env bash
# Runs every suite workload in timing mode on one config and fails if any output differs from
# its CPU reference (or the run faults). A workload whose launch asks for more shared memory per
# block than the config's GPU has (hgemm_tma_wgmma's 193 KiB ring before Hopper) cannot run there
# and is reported as skipped, with the device's refusal. Usage: scripts/suite_on_config.sh SCGPU_BINARY CONFIG
set -uo pipefail
scgpu="$1"
config="$2"
failed=0
skipped=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for w in $("$scgpu" list | awk '$2 ~ /^sm_/ {print $1}'); do
  if "$scgpu" run "$w" --mode timing --config "$config" --quiet > "$log" 2>&1; then
    cat "$log"
  elif grep -q "shared memory per block exceed the limit" "$log"; then
    echo "SKIPPED: $w on $config: $(grep -m1 'exceed the limit' "$log")"
    skipped=$((skipped + 1))
  else
    cat "$log"
    echo "FAILED: $w on $config"
    failed=$((failed + 1))
  fi
done
echo "$config: $failed workload(s) failed, $skipped skipped"
exit $((failed > 0))
