"""``python -m reshape``: the ``reshape`` command line, on this package.

The same commands, flags, messages and exit statuses as the CLI built from the repository
(Sources/ReshapeCLI; ``swift build -c release --traits CLI --product reshape``):

    python -m reshape --rules RULES.json [INPUT|-] [--output FILE] [--pretty] [--allow-duplicate-keys]
                      [--jobs N] [--progress|--no-progress] [--input-lines] [--output-lines]
                      [--skip-invalid-lines]
    python -m reshape check RULES.json
    python -m reshape trace --rules RULES.json INPUT PATH [--json]

Exit status: 0 success; 1 the input could not be reshaped (invalid JSON, a rule failed, a limit,
cancelled); 2 usage errors, files that cannot be read or written, and invalid rules. An error is
one line on standard error, ``reshape: CODE: ...``.

Where it differs from the CLI: standard input into ``--output FILE`` is read through
``/proc/self/fd/0`` when it is a pipe, but first copied to a temporary file when it is a regular
file.
"""

import json
import os
import re
import stat
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

from . import _infer as _inference, _version
from ._errors import ReshapeError
from ._rules import Rules

ROOT_HELP = r"""OVERVIEW: Reshape JSON from quirky APIs with a rules document.

Applies the rules (see docs/rules.md) to INPUT, or to standard input when
INPUT is '-' or missing, and writes the reshaped JSON, compact unless
--pretty is given. A document that is one collection of records is
reshaped record by record on every core (--jobs N to limit), in bounded
memory; --input-lines and --output-lines read and write JSON Lines.

EXAMPLES:
  Turn a Firebase collection into an array of records:
    reshape --rules examples/firebase-users/rules.json \
      examples/firebase-users/users.json

  Read standard input, write an indented file (written only if reshaping
  succeeds):
    curl -s https://example.firebaseio.com/users.json |
      reshape --rules rules.json --pretty -o users.json

  Reshape each line of a JSON Lines file, skipping lines that are not JSON:
    reshape --rules rules.json --input-lines --skip-invalid-lines events.jsonl

  Check a rules document, and see which rules run per record:
    reshape check rules.json

  Find where a value of the output was in the input:
    reshape trace --rules rules.json users.json "\$[3]['age']"

  See what each rule did on an input:
    reshape explain --rules rules.json users.json

  Propose rules and Swift types from a sample response:
    reshape infer users.json -o rules.json --swift Users.swift

EXIT STATUS:
  0  success
  1  the input could not be reshaped (invalid JSON, a rule failed, a limit
     was exceeded, cancelled)
  2  usage error, a file that cannot be read or written, or invalid rules

Errors are one line on standard error, e.g.
  reshape: rule_failed: rule 2 (keyedToArray) at $['users']['u1']:
    expected an object, found a string

USAGE: reshape --rules RULES.json [INPUT|-] [--output FILE] [--pretty] [--allow-duplicate-keys]
               [--jobs N] [--progress|--no-progress] [--input-lines] [--output-lines] [--skip-invalid-lines]
       reshape check RULES.json
       reshape trace --rules RULES.json INPUT PATH [--json]
       reshape explain --rules RULES.json INPUT [--json]
       reshape infer SAMPLE.json... [-o RULES.json] [--swift FILE] [--python FILE]

OPTIONS:
  --version               Show the version.
  -h, --help              Show help information.

SUBCOMMANDS:
  apply (default)         Reshape a JSON document (the default command).
  check                   Check a rules document, list its rules and say which
                          run per record.
  trace                   Say where a value of the output was in the input, or
                          which rule made it.
  explain                 Say what each rule did on an input.
  infer                   Propose rules, and Swift or Python types, from sample
                          responses.

  See 'reshape help <subcommand>' for detailed help.
"""

