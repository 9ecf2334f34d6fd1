#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Docs that cannot go stale: checks README.md (and tools/python/README.md when present) against
what the code does. tools/check.sh runs it as its `readme` stage, after the package stage.

  tools/scripts/readme_check.py [--write] [--only STEP[,STEP...]] [--demo-output FILE]

Steps (all by default):
  links   every relative link and image of README.md and of the Markdown files it links to names a
          file that exists, and every #anchor a heading of that file; README.md stays within
          MAX_LINES lines.
  demo    runs `bash tools/quickstart.sh` (as a user does; after a build it only runs the demo) and
          compares what `pbp demo` printed with the block after `<!-- readme_check: demo output -->`,
          exactly but for timings. The figures are those of a GCC x86-64-v3 trainer (what
          build/host/pbp_trainer_tuning.txt says this build is); another build's trainer rounds
          differently, so there only the text around the figures is compared, and the check says
          so. Then the README's words about the output are checked against it (claims below) and
          tools/pbp/toy_predictive.svg against the plot the demo drew. --write rewrites the block
          and the picture from this run instead of comparing.
  results README.md's Results table shows RESULTS.md's current figures: each data set's LL row
          those of its main UCI table (bold on the best), the cost rows its prediction-cost
          table's; any other figure must appear in RESULTS.md.
  blocks  runs every sh block (bash -euo pipefail, from the top of the tree) and python block
          (Debian's /usr/bin/python3 with build/host/python, in a scratch folder), and compiles every
          c block against the runtime's headers; a block after `<!-- readme_check: skip (why) -->`
          is listed, not run (the set-up and test commands, which would recurse).
Exit status 1 on any difference, with what differs.
"""
import argparse
import difflib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PYTHON_README = ROOT / "tools/python/README.md"
PICTURE = ROOT / "tools/pbp/toy_predictive.svg"
RESULTS = ROOT / "tools/bench/RESULTS.md"
BUILD = ROOT / "build/host"
MAX_LINES = 300
DEMO_MARK = "<!-- readme_check: demo output -->"
SKIP_MARK = "<!-- readme_check: skip"
# Figures that change from run to run: wall-clock times.
TIMINGS = [(re.compile(r"trained in \d+ ms"), "trained in N ms"),
           (re.compile(r"\), \d+\.\d s$", re.M), "), N s"),
           (re.compile(r"^done in \d+\.\d s", re.M), "done in N s")]

failures = []


def fail(message):
    failures.append(message)
    print(f"readme_check: FAILED: {message}")


def blocks(path):
    """(language, first line number, text, the comment line before it or '') of each fenced block."""
    lines = path.read_text().split("\n")
    found, i = [], 0
    while i < len(lines):
        match = re.match(r"^```(\w*)$", lines[i])
        if not match:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and lines[i] != "```":
            body.append(lines[i])
            i += 1
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        found.append((match.group(1), start + 1, "\n".join(body), before.strip()))
        i += 1
    return found


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def check_links():
    seen, queue = set(), [README] + ([PYTHON_README] if PYTHON_README.exists() else [])
    while queue:
        doc = queue.pop()
        if doc in seen:
            continue
        seen.add(doc)
        text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue  # http(s), mailto: not checked offline
            file_part, _, anchor = target.partition("#")
            linked = (doc.parent / file_part).resolve() if file_part else doc
            where = f"{doc.relative_to(ROOT)}: link {target}"
            if not linked.exists():
                fail(f"{where}: no such file")
                continue
            if anchor:
                headings = re.findall(r"^#+ (.*)$", linked.read_text(), re.M)
                if anchor not in {slug(h) for h in headings}:
                    fail(f"{where}: no heading #{anchor} in {linked.relative_to(ROOT)}")
            if linked.suffix == ".md" and ROOT in linked.parents:
                queue.append(linked)
    count = len(README.read_text().split("\n")) - 1
    if count > MAX_LINES:
        fail(f"README.md has {count} lines, more than the front page's {MAX_LINES}")
    print(f"readme_check: links of {len(seen)} Markdown files checked; README.md {count} lines")


def demo_block():
    text = README.read_text()
    if DEMO_MARK not in text:
        fail(f"README.md has no {DEMO_MARK} block")
        return text, None
    match = re.search(re.escape(DEMO_MARK) + r"\n```text\n(.*?)\n```", text, re.S)
    return text, match


def run_demo(saved):
    if saved:
        return pathlib.Path(saved).read_text()
    done = subprocess.run(["bash", "tools/quickstart.sh"], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE)
    if done.returncode != 0:
        sys.stdout.write(done.stdout)
        fail(f"bash tools/quickstart.sh exited with {done.returncode}")
        return None
    return done.stdout


def demo_part(output):
    """What `pbp demo` printed: from its first section to its 'done in' line."""
    lines = output.split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("== ")), None)
    last = next((i for i, line in enumerate(lines) if line.startswith("done in ")), None)
    if first is None or last is None:
        return None
    return "\n".join(lines[first:last + 1])


def without_timings(text):
    for pattern, replacement in TIMINGS:
        text = pattern.sub(replacement, text)
    return text


def without_figures(text):
    return re.sub(r"\d", "#", without_timings(text))


def figures_comparable():
    tuning = BUILD / "pbp_trainer_tuning.txt"
    return tuning.exists() and tuning.read_text().strip() == "x86-64-v3"


def check_claims(shown):
    """The README's words about the demo output (section 'What to trust'), against it."""
    rows = {}
    for line in shown.split("\n"):
        match = re.match(r"^(.{28})\s*(\S+)  (inside|OUTSIDE: (\S+) ([\d.]+) sd|unknown).*?"
                         r"(-?[\d.]+)\s+\[\s*(-?[\d.]+),\s*(-?[\d.]+)\]\s+([\d.]+)\s+([\d.]+)", line)
        if match:
            rows[match.group(1).strip()] = match.groups()
    claims = []
    for x in ("x = -6.0", "x = 6.0"):
        row = rows.get(x)
        if row:
            truth, mean, low, high = (float(row[i]) for i in (1, 5, 6, 7))
            std = (float(row[8]) ** 2 + float(row[9]) ** 2) ** 0.5
            claims.append((f"{x}: flagged OUTSIDE", row[2].startswith("OUTSIDE")))
            claims.append((f"{x}: x^3 outside the 95 % interval and the +-3 std band",
                           not low <= truth <= high and abs(truth - mean) > 3 * std))
        else:
            claims.append((f"the demo shows the row {x}", False))
    zero = rows.get("x = 0.0")
    claims.append(("x = 0.0 inside", bool(zero) and zero[2] == "inside"))
    house = rows.get("test house 2")
    claims.append(("test house 2: a small step outside (under 0.5 sd)",
                   bool(house) and house[2].startswith("OUTSIDE") and float(house[4]) < 0.5))
    rooms = rows.get("house 1, 12 rooms, crime 80")
    claims.append(("12 rooms: far outside on RM (3 sd or more)",
                   bool(rooms) and rooms[3] == "RM" and float(rooms[4]) >= 3))
    for claim, holds in claims:
        if not holds:
            fail(f"README.md's words no longer match the demo output: {claim}")
    print(f"readme_check: {len(claims)} statements of the README about the demo output checked")


def check_demo(write, saved):
    text, match = demo_block()
    output = run_demo(saved)
    if match is None or output is None:
        return
    shown = demo_part(output)
    if shown is None:
        fail("the quick start printed no demo output ('== ' ... 'done in')")
        return
    comparable = figures_comparable()
    if write:
        if not comparable:
            fail("--write needs the figures of a GCC x86-64-v3 build (build/host/pbp_trainer_tuning.txt)")
            return
        README.write_text(text[:match.start(1)] + shown + text[match.end(1):])
        shutil.copyfile(ROOT / "build/demo/toy_predictive.svg", PICTURE)
        print("readme_check: wrote the demo output into README.md and the plot into "
              f"{PICTURE.relative_to(ROOT)}")
        check_claims(shown)
        return
    normalise = without_timings if comparable else without_figures
    expected, actual = normalise(match.group(1)), normalise(shown)
    if expected != actual:
        sys.stdout.writelines(difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), "README.md", "pbp demo"))
        fail("README.md's demo output differs from what the demo prints "
             "(tools/scripts/readme_check.py --write updates it)")
    else:
        print("readme_check: README.md's demo output is what the demo prints"
              + ("" if comparable else
                 " (text only: this build's trainer is not GCC x86-64-v3, figures not compared)"))
    if comparable and not saved:
        drawn = (ROOT / "build/demo/toy_predictive.svg").read_bytes()
        if PICTURE.read_bytes() != drawn:
            fail(f"{PICTURE.relative_to(ROOT)} is not the plot the demo draws (--write updates it)")
    check_claims(match.group(1))


