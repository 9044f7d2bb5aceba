"""A large output is held once: apply() takes it in pieces (reshape_apply_cb) into Python's memory,
and never touches the library's memory beyond reading what it hands over."""

import io
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import reshape
from reshape import _native, _rules

PACKAGE = Path(reshape.__file__).resolve().parent


def test_the_binding_never_madvises():
    # The library gives back the pages of an output made whole as the pieces are taken; the binding
    # must not advise memory it does not own (it did, on reshape_apply's buffer, before 0.2's apply_cb).
    for module in PACKAGE.glob("*.py"):
        assert "madvise" not in module.read_text(), module.name


def run(script: str) -> str:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "nothing printed (ctypes prints a callback's lost exception)"
    return result.stdout


def test_small_inputs_take_one_buffer_and_large_ones_pieces(monkeypatch):
    calls = []
    real_apply, real_apply_cb = _native.apply, _native.apply_cb
    monkeypatch.setattr(_native, "apply", lambda *arguments: calls.append("apply") or real_apply(*arguments))
    monkeypatch.setattr(_native, "apply_cb", lambda *arguments: calls.append("apply_cb") or real_apply_cb(*arguments))
    rules = reshape.Rules([{"op": "wrap", "key": "k"}])

    def sizes(threshold: int) -> None:
        small = b"[" + b" " * (threshold - 3) + b"]"
        assert rules.apply(small) == b'{"k":[]}' and calls == ["apply"]
        assert rules.apply(small + b" ") == b'{"k":[]}' and calls == ["apply", "apply_cb"]
        calls.clear()

    sizes(_rules._IN_PIECES_ON_MAIN_FROM)  # pytest runs the tests on the main thread
    failures = []

    def elsewhere() -> None:
        try:
            sizes(_rules._IN_PIECES_FROM)
        except BaseException as error:  # noqa: B902 - reported below
            failures.append(error)

    import threading

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert failures == []


@pytest.mark.parametrize("flags", [{}, {"pretty": True}, {"output_lines": True}])
def test_pieces_give_the_same_bytes_as_one_buffer(flags):
    # Several pieces (the output is over 1 MiB): their order and their edges.
    rules = reshape.Rules([{"op": "keyedToArray", "idKey": "id"}, {"op": "convertKeys"}])
    data = ("{" + ",".join(f'"k{i}": {{"some_name": "{"é" * (i % 7)}", "n": {i}}}' for i in range(60_000)) + "}").encode()
    assert len(data) > 2 << 20
    output = rules.apply(data, **flags)
    status, whole, _ = _native.apply(rules._handle, data, len(data), _rules._flags(
        pretty=flags.get("pretty", False), allow_duplicate_keys=False, output_lines=flags.get("output_lines", False)))
    assert status == 0 and output == whole and len(output) > 1 << 20


def test_an_error_after_the_first_pieces_raises_and_returns_nothing():
    rules = reshape.Rules([{"op": "keyedToArray"}])
    data = ("{" + ",".join(f'"k{i}": {{"n": {i}}}' for i in range(100_000)) + ', "last": 1}').encode()
    with pytest.raises(reshape.RuleFailed) as caught:
        rules.apply(data)
    assert caught.value.path == "$['last']"


def test_a_memory_error_while_taking_a_piece_is_raised_as_it_is(monkeypatch):
    import io

    class Full(io.BytesIO):
        def write(self, piece):  # type: ignore[no-untyped-def]
            raise MemoryError("no room for the output")

    monkeypatch.setattr(_rules.io, "BytesIO", Full)
    data = b"[" + b"1," * 600_000 + b"1]"  # over 1 MiB: taken in pieces on the main thread too
    with pytest.raises(MemoryError, match="no room for the output"):
        reshape.Rules([]).apply(data)


