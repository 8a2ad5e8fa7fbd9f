#!/usr/bin/env bash
# Packs fuzz_all for a campaign on another x86-64 Linux machine without our packages (any glibc):
# relinks build-fuzz/fuzz/fuzz_all with the program interpreter and library path
# /opt/scgpu-carry, strips its debug info, and copies it with every shared library it loads
# (glibc's loader and libc included) into build-fuzz-carry/ (ignored by git, about 34 MB).
# fuzz/campaign.sh installs that folder as /opt/scgpu-carry there. Run from the repository root
# after building fuzz_all (scripts/fuzz.sh, or cmake --build build-fuzz --target fuzz_all):
#   fuzz/make_carry.sh [BUILD_DIR]
set -euo pipefail
root=$(pwd) build=${1:-$(pwd)/build-fuzz} carry=$(pwd)/build-fuzz-carry
mkdir -p "$carry"
cd "$build"
cmd=$(ninja -t commands fuzz/fuzz_all | tail -1)
cmd=${cmd/-o fuzz\/fuzz_all/-o $carry/fuzz_all -Wl,--dynamic-linker=/opt/scgpu-carry/ld-linux-x86-64.so.2 -Wl,-rpath,/opt/scgpu-carry -Wl,--disable-new-dtags}
eval "$cmd"
strip --strip-debug "$carry/fuzz_all"
ldd "$carry/fuzz_all" | awk '/=>/ {print $3} /ld-linux/ {print $1}' | while read -r lib; do
  [ -f "$lib" ] && cp -L "$lib" "$carry/"
done
ls -la "$carry"
