"""Reshapes a folder of JSON Lines files and Firebase export files into JSON Lines, with PySpark.

    python reshape_folder.py ../dask/sample /tmp/reshaped-spark          # local[2], rules.json, export-rules.json
    python reshape_folder.py in out --master local[4] --rules my-rules.json --export-rules my-export-rules.json

* ``*.jsonl``: each line is a record, reshaped by the rules file on its own; blank lines are skipped.
* ``*.json``: a Firebase export, one keyed collection ``{"<id>": {...}}`` per file, reshaped whole by
  the export rules file (which starts with ``keyedToArray``); each record becomes one output line.

The output is a Spark text output folder (``part-NNNNN`` files, one JSON record per line), which is
then read back with ``spark.read.json`` to show its schema and count. The compiled rules travel to
the executors inside the functions that use them: a ``reshape.Rules`` pickles as its rules
document and is compiled again where it lands, once per task.
"""

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Iterable, Iterator, List, Tuple

from pyspark.sql import SparkSession

import reshape

HERE = Path(__file__).resolve().parent


def main(argv: List[str] = sys.argv[1:]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path, help="the folder of *.jsonl and *.json files")
    parser.add_argument("dst", help="the output folder, which must not exist")
    parser.add_argument("--rules", type=Path, default=HERE / "rules.json", help="rules for each JSON Lines record")
    parser.add_argument("--export-rules", type=Path, default=HERE / "export-rules.json",
                        help="rules for a whole Firebase export file; must give a collection")
    parser.add_argument("--master", default="local[2]", help="the Spark master (local[2])")
    args = parser.parse_args(argv)

    # Python workers run this interpreter, which has the reshape package (unless told otherwise).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master(args.master).appName("reshape-folder").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    sc = spark.sparkContext

    rules = reshape.Rules(args.rules)
    export_rules = reshape.Rules(args.export_rules)

    def reshape_lines(lines: Iterable[str]) -> Iterator[str]:
        """A partition of JSON Lines lines, reshaped record by record (on an executor)."""
        for line in lines:
            if line.strip():
                yield rules.apply(line).decode("utf-8")

    def reshape_exports(files: Iterable[Tuple[str, str]]) -> Iterator[str]:
        """A partition of (path, text) Firebase export files, each reshaped whole, a line per record."""
        for _path, text in files:
            for record in export_rules.apply(text, output_lines=True).splitlines():
                yield record.decode("utf-8")

    started = time.perf_counter()
    parts = []
    if any(args.src.glob("*.jsonl")):
        parts.append(sc.textFile(str(args.src / "*.jsonl")).mapPartitions(reshape_lines))
    if any(args.src.glob("*.json")):
        parts.append(sc.wholeTextFiles(str(args.src / "*.json")).mapPartitions(reshape_exports))
    if not parts:
        raise SystemExit(f"{args.src}: no *.jsonl or *.json files")
    sc.union(parts).saveAsTextFile(args.dst)
    elapsed = time.perf_counter() - started

    users = spark.read.json(args.dst)
    users.printSchema()
    print(f"{users.count()} records -> {args.dst} in {elapsed:.1f} s ({args.master})")
    spark.stop()


if __name__ == "__main__":
    main()
