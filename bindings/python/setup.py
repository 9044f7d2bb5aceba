"""Builds libreshape (through the engine's CMake build) into the package, so the wheel ships it.

Everything else about the package is in pyproject.toml.

- In a clone, the library is built from the repository (bindings/python/../..).
- An sdist carries the engine in engine/ (the Swift sources libreshape needs, include/, cmake/,
  CMakeLists.txt and a Package.swift with only those targets), and builds from that.
- The wheel is tagged py3-none-<platform>: it holds a shared library, not a CPython extension, so
  any Python 3 can load it. `auditwheel repair` then bundles jansson and makes the tag manylinux
  (scripts/build-wheel does both).

Set RESHAPE_SKIP_LIBRARY_BUILD=1 to build a pure package without the library (it then loads
$RESHAPE_LIBRARY or a system-wide libreshape). RESHAPE_CMAKE_BUILD_DIR chooses the CMake build
directory (default: build/ in the repository, or a temporary one for an sdist).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent.parent  # bindings/python -> the repository
CARRIED = HERE / "engine"  # the engine an sdist carries
ENGINE_PRODUCT = "ReshapeC"  # the SwiftPM product CMakeLists.txt builds into libreshape.so
ENGINE_FILES = ["CMakeLists.txt", "cmake", "include"]  # besides the Sources of the targets it needs
SKIP_LIBRARY = bool(os.environ.get("RESHAPE_SKIP_LIBRARY_BUILD"))


def fail(sentence: str) -> None:
    raise SystemExit("reshape: " + sentence)


def engine_source() -> Path:
    """Where to build libreshape from: the engine an sdist carries, else the repository around us."""
    if (CARRIED / "Package.swift").exists():
        return CARRIED
    if all((REPOSITORY / name).exists() for name in ("Package.swift", "CMakeLists.txt", "Sources/ReshapeC")):
        return REPOSITORY
    fail(
        "cannot find the engine to build libreshape from (neither an sdist's engine/ folder nor a Reshape "
        "repository around bindings/python); build from a clone or from an sdist made by scripts/build-wheel, "
        "or set RESHAPE_SKIP_LIBRARY_BUILD=1 and point RESHAPE_LIBRARY at a built libreshape.so at run time."
    )
    raise AssertionError  # unreachable: fail() raises


def check_build_tools() -> None:
    """Stops with one sentence naming every missing tool, and how to get them."""
    missing: List[str] = []
    if shutil.which("swift") is None:
        missing.append("the Swift toolchain 6.1 or later (swift on PATH; https://www.swift.org/install/linux/)")
    if shutil.which("cmake") is None:
        missing.append("CMake 3.20 or later (apt-get install cmake)")
    if not os.environ.get("CC") and not any(shutil.which(name) for name in ("cc", "gcc", "clang")):
        missing.append("a C compiler (apt-get install gcc, or the Swift toolchain's clang on PATH)")
    if not os.environ.get("CXX") and not any(shutil.which(name) for name in ("c++", "g++", "clang++")):
        missing.append("a C++ compiler (apt-get install g++, or the Swift toolchain's clang++ on PATH)")
    if shutil.which("pkg-config") is None:
        missing.append("pkg-config (apt-get install pkg-config)")
    elif subprocess.run(["pkg-config", "--exists", "jansson"]).returncode != 0:
        missing.append("jansson's headers and pkg-config file (apt-get install libjansson-dev)")
    if missing:
        fail(
            "building libreshape from source needs "
            + "; ".join(missing)
            + f", which this machine lacks: install {'it' if len(missing) == 1 else 'them'}, or install a prebuilt"
            + " reshape wheel instead."
        )


def strip_command() -> List[str]:
    """strip from binutils, else the Swift toolchain's llvm-objcopy; empty if neither is found."""
    if shutil.which("strip"):
        return ["strip", "--strip-unneeded"]
    swift = shutil.which("swift")
    if swift:
        objcopy = Path(swift).resolve().parent / "llvm-objcopy"
        if objcopy.exists():
            return [str(objcopy), "--strip-unneeded"]
    return []


class BuildWithLibrary(build_py):
    """Runs the CMake build of libreshape, then copies the library, stripped, into reshape/_lib/."""

    def run(self) -> None:
        super().run()
        if SKIP_LIBRARY:
            return
        source = engine_source()
        check_build_tools()
        configure = ["cmake", "-S", str(source)]
        if os.environ.get("RESHAPE_CMAKE_BUILD_DIR"):
            build_dir = Path(os.environ["RESHAPE_CMAKE_BUILD_DIR"]).resolve()
        elif source == REPOSITORY:
            build_dir = REPOSITORY / "build"  # shared with the C suite, so the engine is built once
        else:
            build_dir = Path(self.get_finalized_command("build").build_temp).resolve() / "libreshape"
        if source == CARRIED:
            configure.append("-DBUILD_TESTING=OFF")  # an sdist carries no tests
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        subprocess.check_call([*configure, "-B", str(build_dir)])
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "reshape_library"])
        built = sorted((build_dir / "lib").glob("libreshape.so.*.*.*"), key=lambda path: path.stat().st_mtime)
        if not built:
            fail(f"the build produced no libreshape.so.X.Y.Z in {build_dir / 'lib'}.")
        target = Path(self.build_lib) / "reshape" / "_lib" / "libreshape.so"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)  # the newest: a build folder may keep older versions
        target.chmod(0o755)
        strip = strip_command()
        if strip:
            subprocess.check_call([*strip, str(target)])
        else:
            self.warn("neither strip nor llvm-objcopy was found: libreshape.so is packaged unstripped")


