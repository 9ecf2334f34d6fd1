#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The UCI benchmark's report: tables and an SVG figure from `pbp crossval --json` files.

  uci_report.py --out DIR [--note TEXT] NAME[.KIND].json...

Each JSON file is one data set and one kind of splits (random, or gap / tail from
shifted_splits.py: its "split_kind"), named by its file name. Prints one table per kind (Markdown,
aligned) and writes DIR/uci.md and DIR/uci_loglik.svg (random splits' test log-likelihood per data
set, one panel each, since the scales differ between sets), both atomically. Data sets named like
one of the published rows below are shown beside them. Python 3 standard library only.
"""

import argparse
import json
import math
import os
import sys
import tempfile
from collections import Counter
from xml.sax.saxutils import escape

# Published figures, test RMSE / test log-likelihood per point (mean over the same 20 splits,
# 1 hidden layer of 50 units). Their standard errors are not carried here: markers without bars.
PUBLISHED_METHODS = [
    ("PBP paper", "Hernandez-Lobato & Adams, Probabilistic Backpropagation, ICML 2015, Table 1"),
    ("MC dropout", "Gal & Ghahramani, Dropout as a Bayesian Approximation, ICML 2016; corrected "
                   "2018 figures (dropout rate and precision by grid search), "
                   "github.com/yaringal/DropoutUncertaintyExps"),
    ("ensembles", "Lakshminarayanan, Pritzel & Blundell, Simple and Scalable Predictive "
                  "Uncertainty Estimation using Deep Ensembles, NeurIPS 2017, Table 1 (5 nets)"),
]
# folder name -> (rmse, loglik) per method, in PUBLISHED_METHODS order, as printed there.
PUBLISHED = {
    "boston": [("3.01", "-2.57"), ("2.90", "-2.40"), ("3.28", "-2.41")],
    "concrete": [("5.67", "-3.16"), ("4.82", "-2.93"), ("6.03", "-3.06")],
    "energy": [("1.80", "-2.04"), ("0.54", "-1.21"), ("2.09", "-1.38")],
    "kin8nm": [("0.098", "0.90"), ("0.08", "1.14"), ("0.09", "1.20")],
    "power": [("4.12", "-2.84"), ("4.01", "-2.80"), ("4.11", "-2.79")],
    "wine_quality_red": [("0.635", "-0.97"), ("0.62", "-0.93"), ("0.64", "-0.94")],
    "yacht": [("1.02", "-1.63"), ("0.67", "-1.25"), ("1.58", "-1.18")],
}
# Best published test LL per point on the gap splits (mean over them), with its method: Antorán,
# Allingham & Hernández-Lobato, "Depth Uncertainty in Neural Networks", NeurIPS 2020, appendix.
PUBLISHED_GAP_SOURCE = ("Antorán, Allingham & Hernández-Lobato, Depth Uncertainty in Neural "
                        "Networks, NeurIPS 2020, appendix (gap splits of Foong et al. 2019)")
PUBLISHED_GAP = {
    "boston": ("-2.703", "MFVI"), "concrete": ("-3.460", "MFVI"), "energy": ("-5.42", "ensembles"),
    "kin8nm": ("1.215", "MC dropout"), "power": ("-2.904", "ensembles"),
    "wine_quality_red": ("-0.965", "MFVI"), "yacht": ("-2.114", "MFVI"),
    "protein": ("-3.071", "ensembles"), "naval": ("-4.57", "ensembles"),
}
DASH = "–"


def published(name):
    """The published (rmse, loglik) texts for a data set named like a published row, or None."""
    return PUBLISHED.get(name.lower())


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


def with_se(mean, se):
    """mean ± se, to the decimals the standard error supports."""
    if not finite(mean):
        return "n/a"
    if not finite(se) or se <= 0:
        return f"{mean:.4g}"
    decimals = min(8, max(0, 1 - math.floor(math.log10(se))))
    return f"{mean:.{decimals}f} ± {se:.{decimals}f}"


def plain(x, fmt):
    return format(x, fmt) if finite(x) else "n/a"


def chosen_network(result):
    """The automatic recipe's most frequent choice, e.g. '50,50 x40 (15/20)'; dash otherwise."""
    choices = [(s.get("hidden"), s.get("epochs")) for s in result.get("splits", [])
               if s.get("hidden") is not None]
    if not choices:
        return DASH
    (hidden, epochs), count = Counter(choices).most_common(1)[0]
    return f"{hidden} x{epochs} ({count}/{len(result['splits'])})"