APPLY_HELP = r"""OVERVIEW: Reshape a JSON document (the default command).

USAGE: reshape apply --rules <RULES.json> [<INPUT>] [--output <FILE>] [--pretty] [--allow-duplicate-keys] [--jobs <N>] [--progress] [--no-progress] [--input-lines] [--output-lines] [--skip-invalid-lines]

ARGUMENTS:
  <INPUT>                 The JSON document to reshape; '-' or nothing reads
                          standard input.

OPTIONS:
  --rules <RULES.json>    The rules document (JSON).
  -o, --output <FILE>     Write to FILE instead of standard output (replaced
                          only on success).
  --pretty                Indent the output with two spaces.
  --allow-duplicate-keys  Let the last of duplicate member names win instead of
                          failing.
  --jobs <N>              Reshape records on N threads (default, or 0: one per
                          core; at most 64).
  --progress/--no-progress
                          Show progress on standard error (default: when it is
                          a terminal and the input is over 50 MB).
  --input-lines           Read JSON Lines: reshape each line as a document, one
                          output line each.
  --output-lines          Write JSON Lines: the resulting collection, one
                          record per line.
  --skip-invalid-lines    With --input-lines, report and skip lines that are
                          not valid JSON.
  --version               Show the version.
  -h, --help              Show help information.

"""

CHECK_HELP = r"""OVERVIEW: Check a rules document, list its rules and say which run per record.

USAGE: reshape check <RULES.json>

ARGUMENTS:
  <RULES.json>            The rules document to check.

OPTIONS:
  --version               Show the version.
  -h, --help              Show help information.

"""

TRACE_HELP = r"""OVERVIEW: Say where a value of the output was in the input, or which rule made
it.

Reshapes INPUT with the rules, follows every value through each rule, and
prints where the value at PATH in the output (a normalized path such as
$[3]['age'], or any path that selects one value) was in the input: its
normalized path there, line, column and byte position; or the rule that
replaced it, added it, or made it from a member name; and the renamings of
its member. --json prints the same as a JSON object.

EXAMPLE:
  reshape trace --rules rules.json users.json "\$[3]['age']"
  $['-NxA3kq0']['age'], line 1, column 2211

USAGE: reshape trace --rules <RULES.json> <INPUT> <PATH> [--json] [--allow-duplicate-keys]

ARGUMENTS:
  <INPUT>                 The JSON document the rules reshape; '-' reads
                          standard input.
  <PATH>                  The path of one value in the output.

OPTIONS:
  --rules <RULES.json>    The rules document (JSON).
  --json                  Print the source as a JSON object.
  --allow-duplicate-keys  Let the last of duplicate member names win instead of
                          failing.
  --version               Show the version.
  -h, --help              Show help information.

"""

INFER_HELP = r"""OVERVIEW: Propose rules, and Swift or Python types, from sample responses.

Looks at every sample (responses of one endpoint) and prints a rules
document that turns them into clean, regular JSON: keyed collections
become arrays of records, {} and "" placeholders become null, numbers
and booleans sent as strings become numbers and booleans, and names
follow --keys. Standard error says, one line per rule, why it was
proposed (--json: as one JSON array). docs/infer.md tells how each
place is decided.

EXAMPLE:
  reshape infer users.json --swift Users.swift -o rules.json
  rule 1 (keyedToArray): $ is a keyed collection: ...

USAGE: reshape infer <SAMPLE> ... [--output <FILE>] [--keys <CASE>] [--id-key <NAME>] [--name <NAME>] [--map <PATH> ...] [--object <PATH> ...] [--unwrap] [--json] [--swift <FILE>] [--python <FILE>] [--root <NAME>]

ARGUMENTS:
  <SAMPLE>                Sample responses (JSON); '-' reads standard input.

OPTIONS:
  -o, --output <FILE>     Write the rules document to FILE instead of standard
                          output.
  --keys <CASE>           Member names of the output: camelCase, snake_case,
                          kebab-case or keep. (default: camelCase)
  --id-key <NAME>         The member that receives each record's key. (default:
                          id)
  --name <NAME>           The member a collection at the root goes under
                          (default: the first sample's file name).
  --map <PATH>            A place that is a keyed collection, whatever its
                          score (repeatable).
  --object <PATH>         A place that is an object with fields, whatever its
                          score (repeatable).
  --unwrap                Unwrap an envelope (data, result, items...) instead
                          of keeping it.
  --json                  Print the reasons as one JSON array.
  --swift <FILE>          Write Codable structs for the output, the rules on
                          the root type.
  --python <FILE>         Write TypedDicts for the output.
  --root <NAME>           The root type's name (default: from the first
                          sample's file name).
  --version               Show the version.
  -h, --help              Show help information.

"""

