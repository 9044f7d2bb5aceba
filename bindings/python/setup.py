"""Builds libreshape (through the repository's CMake build) into the package, so the wheel ships it.

Everything else about the package is in pyproject.toml. Set RESHAPE_SKIP_LIBRARY_BUILD=1 to build a
package without the library (it then loads $RESHAPE_LIBRARY or a system-wide libreshape).
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent  # bindings/python -> the repository


class BinaryDistribution(Distribution):
    """The wheel carries a shared library, so it is specific to the platform."""

    def has_ext_modules(self) -> bool:
        return True


class BuildWithLibrary(build_py):
    """Runs the CMake build of libreshape and copies the library into reshape/_lib/."""

    def run(self) -> None:
        super().run()
        if os.environ.get("RESHAPE_SKIP_LIBRARY_BUILD"):
            return
        if not (ROOT / "Package.swift").exists() or not (ROOT / "CMakeLists.txt").exists():
            raise SystemExit(
                "reshape: cannot find the Reshape repository to build libreshape from. Build from a "
                "clone (pip install ./bindings/python), or set RESHAPE_SKIP_LIBRARY_BUILD=1 and point "
                "RESHAPE_LIBRARY at a built libreshape.so at run time."
            )
        if shutil.which("cmake") is None:
            raise SystemExit("reshape: cmake is needed to build libreshape; run scripts/setup in the repository.")
        build_dir = Path(os.environ.get("RESHAPE_CMAKE_BUILD_DIR", ROOT / "build"))
        generator = ["-G", "Ninja"] if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists() else []
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator])
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "reshape_library"])
        built = sorted((build_dir / "lib").glob("libreshape.so.*.*.*"))
        if not built:
            raise SystemExit(f"reshape: the build produced no libreshape.so in {build_dir / 'lib'}")
        target = Path(self.build_lib) / "reshape" / "_lib"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[-1], target / "libreshape.so")


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildWithLibrary})
