"""Rules and types proposed from sample responses (``reshape infer``), by the library."""

import json
from typing import Any, Dict, List, Sequence, Union

from . import _native
from ._rules import Rules, _error

Sample = Union[bytes, bytearray, memoryview, str, Any]


class Reason:
    """Why one proposed rule is there: its 1-based position, its op, and what the samples showed."""

    __slots__ = ("rule", "op", "text")

    def __init__(self, rule: int, op: str, text: str) -> None:
        self.rule: int = rule
        self.op: str = op
        self.text: str = text

    def __str__(self) -> str:
        return f"rule {self.rule} ({self.op}): {self.text}"

    def __repr__(self) -> str:
        return f"Reason(rule={self.rule!r}, op={self.op!r}, text={self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reason) and (self.rule, self.op, self.text) == (other.rule, other.op, other.text)

    def __hash__(self) -> int:
        return hash((self.rule, self.op, self.text))


class Inference:
    """What `reshape.infer` proposes: the rules document (``rules``, a list of rule dicts), one
    `Reason` per rule (``reasons``), and the types of the reshaped samples in Swift and Python."""

    def __init__(self, samples: bytes, options: Dict[str, Any], result: Dict[str, Any]) -> None:
        self._samples = samples
        self._options = options
        self.rules: List[Dict[str, Any]] = result["rules"]
        self.reasons: List[Reason] = [Reason(item["rule"], item["op"], item["reason"]) for item in result["reasons"]]
        # The library writes both sources with every answer: those for the root asked for (the
        # library's default, "Root", at first) are kept, other roots are asked for again.
        self._sources: Dict[str, Dict[str, str]] = {options.get("root", "Root"): result}

    def _source(self, root: str, language: str) -> str:
        if root not in self._sources:
            options = dict(self._options, root=root)
            status, output, error = _native.infer(self._samples, json.dumps(options).encode("utf-8"))
            if status != 0 or output is None:
                raise _error(status, error)
            self._sources = {root: json.loads(output)}
        text: str = self._sources[root][language]
        return text

    def swift(self, root: str = "Root") -> str:
        """Swift source: `Codable` structs for the reshaped samples, the rules as
        ``static let rules`` on the root type (`PayloadTransformable`), so that one
        ``ResponseDecoder().decode(Root.self, from: body)`` reshapes and decodes.

        Raises:
            InvalidArgument: `root` is not a Swift type name.
        """
        return self._source(root, "swift")

    def python(self, root: str = "Root") -> str:
        """Python source: a `TypedDict` per object of the reshaped samples (Python 3.11 or later,
        ``mypy --strict``); TypedDicts type the dicts ``json.loads`` and `Rules.apply_loads` return
        as they are, where dataclasses would need a conversion of every response.

        Raises:
            InvalidArgument: `root` is not a Python identifier.
        """
        return self._source(root, "python")


def _one_document(text: bytes) -> bytes:
    """`text`, read by the engine as one JSON document: its InvalidJSON otherwise. The samples go
    to the library as one JSON array, in which `{"a": 1}, {"b": 2}` would pass for two."""
    Rules([]).apply(text)
    return text


def _text(sample: Sample) -> bytes:
    if isinstance(sample, (bytes, bytearray, memoryview)):
        return _one_document(bytes(sample))
    if isinstance(sample, str):
        return _one_document(sample.encode("utf-8"))
    return json.dumps(sample, ensure_ascii=False, allow_nan=False).encode("utf-8")


def _infer_documents(texts: Sequence[bytes], options: Dict[str, Any]) -> Inference:
    """reshape_infer on texts that are each one JSON document."""
    array = b"[" + b",".join(texts) + b"]"
    status, output, error = _native.infer(array, json.dumps(options).encode("utf-8"))
    if status != 0 or output is None:
        raise _error(status, error)
    return Inference(array, options, json.loads(output))


def infer(samples: Sequence[Sample], *, keys: str = "camelCase", id_key: str = "id", name: str = "items",
          maps: Sequence[str] = (), objects: Sequence[str] = (), unwrap: bool = False) -> Inference:
    """Proposes rules, and Swift and Python types, from sample responses of one endpoint
    (``reshape infer``; docs/infer.md tells how each place is decided).

    Args:
        samples: the responses: each JSON text (bytes or str) or a value `json.loads` made.
        keys: member names of the output: ``"camelCase"``, ``"snake_case"``, ``"kebab-case"`` or
            ``"keep"``.
        id_key: the member that receives each record's key.
        name: the member a keyed collection at the root goes under.
        maps: paths of places that are keyed collections, whatever their score.
        objects: paths of places that are objects with fields, whatever their score.
        unwrap: propose ``unwrap`` for an envelope (``data``, ``result``, ``items``...).

    Returns:
        An `Inference`: ``.rules``, ``.reasons``, ``.swift(root=...)``, ``.python(root=...)``.

    Raises:
        InvalidJSON: a sample is not one JSON document.
        InvalidArgument: no sample, an option that is not as above, a path that selects nothing.
        RuleFailed: the proposed rules fail on a sample (names that would collide once converted).

    >>> found = infer(['{"-NxA1b2C3d4E5f6G7h8I": {"first_name": "Ada"}}'], name="users")
    >>> found.rules
    [{'op': 'keyedToArray', 'idKey': 'id', 'wrapIn': 'users'}, {'op': 'convertKeys', 'to': 'camelCase'}]
    >>> print(found.reasons[1])
    rule 2 (convertKeys): 1 of 2 member names are not camelCase (first_name → firstName)
    """
    return _infer_documents([_text(sample) for sample in samples], _options(keys, id_key, name, maps, objects, unwrap))


def _options(keys: str, id_key: str, name: str, maps: Sequence[str], objects: Sequence[str], unwrap: bool) -> Dict[str, Any]:
    """reshape_infer's options object."""
    return {"keys": keys, "idKey": id_key, "name": name, "map": list(maps), "object": list(objects), "unwrap": unwrap}
