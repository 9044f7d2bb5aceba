#!/usr/bin/env python3
"""Reshape through its Python binding, file to file, as a script would call it.

    python3 reshape_binding.py RULES INPUT OUTPUT [JOBS|memory]

Uses Rules.apply_file(INPUT, OUTPUT, jobs=JOBS) when the binding has it; without JOBS, jobs keeps
its default (None: one thread per core). A binding from before apply_file reads the whole input,
calls Rules.apply and writes the result, and says so on standard error. run.py finds the package
with PYTHONPATH and the library with RESHAPE_LIBRARY. With "memory" instead of JOBS, the in-memory
API: read the whole input, Rules.apply(data, jobs=None) (every core, as apply_file's default),
write; its time and peak memory are the figures wanted there. A binding whose apply has no jobs
runs it on the calling thread.
Prints how long compiling the rules and the call took on standard error, as
`reshape_binding: call took S s`: run.py reports it next to the whole process's time. In memory,
the call is Rules.apply alone: reading the input into memory and writing the result out are
Python's, not the library's, and come before and after it.
"""

import sys
import time
from pathlib import Path

import reshape


def main():
    rules_path, source, destination = sys.argv[1:4]
    in_memory = len(sys.argv) > 4 and sys.argv[4] == "memory"
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 and not in_memory else None
    data = Path(source).read_bytes() if in_memory else b""
    started = time.perf_counter()
    rules = reshape.Rules(Path(rules_path).read_text(encoding="utf-8"))
    apply_file = getattr(rules, "apply_file", None)
    if in_memory:
        try:
            result = rules.apply(data, jobs=None)
        except TypeError:  # a binding from before apply's jobs
            result = rules.apply(data)
        took = time.perf_counter() - started
        Path(destination).write_bytes(result)
        print(f"reshape_binding: call took {took:.4f} s", file=sys.stderr)
        return
    if apply_file is None:
        print("reshape_binding: no Rules.apply_file; used apply(read_bytes) + write_bytes", file=sys.stderr)
        Path(destination).write_bytes(rules.apply(Path(source).read_bytes()))
    elif jobs is not None:  # apply_file came with its jobs setting
        apply_file(source, destination, jobs=jobs)
    else:
        apply_file(source, destination)
    # The call alone, for run.py: what the binding adds, without Python's own start and imports.
    print(f"reshape_binding: call took {time.perf_counter() - started:.4f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
