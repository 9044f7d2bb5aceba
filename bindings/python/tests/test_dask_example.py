"""examples/dask/reshape_jsonl.py on a real distributed.LocalCluster with two worker processes.

The example runs as its users run it (a subprocess, `python reshape_jsonl.py 'SRC/*.jsonl' DST`), on
the committed sample, generated files and edge cases, cut into many partitions and blocks. What it
writes must be exactly what `Rules.apply` gives in this process on each whole input file: the same
bytes for JSON Lines output, the same values for Parquet. A line that is not JSON fails the run with
the library's error for that line, naming its partition and line, unless `--skip-invalid-lines`.

dask[distributed] and pyarrow are test dependencies (scripts/test installs them): without them this
test fails, it is not skipped.
"""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, List

import pytest

import reshape

from conftest import REPOSITORY

EXAMPLE = REPOSITORY / "examples" / "dask"


def require(*modules: str) -> None:
    try:
        for module in modules:
            importlib.import_module(module)
    except ImportError as error:
        pytest.fail(f"the Dask example's test needs {', '.join(modules)} in this environment "
                    f"(pip install 'dask[distributed]' pyarrow; scripts/test installs them): {error}", pytrace=False)


def load_make_input():
    spec = importlib.util.spec_from_file_location("make_input", EXAMPLE / "make_input.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_input


def rules_of(name: str) -> reshape.Rules:
    return reshape.Rules((EXAMPLE / name).read_bytes())


def run_example(*args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, str(EXAMPLE / "reshape_jsonl.py"), *args, "--workers", "2"],
                          capture_output=True, text=True, timeout=180)


# The committed sample's records, as they must come out (rules.json and export-rules.json).
SAMPLE_SIGNUPS = [
    '{"id":"u1","display_name":"Ada Lovelace","email":"ada@example.com","avatar":null,"plan":null,'
    '"created_at":1700000000123,"balance":12.5,"last_seen":{"ip_address":"10.0.0.1","user_agent":"Mozilla/5.0"},'
    '"tags":["beta"],"settings":{"email_opt_in":true,"theme_name":null}}',
    '{"id":"u2","display_name":"Zoë Ångström","email":"zoe@example.com",'
    '"avatar":{"url":"https://cdn.example.com/a/2.png","width":128},"plan":"pro","created_at":1700000001136,'
    '"balance":0.1,"last_seen":{"ip_address":"10.0.0.2","user_agent":null},"tags":["🚀","ünïcode"],"settings":null}',
    '{"id":"u3","display_name":"李雷","email":"li@example.com","avatar":null,"plan":"team","created_at":1700000002149,'
    '"balance":7,"last_seen":{"ip_address":"10.0.0.3","user_agent":"okhttp/4.12"},"tags":[],'
    '"settings":{"email_opt_in":false,"theme_name":"dark"}}',
]
SAMPLE_EXPORT = [
    '{"id":"-NxA1b2C3d4E5f6G7h8I","display_name":"Grace Hopper","email":"grace@example.com","avatar":null,'
    '"plan":null,"created_at":1700000000456,"balance":99.99,"last_seen":{"ip_address":"10.1.0.1","user_agent":null},'
    '"tags":["vip"],"settings":{"email_opt_in":false,"theme_name":"dark"}}',
    '{"id":"-NxB9z8Y7x6W5v4U3t2S","display_name":"Łukasz Żółć","email":"lukasz@example.com",'
    '"avatar":{"url":"https://cdn.example.com/a/l.png","width":64},"plan":"free","created_at":1700000003162,'
    '"balance":0.0,"last_seen":{"ip_address":"10.1.0.2","user_agent":"Mozilla/5.0"},"tags":[],"settings":null}',
]


def make_folder(src: Path) -> int:
    """The sample plus generated JSON Lines and export files; returns the number of users generated."""
    shutil.copytree(EXAMPLE / "sample", src)
    users = load_make_input()(src, files=6, megabytes=1.5, seed=7)
    assert users > 3000
    return users


def expected_records(src: Path, *, skip_invalid_lines: bool = False) -> List[bytes]:
    """Each *.jsonl file reshaped whole in this process, then each *.json export: the records, in order."""
    rules, export_rules = rules_of("rules.json"), rules_of("export-rules.json")
    output = b"".join(rules.apply(path.read_bytes(), input_lines=True, skip_invalid_lines=skip_invalid_lines)
                      for path in sorted(src.glob("*.jsonl")))
    output += b"".join(export_rules.apply(path.read_bytes(), output_lines=True) for path in sorted(src.glob("*.json")))
    return output.split(b"\n")[:-1]


