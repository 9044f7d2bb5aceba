#!/usr/bin/env python3
"""The orjson peer of small_response.c: the same work per document, in microseconds.

    python3 small_response_orjson.py INPUT.json [CALLS [ROUNDS]]

Per document: orjson.loads, keyedToArray (idKey "uid", wrapIn "users"), {} to null and
snake_case names to camelCase everywhere below the root (small_rules.json), orjson.dumps. Prints
the output once (run.py checks it against the C program's), then, after a warm-up, the best and
the median round of CALLS documents. The garbage collector stays on, as in a server.
"""

import sys
import time
from functools import lru_cache

import orjson


@lru_cache(maxsize=None)
def camel_case(name):
    """Foundation's convertFromSnakeCase, for ASCII names: _leading and trailing_ underscores stay."""
    stripped = name.strip("_")
    if not stripped or "_" not in stripped:
        return name
    start = len(name) - len(name.lstrip("_"))
    words = [word for word in stripped.split("_") if word]
    return name[:start] + words[0].lower() + "".join(word.capitalize() for word in words[1:]) + name[start + len(stripped):]


def fix(value):
    """emptyObjectToNull and convertKeys (deep) in one pass; {} is tested before its members."""
    kind = type(value)
    if kind is dict:
        if not value:
            return None
        return {camel_case(key): fix(member) for key, member in value.items()}
    if kind is list:
        return [fix(element) for element in value]
    return value


def reshape_document(document):
    data = orjson.loads(document)
    users = [{"uid": key, **{camel_case(name): fix(member) for name, member in record.items()}}
             for key, record in data.items()]
    return orjson.dumps({"users": users})


def main():
    document = open(sys.argv[1], "rb").read()
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    print("output: " + reshape_document(document).decode("utf-8"))
    for _ in range(calls // 4 + 1):
        reshape_document(document)
    per_call = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            reshape_document(document)
        per_call.append((time.perf_counter() - start) / calls * 1e6)
    per_call.sort()
    print(f"bytes: {len(document)}\ncalls: {calls}\nrounds: {rounds}")
    print(f"us_per_call_best: {per_call[0]:.3f}\nus_per_call_median: {per_call[len(per_call) // 2]:.3f}")


if __name__ == "__main__":
    main()
