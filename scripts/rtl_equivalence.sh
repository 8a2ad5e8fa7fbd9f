#!/usr/bin/env bash
# RTL equivalence on the whole suite: every workload in timing mode on CONFIG with the RTL blocks
# in `rtl` mode must give the outputs and statistics of `model` mode (cycle counts included), and
# in `cosim` mode must run with no divergence. Usage:
#   scripts/rtl_equivalence.sh SCGPU_BINARY CONFIG KEY[,KEY...]
# where each KEY is a block's impl key (e.g. sm.coalescer.impl); all of them are switched together.
set -uo pipefail
scgpu="$1"
config="$2"
IFS=',' read -r -a keys <<<"$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sets() {
  for k in "${keys[@]}"; do printf -- '--set\n%s=%s\n' "$k" "$1"; done
}
mapfile -t rtl_sets < <(sets rtl)
mapfile -t cosim_sets < <(sets cosim)
failed=0
for w in $("$scgpu" list | awk '$2 ~ /^sm_/ {print $1}'); do
  "$scgpu" run "$w" --config "$config" --quiet --stats-json "$work/model.json" > /dev/null 2>&1
  model_rc=$?
  "$scgpu" run "$w" --config "$config" --quiet --stats-json "$work/rtl.json" "${rtl_sets[@]}" > /dev/null 2>&1
  rtl_rc=$?
  if [ "$model_rc" != "$rtl_rc" ] ||
     ! "$scgpu" stats diff "$work/model.json" "$work/rtl.json" --ignore wall --ignore per_second \
         --ignore /config > "$work/diff.txt"; then
    echo "DIFFERS: $w on $config (exit $model_rc model, $rtl_rc rtl)"
    head -20 "$work/diff.txt"
    failed=$((failed + 1))
  fi
  if ! "$scgpu" run "$w" --config "$config" --quiet "${cosim_sets[@]}" > "$work/cosim.txt" 2>&1; then
    echo "COSIM FAILED: $w on $config"
    head -20 "$work/cosim.txt"
    failed=$((failed + 1))
  fi
done
echo "$config, ${keys[*]}: $failed failure(s)"
exit $((failed > 0))
