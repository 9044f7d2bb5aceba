"""Checks what reshape_jsonl.py wrote and printed; scripts/test-spark runs it after each run.

    python check_output.py jsonl DST SUMMARY --lines 'in/*.jsonl' --exports 'in/*.json' [--skip-invalid-lines]
    python check_output.py parquet DST SUMMARY --lines 'in/*.jsonl' --exports 'in/*.json'
    python check_output.py failed STDERR --lines in/bad.jsonl --line 3

* ``jsonl``: DST's part files, read in order, hold exactly the records that ``Rules.apply`` gives in
  this process on each whole input file (``input_lines=True``, files in glob order, then each export
  with ``output_lines=True``), byte for byte and in that order; the committed sample's records are
  among them, literally; SUMMARY (the example's standard output) gives their count.
* ``parquet``: DST's Parquet files, read with pyarrow, hold the same records as values, in order,
  with the schema ``spark.read.json`` infers for them (printed in SUMMARY, and checked literally).
* ``failed``: STDERR (of a run that must fail) has the ValueError for line LINE of the one input
  file, in partition 0: the library's error for that line, as ``Rules.apply`` gives it here.

Prints one line of summary; exits 1 with the differences otherwise.
"""

import argparse
import glob
import json
import sys
from pathlib import Path
from typing import Any, List

import reshape

HERE = Path(__file__).resolve().parent

# Records of ../dask/sample, as the rules of this folder must give them.
SAMPLE_RECORDS = [
    '{"id":"u2","display_name":"Zoë Ångström","email":"zoe@example.com",'
    '"avatar":{"url":"https://cdn.example.com/a/2.png","width":128},"plan":"pro","created_at":1700000001136,'
    '"balance":0.1,"last_seen":{"ip_address":"10.0.0.2","user_agent":null},"tags":["🚀","ünïcode"],"settings":null}',
    '{"id":"u3","display_name":"李雷","email":"li@example.com","avatar":null,"plan":"team","created_at":1700000002149,'
    '"balance":7,"last_seen":{"ip_address":"10.0.0.3","user_agent":"okhttp/4.12"},"tags":[],'
    '"settings":{"email_opt_in":false,"theme_name":"dark"}}',
    '{"id":"-NxA1b2C3d4E5f6G7h8I","display_name":"Grace Hopper","email":"grace@example.com","avatar":null,'
    '"plan":null,"created_at":1700000000456,"balance":99.99,"last_seen":{"ip_address":"10.1.0.1","user_agent":null},'
    '"tags":["vip"],"settings":{"email_opt_in":false,"theme_name":"dark"}}',
]

# spark.read.json's schema for the users: snake_case names only, {} and "" gone to null (so avatar
# and settings are structs, plan a string), balance a double (7 and 12.5 merge), sorted by name.
SCHEMA = """\
root
 |-- avatar: struct (nullable = true)
 |    |-- url: string (nullable = true)
 |    |-- width: long (nullable = true)
 |-- balance: double (nullable = true)
 |-- created_at: long (nullable = true)
 |-- display_name: string (nullable = true)
 |-- email: string (nullable = true)
 |-- id: string (nullable = true)
 |-- last_seen: struct (nullable = true)
 |    |-- ip_address: string (nullable = true)
 |    |-- user_agent: string (nullable = true)
 |-- plan: string (nullable = true)
 |-- settings: struct (nullable = true)
 |    |-- email_opt_in: boolean (nullable = true)
 |    |-- theme_name: string (nullable = true)
 |-- tags: array (nullable = true)
 |    |-- element: string (containsNull = true)
"""


def rules_of(name: str) -> reshape.Rules:
    return reshape.Rules.from_file(HERE / name)


def files(patterns: List[str]) -> List[Path]:
    found = [Path(path) for pattern in patterns for path in sorted(glob.glob(pattern))]
    if not found:
        raise SystemExit(f"check_output: no file matches {patterns}")
    return found


def expected_records(args: argparse.Namespace) -> List[bytes]:
    rules, export_rules = rules_of("rules.json"), rules_of("export-rules.json")
    output = b"".join(rules.apply(path.read_bytes(), input_lines=True, skip_invalid_lines=args.skip_invalid_lines)
                      for path in files(args.lines))
    if args.exports:
        output += b"".join(export_rules.apply(path.read_bytes(), output_lines=True) for path in files(args.exports))
    return output.split(b"\n")[:-1]


