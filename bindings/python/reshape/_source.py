"""Where a value of a rule list's output was in the input (``Rules.trace``, ``ReshapeError.source``)."""

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Tuple

#: reshape_error.source_origin (RESHAPE_SOURCE_*) to the names reshape_trace() writes.
ORIGINS = {1: "input", 2: "replaced", 3: "added", 4: "memberName", 5: "rebuilt"}


@dataclass(frozen=True)
class Rename:
    """One renaming of the member holding a value: by `rule` (1-based) and its `op`, from
    `from_name` to `to_name`."""

    rule: int
    op: str
    from_name: str
    to_name: str


@dataclass(frozen=True)
class Source:
    """Where a value of the output was in the input, or what made it.

    Attributes:
        origin: "input" (the input's value, moved or not), "replaced" (a rule's value in place of
            the input's at `path`), "added" (a rule's value with no counterpart in the input),
            "memberName" (the member name of the input's value at `path`, made a value by a rule:
            ``keyedToArray``'s id) or "rebuilt" (a rule's new object holding the members of the
            input's value at `path`: a record ``keyedToArray`` makes).
        path: the RFC 9535 normalized path in the input; "" for "added".
        line, column, position: where that value (for "memberName", that member name) starts in
            the input: 1-based line, 1-based column in Unicode scalars, 0-based byte offset; 0 for
            "added".
        rule, op: the rule that made the value, 1-based, and its op; 0 and "" for "input".
        renames: the renamings of the member holding the value, in the order the rules made them.
        description: the same in one line, as ``reshape trace`` prints it (``str(source)``).
    """

    origin: str
    path: str
    line: int
    column: int
    position: int
    rule: int = 0
    op: str = ""
    renames: Tuple[Rename, ...] = field(default=())
    description: str = ""

    def __str__(self) -> str:
        return self.description

    @classmethod
    def from_json(cls, text: bytes) -> "Source":
        """The source reshape_trace() writes as a JSON object."""
        data: Dict[str, Any] = json.loads(text)
        renames = tuple(Rename(item["rule"], item["op"], item["from"], item["to"]) for item in data["renames"])
        return cls(data["origin"], data["path"], data["line"], data["column"], data["position"], data["rule"], data["op"],
                   renames, data["description"])