EXPLAIN_HELP = r"""OVERVIEW: Say what each rule did on an input.

Reshapes INPUT with the rules as a whole tree, follows every value
through each rule, and prints per rule: how many values its path
selected and how many of them it changed, up to three changes with
their paths in the output and in the input and the values before and
after (shortened), whether it runs per record on this input or needs
the whole document and why, and its share of the time. A rule that
fails ends the list with its error (exit status 0: the explanation is
the output). --json prints the same as a JSON object.

EXAMPLE:
  reshape explain --rules rules.json users.json
  rule 1 (keyedToArray $): selected 1, changed 1 (5 changes); ...

USAGE: reshape explain --rules <RULES.json> <INPUT> [--json] [--allow-duplicate-keys]

ARGUMENTS:
  <INPUT>                 The JSON document the rules reshape; '-' reads
                          standard input.

OPTIONS:
  --rules <RULES.json>    The rules document (JSON).
  --json                  Print the explanation as a JSON object.
  --allow-duplicate-keys  Let the last of duplicate member names win instead of
                          failing.
  --version               Show the version.
  -h, --help              Show help information.

"""

#: Exit status 2: the command was used wrongly (usage, rules, files); 1: the input failed.
_USAGE_CODES = ("invalid_rules", "invalid_argument", "io_error")

# Each command's options as swift-argument-parser lists them, in order (its suggestions for a
# mistyped option take the first closest name): (long name, short name, value name or None).
_APPLY_OPTIONS: List[Tuple[str, Optional[str], Optional[str]]] = [
    ("--rules", None, "RULES.json"),
    ("--output", "-o", "FILE"),
    ("--pretty", None, None),
    ("--allow-duplicate-keys", None, None),
    ("--jobs", None, "N"),
    ("--progress", None, None),
    ("--no-progress", None, None),
    ("--input-lines", None, None),
    ("--output-lines", None, None),
    ("--skip-invalid-lines", None, None),
    ("--version", None, None),
    ("--help", "-h", None),
]
_CHECK_OPTIONS: List[Tuple[str, Optional[str], Optional[str]]] = [("--version", None, None), ("--help", "-h", None)]
_TRACE_OPTIONS: List[Tuple[str, Optional[str], Optional[str]]] = [
    ("--rules", None, "RULES.json"),
    ("--json", None, None),
    ("--allow-duplicate-keys", None, None),
    ("--version", None, None),
    ("--help", "-h", None),
]

_EXPLAIN_OPTIONS: List[Tuple[str, Optional[str], Optional[str]]] = [
    ("--rules", None, "RULES.json"),
    ("--json", None, None),
    ("--allow-duplicate-keys", None, None),
    ("--version", None, None),
    ("--help", "-h", None),
]
_INFER_OPTIONS: List[Tuple[str, Optional[str], Optional[str]]] = [
    ("--output", "-o", "FILE"),
    ("--keys", None, "CASE"),
    ("--id-key", None, "NAME"),
    ("--name", None, "NAME"),
    ("--map", None, "PATH"),
    ("--object", None, "PATH"),
    ("--unwrap", None, None),
    ("--json", None, None),
    ("--swift", None, "FILE"),
    ("--python", None, "FILE"),
    ("--root", None, "NAME"),
    ("--version", None, None),
    ("--help", "-h", None),
]

