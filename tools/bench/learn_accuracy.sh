#!/usr/bin/env bash
# Learning on the device against the host trainer, on Boston: a model trained (pbp train, 40
# epochs) on the first 100 of the 455 training rows, then the other 355 rows learnt once each
# (a) by `pbp learn` (the runtime's float update, as a device runs it) and (b) by the trainer's
# one-pass ADF in double from the same blob (learn_reference); (c) pbp train on all 455 rows for
# reference. Test RMSE and log-likelihood on the last 51 rows (pbp eval).
#   tools/bench/learn_accuracy.sh <build dir> <boston.csv>
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 <build dir> <boston.csv>" >&2
  exit 2
fi
bin=$1/bin
csv=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -n 1 "$csv" >"$work/header"
{ cat "$work/header"; sed -n 2,101p "$csv"; } >"$work/first100.csv"
{ cat "$work/header"; sed -n 102,456p "$csv"; } >"$work/rest.csv"
{ cat "$work/header"; sed -n 2,456p "$csv"; } >"$work/train.csv"
{ cat "$work/header"; sed -n '457,$p' "$csv"; } >"$work/test.csv"
train=(--hidden 50 --epochs 40 --seed 1)
"$bin/pbp" train --data "$work/first100.csv" --out "$work/start.pbp" "${train[@]}" >/dev/null 2>&1
"$bin/pbp" learn --model "$work/start.pbp" --data "$work/rest.csv" --out "$work/device.pbp" \
  >"$work/learn.txt"
"$bin/learn_reference" "$work/start.pbp" "$work/rest.csv" "$work/host.pbp"
"$bin/pbp" train --data "$work/train.csv" --out "$work/all.pbp" "${train[@]}" >/dev/null 2>&1
echo "Boston: 100 training rows, then 355 more learnt once each; test: the last 51 rows"
printf "%-44s %8s %8s\n" "" "RMSE" "LL"
for spec in "start.pbp:trained on 100 rows" "device.pbp:+ pbp learn (device, float)" \
  "host.pbp:+ trainer's one-pass ADF (host, double)" "all.pbp:pbp train on all 455 rows"; do
  file=${spec%%:*}
  json=$("$bin/pbp" eval --model "$work/$file" --data "$work/test.csv" --json)
  rmse=$(sed -n 's/.*"rmse": *\([-0-9.e]*\).*/\1/p' <<<"$json")
  ll=$(sed -n 's/.*"loglik": *\([-0-9.e]*\).*/\1/p' <<<"$json")
  printf "%-44s %8.3f %8.3f\n" "${spec#*:}" "$rmse" "$ll"
done
echo "pbp learn on the 355 rows:"
grep -v "^wrote" "$work/learn.txt" | sed 's/^/  /'
