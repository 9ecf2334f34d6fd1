#!/usr/bin/env bash
# CI stage "package" (tools/check.sh): pbp-edge as a user's own project sees it.
#   1. The host install: boston_on_device (targets/examples) built outside the tree against it with
#      CMake (find_package) and with a plain compiler and pkg-config; the trainer and the pbp tool
#      through tests/package/trainer_consumer; the runtime built from source through FetchContent
#      (tests/package/fetchcontent).
#   2. The cortex-m4f install (the runtime alone): boston_on_device cross-compiled against it and
#      run under QEMU.
# Every boston_on_device build must print its expected_output.txt (the committed model: the same
# bits on every CPU and target).
# Needs the host build (cmake --workflow --preset host); builds the cortex-m4f runtime if needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$root/build/package
example=$root/targets/examples/boston_on_device
qemu=(qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native -kernel)
rm -rf "$out"
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