def fitted_scales(result):
    """The distance and pair variances' scales over the splits (crossval's JSON), e.g.
    'A 0.5 ×3, 2 ×5; A2 4 ×8'; a dash for a JSON without them."""
    splits = result.get("splits", [])
    if not splits or any("pair_scale" not in s or "distance_scale" not in s for s in splits):
        return DASH

    def counted(key):
        counts = Counter(s[key] for s in splits)
        return ", ".join(f"{format(v, 'g')} ×{n}" for v, n in sorted(counts.items()))
    return f"A {counted('distance_scale')}; A2 {counted('pair_scale')}"


def table_rows(results):
    with_baseline = any(r.get("baselines") for _, r in results)
    header = ["data set", "splits", "pbp-edge RMSE ± se", "pbp-edge LL ± se",
              "cov50 / 90 / 95", "train s/split", "CPU s/split", "network (auto)"]
    header += ["5-net ensemble here: LL"] if with_baseline else []
    header += [f"{method} RMSE / LL" for method, _ in PUBLISHED_METHODS]
    header += ["LL ≥ dropout & ensembles", "LL ≥ PBP paper"]
    rows = []
    for name, r in results:
        ll = r.get("loglik_mean")
        row = [name, str(len(r.get("splits", []))), with_se(r.get("rmse_mean"), r.get("rmse_se")),
               with_se(ll, r.get("loglik_se")),
               " / ".join(plain(r.get(f"coverage{p}_mean"), ".3f") for p in (50, 90, 95)),
               plain(r.get("train_seconds_mean"), ".3g"),
               plain(r.get("train_cpu_seconds_mean"), ".3g"), chosen_network(r)]
        if with_baseline:
            row.append(baseline_cell(r))
        anchors = published(name)
        if anchors:
            row += [f"{rmse} / {loglik}" for rmse, loglik in anchors]
            best_other = max(float(anchors[1][1]), float(anchors[2][1]))
            row.append(("yes" if ll >= best_other else "no") if finite(ll) else "no")
            row.append(("yes" if ll >= float(anchors[0][1]) else "no") if finite(ll) else "no")
        else:
            row += [DASH] * (len(PUBLISHED_METHODS) + 2)
        rows.append(row)
    return header, rows


def shifted_rows(results, kind):
    """One row per data set of gap or tail splits: LL, its worst split, pooled coverage, RMSE."""
    with_baseline = any(r.get("baselines") for _, r in results)
    header = ["data set", "splits", "LL ± se", "worst split LL", "pooled cov50 / 90 / 95",
              "RMSE ± se", "train s/split", "CPU s/split", "A; A2 (splits)"]
    header += ["5-net ensemble here: LL (worst)"] if with_baseline else []
    if kind == "gap":
        header += ["best published gap LL", "LL ≥ published"]
    rows = []
    for name, r in results:
        splits = r.get("splits", [])
        lls = [s.get("loglik") for s in splits]
        worst = min(lls) if lls and all(finite(v) for v in lls) else float("nan")
        weights = [s.get("test_rows", 1) for s in splits]
        pooled = []
        for p in (50, 90, 95):
            values = [s.get(f"coverage{p}") for s in splits]
            ok = values and all(finite(v) for v in values)
            pooled.append(sum(v * w for v, w in zip(values, weights)) / sum(weights) if ok
                          else float("nan"))
        ll = r.get("loglik_mean")
        row = [name, str(len(splits)), with_se(ll, r.get("loglik_se")), plain(worst, ".3f"),
               " / ".join(plain(v, ".3f") for v in pooled),
               with_se(r.get("rmse_mean"), r.get("rmse_se")),
               plain(r.get("train_seconds_mean"), ".3g"),
               plain(r.get("train_cpu_seconds_mean"), ".3g"), fitted_scales(r)]
        row += [baseline_cell(r, worst=True)] if with_baseline else []
        if kind == "gap":
            anchor = PUBLISHED_GAP.get(name.lower())
            if anchor:
                row += [f"{anchor[0]} ({anchor[1]})",
                        "yes" if finite(ll) and ll >= float(anchor[0]) else "no"]
            else:
                row += [DASH, DASH]
        rows.append(row)
    return header, rows


