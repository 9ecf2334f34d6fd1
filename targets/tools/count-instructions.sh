#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Counts the guest instructions an ELF executes under the QEMU of a target preset.
#
#   targets/tools/count-instructions.sh <preset> <elf> [program arguments...]
#
# e.g.  targets/tools/count-instructions.sh cortex-m4f build/cortex-m4f/bin/runtime_smoke
# Prints the program's output, then "instructions: N" (and "exit status: S"). The emulator
# command comes from build/<preset>/CMakeCache.txt (PBP_TARGET_EMULATOR, written by targets/CMakeLists.txt), so configure
# the preset first. The plugin (targets/tools/insncount) is built on demand with the host cc into
# build/tools/insncount/. Bare-metal counts are exact and repeatable; in user mode (Linux presets)
# the count includes the C library's start-up, so measure N and 1 iterations and take the difference.
# PBP_COUNT_MARK=<hex address> also prints "mark: N" (the count so far) each time the instruction
# at that address runs (the plugin's mark=; targets/cost uses it). PBP_COUNT_PROFILE=<file> also
# writes each instruction address's count to <file> (the plugin's profile=; function-counts.py).
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
preset=$1
elf=$2
shift 2

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cache="$root/build/$preset/CMakeCache.txt"
if [ ! -f "$cache" ]; then
  echo "count-instructions: $cache not found: run 'cmake --preset $preset' first" >&2
  exit 2
fi
emulator=$(sed -n 's/^PBP_TARGET_EMULATOR:INTERNAL=//p' "$cache")
if [ -z "$emulator" ]; then
  echo "count-instructions: preset $preset has no CMAKE_CROSSCOMPILING_EMULATOR (host preset? use callgrind)" >&2
  exit 2
fi
IFS=';' read -r -a emu <<<"$emulator"

plugin_dir="$root/build/tools/insncount"
plugin="$plugin_dir/libinsncount.so"
source="$here/insncount/insncount.c"
if [ ! -f "$plugin" ] || [ "$source" -nt "$plugin" ]; then
  mkdir -p "$plugin_dir"
  "${CC:-cc}" -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o "$plugin" "$source"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# Plugin options go right after the emulator's name: qemu-user needs them before the program,
# and qemu-system-arm's command line ends with "-kernel" <elf>.
"${emu[0]}" -plugin "$plugin${PBP_COUNT_MARK:+,mark=$PBP_COUNT_MARK}${PBP_COUNT_PROFILE:+,profile=$PBP_COUNT_PROFILE}" -d plugin -D "$log" "${emu[@]:1}" "$elf" "$@" || status=$?
count=$(sed -n 's/^insns: //p' "$log" | tail -1)
if [ -z "$count" ]; then
  echo "count-instructions: no count reported (did QEMU load the plugin?)" >&2
  cat "$log" >&2
  exit 1
fi
grep '^mark: ' "$log" || true
echo "instructions: $count"
echo "exit status: $status"
exit "$status"
