"""Rules.apply_file: paths, real files and in-memory files; threads, progress, JSON Lines, errors.

The contract is include/reshape.h ("Files and descriptors: streaming"): the same bytes as
reshape_apply() on the input, or the same error; a destination path replaced only on success; a
descriptor written as the output comes; progress on the calling thread, ending at (total, total).
"""

import errno
import io
import json
import os
import random
import stat
import threading
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

import reshape
from conftest import Fixture, load_fixtures
from reshape import _native

# The fixtures with rules that compile, and options the keyword arguments can spell (one uses an
# unknown flag bit).
FIXTURES = [
    fixture for fixture in load_fixtures()
    if not fixture.extra_flags and (fixture.error is None or fixture.error["code"] != "invalid_rules")
]

FIREBASE_RULES = [
    {"op": "keyedToArray", "path": "$.*.devices", "idKey": "deviceId"},
    {"op": "keyedToArray", "idKey": "uid", "wrapIn": "users"},
    {"op": "emptyObjectToNull"},
    {"op": "blankStringToNull"},
    {"op": "coerce", "path": "$.users[*].balance", "to": "number"},
    {"op": "convertKeys", "to": "camelCase"},
]
PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
NAMES = ["Ada", "Zoë", "José", "Søren", "さくら", "小明", "Олег", "Αλέξης", "محمد", "Grace 👩‍💻", 'Say "hi"\\n']


def firebase_payload(records: int, seed: int = 7) -> bytes:
    """A Firebase GET /users.json answer: push ids mapping to snake_case user records."""
    generator = random.Random(seed)
    members = []
    for index in range(records):
        push_id = "-N" + "".join(generator.choice(PUSH_CHARS) for _ in range(16)) + f"{index % 100:02d}"
        record = {
            "display_name": generator.choice(NAMES),
            "email": f"user{index}@example.com",
            "avatar": {} if generator.random() < 0.3 else {"url": f"https://example.com/{index}.png", "width": 64},
            "plan": generator.choice(["", "", "pro", "free"]),
            "created_at": 1700000000000 + index,
            "balance": f"{generator.randrange(100000) / 100:.2f}",
            "is_active": generator.random() < 0.5,
            "devices": {f"-NxD{n}": {"platform": generator.choice(["ios", "android"]), "push_token": ""} for n in range(2)}
            if generator.random() < 0.5 else None,
        }
        members.append(json.dumps(push_id) + ":" + json.dumps(record, ensure_ascii=False))
    return ("{" + ",".join(members) + "}").encode("utf-8")


@pytest.fixture(scope="module")
def firebase() -> Tuple[reshape.Rules, bytes, bytes]:
    """Rules, a multi-megabyte payload, and what `apply` makes of it."""
    rules = reshape.Rules(FIREBASE_RULES)
    payload = firebase_payload(12_000)
    assert len(payload) > 3_000_000
    return rules, payload, rules.apply(payload)


def outcome(call: Callable[[], object]) -> Tuple[str, object]:
    """("ok", value) or ("error", (class, message, rule, path, line, column, position))."""
    try:
        return "ok", call()
    except reshape.ReshapeError as error:
        return "error", (type(error), str(error), error.rule, error.path, error.line, error.column, error.position)


def options_of(fixture: Fixture) -> Dict[str, bool]:
    return {"pretty": fixture.pretty, "allow_duplicate_keys": fixture.allow_duplicate_keys}


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# ----------------------------------------------------------------------------------------------
# Every fixture, every form: the same bytes as apply, or the same error


def through_paths(rules: reshape.Rules, fixture: Fixture, folder: Path) -> bytes:
    source = write(folder / "input.json", fixture.input)
    destination = write(folder / "output.json", b"previous")
    try:
        rules.apply_file(str(source), destination, **options_of(fixture))
    except reshape.ReshapeError:
        assert destination.read_bytes() == b"previous", "a failure must leave the destination path untouched"
        raise
    return destination.read_bytes()


def through_real_files(rules: reshape.Rules, fixture: Fixture, folder: Path) -> bytes:
    source = write(folder / "input.json", fixture.input)
    with open(source, "rb") as src, open(folder / "output.json", "wb") as dst:
        rules.apply_file(src, dst, **options_of(fixture))
        assert src.read() == b""
        written = dst.tell()
    output = (folder / "output.json").read_bytes()
    assert written == len(output)
    return output


def through_bytes_io(rules: reshape.Rules, fixture: Fixture, folder: Path) -> bytes:
    dst = io.BytesIO()
    try:
        rules.apply_file(io.BytesIO(fixture.input), dst, **options_of(fixture))
    except reshape.ReshapeError:
        assert dst.getvalue() == b"", "an in-memory destination receives the output on success only"
        raise
    return dst.getvalue()


def from_path_to_bytes_io(rules: reshape.Rules, fixture: Fixture, folder: Path) -> bytes:
    dst = io.BytesIO()
    rules.apply_file(write(folder / "input.json", fixture.input), dst, **options_of(fixture))
    return dst.getvalue()


def from_bytes_io_to_path(rules: reshape.Rules, fixture: Fixture, folder: Path) -> bytes:
    destination = write(folder / "output.json", b"previous")
    try:
        rules.apply_file(io.BytesIO(fixture.input), destination, **options_of(fixture))
    except reshape.ReshapeError:
        assert destination.read_bytes() == b"previous"
        raise
    return destination.read_bytes()