_INT64_MAX = 2**63 - 1
_MAX_JOBS = 2**32 - 1  # reshape_file_options.jobs, a C unsigned; the library runs at most 64


class _Exit(Exception):
    """Ends the command with `status`, after `message` (one line) on standard error."""

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _usage(message: str) -> _Exit:
    return _Exit(2, f"invalid_argument: {message} (see 'reshape --help')")


def _failure(error: ReshapeError) -> _Exit:
    return _Exit(2 if error.code in _USAGE_CODES else 1, error.message)


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, as swift-argument-parser measures how close a mistyped option is."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _unknown_option(token: str, options: Sequence[Tuple[str, Optional[str], Optional[str]]]) -> str:
    close = [(_edit_distance(name, token), name) for name, _, _ in options if _edit_distance(name, token) < 4]
    if not close:
        return f"Unknown option '{token}'"
    best = min(distance for distance, _ in close)
    suggestion = next(name for distance, name in close if distance == best)
    return f"Unknown option '{token}'. Did you mean '{suggestion}'?"


class _Parsed:
    """A command's arguments as swift-argument-parser reads them, with its first error of each kind."""

    def __init__(self) -> None:
        self.values: Dict[str, str] = {}
        self.repeated: Dict[str, List[str]] = {}  # every value of each option, in order
        self.flags: List[str] = []
        self.positionals: List[str] = []
        self.value_error: Optional[str] = None  # a missing or invalid value: reported first
        self.unknown: Optional[str] = None  # an unknown option: reported after missing arguments


def _parse(arguments: Sequence[str], options: Sequence[Tuple[str, Optional[str], Optional[str]]],
           integers: Sequence[str] = ()) -> _Parsed:
    by_name: Dict[str, Tuple[str, Optional[str]]] = {}
    for name, short, value in options:
        by_name[name] = (name, value)
        if short:
            by_name[short] = (name, value)
    parsed = _Parsed()
    index = 0
    while index < len(arguments):
        token = arguments[index]
        index += 1
        if token == "--":
            parsed.positionals.extend(arguments[index:])
            break
        if not token.startswith("-") or token == "-":
            parsed.positionals.append(token)
            continue
        written, has_equals, attached = token.partition("=") if token.startswith("--") else (token, "", "")
        if written not in by_name:
            if parsed.unknown is None:
                parsed.unknown = _unknown_option(written, options)
            continue
        name, value_name = by_name[written]
        if value_name is None:
            parsed.flags.append(name)
            continue
        if has_equals and attached:
            value = attached
        elif index < len(arguments) and (not arguments[index].startswith("-") or arguments[index] == "-"):
            value = arguments[index]
            index += 1
        else:
            if parsed.value_error is None:
                parsed.value_error = f"Missing value for '{written} <{value_name}>'"
            continue
        if name in integers and not _is_int64(value):
            if parsed.value_error is None:
                parsed.value_error = f"The value '{value}' is invalid for '{written} <{value_name}>'"
            continue
        parsed.values[name] = value
        parsed.repeated.setdefault(name, []).append(value)
    return parsed


def _is_int64(text: str) -> bool:
    """Whether Swift's Int(text) reads it: digits with an optional sign, within 64 bits."""
    body = text[1:] if text[:1] in ("+", "-") else text
    return body.isascii() and body.isdigit() and -_INT64_MAX - 1 <= int(text) <= _INT64_MAX


def _unexpected(extra: Sequence[str]) -> Optional[str]:
    if not extra:
        return None
    if len(extra) == 1:
        return f"Unexpected argument '{extra[0]}'"
    return f"{len(extra)} unexpected arguments: " + ", ".join(f"'{token}'" for token in extra)


def _help_or_version(arguments: Sequence[str], help_text: str) -> Optional[str]:
    """What -h, --help or --version, before any --, ask to print; None without them."""
    for token in arguments:
        if token == "--":
            return None
        if token in ("-h", "--help"):
            return help_text
        if token == "--version":
            return _version.__version__ + "\n"
    return None


