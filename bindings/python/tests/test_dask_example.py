"""examples/dask/reshape_folder.py on a real distributed.LocalCluster with two worker processes.

The example runs as its users run it (a subprocess, `python reshape_folder.py SRC DST`), on a folder
of JSON Lines and Firebase export files: the committed sample, generated files, and edge cases.
Every output file must hold exactly what `Rules.apply` gives in this process, record by record;
a few records are also checked literally. The rules reach the workers by pickling, as the example
ships them: `bag.map(rules.apply)`.

dask[distributed] is a test dependency (scripts/test installs it): without it this test fails, it is
not skipped.
"""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import reshape

from conftest import REPOSITORY

EXAMPLE = REPOSITORY / "examples" / "dask"


def require_dask() -> None:
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as error:
        missing = str(error)
    else:
        return
    pytest.fail(f"the Dask example needs dask[distributed] in this environment "
                f"(pip install 'dask[distributed]'; scripts/test installs it): {missing}", pytrace=False)


def load_make_input():
    spec = importlib.util.spec_from_file_location("make_input", EXAMPLE / "make_input.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_input


def expected_lines(rules: reshape.Rules, data: bytes) -> List[bytes]:
    """A JSON Lines file, reshaped record by record in this process: blank lines skipped."""
    return [rules.apply(line) for line in data.split(b"\n") if line.strip()]


def expected_export(rules: reshape.Rules, data: bytes) -> List[bytes]:
    """A Firebase export file, reshaped whole in this process: one line per record."""
    return rules.apply(data, output_lines=True).splitlines()


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


def test_dask_example_on_a_local_cluster_of_two_worker_processes(tmp_path: Path) -> None:
    require_dask()
    src, dst = tmp_path / "in", tmp_path / "out"
    shutil.copytree(EXAMPLE / "sample", src)
    users = load_make_input()(src, files=6, megabytes=1.5, seed=7)
    assert users > 3000
    # Edge cases: CRLF and a line of white space; a file with no line; an export with no record.
    (src / "crlf.jsonl").write_bytes('{"id":"c1","fooBar":"","emptyThing":{}}\r\n  \r\n{"id":"c2","ΔelTa":[{}]}\r\n'.encode())
    (src / "empty.jsonl").write_bytes(b"")
    (src / "empty-export.json").write_bytes(b"{}\n")

    result = subprocess.run(
        [sys.executable, str(EXAMPLE / "reshape_folder.py"), str(src), str(dst), "--workers", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr

    rules = reshape.Rules(EXAMPLE / "rules.json")
    export_rules = reshape.Rules(EXAMPLE / "export-rules.json")
    expected = {}
    for path in sorted(src.iterdir()):
        data = path.read_bytes()
        records = expected_lines(rules, data) if path.suffix == ".jsonl" else expected_export(export_rules, data)
        expected[path.stem + ".jsonl"] = records
    assert sorted(path.name for path in dst.iterdir()) == sorted(expected)
    total = 0
    for name, records in expected.items():
        output = (dst / name).read_bytes()
        assert output == b"".join(record + b"\n" for record in records), name
        total += len(records)
    assert total == users + len(SAMPLE_SIGNUPS) + len(SAMPLE_EXPORT) + 2

    assert (dst / "signups.jsonl").read_text(encoding="utf-8").splitlines() == SAMPLE_SIGNUPS
    assert (dst / "users-export.jsonl").read_text(encoding="utf-8").splitlines() == SAMPLE_EXPORT
    assert (dst / "crlf.jsonl").read_text(encoding="utf-8") == '{"id":"c1","foo_bar":null,"empty_thing":null}\n{"id":"c2","δel_ta":[null]}\n'
    assert (dst / "empty.jsonl").read_bytes() == b""
    assert (dst / "empty-export.jsonl").read_bytes() == b""

    # The example reports the worker processes it ran on (pids other than its own).
    files = len(expected)
    assert result.stdout.startswith(f"{files} files, {total} records -> {dst} in "), result.stdout
    assert result.stdout.rstrip().endswith(" on 2 worker processes"), result.stdout
