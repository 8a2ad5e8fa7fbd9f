#!/usr/bin/env bash
# Checks that project includes point down the layers (docs: ../shared/DESIGN.md §2): each
# directory may include only the directories listed for it. Run by ctest (test `layering`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
declare -A allowed=(
  [base]="base"
  [ptx]="ptx"
  [memsys]="base memsys"
  [sm]="base ptx memsys sm"
  [tlm]="base ptx memsys sm tlm"
  [rtl]="base ptx memsys sm tlm rtl"
  [driver]="base ptx memsys sm tlm driver"
  [kernels]="base ptx memsys sm tlm driver kernels"
  [app]="base ptx memsys sm tlm driver kernels app"
)
bad=0
for dir in "${!allowed[@]}"; do
  [ -d "$root/$dir" ] || continue
  while IFS= read -r line; do
    file="${line%%:*}"
    inc="$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$line")"
    top="${inc%%/*}"
    [ "$top" = "$inc" ] && continue  # a file beside this one
    [ -d "$root/$top" ] || continue  # not a project directory (a system or vendored header)
    if ! grep -qw -- "$top" <<<"${allowed[$dir]}"; then
      echo "layering: ${file#"$root"/} includes \"$inc\": $dir/ may include only ${allowed[$dir]}"
      bad=1
    fi
  done < <(grep -rHE '^\s*#\s*include "' "$root/$dir" --include='*.h' --include='*.cpp' --include='*.hpp' || true)
done
exit $bad
