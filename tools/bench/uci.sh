#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The UCI regression benchmark: every data set found in the given folders through
# `pbp crossval --split-files` (the trainer's defaults unless crossval arguments follow `--`), then
# one table beside the published figures (PBP paper, MC dropout, deep ensembles) and an SVG figure.
#   tools/bench/uci.sh [--pbp BIN] [--out DIR] [--splits N] [--kinds K,...] [--ensemble]
#                      DATA_DIR... [-- crossval args]
# A data set is either a folder <name>/ holding one CSV (<name>.csv if there are several) and
# splits/index_{train,test}_<s>.txt, or <name>.csv beside <name>_splits/ (Boston's layout). Each
# DATA_DIR is searched one level deep, or is a data set folder itself. All sets are checked before
# any training. --splits N: the first N splits only (quick runs).
# --kinds: which splits, comma-separated (default random): random = the set's split files; gap and
# tail = test rows away from the training rows, one split per input column, made from the data by
# tools/bench/shifted_splits.py into <out>/splits/<name>/<kind>/ (gap: the middle third of the
# rows ranked by that column; tail: its top and bottom 10 %).
# --ensemble: also a 5-net deep ensemble trained here on the same split files
# (tools/bench/ensemble_baseline.py, PyTorch: tools/setup.sh --bench), in the tables beside pbp-edge.
# Writes to --out (default build/uci_bench): <name>[.<kind>][.ensemble].json (crossval's JSON, each split's
# test row count added), <name>[.<kind>].log (its stderr), uci.md and uci_loglik.svg; prints the
# tables. Exits non-zero if any set failed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pbp=$root/build/host/bin/pbp
out=$root/build/uci_bench
max_splits=0
kinds=(random)
ensemble=0
data_dirs=()
crossval_args=()

usage() {
  echo "usage: $0 [--pbp BIN] [--out DIR] [--splits N] [--kinds K,...] [--ensemble] DATA_DIR..." \
    "[-- crossval args]" >&2
  exit 2
}
fail() {
  echo "uci.sh: $*" >&2
  exit 1
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --pbp) [[ $# -ge 2 ]] || usage; pbp=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || usage; out=$2; shift 2 ;;
    --splits)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || fail "--splits needs a positive whole number"
      max_splits=$2; shift 2 ;;
    --kinds)
      [[ $# -ge 2 && $2 =~ ^(random|gap|tail)(,(random|gap|tail))*$ ]] ||
        fail "--kinds needs a comma-separated list of random, gap and tail"
      IFS=, read -r -a kinds <<<"$2"; shift 2 ;;
    --ensemble) ensemble=1; shift ;;
    --) shift; crossval_args=("$@"); break ;;
    -h | --help) usage ;;
    -*) echo "uci.sh: unknown option $1" >&2; usage ;;
    *) data_dirs+=("$1"); shift ;;
  esac
