#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Gap and tail splits of a regression CSV: test rows away from the training rows.

  shifted_splits.py DATA.csv OUT_DIR [--target NAME|INDEX]

For every input column d (all columns but the target; the last unless --target), the data rows
are ranked by column d (a stable sort: ties by row number, so the splits follow from the data):
  gap  (Foong et al. 2019, "'In-Between' Uncertainty in Bayesian Neural Networks"): the middle
       third of the ranks is the test set, the outer two thirds the training set;
  tail: the bottom and the top 10 % of the ranks are the test set, the middle 80 % training.
Writes OUT_DIR/gap/ and OUT_DIR/tail/, each index_train_<d>.txt and index_test_<d>.txt (0-based
data-row indices, one a line, ascending: the layout of `pbp crossval --split-files`), atomically
per folder, and columns.txt: the column of each split. Every input column gets its split, as in the
published protocol, even one with few distinct values (its ties are cut by row number). Python 3
standard library only.
"""

import argparse
import csv
import os
import shutil
import sys
import tempfile


def read_columns(path, target):
    """(names, columns of floats) of the CSV's input columns; the target is left out."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        raise ValueError(f"{path}: a header and at least one data row are needed")
    header = [name.strip() for name in rows[0]]
    if target is None:
        target_index = len(header) - 1
    elif target.isdigit():
        target_index = int(target)
    elif target in header:
        target_index = header.index(target)
    else:
        raise ValueError(f"{path}: no column named {target!r}")
    if not 0 <= target_index < len(header):
        raise ValueError(f"{path}: target column {target_index} out of range")
    names, columns = [], []
    for c, name in enumerate(header):
        if c == target_index:
            continue
        values = []
        for r, row in enumerate(rows[1:], start=2):
            if len(row) != len(header):
                raise ValueError(f"{path}:{r}: {len(row)} fields, the header has {len(header)}")
            values.append(float(row[c]))
        names.append(name)
        columns.append(values)
    return names, columns


def split(values, kind):
    """(train, test) row indices of one column's split of the given kind, each ascending."""
    n = len(values)
    ranked = sorted(range(n), key=lambda i: (values[i], i))
    if kind == "gap":
        test = ranked[n // 3:(2 * n) // 3]
    else:
        tail = n // 10
        test = ranked[:tail] + ranked[n - tail:]
    chosen = set(test)
    return [i for i in range(n) if i not in chosen], sorted(test)


def write_kind(out_dir, kind, names, columns):
    """Writes one kind's folder through a temporary folder renamed into place."""
    os.makedirs(out_dir, exist_ok=True)
    staging = tempfile.mkdtemp(dir=out_dir, prefix=f".{kind}.")
    try:
        written = 0
        for name, values in zip(names, columns):
            train, test = split(values, kind)
            for part, rows in (("train", train), ("test", test)):
                with open(os.path.join(staging, f"index_{part}_{written}.txt"), "w",
                          encoding="utf-8") as f:
                    f.write("".join(f"{i}\n" for i in rows))
            with open(os.path.join(staging, "columns.txt"), "a", encoding="utf-8") as f:
                f.write(f"{written} {name}\n")
            written += 1
        final = os.path.join(out_dir, kind)
        if os.path.isdir(final):
            shutil.rmtree(final)
        os.replace(staging, final)
        return written
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="the CSV (header row, numeric columns)")
    parser.add_argument("out", help="folder that gets gap/ and tail/")
    parser.add_argument("--target", help="target column by name or 0-based index (default: last)")
    args = parser.parse_args()
    try:
        names, columns = read_columns(args.data, args.target)
    except (OSError, ValueError) as error:
        sys.exit(f"shifted_splits.py: {error}")
    if not columns or len(columns[0]) < 10:
        sys.exit(f"shifted_splits.py: {args.data}: at least one input column and 10 rows needed")
    for kind in ("gap", "tail"):
        write_kind(args.out, kind, names, columns)


if __name__ == "__main__":
    main()
