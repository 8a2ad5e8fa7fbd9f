#!/usr/bin/env bash
# Builds scgpu_bench (Release) and runs it; arguments go to the benchmark, e.g.
#   bench/run.sh saxpy sgemm_tiled reduce_tree --scale 8 --json bench.json
# SCGPU_BUILD_DIR picks the build directory (default: build/ at the repository root).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SCGPU_BUILD_DIR:-$root/build}"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" --target scgpu_bench
exec "$build/bench/scgpu_bench" "$@"
