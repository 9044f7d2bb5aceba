"""Every buffer the library returns is freed exactly once, errors included, and memory stays flat."""

import gc

import pytest

import reshape
from reshape import _native


def test_each_output_buffer_is_freed_once(monkeypatch):
    freed = []
    real_free = _native.free
    monkeypatch.setattr(_native, "free", lambda buffer: (freed.append(buffer), real_free(buffer)))
    rules = reshape.Rules([{"op": "keyedToArray"}])
    for round_ in range(200):
        assert rules.apply(f'{{"k{round_}": {{}}}}') == f'[{{"id":"k{round_}"}}]'.encode()
        with pytest.raises(reshape.RuleFailed):
            rules.apply('{"k": 1}')  # failures return no buffer, so there is nothing to free
    assert len(freed) == 200
    assert all(buffer for buffer in freed)


def _resident_kib() -> int:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * 4


def test_no_growth_over_many_calls():
    spec = [{"op": "keyedToArray", "path": "$.users"}, {"op": "convertKeys"}]
    data = b'{"users": {' + b",".join(b'"u%d": {"full_name": "x", "tags": [1, 2.5, "t"]}' % i for i in range(200)) + b"}}"

    def churn(rounds: int) -> None:
        for _ in range(rounds):
            with reshape.Rules(spec) as rules:
                rules.apply(data)
                with pytest.raises(reshape.InvalidJSON):
                    rules.apply(data[:-1])
        gc.collect()

    churn(300)  # warm up allocators and caches
    before = _resident_kib()
    churn(3000)
    growth = _resident_kib() - before
    assert growth < 8 * 1024, f"resident memory grew by {growth} KiB"
