#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Arduino library from the amalgamated runtime and checks it as the Arduino tools
# would: arduino-builder compiles the library's example sketch for the QEMU board of qemu/
# (Cortex-M4F, mps2-an386), qemu-system-arm runs it, and its output must equal
# expected_output.txt (the board glue's "[board" lines left out).
#
#   targets/arduino/check.sh WORK_DIR
#
# Leaves in WORK_DIR: libraries/pbp-edge (the library: library.properties, src/, examples/),
# pbp-edge.zip (the same, for the IDE's "Add .ZIP Library"), hardware/ (the QEMU platform) and
# build/ (the sketch's objects, ELF and map). Prints "SKIPPED:" when a tool is missing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(realpath -m "$1")
for tool in arduino-builder arm-none-eabi-gcc qemu-system-arm python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIPPED: no $tool (apt-get install arduino-builder gcc-arm-none-eabi qemu-system-arm)"
    exit 0
  fi
done
rm -rf "$work"
library=$work/libraries/pbp-edge
sketch=$library/examples/boston_prediction

# The library: the amalgamation in src/, the committed parts, the example's exported model.
python3 "$root/tools/scripts/amalgamate.py" "$library/src" >/dev/null
mv "$library/src/LICENSE" "$library/LICENSE"
cp -r "$here/library/." "$library/"
version=$(sed -n 's/^project(pbp_edge VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
sed -i "s/@PBP_VERSION@/$version/" "$library/library.properties"
cp "$root/targets/examples/boston_on_device/boston_13_50.c" \
  "$root/targets/examples/boston_on_device/boston_13_50.h" "$sketch/"
(cd "$work/libraries" && python3 -m zipfile -c "$work/pbp-edge.zip" pbp-edge)

# The QEMU platform: its committed definition and the project's board glue.
platform=$work/hardware/pbp/qemu
mkdir -p "$platform/ld/cortex-m" "$platform/ld/mps2-an386" "$platform/cores/qemu/cortex-m"
cp -r "$here/qemu/." "$platform/"
cp "$root/targets/boards/board.c" "$root/targets/boards/board.h" "$platform/cores/qemu/"
cp "$root/targets/boards/cortex-m/startup.c" "$root/targets/boards/cortex-m/semihost.h" \
  "$platform/cores/qemu/cortex-m/"
cp "$root/targets/boards/cortex-m/cortex-m.ld" "$platform/ld/cortex-m/"
cp "$root/targets/boards/mps2-an386/memory.ld" "$platform/ld/mps2-an386/"

mkdir -p "$work/build"
mkdir -p "$work/tools"  # none: the platform names its compilers and ctags itself
arduino-builder -compile -hardware "$work/hardware" -tools "$work/tools" -libraries "$work/libraries" \
  -fqbn pbp:qemu:mps2_an386 -build-path "$work/build" -warnings all -verbose \
  "$sketch/boston_prediction.ino" >"$work/arduino-builder.log" 2>&1 || {
  cat "$work/arduino-builder.log"
  echo "arduino-builder failed"
  exit 1
}
elf=$work/build/boston_prediction.ino.elf
arm-none-eabi-size "$elf"
qemu-system-arm -M mps2-an386 -display none -serial none -monitor none -chardev stdio,id=shc \
  -semihosting-config enable=on,target=native,chardev=shc -kernel "$elf" >"$work/output.txt"
grep -v '^\[board ' "$work/output.txt" >"$work/output.compared.txt" || true
if ! diff -u "$here/expected_output.txt" "$work/output.compared.txt"; then
  echo "the sketch's output differs from targets/arduino/expected_output.txt"
  exit 1
fi
cat "$work/output.txt"
echo "arduino: the library's example, built by arduino-builder, printed expected_output.txt"
