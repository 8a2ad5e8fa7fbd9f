#!/usr/bin/env bash
# Rebuilds every program of cuda_programs/ from its source with nvcc (into a temporary folder, not
# over the committed binaries) and runs each through `scgpu exec` (functional, tiny), as a user who
# builds them would. Needs nvcc: without it the test is skipped (exit 77). Label `long`.
# Usage: cuda_programs_rebuilt_test.sh SCGPU_BINARY
set -uo pipefail
scgpu="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
if [ ! -x "$NVCC" ]; then
  echo "skipped: no nvcc at $NVCC (set NVCC=...); the committed binaries are tested by cuda_program_*"
  exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/cuda_programs" "$tmp/cuda_programs"
ln -s "$root/kernels" "$tmp/kernels"
rm -rf "$tmp/cuda_programs/bin"
NVCC="$NVCC" "$tmp/cuda_programs/build.sh" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
failed=0
for program in "$tmp"/cuda_programs/bin/*; do
  name="$(basename "$program")"
  last="$("$scgpu" exec --config tiny --mode functional -- "$program" 2>/dev/null | tail -n 1)"
  case "$last" in
    PASSED*) echo "ok      $name" ;;
    *) echo "FAILED  $name: $last"; failed=$((failed + 1)) ;;
  esac
done
[ "$failed" -eq 0 ]
