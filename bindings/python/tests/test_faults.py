"""Faults around files and pipes, each in a child interpreter that must end with an exception,
never a signal, within a deadline: an input file that changes while it is read, /dev/zero, an
endless pipe of documents, a file size limit (EFBIG) and a full disk (ENOSPC, as root)."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RULES = '[{"op": "keyedToArray", "idKey": "id", "wrapIn": "users"}, {"op": "emptyObjectToNull"}]'


def payload(records: int) -> bytes:
    return b"{" + b",".join(b'"-Nx%08d": {"name": "user %d", "avatar": {}, "n": %d}' % (i, i, i) for i in range(records)) + b"}"


def run_child(script: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs `script` in a fresh interpreter; a signal fails the test (returncode < 0)."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=timeout)
    assert result.returncode >= 0, f"the child died of signal {-result.returncode}: {result.stderr}"
    return result


@pytest.mark.parametrize("change", ["shrinks", "grows", "is written"])
@pytest.mark.parametrize("jobs", [1, 4])
def test_a_file_that_changes_while_it_is_read_is_an_oserror_not_a_signal(tmp_path: Path, change: str, jobs: int):
    source = tmp_path / "in.json"
    source.write_bytes(payload(150_000))
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    # The first progress report comes once part of the file is read: it is changed then.
    script = f"""
        import os, time, reshape
        source, target = {str(source)!r}, {str(target)!r}
        changed = []
        def progress(done, total):
            if changed:
                return
            changed.append(1)
            if {change!r} == "shrinks":
                os.truncate(source, os.path.getsize(source) // 2)
            elif {change!r} == "grows":
                with open(source, "ab") as file:
                    file.write(b" ")
            else:
                time.sleep(0.05)  # past the file system's clock step
                with open(source, "r+b") as file:
                    file.write(b"{{")
        try:
            reshape.Rules({RULES!r}).apply_file(source, target, jobs={jobs}, progress=progress)
        except OSError as error:
            assert isinstance(error, reshape.IOFailed) and type(error) is reshape.IOFailed, type(error)
            print(error.errno, error.filename, error.io_file, str(error), sep="|")
        """
    result = run_child(script)
    assert result.returncode == 0, result.stderr
    code, filename, io_file, message = result.stdout.rstrip("\n").split("|")
    how = {"shrinks": "it shrank from", "grows": "it grew from", "is written": "it was written to"}[change]
    assert (code, filename, io_file) == ("None", str(source), "input")
    assert message.startswith(f"io_error: input file '{source}' changed while it was read: {how}"), message
    assert target.read_bytes() == b"old"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.json", "out.json"]


def test_dev_zero_is_invalid_json_at_once():
    script = f"""
        import reshape
        try:
            reshape.Rules({RULES!r}).apply_file("/dev/zero", "/dev/null")
        except reshape.InvalidJSON as error:
            print(error)
        """
    result = run_child(script, timeout=20)
    assert result.stdout == "invalid_json: line 1, column 1: expected a value, found byte 0x00\n", result.stderr


def test_an_endless_pipe_of_documents_fails_at_the_second():
    # `yes '{"a": {}}' | ...` without input_lines: the second document is the error, at once.
    script = f"""
        import os, subprocess, reshape
        producer = subprocess.Popen(["yes", '{{"a": {{}}}}'], stdout=subprocess.PIPE)
        try:
            reshape.Rules({RULES!r}).apply_file(producer.stdout, open(os.devnull, "wb"))
        except reshape.InvalidJSON as error:
            print(error)
        finally:
            producer.kill()
        """
    result = run_child(script, timeout=20)
    assert result.stdout == "invalid_json: line 2, column 1: unexpected '{' after the JSON value\n", result.stderr


def test_a_file_size_limit_is_efbig(tmp_path: Path):
    source = tmp_path / "in.json"
    source.write_bytes(payload(40_000))
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    script = f"""
        import resource, signal, reshape
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        try:
            reshape.Rules({RULES!r}).apply_file({str(source)!r}, {str(target)!r})
        except OSError as error:
            print(type(error).__name__, error.errno, error.filename, error.io_file, error, sep="|")
        """
    result = run_child(script)
    import errno

    assert result.stdout.rstrip("\n").split("|") == [
        "IOFailed", str(errno.EFBIG), str(target), "output",
        f"io_error: cannot write output file '{target}': {os.strerror(errno.EFBIG)}"], result.stderr
    assert target.read_bytes() == b"old"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.json", "out.json"]


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_full_disk_is_enospc_and_leaves_the_file_as_it_was(tmp_path: Path):
    import errno

    source = tmp_path / "in.json"
    source.write_bytes(payload(40_000))
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "reshape-test", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr!r}")
    try:
        target = disk / "out.json"
        target.write_bytes(b"old")
        script = f"""
            import reshape
            try:
                reshape.Rules({RULES!r}).apply_file({str(source)!r}, {str(target)!r})
            except OSError as error:
                print(type(error).__name__, error.errno, error.filename, error, sep="|")
            """
        result = run_child(script)
        assert result.stdout.rstrip("\n").split("|") == [
            "IOFailed", str(errno.ENOSPC), str(target),
            f"io_error: cannot write output file '{target}': {os.strerror(errno.ENOSPC)}"], result.stderr
        assert target.read_bytes() == b"old"
        assert [path.name for path in disk.iterdir()] == ["out.json"]
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_pipe_into_a_path_is_read_as_it_comes_never_copied_whole(tmp_path: Path):
    # /dev/zero as a file object into a path: the library reads it itself, through
    # /proc/self/fd/N, and stops at its first byte; a copy first would never end.
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    script = f"""
        import subprocess, reshape
        rules = reshape.Rules({RULES!r})
        with open("/dev/zero", "rb") as zeros:
            try:
                rules.apply_file(zeros, {str(target)!r})
            except reshape.InvalidJSON as error:
                print(error)
        producer = subprocess.Popen(["printf", '{{"u1": {{"name": "Ada", "avatar": {{}}}}}}'], stdout=subprocess.PIPE)
        rules.apply_file(producer.stdout, {str(target)!r})
        producer.wait()
        print(open({str(target)!r}).read())
        """
    result = run_child(script, timeout=20)
    assert result.stdout == ("invalid_json: line 1, column 1: expected a value, found byte 0x00\n"
                             '{"users":[{"id":"u1","name":"Ada","avatar":null}]}\n'), result.stderr