def _compile(path: str) -> Rules:
    try:
        return Rules.from_file(path)
    except ReshapeError as error:
        raise _failure(error) from None


def _apply(arguments: Sequence[str]) -> int:
    shown = _help_or_version(arguments, APPLY_HELP)
    if shown is not None:
        sys.stdout.write(shown)
        return 0
    parsed = _parse(arguments, _APPLY_OPTIONS, integers=("--jobs",))
    if parsed.value_error:
        raise _usage(parsed.value_error)
    if "--rules" not in parsed.values:
        raise _usage("Missing expected argument '--rules <RULES.json>'")
    jobs = int(parsed.values.get("--jobs", "0"))
    if jobs < 0:
        raise _usage("--jobs must be 0 or more")
    if parsed.unknown:
        raise _usage(parsed.unknown)
    extra = _unexpected(parsed.positionals[1:])
    if extra:
        raise _usage(extra)

    flags = set(parsed.flags)
    options = dict(pretty="--pretty" in flags, allow_duplicate_keys="--allow-duplicate-keys" in flags,
                   input_lines="--input-lines" in flags, output_lines="--output-lines" in flags,
                   skip_invalid_lines="--skip-invalid-lines" in flags)
    # --progress and --no-progress: the last one given wins; neither means "when it is worth it".
    requested = next((flag == "--progress" for flag in reversed(parsed.flags)
                      if flag in ("--progress", "--no-progress")), None)
    rules = _compile(parsed.values["--rules"])
    problem = _options_problem(options)
    if problem:  # before waiting for input that may never end
        raise _usage(problem)
    source = parsed.positionals[0] if parsed.positionals and parsed.positionals[0] != "-" else None
    output = parsed.values.get("--output")
    destination = output if output is not None and output != "-" else None

    bar = _ProgressBar.for_input(source, requested)
    try:
        rules.apply_file(sys.stdin.buffer if source is None else source,
                         sys.stdout.buffer if destination is None else destination,
                         jobs=None if jobs == 0 else min(jobs, _MAX_JOBS),
                         progress=None if bar is None else bar.update, on_skip=_report_skipped, **options)
    except ReshapeError as error:
        if bar is not None:
            bar.finish()
        raise _failure(error) from None
    if bar is not None:
        bar.finish()
    # A terminal's prompt starts on a line of its own; JSON Lines end their lines already.
    if destination is None and os.isatty(1) and not options["input_lines"] and not options["output_lines"]:
        _write(1, "\n")
    return 0


def _report_skipped(error: ReshapeError) -> None:
    _write(2, f"reshape: skipped an invalid line: {error}\n")


def _options_problem(options: Dict[str, bool]) -> Optional[str]:
    """The library's check of the options (ApplyOptions.validate), made before any input is read."""
    if options["pretty"] and (options["input_lines"] or options["output_lines"]):
        return "pretty output cannot be JSON Lines"
    if options["skip_invalid_lines"] and not options["input_lines"]:
        return "skipping invalid lines needs JSON Lines input"
    return None


def _check(arguments: Sequence[str]) -> int:
    shown = _help_or_version(arguments, CHECK_HELP)
    if shown is not None:
        sys.stdout.write(shown)
        return 0
    parsed = _parse(arguments, _CHECK_OPTIONS)
    if parsed.value_error:
        raise _usage(parsed.value_error)
    if not parsed.positionals:
        raise _usage("Missing expected argument '<RULES.json>'")
    if parsed.unknown:
        raise _usage(parsed.unknown)
    extra = _unexpected(parsed.positionals[1:])
    if extra:
        raise _usage(extra)
    path = parsed.positionals[0]
    rules = _compile(path)
    ops = rules.ops
    count = "1 rule" if len(ops) == 1 else f"{len(ops)} rules"
    listed = ": " + ", ".join(ops) if ops else ""
    sys.stdout.write(f"{path}: ok, {count}{listed}\n")
    # How each rule runs on large documents: per record (streaming) or on the whole tree.
    for line in rules.plan():
        sys.stdout.write(line + "\n")
    return 0


