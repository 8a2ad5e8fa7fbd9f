#!/usr/bin/env bash
# Regenerates the committed PTX of the kernel suite from kernels/cuda/*.cu with nvcc, and
# kernels/ptx/regs.json (registers, shared and local memory per kernel) from ptxas -v on the sm_90
# PTX. Idempotent; runs from any directory. Needs nvcc (no GPU). NVCC=/path/to/nvcc overrides.
#   sm_90: every .cu (faults.cu too)
#   sm_80, sm_75: the subset below, where it compiles (subset_sm80: sm_80 only)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
PTXAS="${PTXAS:-$(dirname "$NVCC")/ptxas}"
src="$root/kernels/cuda"
dst="$root/kernels/ptx"
flags=(-ptx -O3 -lineinfo)
subset=(vector_add saxpy reduce_tree reduce_shuffle sgemm_tiled transpose histogram mandelbrot
        int_hash f16_math texture_filter)
subset_sm80=(hgemm_tensor)  # mma.sync m16n8k16 and ldmatrix need sm_80
sm90a=(hgemm_wgmma hgemm_tma_wgmma)  # wgmma exists on sm_90a only: compiled for it, kept with the sm_90 PTX

[ -x "$NVCC" ] || { echo "gen_ptx: nvcc not found at $NVCC" >&2; exit 1; }
echo "gen_ptx: $("$NVCC" --version | grep -o 'release [0-9.]*, V[0-9.]*')"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

compile() {  # compile <stem> <arch>; returns non-zero (and keeps no file) if nvcc fails
  local stem="$1" arch="$2" target="$2"
  [ "$arch" = sm_90 ] && [[ " ${sm90a[*]} " == *" $stem "* ]] && target=sm_90a
  mkdir -p "$dst/$arch"
  if "$NVCC" "${flags[@]}" -arch="$target" "$src/$stem.cu" -o "$tmp/$stem.$arch.ptx" 2>"$tmp/err"; then
    # nvcc writes absolute .file paths; make ours relative to the repository root so that the
    # output does not depend on where the checkout lives (fault reports show kernels/cuda/X.cu:N).
    sed -i "s|\"$root/|\"|" "$tmp/$stem.$arch.ptx"
    # Write only on change, so that an unchanged PTX keeps its timestamp.
    cmp -s "$tmp/$stem.$arch.ptx" "$dst/$arch/$stem.ptx" || cp "$tmp/$stem.$arch.ptx" "$dst/$arch/$stem.ptx"
    grep -q '^[[:space:]]*\.loc' "$dst/$arch/$stem.ptx" || { echo "gen_ptx: no .loc in $arch/$stem.ptx" >&2; exit 1; }
    return 0
  fi
  echo "gen_ptx: $stem.cu does not compile for $arch:" >&2
  sed 's/^/  /' "$tmp/err" >&2
  rm -f "$dst/$arch/$stem.ptx"
  return 1
}

failed=0
for cu in "$src"/*.cu; do
  stem="$(basename "$cu" .cu)"
  compile "$stem" sm_90 || failed=1
done
for arch in sm_80 sm_75; do
  stems=("${subset[@]}")
  [ "$arch" = sm_80 ] && stems+=("${subset_sm80[@]}")
  for stem in "${stems[@]}"; do
    compile "$stem" "$arch" || true  # a workload missing for an older arch is recorded, not fatal
  done
done
# Drop PTX whose source is gone.
for f in "$dst"/sm_*/*.ptx; do
  [ -e "$src/$(basename "$f" .ptx).cu" ] || { echo "gen_ptx: removing stale $f"; rm -f "$f"; }
done

# Resource usage per kernel from ptxas -v on the sm_90 PTX.
for ptx in "$dst"/sm_90/*.ptx; do
  target=sm_90
  grep -q '^\.target sm_90a' "$ptx" && target=sm_90a
  "$PTXAS" -arch=$target -v "$ptx" -o /dev/null 2>>"$tmp/ptxas.log" || { echo "gen_ptx: ptxas failed on $ptx" >&2; cat "$tmp/ptxas.log" >&2; exit 1; }
done
python3 - "$tmp/ptxas.log" "$dst/regs.json" <<'PY'
import json, re, sys
log, out = sys.argv[1], sys.argv[2]
kernels, props = {}, None  # props: the function whose "Function properties" block is open
for line in open(log):
    m = re.search(r"Compiling entry function '([^']+)' for '(sm_\w+)'", line)
    if m:
        kernels[m.group(1)] = {"registers": 0, "shared_bytes": 0, "local_bytes": 0, "arch": m.group(2)}
        props = None
        continue
    m = re.search(r"Function properties for (\S+)", line)
    if m:
        props = m.group(1)
        continue
    m = re.search(r"(\d+) bytes stack frame", line)
    if m and props in kernels:  # a kernel's own frame; device functions' frames are not counted
        kernels[props]["local_bytes"] = int(m.group(1))
        continue
    m = re.search(r"Used (\d+) registers", line)
    if m and kernels:
        k = list(kernels)[-1]
        kernels[k]["registers"] = int(m.group(1))
        s = re.search(r"(\d+) bytes smem", line)
        kernels[k]["shared_bytes"] = int(s.group(1)) if s else 0
text = json.dumps(dict(sorted(kernels.items())), indent=2) + "\n"
try:
    old = open(out).read()
except FileNotFoundError:
    old = None
if old != text:
    open(out, "w").write(text)
print(f"gen_ptx: {len(kernels)} kernels in {out}")
PY
exit $failed
