#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CI stage "package" (tools/check.sh): pbp-edge as a user's own project sees it.
#   1. targets/DEPLOYING.md's walk-through: every sh block marked for CI, run verbatim from the
#      top of the tree (its output folders build/install and build/deploy made afresh); then the
#      walk-through's firmware must print what the same project built for the host prints, and
#      run-on-device.sh's bits for Boston's rows must be the host runtime's.
#   2. The host install: boston_on_device (targets/examples) built outside the tree against it with
#      CMake (find_package) and with a plain compiler and pkg-config; the trainer and the pbp tool
#      through tests/package/trainer_consumer; the runtime built from source through FetchContent
#      (tests/package/fetchcontent).
#   3. The cortex-m4f install (the runtime alone): boston_on_device cross-compiled against it and
#      run under QEMU.
# Every boston_on_device build of the committed model must print its expected_output.txt (the
# same bits on every CPU and target).
# Needs the host build (cmake --workflow --preset host); builds the cortex-m4f runtime if needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$root/build/package
example=$root/targets/examples/boston_on_device
qemu=(qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native -kernel)
rm -rf "$out" build/install build/deploy
mkdir -p "$out"
step() { printf -- '-- package: %s\n' "$*"; }
# without_board <file>: the program's output without the board glue's "[board ...]" lines.
without_board() { grep -v '^\[board ' "$1" || true; }
# expect_same <label> <output file> <expected file>
expect_same() {
  if ! diff -u <(without_board "$3") <(without_board "$2"); then
    echo "package: FAILED: $1 ($2) differs from $3" >&2
    exit 1
  fi
  echo "   $1: as expected ($(without_board "$2" | wc -l) lines)"
}
configure_and_build() {  # configure_and_build <build dir> <cmake configure arguments...>
  local dir=$1
  shift
  cmake -B "$dir" "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" -j2 >"$dir.build.log" 2>&1 || { cat "$dir.build.log"; exit 1; }
}

step "DEPLOYING.md's walk-through, verbatim"
awk '/<!-- CI runs the next sh block verbatim/ { marked = 1; next }
     marked && /^```sh$/ { inside = 1; next }
     inside && /^```$/ { inside = 0; marked = 0; next }
     inside { print }' targets/DEPLOYING.md >"$out/walkthrough.sh"
[[ -s $out/walkthrough.sh ]] || { echo "package: no marked block in targets/DEPLOYING.md" >&2; exit 1; }
start=$SECONDS
bash -euo pipefail -x "$out/walkthrough.sh" >"$out/walkthrough.log" 2>&1 || {
  cat "$out/walkthrough.log"
  echo "package: FAILED: targets/DEPLOYING.md's walk-through ($out/walkthrough.sh)" >&2
  exit 1
}
echo "   ran its $(grep -c '^+ ' "$out/walkthrough.log") commands in $((SECONDS - start)) s"
"${qemu[@]}" build/deploy/firmware/boston_on_device >"$out/walkthrough-cmake.txt"
"${qemu[@]}" build/deploy/boston.elf >"$out/walkthrough-make.txt"
configure_and_build "$out/walkthrough-host" -S "$example" -DCMAKE_PREFIX_PATH="$root/build/install/host" \
  -DPBP_MODEL_DIR="$root/build/deploy/model"
"$out/walkthrough-host/boston_on_device" >"$out/walkthrough-host.txt"
expect_same "its firmware (CMake) under QEMU" "$out/walkthrough-cmake.txt" "$out/walkthrough-host.txt"
expect_same "its firmware (pkg-config) under QEMU" "$out/walkthrough-make.txt" \
  "$out/walkthrough-host.txt"
# The device install states what it holds: ReLU and float32 only, as section 1 configured it.
config=build/install/cortex-m4f/include/pbp/pbp_config.h
for line in "PBP_WITH_ERF 0" "PBP_WITH_SIGN 0" "PBP_WITH_FLOAT32 1" "PBP_WITH_FLOAT16 0" \
  "PBP_WITH_INT8 0"; do
  grep -qx "#define $line" "$config" || { echo "package: FAILED: $config lacks '#define $line'" >&2; exit 1; }
