#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A mixture of K independently trained models (seeds 1..K), scored on a set's split files.

  seed_mixture.py --pbp BIN --data F.csv --splits DIR --work DIR [--seeds K] [--jobs J]
                  [--spread-scales C,...] [--distance-scales A,...]
                  [--label NAME] [-- train args]

For every split in DIR (index_{train,test}_<s>.txt, 0-based data rows) trains K models with
`pbp train --seed 1..K` (the trainer's defaults unless train args follow `--`) on the training
rows only, predicts the test rows with each, and scores the mixture of the first k models for
every k <= K: mean of the means; variance the mean of the total variances plus the variance of
the means (the moments of the equal-weight mixture, scored as one Gaussian, as a device would
report it). --spread-scales C,...: the variance of the means counted C times (default 1).
--distance-scales A,...: also each mixture with (A sd_y d)^2 added to its variance, a
candidate variance that grows away from the training rows: d the test row's largest distance, over
its inputs, to the nearest training value of that input, in that input's training stds (outside
an input's range: the range report's distance; in a gap between training values: half the gap at
most), sd_y the training targets' std. Predictions are kept in --work, so a rerun trains only what
is missing. Prints, per k, C and A: mean test LL ± se over the splits, the worst split, pooled
50/90/95 % coverage and RMSE. Python 3 standard library only.
"""

import argparse
import bisect
import concurrent.futures
import csv
import math
import os
import statistics
import subprocess
import sys


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def read_indices(path):
    with open(path, encoding="utf-8") as f:
        return [int(t) for t in f.read().split()]


def write_csv(path, header, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    os.replace(tmp, path)


def count_splits(folder):
    s = 0
    while os.path.exists(os.path.join(folder, f"index_train_{s}.txt")):
        s += 1
    return s


def train_and_predict(pbp, train_csv, test_csv, seed, out_dir, train_args):
    """(mean, std) lists of one seed's model on the test rows; cached in out_dir."""
    pred = os.path.join(out_dir, f"pred_seed{seed}.csv")
    if not os.path.exists(pred):
        model = os.path.join(out_dir, f"seed{seed}.pbp")
        subprocess.run([pbp, "train", "--data", train_csv, "--out", model, "--seed", str(seed),
                        "--threads", "1", *train_args],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([pbp, "predict", "--model", model, "--data", test_csv, "--out", pred],
                       check=True, stdout=subprocess.DEVNULL)
        os.remove(model)
    header, rows = read_rows(pred)
    m, s = header.index("mean"), header.index("std")
    return [float(r[m]) for r in rows], [float(r[s]) for r in rows]


Z = {0.5: 0.6744897501960817, 0.9: 1.6448536269514722, 0.95: 1.959963984540054}


def score(y, means, variances):
    ll = [-0.5 * (math.log(2 * math.pi * v) + (t - m) ** 2 / v) for t, m, v in zip(y, means, variances)]
    covered = {p: sum(abs(t - m) <= z * math.sqrt(v) for t, m, v in zip(y, means, variances))
               for p, z in Z.items()}
    sq = sum((t - m) ** 2 for t, m in zip(y, means))
    return statistics.fmean(ll), covered, sq


def nearest_value_distances(train, test):
    """Per test row: max over inputs of |x - nearest training value| / training std of that input."""
    inputs = len(train[0]) - 1
    columns = [sorted(r[j] for r in train) for j in range(inputs)]
    stds = [statistics.pstdev(c) or 1.0 for c in columns]
    distances = []
    for row in test:
        farthest = 0.0
        for j, c in enumerate(columns):
            at = bisect.bisect_left(c, row[j])
            nearest = min(abs(row[j] - c[i]) for i in (at - 1, at) if 0 <= i < len(c))
            farthest = max(farthest, nearest / stds[j])
        distances.append(farthest)
    return distances


def mixture(predictions, spread_scale=1.0):
    """Moments of the equal-weight mixture of [(means, stds)] per test row (the variance of the
    means counted spread_scale times)."""
    k = len(predictions)
    means, variances = [], []
    for i in range(len(predictions[0][0])):
        ms = [p[0][i] for p in predictions]
        vs = [p[1][i] ** 2 for p in predictions]
        mean = sum(ms) / k
        means.append(mean)
        variances.append(sum(vs) / k + spread_scale * sum((x - mean) ** 2 for x in ms) / k)
    return means, variances


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pbp", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--splits", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--spread-scales", default="1")
    ap.add_argument("--distance-scales", default="0")
    ap.add_argument("--label", default="")
    ap.add_argument("train_args", nargs="*")
    a = ap.parse_args()

    header, rows = read_rows(a.data)
    n = count_splits(a.splits)
    if n == 0:
        sys.exit(f"{a.splits}: no split files")
    os.makedirs(a.work, exist_ok=True)
    jobs = []
    tests = []
    for s in range(n):
        d = os.path.join(a.work, f"split{s}")
        os.makedirs(d, exist_ok=True)
        tr = read_indices(os.path.join(a.splits, f"index_train_{s}.txt"))
        te = read_indices(os.path.join(a.splits, f"index_test_{s}.txt"))
        write_csv(os.path.join(d, "train.csv"), header, [rows[i] for i in tr])
        write_csv(os.path.join(d, "test.csv"), header, [rows[i] for i in te])
        train_values = [[float(v) for v in rows[i]] for i in tr]
        test_values = [[float(v) for v in rows[i]] for i in te]
        tests.append(([r[-1] for r in test_values], nearest_value_distances(train_values, test_values),
                      statistics.pstdev(r[-1] for r in train_values)))
        for seed in range(1, a.seeds + 1):
            jobs.append((s, seed, d))
    preds = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futures = {ex.submit(train_and_predict, a.pbp, os.path.join(d, "train.csv"),
                             os.path.join(d, "test.csv"), seed, d, a.train_args): (s, seed)
                   for s, seed, d in jobs}
        for f in concurrent.futures.as_completed(futures):
            preds[futures[f]] = f.result()
    spreads = [float(t) for t in a.spread_scales.split(",")]
    scales = [float(t) for t in a.distance_scales.split(",")]
    for k in range(1, a.seeds + 1):
        for spread, scale in ((c, d) for c in (spreads if k > 1 else spreads[:1]) for d in scales):
            lls, covered, sq, count = [], {p: 0 for p in Z}, 0.0, 0
            for s in range(n):
                y, distances, target_std = tests[s]
                means, variances = mixture([preds[(s, seed)] for seed in range(1, k + 1)], spread)
                variances = [v + (scale * target_std * d) ** 2 for v, d in zip(variances, distances)]
                ll, cov, e = score(y, means, variances)
                lls.append(ll)
                for p in Z:
                    covered[p] += cov[p]
                sq += e
                count += len(y)
            se = statistics.stdev(lls) / math.sqrt(n) if n > 1 else 0.0
            cov = " / ".join(f"{covered[p] / count:.3f}" for p in Z)
            print(f"{a.label}\tK={k}\tC={spread:g}\tA={scale:g}\tLL {statistics.fmean(lls):.3f}"
                  f" ± {se:.3f}\tworst {min(lls):.2f}\tcov {cov}\tRMSE {math.sqrt(sq / count):.3f}"
                  f"\tsplits {n}")

if __name__ == "__main__":
    main()
