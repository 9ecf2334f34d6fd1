# SPDX-License-Identifier: Apache-2.0
# Sourced by the predict_cost benchmarks: the model and inputs they measure.
#   prepare_model <host build dir> <boston.csv or ""> <work dir>
# With a CSV: `pbp train` on its first 306 rows (or $PREDICT_COST_MODEL, a model already trained
# on them) and the last 200 rows as inputs, in data=(--data test.csv); without: the
# deterministic random 13-50-1 model and random inputs (data=()). Sets model_kind to
# "trained" or "random".
prepare_model() {
  local host=$1 csv=$2 work=$3
  data=()
  if [[ -n "$csv" ]]; then
    head -n 307 "$csv" >"$work/train.csv"
    { head -n 1 "$csv"; tail -n 200 "$csv"; } >"$work/test.csv"
    if [[ -n "${PREDICT_COST_MODEL:-}" ]]; then
      cp "$PREDICT_COST_MODEL" "$work/model.pbp"
    else
      cmake --build "$host" -j2 --target pbp >/dev/null
      "$host/bin/pbp" train --data "$work/train.csv" --out "$work/model.pbp" --recipe paper >/dev/null
    fi
    data=(--data "$work/test.csv")
    model_kind=trained
  else
    "$host/bin/predict_cost" random-blob --out "$work/model.pbp"
    model_kind=random
  fi
}
