"""Reshapes JSON Lines with PySpark: each partition in blocks of lines, one library call per block.

    python reshape_jsonl.py '../dask/sample/*.jsonl' /tmp/out --master 'local[2]'          # JSON Lines
    python reshape_jsonl.py '../dask/sample/*.jsonl' /tmp/out --master 'local[2]' --format parquet
    spark-submit reshape_jsonl.py 's3a://bucket/events/*.jsonl' s3a://bucket/out --format parquet
    python reshape_jsonl.py 'in/*.jsonl' /tmp/out --exports 'in/*.json'      # and Firebase export files

The input is any path or URL ``sc.textFile`` reads (local paths and globs, ``file://``, ``s3a://``,
``hdfs://``, ...: whatever the cluster's Hadoop filesystems read), in partitions of lines. Each
partition's lines are grouped into blocks (``--block-lines`` lines, at most about 4 MB), and each
block is reshaped by one ``rules.apply(block, input_lines=True)``: the library splits the lines,
skips blank ones and reshapes each record, with the GIL released. ``--block-lines 1`` makes one
call per record instead, for comparison.

The output is a Spark output folder at any such URL: JSON Lines (``saveAsTextFile``: part files of
a record per line), or Parquet with ``--format parquet`` (``spark.read.json`` on the reshaped
records, which infers one schema from them all, then ``write.parquet``). ``--exports URL`` adds
Firebase export files, each one keyed collection ``{"<id>": {...}}`` reshaped whole by
``--export-rules`` with ``output_lines=True``.

A line that is not JSON, or that a rule fails on, fails the job with a ValueError that names the
partition, the line within it, and the library's error for that line; ``--skip-invalid-lines``
skips lines that are not JSON instead (as the library's option does).
"""

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Iterable, Iterator, List, Tuple

from pyspark import StorageLevel
from pyspark.sql import SparkSession

import reshape

HERE = Path(__file__).resolve().parent
BLOCK_CHARS = 4_000_000  # a block ends here whatever --block-lines says, so long records stay bounded


def blocks(lines: Iterable[str], block_lines: int) -> Iterator[Tuple[int, List[str]]]:
    """Groups a partition's lines into blocks: yields (the number of the block's first line, its lines)."""
    block: List[str] = []
    size, first = 0, 1
    for number, line in enumerate(lines, start=1):
        block.append(line)
        size += len(line)
        if len(block) >= block_lines or size >= BLOCK_CHARS:
            yield first, block
            block, size, first = [], 0, number + 1
    if block:
        yield first, block


def reshape_block(rules: reshape.Rules, lines: List[str], partition: int, first: int,
                  skip_invalid_lines: bool) -> List[str]:
    """One library call for a block of lines (without their line breaks, as textFile gives them)."""
    try:
        output = rules.apply("\n".join(lines), input_lines=True, skip_invalid_lines=skip_invalid_lines)
    except reshape.ReshapeError as error:
        raise located(rules, error, lines, partition, first) from None
    return output.decode("utf-8").split("\n")[:-1]  # a record per line, each ends in "\n"; never splitlines()


def located(rules: reshape.Rules, error: reshape.ReshapeError, lines: List[str], partition: int,
            first: int) -> ValueError:
    """The error for a block, as the error of its failing line: which partition, which line in it."""
    if not 1 <= error.line <= len(lines):  # not a line's error (an output limit): name the block
        return ValueError(f"partition {partition}, lines {first}-{first + len(lines) - 1}: {error}")
    number = first + error.line - 1
    try:
        rules.apply(lines[error.line - 1])
    except reshape.ReshapeError as line_error:  # the same failure, its line and column within the line
        error = line_error
    return ValueError(f"partition {partition}, line {number}: {error}")


def main(argv: List[str] = sys.argv[1:]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", help="JSON Lines files: a path, glob or URL that sc.textFile reads")
    parser.add_argument("dst", help="the output folder (a path or URL), which must not exist")
    parser.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl", help="the output format (jsonl)")
    parser.add_argument("--rules", type=Path, default=HERE / "rules.json", help="rules for each JSON Lines record")
    parser.add_argument("--exports", help="Firebase export files to add: a path, glob or URL, each reshaped whole")
    parser.add_argument("--export-rules", type=Path, default=HERE / "export-rules.json",
                        help="rules for a whole export file; must give a collection")
    parser.add_argument("--partitions", type=int, help="the least number of input partitions (textFile's minPartitions)")
    parser.add_argument("--block-lines", type=int, default=10_000, help="lines per library call (10000)")
    parser.add_argument("--skip-invalid-lines", action="store_true", help="skip lines that are not JSON")
    parser.add_argument("--master", help="the Spark master, e.g. local[2] (default: spark-submit's, or local[*])")
    args = parser.parse_args(argv)
    if args.block_lines < 1:
        parser.error("--block-lines must be at least 1")

    # In local mode the Python workers run this interpreter, which has the reshape package; on a
    # cluster, set PYSPARK_PYTHON to the executors' Python that has it.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("reshape-jsonl")
    spark = (builder.master(args.master) if args.master else builder).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    sc = spark.sparkContext

    # Read and compiled here; the functions below carry the Rules to the executors, where they are
    # compiled again (a Rules pickles as its rules document).
    rules = reshape.Rules.from_file(args.rules)
    export_rules = reshape.Rules.from_file(args.export_rules)
    block_lines, skip_invalid_lines = args.block_lines, args.skip_invalid_lines

    def reshape_partition(partition: int, lines: Iterable[str]) -> Iterator[str]:
        """A partition of JSON Lines lines, reshaped block by block (on an executor)."""
        for first, block in blocks(lines, block_lines):
            yield from reshape_block(rules, block, partition, first, skip_invalid_lines)

    def reshape_exports(files: Iterable[Tuple[str, bytes]]) -> Iterator[str]:
        """Firebase export files, (path, bytes), each reshaped whole: a record per member."""
        for path, data in files:
            try:
                output = export_rules.apply(data, output_lines=True)
            except reshape.ReshapeError as error:
                raise ValueError(f"{path}: {error}") from None
            yield from output.decode("utf-8").split("\n")[:-1]

    started = time.perf_counter()
    lines = sc.textFile(args.src, args.partitions) if args.partitions else sc.textFile(args.src)
    records = lines.mapPartitionsWithIndex(reshape_partition)
    if args.exports:
        records = records.union(sc.binaryFiles(args.exports).mapPartitions(reshape_exports))
    if args.format == "jsonl":
        records.saveAsTextFile(args.dst)
        elapsed = time.perf_counter() - started
        count = spark.read.text(args.dst).count()
    else:
        # spark.read.json reads the records twice (to infer the schema, then to convert them):
        # keep them rather than reshape them twice.
        records.persist(StorageLevel.MEMORY_AND_DISK)
        spark.read.json(records).write.parquet(args.dst)
        records.unpersist()
        elapsed = time.perf_counter() - started
        written = spark.read.parquet(args.dst)
        written.printSchema()
        count = written.count()
    print(f"{count} records -> {args.dst} ({args.format}) in {elapsed:.1f} s, {count / elapsed:,.0f} records/s, "
          f"on {sc.master}")
    spark.stop()


if __name__ == "__main__":
    main()
