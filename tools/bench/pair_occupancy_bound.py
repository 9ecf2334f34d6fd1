#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a variance term for unseen input *combinations* could gain: an upper bound per data set.

  pair_occupancy_bound.py --pbp BIN --data F.csv --splits NAME=DIR [--splits NAME=DIR ...]
                          --work DIR [--bins B] [--jobs J] [--fit] [-- train args]

The distance variance (runtime/FORMAT.md, section 7) sees each input alone: a test row whose every
value occurs in the training rows, in a combination that does not, gets none (energy's roof-area
gap split). This scores the candidate next to it: for every pair of inputs, a B x B grid over
the two training ranges (B = --bins, 16) marks the cells that hold a training row; a row's
novelty f is the fraction of its input pairs whose cell holds none (0 for a row inside the data's
combinations, up to 1), and (A2 sd_y f)^2 is added to each prediction's variance, sd_y the
training targets' std. For every split of every NAME=DIR (index_{train,test}_<s>.txt, 0-based
data rows: the set's split files, or tools/bench/shifted_splits.py's gap/ and tail/) it trains the
defaults once (`pbp train --seed 1`, or the train args after `--`), predicts the test rows, and
prints, for each A2 of a grid, the mean test LL over each NAME's splits and its worst split. A2 is
chosen here by looking at the test rows, one value for all of a set's splits: an upper bound of
what the term could give, not a method (a method fits A2 from the training rows, as the trainer
fits the distance variance's A). --fit adds that method: each split's A2 chosen from its training
rows alone, the grid's best mean LL over their gap and tail folds (one model of the same kind per
fold: tools/bench/distance_scale_fit.py's folds), then scored on the test rows; it trains 2 x inputs
more models per split. Predictions are kept in --work, so a rerun trains only what is missing.
Python 3 standard library only.
"""

import argparse
import concurrent.futures
import importlib.util
import itertools
import math
import os

_spec = importlib.util.spec_from_file_location(
    "seed_mixture", os.path.join(os.path.dirname(os.path.abspath(__file__)), "seed_mixture.py"))
seed_mixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seed_mixture)
_spec = importlib.util.spec_from_file_location(
    "distance_scale_fit",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "distance_scale_fit.py"))
distance_scale_fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(distance_scale_fit)

GRID = [0, 0.25, 0.5, 1, 2, 4, 8]


def cell(x, low, high, bins):
    """The bin of x in `bins` equal bins over [low, high] (clamped: a row outside the range is the
    range report's and the distance variance's business, not this term's)."""
    if high <= low:
        return 0
    return min(bins - 1, max(0, int((x - low) / ((high - low) / bins))))


def novelty(values, train, test, bins):
    """Each test row's fraction of input pairs whose grid cell holds no training row."""
    inputs = len(values[0]) - 1
    low = [min(values[i][j] for i in train) for j in range(inputs)]
    high = [max(values[i][j] for i in train) for j in range(inputs)]
    cells = {i: [cell(values[i][j], low[j], high[j], bins) for j in range(inputs)]
             for i in list(train) + list(test)}
    pairs = list(itertools.combinations(range(inputs), 2))
    seen = [{(cells[i][a], cells[i][b]) for i in train} for a, b in pairs]
    return [sum((cells[i][a], cells[i][b]) not in seen[k] for k, (a, b) in enumerate(pairs)) /
            max(1, len(pairs)) for i in test]


def target_std(values, rows):
    mean = sum(values[i][-1] for i in rows) / len(rows)
    return math.sqrt(sum((values[i][-1] - mean) ** 2 for i in rows) / len(rows))


def predictions(args, header, rows, train, test, work):
    """(means, stds) on the `test` rows of the model trained on the `train` rows; cached in work."""
    os.makedirs(work, exist_ok=True)
    train_csv, test_csv = os.path.join(work, "train.csv"), os.path.join(work, "test.csv")
    if not os.path.exists(train_csv):
        seed_mixture.write_csv(test_csv, header, [rows[i] for i in test])
        seed_mixture.write_csv(train_csv, header, [rows[i] for i in train])
    return seed_mixture.train_and_predict(args.pbp, train_csv, test_csv, 1, work, args.train_args)


def fitted_scale(args, header, rows, values, train, work):
    """The grid's A2 with the best mean held-out LL over the gap and tail folds of `train`."""
    folds = []
    for name, fold_train, held in distance_scale_fit.folds([values[i] for i in train]):
        fold_train, held = [train[i] for i in fold_train], [train[i] for i in held]
        means, stds = predictions(args, header, rows, fold_train, held,
                                  os.path.join(work, "fold_" + name))
        folds.append((name, 0, [values[i][-1] for i in held], means, stds,
                      novelty(values, fold_train, held, args.bins), target_std(values, fold_train)))
    scores = [sum(loglik(fold, a2) for fold in folds) / len(folds) for a2 in GRID]
    return GRID[scores.index(max(scores))]


def split_job(args, header, rows, values, name, folder, s):
    train = seed_mixture.read_indices(os.path.join(folder, f"index_train_{s}.txt"))
    test = seed_mixture.read_indices(os.path.join(folder, f"index_test_{s}.txt"))
    work = os.path.join(args.work, f"{name}_{s}")
    means, stds = predictions(args, header, rows, train, test, work)
    ys = [values[i][-1] for i in test]
    fitted = fitted_scale(args, header, rows, values, train, work) if args.fit else None
    return (name, s, ys, means, stds, novelty(values, train, test, args.bins),
            target_std(values, train), fitted)


def loglik(split, a2):
    """Mean test LL with (a2 sd_y f)^2 added: distance_scale_fit's fold LL with f for d."""
    return distance_scale_fit.fold_loglik(split[2:7], a2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pbp", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--splits", action="append", required=True, metavar="NAME=DIR")
    ap.add_argument("--work", required=True)
    ap.add_argument("--bins", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("train_args", nargs="*")
    args = ap.parse_args()
    header, rows = seed_mixture.read_rows(args.data)
    values = [[float(v) for v in r] for r in rows]
    kinds = []
    for item in args.splits:
        name, sep, folder = item.partition("=")
        if not sep or not name or seed_mixture.count_splits(folder) == 0:
            ap.error(f"--splits {item}: NAME=DIR with index_train_0.txt in DIR")
        kinds.append((name, folder))
    jobs = [(name, folder, s) for name, folder in kinds
            for s in range(seed_mixture.count_splits(folder))]
    splits = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(split_job, args, header, rows, values, *job) for job in jobs]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            splits.append(future.result())
            print(f"pair_occupancy_bound: {done} of {len(jobs)} splits trained", flush=True)
    print(f"{os.path.basename(args.data)}: test LL per point with (A2 sd_y f)^2 added, f the "
          f"fraction of input pairs on an unseen cell of {args.bins} x {args.bins}")
    for name, _ in kinds:
        mine = sorted((sp for sp in splits if sp[0] == name), key=lambda sp: sp[1])
        mean_f = sum(sum(sp[5]) / len(sp[5]) for sp in mine) / len(mine)
        cells = []
        for a2 in GRID:
            lls = [loglik(sp, a2) for sp in mine]
            cells.append(f"A2 {a2:g}: {sum(lls) / len(lls):.3f} ({min(lls):.2f})")
        print(f"  {name} ({len(mine)} splits, mean f {mean_f:.3f}): " + ", ".join(cells))
        if args.fit:
            lls = [loglik(sp, sp[7]) for sp in mine]
            chosen = ", ".join(f"{a2:g} x{sum(sp[7] == a2 for sp in mine)}"
                               for a2 in GRID if any(sp[7] == a2 for sp in mine))
            print(f"  {name}, A2 fitted from each split's training rows ({chosen}): "
                  f"{sum(lls) / len(lls):.3f} ({min(lls):.2f})")


if __name__ == "__main__":
    main()