def _rules_and_input(arguments: Sequence[str], options: Sequence[Tuple[str, Optional[str], Optional[str]]],
                     after_input: Sequence[str]) -> Tuple["_Parsed", Rules, bytes]:
    """`--rules RULES.json INPUT` and the arguments named `after_input`, checked in the order
    swift-argument-parser checks them; the compiled rules and the input read whole."""
    parsed = _parse(arguments, options)
    if parsed.value_error:
        raise _usage(parsed.value_error)
    if "--rules" not in parsed.values:
        raise _usage("Missing expected argument '--rules <RULES.json>'")
    for count, name in enumerate(["INPUT", *after_input]):
        if len(parsed.positionals) <= count:
            raise _usage(f"Missing expected argument '<{name}>'")
    if parsed.unknown:
        raise _usage(parsed.unknown)
    extra = _unexpected(parsed.positionals[1 + len(after_input):])
    if extra:
        raise _usage(extra)
    return parsed, _compile(parsed.values["--rules"]), _read_input(parsed.positionals[0])


def _print_library_json(found: bytes, parsed: "_Parsed") -> int:
    """The library's JSON object, printed as it is (--json) or its description."""
    if "--json" in parsed.flags:
        sys.stdout.write(found.decode("utf-8") + "\n")
    else:
        sys.stdout.write(json.loads(found)["description"] + "\n")
    return 0


def _trace(arguments: Sequence[str]) -> int:
    shown = _help_or_version(arguments, TRACE_HELP)
    if shown is not None:
        sys.stdout.write(shown)
        return 0
    parsed, rules, data = _rules_and_input(arguments, _TRACE_OPTIONS, ["PATH"])
    try:
        found = rules._trace_json(data, parsed.positionals[1], "--allow-duplicate-keys" in parsed.flags)
    except ReshapeError as error:
        raise _failure(error) from None
    return _print_library_json(found, parsed)


def _read_input(source: str) -> bytes:
    """The whole input: a file, or standard input for '-'; a failure as the CLI says it."""
    try:
        if source == "-":
            return sys.stdin.buffer.read()
        with open(source, "rb") as file:
            return file.read()
    except OSError as error:
        raise _Exit(2, f"io_error: cannot read input file '{source}': {os.strerror(error.errno or 0)}") from None


def _explain(arguments: Sequence[str]) -> int:
    shown = _help_or_version(arguments, EXPLAIN_HELP)
    if shown is not None:
        sys.stdout.write(shown)
        return 0
    parsed, rules, data = _rules_and_input(arguments, _EXPLAIN_OPTIONS, [])
    try:
        found = rules._explain_json(data, "--allow-duplicate-keys" in parsed.flags)
    except ReshapeError as error:
        raise _failure(error) from None
    return _print_library_json(found, parsed)


def _stem(path: str) -> Optional[str]:
    """`users` for `path/users.json`; None for standard input or a name with no letter."""
    if path == "-":
        return None
    stem = path.split("/")[-1].split(".")[0] if path.split("/")[-1].split(".")[0] else path.split("/")[-1]
    return stem if any(character.isalpha() for character in stem) else None


def _type_name(stem: str) -> str:
    """`Users` for `users`, `BookList` for `book_list`, as the CLI names a root type."""
    name, upper = "", True
    for character in stem:
        if not (character.isascii() and character.isalnum()):
            upper = True
            continue
        name += character.upper() if upper else character
        upper = False
    if name[:1].isdigit():
        name = "Root" + name
    return name or "Root"


