"""apply_async and apply_loads_async: the event loop goes on while a large document is reshaped."""

import asyncio
import contextvars
import threading
import time

import pytest

import reshape

RULES = [{"op": "keyedToArray", "idKey": "id"}, {"op": "convertKeys"}]


def large_document(records: int) -> bytes:
    return ("{" + ",".join(f'"k{i}": {{"some_name": "user {i}", "plan_name": ""}}' for i in range(records)) + "}").encode()


def test_the_loop_keeps_ticking_while_a_large_document_is_reshaped():
    rules = reshape.Rules(RULES)
    data = large_document(600_000)
    assert len(data) > 25_000_000
    expected = rules.apply(data)

    async def main():
        ticks = []

        async def ticker():
            while True:
                ticks.append(time.perf_counter())
                await asyncio.sleep(0.005)

        task = asyncio.ensure_future(ticker())
        await asyncio.sleep(0.02)
        started = time.perf_counter()
        result = await rules.apply_async(data)
        finished = time.perf_counter()
        task.cancel()
        during = [tick for tick in ticks if started <= tick <= finished]
        gaps = [later - earlier for earlier, later in zip([started] + during, during + [finished])]
        return result, finished - started, len(during), max(gaps)

    result, duration, ticks, longest = asyncio.run(main())
    assert result == expected
    # apply() would hold the loop for the whole call: one gap as long as the call. Here the loop
    # ticks all along (every 5 ms, give or take a busy machine).
    assert ticks >= 5, f"{ticks} ticks in {duration:.2f} s"
    assert longest < duration / 2, f"the loop stalled {longest:.3f} s of {duration:.3f} s"


def test_apply_loads_async_and_the_options_and_errors_are_applys():
    rules = reshape.Rules(RULES)
    variable = contextvars.ContextVar("variable", default="unset")

    async def main():
        variable.set("the caller's")
        loaded = await rules.apply_loads_async(b'{"a": {"x_y": 1e400, "n": 0.5}}', parse_float=float)
        pretty = await rules.apply_async(b'{"a": {}}', pretty=True)
        lines = await rules.apply_loads_async(b'{"a": {}}\nnope\n{"b": {}}', input_lines=True, skip_invalid_lines=True)
        with pytest.raises(reshape.RuleFailed) as caught:
            await rules.apply_async(b'{"a": 1}')
        seen = []
        await reshape.Rules([]).apply_loads_async(b"[1]", parse_float=lambda text: seen.append(variable.get()))
        await reshape.Rules([]).apply_loads_async(b"[1.5]", parse_float=lambda text: seen.append(
            (variable.get(), threading.current_thread() is threading.main_thread())))
        return loaded, pretty, lines, caught.value, seen

    loaded, pretty, lines, error, seen = asyncio.run(main())
    assert loaded == [{"id": "a", "xY": float("inf"), "n": 0.5}]
    assert pretty == b'[\n  {\n    "id": "a"\n  }\n]'
    assert lines == [[{"id": "a"}], [{"id": "b"}]]
    assert str(error) == "rule_failed: rule 1 (keyedToArray) at $['a']: expected an object, found a number"
    assert seen == [("the caller's", False)], "in the caller's context, on another thread"
