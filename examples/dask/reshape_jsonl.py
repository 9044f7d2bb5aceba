"""Reshapes JSON Lines with Dask: each partition in blocks of lines, one library call per block.

    python reshape_jsonl.py 'sample/*.jsonl' /tmp/out                        # JSON Lines, 2 local workers
    python reshape_jsonl.py 'sample/*.jsonl' /tmp/out --format parquet
    python reshape_jsonl.py 's3://bucket/events/*.jsonl' s3://bucket/out --scheduler tcp://10.0.0.5:8786
    python reshape_jsonl.py 'in/*.jsonl' /tmp/out --exports 'in/*.json'      # and Firebase export files

The input is any URL `dask.bag.read_text` reads (a path, a glob, ``s3://``, ``gs://``, ``hdfs://``,
...: whatever fsspec has a filesystem for), cut into partitions of ``--blocksize`` bytes on line
boundaries. Each partition's lines are grouped into blocks (``--block-lines`` lines, at most about
4 MB), and each block is reshaped by one ``rules.apply(block, input_lines=True)``: the library splits
the lines, skips blank ones and reshapes each record, with the GIL released. ``--block-lines 1``
makes one call per record instead, for comparison.

The output is a folder at any fsspec URL: ``part-NNNNN.jsonl`` files (one per partition, a record per
line), or ``part-NNNNN.parquet`` files with ``--format parquet`` (pyarrow), whose one schema is
inferred from all the records. ``--exports URL`` adds Firebase export files, each one keyed
collection ``{"<id>": {...}}`` reshaped whole by ``--export-rules`` with ``output_lines=True``.

A line that is not JSON, or that a rule fails on, fails the run with a ValueError that names the
partition, the line within it, and the library's error for that line;
``--skip-invalid-lines`` skips lines that are not JSON instead (as the library's option does).
"""

import argparse
import io
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, List, Optional, Tuple

import dask
import dask.bag as db
from dask.bytes import read_bytes
from distributed import Client, LocalCluster

import reshape

if TYPE_CHECKING:  # imported where used: pyarrow is needed for --format parquet only
    import pyarrow as pa
    from fsspec import AbstractFileSystem

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
                  skip_invalid_lines: bool) -> List[bytes]:
    """One library call for a block of lines (each ending in a line break, as read_text gives them)."""
    try:
        output = rules.apply("".join(lines), input_lines=True, skip_invalid_lines=skip_invalid_lines)
    except reshape.ReshapeError as error:
        raise located(rules, error, lines, partition, first) from None
    return output.split(b"\n")[:-1]  # a record per line, each line ends in "\n"; never splitlines()


def located(rules: reshape.Rules, error: reshape.ReshapeError, lines: List[str], partition: int,
            first: int) -> ValueError:
    """The error for a block, as the error of its failing line: which partition, which line in it."""
    if not 1 <= error.line <= len(lines):  # not a line's error (an output limit): name the block
        return ValueError(f"partition {partition}, lines {first}-{first + len(lines) - 1}: {error}")
    number = first + error.line - 1
    try:
        rules.apply(lines[error.line - 1].rstrip("\r\n"))
    except reshape.ReshapeError as line_error:  # the same failure, its line and column within the line
        error = line_error
    return ValueError(f"partition {partition}, line {number}: {error}")


def reshape_partition(lines: List[str], partition: int, rules: reshape.Rules, block_lines: int,
                      skip_invalid_lines: bool) -> List[bytes]:
    """A partition of JSON Lines lines, reshaped block by block: the reshaped records."""
    records: List[bytes] = []
    for first, block in blocks(lines, block_lines):
        records += reshape_block(rules, block, partition, first, skip_invalid_lines)
    return records


def reshape_export(data: bytes, rules: reshape.Rules) -> List[bytes]:
    """A Firebase export file, reshaped whole: a record per member of its collection."""
    return rules.apply(data, output_lines=True).split(b"\n")[:-1]


def reshaped_bag(args: argparse.Namespace, rules: reshape.Rules, export_rules: reshape.Rules) -> db.Bag:
    """The reshaped records, lazily: a bag of JSON texts (bytes), one partition per input partition."""
    lines = db.read_text(args.src, blocksize=args.blocksize, encoding="utf-8")
    # to_delayed/from_delayed to hand each partition its index, for the error messages.
    parts = [dask.delayed(reshape_partition)(part, index, rules, args.block_lines, args.skip_invalid_lines)
             for index, part in enumerate(lines.to_delayed())]
    if args.exports:
        _, files = read_bytes(args.exports, blocksize=None, sample=False)
        parts += [dask.delayed(reshape_export)(data, export_rules) for file in files for data in file]
    return db.from_delayed(parts)