SHIFTED_TITLES = {
    "gap": "Gap splits: per input column, the middle third of the rows ranked by it is the test set",
    "tail": "Tail splits: per input column, its top and bottom 10 % of the rows are the test set",
}


def markdown_table(header, rows):
    widths = [max(len(line[c]) for line in [header] + rows) for c in range(len(header))]
    def line(cells):
        return "| " + " | ".join(cell.ljust(w) for cell, w in zip(cells, widths)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule] + [line(r) for r in rows])


def by_kind(results):
    """{kind: [(name, result)]} in the order random, gap, tail; a baseline's result (its
    "method", e.g. the deep ensemble trained here) rides on pbp-edge's as result["baselines"]."""
    groups, baselines = {}, {}
    for name, r in results:
        kind = r.get("split_kind", "random")
        method = r.get("method")
        base = name.split(".")[0]
        if method:
            baselines.setdefault((base, kind), {})[method] = r
        else:
            groups.setdefault(kind, []).append((base, r))
    for kind, entries in groups.items():
        for base, r in entries:
            r["baselines"] = baselines.get((base, kind), {})
    return {k: groups[k] for k in ("random", "gap", "tail") if k in groups}


def baseline_cell(r, worst=False):
    """The deep ensemble trained in the same run: LL ± se (and its worst split), or a dash."""
    b = r.get("baselines", {}).get("ensemble")
    if not b:
        return DASH
    text = with_se(b.get("loglik_mean"), b.get("loglik_se"))
    if worst:
        lls = [s.get("loglik") for s in b.get("splits", [])]
        if lls and all(finite(v) for v in lls):
            text += f" (worst {min(lls):.3f})"
    return text


def shifted_markdown(groups):
    text = []
    for kind in ("gap", "tail"):
        if kind not in groups:
            continue
        header, rows = shifted_rows(groups[kind], kind)
        text += [f"## {SHIFTED_TITLES[kind]}", "",
                 "Mean ± standard error over the splits (one per input column, split files in "
                 "splits/<set>/" + kind + "/); worst split: its lowest test LL; pooled coverage: "
                 "over all the test rows of all the splits.", "",
                 markdown_table(header, rows), ""]
        if kind == "gap":
            text += [f"Published: {PUBLISHED_GAP_SOURCE}.", ""]
    return text


BASELINE_NOTE = ("5-net ensemble here: 1 x 50 ReLU networks with a mean and a variance head, NLL, "
                 "Adam, 40 epochs (tools/bench/ensemble_baseline.py), trained in the same run on "
                 "the same split files.")