def from_real_file_to_path(rules: reshape.Rules, fixture: Fixture, folder: Path) -> bytes:
    destination = write(folder / "output.json", b"previous")
    with open(write(folder / "input.json", fixture.input), "rb") as src:
        try:
            rules.apply_file(src, str(destination), **options_of(fixture))
        except reshape.ReshapeError:
            assert destination.read_bytes() == b"previous"
            raise
    return destination.read_bytes()


def from_path_to_real_file(rules: reshape.Rules, fixture: Fixture, folder: Path) -> bytes:
    with open(folder / "output.json", "wb") as dst:
        rules.apply_file(write(folder / "input.json", fixture.input), dst, **options_of(fixture))
    return (folder / "output.json").read_bytes()


FORMS = [through_paths, through_real_files, through_bytes_io, from_path_to_bytes_io, from_bytes_io_to_path,
         from_real_file_to_path, from_path_to_real_file]


@pytest.mark.parametrize("form", FORMS, ids=[form.__name__ for form in FORMS])
@pytest.mark.parametrize("fixture", FIXTURES, ids=[fixture.name for fixture in FIXTURES])
def test_apply_file_gives_what_apply_gives(fixture: Fixture, form, tmp_path: Path):
    rules = reshape.Rules(fixture.rules)
    expected = outcome(lambda: rules.apply(fixture.input, **options_of(fixture)))
    assert outcome(lambda: form(rules, fixture, tmp_path)) == expected
    assert {path.name for path in tmp_path.iterdir()} <= {"input.json", "output.json"}, "temporary files left"


def test_every_fixture_was_run():
    assert len(FIXTURES) >= 50


# ----------------------------------------------------------------------------------------------
# Threads and progress on a multi-megabyte Firebase payload


def test_any_number_of_threads_gives_the_same_bytes(firebase, tmp_path: Path):
    rules, payload, expected = firebase
    source = write(tmp_path / "users.json", payload)
    # 2**32 - 1, the most a C unsigned holds, runs the library's most threads (64), quickly.
    for jobs in (1, 4, None, 2**32 - 1):
        destination = tmp_path / f"out-{jobs}.json"
        rules.apply_file(source, destination, jobs=jobs)
        assert destination.read_bytes() == expected, f"jobs={jobs}"
        with open(source, "rb") as src, open(tmp_path / f"fd-{jobs}.json", "wb") as dst:
            rules.apply_file(src, dst, jobs=jobs)
        assert (tmp_path / f"fd-{jobs}.json").read_bytes() == expected, f"jobs={jobs}, descriptors"


def test_pretty_and_duplicate_keys_stream_to_the_same_bytes(firebase, tmp_path: Path):
    rules, payload, _ = firebase
    source = write(tmp_path / "users.json", payload)
    rules.apply_file(source, tmp_path / "pretty.json", jobs=4, pretty=True)
    assert (tmp_path / "pretty.json").read_bytes() == rules.apply(payload, pretty=True)
    rules.apply_file(source, tmp_path / "dup.json", jobs=4, allow_duplicate_keys=True)
    assert (tmp_path / "dup.json").read_bytes() == rules.apply(payload, allow_duplicate_keys=True)


class Recorder:
    """A progress callable that keeps its calls and the thread each came on."""

    def __init__(self) -> None:
        self.calls: List[Tuple[int, int]] = []
        self.threads = set()

    def __call__(self, done: int, total: int) -> None:
        self.calls.append((done, total))
        self.threads.add(threading.get_ident())

    def check(self, total: int, pipe: bool = False) -> None:
        """`total` is reported on every call; from a pipe, 0 until its end was read, then `total`."""
        assert self.calls, "progress was never called"
        reported = [reported for _, reported in self.calls]
        if pipe:
            known = reported.index(total)
            assert set(reported[:known]) <= {0} and set(reported[known:]) == {total}, self.calls
        else:
            assert set(reported) == {total}, self.calls
        assert all(0 <= done <= total for done, _ in self.calls), f"done beyond the total: {self.calls}"
        dones = [done for done, _ in self.calls]
        assert dones == sorted(dones), f"done went backwards: {self.calls}"
        assert self.calls[-1] == (total, total)
        assert self.threads == {threading.get_ident()}, "progress must be called on the calling thread"


@pytest.mark.parametrize("jobs", [1, 4])
def test_progress_goes_forward_and_ends_at_the_total(firebase, tmp_path: Path, jobs: int):
    rules, payload, expected = firebase
    source = write(tmp_path / "users.json", payload)
    recorder = Recorder()
    rules.apply_file(source, tmp_path / "out.json", jobs=jobs, progress=recorder)
    recorder.check(len(payload))
    assert len(recorder.calls) > 2, "a multi-megabyte document reports progress along the way"
    assert (tmp_path / "out.json").read_bytes() == expected


def test_progress_counts_from_the_file_objects_position(firebase, tmp_path: Path):
    rules, payload, expected = firebase
    source = write(tmp_path / "users.json", b"junk line\n" + payload)
    recorder = Recorder()
    with open(source, "rb") as src, open(tmp_path / "out.json", "wb") as dst:
        assert src.readline() == b"junk line\n"  # the buffer has read far ahead of the position
        rules.apply_file(src, dst, progress=recorder)
    recorder.check(len(payload))
    assert (tmp_path / "out.json").read_bytes() == expected


