"""rules.explain and `python -m reshape explain`: the library's explanation, as the CLI prints it."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import reshape
from conftest import REPOSITORY

SWIFT_CLI = Path(os.environ.get("RESHAPE_CLI") or REPOSITORY / ".build" / "release" / "reshape")
FIXTURES = REPOSITORY / "Tests" / "Fixtures"


def _timeless(text: str) -> str:
    """The explanation without each rule's share of the time, which varies from run to run."""
    return re.sub(r"; (<1|\d+)% of the time\n", "\n", text + "\n")


def test_what_each_rule_did():
    rules = reshape.Rules([{"op": "keyedToArray"}, {"op": "convertKeys", "to": "camelCase"}])
    found = rules.explain('{"-Nx1": {"first_name": "Ada"}}')
    assert [rule["op"] for rule in found.rules] == ["keyedToArray", "convertKeys"]
    assert found.rules[1]["examples"] == [{"change": "renamed", "path": "$[0]['firstName']",
                                           "input": "$['-Nx1']['first_name']", "before": '"first_name"',
                                           "after": '"firstName"'}]
    assert (found.rules[1]["selected"], found.rules[1]["changed"], found.rules[1]["changes"]) == (1, 1, 1)
    assert found.failure is None and found.not_run == []
    assert _timeless(str(found)).splitlines()[0] == "rule 1 (keyedToArray $): selected 1, changed 1 (3 changes); per record"
    assert abs(sum(rule["share"] for rule in found.rules) - 1) < 1e-9


def test_a_failing_rule_is_in_the_explanation_not_raised():
    rules = reshape.Rules([{"op": "keyedToArray"}, {"op": "coerce", "path": "$[*].age", "to": "integer"},
                           {"op": "wrap", "key": "x"}])
    found = rules.explain('{"u1": {"age": "x"}}')
    assert len(found.rules) == 1
    assert found.failure is not None and found.failure["code"] == "rule_failed" and found.failure["path"] == "$[0]['age']"
    assert found.failure["message"].endswith("(input: $['u1']['age'], line 1, column 16)")
    assert found.not_run == ['wrap "x"']


def test_invalid_json_raises():
    with pytest.raises(reshape.InvalidJSON):
        reshape.Rules([]).explain("{")


@pytest.mark.parametrize("name", ["api-firebase-export", "api-github-issues", "keyed-non-object-member-error"])
def test_python_m_reshape_explain_prints_what_the_cli_prints(name: str):
    folder = FIXTURES / name
    arguments = ["explain", "--rules", str(folder / "rules.json"), str(folder / "input.json")]
    mine = subprocess.run([sys.executable, "-m", "reshape", *arguments], capture_output=True, text=True)
    assert mine.returncode == 0, mine.stderr
    library = reshape.Rules(folder / "rules.json").explain((folder / "input.json").read_bytes())
    assert _timeless(mine.stdout) == _timeless(str(library) + "\n")
    as_json = subprocess.run([sys.executable, "-m", "reshape", *arguments, "--json"], capture_output=True, text=True)
    assert json.loads(as_json.stdout)["notRun"] == library.not_run
    if not SWIFT_CLI.exists():
        pytest.skip("the reshape CLI is not built (swift build -c release --traits CLI --product reshape, or set RESHAPE_CLI)")
    cli = subprocess.run([str(SWIFT_CLI), *arguments], capture_output=True, text=True)
    assert (cli.returncode, _timeless(cli.stdout), cli.stderr) == (mine.returncode, _timeless(mine.stdout), mine.stderr)


def test_the_docstring_example_holds():
    import doctest

    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(reshape.Rules.explain, globs={"Rules": reshape.Rules}):
        runner.run(test)
    assert runner.summarize(verbose=False).attempted > 0
    assert runner.summarize(verbose=False).failed == 0
