#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails on any source, script or build file of the tree whose first line (the second after a
# shebang) is not its SPDX licence line. Data (blobs, CSV, golden outputs), prose and JSON, which
# cannot hold a comment, are exempt by their ending.
#   check_spdx.sh [source dir]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard)
else
  mapfile -t files < <(find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||')
fi
licence='SPDX-License-Identifier: Apache-2.0'
checked=0
missing=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  case "$f" in
    *.cpp | *.hpp | *.h | *.c | *.cc | *.S | *.sh | *.py | *.cmake | *CMakeLists.txt | *.ld | *.in | \
      *.toml | *.cfg | *.ino | *.properties | *.yml | .ci/*) ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
  first=$(head -n 1 "$f")
  line="$first"
  [[ "$first" == '#!'* ]] && line=$(sed -n 2p "$f")
  [[ "$line" == *"$licence"* ]] || missing+=("$f")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "check_spdx: ${#missing[@]} of $checked files lack '$licence' on their first line:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
echo "check_spdx: all $checked source, script and build files carry '$licence'"
