"""What Rules() takes: JSON text as str or bytes (a byte order mark allowed), Python lists and
dicts, a path-like object; a str is never taken for a path, and Rules.from_file reads a file."""

import codecs
import json
import os
import pickle
from pathlib import Path

import pytest

import reshape

RULES = [{"op": "wrap", "key": "k"}]
TEXT = json.dumps(RULES)


def test_json_text_with_or_without_a_byte_order_mark():
    for spec in (TEXT, "\ufeff" + TEXT, " \n" + TEXT, TEXT.encode(), codecs.BOM_UTF8 + TEXT.encode(),
                 bytearray(codecs.BOM_UTF8 + TEXT.encode()), memoryview(TEXT.encode())):
        rules = reshape.Rules(spec)
        assert rules.apply(b"[1]") == b'{"k":[1]}', spec
        assert rules.document == RULES
        assert pickle.loads(pickle.dumps(rules)).apply(b"[1]") == b'{"k":[1]}'


def test_a_str_is_never_read_as_a_path(tmp_path: Path, monkeypatch):
    (tmp_path / "rules.json").write_text(TEXT)
    monkeypatch.chdir(tmp_path)  # the file exists, under the very name given: still JSON text
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules("rules.json")
    error = caught.value
    assert str(error) == ("invalid_rules: line 1, column 1: expected a value, found 'r'; Rules() reads a str or bytes "
                          "as JSON text: to read a file, use Rules.from_file('rules.json')")
    assert (error.line, error.column, error.position, error.rule) == (1, 1, 0, 0)
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules(b"rules.json")
    assert str(caught.value).endswith("; Rules() reads a str or bytes as JSON text: to read a file, use "
                                      "Rules.from_file(b'rules.json')")
    long = "/" + "x" * 300
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules(long)
    assert str(caught.value).endswith("to read a file, use Rules.from_file(path)")


def test_json_that_is_wrong_gets_no_hint_about_files():
    for spec, message in (("[", "invalid_rules: at $[0], line 1, column 2: unexpected end of input, expected a value"),
                          ("", "invalid_rules: line 1, column 1: empty input"),
                          ("\ufeff {", "invalid_rules: at $, line 1, column 4: unexpected end of input, expected a "
                                       "member name"),
                          ('[{"op": "nope"}]', 'invalid_rules: rule 1 (nope): unknown op "nope"; ops are unwrap, wrap')):
        with pytest.raises(reshape.InvalidRules) as caught:
            reshape.Rules(spec)
        assert str(caught.value).startswith(message) and "from_file" not in str(caught.value), spec


def test_from_file_and_path_like_objects_read_the_file(tmp_path: Path):
    path = tmp_path / "rules.json"
    path.write_bytes(codecs.BOM_UTF8 + b'{"rules": ' + TEXT.encode() + b"}")
    for rules in (reshape.Rules.from_file(path), reshape.Rules.from_file(str(path)),
                  reshape.Rules.from_file(os.fsencode(path)), reshape.Rules(path),
                  reshape.Rules.from_file(path, limits=reshape.Limits(max_depth=3))):
        assert type(rules) is reshape.Rules
        assert rules.apply(b"[1]") == b'{"k":[1]}'
        assert rules.document == {"rules": RULES}
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules.from_file(path, limits=reshape.Limits(max_depth=2))
    assert caught.value.line == 1
    with pytest.raises(TypeError, match="path must be a str, bytes or os.PathLike, not int"):
        reshape.Rules.from_file(3)  # type: ignore[arg-type]


def test_from_file_reads_a_pipe_to_its_end(tmp_path: Path):
    read_end, write_end = os.pipe()
    with open(write_end, "wb") as pipe:
        pipe.write(TEXT.encode())
    try:
        assert reshape.Rules.from_file(f"/dev/fd/{read_end}").ops == ("wrap",)
    finally:
        os.close(read_end)


def test_other_types_are_type_errors():
    for spec in (42, 1.5, None, object()):
        with pytest.raises(TypeError, match="rules must be a list, a dict, JSON text"):
            reshape.Rules(spec)  # type: ignore[arg-type]


def test_one_rule_alone_says_to_wrap_it_in_a_list():
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules({"op": "keyedToArray", "idKey": "uid"})
    error = caught.value
    assert str(error) == ('invalid_rules: unknown member "op" in the rules document; a rules document is a list of '
                          'rules: wrap one rule in a list, Rules([{"op": "keyedToArray", ...}])')
    assert (error.rule, error.line, error.status) == (0, 0, 2)
    # What it proposes works, and the same rule inside {"rules": [...]} too.
    assert reshape.Rules([{"op": "keyedToArray", "idKey": "uid"}]).apply(b'{"a": {}}') == b'[{"uid":"a"}]'
    assert reshape.Rules({"rules": [{"op": "keyedToArray"}]}).ops == ("keyedToArray",)
    # An op that is not a short string is not repeated; the message stays one safe line.
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules({"op": "x\n" * 30})
    assert str(caught.value).endswith("wrap one rule in a list, Rules([{\"op\": ..., ...}])")
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules({"op": "a\u202eb"})
    assert "\n" not in str(caught.value) and "\u202e" not in str(caught.value)
    # JSON text keeps the library's words, as every binding and the CLI give them.
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules('{"op": "wrap", "key": "k"}')
    assert str(caught.value) == 'invalid_rules: unknown member "op" in the rules document'
