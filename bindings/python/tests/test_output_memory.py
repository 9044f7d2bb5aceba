"""A large output is held once: the library's buffer is released page by page as it is copied."""

import ctypes
import mmap
import subprocess
import sys
import textwrap

import pytest

import reshape
from reshape import _output


@pytest.mark.skipif(not _output.CHUNKED, reason="needs CPython's C API and Linux's madvise")
@pytest.mark.parametrize("offset", [0, 1, 4095])
def test_take_copies_exactly_and_releases_the_copied_pages(monkeypatch, offset):
    monkeypatch.setattr(_output, "CHUNKED_FROM", 1)
    monkeypatch.setattr(_output, "CHUNK", 3 * mmap.PAGESIZE + 17)  # chunks that end mid-page
    length = 40 * mmap.PAGESIZE + 123
    pattern = bytes(range(251)) * ((length + 16384) // 251)
    buffer = ctypes.create_string_buffer(pattern[: length + offset + 8192], length + offset + 8192)
    address = ctypes.addressof(buffer) + offset
    taken = _output.take(address, length)
    assert type(taken) is bytes and taken == pattern[offset : offset + length]
    # Every whole page inside the copied range was handed back, so it reads as zeros now; the
    # partial pages at both ends, and everything after the range, are untouched.
    first = -(-address // mmap.PAGESIZE) * mmap.PAGESIZE
    last = (address + length) // mmap.PAGESIZE * mmap.PAGESIZE
    assert last - first >= 30 * mmap.PAGESIZE
    assert ctypes.string_at(first, last - first) == bytes(last - first)
    assert ctypes.string_at(address, first - address) == pattern[offset : offset + first - address]
    tail = address + length - last
    assert ctypes.string_at(last, tail) == pattern[offset + last - address : offset + length]
    assert ctypes.string_at(address + length, 100) == pattern[offset + length : offset + length + 100]


def test_small_outputs_are_copied_whole(monkeypatch):
    calls = []
    monkeypatch.setattr(_output, "_madvise", lambda *arguments: calls.append(arguments) or 0)
    assert reshape.Rules([{"op": "wrap", "key": "k"}]).apply(b"[1]") == b'{"k":[1]}'
    assert calls == []


@pytest.mark.skipif(not _output.CHUNKED, reason="needs CPython's C API and Linux's madvise")
def test_peak_memory_holds_a_large_output_once():
    # In a fresh process, so that the peak (ru_maxrss) is this call's. The input is built in a
    # bytearray and lent in place; before the fix the peak grew by twice the output.
    script = textwrap.dedent("""
        import resource, reshape
        data = bytearray(b"{")
        for i in range(800_000):
            data += b'"k%07d": {"name": "user %07d", "plan": "", "avatar": {}},' % (i, i)
        data[-1:] = b"}"
        rules = reshape.Rules([{"op": "keyedToArray", "idKey": "id"}])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = rules.apply(data)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert out.startswith(b'[{"id":"k0000000","name":"user 0000000","plan":"","avatar":{}},')
        print(len(out), (after - before) * 1024)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    length, growth = map(int, result.stdout.split())
    assert length == 49_600_001
    assert growth < length + (32 << 20), f"the peak grew by {growth / length:.2f}x the output"