@pytest.mark.parametrize("thread", ["main", "other"])
def test_peak_memory_holds_a_large_output_once(thread: str):
    # In a fresh process, so that the peak (ru_maxrss) is this call's. The input is built in a
    # bytearray and lent in place; reshape_apply + a copy grew the peak by twice the output.
    output = run(f"""
        import resource, threading, reshape
        data = bytearray(b"{{")
        for i in range(800_000):
            data += b'"k%07d": {{"name": "user %07d", "plan": "", "avatar": {{}}}},' % (i, i)
        data[-1:] = b"}}"
        rules = reshape.Rules([{{"op": "keyedToArray", "idKey": "id"}}])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = []
        if {thread!r} == "main":
            result.append(rules.apply(data))
        else:
            worker = threading.Thread(target=lambda: result.append(rules.apply(data)))
            worker.start()
            worker.join()
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = result[0]
        assert type(out) is bytes
        assert out.startswith(b'[{{"id":"k0000000","name":"user 0000000","plan":"","avatar":{{}}}},')
        print(len(out), (after - before) * 1024)
    """)
    length, growth = map(int, output.split())
    assert length == 49_600_001
    assert growth < length + (32 << 20), f"the peak grew by {growth / length:.2f}x the output"


def test_peak_memory_of_an_output_made_whole():
    # A document that is not a collection of records is reshaped whole, in the library's memory;
    # its pages are given back as the pieces are taken, so the two copies are never both whole.
    output = run("""
        import resource, reshape
        data = b'{"a": "' + b"x" * 60_000_000 + b'"}'
        rules = reshape.Rules([{"op": "wrap", "key": "k"}])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = rules.apply(data)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert out == b'{"k":{"a":"' + b"x" * 60_000_000 + b'"}}'
        print(len(out), (after - before) * 1024)
    """)
    length, growth = map(int, output.split())
    print(f"an output made whole: {length} bytes, peak growth {growth} ({growth / length:.2f}x)")
    # The tree holds the 60 MB string once, the output once: a third copy would pass 3x.
    assert growth < 2 * length + (32 << 20), f"the peak grew by {growth / length:.2f}x the output"


def test_ctrl_c_stops_a_large_apply_on_the_main_thread():
    # SIGINT with Python's own handler, sent while the library works on its helper thread (from
    # inside the first piece's write, which then waits until the main thread has taken the
    # signal): KeyboardInterrupt, nothing printed (a handler's exception as a callback is entered
    # would be printed and lost), no piece taken after the first, and the rules work on. Waiting
    # on the handler, not on a clock, keeps a slow machine from finishing the output first.
    output = run("""
        import io, os, signal, threading
        import reshape
        from reshape import _calls, _rules

        pieces = []
        handled = threading.Event()
        fail = _calls.Call.fail

        def failing(call, error):
            fail(call, error)
            handled.set()

        class Interrupting(io.BytesIO):
            def write(self, piece):
                pieces.append(len(piece))
                if len(pieces) == 1:
                    os.kill(os.getpid(), signal.SIGINT)
                    print("handled", handled.wait(30))
                return super().write(piece)

        rules = reshape.Rules([{"op": "keyedToArray", "idKey": "id"}, {"op": "convertKeys"}])
        data = ("{" + ",".join(f'"k{i}": {{"some_number": {i}}}' for i in range(300_000)) + "}").encode()
        whole = rules.apply(data)
        _calls.Call.fail = failing
        _rules.io.BytesIO = Interrupting
        try:
            rules.apply(data)
            print("finished", len(pieces))
        except KeyboardInterrupt:
            print("KeyboardInterrupt", pieces[0] < len(whole), len(pieces))
        _rules.io.BytesIO = io.BytesIO
        _calls.Call.fail = fail
        print(rules.apply(b'{"a": {}}').decode())
    """)
    assert output.splitlines() == ["handled True", "KeyboardInterrupt True 1", '[{"id":"a"}]']


