"""The op reference is in the package (reshape.ops), complete, and its examples run."""

import doctest
import re

import pytest

import reshape
from conftest import REPOSITORY


def known_ops():
    """The ops the library knows, as it lists them for an unknown op."""
    with pytest.raises(reshape.InvalidRules) as caught:
        reshape.Rules([{"op": "nope"}])
    listed = re.search(r"ops are (.*)$", str(caught.value))
    assert listed, str(caught.value)
    return listed.group(1).split(", ")


def sections():
    """reshape.ops's docstring, by op: the text under each underlined op name."""
    text = reshape.ops.__doc__ or ""
    parts = re.split(r"^(\w+)\n-+\n", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_examples_run_as_written():
    results = doctest.testmod(reshape.ops, optionflags=doctest.ELLIPSIS)
    assert results.failed == 0
    assert results.attempted >= 1 + len(known_ops())


def test_every_op_the_library_knows_has_a_section_with_an_example():
    ops = known_ops()
    assert len(ops) == 17
    found = sections()
    assert [name for name in found if name != "Paths"] == ops, "in the library's order"
    for op in ops:
        assert f'"op": "{op}"' in found[op], f"{op} has no example"
        assert op in reshape.Rules.__doc__, f"the Rules docstring does not name {op}"


def test_every_param_of_docs_rules_md_is_described():
    # docs/rules.md is the reference in the repository; the package's must not lose a param.
    text = (REPOSITORY / "docs" / "rules.md").read_text(encoding="utf-8")
    documented = re.split(r"^### `(\w+)`\n", text, flags=re.MULTILINE)
    found = sections()
    checked = 0
    for op, body in zip(documented[1::2], documented[2::2]):
        params = re.findall(r"^\| `(\w+)` \|", body.split("\n## ")[0], flags=re.MULTILINE)
        assert params, op
        for param in params:
            assert f"- ``{param}`` (" in found[op], f"{op}: param {param} is not described in reshape.ops"
            checked += 1
    assert checked >= 25


def test_the_package_sends_readers_to_reshape_ops_not_to_a_repository():
    assert "help(reshape.ops)" in (reshape.__doc__ or "") and "help(reshape.ops)" in (reshape.Rules.__doc__ or "")
    for value in (reshape, reshape.Rules, reshape.Rules.__init__, reshape.apply):
        assert "docs/rules.md" not in (value.__doc__ or ""), value
