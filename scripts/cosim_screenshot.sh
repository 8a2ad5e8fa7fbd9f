#!/usr/bin/env bash
# Regenerates docs/img/cosim_divergence.png, the GTKWave screenshot of a co-simulation divergence
# in docs/rtl-cosim.md, headless (as scripts/waveform_screenshots.sh does for docs/waveforms.md).
#
#   scripts/cosim_screenshot.sh [BUILD_DIR] [OUT_DIR] [BLOCK]
#
# BUILD_DIR (default: build) must hold a built testbench/scgpu_tests (with the RTL blocks). The
# divergence is a planted bug's in saxpy on tiny, from the block's DivergenceStopsTheRunWithExitStatus4
# test (BLOCK: coalescer, the default, writing cosim_divergence.png; crossbar, l2 or dram, writing
# cosim_divergence_BLOCK.png), whose FST and .gtkw land in a scratch directory
# ($SCGPU_COSIM_WAVE_DIR); GTKWave opens the .gtkw on a private Xvfb server, zooms to the cycles
# before the marker (the divergence), grabs its window and quits. Needs gtkwave and xvfb.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$ROOT/docs/img}"
BLOCK="${3:-coalescer}"
case "$BLOCK" in
  coalescer) TEST=RtlCoalescer.DivergenceStopsTheRunWithExitStatus4; NAME=cosim_divergence.png ;;
  crossbar) TEST=RtlXbarArbiterCosim.DivergenceStopsTheRunWithExitStatus4; NAME=cosim_divergence_crossbar.png ;;
  l2) TEST=RtlL2TagCosim.DivergenceStopsTheRunWithExitStatus4; NAME=cosim_divergence_l2.png ;;
  dram) TEST=RtlDramSchedCosim.DivergenceStopsTheRunWithExitStatus4; NAME=cosim_divergence_dram.png ;;
  *) echo "cosim_screenshot: unknown block '$BLOCK' (coalescer, crossbar, l2, dram)" >&2; exit 2 ;;
esac
TESTS="$BUILD/testbench/scgpu_tests"
WIDTH=1500
HEIGHT=900
die() { echo "cosim_screenshot: $*" >&2; exit 1; }
[ -x "$TESTS" ] || die "no $TESTS (build it first: cmake --build $BUILD --target scgpu_tests)"
command -v gtkwave >/dev/null && command -v Xvfb >/dev/null || die "needs gtkwave and xvfb (scripts/setup.sh)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/scgpu-cosim-shot.XXXXXX")"
XVFB_PID=""
cleanup() {
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null && wait "$XVFB_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# The divergence, with its waveform.
SCGPU_COSIM_WAVE_DIR="$WORK" "$TESTS" --gtest_filter="$TEST" \
  > "$WORK/test.log" 2>&1 || { cat "$WORK/test.log" >&2; die "the divergence test failed"; }
gtkw="$(ls "$WORK"/cosim_*.gtkw 2>/dev/null | head -1)"
[ -n "$gtkw" ] || die "the test wrote no .gtkw into $WORK"
marker="$(awk '/^\*-/ {print $2; exit}' "$gtkw")"
from=$((marker > 24000 ? marker - 24000 : 0))
to=$((marker + 2500))

exec 3>"$WORK/display"
Xvfb -displayfd 3 -screen 0 "$((WIDTH + 100))x$((HEIGHT + 200))x24" -nolisten tcp -noreset >"$WORK/xvfb.log" 2>&1 &
XVFB_PID=$!
exec 3>&-
for _ in $(seq 100); do
  [ -s "$WORK/display" ] && break
  sleep 0.1
done
[ -s "$WORK/display" ] || die "Xvfb did not start"
export DISPLAY=":$(head -n1 "$WORK/display")"

png="$WORK/cosim_divergence.png"
cat > "$WORK/shot.tcl" <<EOF
gtkwave::setZoomRangeTimes $from $to
gtkwave::setWindowStartTime $from
for {set i 0} {\$i < 20} {incr i} { gtkwave::nop; after 50 }
gtkwave::/File/Grab_To_File $png
gtkwave::/File/Quit
EOF
(cd "$WORK" && timeout -k 5 60 gtkwave --rcvar 'splash_disable on' --rcvar 'hide_sst on' \
  --rcvar "initial_window_x $WIDTH" --rcvar "initial_window_y $HEIGHT" \
  --rcvar 'initial_window_xpos 0' --rcvar 'initial_window_ypos 0' \
  -S "$WORK/shot.tcl" "$gtkw" > "$WORK/gtkwave.log" 2>&1) || true
[ -s "$png" ] || { cat "$WORK/gtkwave.log" >&2; die "gtkwave produced no screenshot"; }
mkdir -p "$OUT"
cp "$png" "$OUT/$NAME"
echo "wrote $OUT/$NAME (window $from..$to ps, marker $marker ps)"
