"""A user's script that touches every public name of `reshape`; test_typing.py runs `mypy --strict` on it.

Not a test module: it only has to type-check (it also runs, as the typing test checks).
"""

import io
import json
import mmap
import os
import pickle
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

import reshape
from reshape import (
    Cancelled,
    Data,
    Explanation,
    FileArgument,
    Inference,
    InternalError,
    InvalidArgument,
    InvalidJSON,
    InvalidRules,
    IOFailed,
    LibraryNotFound,
    LimitExceeded,
    Limits,
    OutOfMemory,
    ProgressCallback,
    Reason,
    Rename,
    ReshapeError,
    RuleFailed,
    Rules,
    RulesSpec,
    SkipCallback,
    Source,
    __version__,
    apply,
    infer,
    library_version,
)

# Specs as users hold them: list is invariant, so these only type-check against Sequence/Mapping.
rules_list: List[Dict[str, Any]] = [{"op": "keyedToArray", "idKey": "objectId"}, {"op": "emptyObjectToNull"}]
rules_seq: Sequence[Mapping[str, Any]] = tuple(rules_list)
wrapped: Dict[str, List[Dict[str, Any]]] = {"rules": rules_list}
spec: RulesSpec = rules_list


def reshape_everything(folder: Path) -> List[object]:
    seen: List[object] = [__version__, library_version(), reshape.__version__, reshape.ops.__doc__]
    for form in (rules_list, rules_seq, wrapped, json.dumps(rules_list), json.dumps(rules_list).encode(), spec):
        seen.append(Rules(form).apply(b'{"u1": {"avatar": {}}}'))
    path = folder / "rules.json"
    path.write_text(json.dumps(rules_list))
    limits = Limits(max_depth=100, max_output_bytes=1 << 20)
    seen.append(Rules.from_file(os.fspath(path), limits=limits).ops)
    with Rules(path, limits=limits) as rules:
        data = b'{"u1": {"name": "Ada"}}'
        lent: Data = memoryview(data)
        out: bytes = rules.apply(lent, pretty=True, allow_duplicate_keys=False)
        value: Any = rules.apply_loads(bytearray(data), parse_float=float)
        traced_name: Source = rules.trace(data, "$[0].name")
        renames: "tuple[Rename, ...]" = traced_name.renames
        traced_text: str = traced_name.origin + traced_name.path + traced_name.op + traced_name.description
        seen += [traced_name.line + traced_name.column + traced_name.position + traced_name.rule, renames, traced_text]
        try:
            Rules([{"op": "unwrap", "path": "$.u1"}, {"op": "coerce", "path": "$.name", "to": "number"}]).apply(data)
        except RuleFailed as failed:
            traced: Optional[Source] = failed.source
            seen.append(traced.path if traced is not None else "")
        exact: Any = rules.apply_loads(memoryview(data), parse_float=Decimal)
        lines: Iterator[bytes] = rules.apply_lines([b'{"a": {}}', '{"b": {}}'], skip_invalid_lines=True)
        ops: tuple[str, ...] = rules.ops
        document: Any = rules.document
        copy: Rules = pickle.loads(pickle.dumps(rules))
        seen += [out, value, exact, list(lines), ops, document, repr(copy)]
        src = folder / "in.json"
        src.write_bytes(data)
        with open(src, "rb") as file:
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                seen.append(rules.apply(mapped))
        report: ProgressCallback = lambda done, total: None
        source: FileArgument = src
        target: FileArgument = io.BytesIO()
        rules.apply_file(source, folder / "out.json", jobs=1, progress=report)
        rules.apply_file(os.fspath(src), target, output_lines=True)
        skipped: List[ReshapeError] = []
        on_skip: SkipCallback = skipped.append
        rules.apply_file(src, io.BytesIO(), input_lines=True, skip_invalid_lines=True, on_skip=on_skip)
        plan: List[str] = rules.plan()
        seen += [skipped, plan]
        seen.append(apply(rules_list, "{}"))

        async def on_a_loop() -> List[object]:
            reshaped: bytes = await rules.apply_async(b'{"u1": {}}', pretty=True)
            loaded: Any = await rules.apply_loads_async(b'{"u1": {}}', parse_float=float)
            return [reshaped, loaded]

        import asyncio

        seen += asyncio.run(on_a_loop())
    errors: List[ReshapeError] = []
    try:
        apply([], "{")
    except json.JSONDecodeError as error:
        assert isinstance(error, InvalidJSON)
        position: int = error.pos + error.lineno + error.colno + error.position
        name: str = error.code + error.op + error.path + error.message
        errors.append(error)
        seen += [position, name]
    try:
        Rules(folder / "missing.json")
    except FileNotFoundError as error:
        assert isinstance(error, IOFailed)
        number: Optional[int] = error.errno
        where: str = error.io_file
        seen += [number, where, error.filename]
    for kind in (Cancelled, InternalError, InvalidArgument, InvalidRules, IOFailed, LimitExceeded, OutOfMemory,
                 RuleFailed):
        status: int = kind.status
        seen.append(status)
    explained: Explanation = Rules([{"op": "keyedToArray"}]).explain('{"a": {}}', allow_duplicate_keys=False)
    steps: List[Dict[str, Any]] = explained.rules
    failure: Optional[Dict[str, Any]] = explained.failure
    later: List[str] = explained.not_run
    seen += [steps, failure, later, str(explained)]
    found: Inference = infer(['{"-NxA1b2C3d4E5f6G7h8I": {"first_name": "Ada"}}'], keys="camelCase", id_key="uid",
                             name="users", maps=[], objects=[], unwrap=False)
    first: Reason = found.reasons[0]
    proposed: List[Dict[str, Any]] = found.rules
    sources: List[str] = [found.swift(root="Users"), found.python(root="Users")]
    seen += [first.rule, first.op, first.text, proposed, sources]
    missing: Optional[type] = LibraryNotFound
    seen += [errors, missing]
    return seen


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        print(len(reshape_everything(Path(folder))))
