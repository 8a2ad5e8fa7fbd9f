#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs a CUDA kernel of the suite (tiled SGEMM)
# on the default config, printing the verified result and statistics.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
exec "${SCGPU_BUILD_DIR:-$root/build}/scgpu" run sgemm_tiled --config tiny "$@"