def markdown_tables(text):
    """Every Markdown table of `text`: (header cells, rows of cells), bold marks kept."""
    found, lines = [], text.split("\n")
    for i, line in enumerate(lines):
        if not (line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---")):
            continue
        if i > 0 and lines[i - 1].startswith("|"):
            continue
        cells = lambda row: [c.strip() for c in row.strip().strip("|").split("|")]
        rows = []
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            rows.append(cells(row))
        found.append((cells(line), rows))
    return found


def results_table(tables, first_headers):
    """The table whose header starts with `first_headers`: {first cell: {header: cell}}."""
    for header, rows in tables:
        if header[:len(first_headers)] == first_headers:
            return {row[0]: dict(zip(header, row)) for row in rows}
    fail(f"tools/bench/RESULTS.md has no table headed {' | '.join(first_headers)}")
    return {}


def log_likelihood(cell):
    """A RESULTS cell's LL: "**−2.283 ± 0.037**" gives −2.283, "3.01 / −2.57" −2.57."""
    return cell.replace("**", "").split(" / ")[-1].split(" ±")[0].strip()


def check_results():
    """The Results table's figures are the current ones of RESULTS.md: each data set's LL the
    main UCI table's (bold on the row's best), the cost rows the prediction-cost table's; any
    other figure must appear in RESULTS.md."""
    text = README.read_text()
    section = text.split("\n## Results\n", 1)[-1].split("\n## ", 1)[0]
    table = "\n".join(line for line in section.split("\n") if line.startswith("|"))
    results = RESULTS.read_text()
    tables = markdown_tables(results)
    uci = results_table(tables, ["data set", "pbp-edge RMSE", "pbp-edge LL"])
    cost = results_table(tables, ["target", "plain float MLP", "float32 `pbp_predict`"])
    columns = ["pbp-edge LL", "PBP paper", "MC dropout", "deep ensembles"]
    # README row: (RESULTS cost row, the columns of the README cell's figures, in order)
    cost_rows = {
        "Cortex-M4F instructions per 13-50-1 prediction":
            ("Cortex-M4F", ["float32 `pbp_predict`", "÷ MLP", "÷ 5-net ensemble"]),
        "Cortex-M0 (soft float), int8 weights": ("Cortex-M0 (soft float)", ["int8", "int8 ÷ MLP"]),
    }
    figure = re.compile(r"−?\d+(?: \d{3})*(?:\.\d+)?")
    checked = 0
    for header, rows in markdown_tables(table):
        for row in rows:
            if row[0] in uci:
                expected = [log_likelihood(uci[row[0]][c]) for c in columns]
                shown = [cell.replace("**", "") for cell in row[1:1 + len(columns)]]
                if shown != expected:
                    fail(f"README.md's Results row {row[0]} shows {shown}, "
                         f"tools/bench/RESULTS.md's UCI table {expected}")
                values = [float(e.replace("−", "-")) for e in expected]
                best = values.index(max(values))
                cells = row[1:1 + len(columns)]
                bold = [k for k, cell in enumerate(cells) if cell.startswith("**")]
                if bold != [best]:
                    fail(f"README.md's Results row {row[0]}: bold must mark the best LL, "
                         f"{expected[best]}")
                checked += len(columns)
            elif row[0] in cost_rows:
                name, wanted = cost_rows[row[0]]
                shown = figure.findall(row[1])
                expected = [figure.findall(cost.get(name, {}).get(c, ""))[:1] for c in wanted]
                expected = [e[0] if e else "?" for e in expected]
                if shown[:len(expected)] != expected:
                    fail(f"README.md's Results row '{row[0]}' shows {shown[:len(expected)]}, "
                         f"tools/bench/RESULTS.md's prediction-cost table {expected}")
                checked += len(expected)
            else:
                for value in figure.findall(" | ".join(row[1:])):
                    if value not in results:
                        fail(f"README.md's Results table shows {value}, which "
                             "tools/bench/RESULTS.md does not")
                    checked += 1
    print(f"readme_check: {checked} figures of the Results table checked against tools/bench/RESULTS.md")


def run_block(language, text, scratch):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=str(BUILD / "python"), PBP_CLI=str(BUILD / "bin/pbp"))
    if language == "sh":
        return subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=ROOT, env=env)
    if language == "python":
        return subprocess.run(["/usr/bin/python3", "-c", text], cwd=scratch, env=env)
    # c: the snippet's includes at file scope, its statements in a function given `x`.
    includes = "\n".join(line for line in text.split("\n") if line.startswith("#include"))
    body = "\n".join(line for line in text.split("\n") if not line.startswith("#include"))
    source = pathlib.Path(scratch) / "snippet.c"
    source.write_text(f"{includes}\nvoid snippet(const float* x);\n"
                      f"void snippet(const float* x) {{\n{body}\n}}\n")
    model_dirs = [f"-I{d}" for d in sorted((ROOT / "build").glob("readme/model"))]
    return subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-c", f"-I{ROOT}/runtime/include",
                           f"-I{BUILD}/generated/include", *model_dirs, str(source), "-o", str(source.with_suffix(".o"))])


