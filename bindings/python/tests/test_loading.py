"""How the library is found: RESHAPE_LIBRARY first, then the packaged copy, then the system."""

import ctypes
import os
import shutil
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


def test_the_loaded_library_is_of_this_packages_abi():
    number = _native.version_number()
    assert number == _native.lib.reshape_version_number()
    assert _native.library_version() == f"{number // 10000}.{number // 100 % 100}.{number % 100}"
    major, minor, _ = (int(part) for part in reshape.__version__.split("."))
    assert number // 100 == major * 100 + minor


def test_a_different_minor_version_is_refused_before_1_0():
    # 0.2 changed reshape_error's size: a 0.1 library would misread the binding's structs.
    with pytest.raises(reshape.LibraryNotFound) as raised:
        _native.check_version(100, expected="0.2.0")
    message = str(raised.value)
    assert "is libreshape 0.1.0, but this package is 0.2.0 and needs libreshape 0.2.x" in message
    assert "the major and minor versions must match" in message
    assert _native.path in message
    with pytest.raises(reshape.LibraryNotFound, match="libreshape 0.3.0, but this package is 0.2.0"):
        _native.check_version(300, expected="0.2.0")
    # A patch release keeps the ABI; so does a version string, as libraries before 0.2 give it.
    _native.check_version(201, expected="0.2.0")
    _native.check_version(299, expected="0.2.3")
    _native.check_version("0.2.7", expected="0.2.0")
    with pytest.raises(reshape.LibraryNotFound, match="libreshape 0.1.0"):
        _native.check_version("0.1.0", expected="0.2.0")


def test_a_different_major_version_is_refused():
    with pytest.raises(reshape.LibraryNotFound, match="libreshape 1.0.0, but this package is 0.2.0"):
        _native.check_version(10000, expected="0.2.0")
    # From 1.0 on, only the major version must match.
    with pytest.raises(reshape.LibraryNotFound, match="needs libreshape 1.x; the major versions must match"):
        _native.check_version(20000, expected="1.4.0")
    _native.check_version(10900, expected="1.4.0")
    _native.check_version(10102, expected="1.4.0")


@pytest.mark.parametrize(
    "source, loaded",
    [
        # 0.1 has no reshape_version_number: its version string is what the loader reads.
        ('const char *reshape_version(void) { return "0.1.0"; }', "0.1.0"),
        (
            'const char *reshape_version(void) { return "0.3.1"; }\n'
            "unsigned reshape_version_number(void) { return 301; }",
            "0.3.1",
        ),
    ],
)
def test_the_loader_refuses_a_library_of_another_abi(tmp_path, source, loaded):
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler to build a stand-in library")
    (tmp_path / "fake.c").write_text(source + "\n")
    library = tmp_path / "libreshape.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(tmp_path / "fake.c")], check=True)
    result = run_python("import reshape", RESHAPE_LIBRARY=str(library))
    assert result.returncode != 0
    assert f"{library} (RESHAPE_LIBRARY) is libreshape {loaded}, but this package is {reshape.__version__}" in result.stderr
    assert "the major and minor versions must match" in result.stderr


def test_error_struct_has_the_headers_size():
    # reshape_error's size is fixed within an ABI (later fields come out of `reserved`).
    expected = 1536 if ctypes.sizeof(ctypes.c_size_t) == 8 else 1524
    assert ctypes.sizeof(_native.Error) == expected
    assert _native.Error.op.offset == _native.Error.message.offset + 512
    # 0.2's io_error fields came out of the start of `reserved`.
    assert _native.Error.sys_errno.offset == _native.Error.op.offset + 32
    assert _native.Error.io_file.offset == _native.Error.sys_errno.offset + 4
    # 0.3's source fields too, the rest of `reserved` after them.
    assert _native.Error.source_path.offset == _native.Error.io_file.offset + 4
    assert _native.Error.source_line.offset == _native.Error.source_path.offset + 352
    assert _native.Error.source_op.offset == _native.Error.source_rule.offset + 4
    assert _native.Error.reserved.offset == _native.Error.source_op.offset + 32
    assert _native.Error.reserved.offset + _native.Error.reserved.size == expected


def test_rules_count_and_op_are_declared():
    # The thin wrappers of _native that the public API builds on (Rules.ops). reshape_apply_into is
    # the C suite's: the binding does not use it, since it copies from the library's buffer anyway.
    status, handle, error = _native.rules_new(b'[{"op": "unwrap", "path": "$.data"}, {"op": "keyedToArray"}]')
    assert status == 0 and error.op == b""
    try:
        assert _native.rules_count(handle) == 2
        assert [_native.rules_op(handle, index) for index in range(3)] == ["unwrap", "keyedToArray", None]
        assert _native.rules_op(handle, -1) is None
        assert _native.rules_count(None) == 0 and _native.rules_op(None, 0) is None
    finally:
        _native.rules_free(handle)


def test_import_leaves_what_only_some_callers_need():
    # `import reshape` is paid by every script that uses it: modules only some calls need are
    # imported by those calls.
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"  # the interpreter's own start may import some of them
        "import reshape\n"
        "late = ['socket', 'tempfile', 'uuid']\n"
        "print(*[name for name in late if name in sys.modules and name not in before])\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [""]


def test_type_hints_resolve_at_run_time():
    # Documentation tools and run-time type checkers evaluate the annotations.
    import typing

    hints = typing.get_type_hints(reshape.Rules.__init__)
    assert hints["limits"] == typing.Optional[reshape.Limits]


def test_limits_are_refused_when_not_limits():
    with pytest.raises(TypeError, match="limits must be a reshape.Limits, not dict"):
        reshape.Rules([], limits={"max_depth": 2})  # type: ignore[arg-type]


def test_only_native_touches_ctypes():
    # One module declares every foreign function; the public modules never use ctypes.
    import re
    from pathlib import Path

    package = Path(reshape.__file__).resolve().parent
    importing = re.compile(r"^\s*(import ctypes|from ctypes)", re.MULTILINE)
    users = sorted(module.name for module in package.glob("*.py") if importing.search(module.read_text()))
    assert users == ["_native.py"]
