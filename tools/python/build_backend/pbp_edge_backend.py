# SPDX-License-Identifier: Apache-2.0
"""The PEP 517 backend of pyproject.toml: builds pbp_edge with this tree's own CMake build
(PBP_PYTHON) and packs it as a wheel (the binary distribution format: zip, METADATA, WHEEL,
RECORD). Standard library only, so that `pip install --no-build-isolation .` and
`python3 -m build --wheel --no-isolation` work on a machine whose only registry is Debian's.

The build folder is build/python-wheel in the source tree (config setting `build-dir` or
PBP_WHEEL_BUILD_DIR to change it); CMAKE_ARGS (or the config setting `cmake.args`) adds CMake
options. The wheel is built for any CPU of the architecture (PBP_NATIVE=OFF); the version is
the CMake project's (CMAKE_PROJECT_VERSION), as pbp_edge.__version__ says it."""
import base64
import hashlib
import io
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parents[3]
PACKAGE = "pbp_edge"


# -- PEP 517 hooks -----------------------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    build = _configure(config_settings)
    info = pathlib.Path(metadata_directory) / _dist_info(_version(build))
    info.mkdir(parents=True, exist_ok=True)
    for name, data in _metadata_files(_version(build)).items():
        path = info / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    build = _configure(config_settings)
    _run(["cmake", "--build", str(build), "--target", PACKAGE, "--parallel",
          os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))])
    version = _version(build)
    package = build / "python" / PACKAGE
    files = {f"{PACKAGE}/{p.name}": p.read_bytes() for p in sorted(package.iterdir())
             if p.suffix == ".py" or (p.name.startswith("_core") and p.suffix == ".so")}
    if not any(name.endswith(".so") for name in files):
        raise RuntimeError(f"no {PACKAGE}/_core*.so in {package}: the CMake build made no module "
                           "(needs python3-dev and pybind11: tools/setup.sh)")
    info = _dist_info(version)
    for name, data in _metadata_files(version).items():
        files[f"{info}/{name}"] = data
    wheel = pathlib.Path(wheel_directory) / f"{PACKAGE}-{version}-{_tag()}.whl"
    _write_wheel(wheel, files, info)
    return wheel.name


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    """The source tree as git tracks it (pip and build make the wheel from it), with PKG-INFO:
    the whole CMake project, since the module is built from the trainer and the runtime."""
    build = _configure(config_settings)
    version = _version(build)
    top = f"{PACKAGE}-{version}"
    listed = _source_files()
    sdist = pathlib.Path(sdist_directory) / f"{top}.tar.gz"
    sdist.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist.with_suffix(".tmp"), "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name in sorted(n for n in listed if n and (ROOT / n).is_file()):
            archive.add(ROOT / name, f"{top}/{name}", filter=_normalised)
        info = tarfile.TarInfo(f"{top}/PKG-INFO")
        data = _metadata_files(version)["METADATA"]
        info.size, info.mode, info.mtime = len(data), 0o644, _epoch()
        archive.addfile(info, io.BytesIO(data))
    os.replace(sdist.with_suffix(".tmp"), sdist)
    return sdist.name


def _source_files():
    """git's tracked files; in a tree without git (an unpacked sdist), every file but builds'."""
    if (ROOT / ".git").exists():
        return subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True,
                              capture_output=True).stdout.decode().split("\0")
    skipped = {"build", "dist"}
    return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
            if p.is_file() and p.relative_to(ROOT).parts[0] not in skipped]


def _normalised(info):
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = _epoch()
    return info


def _epoch():
    """SOURCE_DATE_EPOCH if set (reproducible archives), else 1980-01-01, zip's first day."""
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)


# -- CMake -------------------------------------------------------------------------------------
def _build_dir(config_settings):
    setting = (config_settings or {}).get("build-dir") or os.environ.get("PBP_WHEEL_BUILD_DIR")
    return pathlib.Path(setting).resolve() if setting else ROOT / "build" / "python-wheel"


def _configure(config_settings):
    build = _build_dir(config_settings)
    args = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            "-DPBP_PYTHON=ON", "-DPBP_BUILD_TESTS=OFF", "-DPBP_INSTALL=OFF", "-DPBP_NATIVE=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}"]
    if shutil.which("ninja") and not (build / "CMakeCache.txt").exists():
        args += ["-G", "Ninja"]
    try:  # pybind11 from wherever this Python has it (Debian's, or an isolated build's)
        import pybind11
        # A fallback: CMake's own pybind11 of the same version comes first (tools/python/
        # CMakeLists.txt), whose header paths the host build's compiler cache entries name.
        args += [f"-DPBP_PYBIND11_DIR={pybind11.get_cmake_dir()}",
                 f"-DPBP_PYBIND11_VERSION={pybind11.__version__}"]
    except ImportError:
        pass
    extra = (config_settings or {}).get("cmake.args") or os.environ.get("CMAKE_ARGS", "")
    _run(args + shlex.split(extra))
    return build


def _version(build):
    cache = (build / "CMakeCache.txt").read_text()
    found = re.search(r"^CMAKE_PROJECT_VERSION:\w+=(\S+)$", cache, re.M)
    if not found:
        raise RuntimeError(f"{build}/CMakeCache.txt has no CMAKE_PROJECT_VERSION")
    return found.group(1)


def _run(command):
    print("pbp_edge_backend:", " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, stdout=sys.stderr)


# -- the wheel (https://packaging.python.org/specifications/binary-distribution-format/) -------
def _dist_info(version):
    return f"{PACKAGE}-{version}.dist-info"


def _tag():
    """cpXY-cpXY-platform: the module is built for this interpreter's ABI and machine."""
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = python + ("d" if sysconfig.get_config_var("Py_DEBUG") else "")
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{python}-{abi}-{platform}"


def _metadata_files(version):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = ["Metadata-Version: 2.4", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project['description']}", f"License-Expression: {project['license']}"]
    lines += [f"License-File: {name}" for name in project.get("license-files", [])]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    lines.append("Description-Content-Type: text/markdown")
    readme = (ROOT / project["readme"]).read_text()
    files = {"METADATA": ("\n".join(lines) + "\n\n" + readme).encode(),
             "WHEEL": (f"Wheel-Version: 1.0\nGenerator: pbp_edge_backend\n"
                       f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode()}
    for name in project.get("license-files", []):
        files[f"licenses/{name}"] = (ROOT / name).read_bytes()
    return files


def _write_wheel(path, files, info):
    """The zip with RECORD last; fixed timestamps (SOURCE_DATE_EPOCH if set) for a reproducible
    wheel; the extension module executable, as compilers leave it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = tuple(time.gmtime(_epoch())[:6])
    record = []
    with zipfile.ZipFile(path.with_suffix(".tmp"), "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, stamp)
            entry.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{name},sha256={digest.decode()},{len(data)}")
        record.append(f"{info}/RECORD,,")
        entry = zipfile.ZipInfo(f"{info}/RECORD", stamp)
        entry.external_attr = 0o644 << 16
        archive.writestr(entry, "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    os.replace(path.with_suffix(".tmp"), path)
