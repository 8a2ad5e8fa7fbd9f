#!/usr/bin/env bash
# Installs, from Debian's packages only, whatever the build and tests of scgpu need and the
# machine lacks. Idempotent: a second run installs nothing and takes a second.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libsystemc-dev verilator yosys libyaml-cpp-dev gtkwave zlib1g-dev xvfb
  z3  # the SMT solver of scripts/rtl_formal.sh (yosys-smtbmc comes with yosys)
  libcli11-dev libfmt-dev nlohmann-json3-dev libtbb-dev  # TBB: --threads (parallel SMs)
  liblz4-dev libzstd-dev  # libcudart.so.13: nvcc's compressed fat binaries
  libgtest-dev libgmock-dev
  python3 python3-numpy python3-yaml time
  # scgpu sweep / plot / report (python/scgpu_tools) and their tests
  python3-pandas python3-matplotlib python3-distributed python3-pytest
  chromium  # headless: the report page renders without console errors (python/tests)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
