"""reshape.infer on samples of real APIs (written from their public docs, shared with the Swift
suite): the rules and the Python types proposed from one sample type that sample and a second,
different one of the same API, reshaped by those rules, as `mypy --strict` and a check of every
value at run time both say; and the same answers come from the library, `python -m reshape infer`
and the `reshape` CLI."""

import importlib.util
import json
import os
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import pytest

import reshape
from conftest import REPOSITORY

SWIFT_CLI = Path(os.environ.get("RESHAPE_CLI") or REPOSITORY / ".build" / "release" / "reshape")

# (first sample, second sample, root type, options): the Swift suite's cases (InferTests.swift).
CASES: List[Tuple[str, str, str, Dict[str, Any]]] = [
    ("examples/firebase-users/users.json", "Tests/InferSamples/firebase-users.json", "Users", {"name": "users"}),
    ("Tests/Fixtures/api-firebase-export/input.json", "Tests/InferSamples/firebase-export.json", "FirebaseExport", {}),
    ("Tests/Fixtures/api-github-issues/input.json", "Tests/InferSamples/github-issues.json", "Issues",
     {"objects": ["$[*].user"]}),
    ("Tests/Fixtures/api-hacker-news-items/input.json", "Tests/InferSamples/hacker-news-items.json", "Items", {}),
    ("Tests/Fixtures/api-json-api-document/input.json", "Tests/InferSamples/json-api-document.json", "Articles", {}),
    ("Tests/Fixtures/api-reddit-listing/input.json", "Tests/InferSamples/reddit-listing.json", "Listing", {"unwrap": True}),
    ("Tests/Fixtures/api-stripe-list/input.json", "Tests/InferSamples/stripe-list.json", "Customers",
     {"maps": ["$.data[*].metadata"]}),
    ("Tests/Fixtures/api-wordpress-posts/input.json", "Tests/InferSamples/wordpress-posts.json", "Posts",
     {"keys": "snake_case"}),
]


def _infer(case: Tuple[str, str, str, Dict[str, Any]]) -> reshape.Inference:
    first, _, _, options = case
    return reshape.infer([(REPOSITORY / first).read_bytes()], **options)


def _conforms(value: Any, annotation: Any, path: str) -> None:
    """Asserts that `value` is what `annotation` (a generated type) allows, naming the place."""
    if annotation is Any:
        return
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        problems = []
        for option in typing.get_args(annotation):
            try:
                _conforms(value, option, path)
                return
            except AssertionError as problem:
                problems.append(str(problem))
        raise AssertionError(f"{path}: none of {annotation} holds {value!r}: {problems}")
    if annotation is type(None):
        assert value is None, f"{path}: expected null, found {value!r}"
    elif origin is list:
        assert isinstance(value, list), f"{path}: expected an array, found {value!r}"
        (element,) = typing.get_args(annotation)
        for index, item in enumerate(value):
            _conforms(item, element, f"{path}[{index}]")
    elif origin is dict:
        assert isinstance(value, dict), f"{path}: expected an object, found {value!r}"
        _, member = typing.get_args(annotation)
        for key, item in value.items():
            _conforms(item, member, f"{path}[{key!r}]")
    elif typing.is_typeddict(annotation):
        assert isinstance(value, dict), f"{path}: expected an object, found {value!r}"
        hints = typing.get_type_hints(annotation)
        missing = annotation.__required_keys__ - value.keys()
        assert not missing, f"{path}: missing {sorted(missing)}"
        unknown = value.keys() - hints.keys()
        assert not unknown, f"{path}: members the type lacks: {sorted(unknown)}"
        for key, item in value.items():
            _conforms(item, hints[key], f"{path}[{key!r}]")
    elif annotation is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{path}: expected a number, found {value!r}"
    elif annotation is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{path}: expected an integer, found {value!r}"
    else:
        assert isinstance(value, annotation), f"{path}: expected {annotation.__name__}, found {value!r}"


