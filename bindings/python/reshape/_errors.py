"""Errors: one base class carrying where a failure happened, one subclass per kind."""

from typing import Dict, Type


class ReshapeError(ValueError):
    """A failure reported by libreshape.

    Attributes:
        code: the stable name of the failure ("invalid_json", "rule_failed", ...).
        status: the C API's status number.
        rule: the 1-based index of the failing rule, or 0.
        path: the RFC 9535 normalized path of the failing value (``$['users']['u1']``), or "".
        line, column, position: where JSON text could not be read (1-based line, 1-based column in
            Unicode scalars, 0-based byte offset), or 0.
        message: the whole one-line description, as ``str(error)`` shows it.
    """

    code = "internal"

    def __init__(self, message: str, *, status: int = 7, rule: int = 0, path: str = "", line: int = 0,
                 column: int = 0, position: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.rule = rule
        self.path = path
        self.line = line
        self.column = column
        self.position = position

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class InvalidJSON(ReshapeError):
    """The input is not valid JSON (or has a duplicate member name)."""

    code = "invalid_json"


class InvalidRules(ReshapeError):
    """The rules document is not valid JSON or breaks the rules contract."""

    code = "invalid_rules"


class RuleFailed(ReshapeError):
    """A rule met a value it cannot reshape."""

    code = "rule_failed"


class LimitExceeded(ReshapeError):
    """The input goes beyond a documented limit (nesting deeper than 1000 levels)."""

    code = "limit_exceeded"


class InvalidArgument(ReshapeError, TypeError):
    """The library was called with an argument it does not accept."""

    code = "invalid_argument"


class OutOfMemory(ReshapeError, MemoryError):
    """Memory ran out inside the library."""

    code = "out_of_memory"


class InternalError(ReshapeError):
    """A bug in Reshape; please report it."""

    code = "internal"


BY_STATUS: Dict[int, Type[ReshapeError]] = {
    1: InvalidJSON,
    2: InvalidRules,
    3: RuleFailed,
    4: LimitExceeded,
    5: InvalidArgument,
    6: OutOfMemory,
    7: InternalError,
}
