#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Chooses the density strategies' kernel width (pbp active --density-width) without a test row:
# every data set through `pbp active --score-on pool` (the development protocol: each repeat's
# test rows are left out, the scores come from rows taken from its pool) for each width, then per
# width the mean over the sets of log(final RMSE / random's final RMSE), paired by repeat, of
# density-variance and density-reduction together. The width with the lowest is the choice.
#   tools/bench/active_density_width.sh [--pbp BIN] [--widths "1 2 3 4"] [--repeats 100]
#       [--seed 1] [--out DIR] DATA.csv... [-- pbp active args]
# The PBP paper's protocol otherwise: --hidden 10 --epochs 40 --recipe paper, 20 initial rows,
# 100 scored, 9 additions. Writes each run's JSON to --out (default build/active_density_width).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pbp=$root/build/host/bin/pbp
out=$root/build/active_density_width
widths="1 2 3 4"
repeats=100
seed=1
sets=()
extra=()
usage() {
  echo "usage: $0 [--pbp BIN] [--widths LIST] [--repeats N] [--seed S] [--out DIR] DATA.csv..." \
       "[-- pbp active args]" >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --pbp) [[ $# -ge 2 ]] || usage; pbp=$2; shift 2 ;;
    --widths) [[ $# -ge 2 ]] || usage; widths=$2; shift 2 ;;
    --repeats) [[ $# -ge 2 ]] || usage; repeats=$2; shift 2 ;;
    --seed) [[ $# -ge 2 ]] || usage; seed=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || usage; out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) usage ;;
    -*) echo "active_density_width.sh: unknown option $1" >&2; usage ;;
    *) sets+=("$1"); shift ;;
  esac
done
[[ ${#sets[@]} -gt 0 ]] || usage
[[ -x $pbp ]] || { echo "active_density_width.sh: no pbp binary at $pbp" >&2; exit 1; }
for csv in "${sets[@]}"; do [[ -f $csv ]] || { echo "$csv: not a file" >&2; exit 1; }; done
mkdir -p "$out"
for csv in "${sets[@]}"; do
  name=$(basename "$csv" .csv)
  for width in $widths; do
    json=$out/${name}_w${width}_s${seed}.json
    echo "== $name, width $width ($repeats repeats, scored on the pool)" >&2
    "$pbp" active --pool "$csv" --hidden 10 --epochs 40 --recipe paper --repeats "$repeats" \
      --seed "$seed" --score-on pool --density-width "$width" \
      --strategy density-variance,density-reduction,random --json "${extra[@]+"${extra[@]}"}" \
      > "$json.tmp"
    mv "$json.tmp" "$json"
  done
done
python3 - "$out" "$seed" "$widths" "${sets[@]}" <<'PY'
import json, math, os, sys
out, seed, widths, sets = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
names = [os.path.splitext(os.path.basename(s))[0] for s in sets]
strategies = ["density-variance", "density-reduction"]
print("final RMSE scored on pool rows (never a test row); random - strategy paired, mean +- se")
print("| data set | width | random | " + " | ".join(f"{s} | random - it" for s in strategies) + " |")
print("|---|---|---|" + "---|---|" * len(strategies))
score = {w: [] for w in widths}
for name in names:
    for w in widths:
        runs = json.load(open(f"{out}/{name}_w{w}_s{seed}.json"))
        rand = [r[-1] for r in runs["random"]["rmse_per_repeat"]]
        cells = []
        for s in strategies:
            mine = [r[-1] for r in runs[s]["rmse_per_repeat"]]
            d = [a - b for a, b in zip(rand, mine)]
            mean = sum(d) / len(d)
            se = math.sqrt(sum((x - mean) ** 2 for x in d) / len(d) / len(d))
            cells.append(f"{sum(mine) / len(mine):.4g} | {mean:.4g} +- {se:.2g}")
            score[w].append(sum(math.log(b / a) for a, b in zip(rand, mine)) / len(mine))
        print(f"| {name} | {w} | {sum(rand) / len(rand):.4g} | " + " | ".join(cells) + " |")
print("\nmean over sets and both strategies of log(RMSE / random's RMSE), lower is better:")
for w in widths:
    print(f"  width {w}: {sum(score[w]) / len(score[w]):+.5f}")
best = min(widths, key=lambda w: sum(score[w]) / len(score[w]))
print(f"choice: --density-width {best}")
PY
