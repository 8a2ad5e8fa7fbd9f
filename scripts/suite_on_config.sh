#!/usr/bin/env bash
# Runs every suite workload in timing mode on one config and fails if any output differs from
# its CPU reference (or the run faults). Usage: scripts/suite_on_config.sh SCGPU_BINARY CONFIG
set -uo pipefail
scgpu="$1"
config="$2"
failed=0
for w in $("$scgpu" list | awk '$2 ~ /^sm_/ {print $1}'); do
  if "$scgpu" run "$w" --mode timing --config "$config" --quiet; then :; else
    echo "FAILED: $w on $config"
    failed=$((failed + 1))
  fi
done
echo "$config: $failed workload(s) failed"
exit $((failed > 0))
