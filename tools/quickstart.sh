#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the main job — a
# Bayesian neural network trained by PBP on the Boston housing data, with honest uncertainty:
# cross-validated accuracy, a model blob for a device, and predictions with their error bars.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake --preset host >/dev/null
cmake --build --preset host
bash tools/scripts/fetch_datasets.sh build/datasets
pbp=build/host/bin/pbp
data=build/datasets/boston.csv

echo; echo "== 5 random 90/10 splits, 1 hidden layer of 50 ReLUs, 40 epochs =="
"$pbp" crossval --data "$data" --splits 5 --seed 1
echo; echo "== train on all rows, write the blob a device runs =="
"$pbp" train --data "$data" --out build/boston.pbp --seed 1
"$pbp" inspect build/boston.pbp
echo; echo "== predictions for the first 5 houses (k\$): mean, total std, epistemic, aleatoric =="
head -6 "$data" > build/boston_first5.csv
"$pbp" predict --model build/boston.pbp --data build/boston_first5.csv
echo; echo "(targets: $(tail -n +2 build/boston_first5.csv | cut -d, -f14 | paste -sd' '))"
