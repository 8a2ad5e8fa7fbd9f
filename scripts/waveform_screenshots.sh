#!/usr/bin/env bash
# Regenerates the GTKWave screenshots of docs/waveforms.md, headless.
#
#   scripts/waveform_screenshots.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR (default: build) must hold an already built `scgpu`; this script builds nothing.
# OUT_DIR (default: docs/img) receives the PNGs, overwritten on every run (idempotent):
#   wave_transpose_shared.png   transpose_shared (32-way bank conflicts), SM 0: stalls, LSU queue
#   wave_transpose_shared_zoom.png  the same, 40 ns: opcodes and stall reasons readable
#   wave_transpose_padded.png   transpose_shared_padded, same SM and window length, for comparison
#   wave_dram_overview.png      vector_add, DRAM channel + L2 slices over ~2.5 us with a refresh
#   wave_dram_zoom.png          vector_add, 10 ns: ACT/RD/PRE commands one by one
#
# Each view: `scgpu run ... --trace X.vcd --trace-filter ...` writes X.vcd and X.gtkw; then
# GTKWave, on a private Xvfb server, reads X.gtkw, runs a Tcl script that zooms to the window and
# grabs its own window with /File/Grab_To_File (so no ImageMagick is needed), and quits.
# Needs gtkwave and xvfb (Debian packages; installed with apt-get when missing and root).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$ROOT/docs/img}"
SCGPU="$BUILD/scgpu"
WIDTH=1500  # GTKWave window; the Xvfb screen is a little larger so that nothing is off-screen
HEIGHT=1000
GTKWAVE_TIMEOUT=60 # seconds per screenshot

die() { echo "waveform_screenshots: $*" >&2; exit 1; }

[ -x "$SCGPU" ] || die "no scgpu in '$BUILD' (build it first: scripts/build.sh)"

