"""Rules travel to other processes as their rules document, and copies never share a native handle."""

import copy
import gc
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from decimal import Decimal

import pytest

import reshape

RULES = [
    {"op": "keyedToArray", "idKey": "objectId", "wrapIn": "objects"},
    {"op": "emptyObjectToNull"},
    {"op": "convertKeys", "to": "snake_case"},
]
INPUT = b'{"u1": {"displayName": "Ada", "avatar": {}}, "u2": {"displayName": "Bob", "avatar": {"url": "b"}}}'
EXPECTED = (b'{"objects":[{"object_id":"u1","display_name":"Ada","avatar":null},'
            b'{"object_id":"u2","display_name":"Bob","avatar":{"url":"b"}}]}')


def test_the_expected_output_is_what_the_rules_give():
    assert reshape.Rules(RULES).apply(INPUT) == EXPECTED


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_rules_pickle_as_their_document_and_compile_again(protocol):
    rules = reshape.Rules(RULES, limits=reshape.Limits(max_depth=7))
    loaded = pickle.loads(pickle.dumps(rules, protocol=protocol))
    assert type(loaded) is reshape.Rules and loaded is not rules
    assert loaded._handle != rules._handle
    assert loaded.apply(INPUT) == EXPECTED
    assert loaded.document == RULES
    # The limits travel too: eight levels of nesting pass the original and the copy alike or not at all.
    deep = b'{"a": ' * 8 + b"1" + b"}" * 8
    with pytest.raises(reshape.LimitExceeded):
        rules.apply(deep)
    with pytest.raises(reshape.LimitExceeded):
        loaded.apply(deep)


def test_closed_rules_do_not_pickle_or_copy():
    rules = reshape.Rules(RULES)
    rules.close()
    for make in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(ValueError, match="closed"):
            make(rules)


def test_a_copy_outlives_the_closed_original():
    # The use-after-free of v0.1: copy.copy shared the handle, which close() then freed.
    original = reshape.Rules(RULES)
    shallow, deep = copy.copy(original), copy.deepcopy(original)
    assert len({original._handle, shallow._handle, deep._handle}) == 3
    original.close()
    del original
    gc.collect()
    # Other rules compiled now would reuse the freed memory if a copy still pointed at it.
    others = [reshape.Rules([{"op": "wrap", "key": f"k{index}"}]) for index in range(50)]
    for _ in range(3):
        assert shallow.apply(INPUT) == EXPECTED
        assert deep.apply(INPUT) == EXPECTED
    shallow.close()
    assert deep.apply(INPUT) == EXPECTED
    assert others[7].apply(b"1") == b'{"k7":1}'


def _pid_and_output(rules: reshape.Rules, data: bytes) -> bytes:
    return rules.apply(data)


def test_rules_travel_to_spawned_processes():
    rules = reshape.Rules(RULES)
    documents = [INPUT.replace(b"Ada", f"Ada{index}".encode()) for index in range(8)]
    expected = [EXPECTED.replace(b"Ada", f"Ada{index}".encode()) for index in range(8)]
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        assert pool.map(rules.apply, documents) == expected
    with ProcessPoolExecutor(2, mp_context=context) as executor:
        assert list(executor.map(_pid_and_output, [rules] * 8, documents)) == expected


def test_errors_travel_back_from_spawned_processes():
    rules = reshape.Rules(RULES)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        with pytest.raises(reshape.RuleFailed) as raised:
            pool.apply(rules.apply, (b'{"u1": 5}',))
    error = raised.value
    assert (error.rule, error.path, error.status) == (1, "$['u1']", 3)
    assert error.message == "rule_failed: rule 1 (keyedToArray) at $['u1']: expected an object, found a number"


def test_document_gives_the_rules_back_in_the_form_given():
    text = '{"rules": [{"op": "default", "path": "$", "key": "n", "value": 0.1000000000000000000001}]}'
    assert reshape.Rules(RULES).document == RULES
    assert reshape.Rules(text).document == {"rules": [{"op": "default", "path": "$", "key": "n",
                                                       "value": Decimal("0.1000000000000000000001")}]}
    # -0 and exact reals come back as values that compile to the same rules.
    signed = reshape.Rules('[{"op": "default", "path": "$", "key": "z", "value": -0}]')
    assert str(signed.document[0]["value"]) == "-0"
    assert reshape.Rules(signed.document).apply(b"{}") == signed.apply(b"{}") == b'{"z":-0}'
    exact = reshape.Rules(reshape.Rules(text).document)
    assert exact.apply(b"{}") == b'{"n":0.1000000000000000000001}'
    # A new value each time: changing it changes nothing else.
    rules = reshape.Rules(RULES)
    rules.document.append({"op": "wrap", "key": "x"})
    assert rules.document == RULES
    # Compiles again as the same rules, also after close().
    rules.close()
    assert reshape.Rules(rules.document).apply(INPUT) == EXPECTED


def test_repr_shows_the_ops():
    rules = reshape.Rules(RULES)
    assert rules.ops == ("keyedToArray", "emptyObjectToNull", "convertKeys")
    assert repr(rules).startswith("<reshape.Rules [keyedToArray, emptyObjectToNull, convertKeys] at 0x")
    assert reshape.Rules([]).ops == ()
    rules.close()
    assert repr(rules).startswith("<reshape.Rules (closed) at 0x")
    with pytest.raises(ValueError, match="closed"):
        rules.ops