def check_blocks():
    docs = [README] + ([PYTHON_README] if PYTHON_README.exists() else [])
    ran = skipped = 0
    with tempfile.TemporaryDirectory(prefix="readme_check.") as scratch:
        for doc in docs:
            # A document's python blocks are one session, as a reader runs them in order: later
            # blocks use what earlier ones defined. They run together after its other blocks.
            session, session_blocks = [], []
            for language, line, text, before in blocks(doc):
                if language not in ("sh", "python", "c"):
                    continue
                where = f"{doc.relative_to(ROOT)}:{line} ({language})"
                if before.startswith(SKIP_MARK):
                    print(f"readme_check: skipped {where}: {before[len(SKIP_MARK):].strip(' ->')}")
                    skipped += 1
                    continue
                if language == "python":
                    session.append(f"print({where!r}, flush=True)\n{text}")
                    session_blocks.append(where)
                    continue
                print(f"readme_check: running {where}", flush=True)
                if run_block(language, text, scratch).returncode != 0:
                    fail(f"the block at {where} failed")
                ran += 1
            if session:
                print(f"readme_check: running the python blocks of {doc.relative_to(ROOT)} in order "
                      f"(each names itself before it runs)", flush=True)
                if run_block("python", "\n".join(session), scratch).returncode != 0:
                    fail(f"a python block of {doc.relative_to(ROOT)} failed (the last one named)")
                ran += len(session_blocks)
    print(f"readme_check: {ran} blocks run, {skipped} skipped")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true",
                        help="rewrite the demo output block and the picture from this run")
    parser.add_argument("--only", default="links,demo,results,blocks",
                        help="comma-separated steps: links, demo, results, blocks")
    parser.add_argument("--demo-output", help="compare this saved quick-start output instead")
    args = parser.parse_args()
    steps = args.only.split(",")
    unknown = set(steps) - {"links", "demo", "results", "blocks"}
    if unknown:
        parser.error(f"unknown steps: {', '.join(sorted(unknown))}")
    if "links" in steps:
        check_links()
    if "demo" in steps:
        check_demo(args.write, args.demo_output)
    if "results" in steps:
        check_results()
    if "blocks" in steps:
        check_blocks()
    if failures:
        print(f"readme_check: {len(failures)} failed")
        return 1
    print("readme_check: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
