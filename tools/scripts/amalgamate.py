#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the runtime as one folder for any IDE: pbp_runtime.cpp (every runtime/src/*.cpp, their
internal headers, runtime/src's and runtime/core's, inlined once) beside the API headers (pbp/...,
pbp_config.h and pbp_version.h included) and the LICENSE.

    python3 tools/scripts/amalgamate.py OUT_DIR

OUT_DIR is a build folder, never the source tree (the sources stay the one copy). The CMake
target pbp_runtime_amalgamated runs it and CI compiles the result alone and runs the golden
vectors against it on every target (tests/runtime/amalgamated); targets/arduino packs it as an
Arduino library. Deterministic: the same tree gives the same bytes.
"""
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = os.path.join(ROOT, "runtime", "src")
CORE = os.path.join(ROOT, "runtime", "core")  # "pbp/moments.hpp" etc.: internal, not the API
PUBLIC = os.path.join(ROOT, "runtime", "include", "pbp")
VERSION_TEMPLATE = os.path.join(ROOT, "runtime", "cmake", "pbp_version.h.in")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\s*$")
SPDX = re.compile(r"^\s*(//|/\*)\s*SPDX-License-Identifier:")

# The runtime's bits are the same on every target only without fused multiply-adds
# (-ffp-contract=off in its own build). A project compiling this file with its own flags (an
# IDE's gnu++17 defaults contract on an FPU with FMA) gets that from the pragmas. Its other flag,
# -fno-math-errno, changes no bit: without it (GCC's #pragma does not reach the square root) the
# FPU's square root of a NaN also calls libm's sqrtf to set errno, so the program links libm.
PROLOGUE = """// SPDX-License-Identifier: Apache-2.0
// pbp-edge runtime, amalgamated by tools/scripts/amalgamate.py from runtime/src: do not edit.
// Compile as C++17 with -fno-exceptions -fno-rtti, and -fno-math-errno to need no libm, with the
// folder holding this file on the include path (the public headers are in pbp/ beside it). The C
// API is pbp/pbp.h; targets/DEPLOYING.md says how to use it.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
"""


def internal_header(path, name):
    """The file an include of `name` in `path` names when it is internal (runtime/src beside
    `path`, or runtime/core), else None: the API headers stay includes."""
    for folder in (os.path.dirname(path), SOURCES, CORE):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and not candidate.startswith(PUBLIC + os.sep):
            return os.path.normpath(candidate)
    return None


def inline(path, seen, out):
    """Appends `path` to `out`, each internal header inlined once."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for line in lines:
        if SPDX.match(line) or PRAGMA_ONCE.match(line):
            continue
        match = INCLUDE.match(line)
        header = match and internal_header(path, match.group(1))
        if not header:
            out.append(line)
            continue
        if header not in seen:
            seen.add(header)
            out.append("// --- %s ---" % os.path.relpath(header, ROOT))
            inline(header, seen, out)


def version_header():
    """pbp_version.h as CMake's configure_file makes it, from the top-level project(VERSION)."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(\s*pbp_edge\s+VERSION\s+(\d+)\.(\d+)\.(\d+)", f.read())
    if not match:
        sys.exit("amalgamate.py: no project(pbp_edge VERSION x.y.z) in CMakeLists.txt")
    major, minor, patch = match.groups()
    with open(VERSION_TEMPLATE, encoding="utf-8") as f:
        text = f.read()
    for name, value in (("PROJECT_VERSION_MAJOR", major), ("PROJECT_VERSION_MINOR", minor),
                        ("PROJECT_VERSION_PATCH", patch),
                        ("PROJECT_VERSION", "%s.%s.%s" % (major, minor, patch))):
        text = text.replace("@%s@" % name, value)
    return text


def amalgamate(out_dir):
    # runtime/src's sources, then its kernels/ (their internal headers included as "kernels/...").
    cpp_files = sorted(f for f in os.listdir(SOURCES) if f.endswith(".cpp"))
    kernels = os.path.join(SOURCES, "kernels")
    cpp_files += sorted("kernels/" + f for f in os.listdir(kernels) if f.endswith(".cpp"))
    out = [PROLOGUE.rstrip("\n")]
    seen = set()
    for name in cpp_files:
        out.append("// --- runtime/src/%s ---" % name)
        inline(os.path.join(SOURCES, name), seen, out)
    text = "\n".join(out) + "\n"
    os.makedirs(out_dir, exist_ok=True)
    headers = os.path.join(out_dir, "pbp")
    if os.path.isdir(headers):
        shutil.rmtree(headers)  # a header removed from the tree must not linger here
    shutil.copytree(PUBLIC, headers)
    with open(os.path.join(headers, "pbp_version.h"), "w", encoding="utf-8") as f:
        f.write(version_header())  # generated in a CMake build: the release folder carries it
    shutil.copyfile(os.path.join(ROOT, "LICENSE"), os.path.join(out_dir, "LICENSE"))
    target = os.path.join(out_dir, "pbp_runtime.cpp")
    temporary = target + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temporary, target)
    return target, len(cpp_files), len(text.encode("utf-8"))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: amalgamate.py OUT_DIR")
    out_dir = os.path.abspath(sys.argv[1])
    if os.path.commonpath([out_dir, os.path.join(ROOT, "runtime")]) == os.path.join(ROOT, "runtime"):
        sys.exit("amalgamate.py: OUT_DIR must be outside runtime/ (a build folder)")
    target, count, size = amalgamate(out_dir)
    print("amalgamate: %s (%d sources, %d bytes) and pbp/" % (target, count, size))


if __name__ == "__main__":
    main()
