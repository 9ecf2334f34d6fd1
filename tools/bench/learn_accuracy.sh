#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Learning on the device against the host trainer, on a regression data set with standard splits
# (Boston's 20 in ../shared/datasets/boston_splits: index_train_S.txt / index_test_S.txt, 0-based
# rows). Per split: a model trained (pbp train, 1 x 50, 40 epochs, seed 1) on the first 100 of the
# split's training rows; then the other training rows learnt once each (a) by `pbp learn` (the
# runtime's float update, as a device runs it) and (b) by the trainer's one-pass ADF in double from
# the same blob (learn_reference: ADF alone, without the device's re-fit of the epistemic scale and
# noise); (c) pbp train on all the training rows, for reference. Test RMSE, log-likelihood and 95 %
# coverage (pbp eval) on the split's test rows: per split, then mean and standard error over splits.
#   tools/bench/learn_accuracy.sh <build dir> <data.csv> <splits dir> [splits]
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 <build dir> <data.csv> <splits dir> [number of splits, default 20]" >&2
  exit 2
fi
bin=$1/bin
csv=$2
splits=$3
count=${4:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
train=(--hidden 50 --epochs 40 --seed 1)
# Rows of the CSV (0-based, header kept) in the order of an index file.
pick() { awk 'NR == FNR { order[n++] = $1; next } FNR == 1 { print; next } { row[FNR - 2] = $0 }
  END { for (i = 0; i < n; ++i) print row[order[i]] }' "$1" "$csv"; }
metric() { sed -n "s/.*\"$1\": *\([-0-9.e]*\).*/\1/p"; }
: >"$work/results"
for ((s = 0; s < count; ++s)); do
  pick "$splits/index_train_$s.txt" >"$work/train.csv"
  pick "$splits/index_test_$s.txt" >"$work/test.csv"
  head -n 101 "$work/train.csv" >"$work/first100.csv"
  { head -n 1 "$work/train.csv"; tail -n +102 "$work/train.csv"; } >"$work/rest.csv"
  "$bin/pbp" train --data "$work/first100.csv" --out "$work/start.pbp" "${train[@]}" >/dev/null 2>&1
  "$bin/pbp" learn --model "$work/start.pbp" --data "$work/rest.csv" --out "$work/device.pbp" \
    >/dev/null
  "$bin/learn_reference" "$work/start.pbp" "$work/rest.csv" "$work/host.pbp"
  "$bin/pbp" train --data "$work/train.csv" --out "$work/all.pbp" "${train[@]}" >/dev/null 2>&1
  line=""
  for model in start device host all; do
    json=$("$bin/pbp" eval --model "$work/$model.pbp" --data "$work/test.csv" --json)
    line+=" $(metric rmse <<<"$json") $(metric loglik <<<"$json") $(metric coverage95 <<<"$json")"
  done
  echo "$line" >>"$work/results"
done
rows=$(($(wc -l <"$work/rest.csv") - 1))
echo "$(basename "$csv"), $count splits: 100 training rows, then the other $rows learnt once each"
echo "per split: test RMSE / LL / 95 % coverage of the 100-row start, the device, all rows"
awk '{ printf "  split %2d  start %6.3f %7.3f %4.2f  device %6.3f %7.3f %4.2f  all %6.3f %7.3f %4.2f\n",
    NR - 1, $1, $2, $3, $4, $5, $6, $10, $11, $12
    if ($5 >= $2) ++kept }
  END { printf "device test LL >= the start'"'"'s on %d of %d splits\n", kept, NR }' "$work/results"
awk -v n="$count" 'BEGIN {
    name[1] = "trained on 100 rows (pbp train, 40 epochs)"
    name[2] = "+ pbp learn on the rest (device, float)"
    name[3] = "+ trainer one-pass ADF on the rest (host, double)"
    name[4] = "pbp train on all training rows (40 epochs)"
  }
  { for (i = 1; i <= NF; ++i) { sum[i] += $i; sq[i] += $i * $i } }
  END {
    printf "%-50s %18s %18s %8s\n", "", "test RMSE", "test LL", "95 % cov"
    for (m = 1; m <= 4; ++m) {
      r = 3 * m - 2; l = 3 * m - 1; c = 3 * m
      printf "%-50s %9.3f +- %5.3f %9.3f +- %5.3f %8.3f\n", name[m], sum[r] / n,
        sqrt((sq[r] / n - (sum[r] / n) ^ 2) / (n - 1) * n / n), sum[l] / n,
        sqrt((sq[l] / n - (sum[l] / n) ^ 2) / (n - 1) * n / n), sum[c] / n
    }
  }' "$work/results"