def test_ctrl_c_while_the_helper_thread_starts_leaves_the_library_uncalled():
    # The signal lands inside thread.start(), which waits for the new thread: KeyboardInterrupt at
    # once, and the library is never called, so nothing reads the caller's buffers after the call
    # has returned. (CI once saw the helper's first write come before start() returned.)
    output = run("""
        import io, threading
        import reshape
        from reshape import _rules

        pieces = []

        class Taking(io.BytesIO):
            def write(self, piece):
                pieces.append(len(piece))
                return super().write(piece)

        start = threading.Thread.start

        def interrupted(thread):
            start(thread)
            raise KeyboardInterrupt

        rules = reshape.Rules([{"op": "keyedToArray", "idKey": "id"}])
        data = ("{" + ",".join(f'"k{i}": {{"n": {i}}}' for i in range(100_000)) + "}").encode()
        _rules.io.BytesIO = Taking
        threading.Thread.start = interrupted
        try:
            rules.apply(data)
            print("finished")
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        threading.Thread.start = start
        for thread in threading.enumerate():
            if thread.name == "reshape call":
                thread.join()
        print("pieces", len(pieces))
        _rules.io.BytesIO = io.BytesIO
        print(rules.apply(b'{"a": {}}').decode())
    """)
    assert output.splitlines() == ["KeyboardInterrupt", "pieces 0", '[{"id":"a"}]']


def _threads() -> "set[str]":
    return set(os.listdir("/proc/self/task"))


@pytest.mark.parametrize("jobs", [None, 3])
def test_apply_on_several_threads_gives_the_same_bytes_and_errors(monkeypatch, jobs):
    # jobs other than 1: reshape_apply_with reshapes the records on that many threads, seen here
    # while the output is taken (they end before apply returns); same bytes, same error.
    rules = reshape.Rules([{"op": "keyedToArray"}, {"op": "emptyObjectToNull"}, {"op": "convertKeys"}])
    records = [f'"u{i:07d}": {{"display_name": "n{i}", "a": {{}}}}' for i in range(40_000)]
    data = ("{" + ",".join(records) + "}").encode()
    expected = rules.apply(data)
    seen: "set[str]" = set()

    class Counting(io.BytesIO):
        def write(self, piece):  # type: ignore[override]
            seen.update(_threads())
            return super().write(piece)

    before = _threads()
    monkeypatch.setattr(_rules.io, "BytesIO", Counting)
    assert rules.apply(data, jobs=jobs) == expected
    monkeypatch.setattr(_rules.io, "BytesIO", io.BytesIO)
    workers = len(os.sched_getaffinity(0)) if jobs is None else jobs
    # New threads: the library's workers (all but the calling one), and on the main thread
    # apply's helper thread (see _calls.py), which makes the call.
    assert len(seen - before) >= min(workers, 64) - 1 + 1, (before, seen)
    # The library's threads end before apply returns (the C suite counts them); the helper
    # thread a moment later.
    deadline = time.monotonic() + 5
    while _threads() - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _threads() - before
    assert rules.apply(data, jobs=1) == expected

    failing = data.replace(b'{"display_name": "n20000", "a": {}}', b'"not an object"')
    errors = []
    for threads in (1, jobs):
        with pytest.raises(reshape.RuleFailed) as raised:
            rules.apply(failing, jobs=threads)
        errors.append((str(raised.value), raised.value.path, raised.value.rule))
    assert errors[0] == errors[1] == ("rule_failed: rule 1 (keyedToArray) at $['u0020000']: expected an object, found a string",
                                      "$['u0020000']", 1)


@pytest.mark.parametrize("jobs, kind", [(0, ValueError), (-2, ValueError), (1.0, TypeError), (True, TypeError)])
def test_apply_refuses_jobs_that_are_not_threads(jobs, kind):
    with pytest.raises(kind, match="jobs must be a positive int or None"):
        reshape.Rules([{"op": "wrap", "key": "k"}]).apply(b"{}", jobs=jobs)