@pytest.mark.parametrize("form", ["paths", "descriptors", "memory", "copied"])
def test_progress_is_called_for_every_form(form: str, tmp_path: Path):
    rules = reshape.Rules([{"op": "wrap", "key": "k"}])
    data = b'{"a": [1, 2, 3]}'
    source = write(tmp_path / "in.json", data)
    recorder = Recorder()
    if form == "paths":
        rules.apply_file(source, tmp_path / "out.json", progress=recorder)
    elif form == "descriptors":
        with open(source, "rb") as src, open(tmp_path / "out.json", "wb") as dst:
            rules.apply_file(src, dst, progress=recorder)
    elif form == "memory":
        out = io.BytesIO()
        rules.apply_file(io.BytesIO(data), out, progress=recorder)
        (tmp_path / "out.json").write_bytes(out.getvalue())
    else:
        rules.apply_file(io.BytesIO(data), tmp_path / "out.json", progress=recorder)
    recorder.check(len(data))
    assert (tmp_path / "out.json").read_bytes() == b'{"k":{"a":[1,2,3]}}'


def test_threads_share_rules_and_each_gets_its_own_progress(firebase, tmp_path: Path):
    rules, payload, expected = firebase
    source = write(tmp_path / "users.json", payload)
    failures = []

    def work(worker: int) -> None:
        try:
            recorder = Recorder()
            rules.apply_file(source, tmp_path / f"out-{worker}.json", jobs=2, progress=recorder)
            recorder.check(len(payload))  # on this thread, and only this one
            assert (tmp_path / f"out-{worker}.json").read_bytes() == expected
        except BaseException as error:  # noqa: B902 - reported below
            failures.append((worker, error))

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_the_progress_callback_outlives_collections(firebase, tmp_path: Path):
    import gc

    rules, payload, expected = firebase
    source = write(tmp_path / "users.json", payload)
    calls = []

    def collect(done: int, total: int) -> None:
        gc.collect()  # were the ctypes thunk not kept alive, the next call would jump into freed memory
        calls.append(done)

    rules.apply_file(str(source), str(tmp_path / "out.json"), progress=collect, jobs=2)
    assert len(calls) > 2 and (tmp_path / "out.json").read_bytes() == expected


# ----------------------------------------------------------------------------------------------
# An exception in progress cancels the call and propagates


class Stop(Exception):
    pass


def stop_at(call: int) -> Callable[[int, int], None]:
    count = 0

    def progress(done: int, total: int) -> None:
        nonlocal count
        count += 1
        if count == call:
            raise Stop(f"stop at call {call}")

    return progress


def test_an_exception_in_progress_propagates_and_leaves_the_destination_path_untouched(firebase, tmp_path: Path):
    rules, payload, _ = firebase
    source = write(tmp_path / "users.json", payload)
    destination = write(tmp_path / "out.json", b"previous contents")
    os.chmod(destination, 0o640)
    raised = []

    def progress(done: int, total: int) -> None:
        assert done < total, "the first call must come before the end for this test to mean anything"
        error = Stop("enough")
        raised.append(error)
        raise error

    for jobs in (1, 4):
        with pytest.raises(Stop) as caught:
            rules.apply_file(source, destination, jobs=jobs, progress=progress)
        assert caught.value is raised[-1], "the very exception progress raised"
        assert caught.traceback[-1].name == "progress", "with the traceback from where it was raised"
        assert destination.read_bytes() == b"previous contents"
        assert stat.S_IMODE(destination.stat().st_mode) == 0o640
        assert sorted(path.name for path in tmp_path.iterdir()) == ["out.json", "users.json"], "temporary file left"


def test_an_exception_in_progress_stops_the_calls(firebase, tmp_path: Path):
    rules, payload, _ = firebase
    source = write(tmp_path / "users.json", payload)
    calls = []

    def progress(done: int, total: int) -> None:
        calls.append(done)
        raise Stop()

    with pytest.raises(Stop):
        rules.apply_file(source, tmp_path / "out.json", progress=progress)
    assert len(calls) == 1, "progress is not called again after it raised"
    assert not (tmp_path / "out.json").exists()


def test_any_base_exception_propagates(firebase, tmp_path: Path):
    class Interrupt(BaseException):  # as KeyboardInterrupt is
        pass

    rules, payload, _ = firebase
    source = write(tmp_path / "users.json", payload)

    def progress(done: int, total: int) -> None:
        raise Interrupt()

    with pytest.raises(Interrupt):
        rules.apply_file(source, tmp_path / "out.json", progress=progress)
    assert not (tmp_path / "out.json").exists()


