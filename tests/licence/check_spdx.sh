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
checked=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  case "$f" in
    *.cpp | *.hpp | *.h | *.c | *.cc | *.S | *.sh | *.py | *.cmake | *CMakeLists.txt | *.ld | *.in | \
      *.toml | *.cfg | *.ino | *.properties | *.yml | .ci/*) checked+=("./$f") ;;
  esac
done
# One awk over every file (a head per file took 10 CPU seconds): the names whose first line, or
# second after a shebang, carries the licence. "./" keeps awk from reading a name as an assignment.
declare -A carries=()
if [ ${#checked[@]} -gt 0 ]; then
  while IFS= read -r f; do carries[$f]=1; done < <(awk -v licence="$licence" '
    FNR == 1 && substr($0, 1, 2) != "#!" { if (index($0, licence)) print FILENAME; nextfile }
    FNR == 2 { if (index($0, licence)) print FILENAME; nextfile }' "${checked[@]}")
fi
missing=()
for f in "${checked[@]}"; do
  [ -n "${carries[$f]:-}" ] || missing+=("${f#./}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "check_spdx: ${#missing[@]} of ${#checked[@]} files lack '$licence' on their first line:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
echo "check_spdx: all ${#checked[@]} source, script and build files carry '$licence'"
