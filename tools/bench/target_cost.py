#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The per-target cost table of `pbp inspect --target` (tools/pbp/target_cost_table.inc): fit it
to QEMU instruction counts, or check it against them on shapes it was not fitted on.

  target_cost.py fit [preset...]     measure the fitting blobs on each preset (default: every line
                                     of targets/presets.txt), fit, rewrite the table
  target_cost.py measure <preset> BLOB...
                                     instructions per prediction and predict stack of the given
                                     blobs on the preset (4 rows each, the firmware's own)
  target_cost.py check <preset>      measure the held-out shapes (13-50-1, 8-100-100-1,
                                     784-400-400-10, and 13-50-50-1 with the distance and pair
                                     variance and a Student-t of 5 or 4 dof; float32, float16,
                                     int8) and compare with `pbp inspect --target <preset> --json`:
                                     exit 1 if an estimate is more than 10 % off, its predict stack
                                     below the measured one, or a blob the target cannot hold is
                                     not reported "does not fit"

Both use build/host (pbp, target_cost_blob: built if missing) and build/<preset> (target_cost:
configured and built if missing). The firmware (targets/cost/main.c) reads blob0.pbp, blob1.pbp,
... from its folder and predicts 4 rows with each; count-instructions.sh's marks bracket each
prediction. The fit: per target and storage type, least squares on the relative error over the
terms of tools/pbp/target_cost.cpp (which `pbp inspect --json --target` reports per blob): the
network's terms on the blobs without sections 7 to 9, those sections' terms on what each blob with
them costs more than its twin without (the same weights and rows). The predict stack: the most
of the blobs without a Student-t, and of those with one (its quantile runs deeper on some cores).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = os.path.join(ROOT, "build", "host")
TABLE = os.path.join(ROOT, "tools", "pbp", "target_cost_table.inc")
STORAGES = ("float32", "float16", "int8", "int8-logvar")
TERMS = ("regression", "binary", "multiclass", "classes", "class_pairs", "count", "inputs",
         "first_weights", "first_rows", "weights", "relu_inputs", "erf_inputs", "sign_inputs",
         "layers", "half_subnormals", "half_subnormal_shifts", "distance_inputs", "pair_inputs",
         "pairs", "student_t_even", "student_t_odd")
TAIL_TERMS = ("student_t_even", "student_t_odd")
SECTION_TERMS = ("distance_inputs", "pair_inputs", "pairs") + TAIL_TERMS
TOLERANCE = 0.10

# (task, shape, hidden activation[, (distance scale A, pair scale A2, Student-t dof)]): the
# optional sections of a regression blob (FORMAT.md 7 to 9), 0 for none.
FITTING = [
    ("regression", "4-8-1", "relu"), ("regression", "13-20-1", "relu"),
    ("regression", "3-16-8-1", "relu"), ("regression", "8-16-16-1", "relu"),
    ("regression", "20-16-1", "relu"), ("regression", "6-12-12-12-1", "relu"),
    ("regression", "10-30-1", "erf"), ("regression", "10-30-1", "sign"),
    ("regression", "5-12-12-1", "erf"), ("regression", "5-12-12-1", "sign"),
    ("binary", "10-20-1", "relu"), ("count", "10-20-1", "relu"),
    ("multiclass", "6-10-4", "relu"), ("multiclass", "30-12-6", "relu"),
    ("regression", "7-10-1", "relu"), ("regression", "2-30-1", "relu"),
    ("regression", "9-6-6-1", "relu"), ("regression", "12-12-12-1", "relu"),
    ("regression", "4-20-1", "erf"), ("regression", "4-20-1", "sign"),
    ("binary", "5-25-1", "relu"), ("count", "3-12-1", "relu"),
    ("multiclass", "8-8-3", "relu"), ("multiclass", "12-6-10", "relu"),
    ("regression", "30-40-1", "relu"), ("regression", "64-32-1", "relu"),
    ("regression", "100-64-1", "relu"), ("regression", "10-200-1", "relu"),
    ("regression", "256-128-1", "relu"), ("regression", "20-64-48-1", "relu"),
    ("regression", "16-24-24-24-1", "relu"), ("regression", "200-100-50-1", "relu"),
    ("regression", "12-40-30-1", "erf"), ("regression", "6-30-30-1", "sign"),
    ("binary", "50-30-1", "relu"), ("count", "40-30-1", "relu"),
    ("multiclass", "20-30-5", "relu"), ("multiclass", "100-60-3", "relu"),
    ("multiclass", "64-128-64-20", "relu"), ("multiclass", "300-100-10", "relu"),
    # wide hidden layers: their weights' coefficient is set by these, not by the constants
    ("regression", "8-150-150-1", "relu"), ("regression", "30-200-100-1", "relu"),
    ("regression", "16-64-256-1", "relu"), ("multiclass", "50-120-160-8", "relu"),
    ("regression", "500-50-1", "relu"), ("regression", "10-80-80-80-1", "relu"),
    # the predictive's sections (appended: the blobs above keep their seeds). Distance and pairs
    # together (the recipe's default), each alone (beyond 32 inputs the distance has no pairs),
    # and the t alone; the dofs the recipe chooses from (3, 4, 5, 6, 8, ..., 32)
    ("regression", "2-16-1", "relu", (0.5, 1, 3)), ("regression", "3-12-1", "relu", (0.5, 1, 4)),
    ("regression", "5-20-1", "relu", (0.5, 1, 5)), ("regression", "8-16-16-1", "relu", (1, 2, 6)),
    ("regression", "13-20-1", "relu", (0.125, 1, 3)), ("regression", "16-24-1", "relu", (1, 1, 0)),
    ("regression", "24-16-1", "relu", (0.25, 0.5, 8)), ("regression", "32-20-1", "relu", (2, 4, 5)),
    ("regression", "12-30-1", "erf", (0.5, 1, 10)), ("regression", "7-10-1", "relu", (3, 8, 0)),
    ("regression", "20-40-30-1", "relu", (0.75, 1, 12)),
    ("regression", "4-30-1", "sign", (1, 1, 3)),
    ("regression", "6-10-1", "relu", (0.5, 0, 16)), ("regression", "20-12-1", "relu", (1, 0, 5)),
    ("regression", "40-20-1", "relu", (0.25, 0, 0)), ("regression", "64-16-1", "relu", (1, 0, 20)),
    ("regression", "10-12-1", "relu", (0, 1, 0)), ("regression", "26-8-1", "relu", (0, 2, 24)),
    ("regression", "4-8-1", "relu", (0, 0, 3)), ("regression", "9-30-30-1", "relu", (0, 0, 32)),
    ("regression", "30-20-1", "relu", (0, 0, 5)), ("regression", "3-40-1", "relu", (0, 0, 4)),
]
HELD_OUT = [("regression", "13-50-1", "relu"), ("regression", "8-100-100-1", "relu"),
            ("multiclass", "784-400-400-10", "relu"),
            ("regression", "13-50-50-1", "relu", (0.125, 1, 5)),
            ("regression", "13-50-50-1", "relu", (0.125, 1, 4))]
HELD_OUT_STORAGES = ("float32", "float16", "int8")


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def host_tools():
    if not os.path.exists(os.path.join(HOST, "CMakeCache.txt")):
        run(["cmake", "--preset", "host"], cwd=ROOT)
    run(["cmake", "--build", HOST, "-j2", "--target", "pbp", "target_cost_blob"])
    return os.path.join(HOST, "bin", "pbp"), os.path.join(HOST, "bin", "target_cost_blob")


def cache_value(build, name):
    for line in open(os.path.join(build, "CMakeCache.txt")):
        if line.startswith(name + ":"):
            return line.split("=", 1)[1].strip()
    return ""


def target_build(preset):
    build = os.path.join(ROOT, "build", preset)
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        run(["cmake", "--preset", preset], cwd=ROOT)
    run(["cmake", "--build", build, "-j2", "--target", "target_cost"])
    return build


def make_blobs(tool, folder, specs, storages, seed=1, twins=None):
    """The blobs of `specs` in each storage; with a dict `twins`, also each blob with sections'
    twin without them (the same seed: the same weights and rows), twins[blob] = twin."""
    blobs = []
    for task, shape, activation, *sections in specs:
        distance, pairs, dof = sections[0] if sections else (0, 0, 0)
        name = "%s-%s-%s" % (task, shape, activation) + "".join(
            "-%s%g" % (key, value) for key, value in (("d", distance), ("p", pairs), ("t", dof))
            if value)
        for storage in storages:
            path = os.path.join(folder, "%s-%s.pbp" % (name, storage))
            common = [tool, "--shape", shape, "--task", task, "--activation", activation,
                      "--storage", storage, "--seed", str(seed)]
            run(common + ["--distance-scale", str(distance), "--pair-scale", str(pairs),
                          "--tail-dof", str(dof), "--out", path])
            blobs.append(path)
            if twins is not None and (distance or pairs or dof):
                twins[path] = os.path.join(folder, "%s-twin-%s.pbp" % (name, storage))
                run(common + ["--out", twins[path]])
                blobs.append(twins[path])
            seed += 1
    return blobs


def run_firmware(preset, elf, blobs):
    """Runs `elf` on blob0.pbp, ... (`blobs`); {blob: (instructions per prediction, stack)}."""
    nm = cache_value(os.path.dirname(os.path.dirname(elf)), "CMAKE_NM")
    address = next(int(line.split()[0], 16) for line in run([nm, elf]).splitlines()
                   if line.split()[-1:] == ["cost_mark"])
    with tempfile.TemporaryDirectory() as folder:
        for i, blob in enumerate(blobs):
            os.symlink(os.path.abspath(blob), os.path.join(folder, "blob%d.pbp" % i))
        env = dict(os.environ, PBP_COUNT_MARK="0x%x" % (address & ~1))
        result = subprocess.run(
            [os.path.join(ROOT, "targets", "tools", "count-instructions.sh"), preset, elf],
            cwd=folder, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("target_cost: the firmware failed on %s:\n%s%s" % (preset, result.stdout,
                                                                      result.stderr))
    marks = [int(m) for m in re.findall(r"^mark: (\d+)$", result.stdout, re.M)]
    overhead = marks[1] - marks[0]
    marks = marks[2:]
    measured = {}
    for index, rows, stack in re.findall(r"^blob (\d+): rows (\d+) stack (\d+)$", result.stdout,
                                         re.M):
        rows = int(rows)
        pairs, marks = marks[:2 * rows], marks[2 * rows:]
        total = sum(pairs[2 * r + 1] - pairs[2 * r] - overhead for r in range(rows))
        measured[blobs[int(index)]] = (total / rows, int(stack))
    return measured


def measure(preset, build, blobs):
    """{blob: (instructions per prediction, stack bytes)} for the blobs the target holds: in the
    firmware's RAM, or (micro:bit) linked into its flash one at a time by target_cost_flash."""
    measured = run_firmware(preset, os.path.join(build, "bin", "target_cost"), blobs)
    if cache_value(build, "PBP_TARGET_BOARD") == "microbit":
        flash = os.path.join(build, "targets", "cost", "target_cost_flash.pbp")
        for blob in blobs:
            if blob in measured:
                continue
            shutil.copyfile(blob, flash)
            if subprocess.run(["cmake", "--build", build, "--target", "target_cost_flash"],
                              capture_output=True).returncode != 0:
                continue  # beyond the flash (the link fails) or the workspace
            elf = os.path.join(build, "bin", "target_cost_flash")
            measured.update({blob: m for m in run_firmware(preset, elf, [blob]).values()})
    return measured


def inspect(pbp, preset, blob):
    return json.loads(run([pbp, "inspect", blob, "--json", "--target", preset]))["target"]


def terms_of(pbp, blob):
    """A blob's cost terms: the same for every target; asked of one the table knows."""
    known = list(table_entries()) or ["cortex-m4f"]
    return inspect(pbp, known[0], blob)["cost_terms"]


def solve(rows, values):
    """Least squares of rows * x = values: normal equations of the unit-norm columns, Gauss-Jordan
    with pivoting; ValueError when the columns are (numerically) dependent."""
    n = len(rows[0])
    norms = [max(sum(r[i] ** 2 for r in rows) ** 0.5, 1e-300) for i in range(n)]
    rows = [[x / norm for x, norm in zip(r, norms)] for r in rows]
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] +
         [sum(r[i] * v for r, v in zip(rows, values))] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-10:
            raise ValueError("singular")
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] / norms[i] for i in range(n)]