def test_an_exception_in_progress_with_a_file_object_destination(firebase, tmp_path: Path):
    rules, payload, expected = firebase
    source = write(tmp_path / "users.json", payload)
    with open(source, "rb") as src, open(tmp_path / "out.json", "wb") as dst:
        dst.write(b"HEAD")
        with pytest.raises(Stop):
            rules.apply_file(src, dst, progress=stop_at(2), jobs=2)
        # The file object and the descriptor agree where the output stopped.
        assert dst.tell() == os.lseek(dst.fileno(), 0, os.SEEK_CUR)
        dst.write(b"TAIL")
        assert src.read() == b"", "src is left at its end whatever the outcome"
    written = (tmp_path / "out.json").read_bytes()
    assert written.startswith(b"HEAD") and written.endswith(b"TAIL")
    prefix = written[4:-4]
    assert expected.startswith(prefix), "what was written is a prefix of the output, and nothing after it"
    assert len(prefix) < len(expected)


def test_an_exception_in_the_final_progress_call_still_propagates(tmp_path: Path):
    rules = reshape.Rules([])
    source = write(tmp_path / "in.json", b"[1]")

    def progress(done: int, total: int) -> None:
        if done == total:
            raise Stop("at the end")

    with pytest.raises(Stop):
        rules.apply_file(source, tmp_path / "out.json", progress=progress)
    # Documented: the library ignores the final call's answer, so the work is done.
    assert (tmp_path / "out.json").read_bytes() == b"[1]"
    with pytest.raises(Stop):
        rules.apply_file(io.BytesIO(b"[1]"), io.BytesIO(), progress=progress)


class Signalled(Exception):
    pass