def conform(value: Any, type_: Any) -> Any:
    """A JSON value as a Parquet column of `type_` gives it back: every struct field, reals as floats."""
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_struct(type_):
        return {field.name: conform(value.get(field.name), field.type) for field in type_}
    if pa.types.is_list(type_):
        return [conform(item, type_.value_type) for item in value]
    if pa.types.is_floating(type_):
        return float(value)
    return value


def first_difference(written: List[Any], expected: List[Any]) -> str:
    for index, (got, want) in enumerate(zip(written, expected)):
        if got != want:
            return f"record {index}: written {got!r}, expected {want!r}"
    return f"{len(written)} records written, {len(expected)} expected"


def check_jsonl(args: argparse.Namespace, problems: List[str]) -> str:
    parts = sorted(args.dst.glob("part-*"))
    if not (args.dst / "_SUCCESS").exists() or not parts:
        problems.append(f"{args.dst}: no _SUCCESS or no part files")
    written = b"".join(part.read_bytes() for part in parts).split(b"\n")[:-1]
    expected = expected_records(args)
    if written != expected:
        problems.append(f"the part files are not the expected records: {first_difference(written, expected)}")
    for record in SAMPLE_RECORDS:
        if record.encode("utf-8") not in written:
            problems.append(f"not written: {record}")
    check_count(args, len(expected), problems)
    return f"{len(written)} records in {len(parts)} part files, byte for byte as Rules.apply gives them in-process"


def check_parquet(args: argparse.Namespace, problems: List[str]) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = sorted(args.dst.glob("part-*.parquet"))
    if not (args.dst / "_SUCCESS").exists() or not parts:
        problems.append(f"{args.dst}: no _SUCCESS or no part files")
    table = pa.concat_tables([pq.read_table(part) for part in parts])
    rows = table.to_pylist()
    record_type = pa.struct(list(table.schema))
    expected = [conform(json.loads(record), record_type) for record in expected_records(args)]
    if rows != expected:
        problems.append(f"the Parquet rows are not the expected records: {first_difference(rows, expected)}")
    if SCHEMA not in args.summary.read_text(encoding="utf-8"):
        problems.append("the printed schema is not the expected one")
    check_count(args, len(expected), problems)
    columns = sum(line.startswith(" |-- ") for line in SCHEMA.splitlines())
    return (f"{len(rows)} rows in {len(parts)} Parquet files, the values Rules.apply gives in-process; "
            f"schema ({columns} columns) as expected")


def check_count(args: argparse.Namespace, count: int, problems: List[str]) -> None:
    summary = args.summary.read_text(encoding="utf-8")
    if f"\n{count} records -> {args.dst} ({args.kind}) in " not in "\n" + summary:
        problems.append(f"the printed count is not {count}:\n{summary}")


def check_failed(args: argparse.Namespace, problems: List[str]) -> str:
    (path,) = files(args.lines)
    line = path.read_bytes().split(b"\n")[args.line - 1]
    try:
        rules_of("rules.json").apply(line)
    except reshape.ReshapeError as error:
        message = f"ValueError: partition 0, line {args.line}: {error}"
    else:
        raise SystemExit(f"check_output: line {args.line} of {path} does not fail")
    if message not in args.dst.read_text(encoding="utf-8"):
        problems.append(f"no {message!r} in {args.dst}")
    return f"the run failed with {message!r}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["jsonl", "parquet", "failed"])
    parser.add_argument("dst", type=Path, help="the output folder (for failed: the run's standard error)")
    parser.add_argument("summary", type=Path, nargs="?", help="the run's standard output")
    parser.add_argument("--lines", action="append", required=True, help="the JSON Lines input files (a glob)")
    parser.add_argument("--exports", action="append", help="the Firebase export input files (a glob)")
    parser.add_argument("--skip-invalid-lines", action="store_true")
    parser.add_argument("--line", type=int, help="for failed: the failing line")
    args = parser.parse_args()

    problems: List[str] = []
    done = {"jsonl": check_jsonl, "parquet": check_parquet, "failed": check_failed}[args.kind](args, problems)
    if problems:
        print("check_output: FAILED\n" + "\n".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"check_output ({args.kind}): {done}")


if __name__ == "__main__":
    main()
