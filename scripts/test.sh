#!/usr/bin/env bash
# All tests: installs what is missing, builds, runs every test with ctest. Long simulations carry
# the ctest label `long` and run only with SCGPU_LONG_TESTS=1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" -DSCGPU_WERROR=ON
cd "${SCGPU_BUILD_DIR:-$root/build}"
if [ "${SCGPU_LONG_TESTS:-0}" = 1 ]; then
  ctest --output-on-failure -j "$(nproc)"
else
  ctest --output-on-failure -j "$(nproc)" -LE long
fi
