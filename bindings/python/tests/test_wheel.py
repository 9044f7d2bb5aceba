"""The installed wheel is one a user can install anywhere the platform allows.

scripts/test builds the wheel (scripts/build-wheel: sdist, wheel from it, auditwheel repair),
installs it into a fresh virtualenv and sets RESHAPE_WHEEL_UNDER_TEST to the wheel's path. Then
these tests check what was installed: the package imported is the installed one, the library
needs nothing outside the manylinux policy's system libraries (jansson is bundled next to the
package, in reshape.libs/), the library is stripped, and the wheel is tagged py3-none-manylinux_*.
Without that variable (a developer's run against a built library) they skip.
"""

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import List

import pytest

import reshape
from reshape import _native

WHEEL = os.environ.get("RESHAPE_WHEEL_UNDER_TEST")
pytestmark = pytest.mark.skipif(
    not WHEEL, reason="no wheel under test: scripts/test sets RESHAPE_WHEEL_UNDER_TEST after installing one"
)

# The system libraries a manylinux wheel may need (auditwheel's policy, the same for every
# manylinux_2_* tag on x86_64 but libmvec and libexpat), and the dynamic loader.
MANYLINUX_SYSTEM_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libmvec.so.1", "libdl.so.2", "librt.so.1", "libpthread.so.0",
    "libanl.so.1", "libnsl.so.1", "libutil.so.1", "libresolv.so.2", "libgcc_s.so.1", "libstdc++.so.6",
    "libatomic.so.1", "libz.so.1", "libexpat.so.1", "libX11.so.6", "libXext.so.6", "libXrender.so.1",
    "libICE.so.6", "libSM.so.6", "libGL.so.1", "libgobject-2.0.so.0", "libgthread-2.0.so.0",
    "libglib-2.0.so.0", "ld-linux-x86-64.so.2",
}

SITE = Path(reshape.__file__).resolve().parents[1]  # the site-packages folder the package is in
BUNDLED = SITE / "reshape.libs"  # where auditwheel repair puts the libraries it bundles


def readelf(*arguments: str) -> str:
    if shutil.which("readelf") is None:
        pytest.fail("readelf (binutils) is needed to inspect the installed library")
    return subprocess.run(["readelf", "--wide", *arguments], capture_output=True, text=True, check=True).stdout


def dynamic_entries(library: Path, kind: str) -> List[str]:
    """The values of one kind of entry (NEEDED, RPATH, RUNPATH) in a library's dynamic section."""
    return re.findall(rf"\({kind}\)[^\[]*\[([^\]]*)\]", readelf("-d", str(library)))


def installed_library() -> Path:
    return Path(_native.path).resolve()


def test_the_installed_package_is_the_one_tested():
    assert _native.origin == "packaged"
    prefix = Path(sys.prefix).resolve()
    assert prefix != Path(sys.base_prefix).resolve(), "the suite should run in the virtualenv the wheel is installed in"
    for path in (Path(reshape.__file__).resolve(), installed_library()):
        assert prefix in path.parents, f"{path} is not inside the virtualenv {prefix}"


def test_the_wheel_is_tagged_py3_none_manylinux():
    assert WHEEL is not None
    assert re.fullmatch(rf"reshape-{re.escape(reshape.__version__)}-py3-none-manylinux_\d+_\d+_x86_64\.whl", Path(WHEEL).name)
    wheel_info = metadata.distribution("reshape").read_text("WHEEL") or ""
    tags = re.findall(r"^Tag: (\S+)$", wheel_info, re.MULTILINE)
    assert tags and all(re.fullmatch(r"py3-none-manylinux_\d+_\d+_x86_64", tag) for tag in tags), wheel_info


def test_the_library_needs_only_system_libraries_of_the_manylinux_policy():
    bundled = {path.name for path in BUNDLED.glob("*.so*")}
    needed = dynamic_entries(installed_library(), "NEEDED")
    assert needed
    outside = [name for name in needed if name not in MANYLINUX_SYSTEM_LIBRARIES and name not in bundled]
    assert outside == [], f"needed, neither in the manylinux policy nor bundled in {BUNDLED}: {outside}"
    assert not any(name.startswith("libjansson.so") for name in needed), needed
    for library in BUNDLED.glob("*.so*"):  # and what was bundled needs only the system's
        assert set(dynamic_entries(library, "NEEDED")) <= MANYLINUX_SYSTEM_LIBRARIES | bundled, library


def test_jansson_is_bundled_next_to_the_package_and_found_there():
    jansson = sorted(BUNDLED.glob("libjansson-*.so*"))
    assert len(jansson) == 1, f"expected one bundled jansson in {BUNDLED}: {jansson}"
    assert jansson[0].name in dynamic_entries(installed_library(), "NEEDED")
    search = dynamic_entries(installed_library(), "RPATH") + dynamic_entries(installed_library(), "RUNPATH")
    assert any("$ORIGIN/../../reshape.libs" in entry.split(":") for entry in search), search
    if shutil.which("ldd"):  # the dynamic loader agrees: jansson from reshape.libs/, none from the system
        resolved = subprocess.run(["ldd", str(installed_library())], capture_output=True, text=True, check=True).stdout
        lines = [line for line in resolved.splitlines() if "libjansson" in line]
        assert len(lines) == 1 and Path(lines[0].split("=>")[1].split("(")[0].strip()).resolve() == jansson[0].resolve(), resolved


def test_the_library_is_stripped():
    sections = readelf("-S", str(installed_library()))
    assert " .symtab " not in sections and " .debug_info " not in sections
    assert " .dynsym " in sections  # the exported C API stays
