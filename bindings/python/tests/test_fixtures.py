"""Every case of Tests/Fixtures through the binding: exact bytes, or the exact error."""

import pytest

import reshape
from conftest import load_fixtures, same_or_truncated

FIXTURES = load_fixtures()
ERROR_CLASSES = {
    "invalid_json": reshape.InvalidJSON,
    "invalid_rules": reshape.InvalidRules,
    "rule_failed": reshape.RuleFailed,
    "limit_exceeded": reshape.LimitExceeded,
    "invalid_argument": reshape.InvalidArgument,
    "out_of_memory": reshape.OutOfMemory,
    "internal": reshape.InternalError,
}


def test_there_are_fixtures():
    assert len(FIXTURES) >= 60


@pytest.mark.parametrize("fixture", FIXTURES, ids=[fixture.name for fixture in FIXTURES])
def test_fixture(fixture):
    try:
        rules = reshape.Rules(fixture.rules)
        if fixture.extra_flags:
            output = rules._apply(fixture.input, fixture.flags)  # flags the public API cannot spell
        else:
            output = rules.apply(fixture.input, pretty=fixture.pretty, allow_duplicate_keys=fixture.allow_duplicate_keys)
    except reshape.ReshapeError as error:
        expected = fixture.error
        assert expected is not None, f"unexpected error: {error}"
        assert type(error) is ERROR_CLASSES[expected["code"]]
        assert error.code == expected["code"]
        assert error.rule == expected["rule"]
        assert same_or_truncated(error.path, expected["path"]), error.path
        assert (error.line, error.column, error.position) == (expected["line"], expected["column"], expected["position"])
        assert same_or_truncated(str(error), expected["description"]), str(error)
    else:
        assert fixture.expected is not None, f"expected an error, got {output!r}"
        assert output == fixture.expected