@pytest.mark.parametrize("with_progress", [False, True])
def test_a_signal_handlers_exception_stops_the_call(firebase, with_progress: bool, tmp_path: Path, monkeypatch):
    """Ctrl-C, or any signal handler that raises, stops a long call and its exception propagates.

    Python raises a signal handler's exception as a callback is entered, where no code of the
    binding could catch it; the binding must not lose it (ctypes would print it and go on), nor
    replace sys.unraisablehook to find it. The output goes to a pipe that a thread drains, and
    signals the process once it has the first byte: the library cannot finish before the signal,
    and calls progress at least once after it.
    """
    import signal
    import sys

    unraisable: List[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    hook = sys.unraisablehook

    rules, payload, _ = firebase
    source = write(tmp_path / "users.json", payload)
    out_read, out_write = os.pipe()
    received = bytearray()

    def drain() -> None:
        with open(out_read, "rb", buffering=0) as pipe:
            received.extend(pipe.read(1))
            os.kill(os.getpid(), signal.SIGUSR1)
            while True:
                chunk = pipe.read(1 << 16)
                if not chunk:
                    return
                received.extend(chunk)

    def handler(signum: int, frame: object) -> None:
        raise Signalled()

    previous = signal.signal(signal.SIGUSR1, handler)
    reader = threading.Thread(target=drain)
    reader.start()
    try:
        with open(source, "rb") as src, open(out_write, "wb") as dst:
            with pytest.raises(Signalled):
                rules.apply_file(src, dst, jobs=1, progress=Recorder() if with_progress else None)
    finally:
        reader.join()
        signal.signal(signal.SIGUSR1, previous)
    assert received, "the output had begun"
    assert sys.unraisablehook is hook, "a library call must not replace sys.unraisablehook"
    assert unraisable == [], "nothing went to sys.unraisablehook"
    if with_progress:
        out = io.BytesIO()
        rules.apply_file(io.BytesIO(b'{"u": {}}'), out, progress=Recorder())  # and the rules work on
        assert out.getvalue() == b'{"users":[{"uid":"u"}]}'


def test_ctrl_c_stops_a_long_call_in_a_script(tmp_path: Path):
    """SIGINT with Python's own handler: KeyboardInterrupt out of apply_file, nothing printed.

    In a fresh process, so that the handler is Python's default one and nothing of pytest's
    hooks is in between. A thread sends SIGINT once the output pipe has its first byte.
    """
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import os, signal, sys, threading, time
        import reshape
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_files import FIREBASE_RULES, firebase_payload
        source = {str(tmp_path / "users.json")!r}
        with open(source, "wb") as file:
            file.write(firebase_payload(12_000))
        rules = reshape.Rules(FIREBASE_RULES)
        hook = sys.unraisablehook
        out_read, out_write = os.pipe()

        def drain():
            with open(out_read, "rb", buffering=0) as pipe:
                pipe.read(1)
                os.kill(os.getpid(), signal.SIGINT)
                while pipe.read(1 << 16):
                    pass

        reader = threading.Thread(target=drain)
        reader.start()
        started = time.monotonic()
        try:
            with open(out_write, "wb") as dst:
                rules.apply_file(source, dst, jobs=1)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", sys.unraisablehook is hook)
        reader.join()
        # The library is done with everything: the same rules work on.
        print(rules.apply(b'{{"u": {{"a_b": ""}}}}').decode())
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["KeyboardInterrupt True", '{"users":[{"uid":"u","aB":null}]}']
    assert result.stderr == "", "nothing printed: no 'Exception ignored' from ctypes"


# ----------------------------------------------------------------------------------------------
# File objects: positions before and after


def test_input_is_read_from_the_file_objects_position(tmp_path: Path):
    rules = reshape.Rules([{"op": "wrap", "key": "k"}])
    source = write(tmp_path / "in.json", b"not json\n" + b'{"a": 1}' + b" " * 100_000)
    with open(source, "rb") as src, open(tmp_path / "out.json", "wb") as dst:
        assert src.readline() == b"not json\n"
        rules.apply_file(src, dst)
        assert src.tell() == source.stat().st_size and src.read() == b""
    assert (tmp_path / "out.json").read_bytes() == b'{"k":{"a":1}}'


def test_output_is_written_at_the_file_objects_position_and_it_follows(tmp_path: Path):
    rules = reshape.Rules([{"op": "wrap", "key": "k"}])
    source = write(tmp_path / "in.json", b'{"a": 1}')
    output = b'{"k":{"a":1}}'
    with open(tmp_path / "out.json", "wb") as dst:
        dst.write(b"HEAD ")  # still in the Python buffer: flushed first
        rules.apply_file(source, dst)
        assert dst.tell() == 5 + len(output)
        dst.write(b" TAIL")
    assert (tmp_path / "out.json").read_bytes() == b"HEAD " + output + b" TAIL"


@pytest.mark.parametrize("mode, buffering", [("r+b", -1), ("r+b", 0), ("ab", -1), ("wb", 0)])
def test_other_modes_keep_the_file_object_consistent(mode: str, buffering: int, tmp_path: Path):
    rules = reshape.Rules([])
    source = write(tmp_path / "in.json", b"[1,2]")
    target = write(tmp_path / "out.json", b"0123456789")
    with open(target, mode, buffering=buffering) as dst:
        if "r" in mode:
            assert dst.read(2) == b"01"  # a buffered reader has read ahead
        rules.apply_file(source, dst)
        position = dst.tell()
        assert position == os.lseek(dst.fileno(), 0, os.SEEK_CUR)
        dst.write(b"!")
    expected = {
        "r+b": b"01[1,2]!89",
        "ab": b"0123456789[1,2]!",
        "wb": b"[1,2]!",
    }[mode]
    assert (tmp_path / "out.json").read_bytes() == expected
    assert position == expected.index(b"!")


def test_pipes_in_and_out(firebase):
    rules, payload, expected = firebase
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    received = bytearray()

    def feed() -> None:
        with open(in_write, "wb") as pipe:
            pipe.write(payload)

    def drain() -> None:
        with open(out_read, "rb") as pipe:
            received.extend(pipe.read())

    threads = [threading.Thread(target=feed), threading.Thread(target=drain)]
    for thread in threads:
        thread.start()
    recorder = Recorder()
    with open(in_read, "rb") as src, open(out_write, "wb") as dst:
        rules.apply_file(src, dst, progress=recorder, jobs=2)
    for thread in threads:
        thread.join()
    assert bytes(received) == expected
    recorder.check(len(payload), pipe=True)


def test_file_objects_whose_descriptor_is_not_their_bytes_go_through_read_and_write(firebase, tmp_path: Path):
    """gzip.GzipFile.fileno() is the compressed file's: its bytes are not the document's."""
    import gzip

    rules, payload, expected = firebase
    with gzip.open(tmp_path / "in.json.gz", "wb") as compressed:
        compressed.write(payload)
    with gzip.open(tmp_path / "in.json.gz", "rb") as src, gzip.open(tmp_path / "out.json.gz", "wb") as dst:
        rules.apply_file(src, dst, jobs=2)
    assert gzip.decompress((tmp_path / "out.json.gz").read_bytes()) == expected
    with gzip.open(tmp_path / "in.json.gz", "rb") as src:
        rules.apply_file(src, tmp_path / "out.json")
    assert (tmp_path / "out.json").read_bytes() == expected
    with gzip.open(tmp_path / "out2.json.gz", "wb") as dst:
        rules.apply_file(write(tmp_path / "in.json", payload), dst)
    assert gzip.decompress((tmp_path / "out2.json.gz").read_bytes()) == expected


def test_sockets_in_and_out(firebase):
    import socket

    rules, payload, expected = firebase
    feed_a, feed_b = socket.socketpair()
    drain_a, drain_b = socket.socketpair()
    received = bytearray()

    def feed() -> None:
        with feed_a, feed_a.makefile("wb") as out:
            out.write(payload)

    def drain() -> None:
        with drain_b, drain_b.makefile("rb") as incoming:
            received.extend(incoming.read())

    threads = [threading.Thread(target=feed), threading.Thread(target=drain)]
    for thread in threads:
        thread.start()
    with feed_b, drain_a:
        with feed_b.makefile("rb") as src, drain_a.makefile("wb") as dst:
            rules.apply_file(src, dst, jobs=2)
        drain_a.shutdown(socket.SHUT_WR)
    for thread in threads:
        thread.join()
    assert bytes(received) == expected


def test_a_file_object_source_into_a_path_keeps_the_path_promises(tmp_path: Path):
    rules = reshape.Rules([{"op": "unwrap", "path": "$.data"}])
    destination = write(tmp_path / "out.json", b"old")
    os.chmod(destination, 0o604)
    link = tmp_path / "link.json"
    link.symlink_to(destination.name)
    rules.apply_file(io.BytesIO(b'{"data": [1]}'), link)
    assert link.is_symlink() and destination.read_bytes() == b"[1]"
    assert stat.S_IMODE(destination.stat().st_mode) == 0o604
    with pytest.raises(reshape.RuleFailed):
        rules.apply_file(io.BytesIO(b'{"other": [2]}'), link)
    assert destination.read_bytes() == b"[1]"


# ----------------------------------------------------------------------------------------------
# Errors


def test_a_missing_source_is_file_not_found_with_the_systems_words(tmp_path: Path):
    rules = reshape.Rules([])
    missing = tmp_path / "missing.json"
    reason = os.strerror(errno.ENOENT)
    messages = set()
    for destination in (tmp_path / "out.json", io.BytesIO(), open(tmp_path / "fd.json", "wb")):
        with pytest.raises(FileNotFoundError) as caught:
            rules.apply_file(missing, destination)
        error = caught.value
        assert isinstance(error, reshape.IOFailed) and isinstance(error, reshape.ReshapeError)
        assert error.status == 10 and error.code == "io_error"
        assert (error.errno, error.strerror, error.filename, error.io_file) == (errno.ENOENT, reason, str(missing), "input")
        messages.add(str(error))
        if hasattr(destination, "close"):
            destination.close()
    assert messages == {f"io_error: cannot read input file '{missing}': {reason}"}
    assert not (tmp_path / "out.json").exists()


def test_an_unwritable_destination_is_the_oserror_of_its_errno(tmp_path: Path):
    rules = reshape.Rules([])
    source = write(tmp_path / "in.json", b"[]")
    destination = tmp_path / "no" / "such" / "dir.json"
    with pytest.raises(FileNotFoundError) as caught:
        rules.apply_file(source, destination)
    error = caught.value
    assert (error.errno, error.filename, error.io_file) == (errno.ENOENT, str(destination), "output")
    assert str(error) == f"io_error: cannot write output file '{destination}': {os.strerror(errno.ENOENT)}"


def test_a_failure_writing_to_a_file_object_is_the_same_error_as_apply(firebase, tmp_path: Path):
    rules, payload, expected = firebase
    # A record near the end that keyedToArray cannot take: the records before it may already be out.
    broken = payload[:-1] + b',"-Nzzzzzzzzzzzzzzzzzz":"not an object"}'
    source = write(tmp_path / "users.json", broken)
    with pytest.raises(reshape.RuleFailed) as apply_error:
        rules.apply(broken)
    with open(source, "rb") as src, open(tmp_path / "out.json", "wb") as dst:
        with pytest.raises(reshape.RuleFailed) as file_error:
            rules.apply_file(src, dst, jobs=2)
        assert dst.tell() == os.lseek(dst.fileno(), 0, os.SEEK_CUR)
    assert str(file_error.value) == str(apply_error.value)
    assert file_error.value.path == "$['-Nzzzzzzzzzzzzzzzzzz']"
    written = (tmp_path / "out.json").read_bytes()
    assert expected[:-2].startswith(written), "a prefix of the output, and nothing after the failure"


def test_arguments_are_checked(tmp_path: Path):
    rules = reshape.Rules([])
    source = write(tmp_path / "in.json", b"[]")
    destination = tmp_path / "out.json"
    for jobs in (0, -1, 2**32):
        with pytest.raises(ValueError, match="jobs"):
            rules.apply_file(source, destination, jobs=jobs)
    for jobs in (True, 1.5, "2"):
        with pytest.raises(TypeError, match="jobs"):
            rules.apply_file(source, destination, jobs=jobs)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="progress"):
        rules.apply_file(source, destination, progress=42)  # type: ignore[arg-type]
    with open(source, "r") as text:
        with pytest.raises(TypeError, match="binary"):
            rules.apply_file(text, destination)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="binary"):
        rules.apply_file(source, io.StringIO())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rules.apply_file(42, destination)  # type: ignore[arg-type]
    with pytest.raises(reshape.InvalidArgument, match="pretty"):
        rules.apply_file(source, destination, pretty=True, output_lines=True)
    assert not destination.exists()
    rules.close()
    with pytest.raises(ValueError, match="closed"):
        rules.apply_file(source, destination)


