"""Inputs are read where they lie: bytes, bytearray, memoryview and mmap are never copied."""

import mmap
import tracemalloc

import pytest

import reshape

# 40 MB of input, of which the output keeps a few bytes: any copy of the input would show.
BIG = b'{"blob": "' + b"x" * (40 << 20) + b'", "data": [1, 2, 3]}'
RULES = [{"op": "unwrap", "path": "$.data"}]


def _peak_traced(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _mapped(path):
    with open(path, "rb") as file:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview", "memoryview-slice", "mmap", "mmap-writable"])
def test_no_allocation_of_the_input_size(kind, tmp_path):
    rules = reshape.Rules(RULES)
    path = tmp_path / "big.json"
    path.write_bytes(BIG)
    if kind == "bytes":
        data = BIG
    elif kind == "bytearray":
        data = bytearray(BIG)
    elif kind == "memoryview":
        data = memoryview(BIG)
    elif kind == "memoryview-slice":
        data = memoryview(b"  " + BIG + b"  ")[1:-1]  # an offset into a bigger buffer
    elif kind == "mmap":
        data = _mapped(path)
    else:
        file = open(path, "r+b")
        data = mmap.mmap(file.fileno(), 0)
        file.close()
    output, peak = _peak_traced(lambda: rules.apply(data))
    assert output == b"[1,2,3]"
    assert peak < 1 << 20, f"{kind}: {peak} bytes traced while reshaping 40 MB"
    # The same call through the copy that v0.1 made would have traced the input's size.
    if kind == "bytearray":
        _, copied = _peak_traced(lambda: rules.apply(bytes(data)))
        assert copied > 40 << 20


def test_every_buffer_kind_gives_the_same_bytes_and_errors(tmp_path):
    rules = reshape.Rules([{"op": "keyedToArray"}])
    text = b'{"a": {"n": 1}, "b": {"s": "\xc3\xa9"}}'
    path = tmp_path / "in.json"
    path.write_bytes(text)
    expected = b'[{"id":"a","n":1},{"id":"b","s":"\xc3\xa9"}]'
    for data in (text, bytearray(text), memoryview(text), memoryview(bytearray(text)), _mapped(path), text.decode()):
        assert rules.apply(data) == expected, type(data)
        assert rules.apply_loads(data) == [{"id": "a", "n": 1}, {"id": "b", "s": "é"}]
    broken = b'{"a": {"n": 1,}}'
    path.write_bytes(broken)
    for data in (broken, bytearray(broken), memoryview(broken), _mapped(path)):
        with pytest.raises(reshape.InvalidJSON) as raised:
            rules.apply(data)
        assert (raised.value.line, raised.value.column, raised.value.position) == (1, 15, 14)
        assert raised.value.doc is data


def test_empty_and_refused_buffers():
    rules = reshape.Rules([])
    for empty in (b"", bytearray(), memoryview(b"")):
        with pytest.raises(reshape.InvalidJSON):
            rules.apply(empty)
    with pytest.raises(TypeError, match="contiguous"):
        rules.apply(memoryview(b"[1, 2, 3, 4]")[::2])
    with pytest.raises(TypeError, match="data must be bytes, bytearray, memoryview, mmap or str, not int"):
        rules.apply(5)  # type: ignore[arg-type]
    released = memoryview(b"[1]")
    released.release()
    with pytest.raises(ValueError):
        rules.apply(released)


def test_a_lent_bytearray_is_released_after_the_call():
    # The export pins the buffer during the call; a leaked export would make extend() raise BufferError.
    data = bytearray(b"[1]")
    rules = reshape.Rules([])
    assert rules.apply(data) == b"[1]"
    data.extend(b" ")
    assert rules.apply(data) == b"[1]"