# --- tools -------------------------------------------------------------------------------------
need=()
command -v gtkwave >/dev/null || need+=(gtkwave)
command -v Xvfb >/dev/null || need+=(xvfb)
if ((${#need[@]})); then
  [ "$(id -u)" -eq 0 ] || die "missing ${need[*]}: sudo apt-get install ${need[*]} (or run scripts/setup.sh)"
  echo "waveform_screenshots: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# --- scratch dir, X server, cleanup ------------------------------------------------------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/scgpu-waves.XXXXXX")"
XVFB_PID=""
GTKWAVE_PID=""
cleanup() {
  [ -n "$GTKWAVE_PID" ] && kill "$GTKWAVE_PID" 2>/dev/null || true
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  [ -n "$XVFB_PID" ] && wait "$XVFB_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Xvfb picks a free display itself and writes its number to fd 3 (-displayfd): no races, no
# guessed display numbers, nothing left behind after the trap.
exec 3>"$WORK/display"
Xvfb -displayfd 3 -screen 0 "$((WIDTH + 100))x$((HEIGHT + 200))x24" -nolisten tcp -noreset >"$WORK/xvfb.log" 2>&1 &
XVFB_PID=$!
exec 3>&-
for _ in $(seq 100); do
  [ -s "$WORK/display" ] && break
  kill -0 "$XVFB_PID" 2>/dev/null || die "Xvfb failed: $(cat "$WORK/xvfb.log")"
  sleep 0.1
done
[ -s "$WORK/display" ] || die "Xvfb did not start in 10 s"
export DISPLAY=":$(head -n1 "$WORK/display")"
mkdir -p "$OUT"

# shot NAME GTKW FROM_PS TO_PS: opens GTKW, zooms to [FROM_PS, TO_PS] (the trace's time unit is
# 1 ps), grabs the window to OUT/NAME.png. Uses a copy of GTKW with every group open (scgpu writes
# some groups closed, e.g. all L2 slices but the first; flag 0x400000 is GTKWave's TR_CLOSED).
shot() {
  local name="$1" gtkw="$2" from="$3" to="$4"
  local png="$WORK/$name.png" tcl="$WORK/$name.tcl" view="$WORK/$name.gtkw"
  sed -e 's/^@c00200$/@800200/' -e 's/^@1401200$/@1000200/' "$gtkw" >"$view"
  cat >"$tcl" <<EOF
gtkwave::setZoomRangeTimes $from $to
gtkwave::setWindowStartTime $from
gtkwave::setMarker -1
# let the window map and draw before grabbing it
for {set i 0} {\$i < 20} {incr i} { gtkwave::nop; after 50 }
gtkwave::/File/Grab_To_File $png
gtkwave::/File/Quit
EOF
  rm -f "$png"
  (cd "$WORK" && exec timeout -k 5 "$GTKWAVE_TIMEOUT" gtkwave \
    --rcvar 'splash_disable on' --rcvar 'hide_sst on' \
    --rcvar "initial_window_x $WIDTH" --rcvar "initial_window_y $HEIGHT" \
    --rcvar 'initial_window_xpos 0' --rcvar 'initial_window_ypos 0' \
    -S "$tcl" "$view" >"$WORK/$name.gtkwave.log" 2>&1) &
  GTKWAVE_PID=$!
  local rc=0
  wait "$GTKWAVE_PID" || rc=$?
  GTKWAVE_PID=""
  if [ ! -s "$png" ]; then
    cat "$WORK/$name.gtkwave.log" >&2
    die "gtkwave produced no $name.png (exit $rc)"
  fi
  cp "$png" "$OUT/$name.png"
  echo "wrote $OUT/$name.png ($(($(stat -c %s "$OUT/$name.png") / 1024)) KiB)"
}

run() { # run WORKLOAD TRACE FILTER [more scgpu options]; the timeline goes to WORK/WORKLOAD.json
  local w="$1" trace="$2" filter="$3"
  shift 3
  (cd "$WORK" && "$SCGPU" run "$w" --quiet --trace "$trace" --trace-filter "$filter" --timeline "$w.json" "$@") \
    >"$WORK/$w.log" 2>&1 || { cat "$WORK/$w.log" >&2; die "scgpu run $w failed"; }
}

# at WORKLOAD KERNEL NS: the waveform time (ps) NS nanoseconds after KERNEL starts. The waveform's
# time is device time, which holds the copies and commands before and between the kernels, so
# the shots are placed from each kernel's start in the timeline.
at() {
  python3 -c 'import json,sys
t=json.load(open(sys.argv[1]))["traceEvents"]
k=[e for e in t if e.get("cat")=="kernel" and e["name"]==sys.argv[2]][0]
print(round(k["ts"]*1e6 + float(sys.argv[3])*1e3))' "$WORK/$1.json" "$2" "$3"
}

# --- (a) bank conflicts: transpose on tiny, SM 0 ------------------------------------------------
# On the chip's clock (1755 MHz) transpose_naive runs 0-25.1 us, transpose_shared 24.3-39.2 us,
# transpose_shared_padded 38.4-45.5 us; the trace window (core cycles) keeps the file small:
# cycles 48000-80000 are 27.4-45.6 us of it.
run transpose transpose.vcd 'sm[0].*' --trace-window 48000:80000
shot wave_transpose_shared "$WORK/transpose.gtkw" "$(at transpose transpose_shared 5700)" \
  "$(at transpose transpose_shared 6100)"
shot wave_transpose_shared_zoom "$WORK/transpose.gtkw" "$(at transpose transpose_shared 5890)" \
  "$(at transpose transpose_shared 5930)"
shot wave_transpose_padded "$WORK/transpose.gtkw" "$(at transpose transpose_shared_padded 2600)" \
  "$(at transpose transpose_shared_padded 3000)"

# --- (b) DRAM-bound: vector_add, the DRAM channel, both L2 slices and the crossbar's L2 ports ---
# A refresh (REF) runs at 7.85-8.30 us; cycles 12000-16000 are 6.8-9.1 us.
run vector_add vector_add.vcd 'dram*,l2*,xbar.l2*' --trace-window 12000:16000
shot wave_dram_overview "$WORK/vector_add.gtkw" "$(at vector_add vector_add 7000)" "$(at vector_add vector_add 9000)"
shot wave_dram_zoom "$WORK/vector_add.gtkw" "$(at vector_add vector_add 7120)" "$(at vector_add vector_add 7130)"
