"""python -m reshape: the CLI's commands, flags, messages and exit statuses.

The expectations are what the CLI built from the repository prints (Sources/ReshapeCLI), written
out here; when that CLI is built (.build/release/reshape, or $RESHAPE_CLI), the last tests also
run both on the same arguments and compare every byte.
"""

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import pytest

import reshape
from conftest import REPOSITORY
from reshape import _cli

HERE = Path(__file__).resolve().parent
SWIFT_CLI = Path(os.environ.get("RESHAPE_CLI") or REPOSITORY / ".build" / "release" / "reshape")

# What each argument list gives: (standard output, standard error, exit status). The files are
# made by the `folder` fixture below.
USAGE = " (see 'reshape --help')"
CASES: List[Tuple[Sequence[str], str, str, int]] = [
    (["--rules", "r.json", "in.json"], '{"k":[1]}', "", 0),
    (["apply", "--rules", "r.json", "in.json"], '{"k":[1]}', "", 0),
    (["--rules=r.json", "in.json", "-o", "-"], '{"k":[1]}', "", 0),
    (["--rules", "r.json", "--pretty", "in.json"], '{\n  "k": [\n    1\n  ]\n}', "", 0),
    (["--rules", "r.json", "--output-lines", "in.json"], "1\n", "", 0),
    (["--rules", "r.json", "--jobs", "+3", "in.json"], '{"k":[1]}', "", 0),
    (["--rules", "r.json", "--rules", "r.json", "--pretty", "--pretty", "in.json", "--"], '{\n  "k": [\n    1\n  ]\n}', "", 0),
    (["--rules", "r.json", "--input-lines", "lines.jsonl"], '{"k":{"a":1}}\n', "", 0),
    (["--rules", "r.json", "--input-lines", "--skip-invalid-lines", "bad-lines.jsonl"], '{"k":{"a":1}}\n{"k":{"b":2}}\n',
     "reshape: skipped an invalid line: invalid_json: line 2, column 1: invalid literal, expected 'null'", 0),
    ([], "", "reshape: invalid_argument: Missing expected argument '--rules <RULES.json>'" + USAGE, 2),
    (["--bogus"], "", "reshape: invalid_argument: Missing expected argument '--rules <RULES.json>'" + USAGE, 2),
    (["--rules"], "", "reshape: invalid_argument: Missing value for '--rules <RULES.json>'" + USAGE, 2),
    (["--rules", "r.json", "-o"], "", "reshape: invalid_argument: Missing value for '-o <FILE>'" + USAGE, 2),
    (["--rules", "r.json", "--jobs", "-1", "in.json"], "", "reshape: invalid_argument: Missing value for '--jobs <N>'" + USAGE, 2),
    (["--rules", "r.json", "--jobs=-1", "--bogus"], "", "reshape: invalid_argument: --jobs must be 0 or more" + USAGE, 2),
    (["--rules", "r.json", "--jobs", "x"], "", "reshape: invalid_argument: The value 'x' is invalid for '--jobs <N>'" + USAGE, 2),
    (["--rules", "r.json", "--jobs", "99999999999999999999"], "",
     "reshape: invalid_argument: The value '99999999999999999999' is invalid for '--jobs <N>'" + USAGE, 2),
    (["--rules", "r.json", "--bogus", "a", "b"], "",
     "reshape: invalid_argument: Unknown option '--bogus'. Did you mean '--jobs'?" + USAGE, 2),
    (["--rules", "r.json", "--progres", "in.json"], "",
     "reshape: invalid_argument: Unknown option '--progres'. Did you mean '--progress'?" + USAGE, 2),
    (["--rules", "r.json", "-x", "in.json"], "", "reshape: invalid_argument: Unknown option '-x'" + USAGE, 2),
    (["--rules", "r.json", "-oout.json", "in.json"], "", "reshape: invalid_argument: Unknown option '-oout.json'" + USAGE, 2),
    (["--rules", "r.json", "in.json", "extra"], "", "reshape: invalid_argument: Unexpected argument 'extra'" + USAGE, 2),
    (["--rules", "r.json", "a", "b", "c"], "", "reshape: invalid_argument: 2 unexpected arguments: 'b', 'c'" + USAGE, 2),
    (["--rules", "r.json", "--pretty", "--output-lines", "in.json"], "",
     "reshape: invalid_argument: pretty output cannot be JSON Lines" + USAGE, 2),
    (["--rules", "r.json", "--skip-invalid-lines", "in.json"], "",
     "reshape: invalid_argument: skipping invalid lines needs JSON Lines input" + USAGE, 2),
    (["--rules", "r.json", "missing.json"], "", "reshape: io_error: cannot read input file 'missing.json': No such file or directory", 2),
    (["--rules", "r.json", "--", "-x"], "", "reshape: io_error: cannot read input file '-x': No such file or directory", 2),
    (["--rules", "r.json", "check"], "", "reshape: io_error: cannot read input file 'check': No such file or directory", 2),
    (["--rules", "r.json", "sub"], "", "reshape: io_error: cannot read input file 'sub': Is a directory", 2),
    (["--rules", "missing.json", "in.json"], "", "reshape: io_error: cannot read rules file 'missing.json': No such file or directory", 2),
    (["--rules", "r.json", "in.json", "-o", "no/x.json"], "",
     "reshape: io_error: cannot write output file 'no/x.json': No such file or directory", 2),
    (["--rules", "r.json", "in.json", "-o", "/dev/full"], "",
     "reshape: io_error: cannot write output file '/dev/full': No space left on device", 2),
    (["--rules", "bad.json", "in.json"], "", 'reshape: invalid_rules: unknown member "op" in the rules document', 2),
    (["--rules", "hello.txt", "in.json"], "", "reshape: invalid_rules: line 1, column 1: expected a value, found 'h'", 2),
    (["--rules", "k.json", "in.json"], "",
     "reshape: rule_failed: rule 1 (keyedToArray) at $[0]: expected an object, found a number", 1),
    (["--rules", "r.json", "-"], "", "reshape: invalid_json: line 1, column 1: empty input", 1),
    (["--rules", "r.json", "--output-lines", "obj.json"], "",
     "reshape: invalid_argument: JSON Lines output needs the result to be an array, or an object whose one member is an "
     "array", 2),
    (["check", "r.json"], "r.json: ok, 1 rule: wrap\n"
     "records: the members of the object at $, or the elements of the array there\n"
     'rule 1 (wrap "k") runs per record\n', "", 0),
    (["check", "two.json"], "two.json: ok, 2 rules: keyedToArray, convertKeys\n"
     "records, when $ is an object: its members\n"
     "  rule 1 (keyedToArray $) runs per record\n"
     "  rule 2 (convertKeys $) runs per record\n"
     "records, when $ is an array: its elements\n"
     "  rule 1 (keyedToArray $) needs the whole document: keyedToArray on an array numbers the records by position\n"
     "  rule 2 (convertKeys $) runs on the whole document, after rule 1\n", "", 0),
    (["check", "e.json"], "e.json: ok, 0 rules\nrecords: the members of the object at $, or the elements of the array there\n",
     "", 0),
    (["check"], "", "reshape: invalid_argument: Missing expected argument '<RULES.json>'" + USAGE, 2),
    (["check", "--rules", "r.json"], "", "reshape: invalid_argument: Unknown option '--rules'" + USAGE, 2),
    (["check", "a", "b"], "", "reshape: invalid_argument: Unexpected argument 'b'" + USAGE, 2),
    (["check", "missing.json"], "", "reshape: io_error: cannot read rules file 'missing.json': No such file or directory", 2),
    (["check", "bad.json"], "", 'reshape: invalid_rules: unknown member "op" in the rules document', 2),
    (["--version"], reshape.__version__ + "\n", "", 0),
    (["--rules", "r.json", "in.json", "--version"], reshape.__version__ + "\n", "", 0),
    (["--help"], _cli.ROOT_HELP, "", 0),
    (["help"], _cli.ROOT_HELP, "", 0),
    (["help", "bogus"], _cli.ROOT_HELP, "", 0),
    (["help", "check"], _cli.CHECK_HELP, "", 0),
    (["check", "--help"], _cli.CHECK_HELP, "", 0),
    (["apply", "--help"], _cli.APPLY_HELP, "", 0),
    (["--bogus", "-h"], _cli.APPLY_HELP, "", 0),
    (["trace", "--rules", "k.json", "keyed.json", "$[0].first_name"], "$['-Nx1']['first_name'], line 1, column 25\n", "", 0),
    (["trace", "--rules", "k.json", "keyed.json", "$[0].id", "--json"],
     '{"origin":"memberName","path":"$[\'-Nx1\']","line":1,"column":2,"position":1,"rule":1,"op":"keyedToArray",'
     '"renames":[],"description":"the member name of $[\'-Nx1\'], line 1, column 2, by rule 1 (keyedToArray)"}\n', "", 0),
    (["trace", "--rules", "two.json", "keyed.json", "$[0].firstName"],
     "$['-Nx1']['first_name'], line 1, column 25, renamed by rule 2 (convertKeys) from \"first_name\"\n", "", 0),
    (["trace", "--rules", "k.json", "keyed.json", "$..id"], "",
     "reshape: invalid_argument: path \"$..id\" may select several values; give one value's path", 2),
    (["trace", "--rules", "k.json", "in.json", "$[0]"], "",
     "reshape: rule_failed: rule 1 (keyedToArray) at $[0]: expected an object, found a number", 1),
    (["trace", "--rules", "k.json", "missing.json", "$"], "",
     "reshape: io_error: cannot read input file 'missing.json': No such file or directory", 2),
    (["trace", "--rules", "k.json", "keyed.json"], "", "reshape: invalid_argument: Missing expected argument '<PATH>'" + USAGE, 2),
    (["trace", "keyed.json", "$"], "", "reshape: invalid_argument: Missing expected argument '--rules <RULES.json>'" + USAGE, 2),
    (["trace", "--rules", "k.json", "keyed.json", "$", "x"], "", "reshape: invalid_argument: Unexpected argument 'x'" + USAGE, 2),
    (["help", "trace"], _cli.TRACE_HELP, "", 0),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    files = {
        "r.json": b'[{"op": "wrap", "key": "k"}]', "k.json": b'[{"op": "keyedToArray"}]', "e.json": b"[]",
        "keyed.json": b'{"-Nx1": {"first_name": "Ada"}}',
        "two.json": b'{"rules": [{"op": "keyedToArray"}, {"op": "convertKeys"}]}', "bad.json": b'{"op": "wrap"}',
        "hello.txt": b"hello\n", "in.json": b"[1]", "obj.json": b'{"a": [1], "b": [2]}',
        "lines.jsonl": b'{"a": 1}\n', "bad-lines.jsonl": b'{"a": 1}\nnot json\n{"b": 2}\n',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "sub").mkdir()
    return tmp_path


# The package this interpreter imports, also from another working directory.
ENVIRONMENT = dict(os.environ, PYTHONPATH=os.pathsep.join(
    [str(Path(reshape.__file__).resolve().parents[1])] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))


def run(command: Sequence[str], arguments: Sequence[str], folder: Path, stdin: bytes = b"") -> Tuple[str, str, int]:
    result = subprocess.run([*command, *arguments], cwd=folder, input=stdin, capture_output=True, env=ENVIRONMENT)
    return result.stdout.decode(), result.stderr.decode(), result.returncode


PYTHON = [sys.executable, "-m", "reshape"]


def test_the_cases(folder: Path):
    # One process per case: the command writes to its own descriptors 1 and 2.
    failures = []
    for arguments, out, err, status in CASES:
        got = run(PYTHON, arguments, folder)
        expected = (out, err + "\n" if err else "", status)
        if got != expected:
            failures.append((arguments, got, expected))
    assert failures == []
    assert not (folder / "no").exists()


def test_errors_go_one_line_to_standard_error_and_the_output_file_is_kept(folder: Path):
    (folder / "out.json").write_bytes(b"previous")
    assert run(PYTHON, ["--rules", "k.json", "in.json", "-o", "out.json"], folder)[1:] == (
        "reshape: rule_failed: rule 1 (keyedToArray) at $[0]: expected an object, found a number\n", 1)
    assert (folder / "out.json").read_bytes() == b"previous"
    assert run(PYTHON, ["--rules", "r.json", "in.json", "-o", "out.json"], folder) == ("", "", 0)
    assert (folder / "out.json").read_bytes() == b'{"k":[1]}'


def test_standard_input_and_output(folder: Path):
    assert run(PYTHON, ["--rules", "r.json"], folder, stdin=b'{"a": 2}') == ('{"k":{"a":2}}', "", 0)
    assert run(PYTHON, ["--rules", "r.json", "-", "-o", "from-stdin.json"], folder, stdin=b'{"a": 3}') == ("", "", 0)
    assert (folder / "from-stdin.json").read_bytes() == b'{"k":{"a":3}}'
    assert run(PYTHON, ["--rules", "r.json", "-"], folder, stdin=b"{") == (
        "", "reshape: invalid_json: at $, line 1, column 2: unexpected end of input, expected a member name\n", 1)
    lines = b'{"a": 1}\n\n{"b": 2}\n'
    assert run(PYTHON, ["--rules", "r.json", "--input-lines", "--jobs", "2"], folder, stdin=lines) == (
        '{"k":{"a":1}}\n{"k":{"b":2}}\n', "", 0)


def test_a_closed_pipe_downstream_ends_the_command_quietly(folder: Path):
    # As the CLI: killed by SIGPIPE (`reshape ... | head` prints nothing more), not an io_error.
    big = b"{" + b",".join(b'"k%d": {"v": "%s"}' % (i, b"x" * 100) for i in range(100_000)) + b"}"
    (folder / "big.json").write_bytes(big)
    process = subprocess.Popen([*PYTHON, "--rules", "k.json", "big.json"], cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=ENVIRONMENT)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10) == b'[{"id":"k0'
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait(timeout=60) == -signal.SIGPIPE
    assert error == b""