def markdown(results, note, failed):
    groups = by_kind(results)
    text = ["# UCI regression benchmark", ""]
    if any(r.get("baselines") for entries in groups.values() for _, r in entries):
        text += [BASELINE_NOTE, ""]
    if "random" not in groups:
        return "\n".join(text + [f"pbp-edge: `{note}`.", ""] + shifted_markdown(groups) +
                          ([f"Failed (see their .log): {', '.join(failed)}", ""] if failed else []))
    results = groups["random"]
    header, rows = table_rows(results)
    text += [f"pbp-edge: `{note}`; mean ± standard error over the splits; test log-likelihood per "
             "point and RMSE in the target's original units; cov50 / 90 / 95: fraction of test "
             "targets inside the central 50, 90 and 95% predictive intervals (mean over the "
             "splits, which hold equally many test rows).", "",
             markdown_table(header, rows), ""]
    if failed:
        text += [f"Failed (see their .log): {', '.join(failed)}", ""]
    text += ["Published figures (1 hidden layer of 50 units, the same 20 splits):"]
    text += [f"- {method}: {source}" for method, source in PUBLISHED_METHODS]
    text += ["", "![test log-likelihood per data set](uci_loglik.svg)", ""]
    return "\n".join(text + shifted_markdown(groups))


# --- SVG --------------------------------------------------------------------------------------

PANEL_W, PANEL_H, COLUMNS = 230, 210, 4
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 54, 12, 30, 22
LEGEND_H = 58
# (label, colour, marker) per method: pbp-edge first, then PUBLISHED_METHODS' order.
STYLES = [("pbp-edge (± se)", "#000000", "circle"), ("PBP paper", "#1f77b4", "square"),
          ("MC dropout (grid search)", "#d62728", "triangle"), ("deep ensembles", "#2ca02c",
                                                                "diamond")]


def nice_ticks(low, high, count=6):
    """Round tick values covering [low, high]."""
    raw = (high - low) / max(1, count - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * (1 - 1e-9))
    first = math.ceil(low / step - 1e-9)
    ticks = []
    k = first
    while k * step <= high + step * 1e-9:
        ticks.append(k * step)
        k += 1
    return ticks, step


def tick_label(value, step):
    decimals = next(d for d in range(9) if abs(round(step, d) - step) <= step * 1e-6 or d == 8)
    text = f"{value:.{decimals}f}"
    return "0" if float(text) == 0 else text


def marker(shape, x, y, colour, size=5):
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size}" fill="{colour}"/>'
    if shape == "square":
        return (f'<rect x="{x - size:.1f}" y="{y - size:.1f}" width="{2 * size}" '
                f'height="{2 * size}" fill="{colour}"/>')
    if shape == "triangle":
        points = [(x, y - size * 1.2), (x - size * 1.1, y + size * 0.8),
                  (x + size * 1.1, y + size * 0.8)]
    else:  # diamond
        points = [(x, y - size * 1.3), (x + size, y), (x, y + size * 1.3), (x - size, y)]
    coords = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    return f'<polygon points="{coords}" fill="{colour}"/>'


