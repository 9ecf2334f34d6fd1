#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a bare-metal program's instructions go, function by function, under a preset's QEMU.

  targets/tools/function-counts.py <preset> <elf_1> <elf_n> <n - 1> [--top K]

Runs both ELFs with count-instructions.sh's profile (PBP_COUNT_PROFILE), sums each ELF's
per-address counts by the function (the preset's nm, CMAKE_NM in build/<preset>) whose symbol
starts at or below the address, and prints (count in elf_n - count in elf_1) / (n - 1) per
function, largest first, and their total: what one more iteration costs, start-up cancelled, as
tools/bench/predict_cost_targets.sh counts it (e.g. its predict_cost_pbp_1 and _101 ELFs, n - 1 =
100). Both ELFs must be built from the same sources (their functions' names match, not their
addresses).
"""
import bisect
import collections
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cache_value(preset, name):
    with open(os.path.join(ROOT, "build", preset, "CMakeCache.txt")) as cache:
        for line in cache:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    sys.exit(f"function-counts: {name} not in build/{preset}/CMakeCache.txt")


def functions(nm, elf):
    """(start address, name) of the ELF's code symbols, by address (Thumb's bit 0 cleared)."""
    listing = subprocess.run([nm, "-n", "-C", elf], capture_output=True, text=True, check=True)
    symbols = []
    for line in listing.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            symbols.append((int(parts[0], 16) & ~1, parts[2]))
    return symbols


def per_function(preset, nm, elf):
    with tempfile.TemporaryDirectory() as work:
        profile = os.path.join(work, "profile.txt")
        env = dict(os.environ, PBP_COUNT_PROFILE=profile)
        subprocess.run([os.path.join(ROOT, "targets", "tools", "count-instructions.sh"), preset,
                        elf], env=env, check=True, stdout=subprocess.DEVNULL)
        symbols = functions(nm, elf)
        starts = [address for address, _ in symbols]
        sums = collections.Counter()
        with open(profile) as counts:
            for line in counts:
                address, count = line.split()
                i = bisect.bisect_right(starts, int(address, 16)) - 1
                sums[symbols[i][1] if i >= 0 else "(before the first symbol)"] += int(count)
    return sums


def main(argv):
    if len(argv) not in (4, 6) or (len(argv) == 6 and argv[4] != "--top"):
        sys.exit(__doc__)
    preset, first, last, extra = argv[0], argv[1], argv[2], int(argv[3])
    top = int(argv[5]) if len(argv) == 6 else 25
    nm = cache_value(preset, "CMAKE_NM")
    one, many = per_function(preset, nm, first), per_function(preset, nm, last)
    cost = {name: (many[name] - one[name]) / extra for name in set(one) | set(many)}
    print(f"instructions per iteration: {sum(cost.values()):.0f}")
    for name, count in sorted(cost.items(), key=lambda item: -abs(item[1]))[:top]:
        if abs(count) >= 0.5:
            print(f"{count:10.0f}  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
