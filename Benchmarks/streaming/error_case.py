#!/usr/bin/env python3
"""What an error costs a stream: a large payload with one fault near its end, against the same
payload without it, whole CLI processes, alternating round by round.

    python3 Benchmarks/streaming/error_case.py --reshape .build/release/reshape \\
        [--size 1000] [--seed 24301] [--rounds 5] [--out-dir /tmp/reshape-streaming-data] [--stdout]

Inputs, made once next to the payload (`payload.py`): the record at 99% of the payload replaced by
a string (`keyedToArray` refuses it); that record with `;` for the `:` after its first name
(invalid JSON); the first record replaced; and that record's `createdAt` made a string, for a
rule list on the filters' route (`keyedToArray` wrapIn `users`, `remove`, `coerce` to integer,
`renameKeys`). Prints each run, then a Markdown table: median time, range, peak RSS and the
median of the paired ratios to the successful run of the same rules. The output goes to a file
(`--output`: on an error the file is left as it was, its temporary copy removed), or with
`--stdout` to /dev/null, which leaves out the kernel's work on a gigabyte of written pages (it
moves a run on this VM by up to a second, success or not). Never part of the tests.
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import payload  # noqa: E402

KEYED = '[{"op": "keyedToArray", "idKey": "id", "wrapIn": "users"}]'
FILTERS = (
    '[{"op":"keyedToArray","idKey":"id","wrapIn":"users"},{"op":"remove","path":"$.users[*].avatar"},'
    '{"op":"coerce","path":"$.users[*].createdAt","to":"integer"},'
    '{"op":"renameKeys","path":"$.users[*]","map":{"displayName":"name"}}]'
)


def make_inputs(source: Path, out_dir: Path) -> dict:
    """The faulty copies of `source`, made once."""
    names = {
        "bad-end": out_dir / f"{source.stem}-bad-end.json",
        "invalid-end": out_dir / f"{source.stem}-invalid-end.json",
        "bad-first": out_dir / f"{source.stem}-bad-first.json",
        "coerce-end": out_dir / f"{source.stem}-coerce-end.json",
    }
    if all(path.exists() for path in names.values()):
        return names
    data = source.read_bytes()
    # A record is the value after `"<push id>":`; records follow one another as `,"-...`.
    mark = data.index(b',"-', int(len(data) * 0.99))
    start = data.index(b'":', mark + 1) + 2
    end = data.index(b',"-', start)
    record = data[start:end]
    first_start = data.index(b'":', 1) + 2
    first_end = data.index(b',"-', first_start)
    edits = {
        "bad-end": data[:start] + b'"oops"' + data[end:],
        "invalid-end": data[:start] + record.replace(b'"displayName":', b'"displayName";', 1) + data[end:],
        "bad-first": data[:first_start] + b'"oops"' + data[first_end:],
        "coerce-end": data[:start] + record.replace(b'"createdAt":', b'"createdAt":"x","was":', 1) + data[end:],
    }
    for key, edited in edits.items():
        partial = names[key].with_suffix(".partial")
        partial.write_bytes(edited)
        partial.rename(names[key])
    return names


def run(reshape: str, rules: Path, source: Path, output: Path | None) -> tuple:
    """(seconds, peak RSS in MiB, exit status, first line of the error) of one CLI run, writing
    to `output`, or to /dev/null through stdout."""
    target = ["-o", str(output)] if output else []
    with tempfile.NamedTemporaryFile() as timing, open("/dev/null", "wb") as null:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", "-o", timing.name, reshape, "--rules", str(rules), str(source)] + target,
            stdout=null, stderr=subprocess.PIPE, text=True)
        seconds, kilobytes = Path(timing.name).read_text().strip().splitlines()[-1].split()
    if output:
        output.unlink(missing_ok=True)
    return float(seconds), int(kilobytes) / 1024, done.returncode, done.stderr.strip().splitlines()[0] if done.stderr.strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reshape", required=True)
    parser.add_argument("--size", type=float, default=1000, help="megabytes (1000)")
    parser.add_argument("--seed", type=int, default=24301)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out-dir", default="/tmp/reshape-streaming-data")
    parser.add_argument("--stdout", action="store_true", help="write the output to /dev/null through stdout")
    args = parser.parse_args()
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    source = out_dir / f"firebase-{args.size:g}MB-seed{args.seed}-v{payload.GENERATOR_VERSION}.json"
    if not source.exists():
        partial = source.with_suffix(".partial")
        payload.write_payload(str(partial), args.size, args.seed, False)
        partial.rename(source)
    inputs = make_inputs(source, out_dir)
    (out_dir / "rules-error-keyed.json").write_text(KEYED)
    (out_dir / "rules-error-filters.json").write_text(FILTERS)
    keyed, filters = out_dir / "rules-error-keyed.json", out_dir / "rules-error-filters.json"
    cases = [
        ("keyedToArray, no error", keyed, source, None),
        ("keyedToArray, a bad record near the end", keyed, inputs["bad-end"], 0),
        ("keyedToArray, invalid JSON near the end", keyed, inputs["invalid-end"], 0),
        ("keyedToArray, a bad record first", keyed, inputs["bad-first"], None),
        ("four rules on the filters' route, no error", filters, source, None),
        ("the same, coerce failing near the end", filters, inputs["coerce-end"], 4),
    ]
    times = {name: [] for name, *_ in cases}
    memory = {name: [] for name, *_ in cases}
    errors = {}
    output = None if args.stdout else out_dir / "error-case-out.json"
    for round_number in range(1, args.rounds + 1):
        for name, rules, path, _ in cases:
            seconds, mib, status, error = run(args.reshape, rules, path, output)
            print(f"  round {round_number}/{args.rounds}  {name:<45} {seconds:6.2f} s {mib:6.1f} MiB  exit {status}  {error[:120]}")
            times[name].append(seconds)
            memory[name].append(mib)
            errors[name] = error
    print()
    print("| input | median time | range | peak RSS | paired ratio to success |")
    print("|---|---:|---:|---:|---:|")
    for name, _, _, base in cases:
        values = times[name]
        ratio = "–"
        if base is not None:
            paired = [error / success for error, success in zip(values, times[cases[base][0]])]
            ratio = f"{statistics.median(paired):.2f}x (medians {statistics.median(values) / statistics.median(times[cases[base][0]]):.2f}x)"
        print(f"| {args.size:g} MB, {name} | {statistics.median(values):.2f} s | {min(values):.2f}–{max(values):.2f} s "
              f"| {max(memory[name]):.0f} MiB | {ratio} |")
    print()
    for name, error in errors.items():
        if error:
            print(f"- {name}: `{error}`")


if __name__ == "__main__":
    main()
