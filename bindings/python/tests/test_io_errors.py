"""A failed read or write raises what `open()` raises: the OSError subclass of its errno, with
errno, strerror and filename set, which is also a reshape.IOFailed (a ReshapeError)."""

import errno
import io
import os
import pickle
from pathlib import Path

import pytest

import reshape
from reshape import _native
from reshape._rules import _error

WRAP = [{"op": "wrap", "key": "k"}]


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def check(error: BaseException, kind: type, code: int, filename: object, io_file: str, message: str) -> None:
    """Every promise at once: the builtin class, IOFailed, ReshapeError, the OSError fields, the message."""
    assert isinstance(error, kind) and isinstance(error, reshape.IOFailed) and isinstance(error, reshape.ReshapeError)
    assert isinstance(error, OSError) and isinstance(error, ValueError)
    assert (error.errno, error.strerror, error.filename) == (code, os.strerror(code), filename)
    assert (error.io_file, error.status, error.code) == (io_file, 10, "io_error")
    assert str(error) == error.message == message
    assert error.args == (code, os.strerror(code))  # as open()'s


def raised(call) -> BaseException:  # type: ignore[no-untyped-def]
    with pytest.raises(reshape.IOFailed) as caught:
        call()
    return caught.value


def test_a_missing_input_is_file_not_found_for_every_form_of_path(tmp_path: Path):
    rules = reshape.Rules(WRAP)
    missing = tmp_path / "missing.json"
    message = f"io_error: cannot read input file '{missing}': No such file or directory"
    # filename is the path as given, as os.fspath gives it (open() does the same).
    for given, filename in ((missing, str(missing)), (str(missing), str(missing)), (bytes(missing), bytes(missing))):
        for destination in (tmp_path / "out.json", io.BytesIO()):
            error = raised(lambda: rules.apply_file(given, destination))
            check(error, FileNotFoundError, errno.ENOENT, filename, "input", message)
        with open(tmp_path / "fd.json", "wb") as file:
            check(raised(lambda: rules.apply_file(given, file)), FileNotFoundError, errno.ENOENT, filename, "input", message)


def test_what_open_raises_is_what_apply_file_raises(tmp_path: Path):
    rules = reshape.Rules(WRAP)
    source = write(tmp_path / "in.json", b"[1]")
    cases = [
        (tmp_path, IsADirectoryError, errno.EISDIR),          # a directory as the input
        (source / "x.json", NotADirectoryError, errno.ENOTDIR),  # a file as a folder
    ]
    for path, kind, code in cases:
        with pytest.raises(kind) as builtin:
            with open(path, "rb") as file:
                file.read()
        assert builtin.value.errno == code
        error = raised(lambda: rules.apply_file(path, tmp_path / "out.json"))
        check(error, kind, code, str(path), "input", f"io_error: cannot read input file '{path}': {os.strerror(code)}")


def test_a_directory_read_through_a_descriptor_is_named_by_its_path(tmp_path: Path):
    # The binding opens the path and hands the library a descriptor, which the library calls
    # "descriptor N"; the message names the path instead, as when the library opens it.
    rules = reshape.Rules(WRAP)
    with open(tmp_path / "out.json", "wb") as destination:
        error = raised(lambda: rules.apply_file(tmp_path, destination))
    check(error, IsADirectoryError, errno.EISDIR, str(tmp_path), "input",
          f"io_error: cannot read input file '{tmp_path}': Is a directory")


def test_a_missing_output_folder_is_file_not_found(tmp_path: Path):
    rules = reshape.Rules(WRAP)
    source = write(tmp_path / "in.json", b"[1]")
    destination = tmp_path / "no" / "out.json"
    error = raised(lambda: rules.apply_file(source, destination))
    check(error, FileNotFoundError, errno.ENOENT, str(destination), "output",
          f"io_error: cannot write output file '{destination}': No such file or directory")
    error = raised(lambda: rules.apply_file(source, tmp_path))
    check(error, IsADirectoryError, errno.EISDIR, str(tmp_path), "output",
          f"io_error: cannot write output file '{tmp_path}': Is a directory")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_full_disk_is_ioerror_with_enospc_as_a_path_and_as_a_file_object(tmp_path: Path):
    # ENOSPC has no OSError subclass: open() and write() raise OSError itself, and so does reshape.
    rules = reshape.Rules(WRAP)
    source = write(tmp_path / "in.json", b"[1]")
    message = "io_error: cannot write output file '/dev/full': No space left on device"
    error = raised(lambda: rules.apply_file(source, "/dev/full"))
    check(error, OSError, errno.ENOSPC, "/dev/full", "output", message)
    assert type(error) is reshape.IOFailed
    with open("/dev/full", "wb") as full:
        error = raised(lambda: rules.apply_file(source, full))
    check(error, OSError, errno.ENOSPC, "/dev/full", "output", message)  # named by the file object's name


