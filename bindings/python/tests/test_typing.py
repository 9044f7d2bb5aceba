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


def test_help_shows_the_types_as_written():
    # help(reshape.Rules) showed ForwardRef('os.PathLike[str]') and reshape._limits.Limits.
    import pydoc
    import typing

    for name in reshape.__all__:
        value = getattr(reshape, name)
        text = pydoc.render_doc(value, renderer=pydoc.plaintext) if callable(value) else repr(value)
        assert "ForwardRef" not in text, name
        assert "reshape._" not in text, f"{name}: a private module in {text!r}"[:300]
    page = pydoc.render_doc(reshape.Rules, renderer=pydoc.plaintext)
    assert ("from_file(path: Union[str, bytes, os.PathLike[str], os.PathLike[bytes]], *, "
            "limits: Optional[reshape.Limits] = None) -> reshape.Rules") in page
    assert "Rules(spec: Union[Sequence[Mapping[str, Any]], Mapping[str, Any], str, bytes, os.PathLike[str]]" in page
    # Every annotation of the public API evaluates at run time, as documentation tools need.
    for name in reshape.__all__:
        value = getattr(reshape, name)
        members = [value] + [member for key, member in vars(value).items() if not key.startswith("_") or key == "__init__"] \
            if isinstance(value, type) else [value]
        for member in members:
            function = getattr(member, "__func__", getattr(member, "fget", member))
            if callable(function) and not isinstance(function, type) and hasattr(function, "__annotations__"):
                typing.get_type_hints(function)
    assert typing.get_type_hints(reshape.Rules.apply_file)["src"] == reshape.FileArgument
    assert repr(reshape.RuleFailed) == "<class 'reshape.RuleFailed'>"


def test_pyright_verifytypes_scores_100_percent():
    # What pyright --verifytypes reports of the package this interpreter imports (the installed
    # wheel under scripts/test): every public symbol's type is known, none is ambiguous.
    import json

    try:
        import pyright  # noqa: F401
    except ImportError:
        raise AssertionError("pyright is needed: scripts/test installs it into the test virtualenv (pip install pyright)")
    # pyright's --verifytypes finds packages through the `python` on PATH: this interpreter's.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "pyright", "--pythonpath", sys.executable, "--verifytypes", "reshape", "--outputjson"],
        capture_output=True, text=True, cwd=HERE, env=dict(os.environ, PATH=path))
    report = json.loads(result.stdout)
    completeness = report["typeCompleteness"]
    assert Path(completeness["packageRootDirectory"]).resolve() == Path(reshape.__file__).resolve().parent
    problems = [(symbol["name"], [d["message"] for d in symbol["diagnostics"]]) for symbol in completeness["symbols"]
                if symbol["name"].startswith("reshape") and symbol["diagnostics"]]
    assert problems == []
    assert completeness["completenessScore"] == 1, result.stdout[-2000:]
    assert completeness["exportedSymbolCounts"]["withAmbiguousType"] == 0
    assert completeness["exportedSymbolCounts"]["withUnknownType"] == 0
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