def _replace_file(path: str, text: str) -> None:
    """Writes `text` as the whole file at `path`, replaced only once all of it is written, as the
    CLI does: a symbolic link's target is replaced (the link stays), an existing file keeps its
    permissions, and a device or a pipe is written as it is."""
    target = os.path.realpath(path)
    existing = os.stat(target) if os.path.exists(target) else None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(target, "w", encoding="utf-8") as file:
            file.write(text)
        return
    temporary = f"{target}.reshape-{os.getpid()}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
        if existing is not None:
            os.chmod(temporary, stat.S_IMODE(existing.st_mode))
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _infer(arguments: Sequence[str]) -> int:
    shown = _help_or_version(arguments, INFER_HELP)
    if shown is not None:
        sys.stdout.write(shown)
        return 0
    parsed = _parse(arguments, _INFER_OPTIONS)
    if parsed.value_error:
        raise _usage(parsed.value_error)
    if not parsed.positionals:
        raise _usage("Missing expected argument '<SAMPLE> ...'")
    if parsed.unknown:
        raise _usage(parsed.unknown)
    keys = parsed.values.get("--keys", "camelCase")
    if keys not in ("camelCase", "snake_case", "kebab-case", "keep"):
        raise _Exit(2, f"invalid_argument: --keys must be camelCase, snake_case, kebab-case or keep, not '{keys}'")
    if parsed.positionals.count("-") > 1:
        raise _Exit(2, "invalid_argument: standard input can be read once: give '-' as one sample only")
    samples = []
    for source in parsed.positionals:
        data = _read_input(source)
        try:
            _inference._one_document(data)  # each sample read alone, so that an error names it
        except ReshapeError as error:
            # The library's line with the sample's name before its message, as the CLI writes it.
            where = re.match(r"^(.*?column \d+: |\w+: )(.*)$", error.message, re.DOTALL)
            head, rest = (where.group(1), where.group(2)) if where else ("", error.message)
            raise _Exit(2 if error.code in _USAGE_CODES else 1, f"{head}{source}: {rest}") from None
        samples.append(data)
    stem = _stem(parsed.positionals[0])
    name = parsed.values.get("--name")
    if name is None:
        name = stem if stem and all(c.isascii() and (c.isalnum() or c in "_-") for c in stem) else "items"
    root = parsed.values.get("--root") or (_type_name(stem) if stem else "Root")
    try:
        found = _inference._infer_documents(samples, _inference._options(
            keys, parsed.values.get("--id-key", "id"), name, parsed.repeated.get("--map", []),
            parsed.repeated.get("--object", []), "--unwrap" in parsed.flags))
        swift = found.swift(root=root) if "--swift" in parsed.values else None
        python = found.python(root=root) if "--python" in parsed.values else None
    except ReshapeError as error:
        raise _failure(error) from None
    document = json.dumps(found.rules, indent=2, ensure_ascii=False) + "\n"
    outputs = [(parsed.values.get("--swift"), swift), (parsed.values.get("--python"), python),
               (parsed.values.get("--output"), document)]
    for path, text in outputs:
        if path is not None and text is not None:
            try:
                _replace_file(path, text)
            except OSError as error:
                raise _Exit(2, f"io_error: cannot write output file '{path}': {os.strerror(error.errno or 0)}") from None
    if "--output" not in parsed.values:
        sys.stdout.write(document)
    if "--json" in parsed.flags:
        reasons = [{"rule": reason.rule, "op": reason.op, "reason": reason.text} for reason in found.reasons]
        sys.stderr.write(json.dumps(reasons, separators=(",", ":"), ensure_ascii=False) + "\n")
    else:
        for reason in found.reasons:
            sys.stderr.write(f"{reason}\n")
    return 0


def _run(arguments: Sequence[str]) -> int:
    if list(arguments) in (["-h"], ["--help"]):
        sys.stdout.write(ROOT_HELP)
        return 0
    if arguments and arguments[0] == "help":
        topic = arguments[1] if len(arguments) > 1 else None
        sys.stdout.write({"apply": APPLY_HELP, "check": CHECK_HELP, "trace": TRACE_HELP, "explain": EXPLAIN_HELP,
                          "infer": INFER_HELP}.get(
            topic or "", ROOT_HELP))
        return 0
    if arguments and arguments[0] == "check":
        return _check(arguments[1:])
    if arguments and arguments[0] == "trace":
        return _trace(arguments[1:])
    if arguments and arguments[0] == "explain":
        return _explain(arguments[1:])
    if arguments and arguments[0] == "infer":
        return _infer(arguments[1:])
    if arguments and arguments[0] == "apply":
        return _apply(arguments[1:])
    return _apply(arguments)


