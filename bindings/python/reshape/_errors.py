"""Errors: one base class carrying where a failure happened, one subclass per kind."""

import json
import os
from typing import Any, Dict, Optional, Tuple, Type, Union

from ._source import Source


class ReshapeError(ValueError):
    """A failure reported by libreshape.

    Attributes:
        code: the stable name of the failure ("invalid_json", "rule_failed", ...).
        status: the C API's status number (also a class attribute: ``Cancelled.status == 8``).
        rule: the 1-based index of the failing rule, or 0.
        op: the failing rule's op ("keyedToArray"), or "" when no rule failed.
        path: the RFC 9535 normalized path of the failing value (``$['users']['u1']``), or "".
        line, column, position: where JSON text could not be read (1-based line, 1-based column in
            Unicode scalars, 0-based byte offset), or 0.
        message: the whole one-line description, as ``str(error)`` shows it.
        source: for a rule's failure, where the failing value was in the input before the rules
            before it moved or renamed it (a `reshape.Source`, without its renames), or None when
            not known (tracing past the work limit, a value a rule made in a document over 64 MiB).
    """

    code: str = "internal"
    status: int = 7

    def __init__(self, message: str, *, status: Optional[int] = None, rule: int = 0, op: str = "", path: str = "",
                 line: int = 0, column: int = 0, position: int = 0, source: "Optional[Source]" = None) -> None:
        ValueError.__init__(self, message)
        self.message: str = message
        self.status = type(self).status if status is None else status
        self.rule: int = rule
        self.op: str = op
        self.path: str = path
        self.line: int = line
        self.column: int = column
        self.position: int = position
        self.source: Optional[Source] = source

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def __reduce__(self) -> Tuple[Any, ...]:
        # Pickles (to a worker process and back) as the message plus every attribute, for each
        # class alike: json.JSONDecodeError's own reduction would call InvalidJSON(msg, doc, pos).
        # A document lent as a memoryview or an mmap cannot travel: it arrives as "".
        state = dict(self.__dict__)
        if not isinstance(state.get("doc", ""), (str, bytes, bytearray)):
            state["doc"] = ""
        return (type(self), (self.message,), state)


class InvalidJSON(ReshapeError, json.JSONDecodeError):
    """The input is not valid JSON (or has a duplicate member name).

    It is also a `json.JSONDecodeError`, so code written for `json.loads` catches it, with:

    Attributes:
        msg: the message, as `message`.
        doc: the input as it was given (str, bytes, bytearray, memoryview or mmap); "" when the
            library read a file itself (`Rules.apply_file`).
        pos: where the input could not be read, as an index into `doc`: characters for a str,
            bytes otherwise (`position` is always bytes, of the UTF-8 text).
        lineno, colno: as `line` and `column` (1-based; the column in characters).
    """

    code: str = "invalid_json"
    status: int = 1

    def __init__(self, message: str, *, doc: Union[str, Any] = "", pos: Optional[int] = None, **where: Any) -> None:
        ReshapeError.__init__(self, message, **where)
        self.msg: str = message
        self.doc: Any = doc
        self.pos: int = self.position if pos is None else pos
        self.lineno: int = self.line
        self.colno: int = self.column


class InvalidRules(ReshapeError):
    """The rules document is not valid JSON or breaks the rules contract."""

    code: str = "invalid_rules"
    status: int = 2


class RuleFailed(ReshapeError):
    """A rule met a value it cannot reshape."""

    code: str = "rule_failed"
    status: int = 3


class LimitExceeded(ReshapeError):
    """The input goes beyond a documented limit (nesting deeper than 1000 levels)."""

    code: str = "limit_exceeded"
    status: int = 4


class InvalidArgument(ReshapeError, TypeError):
    """The library was called with an argument it does not accept."""

    code: str = "invalid_argument"
    status: int = 5


class OutOfMemory(ReshapeError, MemoryError):
    """Memory ran out inside the library."""

    code: str = "out_of_memory"
    status: int = 6


class InternalError(ReshapeError):
    """A bug in Reshape; please report it."""

    code: str = "internal"
    status: int = 7


