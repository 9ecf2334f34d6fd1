#!/usr/bin/env bash
# CI's accuracy check on real data (needs ../shared/datasets): a short version of the Boston
# benchmark, the first 5 of the 20 standard splits, 1 x 50 hidden units, 40 epochs. Fails on a
# clear regression against the figures this code measured on the same splits (RMSE 2.7576,
# test LL -2.4487; over all 20 splits 2.9790 / -2.5570, the original C code 3.0014 / -2.5682).
#   usage: accuracy_check.sh <pbp binary> <datasets dir>
set -euo pipefail
pbp="$1"
data="$2"
max_rmse=2.80
min_loglik=-2.48

splits="$(mktemp -d)"
trap 'rm -rf "$splits"' EXIT
for s in 0 1 2 3 4; do
  cp "$data/boston_splits/index_train_$s.txt" "$data/boston_splits/index_test_$s.txt" "$splits/"
done
json="$("$pbp" crossval --data "$data/boston.csv" --split-files "$splits" --hidden 50 --epochs 40 --json)"
rmse="$(printf '%s' "$json" | grep -o '"rmse_mean": *[-0-9.e]*' | grep -o '[-0-9.e]*$')"
loglik="$(printf '%s' "$json" | grep -o '"loglik_mean": *[-0-9.e]*' | grep -o '[-0-9.e]*$')"
echo "boston, 5 standard splits, 1x50, 40 epochs: rmse_mean $rmse (max $max_rmse), loglik_mean $loglik (min $min_loglik)"
if awk -v r="$rmse" -v l="$loglik" -v mr="$max_rmse" -v ml="$min_loglik" 'BEGIN { exit !(r <= mr && l >= ml) }'; then
  echo "accuracy: 1 passed, 0 failed"
else
  echo "accuracy: 0 passed, 1 failed"
  exit 1
fi