def main(arguments: Optional[Sequence[str]] = None) -> int:
    """Runs the command with `arguments` (``sys.argv[1:]`` by default); returns its exit status.

    Errors are printed as one line on standard error: ``reshape: CODE: MESSAGE``.
    """
    try:
        return _run(sys.argv[1:] if arguments is None else arguments)
    except _Exit as stop:
        sys.stdout.flush()
        if stop.message:
            _write(2, f"reshape: {stop.message}\n")
        return stop.status


def _write(descriptor: int, text: str) -> None:
    """Writes all of `text` to a descriptor, as the CLI does: a failure is dropped (there is
    nowhere left to report it)."""
    data = text.encode("utf-8", "replace")
    try:
        while data:
            data = data[os.write(descriptor, data):]
    except OSError:
        pass


class _ProgressBar:
    """--progress: one line on standard error, redrawn at most ten times a second, with the bytes
    done, the speed and the time left, as the CLI draws it. Shown by default only when standard
    error is a terminal and the input is a file over 50 MB."""

    THRESHOLD = 50_000_000

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.last_drawn = float("-inf")
        self.drawn = False
        self.on_terminal = os.isatty(2)

    @classmethod
    def for_input(cls, source: Optional[str], requested: Optional[bool]) -> "Optional[_ProgressBar]":
        if requested is False:
            return None
        if requested is None:
            try:
                info = os.stat(source) if source is not None else os.fstat(0)
            except OSError:
                return None
            if not os.isatty(2) or not stat.S_ISREG(info.st_mode) or info.st_size <= cls.THRESHOLD:
                return None
        return cls()

    def finish(self) -> None:
        if self.drawn:
            _write(2, "\r\x1b[K" if self.on_terminal else "\n")

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last_drawn < 0.1:
            return
        self.last_drawn = now
        elapsed = max(now - self.start, 0.001)
        rate = done / elapsed
        fraction = min(1.0, done / total) if total > 0 else 1.0
        width = 24
        filled = int(fraction * width)
        left = (total - done) / rate if rate > 0 else 0.0
        percent = str(int(fraction * 100))
        bar = "#" * filled + "-" * (width - filled)
        erase = "\x1b[K" if self.on_terminal else ""
        if total == 0:  # a pipe read as it comes (JSON Lines) has no size until its end
            line = f"\r{_tenths(done / 1e6)} MB  {_tenths(rate / 1e6)} MB/s{erase}"
        else:
            line = (f"\r[{bar}] {' ' * max(0, 3 - len(percent))}{percent}%  "
                    f"{_tenths(done / 1e6)}/{_tenths(total / 1e6)} MB  {_tenths(rate / 1e6)} MB/s  "
                    f"{_clock(left)} left{erase}")
        _write(2, line)
        self.drawn = True


def _tenths(value: float) -> str:
    """`value` with one decimal, rounded: "12.3"."""
    if not (value == value and 0 <= value < 1e15):
        return "0.0"
    scaled = int(_round_half_away(value * 10))
    return f"{scaled // 10}.{scaled % 10}"


def _clock(seconds: float) -> str:
    """Whole seconds, rounded up, as "m:ss"."""
    if not (seconds == seconds and 0 <= seconds < 1e12):
        return "0:00"
    whole = -int(-seconds // 1)
    return f"{whole // 60}:{whole % 60:02d}"


def _round_half_away(value: float) -> float:
    """Swift's rounded(): to the nearest, halves away from zero (Python's round() goes to even)."""
    return float(int(value + 0.5)) if value >= 0 else -float(int(-value + 0.5))
