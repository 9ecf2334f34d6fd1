#!/usr/bin/env bash
# Code and data size of the runtime library (libpbp_runtime.a) and its stack frames, per target.
#
#   targets/tools/size-report.sh                  every configured target preset under build/
#   targets/tools/size-report.sh cortex-m0 ...    the given presets (or build directories)
#
# Sizes: the archive's sections summed by kind (text / rodata / data / bss), per object file and in
# total, with the target's size tool. This is an upper bound on what a device links: --gc-sections
# drops the functions it does not use. Stack: the per-function frames from -fstack-usage (.su files,
# set by the target toolchain files); "dynamic"/"bounded" mark frames whose size is not static.
# Worst-case stack depth also needs the call graph: see the [board ...] line each bare-metal test
# prints (measured high-water mark of the whole test program).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

dirs=()
if [ $# -eq 0 ]; then
  for f in "$root"/build/*/CMakeCache.txt; do
    [ -f "$f" ] || continue
    grep -q '^PBP_TARGET_EMULATOR:INTERNAL=.' "$f" && dirs+=("$(dirname "$f")")
  done
else
  for a in "$@"; do
    if [ -d "$a" ]; then dirs+=("$(cd "$a" && pwd)"); else dirs+=("$root/build/$a"); fi
  done
fi
if [ ${#dirs[@]} -eq 0 ]; then
  echo "size-report: no configured target build under $root/build (cmake --preset cortex-m4f ...)" >&2
  exit 1
fi

for dir in "${dirs[@]}"; do
  name=$(basename "$dir")
  echo "=== $name"
  lib="$dir/runtime/libpbp_runtime.a"
  if [ ! -f "$lib" ]; then
    echo "  no $lib (runtime/src empty or not built yet)"
    continue
  fi
  size_tool=$(sed -n 's/^PBP_TARGET_SIZE:INTERNAL=//p' "$dir/CMakeCache.txt" 2>/dev/null || true)
  size_tool=${size_tool:-size}
  flags=$(sed -n 's/^CMAKE_CXX_FLAGS:STRING=//p; s/^CMAKE_BUILD_TYPE:STRING=/build type: /p' "$dir/CMakeCache.txt" | tr '\n' ' ')
  echo "  $flags"
  "$size_tool" -A "$lib" | awk '
    /^[^ ].*\(ex / { obj = $1; next }
    /^\./ {
      kind = ""
      if ($1 ~ /^\.text/) kind = "text"
      else if ($1 ~ /^\.rodata/) kind = "rodata"
      else if ($1 ~ /^\.data/ || $1 ~ /^\.init_array/ || $1 ~ /^\.sdata/) kind = "data"
      else if ($1 ~ /^\.bss/ || $1 ~ /^\.sbss/) kind = "bss"
      if (kind != "") { s[obj, kind] += $2; t[kind] += $2; objs[obj] = 1 }
    }
    END {
      printf "  %-40s %8s %8s %8s %8s\n", "object", "text", "rodata", "data", "bss"
      n = 0
      for (o in objs) names[++n] = o
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (names[j] < names[i]) { x = names[i]; names[i] = names[j]; names[j] = x }
      for (i = 1; i <= n; i++) { o = names[i]
        printf "  %-40s %8d %8d %8d %8d\n", o, s[o, "text"], s[o, "rodata"], s[o, "data"], s[o, "bss"] }
      printf "  %-40s %8d %8d %8d %8d\n", "TOTAL", t["text"], t["rodata"], t["data"], t["bss"]
    }'
  su_dir="$dir/runtime/CMakeFiles/pbp_runtime.dir"
  if compgen -G "$su_dir/src/*.su" >/dev/null; then
    echo "  stack frames (bytes, largest first; -fstack-usage):"
    cat "$su_dir"/src/*.su | awk -F'\t' '{ f = $1; sub(/^[^:]*:[0-9]+:[0-9]+:/, "", f); printf "%8d  %-9s %s\n", $2, $3, f }' |
      sort -rn | head -12 | sed 's/^/  /'
    awk -F'\t' '$3 != "static" { d++ } END { printf "  functions with non-static frames: %d\n", d + 0 }' "$su_dir"/src/*.su
  else
    echo "  no .su files (built without -fstack-usage?)"
  fi
done