def test_cancelled_is_status_8():
    assert issubclass(reshape.Cancelled, reshape.ReshapeError)
    assert reshape.Cancelled.code == "cancelled" and reshape.Cancelled.status == 8
    assert reshape.Cancelled("cancelled: stop").status == 8
    assert "Cancelled" in reshape.__all__
    assert _native.lib.reshape_status_name(8) == b"cancelled"
    for status, kind in {1: reshape.InvalidJSON, 2: reshape.InvalidRules, 3: reshape.RuleFailed,
                         4: reshape.LimitExceeded, 5: reshape.InvalidArgument, 6: reshape.OutOfMemory,
                         7: reshape.InternalError, 8: reshape.Cancelled, 10: reshape.IOFailed}.items():
        assert _native.lib.reshape_status_name(status).decode() == kind.code
        assert kind.status == status


def test_a_callback_returning_nonzero_is_cancelled(firebase, tmp_path: Path):
    """The C contract underneath: a nonzero return cancels with status 8, which maps to Cancelled."""
    from reshape._rules import _error

    rules, payload, _ = firebase
    source = write(tmp_path / "users.json", payload)
    options = _native.FileOptions(_native.RESHAPE_FILE_OPTIONS_VERSION, 1)
    calls = []
    callback = _native.ProgressFunction(lambda done, total, data: calls.append(done) or 1)
    options.progress = callback
    status, error = _native.apply_file(rules._handle, bytes(source), bytes(tmp_path / "out.json"), 0, options)
    assert status == 8 and len(calls) == 1
    assert not (tmp_path / "out.json").exists()
    converted = _error(status, error)
    assert type(converted) is reshape.Cancelled and converted.status == 8
    assert str(converted).startswith("cancelled")