class Cancelled(ReshapeError):
    """A progress callback asked the library to stop (status 8, "cancelled").

    `Rules.apply_file` does not raise it for its own ``progress`` callable: an exception that
    callable raises cancels the call and is then raised itself, unchanged. This class stands for
    the library's status wherever no Python exception caused it.
    """

    code: str = "cancelled"
    status: int = 8


class IOFailed(ReshapeError, OSError):
    """A read or a write failed (status 10, "io_error"): what `open()` would raise, and a ReshapeError.

    It is an `OSError` with the system's ``errno``, ``strerror`` and ``filename``, and the error
    raised is of the `OSError` subclass Python gives that errno, as for `open()`: a missing file
    raises an error that ``except FileNotFoundError`` catches, a refused one ``except
    PermissionError``; a full disk (``errno.ENOSPC``), EIO or EFBIG raise `IOFailed` itself. It is
    also a `ReshapeError` (and so a `ValueError`), like every error of the library, with ``code``,
    ``status`` and ``message``; ``str(error)`` is the library's one-line message, which names the
    file: ``io_error: cannot read input file 'users.json': No such file or directory``.

    The class raised for an errno with a subclass of its own derives from both this class and the
    builtin class, and is named like it: ``reshape.FileNotFoundError`` in a traceback is a
    `FileNotFoundError` and an `IOFailed`.

    Attributes:
        errno: the system's error number (`errno.ENOENT`...), or None when the failure has none
            (an input file that changed while it was read).
        strerror: the system's words for ``errno`` (`os.strerror`), or None without one.
        filename: the path of the file, as the caller gave it (str or bytes; a path-like object
            as `os.fspath` gives it), or the ``name`` of a file object when it is a path; None for
            other file objects (a pipe, a socket, ``sys.stdin``).
        io_file: which file failed: "input", "output", or "" for neither (a rules file).
    """

    code: str = "io_error"
    status: int = 10

    def __init__(self, message: str, *, errno: Optional[int] = None, filename: Union[str, bytes, None] = None,
                 io_file: str = "", **where: Any) -> None:
        ReshapeError.__init__(self, message, **where)
        if errno:
            OSError.__init__(self, errno, os.strerror(errno), *([] if filename is None else [filename]))
        else:
            OSError.__init__(self, message)
            self.filename = filename
        self.io_file: str = io_file

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Tuple[Any, ...]:
        state = dict(self.__dict__)
        state.update(errno=self.errno, strerror=self.strerror, filename=self.filename, args=self.args)
        return (_io_failed, (self.errno, self.message), state)


def _io_failed_classes() -> Dict[Type[OSError], Type[IOFailed]]:
    """An IOFailed subclass for each builtin subclass of OSError that an errno maps to."""
    builtins = (BlockingIOError, ChildProcessError, BrokenPipeError, ConnectionAbortedError, ConnectionRefusedError,
                ConnectionResetError, FileExistsError, FileNotFoundError, InterruptedError, IsADirectoryError,
                NotADirectoryError, PermissionError, ProcessLookupError, TimeoutError)
    classes: Dict[Type[OSError], Type[IOFailed]] = {}
    for builtin in builtins:
        doc = f"An `IOFailed` that is also a `{builtin.__name__}`: the class `open()` raises for its errno values."
        kind = type(builtin.__name__, (IOFailed, builtin), {"__doc__": doc, "__module__": "reshape"})
        classes[builtin] = kind
    return classes


_IO_FAILED_CLASSES = _io_failed_classes()


def io_failed_class(errno: Optional[int]) -> Type[IOFailed]:
    """The class raised for an io_error with this errno: IOFailed and what OSError(errno) would be."""
    if not errno:
        return IOFailed
    return _IO_FAILED_CLASSES.get(type(OSError(errno, "")), IOFailed)


def _io_failed(errno: Optional[int], message: str) -> IOFailed:
    """How an IOFailed unpickles: its class from its errno, then its state (which sets the rest)."""
    return io_failed_class(errno)(message, errno=errno)


BY_STATUS: Dict[int, Type[ReshapeError]] = {
    1: InvalidJSON,
    2: InvalidRules,
    3: RuleFailed,
    4: LimitExceeded,
    5: InvalidArgument,
    6: OutOfMemory,
    7: InternalError,
    8: Cancelled,
    10: IOFailed,
}