def test_a_pipe_without_a_reader_is_broken_pipe_without_a_filename(tmp_path: Path):
    rules = reshape.Rules(WRAP)
    source = write(tmp_path / "in.json", b"[1]")
    read_end, write_end = os.pipe()
    os.close(read_end)
    with open(write_end, "wb") as pipe:  # its name is the descriptor number: not a path
        error = raised(lambda: rules.apply_file(source, pipe))
    check(error, BrokenPipeError, errno.EPIPE, None, "output",
          f"io_error: cannot write descriptor {write_end}: Broken pipe")


def test_an_unreadable_rules_file_is_the_oserror_of_its_errno(tmp_path: Path):
    missing = tmp_path / "rules.json"
    error = raised(lambda: reshape.Rules(missing))
    check(error, FileNotFoundError, errno.ENOENT, str(missing), "",
          f"io_error: cannot read rules file '{missing}': No such file or directory")
    error = raised(lambda: reshape.Rules(tmp_path))
    check(error, IsADirectoryError, errno.EISDIR, str(tmp_path), "", f"io_error: cannot read rules file '{tmp_path}': Is a directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_file_without_permission_is_permission_error(tmp_path: Path):
    rules = reshape.Rules(WRAP)
    source = write(tmp_path / "in.json", b"[1]")
    source.chmod(0)
    error = raised(lambda: rules.apply_file(source, tmp_path / "out.json"))
    check(error, PermissionError, errno.EACCES, str(source), "input",
          f"io_error: cannot read input file '{source}': Permission denied")


@pytest.mark.parametrize("code, kind", [
    (errno.ENOENT, FileNotFoundError), (errno.EACCES, PermissionError), (errno.EPERM, PermissionError),
    (errno.EISDIR, IsADirectoryError), (errno.ENOTDIR, NotADirectoryError), (errno.EEXIST, FileExistsError),
    (errno.EPIPE, BrokenPipeError), (errno.ECONNRESET, ConnectionResetError), (errno.EAGAIN, BlockingIOError),
    (errno.EINTR, InterruptedError), (errno.ETIMEDOUT, TimeoutError), (errno.ENOSPC, OSError), (errno.EIO, OSError),
    (errno.EFBIG, OSError),
])
def test_each_errno_gives_the_class_oserror_gives_it(code: int, kind: type):
    # The mapping itself, from a reshape_error as the library fills it: the class is the one
    # OSError(errno, ...) becomes, and also an IOFailed.
    native = _native.Error(code=10, sys_errno=code, io_file=_native.RESHAPE_IO_OUTPUT,
                           message=f"io_error: cannot write output file 'x': {os.strerror(code)}".encode())
    error = _error(10, native)
    assert type(OSError(code, "")) is kind
    assert isinstance(error, kind) and isinstance(error, reshape.IOFailed)
    assert (type(error) is reshape.IOFailed) == (kind is OSError)
    assert type(error).__name__ == kind.__name__ if kind is not OSError else "IOFailed"
    assert (error.errno, error.strerror, error.filename, error.io_file) == (code, os.strerror(code), None, "output")


def test_a_failure_without_errno_is_ioerror_with_errno_none():
    # An input file that changed while it was read: no call failed, so there is no errno.
    native = _native.Error(code=10, sys_errno=0, io_file=_native.RESHAPE_IO_INPUT,
                           message=b"io_error: input file 'x' changed while it was read: it shrank")
    error = _error(10, native)
    assert type(error) is reshape.IOFailed
    assert (error.errno, error.strerror, error.io_file) == (None, None, "input")
    assert str(error) == "io_error: input file 'x' changed while it was read: it shrank"


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_io_errors_pickle_with_every_field(tmp_path: Path, protocol: int):
    rules = reshape.Rules(WRAP)
    error = raised(lambda: rules.apply_file(tmp_path / "missing.json", tmp_path / "out.json"))
    loaded = pickle.loads(pickle.dumps(error, protocol=protocol))
    assert type(loaded) is type(error)
    check(loaded, FileNotFoundError, errno.ENOENT, str(tmp_path / "missing.json"), "input", str(error))
    native = _native.Error(code=10, sys_errno=0, io_file=1, message=b"io_error: input file 'x' changed")
    unknown = pickle.loads(pickle.dumps(_error(10, native), protocol=protocol))
    assert type(unknown) is reshape.IOFailed and unknown.errno is None and str(unknown) == "io_error: input file 'x' changed"


def test_other_errors_keep_their_classes(tmp_path: Path):
    rules = reshape.Rules([{"op": "keyedToArray"}])
    source = write(tmp_path / "in.json", b'{"a": 1}')
    with pytest.raises(reshape.RuleFailed) as caught:
        rules.apply_file(source, tmp_path / "out.json")
    assert not isinstance(caught.value, OSError)
    with pytest.raises(reshape.InvalidJSON) as invalid:
        rules.apply_file(write(tmp_path / "bad.json", b"{"), tmp_path / "out.json")
    assert not isinstance(invalid.value, OSError)