# ----------------------------------------------------------------------------------------------
# JSON Lines


LINE_RULES = [{"op": "keyedToArray", "idKey": "id", "wrapIn": "items"}, {"op": "convertKeys"}]


def test_input_lines_reshapes_each_line_on_its_own():
    rules = reshape.Rules(LINE_RULES)
    data = b'{"a": {"first_name": "x"}}\n   \n\t\r\n{"b": {}, "c": {"n": 1}}\n{}'  # no newline at the end
    assert rules.apply(data, input_lines=True) == (
        b'{"items":[{"id":"a","firstName":"x"}]}\n'
        b'{"items":[{"id":"b"},{"id":"c","n":1}]}\n'
        b'{"items":[]}\n'
    )


def test_input_lines_errors_name_the_line():
    rules = reshape.Rules(LINE_RULES)
    with pytest.raises(reshape.InvalidJSON) as invalid:
        rules.apply(b'{"a": {}}\n\n{"b": {}, }\n', input_lines=True)
    assert invalid.value.line == 3
    with pytest.raises(reshape.RuleFailed) as failed:
        rules.apply(b'{"a": {}}\n{"b": "str"}\n', input_lines=True)
    error = failed.value
    assert (error.line, error.column, error.rule, error.path) == (2, 0, 1, "$['b']")


def test_skip_invalid_lines_skips_only_invalid_json():
    rules = reshape.Rules(LINE_RULES)
    data = b'{"a": {}}\nnot json\n{"b": {"x": 1}\n{"c": {}}\n'
    assert rules.apply(data, input_lines=True, skip_invalid_lines=True) == (
        b'{"items":[{"id":"a"}]}\n{"items":[{"id":"c"}]}\n'
    )
    assert rules.apply_loads(data, input_lines=True, skip_invalid_lines=True) == [
        {"items": [{"id": "a"}]}, {"items": [{"id": "c"}]}]
    with pytest.raises(reshape.RuleFailed):  # a rule's failure is not skipped
        rules.apply(b'not json\n{"b": "str"}\n', input_lines=True, skip_invalid_lines=True)


@pytest.mark.parametrize("route", ["paths", "descriptors", "memory", "pipe"])
def test_on_skip_gets_each_skipped_line_on_the_calling_thread(tmp_path, route):
    # Every route of apply_file reports the skipped lines: as the library reads paths, as it
    # reads descriptors, in memory (a BytesIO output), and from a pipe into a path.
    rules = reshape.Rules(LINE_RULES)
    data = b'{"a": {}}\nnot json\n\n{"b": {"x": 1}\n{"c": {}}\n'
    source = tmp_path / "in.jsonl"
    source.write_bytes(data)
    seen = []

    def on_skip(error):
        seen.append((type(error), error.line, error.column, str(error), threading.current_thread() is threading.main_thread()))

    expected = b'{"items":[{"id":"a"}]}\n{"items":[{"id":"c"}]}\n'
    options = dict(input_lines=True, skip_invalid_lines=True, on_skip=on_skip)
    if route == "paths":
        rules.apply_file(source, tmp_path / "out.jsonl", **options)
        assert (tmp_path / "out.jsonl").read_bytes() == expected
    elif route == "descriptors":
        with open(source, "rb") as src, open(tmp_path / "out.jsonl", "wb") as dst:
            rules.apply_file(src, dst, **options)
        assert (tmp_path / "out.jsonl").read_bytes() == expected
    elif route == "memory":
        out = io.BytesIO()
        rules.apply_file(io.BytesIO(data), out, **options)
        assert out.getvalue() == expected
    else:
        read, write = os.pipe()
        os.write(write, data)
        os.close(write)
        with os.fdopen(read, "rb") as src:
            rules.apply_file(src, tmp_path / "out.jsonl", **options)
        assert (tmp_path / "out.jsonl").read_bytes() == expected
    assert seen == [
        (reshape.InvalidJSON, 2, 1, "invalid_json: line 2, column 1: invalid literal, expected 'null'", True),
        (reshape.InvalidJSON, 4, 15, "invalid_json: at $, line 4, column 15: unexpected end of input, expected ',' or '}'",
         True),
    ]


def test_on_skip_raising_stops_the_call_with_its_exception(tmp_path):
    rules = reshape.Rules(LINE_RULES)
    lines = b"".join(b'{"k%d": {}}\n' % index if index % 7 else b"nope\n" for index in range(200_000))
    (tmp_path / "in.jsonl").write_bytes(lines)
    calls = []

    def on_skip(error):
        calls.append(error.line)
        raise LookupError("enough")

    with pytest.raises(LookupError, match="enough"):
        rules.apply_file(tmp_path / "in.jsonl", tmp_path / "out.jsonl", input_lines=True, skip_invalid_lines=True,
                         on_skip=on_skip)
    assert calls == [1] and not (tmp_path / "out.jsonl").exists()
    with pytest.raises(TypeError, match="on_skip must be callable"):
        rules.apply_file(tmp_path / "in.jsonl", tmp_path / "out.jsonl", on_skip=3)