def test_json_lines_in_many_partitions_and_blocks_give_the_records_of_whole_file_calls(tmp_path: Path) -> None:
    require("dask.bag", "distributed")
    src, dst = tmp_path / "in", tmp_path / "out"
    users = make_folder(src)
    # Edge cases: CRLF and a line of white space; a file with no line; lines that are not JSON
    # (skipped); U+2028 and U+0085 inside a string, which str.splitlines() would cut; an export with no record.
    (src / "crlf.jsonl").write_bytes('{"id":"c1","fooBar":"","emptyThing":{}}\r\n  \r\n{"id":"c2","ΔelTa":[{}]}\r\n'.encode())
    (src / "empty.jsonl").write_bytes(b"")
    (src / "invalid.jsonl").write_bytes(b'{"id":"i1"}\n{"id":\n{"id":"i3","avatar":{}}\nnot json\n{"id":"i5"}')
    (src / "separators.jsonl").write_bytes('{"id":"s1","noteText":"a\u2028b\u0085c"}\n'.encode())
    (src / "empty-export.json").write_bytes(b"{}\n")

    # 64 KiB partitions and blocks of 7 lines: partition and block boundaries fall everywhere.
    result = run_example(f"{src}/*.jsonl", str(dst), "--exports", f"{src}/*.json", "--blocksize", "64KiB",
                         "--block-lines", "7", "--skip-invalid-lines")
    assert result.returncode == 0, result.stderr

    expected = expected_records(src, skip_invalid_lines=True)
    parts = sorted(dst.iterdir())
    assert len(parts) > len(list(src.iterdir())), [part.name for part in parts]  # files were cut
    assert [part.name for part in parts] == [f"part-{index:05d}.jsonl" for index in range(len(parts))]
    written = b"".join(part.read_bytes() for part in parts)
    assert written == b"".join(record + b"\n" for record in expected)
    assert len(expected) == users + len(SAMPLE_SIGNUPS) + len(SAMPLE_EXPORT) + 2 + 3 + 1

    lines = written.decode("utf-8").split("\n")
    assert lines[:2] == ['{"id":"c1","foo_bar":null,"empty_thing":null}', '{"id":"c2","δel_ta":[null]}']
    assert lines[2:5] == ['{"id":"i1"}', '{"id":"i3","avatar":null}', '{"id":"i5"}']
    assert '{"id":"s1","note_text":"a\u2028b\u0085c"}' in lines
    for record in SAMPLE_SIGNUPS + SAMPLE_EXPORT:
        assert record in lines
    assert result.stdout.startswith(f"{len(expected)} records -> {dst} (jsonl) in "), result.stdout
    assert result.stdout.rstrip().endswith(" records/s, on 2 workers"), result.stdout


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


def test_parquet_holds_the_records_of_whole_file_calls_with_one_schema(tmp_path: Path) -> None:
    require("dask.bag", "distributed", "pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    src, dst = tmp_path / "in", tmp_path / "out"
    make_folder(src)
    result = run_example(f"{src}/*.jsonl", str(dst), "--exports", f"{src}/*.json", "--format", "parquet",
                         "--blocksize", "64KiB")
    assert result.returncode == 0, result.stderr

    expected = expected_records(src)
    parts = sorted(dst.iterdir())
    assert [part.name for part in parts] == [f"part-{index:05d}.parquet" for index in range(len(parts))]
    assert len(parts) > len(list(src.iterdir()))
    schemas = {pq.read_schema(part) for part in parts}
    assert len(schemas) == 1
    schema = schemas.pop()
    assert [(field.name, str(field.type)) for field in schema] == [
        ("id", "string"), ("display_name", "string"), ("email", "string"),
        ("avatar", "struct<url: string, width: int64>"), ("plan", "string"), ("created_at", "int64"),
        ("balance", "double"), ("last_seen", "struct<ip_address: string, user_agent: string>"),
        ("tags", "list<element: string>"), ("settings", "struct<email_opt_in: bool, theme_name: string>"),
    ]
    rows = [row for part in parts for row in pq.read_table(part).to_pylist()]
    assert rows == [conform(json.loads(record), pa.struct(list(schema))) for record in expected]
    assert rows[0]["avatar"] is None and rows[0]["balance"] == 12.5  # sample/signups.jsonl's first user
    assert result.stdout.startswith(f"{len(expected)} records -> {dst} (parquet) in "), result.stdout


@pytest.mark.parametrize("bad_line, flags", [
    (b'{"id":"b3","avatar":', []),                           # not JSON, not skipped
    (b'{"id":"b3","balance":"lots"}', ["--skip-invalid-lines"]),  # JSON that a rule fails on: never skipped
])
def test_a_failing_line_fails_the_run_with_its_partition_line_and_error(tmp_path: Path, bad_line: bytes,
                                                                         flags: List[str]) -> None:
    require("dask.bag", "distributed")
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.jsonl").write_bytes(b'{"id":"a1"}\n')
    (src / "b.jsonl").write_bytes(b'{"id":"b1"}\n\n' + bad_line + b'\n{"id":"b4"}\n')
    with pytest.raises(reshape.ReshapeError) as error:
        rules_of("rules.json").apply(bad_line)

    result = run_example(f"{src}/*.jsonl", str(tmp_path / "out"), *flags)
    assert result.returncode != 0
    # b.jsonl is the second partition; its third line (blank lines count, as in the file).
    assert f"ValueError: partition 1, line 3: {error.value}\n" in result.stderr, result.stderr
