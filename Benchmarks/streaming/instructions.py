"""Instructions per op workload, counted by valgrind's callgrind: a figure the VM's speed does not move.

    python3 Benchmarks/streaming/instructions.py RESHAPE_CLI PAYLOAD [RECORDS] [WORKLOAD...]

Takes the first RECORDS records (default 12,000) of PAYLOAD (a Firebase-style payload with
`groups`, as run.py makes it: `payload-*-groups*.json` in its --out-dir), runs the CLI with
`--jobs 1` on them under callgrind for keyedToArray alone and each op workload of run.py (all of
them by default), and prints each one's instructions and their ratio to keyedToArray alone's. The
ratio tracks the wall-time ratio run.py reports on an idle machine, a little below it (the token
route's indirect calls and branches cost more per instruction). Needs valgrind; about 10 s per
workload.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the workloads)


def instructions(cli: str, rules: str, source: str, folder: str, fails: bool = False) -> int:
    """The CLI's instructions under callgrind; with `fails`, the rules must stop with `rule_failed`."""
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/callgrind.out", cli,
                           "--jobs", "1", "--rules", rules, source, "-o", f"{folder}/out.json"],
                          capture_output=True, text=True, check=not fails)
    if fails and (done.returncode == 0 or "rule_failed" not in done.stderr):
        sys.exit(f"instructions.py: the rules were to fail with rule_failed:\n{done.stderr[-2000:]}")
    found = re.search(r"refs:\s+([\d,]+)", done.stderr)
    if not found:
        sys.exit(f"instructions.py: no count in callgrind's report:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cli, payload = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 12_000
    names = sys.argv[4:] or [name for name in run.OP_WORKLOADS if name != "KEYED"]
    with open(payload, "rb") as file:
        records = list(json.load(file).items())[:count]
    with tempfile.TemporaryDirectory(prefix="reshape-instructions-") as folder:
        source = os.path.join(folder, "sample.json")
        with open(source, "w", encoding="utf-8") as file:
            json.dump(dict(records), file, ensure_ascii=False, separators=(",", ":"))
        print(f"{len(records):,} records, {os.path.getsize(source):,} bytes; {cli} --jobs 1 under callgrind")
        counts = {}
        for name in ["KEYED"] + names:
            rules = os.path.join(folder, f"rules-{name}.json")
            with open(rules, "w") as file:
                json.dump(run.OP_WORKLOADS[name][0], file)
            counts[name] = instructions(cli, rules, source, folder)
            ratio = counts[name] / counts["KEYED"]
            label = run.OP_WORKLOADS[name][1].replace("|", "\\|")
            print(f"| {label} | {counts[name]:,} | {ratio:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