def test_plan_says_how_each_rule_runs():
    rules = reshape.Rules([{"op": "unwrap", "path": "$.data"}, {"op": "keyedToArray"}, {"op": "wrap", "key": "w"}])
    assert rules.plan() == [
        "records, when $['data'] is an object: its members",
        "  rule 1 (unwrap $.data) runs per record",
        "  rule 2 (keyedToArray $) runs per record",
        '  rule 3 (wrap "w") runs per record',
        "records, when $['data'] is an array: its elements",
        "  rule 1 (unwrap $.data) runs per record",
        "  rule 2 (keyedToArray $) needs the whole document: keyedToArray on an array numbers the records by position",
        '  rule 3 (wrap "w") runs on the whole document, after rule 2',
    ]
    rules.close()
    with pytest.raises(ValueError):
        rules.plan()


def test_output_lines_writes_the_collection_one_record_per_line():
    rules = reshape.Rules(LINE_RULES)
    assert rules.apply(b'{"a": {"n": 1}, "b": {}}', output_lines=True) == b'{"id":"a","n":1}\n{"id":"b"}\n'
    assert rules.apply_loads(b'{"a": {"n": 1}, "b": {}}', output_lines=True) == [{"id": "a", "n": 1}, {"id": "b"}]
    assert reshape.apply([], b'[1, {"a": [2]}, "x"]', output_lines=True) == b'1\n{"a":[2]}\n"x"\n'
    for not_a_collection in (b'{"a": [1], "b": [2]}', b'{"a": 1}', b'"x"', b"3"):
        with pytest.raises(reshape.InvalidArgument):
            reshape.apply([], not_a_collection, output_lines=True)
    with pytest.raises(reshape.InvalidArgument):
        reshape.apply([], b"[1]", output_lines=True, pretty=True)


def test_input_and_output_lines_together():
    rules = reshape.Rules(LINE_RULES)
    data = b'{"a": {}, "b": {}}\n{"c": {"n": 1}}\n'
    assert rules.apply(data, input_lines=True, output_lines=True) == b'{"id":"a"}\n{"id":"b"}\n{"id":"c","n":1}\n'


@pytest.mark.parametrize("options", [
    {"input_lines": True},
    {"output_lines": True},
    {"input_lines": True, "output_lines": True},
    {"input_lines": True, "skip_invalid_lines": True},
])
def test_json_lines_through_files_give_what_apply_gives(options: Dict[str, bool], tmp_path: Path):
    rules = reshape.Rules(LINE_RULES)
    generator = random.Random(3)
    lines = []
    for index in range(40_000):
        if "output_lines" in options and "input_lines" not in options:
            break
        lines.append(json.dumps({f"k{index}": {"some_name": generator.random(), "tags": {}}}))
        if options.get("skip_invalid_lines") and index % 97 == 0:
            lines.append('{"broken": ')
    if lines:
        data = "\n".join(lines).encode()  # the last line without a newline
    else:
        data = json.dumps({f"k{index}": {"some_name": index} for index in range(100_000)}).encode()
    assert len(data) > 1_000_000
    expected = rules.apply(data, **options)
    source = write(tmp_path / "in.jsonl", data)
    for jobs in (1, 3):
        recorder = Recorder()
        rules.apply_file(source, tmp_path / "out.jsonl", jobs=jobs, progress=recorder, **options)
        assert (tmp_path / "out.jsonl").read_bytes() == expected
        recorder.check(len(data))
        out = io.BytesIO()
        with open(source, "rb") as src:
            rules.apply_file(src, out, jobs=jobs, **options)
        assert out.getvalue() == expected


def test_json_lines_progress_never_passes_the_total(tmp_path: Path):
    """A last line without a newline, whose output crosses the library's 1 MiB write threshold."""
    rules = reshape.Rules([])
    last = b"[" + b",".join(b"1" for _ in range(600_000)) + b"]"  # 1.2 MB of output on its own
    data = b"[0]\n" + last
    source = write(tmp_path / "in.jsonl", data)
    recorder = Recorder()
    rules.apply_file(source, tmp_path / "out.jsonl", progress=recorder, input_lines=True)
    assert (tmp_path / "out.jsonl").read_bytes() == b"[0]\n" + last + b"\n"
    recorder.check(len(data))


def test_a_call_at_interpreter_shutdown_still_works(tmp_path: Path):
    # Python 3.12 refuses new threads in atexit handlers: the call then runs where it is.
    import subprocess
    import sys
    import textwrap

    source = write(tmp_path / "in.json", b'{"a": {"b_c": ""}}')
    script = textwrap.dedent(f"""
        import atexit, io, reshape
        rules = reshape.Rules([{{"op": "convertKeys"}}])

        def at_exit():
            with open({str(tmp_path / "out.json")!r}, "wb") as out:  # a descriptor: a call with a callback
                rules.apply_file({str(source)!r}, out, progress=lambda done, total: None)
            with open({str(tmp_path / "out.json")!r}, "rb") as out:
                print(out.read().decode())

        atexit.register(at_exit)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (result.stdout, result.stderr, result.returncode) == ('{"a":{"bC":""}}\n', "", 0)