def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_types_pass_mypy_strict_and_hold_both_samples(tmp_path: Path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        raise AssertionError("mypy is needed: scripts/test installs it into the test virtualenv (pip install mypy)")
    uses = ["import json", "from typing import cast", "import reshape"]
    for first, second, root, options in CASES:
        found = _infer((first, second, root, options))
        module = f"inferred_{root.lower()}"
        (tmp_path / f"{module}.py").write_text(found.python(root=root))
        rules = json.dumps(found.rules)
        uses += [f"import {module}",
                 f"{module}_value: {module}.{root} = cast({module}.{root}, reshape.Rules(json.loads({rules!r}))"
                 f".apply_loads(open({str(REPOSITORY / second)!r}, 'rb').read()))"]
        # At run time: both samples, reshaped by the rules, are what the types say.
        types_module = _load(tmp_path / f"{module}.py", module)
        annotation = getattr(types_module, root)
        for sample in (first, second):
            output = reshape.Rules(found.rules).apply_loads((REPOSITORY / sample).read_bytes())
            _conforms(output, annotation, f"{root} of {sample}: $")
    (tmp_path / "use_inferred.py").write_text("\n".join(uses) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull, "use_inferred.py",
         *sorted(path.name for path in tmp_path.glob("inferred_*.py"))],
        capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found in 9 source files" in result.stdout


def test_a_sample_the_types_do_not_allow_is_caught():
    """The run-time check above can fail: a member of the wrong type is named with its place."""
    found = reshape.infer(['{"-NxA1b2C3d4E5f6G7h8I": {"age": 3}}'], name="users")
    namespace: Dict[str, Any] = {}
    exec(found.python(root="Users"), namespace)
    output = reshape.Rules(found.rules).apply_loads('{"-NxB9z8Y7x6W5v4U3t2S": {"age": "three"}}')
    with pytest.raises(AssertionError, match=r"\$\['users'\]\[0\]\['age'\]: expected an integer, found 'three'"):
        _conforms(output, namespace["Users"], "$")


def test_rules_and_reasons():
    found = reshape.infer([(REPOSITORY / "examples/firebase-users/users.json").read_bytes()], name="users", id_key="uid")
    assert found.rules == [
        {"op": "keyedToArray", "path": "$.*.devices", "idKey": "uid"},
        {"op": "keyedToArray", "idKey": "uid", "wrapIn": "users"},
        {"op": "blankStringToNull", "path": "$.users[*]['plan','balance']"},
        {"op": "blankStringToNull", "path": "$.users[*].devices[*].push_token"},
        {"op": "emptyObjectToNull", "path": "$.users[*].avatar"},
        {"op": "coerce", "path": "$.users[*].balance", "to": "number"},
        {"op": "convertKeys", "to": "camelCase"},
    ]
    assert [reason.op for reason in found.reasons] == [rule["op"] for rule in found.rules]
    assert str(found.reasons[0]) == ("rule 1 (keyedToArray): $.*.devices is a keyed collection: 2 members over 1 "
                                     "object, all objects of one shape, names are Firebase-style keys (score 0.80)")
    # Samples may be values json.loads made, too.
    again = reshape.infer([json.loads((REPOSITORY / "examples/firebase-users/users.json").read_bytes())],
                          name="users", id_key="uid")
    assert again.rules == found.rules


def test_a_text_sample_is_one_document():
    """Two documents in one text are not two samples (the library gets one JSON array of them)."""
    with pytest.raises(reshape.InvalidJSON) as raised:
        reshape.infer(['{"a_b": 1}, {"c_d": 2}'])
    assert raised.value.position == 10


def test_types_for_another_root_and_back():
    found = reshape.infer(['{"-NxA1b2C3d4E5f6G7h8I": {"first_name": "Ada"}}'], name="users")
    first = found.python()
    assert "class Root(TypedDict):" in first
    assert "class Users(TypedDict):" in found.python(root="Users") and "struct Users:" in found.swift(root="Users")
    assert found.python() == first and found.python(root="Root") == first


def test_output_files_are_replaced_as_the_cli_replaces_them(tmp_path: Path):
    """A symbolic link's target is replaced and the link stays; the file keeps its permissions."""
    target = tmp_path / "real-rules.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "rules.json"
    link.symlink_to(target.name)
    sample = REPOSITORY / "examples/firebase-users/users.json"
    result = subprocess.run([sys.executable, "-m", "reshape", "infer", str(sample), "-o", str(link)], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == target.name
    assert json.loads(target.read_text()) == reshape.infer([sample.read_bytes()], name="users").rules
    assert target.stat().st_mode & 0o777 == 0o640
    assert [path.name for path in tmp_path.iterdir() if ".tmp" in path.name] == []


@pytest.mark.parametrize("samples, options, kind, message", [
    ([], {}, reshape.InvalidArgument, "infer needs at least one sample"),
    (["{"], {}, reshape.InvalidJSON, None),
    (["{}"], {"keys": "UPPER"}, reshape.InvalidArgument, "options.keys must be"),
    (["{}"], {"maps": ["$.a"]}, reshape.InvalidArgument, '--map "$.a" selects no object or array in the samples'),
    (["{}"], {"objects": ["$[?@.a]"]}, reshape.InvalidArgument, "only names, indices and wildcards"),
    (['{"a_b": 1, "aB": 2}'], {}, reshape.RuleFailed, "the proposed rules fail on sample 1"),
])
def test_errors(samples: Sequence[str], options: Dict[str, Any], kind: type, message: Any):
    with pytest.raises(kind) as raised:
        reshape.infer(samples, **options)
    if message:
        assert message in str(raised.value)


def _cli_arguments(case: Tuple[str, str, str, Dict[str, Any]], folder: Path) -> List[str]:
    first, _, root, options = case
    arguments = ["infer", str(REPOSITORY / first), "--root", root, "--swift", str(folder / "types.swift"),
                 "--python", str(folder / "types.py"), "-o", str(folder / "rules.json")]
    for key, flag in (("name", "--name"), ("keys", "--keys")):
        if key in options:
            arguments += [flag, options[key]]
    for path in options.get("maps", []):
        arguments += ["--map", path]
    for path in options.get("objects", []):
        arguments += ["--object", path]
    if options.get("unwrap"):
        arguments.append("--unwrap")
    return arguments


@pytest.mark.parametrize("case", CASES, ids=[case[2] for case in CASES])
def test_python_m_reshape_infer_writes_what_the_library_proposes(case, tmp_path: Path):
    found = _infer(case)
    result = subprocess.run([sys.executable, "-m", "reshape", *_cli_arguments(case, tmp_path)], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "rules.json").read_text()) == found.rules
    assert (tmp_path / "types.py").read_text() == found.python(root=case[2])
    assert (tmp_path / "types.swift").read_text() == found.swift(root=case[2])
    assert result.stderr == "".join(f"{reason}\n" for reason in found.reasons)


@pytest.mark.parametrize("case", CASES, ids=[case[2] for case in CASES])
def test_the_cli_writes_the_same_bytes(case, tmp_path: Path):
    if not SWIFT_CLI.exists():
        pytest.skip("the reshape CLI is not built (swift build -c release --traits CLI --product reshape, or set RESHAPE_CLI)")
    ours, theirs = tmp_path / "python", tmp_path / "swift"
    ours.mkdir()
    theirs.mkdir()
    mine = subprocess.run([sys.executable, "-m", "reshape", *_cli_arguments(case, ours), "--json"], capture_output=True)
    cli = subprocess.run([str(SWIFT_CLI), *_cli_arguments(case, theirs), "--json"], capture_output=True)
    assert (mine.returncode, mine.stdout, mine.stderr) == (cli.returncode, cli.stdout, cli.stderr)
    for name in ("rules.json", "types.py", "types.swift"):
        assert (ours / name).read_bytes() == (theirs / name).read_bytes(), name


def test_the_docstring_example_holds():
    import doctest

    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(reshape.infer, globs={"infer": reshape.infer}):
        runner.run(test)
    assert runner.summarize(verbose=False).attempted > 0
    assert runner.summarize(verbose=False).failed == 0


def _random_value(rng: "random.Random", depth: int) -> Any:
    """Small JSON values with what infer looks for: id-like names, placeholders, strings of numbers."""
    kind = rng.randrange(10 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice(["", "x", "12.50", "3", "true", "false", "a b", "pro", "007"])
    if kind == 2:
        return rng.choice([1, -0.5, 12345678901234567890, 0, 2.0, True])
    if kind == 3:
        return {}
    if kind == 4:
        return []
    if kind == 5:
        return rng.choice([False, 1.5, "free"])
    if kind in (6, 7):
        names = rng.choice([["id", "user_name", "first-name", "plan", "avatar", "zip_code"],
                            ["-NxA1b2C3d4E5f6G7h8I", "-NxB9z8Y7x6W5v4U3t2S", "-NxC1", "42", "2024-05-01"]])
        return {name: _random_value(rng, depth + 1) for name in rng.sample(names, rng.randrange(len(names) + 1))}
    if kind == 8:
        shape = _random_value(rng, depth + 1)
        return [shape if rng.randrange(3) else _random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return [None] + [{"n": rng.randrange(3)} for _ in range(rng.randrange(3))]


def test_random_samples_are_what_their_inferred_types_say():
    """For seeded random samples: whatever infer proposes, the sample reshaped by its rules is what
    its Python types say (or infer says why it cannot propose)."""
    import random

    rng = random.Random(97531)
    checked = 0
    for _ in range(1000):
        samples = [_random_value(rng, 0) for _ in range(1 + rng.randrange(2))]
        try:
            found = reshape.infer([json.dumps(sample) for sample in samples], keys=rng.choice(["camelCase", "snake_case", "keep"]))
        except reshape.RuleFailed:
            continue  # names that would collide once converted: said, not proposed
        namespace: Dict[str, Any] = {}
        exec(found.python(root="Root"), namespace)
        for sample in samples:
            output = reshape.Rules(found.rules).apply_loads(json.dumps(sample))
            _conforms(output, namespace["Root"], f"{json.dumps(sample)} with {found.rules}: $")
        checked += 1
    assert checked > 750
