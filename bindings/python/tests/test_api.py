"""The Python API: spec and data forms, errors and their attributes, closing, one-shot apply."""

import json
from decimal import Decimal
from pathlib import Path

import pytest

import reshape
from conftest import REPOSITORY

FIREBASE = REPOSITORY / "examples" / "firebase-users"


def test_versions_agree_with_the_library_and_the_header():
    assert reshape.library_version() == reshape.__version__
    header = (REPOSITORY / "include" / "reshape.h").read_text()
    assert f'#define RESHAPE_VERSION_STRING "{reshape.__version__}"' in header


def test_every_spec_form_means_the_same(tmp_path):
    rules = [{"op": "keyedToArray", "idKey": "objectId", "wrapIn": "objects"}]
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules))
    data = b'{"u1": {"name": "Ada"}, "u0": {"name": "Bob"}}'
    expected = b'{"objects":[{"objectId":"u1","name":"Ada"},{"objectId":"u0","name":"Bob"}]}'
    for spec in (rules, {"rules": rules}, json.dumps(rules), json.dumps(rules).encode(), path):
        assert reshape.Rules(spec).apply(data) == expected, spec
    for name in (path, str(path), bytes(path)):
        assert reshape.Rules.from_file(name).apply(data) == expected, name


def test_every_data_form_gives_the_same_bytes():
    rules = reshape.Rules([{"op": "wrap", "key": "k"}])
    text = '{"naïve": "日本", "n": 1.50}'
    expected = '{"k":{"naïve":"日本","n":1.5}}'.encode()
    encoded = text.encode()
    for data in (text, encoded, bytearray(encoded), memoryview(encoded)):
        assert rules.apply(data) == expected


def test_the_firebase_example():
    rules = reshape.Rules(FIREBASE / "rules.json")
    output = rules.apply((FIREBASE / "users.json").read_bytes(), pretty=True)
    assert output == (FIREBASE / "expected.json").read_bytes()


def test_apply_loads_keeps_order_and_numbers():
    rules = reshape.Rules([])
    value = rules.apply_loads('{"z": 1, "a": [0.1, 1e400, 1e-400, 123456789012345678901234567890, 2.5e-5, 9007199254740993.0, -0, 1.50]}')
    assert list(value) == ["z", "a"]
    assert value["a"] == [0.1, Decimal("1e400"), Decimal("1e-400"), 123456789012345678901234567890, 2.5e-5,
                          Decimal("9007199254740993.0"), Decimal("-0"), 1.5]
    assert str(value["a"][6]) == "-0" and type(value["a"][7]) is float


def test_one_shot_apply_and_options():
    assert reshape.apply([{"op": "unwrap", "path": "$.data"}], '{"data": {"a": [1]}}', pretty=True) == b'{\n  "a": [\n    1\n  ]\n}'
    with pytest.raises(reshape.InvalidJSON):
        reshape.apply([], '{"a": 1, "a": 2}')
    assert reshape.apply([], '{"a": 1, "a": 2}', allow_duplicate_keys=True) == b'{"a":2}'


def test_rule_failed_carries_rule_and_path():
    rules = reshape.Rules([{"op": "unwrap", "path": "$.data"}, {"op": "keyedToArray", "path": "$.users"}])
    with pytest.raises(reshape.RuleFailed) as caught:
        rules.apply('{"data": {"users": {"u1": "str"}}}')
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, reshape.ReshapeError)
    assert (error.code, error.status, error.rule, error.path) == ("rule_failed", 3, 2, "$['users']['u1']")
    assert (error.line, error.column, error.position) == (0, 0, 0)
    # Rule 1 moved the value: the message and `source` say where it was in the input.
    assert str(error) == ("rule_failed: rule 2 (keyedToArray) at $['users']['u1']: expected an object, found a string"
                          " (input: $['data']['users']['u1'], line 1, column 27)")
    assert error.source == reshape.Source("input", "$['data']['users']['u1']", 1, 27, 26, 0, "", (),
                                          "$['data']['users']['u1'], line 1, column 27")

    # JSON Lines: the failing line is traced alone and placed in the input.
    with pytest.raises(reshape.RuleFailed) as caught:
        rules.apply('{"data": {"users": {}}}\n\n{"data": {"users": {"u1": 7}}}\n', input_lines=True)
    error = caught.value
    assert (error.rule, error.path, error.line) == (2, "$['users']['u1']", 3)
    assert error.source == reshape.Source("input", "$['data']['users']['u1']", 3, 27, 51, 0, "", (),
                                          "$['data']['users']['u1'], line 3, column 27")