def panel(name, result, left, top):
    """One data set: each method's test LL on the panel's own y scale."""
    ll, se = result.get("loglik_mean"), result.get("loglik_se")
    points = [(0, ll, se if finite(se) else 0.0)] if finite(ll) else []
    anchors = published(name) or []
    points += [(m + 1, float(loglik), None) for m, (_, loglik) in enumerate(anchors)]
    out = [f'<g><rect x="{left}" y="{top}" width="{PANEL_W - 8}" height="{PANEL_H - 8}" '
           'fill="none" stroke="#cccccc"/>',
           f'<text x="{left + PANEL_W / 2 - 4:.1f}" y="{top + 18}" text-anchor="middle" '
           f'font-weight="bold">{escape(name)}</text>']
    if not points:
        out.append(f'<text x="{left + PANEL_W / 2 - 4:.1f}" y="{top + PANEL_H / 2}" '
                   'text-anchor="middle">no finite test LL</text></g>')
        return out
    values = [v - (e or 0) for _, v, e in points] + [v + (e or 0) for _, v, e in points]
    low, high = min(values), max(values)
    pad = (high - low) * 0.12 if high > low else max(0.5, abs(high) * 0.05)
    low, high = low - pad, high + pad
    ticks, step = nice_ticks(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    x0, x1 = left + PLOT_LEFT, left + PANEL_W - 8 - PLOT_RIGHT
    y0, y1 = top + PLOT_TOP, top + PANEL_H - 8 - PLOT_BOTTOM
    def y_of(v):
        return y1 - (v - low) / (high - low) * (y1 - y0)
    out.append(f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#000000"/>')
    for t in ticks:
        y = y_of(t)
        out.append(f'<line x1="{x0 - 4}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#eeeeee"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">'
                   f'{tick_label(t, step)}</text>')
    slot = (x1 - x0) / len(STYLES)
    for method, value, error in points:
        _, colour, shape = STYLES[method]
        x = x0 + slot * (method + 0.5)
        if error:
            top_y, bottom_y = y_of(value + error), y_of(value - error)
            out.append(f'<line x1="{x:.1f}" y1="{top_y:.1f}" x2="{x:.1f}" y2="{bottom_y:.1f}" '
                       f'stroke="{colour}" stroke-width="1.5"/>')
            for cap in (top_y, bottom_y):
                out.append(f'<line x1="{x - 5:.1f}" y1="{cap:.1f}" x2="{x + 5:.1f}" '
                           f'y2="{cap:.1f}" stroke="{colour}" stroke-width="1.5"/>')
        out.append(marker(shape, x, y_of(value), colour))
    if not anchors:
        out.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{y1 + 16}" text-anchor="middle" '
                   'fill="#777777">no published figures</text>')
    out.append("</g>")
    return out


def svg(results, note):
    columns = min(COLUMNS, len(results))
    rows = math.ceil(len(results) / columns)
    width, height = max(columns * PANEL_W + 8, 560), LEGEND_H + rows * PANEL_H + 4
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           '<text x="8" y="16" font-size="13" font-weight="bold">UCI regression: test '
           'log-likelihood per point (higher is better)</text>',
           f'<text x="8" y="31" fill="#555555">{escape(note)}; published figures without '
           'error bars</text>']
    x = 8
    for label, colour, shape in STYLES:
        out.append(marker(shape, x + 5, 46, colour))
        out.append(f'<text x="{x + 14}" y="50">{escape(label)}</text>')
        x += 24 + 6 * len(label)
    for i, (name, result) in enumerate(results):
        out += panel(name, result, 8 + (i % columns) * PANEL_W,
                     LEGEND_H + (i // columns) * PANEL_H)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load(path):
    with open(path, encoding="utf-8") as f:
        result = json.load(f)
    if not isinstance(result, dict) or "loglik_mean" not in result or "rmse_mean" not in result:
        raise ValueError(f"{path}: not the JSON of a regression `pbp crossval --json`")
    return os.path.splitext(os.path.basename(path))[0], result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for uci.md and uci_loglik.svg")
    parser.add_argument("--note", default="pbp crossval", help="how pbp-edge was run")
    parser.add_argument("--failed", action="append", default=[], help="a data set that failed")
    parser.add_argument("results", nargs="+", help="crossval JSON files, one per data set")
    args = parser.parse_args()
    try:
        results = [load(path) for path in args.results]
    except (OSError, ValueError) as error:
        sys.exit(f"uci_report.py: {error}")
    os.makedirs(args.out, exist_ok=True)
    groups = by_kind(results)
    write_atomically(os.path.join(args.out, "uci.md"), markdown(results, args.note, args.failed))
    if "random" in groups:
        write_atomically(os.path.join(args.out, "uci_loglik.svg"), svg(groups["random"], args.note))
        header, rows = table_rows(groups["random"])
        print(markdown_table(header, rows))
    for kind in ("gap", "tail"):
        if kind in groups:
            header, rows = shifted_rows(groups[kind], kind)
            print(f"\n{SHIFTED_TITLES[kind]}\n{markdown_table(header, rows)}")
    if args.failed:
        print(f"\nfailed: {', '.join(args.failed)}")
    written = [os.path.join(args.out, "uci.md")]
    if "random" in groups:
        written.append(os.path.join(args.out, "uci_loglik.svg"))
    print(f"\nwritten: {', '.join(written)}")


if __name__ == "__main__":
    main()
