"""How the library is found: RESHAPE_LIBRARY first, then the packaged copy, then the system."""

import ctypes
import os
import subprocess
import sys

import pytest

import reshape
from reshape import _native


def run_python(code: str, **environment: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, **environment)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_packaged_library_is_used_by_default():
    if os.environ.get("RESHAPE_LIBRARY"):
        pytest.skip("RESHAPE_LIBRARY is set for this run, so it is used instead")
    assert _native.origin == "packaged"
    assert _native.path == str(_native.PACKAGED_LIBRARY)


def test_environment_variable_wins():
    result = run_python("from reshape import _native; print(_native.origin, _native.path)", RESHAPE_LIBRARY=_native.path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["RESHAPE_LIBRARY", _native.path]


def test_unloadable_library_says_what_to_do():
    result = run_python("import reshape", RESHAPE_LIBRARY="/nonexistent/libreshape.so")
    assert result.returncode != 0
    assert "cannot load libreshape" in result.stderr
    assert "RESHAPE_LIBRARY /nonexistent/libreshape.so" in result.stderr
    assert "pip install ./bindings/python" in result.stderr


def test_a_different_major_version_is_refused():
    with pytest.raises(reshape.LibraryNotFound, match="major versions must match"):
        _native.check_version("1.0.0", expected="0.1.0")
    _native.check_version("0.9.3", expected="0.1.0")


def test_error_struct_has_the_headers_size():
    # reshape_error's size is fixed within an ABI (later fields come out of `reserved`).
    expected = 1536 if ctypes.sizeof(ctypes.c_size_t) == 8 else 1524
    assert ctypes.sizeof(_native.Error) == expected
    assert _native.Error.op.offset == _native.Error.message.offset + 512
    assert _native.Error.reserved.offset == _native.Error.op.offset + 32
