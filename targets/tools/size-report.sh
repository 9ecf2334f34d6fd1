#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
#
#   targets/tools/size-report.sh --os [preset...]  (default: every line of targets/presets.txt)
#
# The footprint a firmware sees, at -Os: configures and builds build/size-<preset> (MinSizeRel,
# -ffunction-sections -fdata-sections -fcallgraph-info=su, --gc-sections), then reports per target
# (targets/tools/footprint.py) text/rodata/data/bss of libpbp_runtime.a alone (no libc, no model),
# its largest symbols, what the boston_on_device example really links of it, the worst-case stack
# of pbp_open and pbp_predict along the static call graph, on bare metal also measured by stack
# painting (example_boston_on_device_stack), allocator references (zero heap), and the example
# model's workspace, the int8 Fashion-MNIST example's flash and RAM, pbp_store's code, stack, RAM
# and bytes written per save (example_learn_on_device). Ends with a summary against the budgets (M4F core text <= 4096 bytes,
# predict stack <= 512 bytes, zero heap). Takes a few minutes (-j2 builds).
# PBP_RUNTIME_ACTIVATIONS="relu" and PBP_RUNTIME_STORAGE="float32" (the CMake options' values)
# measure a runtime built with only those activations and storage types, in
# build/size-<preset>-<activations>-<storage>.
#
#   targets/tools/size-report.sh --firmware [preset...]  (default: cortex-m0 cortex-m4f rv32imac)
#
# The runtime a firmware following targets/DEPLOYING.md section 1 links: the runtime installed
# with that section's command (MinSizeRel, ReLU, one storage type: float32, then int8), the
# boston_on_device project built against the install with the preset's toolchain file, and the
# sections its link map takes from libpbp_runtime.a summed. The float32 model is the committed
# example's (13-50-1, what section 1 trains); the int8 one is it quantised (`pbp quantize
# --storage int8`, with build/host/bin/pbp, built if missing). The "distance" rows add the distance
# variance and the Student-t predictive section 1 leaves out (-DPBP_RUNTIME_DATA_DISTANCE=ON
# -DPBP_RUNTIME_PREDICTIVE_TAIL=ON, the CMake defaults: what a model trained with --recipe auto
# needs). The last row, "every kernel", is the float32 firmware against
# the runtime installed with the preset's defaults alone (Release, every activation and storage
# type, the distance variance): what section 1 gave before it named the options.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ "${1:-}" = "--firmware" ]; then
  shift
  presets=("$@")
  [ ${#presets[@]} -gt 0 ] || presets=(cortex-m0 cortex-m4f rv32imac)
  out="$root/build/size-firmware"
  example="$root/targets/examples/boston_on_device"
  mkdir -p "$out"
  pbp="$root/build/host/bin/pbp"
  if [ ! -x "$pbp" ]; then
    (cd "$root" && cmake --preset host >/dev/null && cmake --build --preset host --target pbp >/dev/null)
  fi
  # The committed float32 blob, back from its C array, then quantised and exported as int8.
  python3 - "$example/boston_13_50.c" "$out/boston_13_50.pbp" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
body = text[text.index("{", text.index("boston_13_50[")) + 1:]
body = body[:body.index("}")]
open(sys.argv[2], "wb").write(bytes(int(v, 0) for v in re.findall(r"0x[0-9a-fA-F]+|\d+", body)))
PY
  "$pbp" quantize "$out/boston_13_50.pbp" --storage int8 --out "$out/boston_13_50_int8.pbp" >/dev/null
  # The int8 firmware: the example's sources with the int8 export in place of the committed model
  # (main.c includes boston_13_50.h from its own folder first).
  rm -rf "$out/example-int8"
  cp -r "$example" "$out/example-int8"
  "$pbp" export-c "$out/boston_13_50_int8.pbp" --name boston_13_50 --out-dir "$out/example-int8" >/dev/null
  echo "bytes of libpbp_runtime.a in the firmware's link map; runtime installed as DEPLOYING.md section 1"
  printf '%-12s %-32s %7s %7s %5s %5s\n' preset "runtime (model)" text rodata data bss
  for preset in "${presets[@]}"; do
    for variant in float32 float32-distance int8 int8-distance default; do
      storage=${variant%-distance}
      dir="$out/$preset-$variant"
      # targets/DEPLOYING.md section 1's install options (keep the two alike); "-distance" with
      # the distance variance that section 1 leaves out.
      distance=OFF
      [ "$variant" = "$storage" ] || distance=ON
      options=(-DCMAKE_BUILD_TYPE=MinSizeRel -DPBP_RUNTIME_ACTIVATIONS=relu "-DPBP_RUNTIME_STORAGE=$storage"
        -DPBP_RUNTIME_LIKELIHOODS=gaussian_epistemic_scaled "-DPBP_RUNTIME_DATA_DISTANCE=$distance"
        "-DPBP_RUNTIME_PREDICTIVE_TAIL=$distance")
      label="-Os, relu, $storage ($storage)"
      [ $distance = OFF ] || label="-Os, relu, $storage, distance ($storage)"
      if [ $storage = default ]; then
        options=(-DCMAKE_BUILD_TYPE=Release "-DPBP_RUNTIME_ACTIVATIONS=relu;erf;sign"
          "-DPBP_RUNTIME_STORAGE=float32;float16;int8")
        label="every kernel, -O3 (float32)"
      fi
      (cd "$root" && cmake --preset "$preset" -B "$dir/runtime" "${options[@]}" \
        >"$dir.log" 2>&1 && cmake --build "$dir/runtime" -j2 --target pbp_runtime >>"$dir.log" 2>&1 &&
        cmake --install "$dir/runtime" --prefix "$dir/install" >>"$dir.log" 2>&1) ||
        { echo "size-report: the runtime install failed: $dir.log" >&2; exit 1; }
      source=$example
      [ $storage = int8 ] && source="$out/example-int8"
      rm -rf "$dir/firmware"
      # The map through LDFLAGS, which CMake puts before the toolchain file's linker flags
      # (-Wl,--gc-sections) where -DCMAKE_EXE_LINKER_FLAGS would replace them.
      LDFLAGS="-Wl,-Map=$dir/firmware/boston_on_device.map" \
        cmake -S "$source" -B "$dir/firmware" --toolchain "$root/targets/toolchains/$preset.cmake" \
        -DCMAKE_PREFIX_PATH="$dir/install" -DPBP_MODEL_DIR="$source" >>"$dir.log" 2>&1 &&
        cmake --build "$dir/firmware" >>"$dir.log" 2>&1 ||
        { echo "size-report: the firmware build failed: $dir.log" >&2; exit 1; }
      read -r _ text _ rodata _ data _ bss < <(python3 "$here/footprint.py" --map "$dir/firmware/boston_on_device.map")
      printf '%-12s %-32s %7d %7d %5d %5d\n' "$preset" "$label" "$text" "$rodata" "$data" "$bss"
    done
  done
  exit 0
fi

if [ "${1:-}" = "--os" ]; then
  shift
  export CCACHE_DISABLE=1  # a ccache hit restores the object without its -fcallgraph-info file
  presets=("$@")
  if [ ${#presets[@]} -eq 0 ]; then
    while read -r p; do
      [ -z "$p" ] || [[ "$p" == \#* ]] && continue
      presets+=("$p")
    done < "$root/targets/presets.txt"
  fi
  flags="-Os -DNDEBUG -ffunction-sections -fdata-sections -fcallgraph-info=su"
  summary=()
  for preset in "${presets[@]}"; do
    activations=${PBP_RUNTIME_ACTIVATIONS:-relu;erf;sign}
    storage=${PBP_RUNTIME_STORAGE:-float32;float16;int8}
    dir="$root/build/size-$preset${PBP_RUNTIME_ACTIVATIONS:+-${activations//;/-}}"
    dir+="${PBP_RUNTIME_STORAGE:+-${storage//;/-}}"
    echo "=== $preset at -Os (${dir#"$root/"}, activations ${activations//;/, }, storage ${storage//;/, })"
    cmake -S "$root" -B "$dir" --toolchain "$root/targets/toolchains/$preset.cmake" \
      -DCMAKE_BUILD_TYPE=MinSizeRel -DPBP_BUILD_HOST_TOOLS=OFF "-DPBP_RUNTIME_ACTIVATIONS=$activations" \
      "-DPBP_RUNTIME_STORAGE=$storage" \
      "-DCMAKE_C_FLAGS_MINSIZEREL=$flags" "-DCMAKE_CXX_FLAGS_MINSIZEREL=$flags" \
      -DCMAKE_EXE_LINKER_FLAGS_MINSIZEREL=-Wl,--gc-sections >/dev/null
    targets=(pbp_runtime example_boston_on_device)
    bare_metal=0
    grep -q '^PBP_TARGET_BOARD:INTERNAL=.' "$dir/CMakeCache.txt" && bare_metal=1
    [ $bare_metal = 1 ] && targets+=(example_boston_on_device_stack)
    cmake --build "$dir" -j2 --target "${targets[@]}" >/dev/null
    size_tool=$(sed -n 's/^PBP_TARGET_SIZE:INTERNAL=//p' "$dir/CMakeCache.txt")
    nm_tool=${size_tool%size}nm
    report=$(python3 "$here/footprint.py" "$dir" "$size_tool" "$nm_tool")
    echo "$report"
    measured="-"
    if [ $bare_metal = 1 ]; then
      out=$(cd "$dir" && ctest -R '^example_boston_on_device_stack$' -V 2>&1 || true)
      echo "$out" | grep -E '^[0-9]+: (pbp_|\[board)' | sed 's/^[0-9]*: /  measured (stack painting): /'
      measured=$(echo "$out" | sed -n 's/.*pbp_predict stack \([0-9]*\) bytes.*/\1/p' | head -1)
    fi
    # pbp_store's cost per save, from the learning example (every board with its RAM).
    if cmake --build "$dir" -j2 --target example_learn_on_device >/dev/null 2>&1; then
      report=$(python3 "$here/footprint.py" "$dir" "$size_tool" "$nm_tool")
      echo "$report" | sed -n '/pbp_store (/,$p'
      (cd "$dir" && ctest -R '^example_learn_on_device$' -V 2>&1 || true) |
        sed -n 's/^[0-9]*:   saved to slot 0 (sequence 1): /  pbp_store, bytes per save (13-50-1 blob, 1 KiB pages): /p'
    fi
    # The int8 Fashion-MNIST example (every board with the flash for its 973 016-byte model).
    if cmake --build "$dir" -j2 --target example_fashion_on_device >/dev/null 2>&1; then
      elf="$dir/bin/example_fashion_on_device"
      "$size_tool" "$elf" | awk 'NR == 2 { printf "  fashion_on_device (int8 784-400-400-10): flash %d bytes (text+data), static RAM %d bytes (data+bss, the board stack reservation included)\n", $1 + $2, $2 + $3 }'
      if [ $bare_metal = 1 ]; then
        (cd "$dir" && ctest -R '^example_fashion_on_device$' -V 2>&1 || true) | grep -E '^[0-9]+: \[board' |
          sed 's/^[0-9]*: /  fashion_on_device measured: /'
      fi
    fi
    core=$(echo "$report" | awk '$1 == "TOTAL" { print $2 "/" $3 "/" $4 "/" $5 }')
    linked=$(echo "$report" | sed -n 's/^ *text \([0-9]*\), rodata \([0-9]*\).*/\1\/\2/p')
    stack=$(echo "$report" | sed -n 's/^ *pbp_predict stack, static call graph: \([0-9]*\) bytes.*/\1/p')
    heap=$(echo "$report" | grep -q 'NONE referenced' && echo 0 || echo "USES HEAP")
    summary+=("$(printf '%-14s %-20s %-15s %-8s %-9s %s' "$preset" "$core" "$linked" "$stack" "$measured" "$heap")")
  done
  echo
  echo "=== summary (-Os; bytes)  budgets: M4F core text <= 4096, predict stack <= 512, heap 0"
  printf '%-14s %-20s %-15s %-8s %-9s %s\n' preset "core t/ro/d/bss" "linked t/ro" "stack" "measured" heap
  printf '%s\n' "${summary[@]}"
  exit 0
fi

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
