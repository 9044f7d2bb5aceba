"""Reshapes a folder of JSON Lines files and Firebase export files into JSON Lines, with Dask.

    python reshape_folder.py sample out                 # rules.json, export-rules.json, 2 workers
    python reshape_folder.py in out --workers 4 --rules my-rules.json --export-rules my-export-rules.json

* ``*.jsonl``: each line is a record, reshaped by the rules file on its own; blank lines are skipped.
* ``*.json``: a Firebase export, one keyed collection ``{"<id>": {...}}`` per file, reshaped whole by
  the export rules file (which starts with ``keyedToArray``); each record becomes one output line.

Each input file gives one output file of the same name ending in ``.jsonl``, one JSON record per
line. The work runs on a ``distributed.LocalCluster`` of worker processes: the compiled rules are
shipped to them with the tasks (a ``reshape.Rules`` pickles as its rules document and is compiled
again where it lands), so the code below just maps ``rules.apply``.
"""

import argparse
import os
import sys
import time
from pathlib import Path
from typing import List

import dask
import dask.bag as db
from distributed import Client, LocalCluster

import reshape

HERE = Path(__file__).resolve().parent


def reshape_export(path: str, rules: reshape.Rules) -> List[bytes]:
    """One Firebase export file: its records, reshaped, one JSON text each."""
    with open(path, "rb") as file:
        return rules.apply(file.read(), output_lines=True).splitlines()


def write_lines(records: List[bytes], path: Path) -> None:
    """Writes records as JSON Lines: each on a line of its own (no records, an empty file)."""
    with open(path, "wb") as file:
        for record in records:
            file.write(record + b"\n")


def reshape_folder(src: Path, dst: Path, rules: reshape.Rules, export_rules: reshape.Rules) -> List[Path]:
    """Reshapes every *.jsonl and *.json file of `src` into `dst`, on the current Dask client.

    Returns the paths written, one per input file.
    """
    lines_files = sorted(src.glob("*.jsonl"))
    export_files = sorted(src.glob("*.json"))
    outputs = [dst / (path.stem + ".jsonl") for path in lines_files + export_files]
    if len(set(outputs)) != len(outputs):
        raise SystemExit(f"{src}: two input files would give the same output name (a.jsonl and a.json?)")
    dst.mkdir(parents=True, exist_ok=True)

    bags = []
    if lines_files:
        # One partition per file (blocksize=None), so that each output file matches an input file.
        lines = db.read_text([str(path) for path in lines_files], blocksize=None)
        bags.append(lines.filter(str.strip).map(rules.apply))
    if export_files:
        exports = db.from_sequence([str(path) for path in export_files], npartitions=len(export_files))
        bags.append(exports.map(reshape_export, export_rules).flatten())
    if not bags:
        return []
    # One partition per input file: write each to its output file, on the workers.
    partitions = db.concat(bags).to_delayed()
    assert len(partitions) == len(outputs), (len(partitions), len(outputs))
    dask.compute(*[dask.delayed(write_lines)(records, path) for records, path in zip(partitions, outputs)])
    return outputs


def main(argv: List[str] = sys.argv[1:]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path, help="the folder of *.jsonl and *.json files")
    parser.add_argument("dst", type=Path, help="the folder to write the *.jsonl outputs into (created if missing)")
    parser.add_argument("--rules", type=Path, default=HERE / "rules.json", help="rules for each JSON Lines record")
    parser.add_argument("--export-rules", type=Path, default=HERE / "export-rules.json",
                        help="rules for a whole Firebase export file; must give a collection")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (2)")
    args = parser.parse_args(argv)

    rules = reshape.Rules(args.rules)
    export_rules = reshape.Rules(args.export_rules)
    with LocalCluster(processes=True, n_workers=args.workers, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        started = time.perf_counter()
        written = reshape_folder(args.src, args.dst, rules, export_rules)
        elapsed = time.perf_counter() - started
        worker_pids = set(client.run(os.getpid).values())
    records = sum(1 for path in written for line in open(path, "rb") if line.strip())
    print(f"{len(written)} files, {records} records -> {args.dst} in {elapsed:.1f} s "
          f"on {len(worker_pids - {os.getpid()})} worker processes")


if __name__ == "__main__":
    main()