def fit_terms(samples, names):
    """samples: [(terms dict, value, instructions)] -> {term of `names`: coefficient}, least squares
    of the value's error relative to the instructions. A term the samples do not separate from the
    terms before it (too few shapes fit a small board's RAM) stays unfitted: `pbp inspect` then
    gives no estimate for a model that has it, rather than a wrong one."""
    used = []
    for term in names:
        if not any(terms[term] for terms, _, _ in samples):
            continue
        try:
            solve([[terms[t] / y for t in used + [term]] for terms, _, y in samples],
                  [v / y for _, v, y in samples])
            used.append(term)
        except ValueError:
            pass
    if not used:
        return {}
    rows = [[terms[t] / y for t in used] for terms, _, y in samples]
    return dict(zip(used, solve(rows, [v / y for _, v, y in samples])))


def fit_storage(samples, twins):
    """samples: {blob: (terms dict, instructions)} of one storage -> {term: coefficient}. The
    network's terms from the blobs without sections 7 to 9; the sections' from each blob with them
    less its twin without (the same network and rows: the difference is what the sections cost)."""
    plain = [(v, y, y) for blob, (v, y) in samples.items()
             if not any(v[t] for t in SECTION_TERMS)]
    differences = [(v, y - samples[twins[blob]][1], y) for blob, (v, y) in samples.items()
                   if blob in twins and twins[blob] in samples]
    coefficients = fit_terms(plain, [t for t in TERMS if t not in SECTION_TERMS])
    coefficients.update(fit_terms(differences, SECTION_TERMS))
    return coefficients


