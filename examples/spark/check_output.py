"""Checks what reshape_folder.py wrote and printed; scripts/test-spark runs it after the example.

    python check_output.py SRC DST SUMMARY     # SUMMARY: the example's standard output, saved

* DST's part files hold exactly the records `Rules.apply` gives in this process for every input
  file of SRC (the same multiset: Spark does not promise the order of files), none more, none less;
* the records of the committed sample (../dask/sample, copied into SRC) are there, byte for byte;
* the printed `spark.read.json` schema is the expected one, and the printed count is right.

Prints one line of summary; exits 1 with the differences otherwise.
"""

import sys
from collections import Counter
from pathlib import Path
from typing import List

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

# spark.read.json's schema for those records: snake_case names only, {} and "" gone to null (so
# avatar and settings are structs, plan a string), balance a double (7 and 12.5 merge), sorted.
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


def expected_records(src: Path) -> List[bytes]:
    rules = reshape.Rules(HERE / "rules.json")
    export_rules = reshape.Rules(HERE / "export-rules.json")
    records: List[bytes] = []
    for path in sorted(src.glob("*.jsonl")):
        records += [rules.apply(line) for line in path.read_bytes().split(b"\n") if line.strip()]
    for path in sorted(src.glob("*.json")):
        records += export_rules.apply(path.read_bytes(), output_lines=True).splitlines()
    return records


def main() -> None:
    src, dst, summary_path = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    problems = []

    parts = sorted(dst.glob("part-*"))
    if not (dst / "_SUCCESS").exists() or not parts:
        problems.append(f"{dst}: no _SUCCESS or no part files")
    written = [line for part in parts for line in part.read_bytes().split(b"\n") if line]
    expected = expected_records(src)
    missing, extra = Counter(expected) - Counter(written), Counter(written) - Counter(expected)
    if missing or extra:
        problems.append(f"{len(written)} records written, {len(expected)} expected; "
                        f"missing {sum(missing.values())}, e.g. {list(missing)[:2]}; "
                        f"unexpected {sum(extra.values())}, e.g. {list(extra)[:2]}")
    for record in SAMPLE_RECORDS:
        if record.encode("utf-8") not in written:
            problems.append(f"not written: {record}")

    summary = summary_path.read_text(encoding="utf-8")
    if SCHEMA not in summary:
        problems.append(f"the printed schema is not the expected one:\n{summary}")
    if f"\n{len(expected)} records -> {dst} in " not in summary:
        problems.append(f"the printed count is not {len(expected)}:\n{summary}")

    columns = sum(line.startswith(" |-- ") for line in SCHEMA.splitlines())
    files = len(list(src.glob("*.jsonl"))) + len(list(src.glob("*.json")))
    if problems:
        print("check_output: FAILED\n" + "\n".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"check_output: {len(written)} records from {files} files, each as Rules.apply gives it in-process; "
          f"{len(SAMPLE_RECORDS)} literal records; schema ({columns} columns) and count as expected")


if __name__ == "__main__":
    main()
