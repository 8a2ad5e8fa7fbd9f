#!/usr/bin/env bash
# Runs one libFuzzer harness of fuzz/ for a while, with AddressSanitizer and UBSan:
#   scripts/fuzz.sh TARGET MINUTES [extra libFuzzer flags...]      (MINUTES 0: build only)
# TARGET is ptx, config, launch, stats, exec, wire or wire_client (docs/fuzzing.md). Installs clang and libFuzzer's
# runtime from Debian if missing, configures build-fuzz/ once (clang, -DSCGPU_FUZZ=ON), builds
# fuzz_TARGET, and fuzzes a work copy of the committed corpus fuzz/corpus/TARGET (new inputs go to
# build-fuzz/corpus/TARGET, never into the tree) with fuzz/dict/TARGET.dict. Crashes, leaks,
# timeouts (-timeout=10) and inputs over 2 GB (-rss_limit_mb=2048) are written to
# build-fuzz/artifacts/TARGET/; minimise one with
#   build-fuzz/fuzz/fuzz_TARGET -minimize_crash=1 -runs=10000 -exact_artifact_path=min FILE
# then put it under fuzz/open/TARGET/ (docs/fuzzing.md says how findings are kept).
# Environment: SCGPU_FUZZ_BUILD_DIR (default build-fuzz/ in the tree), SCGPU_FUZZ_JOBS (ninja -j).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets="ptx config launch stats exec wire wire_client"
if [ $# -lt 2 ] || [[ " $targets " != *" $1 "* ]] || ! [[ $2 =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh TARGET MINUTES [libFuzzer flags...]   (TARGET: ${targets// /, })" >&2
  exit 2
fi
target=$1 minutes=$2
shift 2

# The build's needs (setup.sh) and clang with libFuzzer's runtime.
"$root/scripts/setup.sh"
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "fuzz: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build="${SCGPU_FUZZ_BUILD_DIR:-$root/build-fuzz}"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DSCGPU_FUZZ=ON -DSCGPU_TESTS=OFF
fi
cmake --build "$build" --target "fuzz_$target" -- -j "${SCGPU_FUZZ_JOBS:-$(nproc)}"
if [ "$minutes" = 0 ]; then
  echo "fuzz: built $build/fuzz/fuzz_$target (0 minutes: no fuzzing)"
  exit 0
fi

work="$build/corpus/$target" artifacts="$build/artifacts/$target"
mkdir -p "$work" "$artifacts"
cp -n "$root/fuzz/corpus/$target"/* "$work"/ 2>/dev/null || true
export SCGPU_CONFIG_DIR="$root/configs" SCGPU_FUZZ_DIR="$root/fuzz"
# Leaks are findings; a kernel's deliberate huge allocation is refused by the model, not malloc.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log="$build/fuzz-$target.log"
echo "fuzz: $target for $minutes min; corpus $work, artifacts $artifacts, log $log"
status=0
"$build/fuzz/fuzz_$target" "$work" -dict="$root/fuzz/dict/$target.dict" \
  -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$@" 2>&1 | tee "$log" | grep -v '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)\|^  NEW_FUNC' || status=${PIPESTATUS[0]}
echo "fuzz: final stats ($target)"
# Without -fork libFuzzer ends with DONE and stat:: lines; with -fork, the last "#N: cov:" line.
grep -E '^(stat::|#[0-9]+.*DONE|Done)' "$log" | tail -12 || grep -E '^#[0-9]+: cov' "$log" | tail -1 || true
ls -1 "$artifacts" | sed 's/^/fuzz: artifact /' || true
exit "$status"