def memory_lengths(board):
    text = open(os.path.join(ROOT, "targets", "boards", board, "memory.ld")).read()
    lengths = {}
    for name, value, unit in re.findall(r"^\s*(\w+)\s*\([rwx]+\)\s*:.*LENGTH\s*=\s*(\d+)([KM]?)",
                                        text, re.M):
        lengths[name] = int(value) * {"": 1, "K": 1024, "M": 1024 * 1024}[unit]
    return lengths.get("FLASH", 0), lengths.get("RAM", 0)


def runtime_bytes(build):
    out = run([sys.executable, os.path.join(ROOT, "targets", "tools", "footprint.py"), "--map",
               os.path.join(build, "bin", "target_cost.map")]).split()
    sizes = dict(zip(out[0::2], map(int, out[1::2])))
    return sizes["text"] + sizes["rodata"] + sizes["data"]


def presets_listed():
    return [line.strip() for line in open(os.path.join(ROOT, "targets", "presets.txt"))
            if line.strip() and not line.startswith("#")]


def number(x):
    return "kNotFitted" if x is None else "%.7g" % x


def table_entries():
    """The committed table's entries by target name (kept for targets not refitted)."""
    if not os.path.exists(TABLE):
        return {}
    return {m.group(1): m.group(0) for m in
            re.finditer(r'^  \{"([^"]+)".*?^   \}\},$', open(TABLE).read(), re.M | re.S)}