def test_progress_draws_the_clis_bar(folder: Path):
    out, err, status = run(PYTHON, ["--rules", "r.json", "--progress", "in.json"], folder)
    assert (out, status) == ('{"k":[1]}', 0)
    # Not a terminal: lines follow each other with carriage returns, and the last ends the line.
    assert re.fullmatch(r"(\r\[[#-]{24}\] +\d+%  \d+\.\d/\d+\.\d MB  \d+\.\d MB/s  \d+:\d\d left)+\n", err), repr(err)
    assert err.endswith("\r[########################] 100%  0.0/0.0 MB  0.0 MB/s  0:00 left\n")
    assert run(PYTHON, ["--rules", "r.json", "--progress", "--no-progress", "in.json"], folder) == ('{"k":[1]}', "", 0)


def test_the_bar_formats_as_the_cli_does():
    assert [_cli._tenths(value) for value in (0, 0.05, 0.15, 12.34, 99.96, float("nan"), -1, 1e16)] == [
        "0.0", "0.1", "0.2", "12.3", "100.0", "0.0", "0.0", "0.0"]
    assert [_cli._clock(value) for value in (0, 0.2, 59.5, 60, 61, 3599.1, float("inf"))] == [
        "0:00", "0:01", "1:00", "1:00", "1:01", "60:00", "0:00"]


