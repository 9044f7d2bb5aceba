"""A process forked after the library's threads ran (multiprocessing's default start method on
Linux) reshapes again in the child: the same bytes, without hanging."""

import multiprocessing
import os
import signal
import sys
import time
from pathlib import Path
from typing import Tuple

import pytest

import reshape
from test_files import FIREBASE_RULES, firebase_payload

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@pytest.fixture(scope="module")
def reshaped(tmp_path_factory) -> Tuple[reshape.Rules, Path, bytes]:
    """Rules, a few megabytes of input in a file, and the expected output; the library's threads
    (jobs=2) have run in this process by the time a test forks."""
    folder = tmp_path_factory.mktemp("fork")
    rules = reshape.Rules(FIREBASE_RULES)
    payload = firebase_payload(12_000)
    assert len(payload) > 3_000_000
    source = folder / "users.json"
    source.write_bytes(payload)
    expected = rules.apply(payload)
    rules.apply_file(source, folder / "parent.json", jobs=2)
    assert (folder / "parent.json").read_bytes() == expected
    return rules, source, expected


def wait(pid: int, seconds: float = 120) -> int:
    """The child's exit status; a child still running after `seconds` is killed, and fails."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError(f"the forked child hung for {seconds} s")


def child_work(rules: reshape.Rules, source: Path, expected: bytes, out: Path) -> str:
    """Every way of reshaping, in the child; "" when all gave the expected bytes."""
    problems = []
    if rules.apply(source.read_bytes()) != expected:
        problems.append("apply")
    rules.apply_file(source, out, jobs=2)
    if out.read_bytes() != expected:
        problems.append("apply_file jobs=2")
    with open(source, "rb") as src, open(out, "wb") as dst:
        rules.apply_file(src, dst, jobs=2, progress=lambda done, total: None)
    if out.read_bytes() != expected:
        problems.append("apply_file descriptors with progress")
    fresh = reshape.Rules(FIREBASE_RULES)
    if fresh.apply(source.read_bytes()) != expected:
        problems.append("new rules")
    return ", ".join(problems)


def test_os_fork_after_the_librarys_threads_ran(reshaped, tmp_path: Path):
    rules, source, expected = reshaped
    report = tmp_path / "report.txt"
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        status = 1
        try:
            problems = child_work(rules, source, expected, tmp_path / "child.json")
            report.write_text(problems or "ok")
            status = 0
        finally:
            os._exit(status)
    assert wait(pid) == 0
    assert report.read_text() == "ok"
    # And the parent goes on too.
    assert child_work(rules, source, expected, tmp_path / "parent-again.json") == ""


def _in_child(arguments: Tuple[reshape.Rules, Path, bytes, Path]) -> Tuple[int, str]:
    rules, source, expected, out = arguments
    return os.getpid(), child_work(rules, source, expected, out)


def test_a_fork_pool_after_the_librarys_threads_ran(reshaped, tmp_path: Path):
    rules, source, expected = reshaped
    context = multiprocessing.get_context("fork")
    jobs = [(rules, source, expected, tmp_path / f"child-{index}.json") for index in range(4)]
    with context.Pool(2) as pool:
        result = pool.map_async(_in_child, jobs)
        answers = result.get(timeout=120)
    assert [problems for _, problems in answers] == [""] * 4
    assert os.getpid() not in {pid for pid, _ in answers}