class LibraryDistribution(Distribution):
    """With the library, the package is specific to the platform: built and installed as platlib."""

    def has_ext_modules(self) -> bool:
        return not SKIP_LIBRARY


class PlatformWheel(bdist_wheel):
    """py3-none-<platform>: the wheel holds a shared library loaded with ctypes, no CPython extension,
    so any Python 3 on the platform can use it. Without the library: py3-none-any."""

    def get_tag(self):  # type: ignore[no-untyped-def]
        python, abi, platform = super().get_tag()
        return (python, abi, platform) if self.root_is_pure else ("py3", "none", platform)


def swift_manifest_for_library(dump: Dict) -> Tuple[str, List[str]]:
    """A Package.swift with only the targets ENGINE_PRODUCT needs, from `swift package dump-package`.

    Returns it and the source folders of those targets. Anything it cannot carry over stops the sdist.
    """
    targets = {target["name"]: target for target in dump["targets"]}
    products = {product["name"]: product for product in dump["products"]}
    needed: List[str] = []
    queue = list(products[ENGINE_PRODUCT]["targets"])
    while queue:
        name = queue.pop(0)
        if name in needed:
            continue
        needed.append(name)
        for dependency in targets[name]["dependencies"]:
            kind, value = next(iter(dependency.items()))
            if kind not in ("byName", "target") or value[0] not in targets:
                fail(f"the sdist's Package.swift cannot carry {name}'s dependency {dependency}; extend setup.py.")
            queue.append(value[0])

    def strings(values: List[str]) -> str:
        return "[" + ", ".join(json.dumps(value) for value in values) + "]"

    declarations: List[str] = []
    folders: List[str] = []
    for name in reversed(needed):  # dependencies first, for the reader
        target = targets[name]
        folders.append(target.get("path") or f"Sources/{name}")
        arguments = [f"name: {json.dumps(name)}"]
        if target["type"] == "system":
            if target.get("path"):
                arguments.append(f"path: {json.dumps(target['path'])}")
            if target.get("pkgConfig"):
                arguments.append(f"pkgConfig: {json.dumps(target['pkgConfig'])}")
            providers = [f".apt({strings(provider['apt'][0])})" for provider in target.get("providers") or [] if "apt" in provider]
            if providers:
                arguments.append(f"providers: [{', '.join(providers)}]")
            declarations.append(f".systemLibrary({', '.join(arguments)})")
            continue
        if target["type"] != "regular" or target.get("resources") or target.get("sources") is not None:
            fail(f"the sdist's Package.swift cannot carry target {name} as it is declared; extend setup.py.")
        dependencies = [value[0] for dependency in target["dependencies"] for value in dependency.values()]
        arguments.append(f"dependencies: {strings(dependencies)}")
        if target.get("path"):
            arguments.append(f"path: {json.dumps(target['path'])}")
        if target.get("exclude"):
            arguments.append(f"exclude: {strings(target['exclude'])}")
        linked = []
        for setting in target.get("settings") or []:
            if setting.get("tool") != "linker" or "linkedLibrary" not in setting["kind"] or setting.get("condition"):
                fail(f"the sdist's Package.swift cannot carry {name}'s setting {setting}; extend setup.py.")
            linked.append(f".linkedLibrary({json.dumps(setting['kind']['linkedLibrary']['_0'])})")
        if linked:
            arguments.append(f"linkerSettings: [{', '.join(linked)}]")
        declarations.append(f".target({', '.join(arguments)})")

    product = products[ENGINE_PRODUCT]
    tools = ".".join(dump["toolsVersion"]["_version"].split(".")[:2])
    manifest = "\n".join(
        [
            f"// swift-tools-version:{tools}",
            "// Written by bindings/python/setup.py for the sdist, from the repository's Package.swift:",
            f"// only the {ENGINE_PRODUCT} library (libreshape) and the targets it needs.",
            "import PackageDescription",
            "",
            "let package = Package(",
            f"    name: {json.dumps(dump['name'])},",
            "    products: [",
            f"        .library(name: {json.dumps(ENGINE_PRODUCT)}, type: .dynamic, targets: {strings(product['targets'])}),",
            "    ],",
            "    targets: [",
            *[f"        {declaration}," for declaration in declarations],
            "    ]",
            ")",
            "",
        ]
    )
    return manifest, folders


def carry_engine(destination: Path) -> None:
    """Copies into an sdist what building libreshape needs, and nothing of the CLI, tests or benchmarks."""
    if (CARRIED / "Package.swift").exists():  # an sdist made from an sdist
        shutil.copytree(CARRIED, destination)
        return
    source = engine_source()
    if shutil.which("swift") is None:
        fail("making the sdist needs the Swift toolchain (swift on PATH) to read Package.swift.")
    dump = json.loads(subprocess.check_output(["swift", "package", "dump-package", "--package-path", str(source)]))
    manifest, folders = swift_manifest_for_library(dump)
    destination.mkdir()
    for name in ENGINE_FILES + folders:
        if (source / name).is_dir():
            shutil.copytree(source / name, destination / name, ignore=shutil.ignore_patterns(".*"))
        else:
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, destination / name)
    (destination / "Package.swift").write_text(manifest)
    subprocess.check_call(  # the written manifest must parse, or the sdist would not build
        ["swift", "package", "dump-package", "--package-path", str(destination)], stdout=subprocess.DEVNULL
    )


class SdistWithEngine(sdist):
    """The sdist carries the engine in engine/, so `pip install reshape-X.tar.gz` builds anywhere."""

    def make_release_tree(self, base_dir: str, files: List[str]) -> None:
        super().make_release_tree(base_dir, files)
        carry_engine(Path(base_dir) / "engine")


setup(
    distclass=LibraryDistribution,
    cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel, "sdist": SdistWithEngine},
)
