"""Work limits from Python, and errors that are safe to print (issue 8)."""

import json
import unicodedata

import pytest

import reshape


def test_defaults_reshape_ordinary_documents():
    rules = reshape.Rules([{"op": "emptyObjectToNull"}], limits=reshape.Limits())
    assert rules.apply(b'{"a": {}}') == b'{"a":null}'


def test_each_limit_can_be_lowered():
    with pytest.raises(reshape.LimitExceeded) as depth:
        reshape.Rules("[]", limits=reshape.Limits(max_depth=2)).apply(b"[[[1]]]")
    assert str(depth.value) == "limit_exceeded: at $[0][0], line 1, column 3: nesting deeper than 2 levels (the depth limit)"
    assert (depth.value.line, depth.value.column, depth.value.path) == (1, 3, "$[0][0]")

    with pytest.raises(reshape.InvalidRules) as size:
        reshape.Rules("[  ]", limits=reshape.Limits(max_rules_bytes=3))
    assert str(size.value) == "invalid_rules: the rules document has 4 bytes, more than 3 (the rules size limit)"

    with pytest.raises(reshape.LimitExceeded) as selected:
        reshape.Rules([{"op": "unwrap", "path": "$..*"}], limits=reshape.Limits(max_selected=3)).apply(b"[[1],[2]]")
    assert selected.value.rule == 1
    assert "reaches more than 3 values (the selection limit)" in str(selected.value)

    with pytest.raises(reshape.LimitExceeded, match=r"larger than 10 bytes \(the output limit\)"):
        reshape.Rules("[]", limits=reshape.Limits(max_output_bytes=10)).apply(b"[1,2,3]", pretty=True)

    with pytest.raises(reshape.LimitExceeded, match=r"more than 5 steps of work"):
        reshape.Rules([{"op": "emptyObjectToNull"}], limits=reshape.Limits(max_work=5)).apply(b"[[],[],[],[],[],[]]")


def test_limits_can_be_raised_beyond_any_default():
    deep = b"[" * 5000 + b"]" * 5000
    with pytest.raises(reshape.LimitExceeded):
        reshape.apply("[]", deep)
    raised = reshape.Rules([{"op": "convertKeys"}], limits=reshape.Limits(max_depth=10_000, max_work=2**80))
    assert raised.apply(deep) == deep


def test_limits_are_checked_when_made():
    with pytest.raises(ValueError):
        reshape.Limits(max_depth=0)
    with pytest.raises(ValueError):
        reshape.Limits(max_work=True)
    with pytest.raises(TypeError):
        reshape.Rules("[]", limits={"max_depth": 3})  # type: ignore[arg-type]


def test_error_messages_hold_no_control_characters():
    hostile = "x\n\u001b[31mFAKE\r\u009b\u202e"
    with pytest.raises(reshape.InvalidRules) as unknown:
        reshape.Rules([{"op": hostile}])
    text = str(unknown.value)
    assert "\n" not in text and "\r" not in text
    assert not any(unicodedata.category(character) in ("Cc", "Zl", "Zp") for character in text)
    assert '("x\\n\\u001B[31mFAKE\\r\\u009B\\u202E")' in text
    with pytest.raises(reshape.RuleFailed) as coerce:
        reshape.apply([{"op": "coerce", "path": "$.*"}], json.dumps({hostile: hostile}))
    assert not any(unicodedata.category(character) == "Cc" for character in str(coerce.value))
    assert coerce.value.path == "$['x\\n\\u001b[31mFAKE\\r\u009b\u202e']"
