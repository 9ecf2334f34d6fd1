#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Footprint of the runtime in one -Os target build (called by size-report.sh --os).

  footprint.py BUILD_DIR SIZE_TOOL NM_TOOL
  footprint.py --map MAP      what one link map takes from libpbp_runtime.a (--firmware)

Reports, for the build's libpbp_runtime.a (built with -ffunction-sections -fdata-sections
-fcallgraph-info=su):
  - text / rodata / data / bss of the archive (everything, no libc, no model),
  - the largest symbols (nm --size-sort),
  - what the boston_on_device example really links of it (--gc-sections; from its link map),
  - the worst-case stack of pbp_open and of each predict function along the static call graph
    (.ci files),
    plus the calls that leave the runtime (libgcc soft float, memset, ...) whose frames are not
    in that figure,
  - allocator symbols the archive references (must be none: zero heap),
  - the example model's workspace bytes.
"""
import os
import re
import subprocess
import sys

KINDS = ("text", "rodata", "data", "bss")


def kind_of(section):
    for prefix, kind in ((".text", "text"), (".rodata", "rodata"), (".srodata", "rodata"),
                         (".data", "data"),
                         (".init_array", "data"), (".sdata", "data"), (".bss", "bss"),
                         (".sbss", "bss")):
        if section == prefix or section.startswith(prefix + "."):
            return kind
    return None


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def linked_sections(map_path, member="libpbp_runtime.a("):
    """text/rodata/data/bss of the input sections a link map takes from libpbp_runtime.a (or
    from the files whose name contains `member`, "(store.cpp" for one object)."""
    linked = dict.fromkeys(KINDS, 0)
    in_map = False
    section = None
    for line in open(map_path, errors="replace"):
        if line.startswith("Linker script and memory map"):
            in_map = True
            continue
        if not in_map:
            continue
        m = re.match(r"^ (\.[^\s*]+)(?:\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+))?\s*$", line)
        if m:
            section = m.group(1)
            if m.group(2) and member in m.group(3):
                kind = kind_of(section)
                if kind:
                    linked[kind] += int(m.group(2), 16)
                section = None
            continue
        m = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S*libpbp_runtime\.a\(\S+)", line)
        if m and section:
            kind = kind_of(section)
            if kind and member in m.group(2):
                linked[kind] += int(m.group(1), 16)
            section = None
    return linked


# footprint.py --map MAP: only what that link map takes from libpbp_runtime.a (size-report.sh
# --firmware), one line: text N rodata N data N bss N.
if sys.argv[1] == "--map":
    linked = linked_sections(sys.argv[2])
    print(" ".join("%s %d" % (k, linked[k]) for k in KINDS))
    sys.exit(0)


build, size_tool, nm_tool = sys.argv[1:4]
lib = os.path.join(build, "runtime", "libpbp_runtime.a")
obj_dir = os.path.join(build, "runtime", "CMakeFiles", "pbp_runtime.dir", "src")
example_map = os.path.join(build, "bin", "example_boston_on_device.map")

# 1. Archive sections by kind.
totals = dict.fromkeys(KINDS, 0)
per_object = {}
obj = None
for line in run(size_tool, "-A", lib).splitlines():
    m = re.match(r"^(\S+)\s+\(ex ", line)
    if m:
        obj = m.group(1)
        per_object[obj] = dict.fromkeys(KINDS, 0)
        continue
    parts = line.split()
    if obj and len(parts) >= 2 and parts[0].startswith("."):
        kind = kind_of(parts[0])
        if kind:
            per_object[obj][kind] += int(parts[1])
            totals[kind] += int(parts[1])
print("  libpbp_runtime.a (every function, no libc, no model):")
print("    %-28s %7s %7s %7s %7s" % (("object",) + KINDS))
for name in sorted(per_object):
    print("    %-28s %7d %7d %7d %7d" % ((name,) + tuple(per_object[name][k] for k in KINDS)))
print("    %-28s %7d %7d %7d %7d" % (("TOTAL",) + tuple(totals[k] for k in KINDS)))

# 2. Largest symbols.
symbols = {}
for line in run(nm_tool, "--size-sort", "-S", "-C", lib).splitlines():
    parts = line.split(None, 3)
    if len(parts) == 4:
        symbols[parts[3]] = max(symbols.get(parts[3], 0), int(parts[1], 16))
print("  largest symbols (bytes; T/W code, r/V data):")
for name, size in sorted(symbols.items(), key=lambda kv: -kv[1])[:12]:
    print("    %6d  %s" % (size, name[:100]))

# 3. What the example links (input sections from libpbp_runtime.a in the memory map).
if os.path.exists(example_map):
    linked = linked_sections(example_map)
    print("  linked into example_boston_on_device (--gc-sections; pbp_open, pbp_predict, "
          "pbp_status_string):")
    print("    text %d, rodata %d, data %d, bss %d bytes" % tuple(linked[k] for k in KINDS))
else:
    print("  (no %s)" % example_map)

# 4. Stack along the static call graph.
frames, kinds, edges = {}, {}, {}


def key(title):
    return title.split(":")[-1]


for name in sorted(os.listdir(obj_dir)):
    if not name.endswith(".ci"):
        continue
    for line in open(os.path.join(obj_dir, name)):
        m = re.match(r'node: \{ title: "([^"]+)" label: "(.*?)"', line)
        if m:
            k = key(m.group(1))
            f = re.search(r"\\n(\d+) bytes \((\w+)\)", m.group(2))
            if f:
                frames[k] = int(f.group(1))
                kinds[k] = f.group(2)
            continue
        m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', line)
        if m:
            edges.setdefault(key(m.group(1)), set()).add(key(m.group(2)))


def deepest(function, seen=()):
    """(bytes, path, outside calls) of the deepest path from `function`."""
    if function in seen:
        return (0, [function + " (recursion!)"], set())
    own = frames.get(function, 0)
    best = (0, [], set())
    outside = set()
    for callee in edges.get(function, ()):
        if callee in frames:
            sub = deepest(callee, seen + (function,))
            outside |= sub[2]
            if sub[0] > best[0]:
                best = sub
        else:
            outside.add(callee)
    return (own + best[0], [function] + best[1], outside)


def demangle(names):
    if not names:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return [strip_parameters(n) for n in out.stdout.split("\n") if n]


def strip_parameters(name):
    """'T f<x>(int, g(h))' -> 'T f<x>': drops the last balanced parameter list."""
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i]
    return name


for entry in ("pbp_open", "pbp_predict", "pbp_predict_classes", "pbp_predict_count",
              "pbp_store_boot", "pbp_store_save"):
    if entry not in frames:
        continue
    total, path, outside = deepest(entry)
    nonstatic = [f for f in path if kinds.get(f, "static") != "static"]
    print("  %s stack, static call graph: %d bytes%s" %
          (entry, total, " (non-static frames: %s)" % ", ".join(nonstatic) if nonstatic else ""))
    print("    path: " + " -> ".join("%s (%d)" % (d, frames.get(p, 0))
                                     for d, p in zip(demangle(path), path)))
    if outside:
        print("    + frames of calls leaving the runtime: %s" % ", ".join(sorted(outside)))

# 5. Heap: allocator symbols the archive references.
undefined, defined = set(), set()
for line in run(nm_tool, lib).splitlines():
    parts = line.split()
    if len(parts) == 2 and parts[0] == "U":
        undefined.add(parts[1])
    elif len(parts) == 3:
        defined.add(parts[2])
undefined -= defined
heap = sorted(u for u in undefined
              if re.match(r"^(malloc|calloc|realloc|free|_Zn[wa]|_Zd[la]|_sbrk|__cxa_)", u))
print("  heap: %s" % ("NONE referenced (zero heap)" if not heap else "references " + ", ".join(heap)))
print("  undefined symbols of the archive: %s" % (", ".join(sorted(undefined)) or "none"))

# 6. Workspace of the example model.
header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                      "boston_on_device", "boston_13_50.h")
if os.path.exists(header):
    m = re.search(r"#define BOSTON_13_50_WORKSPACE_BYTES (\d+)u", open(header).read())
    s = re.search(r"#define BOSTON_13_50_SIZE (\d+)u", open(header).read())
    print("  example model (Boston 13-50-1): blob %s bytes of flash, workspace %s bytes" %
          (s.group(1), m.group(1)))

# 7. pbp_store (store.cpp): its code, what learn_on_device links of it, its RAM.
store_object = [name for name in per_object if name.startswith("store.cpp")]
if store_object:
    own = per_object[store_object[0]]
    print("  pbp_store (%s, every function): text %d, rodata %d, data %d, bss %d bytes" %
          ((store_object[0],) + tuple(own[k] for k in KINDS)))
learn_elf = os.path.join(build, "bin", "example_learn_on_device")
if os.path.exists(learn_elf + ".map"):
    linked = linked_sections(learn_elf + ".map", "(store.cpp")
    print("    linked into example_learn_on_device: text %d, rodata %d (its own; it calls pbp_open "
          "and pbp_learn_write_blob)" % (linked["text"], linked["rodata"]))
    sizes = {}
    for line in run(nm_tool, "-S", learn_elf).splitlines():
        parts = line.split()
        if len(parts) == 4:
            sizes[parts[3]] = int(parts[1], 16)
    if "store" in sizes:
        print("    RAM: a pbp_store is %d bytes; the example's boot and save buffers %d + %d, its "
              "two RAM-backed slots %d" % (sizes["store"], sizes.get("boot_blob", 0),
                                           sizes.get("learnt_blob", 0),
                                           sizes.get("flash_memory", 0)))
