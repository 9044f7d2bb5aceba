"""One Rules object serves many threads, and the GIL is released while the library works."""

import ctypes
import threading

import reshape
from reshape import _native


def test_threads_share_one_rules_object():
    rules = reshape.Rules([
        {"op": "keyedToArray", "path": "$.users", "idKey": "uid"},
        {"op": "emptyObjectToNull"},
        {"op": "convertKeys"},
    ])
    failures = []

    def work(worker: int) -> None:
        for round_ in range(300):
            data = f'{{"users": {{"u{worker}_{round_}": {{"full_name": "N", "avatar": {{}}}}}}}}'
            expected = f'{{"users":[{{"uid":"u{worker}_{round_}","fullName":"N","avatar":null}}]}}'.encode()
            if rules.apply(data) != expected:
                failures.append((worker, round_))

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_library_calls_release_the_gil():
    # CDLL (unlike PyDLL) drops the GIL around each foreign call.
    assert isinstance(_native.lib, ctypes.CDLL) and not isinstance(_native.lib, ctypes.PyDLL)
    rules = reshape.Rules([{"op": "emptyObjectToNull"}, {"op": "convertKeys", "to": "snake_case"}])
    big = ("[" + ",".join('{"someKey": {}, "otherKey": [1, 2, 3], "name": "x"}' for _ in range(150_000)) + "]").encode()
    progress = 0
    done = threading.Event()

    def count() -> None:
        nonlocal progress
        while not done.is_set():
            progress += 1

    counter = threading.Thread(target=count)
    counter.start()
    before = progress
    rules.apply(big)  # one long foreign call; with the GIL held, the counter could not move
    during = progress - before
    done.set()
    counter.join()
    assert during > 1000