def test_options_are_checked_as_the_library_checks_them():
    # The command checks them before it reads any input, with the library's words.
    rules = reshape.Rules([])
    for options in ({"pretty": True, "input_lines": True}, {"pretty": True, "output_lines": True},
                    {"skip_invalid_lines": True}):
        full = {**dict(pretty=False, allow_duplicate_keys=False, input_lines=False, output_lines=False,
                       skip_invalid_lines=False), **options}
        with pytest.raises(reshape.InvalidArgument) as caught:
            rules.apply(b"[]", **options)
        assert str(caught.value) == f"invalid_argument: {_cli._options_problem(full)}"
    assert _cli._options_problem(dict(pretty=True, allow_duplicate_keys=True, input_lines=False, output_lines=False,
                                      skip_invalid_lines=False)) is None


def test_main_returns_the_status_in_process(capsys):
    assert _cli.main(["--version"]) == 0
    assert _cli.main(["check", "--bogus"]) == 2
    captured = capsys.readouterr()
    assert captured.out == reshape.__version__ + "\n"


# ----------------------------------------------------------------------------------------------
# Against the CLI itself, when it is built


needs_swift_cli = pytest.mark.skipif(not SWIFT_CLI.exists(), reason=f"the CLI is not built at {SWIFT_CLI} "
                                     "(swift build -c release --traits CLI --product reshape, or set RESHAPE_CLI)")


@needs_swift_cli
def test_every_case_gives_what_the_cli_gives(folder: Path):
    failures = []
    for arguments, _, _, _ in CASES:
        ours, theirs = run(PYTHON, arguments, folder), run([str(SWIFT_CLI)], arguments, folder)
        if ours != theirs:
            failures.append((arguments, ours, theirs))
    assert failures == []
