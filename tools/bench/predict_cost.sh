#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cost and accuracy of one pbp_predict (moment propagation, float) on a 13-50-1 model against
#   (b) a plain float MLP forward pass of the same shape with the weight means, and
#   (c) a 30-sample estimate of the predictive std (every weight drawn from N(m, v) with a
#       xorshift32 Irwin-Hall normal, 30 MLP forward passes: the draws are counted).
# (a), (b) and (c) are built with the runtime's flags (tools/bench/predict_cost/).
#   tools/bench/predict_cost.sh [<build dir> [<boston.csv>]]
# PREDICT_COST_MODEL=<model.pbp> skips the training (a model trained on those 306 rows).
# build dir: a host build (default build/bench, configured and built here if needed). With a CSV
# the model is trained on its first 306 rows (`pbp train`) and the last 200 rows are the test
# inputs; without, a deterministic random 13-50-1 model and random inputs.
# Prints callgrind instruction counts per prediction (--toggle-collect on the measured loops),
# the ratios against the goals (a) <= 3 x (b) and (c) >= 20 x (a), the per-part breakdown of (a),
# and the mean absolute relative error of the epistemic std of (a) and of (c) (10 runs) against a
# 10^5-sample Monte Carlo reference over the test inputs: goal (a) closer than (c).
# Reports what it measured; exits 0 unless something fails to run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build/bench}
csv=${2:-}
iterations=2000
sample_iterations=20

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target predict_cost >/dev/null
bench="$build/bin/predict_cost"
command -v valgrind >/dev/null || { echo "valgrind not found" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tools/bench/predict_cost_model.sh
source "$root/tools/bench/predict_cost_model.sh"
prepare_model "$build" "$csv" "$work"
if [[ $model_kind == trained ]]; then
  model_text="trained on the first 306 rows of $(basename "$csv"), 200 held-out rows as inputs"
else
  model_text="deterministic random 13-50-1 model, 200 random inputs"
fi

count() {  # mode iterations -> instructions in bench_<mode>
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" --toggle-collect="*bench_$1(*" \
    "$bench" run --model "$work/model.pbp" "${data[@]}" --mode "$1" --iterations "$2" \
    >/dev/null 2>"$work/valgrind.$1.log"
  local n
  n=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$work/cg.$1")
  [[ -n "$n" && "$n" -gt 0 ]] || { echo "no callgrind count for $1" >&2; cat "$work/valgrind.$1.log" >&2; exit 1; }
  echo "$n"
}
a=$(count pbp $iterations)
b=$(count mlp $iterations)
c=$(count sample $sample_iterations)
first=$(count first $iterations)
relu=$(count relu $iterations)
second=$(count second $iterations)
"$bench" accuracy --model "$work/model.pbp" "${data[@]}" --rows 200 --mc 100000 --runs 10 \
  >"$work/accuracy.txt"
get() { sed -n "s/^$1 //p" "$work/accuracy.txt"; }

awk -v a="$a" -v b="$b" -v c="$c" -v n="$iterations" -v nc="$sample_iterations" \
  -v first="$first" -v relu="$relu" -v second="$second" -v model="$model_text" \
  -v ea="$(get pbp_mean_rel_error)" -v ma="$(get pbp_max_rel_error)" \
  -v ec="$(get sample30_mean_rel_error)" -v noise="$(get mc_noise_rel)" \
  -v ref="$(get mean_reference_std)" 'BEGIN {
  a /= n; b /= n; c /= nc; first /= n; relu /= n; second /= n
  verdict = "PASS"
  printf "predict cost, host (callgrind instructions per prediction; %s)\n", model
  printf "  (a) pbp_predict (moments, float):         %9.0f\n", a
  printf "  (b) plain float MLP forward (means):      %9.0f\n", b
  printf "  (c) 30 weight samples + 30 MLP forwards:  %9.0f\n", c
  ok = a <= 3 * b; if (!ok) verdict = "FAIL"
  printf "  (a) / (b) = %.2f   goal <= 3    %s\n", a / b, ok ? "pass" : "FAIL"
  ok = c >= 20 * a; if (!ok) verdict = "FAIL"
  printf "  (c) / (a) = %.1f   goal >= 20   %s\n", c / a, ok ? "pass" : "FAIL"
  printf "  breakdown of (a): first layer %.0f (%.2f per weight), ReLU moments %.0f (%.1f per unit),\n",
         first, first / 700, relu, relu / 50
  printf "    output layer %.0f (%.2f per weight), rest (checks, standardisation, interval) %.0f\n",
         second, second / 51, a - first - relu - second
  printf "accuracy of the epistemic std vs a 1e5-sample Monte Carlo reference (mean %.4g; its own noise ~%.2g):\n", ref, noise
  printf "  (a) mean |rel. error| %.3g (max %.3g)\n", ea, ma
  printf "  (c) mean |rel. error| %.3g (200 inputs x 10 independent 30-sample runs)\n", ec
  ok = ea < ec; if (!ok) verdict = "FAIL"
  printf "  (a) closer than (c): %s\n", ok ? "pass" : "FAIL"
  printf "overall: %s\n", verdict
}'
