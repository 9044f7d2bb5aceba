"""Rules.apply_lines: an iterable of JSON Lines documents in, one result out for each, lazily."""

import io
import json

import pytest

import reshape

RULES = [{"op": "emptyObjectToNull"}, {"op": "convertKeys", "to": "snake_case"}]


def test_one_result_per_document_in_order_blank_items_skipped():
    rules = reshape.Rules(RULES)
    items = ['{"userName": "Ada", "avatar": {}}\n', b'{"userName": "Bob"}', "   \t\r\n", bytearray(b"[1]"),
             memoryview(b'{"a": {}}\r\n'), ""]
    assert list(rules.apply_lines(items)) == [b'{"user_name":"Ada","avatar":null}', b'{"user_name":"Bob"}', b"[1]",
                                              b'{"a":null}']


def test_the_same_results_as_input_lines_on_a_file():
    rules = reshape.Rules(RULES)
    text = b'{"firstName": "A", "x": {}}\n\n{"lastName": ""}\n["\xc3\xa9"]\n'
    assert b"".join(line + b"\n" for line in rules.apply_lines(io.BytesIO(text))) == rules.apply(text, input_lines=True)


def test_lazy_results_before_the_failure_come_first():
    rules = reshape.Rules([{"op": "keyedToArray"}])
    read = []

    def items():
        for item in ['{"a": {}}', "", '{"b": 1}', '{"c": {}}']:
            read.append(item)
            yield item

    results = rules.apply_lines(items())
    assert next(results) == b'[{"id":"a"}]'
    assert read == ['{"a": {}}']  # nothing read ahead
    with pytest.raises(reshape.RuleFailed) as raised:
        next(results)
    error = raised.value
    assert (error.line, error.rule, error.op, error.path) == (3, 1, "keyedToArray", "$['b']")
    assert str(error) == "rule_failed: item 3: rule 1 (keyedToArray) at $['b']: expected an object, found a number"
    assert read == ['{"a": {}}', "", '{"b": 1}']


def test_invalid_items_raise_or_are_skipped():
    rules = reshape.Rules([])
    items = ["[1]", '{"a": [1,}', "[2]"]
    with pytest.raises(json.JSONDecodeError) as raised:
        list(rules.apply_lines(items))
    error = raised.value
    assert isinstance(error, reshape.InvalidJSON)
    assert (error.line, error.lineno, error.column, error.position, error.pos, error.doc) == (2, 2, 10, 9, 9, items[1])
    assert str(error) == "invalid_json: item 2: at $['a'][1], line 1, column 10: expected a value, found '}'"
    assert list(rules.apply_lines(items, skip_invalid_lines=True)) == [b"[1]", b"[2]"]
    # A failing rule still raises with skip_invalid_lines.
    with pytest.raises(reshape.RuleFailed):
        list(reshape.Rules([{"op": "keyedToArray"}]).apply_lines(["{}", '{"a": 1}'], skip_invalid_lines=True))


def test_duplicate_keys_and_closed_rules():
    rules = reshape.Rules([])
    with pytest.raises(reshape.InvalidJSON, match="item 1"):
        list(rules.apply_lines(['{"a": 1, "a": 2}']))
    assert list(rules.apply_lines(['{"a": 1, "a": 2}'], allow_duplicate_keys=True)) == [b'{"a":2}']
    rules.close()
    with pytest.raises(ValueError, match="closed"):
        list(rules.apply_lines(["[1]"]))
    assert list(rules.apply_lines([])) == []


@pytest.mark.parametrize("text", ['{"a": {}}\n{"b": {}}\n', b'{"a": {}}\n{"b": {}}\n',
                                  bytearray(b'{"a": {}}\n{"b": {}}\n'), memoryview(b'{"a": {}}\n{"b": {}}\n')])
def test_one_text_is_refused_at_once_not_read_character_by_character(text):
    rules = reshape.Rules(RULES)
    with pytest.raises(TypeError) as caught:
        rules.apply_lines(text)  # the call raises, before any iteration
    assert str(caught.value) == (
        f"lines must be an iterable of documents, not one {type(text).__name__}: pass text.splitlines(), or "
        "reshape JSON Lines text whole with apply(text, input_lines=True)")
    # What the message proposes works.
    whole = text if not isinstance(text, memoryview) else text.tobytes()
    assert list(rules.apply_lines(whole.splitlines())) == [b'{"a":null}', b'{"b":null}']
    assert rules.apply(text, input_lines=True) == b'{"a":null}\n{"b":null}\n'


def test_an_mmap_is_refused_too(tmp_path):
    import mmap

    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"[1]\n[2]\n")
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        with pytest.raises(TypeError, match="not one mmap"):
            reshape.Rules([]).apply_lines(mapped)
        assert reshape.Rules([]).apply(mapped, input_lines=True) == b"[1]\n[2]\n"
