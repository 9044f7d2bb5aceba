#!/usr/bin/env python3
"""The Python peers: what one would write instead of Reshape, file to file, compact JSON out.

    python3 peer_python.py {json|orjson} {A|B|KEYED|REMOVE|...} {gc|nogc} INPUT OUTPUT

Workload A is `[{"op":"keyedToArray","idKey":"id","wrapIn":"users"}]`; workload B adds
emptyObjectToNull, blankStringToNull and convertKeys to snake_case (docs/rules.md); the op
workloads (run.py's OP_WORKLOADS) are keyedToArray and one op, or a mixed list. `nogc` calls
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


# The op workloads of run.py (OP_WORKLOADS): keyedToArray with idKey "id" (records at $[*]), then
# one op, or a mixed list; each function does what the rules do, in their order.

def keyed(data):
    return [{"id": key, **record} for key, record in data.items()]


def with_default(record, key, value):
    """default: set where the member is missing (added at the end) or null (replaced in place)."""
    if record.get(key) is None:
        record[key] = value
    return record


def renamed(record, names):
    return {names.get(name, name): member for name, member in record.items()}


def kebab_case(name):
    return snake_case(name).replace("_", "-")


def converted_deep(value, convert):
    kind = type(value)
    if kind is dict:
        return {convert(key): converted_deep(member, convert) for key, member in value.items()}
    if kind is list:
        return [converted_deep(element, convert) for element in value]
    return value


def snake_deep(value):
    return converted_deep(value, snake_case)


def null_empty_objects(value):
    """emptyObjectToNull over $..*: every {} below the root becomes null (tested before its members)."""
    kind = type(value)
    if kind is dict:
        return {key: (None if type(member) is dict and not member else null_empty_objects(member))
                for key, member in value.items()}
    if kind is list:
        return [None if type(element) is dict and not element else null_empty_objects(element) for element in value]
    return value


def number_text(value):
    """coerce to string: a number's canonical JSON text, as orjson writes it."""
    import orjson

    return orjson.dumps(value).decode()


KEPT = {"id", "displayName", "plan", "profile"}
PLANS = {"free": 0, "pro": 1, "": None}


MATCHING = re.compile(r"last.*|is[A-Z].*")


def snake_except_profile(record):
    """convertKeys $[*] to snake_case, exclude $[*].profile: the profile object keeps its names."""
    return {snake_case(name): (member if name == "profile" else snake_deep(member)) for name, member in record.items()}


def flattened(record, member):
    """flatten: the member object's members in its place (a null member removed)."""
    out = {}
    for name, value in record.items():
        if name != member:
            out[name] = value
        elif value is not None:
            out.update(value)
    return out

OPS = {
    "KEYED": keyed,
    "REMOVE": lambda data: [{"id": key, **{n: m for n, m in record.items() if n != "tags"}} for key, record in data.items()],
    "DEFAULT": lambda data: [with_default({"id": key, **record}, "role", "user") for key, record in data.items()],
    "COERCE": lambda data: [{**record, "createdAt": str(record["createdAt"])} for record in keyed(data)],
    "RENAMEKEYS": lambda data: [renamed({"id": key, **record}, {"displayName": "name"}) for key, record in data.items()],
    "CONVERTKEYS": lambda data: [{**record, "profile": snake_deep(record["profile"])} for record in keyed(data)],
    "UNWRAP": keyed,
    "WRAP": lambda data: {"users": keyed(data)},
    "EMPTYARRAY": lambda data: [{**record, "tags": record["tags"] or None} for record in keyed(data)],
    "KEEP": lambda data: [{n: m for n, m in record.items() if n in KEPT} for record in keyed(data)],
    "HOIST": lambda data: [{**record, "avatar": None if record["avatar"] is None else record["avatar"].get("url")}
                           for record in keyed(data)],
    "FLATTEN": lambda data: [flattened(record, "profile") for record in keyed(data)],
    "MAPVALUES": lambda data: [{**record, "plan": PLANS.get(record["plan"], record["plan"])} for record in keyed(data)],
    "PLUCK": lambda data: [{**record, "groups": [group["name"] for group in record["groups"]]} for record in keyed(data)],
    "MATCHING": lambda data: [{n: m for n, m in record.items() if not MATCHING.fullmatch(n)} for record in keyed(data)],
    "KEBAB": lambda data: [{**record, "profile": converted_deep(record["profile"], kebab_case)} for record in keyed(data)],
    "EXCLUDE": lambda data: [snake_except_profile(record) for record in keyed(data)],
    "FILTER": lambda data: [{**record, "groups": [group for group in record["groups"] if group.get("role") != "member"]}
                            for record in keyed(data)],
    "REMOVERECORDS": lambda data: [record for record in keyed(data) if record.get("plan") != "free"],
    "MIXED1": lambda data: {"data": [
        {**record, "createdAt": str(record["createdAt"])}
        for record in (renamed(with_default({"id": key, **{n: m for n, m in value.items() if n != "avatar"}}, "role", "user"),
                               {"displayName": "name", "lastLogin": "lastSeen"})
                       for key, value in data.items())]},
    "MIXED2": lambda data: [
        {**record, "score": number_text(record["score"]), "profile": snake_deep(record["profile"])}
        for record in ({n: m for n, m in null_empty_objects({"id": key, **value}).items() if n != "tags"}
                       for key, value in data.items())],
    "KEPTOBJECT": lambda data: {
        key: {**{n: m for n, m in record.items() if n != "tags"}, "createdAt": str(record["createdAt"])}
        for key, record in null_empty_objects(data).items()},
}


def main():
    parser_name, workload, collector, source, destination = sys.argv[1:6]
    if collector == "nogc":
        gc.disable()
    transform = {"A": workload_a, "B": workload_b, **OPS}[workload]
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
