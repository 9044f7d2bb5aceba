#!/usr/bin/env python3
"""The Python peers: what one would write instead of Reshape, file to file, compact JSON out.

    python3 peer_python.py {json|orjson} {A|B} {gc|nogc} INPUT OUTPUT

Workload A is `[{"op":"keyedToArray","idKey":"id","wrapIn":"users"}]`; workload B adds
emptyObjectToNull, blankStringToNull and convertKeys to snake_case (docs/rules.md). `nogc` calls
gc.disable() first, the usual trick for building millions of small dicts and lists (the cyclic
collector otherwise rescans them over and over). Each run is a whole process, as a script would be.
"""

import gc
import re
import sys
from functools import lru_cache
from pathlib import Path

# A camelCase boundary: lower or digit then upper (`displayName`), or the last capital of a run
# of capitals before a lowercase letter (`myURLProperty` -> my_url_property), which is what
# Foundation's convertToSnakeCase does for ASCII names that start with a lowercase letter.
_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@lru_cache(maxsize=None)
def snake_case(name):
    return _BOUNDARY.sub("_", name).lower()


def fix(value):
    """emptyObjectToNull + blankStringToNull + convertKeys (deep), in one recursive pass.

    An object is tested for emptiness before its members are fixed, as the rules select before
    they edit: {"a": {"b": {}}} gives {"a": {"b": null}}, not {"a": null}.
    """
    kind = type(value)
    if kind is dict:
        if not value:
            return None
        return {snake_case(key): fix(member) for key, member in value.items()}
    if kind is list:
        return [fix(element) for element in value]
    if kind is str and not value:
        return None
    return value


def workload_a(data):
    """keyedToArray with idKey "id", wrapIn "users": the id first, then the record's members."""
    return {"users": [{"id": key, **record} for key, record in data.items()]}


def workload_b(data):
    """Workload A, then {} and "" to null and snake_case names, everywhere below the root."""
    return {"users": [{"id": key, **{snake_case(name): fix(member) for name, member in record.items()}}
                      for key, record in data.items()]}


def main():
    parser_name, workload, collector, source, destination = sys.argv[1:6]
    if collector == "nogc":
        gc.disable()
    transform = {"A": workload_a, "B": workload_b}[workload]
    if parser_name == "orjson":
        import orjson

        Path(destination).write_bytes(orjson.dumps(transform(orjson.loads(Path(source).read_bytes()))))
    elif parser_name == "json":
        import json

        output = json.dumps(transform(json.loads(Path(source).read_bytes())), ensure_ascii=False, separators=(",", ":"))
        Path(destination).write_text(output, encoding="utf-8")
    else:
        sys.exit(f"unknown parser {parser_name!r}: json or orjson")


if __name__ == "__main__":
    main()
