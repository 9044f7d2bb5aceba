"""What code written for the json module expects: JSONDecodeError, and floats on request."""

import json
import math
import pickle
from decimal import Decimal

import pytest

import reshape


def test_invalid_json_is_a_json_decode_error_with_its_fields():
    rules = reshape.Rules([])
    text = '{"naïve": [1,\n  2,, 3]}'
    with pytest.raises(json.JSONDecodeError) as raised:
        rules.apply(text)
    error = raised.value
    assert isinstance(error, reshape.InvalidJSON) and isinstance(error, ValueError)
    assert (error.lineno, error.colno) == (error.line, error.column) == (2, 5)
    assert error.doc is text
    assert text[error.pos] == "," and error.pos == 18  # characters into the str
    assert error.position == 19  # bytes into its UTF-8 text: "ï" takes two
    assert error.msg == error.message == str(error)
    assert str(error) == "invalid_json: at $['naïve'][2], line 2, column 5: expected a value, found ','"
    # bytes: pos counts bytes, as the document is bytes.
    with pytest.raises(json.JSONDecodeError) as raised:
        rules.apply(text.encode())
    assert raised.value.pos == 19 and raised.value.doc == text.encode()


def test_only_invalid_json_is_a_json_decode_error():
    with pytest.raises(reshape.InvalidRules) as raised:
        reshape.Rules("[{")
    assert not isinstance(raised.value, json.JSONDecodeError) and isinstance(raised.value, ValueError)
    with pytest.raises(reshape.RuleFailed) as raised_rule:
        reshape.apply([{"op": "keyedToArray"}], "[1]")
    assert not isinstance(raised_rule.value, json.JSONDecodeError) and isinstance(raised_rule.value, ValueError)
    assert raised_rule.value.op == "keyedToArray" and raised_rule.value.rule == 1


def test_errors_pickle_with_every_field():
    with pytest.raises(reshape.InvalidJSON) as raised:
        reshape.apply([], '{"a": tru}')
    copy = pickle.loads(pickle.dumps(raised.value))
    assert type(copy) is reshape.InvalidJSON
    for field in ("message", "status", "rule", "op", "path", "line", "column", "position", "msg", "doc", "pos",
                  "lineno", "colno"):
        assert getattr(copy, field) == getattr(raised.value, field), field
    with pytest.raises(reshape.RuleFailed) as raised_rule:
        reshape.apply([{"op": "keyedToArray"}], '{"k": 1}')
    copy_rule = pickle.loads(pickle.dumps(raised_rule.value))
    assert (type(copy_rule), copy_rule.message, copy_rule.path, copy_rule.op) == (
        reshape.RuleFailed, raised_rule.value.message, "$['k']", "keyedToArray")


def test_apply_loads_parse_float():
    rules = reshape.Rules([])
    text = '[0.1, 1e400, 1e-400, 0.1000000000000000000001, -0, 0, 7, 9007199254740993.0, 2.5]'
    exact = rules.apply_loads(text)
    assert exact == [0.1, Decimal("1e400"), Decimal("1e-400"), Decimal("0.1000000000000000000001"), Decimal("-0"), 0,
                     7, Decimal("9007199254740993.0"), 2.5]
    floats = rules.apply_loads(text, parse_float=float)
    assert floats[:2] == [0.1, math.inf] and floats[2:4] == [0.0, 0.1] and floats[5:] == [0, 7, 9007199254740992.0, 2.5]
    assert all(type(value) is float for value in floats[:5] + floats[7:])
    assert type(floats[5]) is int and type(floats[6]) is int
    assert math.copysign(1.0, floats[4]) == -1.0 and floats[4] == 0.0  # -0 keeps its sign as -0.0
    seen = []
    rules.apply_loads('{"a": 1.50, "b": 2}', parse_float=lambda text: seen.append(text) or text)
    assert seen == ["1.5"]  # the engine's text of the real: the shortest that reads back the same
    assert rules.apply_loads(b'{"x": 1.5}\n{"x": 1e400}\n', input_lines=True, parse_float=float) == [
        {"x": 1.5}, {"x": math.inf}]