def fit_target(preset, pbp, blobs, twins, terms):
    build = target_build(preset)
    measured = measure(preset, build, blobs)
    by_storage = {s: {} for s in STORAGES}
    stack = dict.fromkeys(STORAGES, 0)
    tail_stack = dict.fromkeys(STORAGES, 0)  # the blobs with a Student-t
    for blob, (instructions, used) in measured.items():
        if blob not in terms:
            terms[blob] = terms_of(pbp, blob)
        (storage, values), = terms[blob].items()
        by_storage[storage][blob] = (values, instructions)
        high = tail_stack if any(values[t] for t in TAIL_TERMS) else stack
        high[storage] = max(high[storage], used)
    missing = [s for s in STORAGES if by_storage[s] and not tail_stack[s]]
    if missing:
        raise ValueError("no blob with a Student-t measured in %s" % " ".join(missing))
    coefficients = {}
    for storage, samples in by_storage.items():
        coefficients[storage] = fit_storage(samples, twins) if samples else {}
        errors = [(abs(sum(coefficients[storage].get(t, 0) * v[t] for t in TERMS) / y - 1),
                   any(v[t] for t in SECTION_TERMS)) for v, y in samples.values()]
        print("%s %s: %d blobs, worst fitting error %.1f %% (of those with sections 7 to 9 %.1f "
              "%%)" % (preset, storage, len(samples), 100 * max((e for e, _ in errors), default=0),
                       100 * max((e for e, sections in errors if sections), default=0)),
              flush=True)
    board = cache_value(build, "PBP_TARGET_BOARD")
    flash, ram = memory_lengths(board) if board else (0, 0)
    lines = ['  {"%s", "%s", %d, %d, %d,' % (preset, board, flash, ram, runtime_bytes(build)),
             "   {%s}," % ", ".join(str(stack[s]) for s in STORAGES),
             "   {%s}," % ", ".join(str(tail_stack[s]) for s in STORAGES), "   {"]
    for storage in STORAGES:
        values = [coefficients[storage].get(t) for t in TERMS]
        lines.append("    {%s},  // %s" % (", ".join(map(number, values)), storage))
    lines.append("   }},")
    return "\n".join(lines)