done
[[ ${#data_dirs[@]} -gt 0 ]] || usage
[[ -x $pbp ]] || fail "pbp binary not found or not executable: $pbp (build it, or give --pbp)"
command -v python3 >/dev/null || fail "python3 not found (it writes the report)"

# Data sets found: parallel arrays of name, CSV and split folder.
names=()
csvs=()
split_dirs=()

add_set() {  # name csv split_dir
  local existing
  for existing in "${names[@]+"${names[@]}"}"; do
    [[ $existing != "$1" ]] || fail "two data sets named '$1' (the second: $2)"
  done
  [[ -f $2 ]] || fail "$2: not a file"
  [[ -d $3 ]] || fail "data set '$1': split folder $3 missing"
  [[ -f $3/index_train_0.txt && -f $3/index_test_0.txt ]] ||
    fail "data set '$1': $3 holds no index_train_0.txt and index_test_0.txt"
  names+=("$1")
  csvs+=("$2")
  split_dirs+=("$3")
}

add_set_folder() {  # folder (holding a CSV and splits/)
  local folder=$1 name csv
  name=$(basename "$(cd "$folder" && pwd)")
  local found=("$folder"/*.csv)
  if [[ -f $folder/$name.csv ]]; then
    csv=$folder/$name.csv
  elif [[ ${#found[@]} -eq 1 && -f ${found[0]} ]]; then
    csv=${found[0]}
  elif [[ -f ${found[0]} ]]; then
    fail "$folder: several CSV files and none named $name.csv"
  else
    fail "$folder: a splits/ folder but no CSV file"
  fi
  add_set "$name" "$csv" "$folder/splits"
}

find_sets() {  # data_dir
  local dir=${1%/} before=${#names[@]} entry name
  [[ -d $dir ]] || fail "$dir: not a folder"
  if [[ -d $dir/splits ]]; then  # the folder is a data set itself
    add_set_folder "$dir"
    return
  fi
  for entry in "$dir"/*; do
    name=$(basename "$entry")
    if [[ -d $entry && -d $entry/splits ]]; then
      add_set_folder "$entry"
    elif [[ -d $entry ]] && compgen -G "$entry/*.csv" >/dev/null; then
      fail "$entry: a data set folder without its splits/ folder"
    elif [[ -f $entry && $name == *.csv && -d $dir/${name%.csv}_splits ]]; then
      add_set "${name%.csv}" "$entry" "$dir/${name%.csv}_splits"
    elif [[ -d $entry && $name == *_splits && ! -f $dir/${name%_splits}.csv ]]; then
      fail "$entry: split files without their data ${name%_splits}.csv"
    fi
  done
  [[ ${#names[@]} -gt $before ]] ||
    fail "$dir: no data sets found (a folder with a CSV and splits/, or X.csv beside X_splits/)"
}

for dir in "${data_dirs[@]}"; do find_sets "$dir"; done

mkdir -p "$out"
work=$(mktemp -d "$out/.uci.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --splits N: a folder of links to the first N split pairs (fewer if the set has fewer).
limited_splits() {  # split_dir name -> folder to read
  local src=$1 dst=$work/splits_$2 s
  mkdir -p "$dst"
  for ((s = 0; s < max_splits; ++s)); do
    [[ -f $src/index_train_$s.txt ]] || break
    [[ -f $src/index_test_$s.txt ]] || fail "$src/index_test_$s.txt missing (its train file exists)"
    ln -s "$(cd "$src" && pwd)/index_train_$s.txt" "$dst/"
    ln -s "$(cd "$src" && pwd)/index_test_$s.txt" "$dst/"
  done
  echo "$dst"
}

count_splits() {  # split_dir
  local s=0
  while [[ -f $1/index_train_$s.txt ]]; do s=$((s + 1)); done
  echo "$s"
}

# crossval's --target, if given, names the column the shifted splits leave out.
target_args=()
for ((a = 0; a < ${#crossval_args[@]}; ++a)); do
  [[ ${crossval_args[$a]} != --target ]] || target_args=(--target "${crossval_args[$((a + 1))]:-}")
done

# The ensemble's Python: Debian's, where python3-torch installs (tools/setup.sh --bench).
torch_python=python3
[[ ! -x /usr/bin/python3 ]] || torch_python=/usr/bin/python3

annotate() {  # json split_dir kind: each split's test row count and the kind, into the JSON
  python3 - "$@" <<'PY' 2>/dev/null
import json, os, sys
path, folder, kind = sys.argv[1:]
result = json.load(open(path))
for s, split in enumerate(result["splits"]):
    with open(os.path.join(folder, f"index_test_{s}.txt")) as f:
        split["test_rows"] = len(f.read().split())
result["split_kind"] = kind
with open(path, "w") as f:
    json.dump(result, f, indent=1)
PY
}
keep() {  # label: its JSON and log into --out
  mv -f "$work/$1.json" "$out/$1.json"
  mv -f "$work/$1.log" "$out/$1.log"
  results+=("$out/$1.json")
}
drop() {  # label: a failed run
  mv -f "$work/$1.log" "$out/$1.log"
  rm -f "$out/$1.json"  # no stale figures from an earlier run in the report
  failed+=("$1")
  echo "FAILED after $(($(date +%s) - start)) s; $out/$1.log ends:" >&2
  tail -n 5 "$out/$1.log" | sed 's/^/    /' >&2
}

echo "uci.sh: ${#names[@]} data sets: ${names[*]}; splits ${kinds[*]};" \
  "crossval ${crossval_args[*]:-(defaults)}" >&2
results=()
failed=()
runs=$((${#names[@]} * ${#kinds[@]}))
run=0
for i in "${!names[@]}"; do
  name=${names[$i]}
  for kind in "${kinds[@]}"; do
    run=$((run + 1))
    label=$name
    splits=${split_dirs[$i]}
    if [[ $kind != random ]]; then
      label=$name.$kind
      python3 "$root/tools/bench/shifted_splits.py" "${csvs[$i]}" "$out/splits/$name" \
        "${target_args[@]+"${target_args[@]}"}" || fail "$name: no $kind splits"
      splits=$out/splits/$name/$kind
    fi
    [[ $max_splits -eq 0 ]] || splits=$(limited_splits "$splits" "$label")
    n=$(count_splits "$splits")
    printf 'uci.sh: [%d/%d] %s, %s splits (%d) ... ' "$run" "$runs" "$name" "$kind" "$n" >&2
    start=$(date +%s)
    if "$pbp" crossval --data "${csvs[$i]}" --split-files "$splits" --json \
      "${crossval_args[@]+"${crossval_args[@]}"}" >"$work/$label.json" 2>"$work/$label.log" &&
      annotate "$work/$label.json" "$splits" "$kind"; then
      keep "$label"
      echo "done in $(($(date +%s) - start)) s" >&2
    else
      drop "$label"
    fi
    [[ $ensemble -eq 1 ]] || continue
    printf 'uci.sh: [%d/%d] %s, %s splits, the deep ensemble ... ' "$run" "$runs" "$name" "$kind" >&2
    start=$(date +%s)
    if "$torch_python" "$root/tools/bench/ensemble_baseline.py" "${csvs[$i]}" "$splits" \
      "${target_args[@]+"${target_args[@]}"}" >"$work/$label.ensemble.json" \
      2>"$work/$label.ensemble.log" && annotate "$work/$label.ensemble.json" "$splits" "$kind"; then
      keep "$label.ensemble"
      echo "done in $(($(date +%s) - start)) s" >&2
    else
      drop "$label.ensemble"
    fi
  done
done

if [[ ${#results[@]} -gt 0 ]]; then
  note="pbp crossval ${crossval_args[*]:-(trainer defaults)}"
  [[ $max_splits -eq 0 ]] || note+=", first $max_splits splits only"
  failed_args=()
  for name in "${failed[@]+"${failed[@]}"}"; do failed_args+=(--failed "$name"); done
  python3 "$root/tools/bench/uci_report.py" --out "$out" --note "$note" \
    "${failed_args[@]+"${failed_args[@]}"}" "${results[@]}"
fi
[[ ${#failed[@]} -eq 0 ]] || fail "failed: ${failed[*]} (see their .log in $out)"
