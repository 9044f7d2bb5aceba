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
    # mypy, run by this interpreter, finds the package this interpreter imports (the installed wheel
    # under scripts/test) through its py.typed marker, as a user's mypy does.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull,
         "--python-version", f"{sys.version_info.major}.{sys.version_info.minor}", str(USER_SCRIPT)],
        capture_output=True, text=True, cwd=HERE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found in 1 source file" in result.stdout


def test_the_user_script_runs():
    result = subprocess.run([sys.executable, str(USER_SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 20


def test_mypy_strict_accepts_the_package_itself():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull, "-p", "reshape"],
        capture_output=True, text=True, cwd=HERE)
    assert "Success: no issues found" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