done
echo "   the device install's pbp_config.h: ReLU and float32 only"
# The "Will it fit" section's example: the end of what pbp inspect --target prints for the
# walk-through's model, as the program prints it.
awk '/<!-- CI compares the next block with what the command above prints/ { marked = 1; next }
     marked && /^```$/ { if (inside) exit; inside = 1; next }
     inside { print }' targets/DEPLOYING.md >"$out/inspect-expected.txt"
[[ -s $out/inspect-expected.txt ]] || { echo "package: no inspect block in targets/DEPLOYING.md" >&2; exit 1; }
build/host/bin/pbp inspect build/deploy/boston_13_50.pbp --target cortex-m4f |
  tail -n "$(wc -l <"$out/inspect-expected.txt")" >"$out/inspect.txt"
expect_same "DEPLOYING.md's pbp inspect --target example" "$out/inspect.txt" "$out/inspect-expected.txt"
bash targets/tools/run-on-device.sh --preset cortex-m4f build/deploy/boston_13_50.pbp \
  build/datasets/boston.csv >"$out/device-rows.txt"
build/host/bin/pbp predict --model build/deploy/boston_13_50.pbp --data build/datasets/boston.csv \
  --out "$out/boston-predictions.csv" --inputs-f32 "$out/boston.f32"
sh build/host/run-model-runner.sh build/deploy/boston_13_50.pbp "$out/boston.f32" >"$out/host-rows.txt"
expect_same "run-on-device.sh, Boston's 506 rows from the CSV (every output's bits)" \
  "$out/device-rows.txt" "$out/host-rows.txt"

step "host install"
cmake --install build/host --prefix "$out/host" >"$out/install-host.log"
configure_and_build "$out/boston-host" -S "$example" -DCMAKE_PREFIX_PATH="$out/host"
"$out/boston-host/boston_on_device" >"$out/boston-host.txt"
expect_same "boston_on_device, CMake, host" "$out/boston-host.txt" "$example/expected_output.txt"
pc() { PKG_CONFIG_LIBDIR=$out/host/lib/pkgconfig pkg-config "$@"; }
cc -std=c99 -O2 $(pc --cflags pbp-runtime) -I"$example" "$example/main.c" "$example/boston_13_50.c" \
  -o "$out/boston-pkgconfig" $(pc --libs pbp-runtime) -lm
"$out/boston-pkgconfig" >"$out/boston-pkgconfig.txt"
expect_same "boston_on_device, cc + pkg-config, host" "$out/boston-pkgconfig.txt" \
  "$example/expected_output.txt"
configure_and_build "$out/trainer-consumer" -S tests/package/trainer_consumer \
  -DCMAKE_PREFIX_PATH="$out/host"
(cd "$out/trainer-consumer" && ctest --output-on-failure >"$out/trainer-consumer.ctest.log") || {
  cat "$out/trainer-consumer.ctest.log"
  exit 1
}
echo "   trainer and tool (tests/package/trainer_consumer):" \
  "$(grep 'tests passed' "$out/trainer-consumer.ctest.log")"
configure_and_build "$out/fetchcontent" -S tests/package/fetchcontent \
  -DFETCHCONTENT_SOURCE_DIR_PBP="$root"
"$out/fetchcontent/boston_on_device" >"$out/fetchcontent.txt"
expect_same "boston_on_device, FetchContent (runtime from source)" "$out/fetchcontent.txt" \
  "$example/expected_output.txt"

step "cortex-m4f install (the runtime alone)"
cmake --preset cortex-m4f >"$out/configure-cortex-m4f.log"
cmake --build --preset cortex-m4f --target pbp_runtime >"$out/build-cortex-m4f.log"
cmake --install build/cortex-m4f --prefix "$out/cortex-m4f" >"$out/install-cortex-m4f.log"
configure_and_build "$out/boston-cortex-m4f" -S "$example" \
  --toolchain "$root/targets/toolchains/cortex-m4f.cmake" -DCMAKE_PREFIX_PATH="$out/cortex-m4f"
"${qemu[@]}" "$out/boston-cortex-m4f/boston_on_device" >"$out/boston-cortex-m4f.txt"
expect_same "boston_on_device, CMake, Cortex-M4F under QEMU" "$out/boston-cortex-m4f.txt" \
  "$example/expected_output.txt"
if [[ -d $out/cortex-m4f/bin || -e $out/cortex-m4f/lib/libpbp_trainer.a ]]; then
  echo "package: FAILED: the cortex-m4f install holds more than the runtime" >&2
  exit 1
fi
echo "package: all checks passed"
