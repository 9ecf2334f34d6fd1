#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The distance scale A of seed_mixture.py fitted from training rows alone.

  distance_scale_fit.py --pbp BIN --data TRAIN.csv --work DIR [--jobs J] [-- train args]

Holds out, for every input column, the gap fold (the middle third of the rows ranked by it) and
the tail fold (its top and bottom 10 %) of the given rows, as tools/bench/shifted_splits.py does
with a whole set; trains one model on the rest of each (`pbp train --seed 1`, the defaults unless
train args follow `--`), and prints the A of a grid that maximises the held-out LL (mean over the
folds) with (A sd_y d)^2 added to each prediction's variance, then the profile: A, mean LL, worst
fold. Predictions are kept in --work. Python 3 standard library only.
"""

import argparse
import concurrent.futures
import importlib.util
import math
import os
import statistics

_spec = importlib.util.spec_from_file_location(
    "seed_mixture", os.path.join(os.path.dirname(os.path.abspath(__file__)), "seed_mixture.py"))
seed_mixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seed_mixture)

GRID = [0, 0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4]


def folds(values):
    """(name, training rows, held-out rows) of every input's gap and tail fold."""
    n = len(values)
    for j in range(len(values[0]) - 1):
        order = sorted(range(n), key=lambda i: (values[i][j], i))
        tail = n // 10
        for kind, held in (("gap", set(order[n // 3:n - n // 3])),
                           ("tail", set(order[:tail] + order[n - tail:]))):
            yield f"{kind}{j}", [i for i in range(n) if i not in held], sorted(held)


def fold_loglik(fold, scale):
    y, means, stds, distances, target_std = fold
    total = 0.0
    for t, m, s, d in zip(y, means, stds, distances):
        v = s * s + (scale * target_std * d) ** 2
        total += -0.5 * (math.log(2 * math.pi * v) + (t - m) ** 2 / v)
    return total / len(y)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pbp", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("train_args", nargs="*")
    a = ap.parse_args()
    header, rows = seed_mixture.read_rows(a.data)
    values = [[float(v) for v in r] for r in rows]

    def run(fold):
        name, fit, held = fold
        d = os.path.join(a.work, name)
        os.makedirs(d, exist_ok=True)
        seed_mixture.write_csv(os.path.join(d, "train.csv"), header, [rows[i] for i in fit])
        seed_mixture.write_csv(os.path.join(d, "test.csv"), header, [rows[i] for i in held])
        means, stds = seed_mixture.train_and_predict(a.pbp, os.path.join(d, "train.csv"),
                                                     os.path.join(d, "test.csv"), 1, d, a.train_args)
        fit_values, held_values = [values[i] for i in fit], [values[i] for i in held]
        return ([r[-1] for r in held_values], means, stds,
                seed_mixture.nearest_value_distances(fit_values, held_values),
                statistics.pstdev(r[-1] for r in fit_values))

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        scored = list(ex.map(run, list(folds(values))))
    profile = [(scale, [fold_loglik(f, scale) for f in scored]) for scale in GRID]
    best = max(profile, key=lambda p: statistics.fmean(p[1]))
    print(f"A {best[0]:g}")
    for scale, lls in profile:
        print(f"{scale:g}\t{statistics.fmean(lls):.3f}\t{min(lls):.2f}")


if __name__ == "__main__":
    main()