def test_trace_says_where_a_value_was():
    rules = reshape.Rules([{"op": "keyedToArray", "wrapIn": "users"}, {"op": "convertKeys", "to": "camelCase"},
                           {"op": "default", "path": "$.users[*]", "key": "plan", "value": "free"}])
    data = '{"-NxA3kq0": {"created_at": 1},\n "-NxB": {"created_at": 2, "plan": "pro"}}'
    renamed = rules.trace(data, "$.users[1].createdAt")
    assert renamed == reshape.Source(
        "input", "$['-NxB']['created_at']", 2, 25, 56, 0, "", (reshape.Rename(2, "convertKeys", "created_at", "createdAt"),),
        "$['-NxB']['created_at'], line 2, column 25, renamed by rule 2 (convertKeys) from \"created_at\"")
    assert str(rules.trace(data, "$['users'][0]['plan']")) == "added by rule 3 (default)"
    assert rules.trace(data, "$.users[0].id").origin == "memberName"
    with pytest.raises(reshape.InvalidArgument, match="may select several values"):
        rules.trace(data, "$..plan")
    with pytest.raises(reshape.InvalidJSON):
        rules.trace("{", "$")


def test_invalid_json_carries_line_column_position():
    with pytest.raises(reshape.InvalidJSON) as caught:
        reshape.apply([], '{\n  "é": [1,\n   2,,]}')
    error = caught.value
    assert (error.code, error.status, error.path) == ("invalid_json", 1, "$['é'][2]")
    assert (error.line, error.column, error.position) == (3, 6, 19)
    assert str(error) == "invalid_json: at $['é'][2], line 3, column 6: expected a value, found ','"


def test_invalid_rules_names_rule_and_param():
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules([{"op": "wrap", "key": "k"}, {"op": "keyedToArray", "idkey": "x"}])
    assert caught.value.rule == 2
    assert str(caught.value) == 'invalid_rules: rule 2 (keyedToArray): unknown param "idkey"; did you mean "idKey"?'
    with pytest.raises(reshape.InvalidRules):
        reshape.Rules([{"op": "default", "key": "k", "value": float("nan")}])
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules("[")
    assert (caught.value.line, caught.value.column) == (1, 2)


def test_limit_exceeded():
    with pytest.raises(reshape.LimitExceeded) as caught:
        reshape.apply([], "[" * 1001 + "]" * 1001)
    assert caught.value.status == 4 and caught.value.position == 1000


def test_invalid_argument_and_type_errors():
    rules = reshape.Rules([])
    with pytest.raises(reshape.InvalidArgument) as caught:
        rules._apply(b"{}", 0x40)
    assert isinstance(caught.value, TypeError)
    assert str(caught.value) == "invalid_argument: unknown option flags 0x40"
    with pytest.raises(TypeError):
        rules.apply(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        reshape.Rules(42)  # type: ignore[arg-type]


def test_lone_surrogate_in_str_input_is_invalid_json():
    with pytest.raises(reshape.InvalidJSON) as caught:
        reshape.apply([], '"\ud800"')
    assert caught.value.position == 1


def test_missing_rules_file_is_file_not_found(tmp_path):
    for make in (reshape.Rules, reshape.Rules.from_file):
        with pytest.raises(FileNotFoundError) as caught:
            make(tmp_path / "missing.json")
        assert caught.value.filename == str(tmp_path / "missing.json")


def test_closed_rules_refuse_work_and_close_twice_is_fine():
    with reshape.Rules([]) as rules:
        assert rules.apply("[]") == b"[]"
    with pytest.raises(ValueError, match="closed"):
        rules.apply("[]")
    rules.close()


def test_errors_show_their_attributes_in_repr():
    error = reshape.RuleFailed("rule_failed: rule 1 (x) at $: m", status=3, rule=1, path="$")
    assert repr(error) == "RuleFailed('rule_failed: rule 1 (x) at $: m')"


def test_package_is_typed():
    assert (Path(reshape.__file__).parent / "py.typed").exists()
