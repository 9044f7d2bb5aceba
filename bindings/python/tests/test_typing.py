"""The package's types hold for a user: a script using every public name passes `mypy --strict`."""

import os
import subprocess
import sys
from pathlib import Path

import reshape

HERE = Path(__file__).resolve().parent
USER_SCRIPT = HERE / "typing_user.py"


def test_the_user_script_uses_every_public_name():
    text = USER_SCRIPT.read_text()
    unused = [name for name in reshape.__all__ if name not in text]
    assert unused == []


def test_mypy_strict_accepts_the_user_script():
    try:
        import mypy  # noqa: F401
    except ImportError:
        raise AssertionError("mypy is needed: scripts/test installs it into the test virtualenv (pip install mypy)")
    # Checked against the package that is imported here (the installed one under scripts/test), so
    # its py.typed marker and annotations are what a user's mypy sees.
    package_root = str(Path(reshape.__file__).resolve().parents[1])
    environment = dict(os.environ, MYPYPATH=package_root)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull,
         "--python-version", f"{sys.version_info.major}.{sys.version_info.minor}", str(USER_SCRIPT)],
        capture_output=True, text=True, env=environment, cwd=HERE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found in 1 source file" in result.stdout


def test_the_user_script_runs():
    result = subprocess.run([sys.executable, str(USER_SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 20


def test_mypy_strict_accepts_the_package_itself():
    package = Path(reshape.__file__).resolve().parent
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull, "-p", "reshape"],
        capture_output=True, text=True, cwd=package.parent)
    assert result.returncode == 0, result.stdout + result.stderr