def fit(presets):
    pbp, tool = host_tools()
    entries = table_entries()
    failed = []
    with tempfile.TemporaryDirectory() as folder:
        twins = {}
        blobs = make_blobs(tool, folder, FITTING, STORAGES, twins=twins)
        terms = {}
        for preset in presets:
            try:
                entries[preset] = fit_target(preset, pbp, blobs, twins, terms)
            except (subprocess.CalledProcessError, ValueError, SystemExit) as error:
                print("%s: not fitted: %s" % (preset, error), file=sys.stderr)
                failed.append(preset)
    order = presets_listed()
    names = sorted(entries, key=lambda n: order.index(n) if n in order else len(order))
    with open(TABLE + ".tmp", "w") as out:
        out.write("// SPDX-License-Identifier: Apache-2.0\n"
                  "// Generated by `python3 tools/bench/target_cost.py fit [preset...]` (QEMU\n"
                  "// instruction counts of targets/cost on the fitting shapes): do not edit.\n"
                  "// Per target: name, board, flash and RAM bytes, runtime bytes, predict stack\n"
                  "// per storage of the blobs without a Student-t, then of those with one, then\n"
                  "// per storage (float32, float16, int8, int8-logvar) the coefficient of each\n"
                  "// term:\n// %s.\n" % ", ".join(TERMS))
        out.write("\n".join(entries[n] for n in names) + "\n")
    os.replace(TABLE + ".tmp", TABLE)
    print("wrote %s" % os.path.relpath(TABLE, ROOT))
    if failed:
        sys.exit("target_cost: not fitted: %s" % " ".join(failed))


def check(preset):
    pbp, tool = host_tools()
    build = target_build(preset)
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        blobs = make_blobs(tool, folder, HELD_OUT, HELD_OUT_STORAGES, seed=1000)
        measured = measure(preset, build, blobs)
        print("%-52s %12s %12s %7s %11s" % (preset + ": held-out blob", "estimated", "measured",
                                            "error", "stack est/m"))
        for blob in blobs:
            report = inspect(pbp, preset, blob)
            name = os.path.basename(blob)[:-4]
            if blob not in measured:
                # Not even from flash: then the report must say "does not fit".
                failures += report["fits"]
                print("%-52s %12s %12s   (not measured: the board cannot hold it; inspect: %s, "
                      "flash %s of %s)%s" % (name, report["instructions"], "-",
                                             "fits" if report["fits"] else "does not fit",
                                             report["model_flash_bytes"], report["flash_bytes"],
                                             "  FAIL" if report["fits"] else ""))
                continue
            instructions, stack = measured[blob]
            estimate = report["instructions"]
            error = (estimate - instructions) / instructions if estimate is not None else None
            # the stack: inspect's figure (the fitting blobs' most) never below the measured one
            bad = error is None or abs(error) > TOLERANCE or report["predict_stack_bytes"] < stack
            failures += bad
            print("%-52s %12s %12.0f %7s %5s/%-5s%s%s" % (
                name, estimate, instructions, "-" if error is None else "%+.1f%%" % (100 * error),
                report["predict_stack_bytes"], stack,
                "" if report["fits"] else "  (does not fit: flash %s of %s)" % (
                    report["model_flash_bytes"], report["flash_bytes"]), "  FAIL" if bad else ""))
    if failures:
        sys.exit("target_cost: %d estimate(s) beyond %d %% (or a stack below the measured one, "
                 "or a blob that fits, not measured) on %s" % (failures, 100 * TOLERANCE, preset))


def measure_blobs(preset, blobs):
    measured = measure(preset, target_build(preset), blobs)
    print("%-46s %12s %6s" % (preset + ": blob", "instructions", "stack"))
    for blob in blobs:
        instructions, stack = measured.get(blob, (None, None))
        print("%-46s %12s %6s" % (blob, "-" if instructions is None else "%.0f" % instructions,
                                  "-" if stack is None else stack))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "fit":
        fit(sys.argv[2:] or presets_listed())
    elif len(sys.argv) >= 4 and sys.argv[1] == "measure":
        measure_blobs(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