def write_jsonl(records: db.Bag, dst: str) -> int:
    """Writes part-NNNNN.jsonl files, a record per line; returns the number of records."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(dst)
    fs.makedirs(root, exist_ok=True)
    # Each task writes its partition and returns its count: the records are reshaped once (to_textfiles
    # and count() computed together would reshape each partition twice).
    counts = dask.compute(*[dask.delayed(write_jsonl_part)(part, fs, f"{root}/part-{index:05d}.jsonl")
                            for index, part in enumerate(records.to_delayed())])
    return sum(counts)


def write_jsonl_part(records: List[bytes], fs: "AbstractFileSystem", path: str) -> int:
    """One partition's records, a line each, into one file (on a worker); returns their number."""
    with fs.open(path, "wb") as file:
        file.write(b"".join(record + b"\n" for record in records))
    return len(records)


def write_parquet(records: db.Bag, dst: str) -> int:
    """Writes part-NNNNN.parquet files with one schema, inferred from all records; returns their number.

    Two passes over the reshaped records, which stay in the workers' memory in between (spilled to
    disk past its limit), as Spark's spark.read.json does: the schema of each partition, then each
    partition converted with the schema that merges them all.
    """
    import fsspec
    import pyarrow as pa

    records = records.persist()
    schemas = dask.compute(*[dask.delayed(arrow_schema)(part) for part in records.to_delayed()])
    schema = pa.unify_schemas([s for s in schemas if s is not None] or [pa.schema([])], promote_options="permissive")
    fs, root = fsspec.core.url_to_fs(dst)
    fs.makedirs(root, exist_ok=True)
    counts = dask.compute(*[dask.delayed(write_parquet_part)(part, schema, fs, f"{root}/part-{index:05d}.parquet")
                            for index, part in enumerate(records.to_delayed())])
    return sum(counts)


def arrow_table(records: List[bytes], schema: "Optional[pa.Schema]" = None) -> "pa.Table":
    """Records as an Arrow table: with `schema`, converted to it; without, with the schema they imply."""
    import pyarrow.json as pajson

    options = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error" if schema else "infer")
    return pajson.read_json(io.BytesIO(b"\n".join(records)), parse_options=options)


def arrow_schema(records: List[bytes]) -> "Optional[pa.Schema]":
    """The schema one partition's records imply (on a worker), or None for no record."""
    return arrow_table(records).schema if records else None


def write_parquet_part(records: List[bytes], schema: "pa.Schema", fs: "AbstractFileSystem", path: str) -> int:
    """One partition's records, with the merged schema, into one Parquet file (on a worker); returns their number."""
    import pyarrow.parquet as pq

    table = arrow_table(records, schema) if records else schema.empty_table()
    with fs.open(path, "wb") as file:
        pq.write_table(table, file)
    return table.num_rows


def main(argv: List[str] = sys.argv[1:]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", help="JSON Lines files: a path, glob or URL that dask.bag.read_text reads")
    parser.add_argument("dst", help="the output folder: a path or URL (fsspec)")
    parser.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl", help="the output format (jsonl)")
    parser.add_argument("--rules", type=Path, default=HERE / "rules.json", help="rules for each JSON Lines record")
    parser.add_argument("--exports", help="Firebase export files to add: a path, glob or URL, each reshaped whole")
    parser.add_argument("--export-rules", type=Path, default=HERE / "export-rules.json",
                        help="rules for a whole export file; must give a collection")
    parser.add_argument("--blocksize", default="64MiB", help="bytes of input per partition (64MiB)")
    parser.add_argument("--block-lines", type=int, default=10_000, help="lines per library call (10000)")
    parser.add_argument("--skip-invalid-lines", action="store_true", help="skip lines that are not JSON")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster (2)")
    parser.add_argument("--scheduler", help="the address of a running Dask scheduler, instead of a local cluster")
    args = parser.parse_args(argv)
    if args.block_lines < 1:
        parser.error("--block-lines must be at least 1")

    # Read and compiled here; each task carries the Rules, which pickle as their rules document.
    rules = reshape.Rules.from_file(args.rules)
    export_rules = reshape.Rules.from_file(args.export_rules)
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    with client:
        workers = len(client.scheduler_info()["workers"])
        started = time.perf_counter()
        records = reshaped_bag(args, rules, export_rules)
        count = write_parquet(records, args.dst) if args.format == "parquet" else write_jsonl(records, args.dst)
        elapsed = time.perf_counter() - started
    if not args.scheduler:
        cluster.close()
    print(f"{count} records -> {args.dst} ({args.format}) in {elapsed:.1f} s, {count / elapsed:,.0f} records/s, "
          f"on {workers} workers")


if __name__ == "__main__":
    main()
